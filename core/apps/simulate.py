"""`kubeberth simulate`: the real framework, queue and binding path on the embedded cluster.

A what-if tool (feed it a `kubectl get` dump, see DUMP_COMMAND), the default main job on a fresh
machine, and the engine behind `kubeberth bench`.

Which pods it schedules is explicit: those whose schedulerName is one of the configuration's
profiles or `default-scheduler` (the what-if "kubeberth replaces the default scheduler"), or the
names given; pods for other schedulers are left Pending and reported as `pending_other`, as a real
cluster would leave them to their own scheduler.

The input cluster is in simulate_input.py, the summary and its text in simulate_summary.py, one
pod's story in simulate_story.py (their names are importable from here too).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..backends.embedded import EmbeddedCluster
from ..cache.podinfo import PodInfo
from ..cache.shapes import section
from ..runtime.generation import Generation
from ..runtime.records import CycleRecord
from ..scheduling.scheduler import Scheduler, VirtualClock
from .dump import check_references, warn_missing
from .simulate_input import generate_cluster, load_manifests
from .simulate_story import pod_story
from .simulate_summary import format_placements, format_summary, node_usage, progress_printer, summarize

__all__ = [
    "DEFAULT_SCHEDULER_NAME",
    "EXIT_BAD_INPUT",
    "EXIT_OK",
    "EXIT_PODS_ERRORED",
    "EXIT_UNSCHEDULABLE",
    "SIMULATE_MAX_ERRORS_PER_POD",
    "SimulationResult",
    "format_placements",
    "format_summary",
    "generate_cluster",
    "load_manifests",
    "node_usage",
    "pod_story",
    "progress_printer",
    "scheduled_names",
    "simulate",
]

SIMULATE_MAX_ERRORS_PER_POD = 5


# ---- running --------------------------------------------------------------------------------
# `kubeberth simulate` exit codes (README "Simulate"): CI runs simulate on a config and must see
# a plugin that raised, not a green run with a footnote.
EXIT_OK = 0
EXIT_PODS_ERRORED = 1  # some pod ended in Error: a plugin raised or returned Error on every attempt
EXIT_BAD_INPUT = 2  # config, manifest or plugin file (KubeberthError)
EXIT_UNSCHEDULABLE = 3  # only with --fail-on-unschedulable

DEFAULT_SCHEDULER_NAME = "default-scheduler"


@dataclass
class SimulationResult:
    summary: dict[str, Any]
    scheduler: Scheduler
    backend: EmbeddedCluster
    placements: dict[str, str] = field(default_factory=dict)
    # Every scheduling cycle per pod ("namespace/name"), oldest first, when asked for (keep_history).
    history: dict[str, list[CycleRecord]] = field(default_factory=dict)
    # The input pods as admitted (priority resolved), by "namespace/name".
    inputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    scheduler_names: frozenset[str] = frozenset()

    def pod_index(self) -> dict[str, dict[str, dict[str, Any]]]:
        """The summary's per-pod lists by pod key (built once: the report asks for every pod)."""
        cached = self.__dict__.get("_pod_index")
        if cached is None:
            lists = ("victims", "pending_other_pods", "gated_pods", "errored_pods")
            cached = {name: {e["pod"]: e for e in self.summary.get(name, ())} for name in lists}
            self.__dict__["_pod_index"] = cached
        return cached

    def pod_claims(self) -> dict[str, list[tuple[str, list[str]]]]:
        """ResourceClaims reserved for each pod (by uid), as (claim name, allocated devices as
        driver/pool/device): its own claims and DynamicResources' claim for DRA-backed extended
        resources alike. Built once: the report asks for every pod."""
        cached = self.__dict__.get("_pod_claims")
        if cached is None:
            cached = {}
            for claim in self.backend.list("ResourceClaim"):
                status = claim.get("status") or {}
                results = ((status.get("allocation") or {}).get("devices") or {}).get("results") or ()
                devices = [f"{r.get('driver')}/{r.get('pool')}/{r.get('device')}" for r in results]
                for ref in status.get("reservedFor") or ():
                    cached.setdefault(str(ref.get("uid") or ""), []).append(
                        (str((claim.get("metadata") or {}).get("name", "")), devices))
            self.__dict__["_pod_claims"] = cached
        return cached

    def errored_pods(self) -> list[str]:
        """Pods that ended in Error (gave up after SIMULATE_MAX_ERRORS_PER_POD attempts)."""
        return sorted(e.pod.key for e in self.scheduler.failed.values())

    def unschedulable_pods(self) -> list[str]:
        return sorted(e.pod.key for e in self.scheduler.queue.entries.values() if e.where == "unschedulable")

    def exit_status(self, fail_on_unschedulable: bool = False) -> tuple[int, str]:
        """The process exit code for this run, and a one-line reason when it is not 0."""
        skipped = self.scheduler.skipped_pods
        if skipped:
            return EXIT_BAD_INPUT, f"{len(skipped)} malformed pod(s) skipped: {_first(sorted(skipped.values()), 1)}"
        errored = self.errored_pods()
        if errored:
            return EXIT_PODS_ERRORED, (
                f"{len(errored)} pod(s) ended in Error (a plugin raised or returned Error; see the summary): "
                f"{_first(errored)}"
            )
        unschedulable = self.unschedulable_pods()
        if fail_on_unschedulable and unschedulable:
            return EXIT_UNSCHEDULABLE, (
                f"{len(unschedulable)} pod(s) unschedulable (--fail-on-unschedulable): {_first(unschedulable)}"
            )
        return EXIT_OK, ""


