"""Canary generations: a candidate generation decides and binds a share of pods (docs/shadow.md).

The candidate lives beside the live generation in one scheduler, the way a second profile does:
`Scheduler.framework_for` hands a pod the canary selects (`CanarySelection`: namespaces, a label
selector, a share by a hash of the uid, all that are given) the candidate's framework of the pod's
profile, and the whole cycle runs on it (filter, score, PostFilter, Reserve, Permit, and the
binding cycle with PreBind and Bind, which take the framework the cycle started with). The
queue order, pod groups (they stay live) and the informers are the live generation's; the
candidate's batching and incremental caches are its own (`cache_key`).

Each side's attempts are counted (`Health`, the rollback guard's), with their cycle seconds and
binding errors; a read-only comparison (`ShadowRun`) of the canary's pods against the live
generation (or of the live pods against the candidate) gives the agreement. After every cycle
`evaluate` decides once (`CanaryVerdict`): rolled back at once on a hang of a candidate plugin or
as soon as its errors exceed what `max_error_rate` allows over `min_pods`; after `min_pods`
canary attempts, rolled back if its error rate, its unschedulable rate over the live side's
(plus `unschedulable_margin`), its agreement or its cost per pod against the live side's break a
threshold; promoted when none does and `min_seconds` have passed (`promote="auto"`). The verdict
goes to `on_verdict` (kubeberth.apps.canary turns it into a swap or the end of the canary).
"""

from __future__ import annotations

import logging
import re
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..api.helpers.selectors import LABEL_OPS, LabelSelector, SelectorError, make_requirement
from ..cache.podinfo import PodInfo
from ..runtime.framework import Framework
from ..runtime.generation import Generation
from ..runtime.records import CycleRecord
from .rollback import Health
from .shadow import ShadowOutcome, ShadowPolicy, ShadowRun, _Token

if TYPE_CHECKING:
    from .scheduler import Scheduler
    from .state import SchedulerState
    from .watchdog import Hang

log = logging.getLogger(__name__)

CACHE_PREFIX = "canary:"  # the candidate's batching and incremental caches, beside the live profile's
COMPARE = ("canary", "live", "none")
PROMOTE = ("auto", "manual")


# ---- which pods ------------------------------------------------------------------------------
@dataclass(frozen=True)
class CanarySelection:
    """The canary's pods: those in `namespaces` (if any), matching `selector` (if any) and whose
    uid hashes below `share` (if given) — every criterion given must hold."""

    share: float | None = None
    namespaces: frozenset[str] = frozenset()
    selector: LabelSelector | None = None
    selector_text: str = ""

    @classmethod
    def parse(cls, share: str | float | None = None, namespaces: str | list[str] | None = None,
              selector: str | None = None) -> CanarySelection:
        """From the CLI's and the HTTP API's text; ValueError naming the field otherwise."""
        value = parse_share(share) if share not in (None, "") else None
        if isinstance(namespaces, str):
            namespaces = [n for n in namespaces.split(",") if n.strip()]
        names = frozenset(n.strip() for n in namespaces or ())
        parsed = parse_selector(selector) if selector else None
        if value is None and not names and parsed is None:
            raise ValueError("share, namespace, selector: give at least one (which pods the candidate schedules)")
        return cls(value, names, parsed, selector or "")

    def selects(self, pod: PodInfo) -> bool:
        if self.namespaces and pod.namespace not in self.namespaces:
            return False
        if self.selector is not None and not self.selector.matches(pod.labels):
            return False
        return self.share is None or in_share(pod.uid, self.share)

    def describe(self) -> dict[str, Any]:
        return {"share": self.share, "namespaces": sorted(self.namespaces) or None, "selector": self.selector_text or None}


def in_share(uid: str, share: float) -> bool:
    """Whether a pod of `uid` is in the first `share` of the uid hash (the same on every attempt)."""
    return zlib.crc32(uid.encode()) < int(share * 0x1_0000_0000)


