"""Shadow generations: a candidate generation decides beside the live one and writes nothing.

After a live scheduling cycle has handed its pod to the binding cycle (the bind is not delayed),
the loop runs the candidate's filter and score (`find_node`) for the same pod over the same node
table: the pod the live cycle assumed is taken off its node for the shadow cycle
(`ClusterState.hypothetical`, restored exactly), the round-robin start index and the random
generator are those the live cycle started from, and the incremental and batching caches are
not touched. The candidate runs no PostFilter, Reserve, Permit or binding point, and its plugins
get a handle whose writes are refused and counted (`ReadOnlyBackend`): no binding, nomination,
event, status or object write, no assume in the cache.

Where the two decisions differ, the pod's detail is computed on the same snapshot: each side's
filters over every node (which nodes one rejects and the other accepts, by plugin and reason)
and both sides' scores of the top nodes. A candidate that scores the live node as high as its own
pick agrees (a tie, broken at random as kube-scheduler's selectHost does, may fall differently
over a different feasible set); its own pick is kept as `tied_node`. Each result goes to
`on_outcome` as a `ShadowOutcome`.

Overhead is bounded twice: a share of pods (by a hash of the uid, so a pod is sampled on every
attempt or on none) and a CPU budget, the shadow's recent seconds over the live cycles' recent
seconds (both decayed with a `window` time constant); a sampled pod past the budget is skipped.
A shadow cycle that raises (or is interrupted by the plugin watchdog) is an outcome with an
error; the live cycle's result was decided and handed on before it ran.
"""

from __future__ import annotations

import logging
import math
import time
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..api.status import Status
from ..api.types import CycleState
from ..backends.base import Backend, ObjectRef
from ..cache.podinfo import PodInfo
from ..runtime.framework import Framework
from ..runtime.generation import Generation
from ..runtime.records import CycleRecord, Diagnosis
from .handle import FrameworkHandle

if TYPE_CHECKING:
    from .scheduler import Scheduler
    from .state import SchedulerState

log = logging.getLogger(__name__)

NODES_LISTED = 10  # node names kept per (plugin, reason) in a divergence's feasibility detail
TOP_NODES = 5  # nodes whose scores a divergence's detail compares, per side


class ReadOnlyBackend(Backend):
    """A backend for a shadow generation's handle: reads go to the live backend, every write is
    refused (an Error status, or nothing) and counted in `refused`."""

    def __init__(self, reads: Backend) -> None:
        self._reads = reads
        self.refused = 0

    def _refuse(self, what: str) -> Status:
        self.refused += 1
        return Status.error(f"a shadow generation does not write ({what})")

    def start(self, sink: Any) -> None:
        raise RuntimeError("a shadow generation's backend is not started")

    def stop(self) -> None:
        return None

    def get_object(self, kind: str, key: str) -> dict[str, Any] | None:
        return self._reads.get_object(kind, key)

    def bind(self, pod: PodInfo, node_name: str, annotations: Mapping[str, str] | None = None) -> Status:
        return self._refuse("bind")

    def record_event(self, pod: PodInfo, event_type: str, reason: str, message: str) -> None:
        self._refuse("event")

    def record_object_event(self, ref: ObjectRef, event_type: str, reason: str, message: str) -> None:
        self._refuse("event")

    def patch_pod_condition(self, pod: PodInfo, condition: dict[str, Any]) -> None:
        self._refuse("pod status")

    def patch_pod_status(self, pod: PodInfo, condition: dict[str, Any], nominated: str | None = None) -> None:
        self._refuse("pod status")

    def mark_disruption_target(self, pod: PodInfo, condition: dict[str, Any]) -> Status:
        return self._refuse("pod status")

    def set_nominated_node(self, pod: PodInfo, node_name: str | None) -> None:
        self._refuse("nomination")

    def write_nominated_node(self, pod: PodInfo, node_name: str) -> Status:
        return self._refuse("nomination")

    def delete_pod(self, pod: PodInfo, reason: str) -> Status:
        return self._refuse("pod deletion")

    def update_object(self, kind: str, obj: dict[str, Any], subresource: str = "") -> Status:
        return self._refuse(f"{kind} update")

    def patch_object(self, kind: str, key: str, patch: dict[str, Any], subresource: str = "") -> Status:
        return self._refuse(f"{kind} patch")

    def create_object(self, kind: str, obj: dict[str, Any]) -> tuple[Status, dict[str, Any] | None]:
        return self._refuse(f"{kind} creation"), None

    def delete_object(self, kind: str, key: str) -> Status:
        return self._refuse(f"{kind} deletion")