def _first(names: list[str], limit: int = 5) -> str:
    return ", ".join(names[:limit]) + (f", ... ({len(names) - limit} more)" if len(names) > limit else "")


def scheduled_names(generation: Generation, names: list[str] | None = None) -> frozenset[str]:
    """The schedulerNames simulate schedules: the given ones, else the profiles plus default-scheduler."""
    if names:
        return frozenset(names)
    return frozenset(generation.profiles) | {DEFAULT_SCHEDULER_NAME}


def simulate(
    generation: Generation,
    objects: list[dict[str, Any]],
    seed: int | None = 0,
    progress: Callable[[int, int], None] | None = None,
    binding_workers: int = 4,
    observers: list[Callable[[Any], None]] | None = None,
    attach: Callable[[Scheduler], None] | None = None,
    scheduler_names: list[str] | None = None,
    keep_history: bool = False,
    tie_breaker: Callable[[PodInfo, list[str]], str] | None = None,
) -> SimulationResult:
    """Schedule `objects` until settled. `attach(scheduler)` may add observers before it starts.

    `scheduler_names`: pods with these schedulerNames are scheduled (with the profile of that
    name, else the default profile); default: the profiles and `default-scheduler`.
    `tie_breaker(pod, node names)`: chooses among equally scored best nodes (default: the seed).
    """
    warn_missing(check_references(objects))
    clock = VirtualClock()
    backend = EmbeddedCluster(objects, clock=clock.now)
    admitted = backend.pods()  # the input pods as the API server stored them (priority resolved)
    names = scheduled_names(generation, scheduler_names)
    scheduler = Scheduler(
        generation,
        backend,
        clock=clock,
        seed=seed,
        binding_workers=binding_workers,
        max_errors_per_pod=SIMULATE_MAX_ERRORS_PER_POD,
        adopted_scheduler_names=names,
        tie_breaker=tie_breaker,
    )
    scheduler.observers.extend(observers or ())
    watch = _RunWatch(keep_history)
    watch.attach_to(scheduler)
    if attach is not None:
        attach(scheduler)
    input_pods = [o for o in objects if o.get("kind") == "Pod"]
    already_bound = sum(1 for p in input_pods if section(p, "spec").get("nodeName"))
    elapsed, cpu = _run(scheduler, progress, len(input_pods) - already_bound)
    summary = summarize(generation, scheduler, backend, len(input_pods), already_bound, elapsed)
    summary["error_attempts"] = watch.error_attempts
    summary["cpu_seconds"] = round(cpu, 3)
    summary["victims"] = watch.victims
    _count_victims_once(summary, watch.victims, backend, input_pods)
    summary["scheduler_names"] = sorted(names)
    other = _pending_other(backend, scheduler)
    summary["pending_other"] = len(other)
    summary["pending_other_pods"] = other
    if backend.unknown_priority_classes:
        summary["unknown_priority_classes"] = dict(backend.unknown_priority_classes)
    inputs = {
        f"{section(p, 'metadata').get('namespace') or 'default'}/{section(p, 'metadata').get('name')}": p
        for p in admitted
    }
    return SimulationResult(summary, scheduler, backend, _placements(backend), watch.history, inputs, names)