def parse_share(text: str | float) -> float:
    """"10%", "10 %", "0.1" -> 0.1; ValueError naming `share` unless in (0, 1]."""
    raw = str(text).strip()
    try:
        value = float(raw[:-1].strip()) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise ValueError(f"share: {raw!r} is not a percentage (10%) or a share (0.1)") from None
    if not 0.0 < value <= 1.0:
        raise ValueError(f"share: {raw!r} must be more than 0 and at most 100%")
    return value


_TERM = re.compile(r"^\s*(?P<key>[^!=\s(),]+)\s*(?P<op>==|=|!=|\s+in\s+|\s+notin\s+)\s*(?P<value>.*?)\s*$")


def parse_selector(text: str) -> LabelSelector:
    """A label selector as kubectl's `-l` writes it: `k=v`, `k==v`, `k!=v`, `k`, `!k`,
    `k in (a,b)`, `k notin (a,b)`, comma-separated (all must match); ValueError naming `selector`."""
    terms, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    requirements = []
    try:
        for term in terms:
            t = term.strip()
            if not t:
                raise ValueError(f"selector: {text!r}: an empty term")
            if t.startswith("!"):
                requirements.append(make_requirement(t[1:].strip(), "DoesNotExist", (), LABEL_OPS))
                continue
            m = _TERM.match(t)
            if m is None:
                requirements.append(make_requirement(t, "Exists", (), LABEL_OPS))
                continue
            op, value = m["op"].strip(), m["value"]
            if op in ("in", "notin"):
                if not (value.startswith("(") and value.endswith(")")):
                    raise ValueError(f"selector: {t!r}: the values of {op!r} go in parentheses, as k in (a,b)")
                values = [v.strip() for v in value[1:-1].split(",")]
                requirements.append(make_requirement(m["key"], "In" if op == "in" else "NotIn", values, LABEL_OPS))
            else:
                requirements.append(make_requirement(m["key"], "NotIn" if op == "!=" else "In", (value,), LABEL_OPS))
    except SelectorError as exc:
        raise ValueError(f"selector: {text!r}: {exc}") from None
    return LabelSelector().add(requirements)


# ---- thresholds ------------------------------------------------------------------------------
@dataclass(frozen=True)
class CanaryPolicy:
    """When the canary is judged and what it must meet (0 turns `min_agreement` and
    `max_cost_ratio` off). `compare`: whose pods get a read-only comparison for the agreement
    (canary: the live generation re-decides the canary's pods; live: the candidate the live
    pods'; none), with the shadow's `sample` and `cpu_budget`."""

    min_pods: int = 50
    min_seconds: float = 60.0
    max_error_rate: float = 0.01
    unschedulable_margin: float = 0.05
    min_agreement: float = 0.0
    max_cost_ratio: float = 0.0
    promote: str = "auto"
    compare: str = "canary"
    sample: float = 1.0
    cpu_budget: float = 0.25

    def check(self) -> None:
        if self.min_pods < 1:
            raise ValueError(f"min_pods: {self.min_pods} must be at least 1")
        if self.min_seconds < 0:
            raise ValueError(f"min_seconds: {self.min_seconds} must be >= 0")
        for name in ("max_error_rate", "unschedulable_margin", "min_agreement"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name}: {value} is not a share between 0 and 1")
        if self.max_cost_ratio < 0:
            raise ValueError(f"max_cost_ratio: {self.max_cost_ratio} must be >= 0 (0: not checked)")
        if self.promote not in PROMOTE:
            raise ValueError(f"promote: {self.promote!r} is not one of {', '.join(PROMOTE)}")
        if self.compare not in COMPARE:
            raise ValueError(f"compare: {self.compare!r} is not one of {', '.join(COMPARE)}")
        ShadowPolicy(self.sample, self.cpu_budget).check()

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass
class CanaryVerdict:
    """How the canary ends: `action` promote, rollback or stop; why; the figures it was judged on."""

    action: str
    reason: str
    figures: dict[str, Any]
    automatic: bool = True


