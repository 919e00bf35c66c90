"""Where a pod stands in the scheduler, for decision records and `kubeberth explain`.

`holds(scheduler)` says whether the scheduler still holds a pod (queued, in flight, waiting at
Permit, assumed while it binds, or given up after errors): the decision store keeps those pods'
records past its bound. `explain_missing(scheduler, key)` answers `explain` for a pod with no
record: not attempted yet (and where it waits: kube-scheduler's activeQ, backoffQ,
unschedulablePods, or gated), not ours (its spec.schedulerName), bound already (its node), or not
in the cluster. The pod is read through the backend's get_object (the API server for `run`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..scheduling.scheduler import Scheduler

log = logging.getLogger(__name__)

DEFAULT_SCHEDULER_NAME = "default-scheduler"

# SchedulingQueue places -> kube-scheduler's names for them.
QUEUE_NAMES = {
    "active": "activeQ",
    "backoff": "backoffQ",
    "unschedulable": "unschedulablePods",
    "gated": "unschedulablePods, gated by PreEnqueue",
}


def holds(scheduler: Scheduler) -> Callable[[str], bool]:
    """A predicate on pod uids: does `scheduler` still hold the pod? Loop thread only."""
    entries, waiting, failed, assumed = (
        scheduler.queue.entries, scheduler.waiting_pods, scheduler.failed, scheduler.cluster.assumed,
    )

    def still_pending(uid: str) -> bool:
        return uid in entries or uid in waiting or uid in assumed or uid in failed

    return still_pending


def explain_missing(scheduler: Scheduler, key: str, kept: int) -> dict[str, Any]:
    """{"state", "message"[, "node", "scheduler_name", "queue"]} for a pod with no decision record.

    States: not-found, other-scheduler, bound, finished, queued, waiting, pending."""
    try:
        pod = scheduler.backend.get_object("Pod", key)
    except Exception as exc:  # noqa: BLE001 - the answer says the lookup failed instead
        log.info("explain: looking up pod %s failed: %s", key, exc)
        return {"state": "unknown", "message": f"no decision recorded for pod {key}, and looking it up failed: {exc}"}
    if pod is None:
        return {"state": "not-found", "message": f"pod {key} does not exist in the cluster"}
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    node, name = spec.get("nodeName"), spec.get("schedulerName") or DEFAULT_SCHEDULER_NAME
    if not _ours(scheduler, name):
        where = f"bound to {node}" if node else "Pending for it"
        profiles = ", ".join(scheduler.generation.profiles)
        return {
            "state": "other-scheduler", "scheduler_name": name, "node": node or "",
            "message": f"pod {key} is not ours: its spec.schedulerName is {name} (this scheduler runs {profiles}); "
            f"it is {where}",
        }
    if node:
        return {
            "state": "bound", "node": node,
            "message": f"pod {key} is bound to {node} with no decision recorded here: bound by another scheduler "
            f"instance or before this one started, created with spec.nodeName, or its record is older than the "
            f"last {kept} finished pods kept",
        }
    if status.get("phase") in ("Succeeded", "Failed"):
        return {"state": "finished", "message": f"pod {key} has finished (phase {status['phase']}) unscheduled"}
    return _queued(scheduler, key, str((pod.get("metadata") or {}).get("uid") or ""))


def _ours(scheduler: Scheduler, name: str) -> bool:
    return (
        scheduler.generation.framework_for(name) is not None
        or name in scheduler.adopted_scheduler_names
        or scheduler.adopt_unknown_profiles
    )


def _queued(scheduler: Scheduler, key: str, uid: str) -> dict[str, Any]:
    """A pending pod of ours without a record: where the scheduler holds it (single dict reads,
    safe from the HTTP thread)."""
    entry = scheduler.queue.entries.get(uid)
    if entry is not None and entry.where == "inflight":
        return {"state": "queued", "queue": "inflight", "message": f"pod {key} is being scheduled right now"}
    if entry is not None:
        queue = QUEUE_NAMES.get(entry.where or "active", entry.where)
        return {"state": "queued", "queue": queue, "message": f"pod {key} has not been attempted yet: it is in {queue}"}
    if uid in scheduler.waiting_pods or uid in scheduler.cluster.assumed:
        return {"state": "waiting", "message": f"pod {key} is past its scheduling cycle (waiting at Permit or binding)"}
    return {
        "state": "pending",
        "message": f"pod {key} is Pending and not attempted yet: the scheduler has not received it from its "
        "informer yet",
    }