def _placements(backend: EmbeddedCluster) -> dict[str, str]:
    """Every bound pod's node, by namespace/name."""
    return {
        f"{p['metadata']['namespace']}/{p['metadata']['name']}": p["spec"]["nodeName"]
        for p in backend.pods()
        if section(p, "spec").get("nodeName")
    }


class _RunWatch:
    """What simulate observes of the cycles: attempts that ended in Error, preemption victims, and
    (keep_history) every cycle record per pod."""

    def __init__(self, keep_history: bool) -> None:
        self.keep_history = keep_history
        self.error_attempts = 0
        self.victims: list[dict[str, Any]] = []
        self.history: dict[str, list[CycleRecord]] = {}

    def attach_to(self, scheduler: Scheduler) -> None:
        # Attempts that ended in Error, retried or not: a plugin that raised once must show up even
        # when its retry succeeded.
        scheduler.observers.append(self.count_errors)
        scheduler.binding_observers.append(self.count_errors)
        scheduler.observers.append(self.watch)

    def count_errors(self, record: Any) -> None:
        if record.result == "Error" or (record.binding or {}).get("result") == "Error":
            self.error_attempts += 1

    def watch(self, record: CycleRecord) -> None:
        pre = record.preemption
        if pre and pre.get("victims"):
            self.victims.extend(
                {"pod": v, "preemptor": record.pod, "node": pre.get("nominated_node") or ""} for v in pre["victims"]
            )
        if self.keep_history:
            self.history.setdefault(record.pod, []).append(record)


def _run(scheduler: Scheduler, progress: Callable[[int, int], None] | None, to_schedule: int) -> tuple[float, float]:
    """Run the scheduler until settled: (wall seconds, CPU seconds of all threads)."""
    scheduler.start_backend()
    scheduler.drain_events()
    t0 = time.perf_counter()
    cpu0 = time.process_time()  # CPU of all threads: less sensitive to a busy machine than wall time
    done = [0]

    def on_progress() -> None:
        done[0] += 1
        if progress is not None and done[0] % 200 == 0:
            progress(scheduler.stats.scheduled, to_schedule)

    scheduler.run_until_settled(on_progress)
    elapsed = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    scheduler.shutdown()
    if progress is not None:
        progress(scheduler.stats.scheduled, to_schedule)
    return elapsed, cpu


def _count_victims_once(
    summary: dict[str, Any], victims: list[dict[str, Any]], backend: EmbeddedCluster, input_pods: list[dict[str, Any]]
) -> None:
    """Buckets are exclusive: a victim counts as preempted, not where it was before."""
    gone = {v["pod"] for v in victims} - {
        f"{section(p, 'metadata').get('namespace')}/{section(p, 'metadata').get('name')}" for p in backend.pods()
    }
    bound_before = {
        f"{section(p, 'metadata').get('namespace') or 'default'}/{section(p, 'metadata').get('name')}"
        for p in input_pods
        if section(p, "spec").get("nodeName")
    }
    summary["already_bound"] -= len(gone & bound_before)
    summary["scheduled"] -= len(gone - bound_before)


def _pending_other(backend: EmbeddedCluster, scheduler: Scheduler) -> list[dict[str, str]]:
    """Unbound pods no profile of ours handles: a real cluster leaves them to their own scheduler."""
    out = []
    for p in backend.pods():
        spec, meta = section(p, "spec"), section(p, "metadata")
        if spec.get("nodeName") or section(p, "status").get("phase") in ("Succeeded", "Failed"):
            continue
        if meta.get("uid") in scheduler.skipped_pods:
            continue  # malformed: counted as skipped
        name = spec.get("schedulerName") or DEFAULT_SCHEDULER_NAME
        if scheduler.generation.framework_for(name) is None and name not in scheduler.adopted_scheduler_names:
            out.append({"pod": f"{meta.get('namespace') or 'default'}/{meta.get('name')}", "scheduler_name": name})
    return sorted(out, key=lambda o: o["pod"])