@dataclass
class SideCounts:
    """One side's pods: the rollback guard's Health, plus cycle seconds and bindings."""

    health: Health = field(default_factory=Health)
    seconds: float = 0.0
    bound: int = 0
    bind_errors: int = 0
    pods: int = 0  # pods attempted (their first attempt counted)

    def as_dict(self) -> dict[str, Any]:
        h = self.health
        return {
            "pods": self.pods, "attempts": h.attempts, "scheduled": h.attempts - h.errors - h.unschedulable
            + self.bind_errors, "unschedulable": h.unschedulable, "errors": h.errors, "bind_errors": self.bind_errors,
            "bound": self.bound, "api_unavailable": h.unavailable, "error_rate": round(h.error_rate, 4), "unschedulable_rate": round(h.unschedulable_rate, 4),
            "ms_per_attempt": round(self.seconds * 1000 / h.attempts, 4) if h.attempts else None,
        }


class CanaryRun:
    """One canary on one scheduler. Its methods run on the scheduling thread, except the reads
    of `counts`, `compared`, `agreed` and `verdict` (plain values)."""

    def __init__(
        self,
        generation: Generation,
        live: Generation,
        selection: CanarySelection,
        policy: CanaryPolicy,
        on_verdict: Callable[[CanaryRun, CanaryVerdict], None],
        on_compared: Callable[[ShadowOutcome], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        policy.check()
        self._generation: Generation | None = generation
        self._live: Generation | None = live
        self.generation_id, self.live_id = generation.id, live.id
        self.selection = selection
        self.policy = policy
        self.on_verdict = on_verdict
        self.on_compared = on_compared
        self.clock = clock
        self.counts = {"live": SideCounts(), "canary": SideCounts()}
        self.compared = self.agreed = self.compare_errors = 0
        self.verdict: CanaryVerdict | None = None
        self.started = clock()
        self.promoted = False
        self._frameworks: dict[str, Framework] = {}  # live profile -> the candidate's framework
        self._comparer: ShadowRun | None = None
        self._scheduler: Scheduler | None = None

    @property
    def generation(self) -> Generation:
        """The candidate (released once the canary ended: a rolled back one is not kept alive)."""
        assert self._generation is not None, "the canary ended"
        return self._generation

    @property
    def live(self) -> Generation:
        """The live generation it runs beside (released once the canary ended)."""
        assert self._live is not None, "the canary ended"
        return self._live

    # ---- installing ------------------------------------------------------------------------
    def install(self, scheduler: Scheduler) -> str | None:
        """On the scheduling thread: the candidate must keep every live profile; dry-run as a
        reload's is; then the next cycle of a selected pod runs on it. Returns why not (nothing
        is installed then)."""
        from .swap import _watch_new_kinds, dry_run

        if scheduler.generation is not self.live:
            return f"the live generation is {scheduler.generation.id} now, not {self.live.id}"
        missing = [p for p in self.live.profiles if p not in self.generation.profiles]
        if missing:
            return (f"the candidate has no profile {', '.join(map(repr, missing))} (its profiles: "
                    f"{', '.join(self.generation.profiles)}); a canary's candidate keeps every live profile name")
        incremental, scheduler.incremental = scheduler.incremental, False
        try:
            error = dry_run(scheduler, self.generation)
        finally:
            scheduler.incremental = incremental
        if error is not None:
            return error
        self._frameworks = {p: self.generation.profiles[p] for p in self.live.profiles}
        if self.policy.compare != "none":
            other = self.live if self.policy.compare == "canary" else self.generation
            self._comparer = ShadowRun(other, ShadowPolicy(self.policy.sample, self.policy.cpu_budget),
                                       self._compared, clock=self.clock)
            self._comparer.prepare(scheduler)
        _watch_new_kinds(scheduler, self.generation)
        self._scheduler = scheduler
        self.started = self.clock()
        scheduler.binding_observers.append(self.binding_done)
        scheduler.timeout_observers.append(self.plugin_timed_out)
        scheduler.canary = self
        # Pods waiting for a retry under the live plugins may fit under the candidate's.
        scheduler.queue.move_for_event("Generation/Swap", lambda pod, *_: self.selection.selects(pod))
        return None

    def uninstall(self, scheduler: SchedulerState, promoted: bool = False) -> None:
        """On the scheduling thread: selected pods go back to the live generation from the next
        cycle (or, `promoted`, the candidate is the live one). Cycles in flight finish on theirs."""
        if scheduler.canary is self:
            scheduler.canary = None
        self.promoted = promoted
        if not promoted:
            for fw in self.generation.profiles.values():
                scheduler._handles.pop(id(fw), None)
        # What the report keeps are ids and counts: neither generation is kept alive by it.
        self._generation = self._live = None
        self._frameworks = {}
        self._comparer = None
        self._scheduler = None
        for per_profile in (scheduler._batches, scheduler._incremental):
            for key in [k for k in per_profile if k.startswith(CACHE_PREFIX)]:
                del per_profile[key]

        def unobserve() -> None:  # not while the scheduler iterates these lists
            if self.binding_done in scheduler.binding_observers:
                scheduler.binding_observers.remove(self.binding_done)
            if self.plugin_timed_out in scheduler.timeout_observers:
                scheduler.timeout_observers.remove(self.plugin_timed_out)

        scheduler.submit(unobserve)
        if not promoted:
            # Pods the candidate found unschedulable go back to the live plugins at once.
            scheduler.queue.move_for_event("Generation/Swap", lambda pod, *_: self.selection.selects(pod))

    # ---- the scheduler's side ----------------------------------------------------------------
    def framework_for(self, pod: PodInfo, live_fw: Framework) -> Framework:
        """The framework that schedules `pod`: the candidate's for a selected pod of a live profile."""
        if self.verdict is not None and self.verdict.action != "promote":
            return live_fw
        if pod.pod_group or live_fw.generation_id != self.live_id or not self.selection.selects(pod):
            return live_fw
        return self._frameworks.get(live_fw.profile, live_fw)

    def owns(self, fw: Framework) -> bool:
        return fw.generation_id == self.generation_id

    def cache_key(self, fw: Framework) -> str:
        return CACHE_PREFIX + fw.profile if fw.generation_id == self.generation_id else fw.profile

    def before(self, scheduler: SchedulerState, pod: PodInfo, fw: Framework) -> _Token | None:
        comparer = self._comparer
        if comparer is None or self.owns(fw) != (self.policy.compare == "canary"):
            return None
        return comparer.before(scheduler, pod)

    def after(self, scheduler: SchedulerState, fw: Framework, pod: PodInfo, record: CycleRecord, token: _Token | None,
              seconds: float) -> None:
        """After a cycle (its pod handed on): count it on its side, compare it, judge the canary."""
        side = "canary" if self.owns(fw) else "live"
        counts = self.counts[side]
        counts.seconds += seconds
        counts.pods += record.attempt <= 1
        health = counts.health
        health.attempts += 1
        if record.result == "Error":
            health.errors += 1
            health.error_plugins[record.error_plugin or "unknown"] += 1
        elif record.result == "Unschedulable":
            health.unschedulable += 1
        comparer = self._comparer
        if comparer is not None:  # every cycle counts toward its CPU budget; the compared side's are compared
            comparer.after(scheduler, fw, pod, record, token, seconds)
        if self.verdict is None:
            if scheduler.generation.id != self.live_id:
                self._decide("rollback", f"the live generation changed to {scheduler.generation.id} (a reload) while "
                                         f"the canary ran beside {self.live_id}")
            else:
                self.evaluate()

    def binding_done(self, record: CycleRecord) -> None:
        binding = record.binding or {}
        side = "canary" if binding.get("generation", record.generation) == self.generation_id else "live"
        counts = self.counts[side]
        if binding.get("result") == "Bound":
            counts.bound += 1
        elif binding.get("result") == "Error" and binding.get("unavailable"):
            counts.health.unavailable += 1  # the API server was down or refused: neither generation's error
        elif binding.get("result") == "Error":
            counts.bind_errors += 1
            counts.health.errors += 1
            counts.health.error_plugins[binding.get("plugin") or "unknown"] += 1
            if self.verdict is None and side == "canary":
                self.evaluate()

    def plugin_timed_out(self, hang: Hang) -> None:
        if hang.generation == self.generation_id and self.verdict is None:
            self._decide("rollback", f"plugin {hang.plugin!r} of the candidate ran {hang.seconds:.1f}s at "
                                     f"{hang.extension_point} for pod {hang.pod}, past the plugin timeout")

    def _compared(self, outcome: ShadowOutcome) -> None:
        if outcome.error:
            self.compare_errors += 1
        else:
            self.compared += 1
            self.agreed += outcome.live_node == outcome.shadow_node
        if self.on_compared is not None:
            self.on_compared(outcome)

    # ---- judging -----------------------------------------------------------------------------
    def agreement(self) -> float | None:
        return round(self.agreed / self.compared, 4) if self.compared else None

    def cost_ratio(self) -> float | None:
        c, v = self.counts["canary"], self.counts["live"]
        if not c.health.attempts or not v.health.attempts or not v.seconds:
            return None
        return round((c.seconds / c.health.attempts) / (v.seconds / v.health.attempts), 4)

    def figures(self) -> dict[str, Any]:
        return {
            "seconds": round(self.clock() - self.started, 3),
            "live": self.counts["live"].as_dict(),
            "canary": self.counts["canary"].as_dict(),
            "agreement": self.agreement(),
            "compared": self.compared,
            "cost_ratio": self.cost_ratio(),
        }

    def evaluate(self) -> CanaryVerdict | None:
        """Judge the canary now; decides (once) when a threshold is broken or met."""
        if self.verdict is not None:
            return self.verdict
        p = self.policy
        canary, live = self.counts["canary"].health, self.counts["live"].health
        allowed = p.max_error_rate * p.min_pods
        if canary.errors > allowed and canary.attempts < p.min_pods:
            return self._decide("rollback", self._errors_text(
                canary, f"{canary.errors} plugin errors in {canary.attempts} attempts exceed the {allowed:g} that "
                        f"{p.max_error_rate:.1%} of {p.min_pods} attempts allow"))
        if canary.attempts < p.min_pods:
            return None
        reason = None
        if canary.error_rate > p.max_error_rate:
            reason = self._errors_text(canary, f"plugin error rate {canary.error_rate:.1%} over {canary.attempts} "
                                               f"attempts exceeds {p.max_error_rate:.1%}")
        elif canary.unschedulable_rate > live.unschedulable_rate + p.unschedulable_margin:
            reason = (f"unschedulable rate {canary.unschedulable_rate:.1%} over {canary.attempts} attempts exceeds the "
                      f"live side's {live.unschedulable_rate:.1%} by more than {p.unschedulable_margin:.1%}")
        elif p.min_agreement and (agreement := self.agreement()) is not None and agreement < p.min_agreement:
            reason = f"agreement {agreement:.1%} over {self.compared} compared pods is below {p.min_agreement:.1%}"
        elif p.max_cost_ratio and (ratio := self.cost_ratio()) is not None and ratio > p.max_cost_ratio:
            reason = f"cost per pod {ratio:.2f}x the live side's exceeds {p.max_cost_ratio:.2f}x"
        if reason is not None:
            return self._decide("rollback", reason)
        elapsed = self.clock() - self.started
        if p.promote == "auto" and elapsed >= p.min_seconds:
            return self._decide("promote", f"{canary.attempts} attempts over {elapsed:.0f}s met every threshold")
        return None

    def _errors_text(self, health: Health, lead: str) -> str:
        plugin, n = health.error_plugins.most_common(1)[0] if health.error_plugins else ("unknown", 0)
        return f"{lead} (most errors from plugin {plugin!r}: {n})"

    def decide(self, action: str, reason: str) -> CanaryVerdict | None:
        """A verdict asked for (kubeberth canary promote|stop); None if one was taken already."""
        if self.verdict is not None:
            return None
        return self._decide(action, reason, automatic=False)

    def _decide(self, action: str, reason: str, automatic: bool = True) -> CanaryVerdict:
        verdict = self.verdict = CanaryVerdict(action, reason, self.figures(), automatic)
        log.log(logging.ERROR if action == "rollback" else logging.INFO, "canary generation %s: %s: %s",
                self.generation_id, action, reason)
        self.on_verdict(self, verdict)
        return verdict
