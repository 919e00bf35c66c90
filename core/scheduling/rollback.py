"""Automatic rollback: a generation on probation that misbehaves is swapped back (seed §4.4).

`RollbackGuard` observes every cycle record and binding outcome on the scheduling thread (it is a
Scheduler observer, after the cycle, a few integer additions). After a swap the new generation is
on probation for `window_seconds`; once it has made `min_attempts` attempts, it is rolled back if

- its plugin Error rate (attempts ending in Error, in scheduling or binding) exceeds
  `max_error_rate` (a bind that failed because the API server was unreachable, overloaded or
  this replica lost the lead is the environment's error, not the plugins': it is not counted), or
- its unschedulable rate exceeds the baseline (the rate of the last generation that ran long
  enough to measure) by more than `unschedulable_margin`;

and at once, whatever the attempts, if the plugin watchdog (watchdog.py) found one of its plugin
calls (scheduling or binding cycle) running past the plugin timeout and that plugin came with the
reload (its code or version changed, or the configuration did). The pod that hung is then tried
again at once on the restored generation (`HungPodRetry`). A hang the guard cannot roll back (the
generation is past probation or is the startup one, or the plugin did not change) is reported only;
every hang counts toward the quarantine of its drop-in file (quarantine.py).

The previous generation is kept alive during probation only; rolling back swaps that same
object in again (no rebuild, no dry run: it was serving a moment ago).
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..runtime.generation import Generation
from ..runtime.plugins import PluginSpec
from ..runtime.records import CycleRecord
from .quarantine import PluginOrigin, Quarantine

if TYPE_CHECKING:
    from .state import SchedulerState
    from .watchdog import Hang

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RollbackPolicy:
    """Thresholds from the process settings (KUBEBERTH_ROLLBACK_*)."""

    enabled: bool = True
    window_seconds: float = 60.0
    min_attempts: int = 20
    max_error_rate: float = 0.1
    unschedulable_margin: float = 0.5


@dataclass
class Health:
    """One generation's attempts since it started scheduling."""

    attempts: int = 0
    errors: int = 0
    unavailable: int = 0  # binding errors of an unavailable API (not counted as errors)
    unschedulable: int = 0
    error_plugins: Counter[str] = field(default_factory=Counter)

    @property
    def error_rate(self) -> float:
        return self.errors / self.attempts if self.attempts else 0.0

    @property
    def unschedulable_rate(self) -> float:
        return self.unschedulable / self.attempts if self.attempts else 0.0


@dataclass
class Probation:
    generation: Generation
    previous: Generation
    started: float
    baseline: float | None


RollbackAction = Callable[[Generation, Generation, str], None]