class ShadowHandle(FrameworkHandle):
    """A FrameworkHandle that cannot change the cache either: no nomination, requeue or activation."""

    __slots__ = ()

    def nominate(self, pod: Any, node_name: str | None) -> None:
        backend = self._backend
        if isinstance(backend, ReadOnlyBackend):
            backend._refuse("nomination")


@dataclass(frozen=True)
class ShadowPolicy:
    """`sample`: the share of pods compared (0..1); `cpu_budget`: the most shadow seconds per live
    cycle second over the last `window` seconds (0: no budget)."""

    sample: float = 1.0
    cpu_budget: float = 0.25
    window: float = 10.0

    def check(self) -> None:
        if not 0.0 <= self.sample <= 1.0:
            raise ValueError(f"sample: {self.sample} is not a share between 0 and 1")
        if self.cpu_budget < 0:
            raise ValueError(f"cpu_budget: {self.cpu_budget} must be >= 0 (0: no budget)")
        if self.window <= 0:
            raise ValueError(f"window: {self.window} must be > 0 seconds")


@dataclass
class ShadowOutcome:
    """One pod decided by the live and the shadow generation."""

    pod: str
    uid: str
    profile: str
    live_node: str | None
    shadow_node: str | None
    message: str  # the unschedulable side's reason ("" when both placed it)
    live_seconds: float
    shadow_seconds: float
    start_ns: int
    end_ns: int
    error: str = ""  # the shadow cycle's error (no decision)
    detail: dict[str, Any] | None = None
    writes_refused: int = 0
    tied_node: str | None = None  # the candidate's own pick, scored as high as the live node (it agrees)
    live_record: CycleRecord | None = None  # the live cycle's record (its span context links the shadow span)


@dataclass
class _Token:
    """What the live cycle started from: the shadow cycle starts from the same."""

    start_index: int
    rng_state: dict[str, Any]


@dataclass
class ShadowCounts:
    sampled: int = 0
    compared: int = 0
    errors: int = 0
    skipped_sampling: int = 0
    skipped_budget: int = 0
    skipped_other: dict[str, int] = field(default_factory=dict)  # why -> pods (live error, no profile)
    live_seconds: float = 0.0  # the compared pods' live cycles
    shadow_seconds: float = 0.0  # their shadow cycles (the decision alone)
    detail_seconds: float = 0.0  # divergences' detail passes
    writes_refused: int = 0
    ties: int = 0  # compared pods that agree on a tie the candidate broke for another node


