"""One pod's story in a simulation (`kubeberth simulate --explain` and the report): its state, a
sentence about it, and every scheduling cycle it had."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ManifestError

if TYPE_CHECKING:
    from .simulate import SimulationResult


def pod_story(result: SimulationResult, key: str) -> dict[str, Any]:
    """What happened to one pod in the simulation (for --explain and the report): its state, a
    sentence about it, and every scheduling cycle it had. Unknown names raise ManifestError."""
    pod = result.inputs.get(key)
    if pod is None:
        import difflib

        close = difflib.get_close_matches(key, list(result.inputs), n=3, cutoff=0.85)
        hint = f"; did you mean {', '.join(close)}?" if close else " (use namespace/name)"
        raise ManifestError(f"--explain: pod {key!r} does not exist in the simulated cluster{hint}")
    cycles = [r.as_dict() for r in result.history.get(key, ())]
    story: dict[str, Any] = {"pod": key, "cycles": cycles}
    story.update(_held_back(result, key, pod.get("spec") or {}) or _attempted(result, key, pod, cycles))
    return story


def _held_back(result: SimulationResult, key: str, spec: dict[str, Any]) -> dict[str, Any] | None:
    """Preempted, left to another scheduler, gated or errored: the state and its sentence."""
    index = result.pod_index()
    victim = index["victims"].get(key)
    if victim is not None:
        return {"state": "preempted", "detail": (
            f"preempted by {victim['preemptor']} on node {victim['node']} (deleted gracefully:"
            f" terminationGracePeriodSeconds {spec.get('terminationGracePeriodSeconds', 30)})"
        )}
    other = index["pending_other_pods"].get(key)
    if other is not None:
        return {"state": "other-scheduler", "detail": (
            f"schedulerName {other['scheduler_name']!r} is not simulated (scheduled: "
            f"{', '.join(result.summary.get('scheduler_names', ()))}); it stays Pending for its own scheduler."
            " Add it with --scheduler-names."
        )}
    gated = index["gated_pods"].get(key)
    if gated is not None:
        if gated["gates"]:
            return {"state": "gated", "detail": (
                f"schedulingGates {', '.join(gated['gates'])}: never attempted; it waits in the gated pool"
                " until every gate is removed"
            )}
        # held by a PreEnqueue plugin, e.g. GangScheduling until its gang is complete
        return {"state": "gated", "detail": f"{gated['plugin']} PreEnqueue: {gated['message']}; never attempted, it waits in the gated pool"}
    errored = index["errored_pods"].get(key)
    if errored is not None:
        return {"state": "errored", "detail": errored["message"]}
    return None


def _attempted(
    result: SimulationResult, key: str, pod: dict[str, Any], cycles: list[dict[str, Any]]
) -> dict[str, Any]:
    """Already bound, scheduled (with its claims' devices), unschedulable or pending."""
    spec = pod.get("spec") or {}
    if spec.get("nodeName") and not cycles:
        return {"state": "already-bound", "detail": f"bound to node {spec['nodeName']} in the input; the simulation did not move it"}
    if key in result.placements:
        detail = f"on node {result.placements[key]}"
        uid = str((pod.get("metadata") or {}).get("uid") or "")
        for name, devices in result.pod_claims().get(uid, ()):
            detail += f"; claim {name}: {', '.join(devices) or 'no devices'}"
        return {"state": "scheduled", "detail": detail}
    if cycles and cycles[-1].get("result") == "Unschedulable":
        return {"state": "unschedulable", "detail": cycles[-1].get("message", "")}
    return {"state": "pending"}