class RollbackGuard:
    """Watches the running generation; calls `rollback(bad, previous, reason)` at most once per probation."""

    def __init__(self, policy: RollbackPolicy, rollback: RollbackAction, clock: Callable[[], float] = time.monotonic) -> None:
        self.policy = policy
        self.rollback = rollback
        self.clock = clock
        self.health: dict[str, Health] = {}
        self.probation: Probation | None = None
        self.baseline: float | None = None
        self.first_cycle: dict[str, float] = {}  # generation id -> time.monotonic() of its first cycle
        self.quarantine = Quarantine()
        self.on_restored: Callable[[list[str]], None] | None = None  # the hung pods, after a rollback's swap
        self._hung_pods: list[str] | None = None  # pods that hung, while a rollback for a hang awaits its swap
        self.rolled_back = ""  # the last generation rolled back: its later hangs are answered already

    # ---- called on the scheduling thread ---------------------------------------------
    def swapped(self, old: Generation, new: Generation, rolling_back: bool = False) -> None:
        before = self.health.get(old.id)
        if before is not None and before.attempts >= self.policy.min_attempts and not rolling_back:
            self.baseline = before.unschedulable_rate
        # Only the generation now running and the one it replaced are tracked.
        self.health = {new.id: Health(), old.id: before or Health()}
        self.first_cycle = {k: v for k, v in self.first_cycle.items() if k in (old.id, new.id)}
        hung, self._hung_pods = self._hung_pods, None
        if rolling_back and self.on_restored is not None and hung:
            self.on_restored(hung)
        if rolling_back or not self.policy.enabled:
            self.probation = None
        else:
            self.probation = Probation(new, old, self.clock(), self.baseline)

    def cycle_done(self, record: CycleRecord) -> None:
        gen = record.generation
        if gen not in self.first_cycle:
            self.first_cycle[gen] = self.clock()
        health = self.health.get(gen)
        if health is None:
            health = self.health[gen] = Health()
        health.attempts += 1
        if record.result == "Error":
            health.errors += 1
            health.error_plugins[record.error_plugin or "unknown"] += 1
        elif record.result == "Unschedulable":
            health.unschedulable += 1
        self._check(gen)

    def binding_done(self, record: CycleRecord) -> None:
        binding = record.binding or {}
        if binding.get("result") == "Error":
            health = self.health.get(record.generation)
            if health is not None and binding.get("unavailable"):
                health.unavailable += 1  # the API server was down or refused: not the generation's error
            elif health is not None:
                health.errors += 1
                health.error_plugins[binding.get("plugin") or "unknown"] += 1
                self._check(record.generation)

    def plugin_timed_out(self, hang: Hang) -> None:
        """A hang (a Scheduler timeout observer): rolls the generation on probation back at once
        when the hung plugin came with its reload, else reports that it cannot; counts toward the
        quarantine either way (a refused dry run costs a generation too)."""
        if hang.generation == self.rolled_back:
            self._retry(hang.pod_uid)  # another of its cycles that hung before the swap back
            return
        rolled = self._roll_back_hung(hang)
        if not rolled and hang.stage != "dry_run":
            log.warning(
                "plugin %s hung in generation %s, which cannot be rolled back (%s): the hang is reported only; "
                "fix or remove the plugin", hang.plugin, hang.generation, self._why_not(hang),
            )
        self.quarantine.hang(hang.plugin, hang.origin, rolled or hang.stage == "dry_run")

    def _roll_back_hung(self, hang: Hang) -> bool:
        probation = self.probation
        if probation is None or probation.generation.id != hang.generation:
            return False
        if hang.plugin == "unknown" or not changed_in_reload(probation.previous, probation.generation, hang.plugin):
            return False  # "unknown": the cycle was slow outside any plugin call (a starved or paused process)
        self.probation = None
        self.rolled_back = hang.generation
        self._hung_pods = []
        self._retry(hang.pod_uid)
        where = "in the binding cycle of" if hang.stage == "binding" else "for"
        reason = (
            f"plugin {hang.plugin!r} ran {hang.seconds:.1f}s at {hang.extension_point} {where} pod {hang.pod}, "
            "past the plugin timeout"
        )
        self.rollback(probation.generation, probation.previous, reason)
        return True

    def _retry(self, uid: str) -> None:
        """Try the pod again at once on the restored generation (after the swap back)."""
        if not uid:
            return
        if self._hung_pods is not None:
            self._hung_pods.append(uid)
        elif self.on_restored is not None:
            self.on_restored([uid])

    def _why_not(self, hang: Hang) -> str:
        probation = self.probation
        if probation is None or probation.generation.id != hang.generation:
            return "it is not on probation: the startup generation, or one past its probation window"
        if hang.plugin == "unknown":
            return "no plugin call was running: the cycle itself was slow"
        return "the plugin did not change in the reload that made it"

    def memory_exceeded(self, generation_id: str, reason: str) -> bool:
        """Memory growth past the bound (memory_guard.py) rolls the generation on probation back at
        once, as a hang does; False if it is not on probation (the caller reports it instead)."""
        probation = self.probation
        if probation is None or probation.generation.id != generation_id:
            return False
        self.probation = None
        if self.clock() - probation.started > self.policy.window_seconds:
            return False  # passed: the previous generation is released
        self.rolled_back = generation_id
        self.rollback(probation.generation, probation.previous, reason)
        return True

    def _check(self, gen: str) -> None:
        probation = self.probation
        if probation is None or probation.generation.id != gen:
            return
        policy = self.policy
        if self.clock() - probation.started > policy.window_seconds:
            self.probation = None  # passed: the previous generation is released
            return
        health = self.health[gen]
        if health.attempts < policy.min_attempts:
            return
        reason = None
        if health.error_rate > policy.max_error_rate:
            plugin, _n = health.error_plugins.most_common(1)[0]
            reason = (
                f"plugin error rate {health.error_rate:.0%} over {health.attempts} attempts exceeds "
                f"{policy.max_error_rate:.0%} (most errors from plugin {plugin!r})"
            )
        elif health.unschedulable_rate > self._baseline(probation) + policy.unschedulable_margin:
            reason = (
                f"unschedulable rate {health.unschedulable_rate:.0%} over {health.attempts} attempts exceeds the "
                f"previous generation's {self._baseline(probation):.0%} by more than {policy.unschedulable_margin:.0%}"
            )
        if reason is not None:
            self.probation = None
            self.rolled_back = gen
            self._hung_pods = []
            self.rollback(probation.generation, probation.previous, reason)

    def _baseline(self, probation: Probation) -> float:
        """The last measured rate; else whatever the previous generation did so far (0 if nothing)."""
        if probation.baseline is not None:
            return probation.baseline
        return self.health.get(probation.previous.id, Health()).unschedulable_rate


def changed_in_reload(previous: Generation, new: Generation, plugin: str) -> bool:
    """Whether `plugin` came with the reload from `previous` to `new`: the configuration changed,
    or the plugin is new, or its source, version or drop-in content did."""
    if previous.config != new.config:
        return True
    before, after = previous.registry.get(plugin), new.registry.get(plugin)
    return before is None or after is None or _identity(before) != _identity(after)


def _identity(spec: PluginSpec) -> tuple[str, str, str]:
    module = str(getattr(spec.obj, "__module__", None) or getattr(spec.obj, "__name__", ""))
    return spec.source, spec.version, PluginOrigin(module, spec.source).digest


class HungPodRetry:
    """After a rollback for a hang, the pods that hung are tried again at once on the restored
    generation: moved to the active queue (kube-scheduler's Activate) from backoff, where their
    interrupted attempt put them; a pod still in its binding cycle is moved once the cycle's
    failure has requeued it."""

    def __init__(self, scheduler: SchedulerState) -> None:
        self.scheduler = scheduler
        self.pending: set[str] = set()  # in a binding cycle at the swap
        scheduler.binding_observers.append(self._binding_done)

    def retry(self, uids: list[str]) -> None:
        """On the scheduling thread, just after the swap back."""
        queue = self.scheduler.queue
        for uid in uids:
            entry = queue.entries.get(uid)
            if entry is not None and entry.where == "inflight":
                self.pending.add(uid)
            elif entry is not None:
                queue.activate([uid])

    def _binding_done(self, record: CycleRecord) -> None:
        uid = record.uid
        if uid in self.pending:
            self.pending.discard(uid)
            # Binding observers run before the failed pod is requeued: activate after that.
            self.scheduler.submit(lambda: self.scheduler.queue.activate([uid]))