class ShadowRun:
    """One shadow generation beside a scheduler's live one. Its methods run on the scheduling
    thread, except `counts` and `budget_share`, which read plain numbers."""

    def __init__(
        self,
        generation: Generation,
        policy: ShadowPolicy,
        on_outcome: Callable[[ShadowOutcome], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        policy.check()
        self.generation = generation
        self.policy = policy
        self.on_outcome = on_outcome
        self.clock = clock
        self.counts = ShadowCounts()
        self._threshold = int(policy.sample * 0x1_0000_0000)
        self._live_decayed = 0.0
        self._shadow_decayed = 0.0
        self._decayed_at = clock()
        self._handles: dict[str, ShadowHandle] = {}
        self._rng = np.random.default_rng()  # given the live cycle's state before each shadow cycle
        self._backend: ReadOnlyBackend | None = None

    # ---- installing ----------------------------------------------------------------------
    def install(self, scheduler: Scheduler) -> str | None:
        """On the scheduling thread: dry-run the candidate as a reload's is, then shadow the live
        cycles from the next one. Returns the dry run's error (then nothing is installed)."""
        from .swap import dry_run

        self.prepare(scheduler)
        incremental, scheduler.incremental = scheduler.incremental, False  # the live cycles' cache stays theirs
        try:
            with self._registered(scheduler):
                error = dry_run(scheduler, self.generation)
        finally:
            scheduler.incremental = incremental
        if error is None:
            scheduler.shadow = self
        return error

    def prepare(self, scheduler: SchedulerState) -> None:
        """The candidate's read-only handles over `scheduler`'s backend and cache (install does
        this; a canary's comparison calls it without installing)."""
        self._backend = ReadOnlyBackend(scheduler.backend)
        for profile, fw in self.generation.profiles.items():
            self._handles[profile] = ShadowHandle(fw, self._backend, scheduler.cluster, scheduler.clock.now, {})

    def uninstall(self, scheduler: Scheduler) -> None:
        """On the scheduling thread: the next cycle runs without the shadow."""
        if scheduler.shadow is self:
            scheduler.shadow = None

    # ---- the live cycle's side -------------------------------------------------------------
    def before(self, scheduler: SchedulerState, pod: PodInfo) -> _Token | None:
        """Before a live cycle: whether `pod` is compared (its token) or not (None)."""
        if zlib.crc32(pod.uid.encode()) >= self._threshold:
            self.counts.skipped_sampling += 1
            return None
        self._decay()
        budget = self.policy.cpu_budget
        if budget and self._shadow_decayed > budget * self._live_decayed:
            self.counts.skipped_budget += 1
            return None
        self.counts.sampled += 1
        return _Token(scheduler.next_start_index, dict(scheduler.rng.bit_generator.state))

    def after(
        self, scheduler: SchedulerState, fw: Framework, pod: PodInfo, record: CycleRecord, token: _Token | None,
        live_seconds: float,
    ) -> None:
        """After a live cycle (its pod handed to binding, its observers called): account its cost
        and, for a sampled pod, run the shadow cycle."""
        self._live_decayed += live_seconds
        if token is None:
            return
        if record.result not in ("Scheduled", "Unschedulable"):
            self._skip("live_error")
            return
        shadow_fw = self.generation.framework_for(fw.profile)
        if shadow_fw is None and len(self.generation.profiles) == 1:  # a one-profile candidate shadows every profile
            shadow_fw = self.generation.default_profile
        if shadow_fw is None:
            self._skip("no_profile")
            return
        live_node = record.node if record.result == "Scheduled" else None
        try:
            outcome = self.decide(scheduler, fw, shadow_fw, pod, live_node, record.message, token)
            outcome.live_seconds = live_seconds
            outcome.live_record = record
            self.counts.live_seconds += live_seconds
            self.on_outcome(outcome)
        except Exception:  # noqa: BLE001 - the live loop goes on whatever the shadow's side does
            log.exception("shadow generation %s: comparing pod %s failed", self.generation.id, pod.key)

    def _skip(self, why: str) -> None:
        self.counts.sampled -= 1
        self.counts.skipped_other[why] = self.counts.skipped_other.get(why, 0) + 1

    # ---- the shadow cycle ----------------------------------------------------------------------
    def decide(
        self, scheduler: SchedulerState, live_fw: Framework, fw: Framework, pod: PodInfo, live_node: str | None,
        live_message: str, token: _Token,
    ) -> ShadowOutcome:
        """The candidate's decision for `pod` on the live cycle's snapshot (and, where it differs,
        the detail). `fw` is the candidate's framework (the plugin watchdog names its generation
        if one of its plugins hangs here)."""
        cluster = scheduler.cluster
        assert self._backend is not None
        refused = self._backend.refused
        saved = (scheduler.next_start_index, scheduler.rng, scheduler.incremental)
        rng = self._rng
        rng.bit_generator.state = token.rng_state
        scheduler.next_start_index, scheduler.rng, scheduler.incremental = token.start_index, rng, False
        start_ns = time.time_ns()
        t0 = time.perf_counter()
        node: str | None = None
        shadow_seconds = 0.0
        message = error = ""
        detail = None
        tied: str | None = None
        placed = [pod] if pod.uid in cluster.placement else []
        try:
            with self._registered(scheduler), cluster.hypothetical(remove=placed):
                try:
                    result = scheduler.find_node(fw, CycleState(), pod, None)
                except Exception as exc:  # noqa: BLE001 - the candidate's failure is reported, never raised
                    error = _error_text(exc)
                else:
                    node = result.node
                    if node is None:
                        message = result.status.message
                shadow_seconds = time.perf_counter() - t0
                if not error and node != live_node:
                    detail, tie = self._detail(scheduler, live_fw, fw, pod, live_node, node)
                    if tie:
                        tied, node, detail = node, live_node, None
        finally:
            scheduler.next_start_index, scheduler.rng, scheduler.incremental = saved
        total = time.perf_counter() - t0
        self._shadow_decayed += total
        counts = self.counts
        counts.compared += 1
        counts.shadow_seconds += shadow_seconds
        counts.detail_seconds += total - shadow_seconds
        writes = self._backend.refused - refused
        counts.writes_refused += writes
        counts.ties += tied is not None
        if error:
            counts.errors += 1
            log.warning("shadow generation %s: pod %s: %s", self.generation.id, pod.key, error)
        return ShadowOutcome(
            pod.key, pod.uid, fw.profile, live_node, None if error else node,
            message if live_node is not None else live_message, 0.0, shadow_seconds, start_ns, time.time_ns(),
            error, detail, writes, tied,
        )

    def _detail(
        self, scheduler: SchedulerState, live_fw: Framework, fw: Framework, pod: PodInfo, live_node: str | None,
        node: str | None,
    ) -> tuple[dict[str, Any], bool]:
        """Both sides' filters over every node and scores of the top nodes, on the snapshot; and
        whether the candidate scores `live_node` as high as its own pick `node` (a tie)."""
        try:
            live = _verdicts(scheduler, live_fw, self._read_only(scheduler, live_fw), pod)
            shadow = _verdicts(scheduler, fw, self._handles[fw.profile], pod)
        except Exception as exc:  # noqa: BLE001 - a failing detail pass leaves the decisions as they are
            return {"error": f"detail: {_error_text(exc)}"}, False
        table = scheduler.cluster.table
        names = table.names
        return {
            "feasibility": {
                "after_rejects": _rejects(shadow, live, names),
                "before_rejects": _rejects(live, shadow, names),
            },
            "scores": _score_deltas(live, shadow, names),
        }, _tie(shadow, table.row_of, live_node, node)

    def _read_only(self, scheduler: SchedulerState, fw: Framework) -> ShadowHandle:
        """A read-only handle for the live framework (the detail pass runs its filters again)."""
        assert self._backend is not None
        return ShadowHandle(fw, self._backend, scheduler.cluster, scheduler.clock.now, {})

    def _registered(self, scheduler: SchedulerState) -> _Handles:
        return _Handles(scheduler, self.generation, self._handles)

    def _decay(self) -> None:
        now = self.clock()
        elapsed = now - self._decayed_at
        if elapsed > 0.05:
            factor = math.exp(-elapsed / self.policy.window)
            self._live_decayed *= factor
            self._shadow_decayed *= factor
            self._decayed_at = now

    def budget_share(self) -> float | None:
        """The shadow's recent seconds per live cycle second (what the CPU budget bounds)."""
        return round(self._shadow_decayed / self._live_decayed, 4) if self._live_decayed else None


class _Handles:
    """`with`: the candidate's read-only handles are what `scheduler.handle_for` returns for its
    frameworks (whatever a reload did to the handle cache meanwhile); gone afterwards."""

    def __init__(self, scheduler: SchedulerState, generation: Generation, handles: dict[str, ShadowHandle]) -> None:
        self.scheduler, self.generation, self.handles = scheduler, generation, handles
        self.saved: dict[int, FrameworkHandle] = {}

    def __enter__(self) -> None:
        handles = self.scheduler._handles
        # A generation that also schedules (a canary compares with the live one) gets its own back.
        self.saved = {id(fw): handles[id(fw)] for fw in self.generation.profiles.values() if id(fw) in handles}
        for profile, fw in self.generation.profiles.items():
            handles[id(fw)] = self.handles[profile]

    def __exit__(self, *exc: object) -> None:
        handles = self.scheduler._handles
        for fw in self.generation.profiles.values():
            handles.pop(id(fw), None)
        handles.update(self.saved)


@dataclass
class _Verdicts:
    """One framework's filters over every node and its scores of the feasible ones."""

    feasible: np.ndarray  # rows
    reasons: dict[int, tuple[str, str]]  # rejected row -> (plugin, reason)
    totals: dict[int, float]  # feasible row -> total score


def _verdicts(scheduler: SchedulerState, fw: Framework, handle: ShadowHandle, pod: PodInfo) -> _Verdicts:
    cluster = scheduler.cluster
    table = cluster.table
    rows = table.ordered_rows()
    state = CycleState()
    reasons: dict[int, tuple[str, str]] = {}
    status, narrowed = fw.run_pre_filter(state, pod, table.view(rows), cluster, handle, None)
    if not status.ok:
        reason = status.message or status.code.name
        return _Verdicts(rows[:0], {int(r): (status.plugin or "PreFilter", reason) for r in rows.tolist()}, {})
    if narrowed is not None:
        keep = np.fromiter((table.names[r] in narrowed for r in rows.tolist()), dtype=bool, count=len(rows))
        for r in rows[~keep].tolist():
            reasons[int(r)] = (min(state.narrowed_by), state.narrowed_reason())
        rows = rows[keep]
    diagnosis = Diagnosis(len(rows))
    mask = fw.run_filters(state, pod, table.view(rows), cluster, handle, diagnosis) if len(rows) else np.ones(0, bool)
    for plugin, reason, rejected, _code in diagnosis.rejections:
        for r in rejected.tolist():
            reasons.setdefault(int(r), (plugin, reason))
    feasible = rows[mask]
    totals: dict[int, float] = {}
    if len(feasible):
        view = table.view(feasible)
        total, _per_plugin = fw.run_scores(state, pod, view, cluster, handle, None)
        totals = dict(zip(feasible.tolist(), total.tolist(), strict=True))
    return _Verdicts(feasible, reasons, totals)


def _rejects(rejecting: _Verdicts, accepting: _Verdicts, names: list[str | None]) -> list[dict[str, Any]]:
    """The nodes `rejecting` rejects and `accepting` finds feasible, grouped by plugin and reason."""
    groups: dict[tuple[str, str], list[str]] = {}
    for row in accepting.feasible.tolist():
        why = rejecting.reasons.get(int(row))
        if why is not None:
            groups.setdefault(why, []).append(str(names[row]))
    return [
        {"plugin": plugin, "reason": reason, "count": len(nodes), "nodes": sorted(nodes)[:NODES_LISTED]}
        for (plugin, reason), nodes in sorted(groups.items(), key=lambda g: (-len(g[1]), g[0]))
    ]


def _score_deltas(live: _Verdicts, shadow: _Verdicts, names: list[str | None]) -> list[dict[str, Any]]:
    """Each side's top nodes with both totals (None where that side rejects the node)."""
    top = [r for r, _ in sorted(live.totals.items(), key=lambda kv: -kv[1])[:TOP_NODES]]
    top += [r for r, _ in sorted(shadow.totals.items(), key=lambda kv: -kv[1])[:TOP_NODES] if r not in top]
    out = []
    for row in top:
        before, after = live.totals.get(row), shadow.totals.get(row)
        delta = None if before is None or after is None else round(after - before, 4)
        out.append({"node": str(names[row]), "before": before, "after": after, "delta": delta})
    return out


def _tie(shadow: _Verdicts, row_of: Mapping[str, int], live_node: str | None, node: str | None) -> bool:
    """Whether the candidate finds `live_node` feasible and scores it as high as its pick `node`."""
    if live_node is None or node is None:
        return False
    live_row, row = row_of.get(live_node), row_of.get(node)
    if live_row is None or row is None:
        return False
    live_total, total = shadow.totals.get(live_row), shadow.totals.get(row)
    return live_total is not None and total is not None and live_total >= total


def _error_text(exc: BaseException) -> str:
    status = getattr(exc, "status", None)
    if isinstance(status, Status):
        return status.message
    return f"{type(exc).__name__}: {exc}"
