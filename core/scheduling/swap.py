"""Swapping generations on the scheduling thread, between cycles (DESIGN property 3).

A `SwapRequest` is put on the loop's event queue like any other event. When the loop drains it,
no cycle is running: it dry-runs the new generation (PreFilter, Filter, Score of a synthetic pod
over the current node table — the loop's own consistent state, so no copy and no race), hands
plugin state over, switches `Scheduler.generation` and re-activates pods the old plugins
rejected. Cycles that started earlier have already finished; permit waits and binding cycles in
flight hold their own framework and finish on it. Nothing else keeps a reference to the old
generation: cached handles of frameworks no longer in use are dropped, so it is freed once its
last binding cycle reports back.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..api.capabilities import custom_resource
from ..api.status import Code
from ..api.types import CycleState
from ..backends.base import kinds_for
from ..cache.podinfo import PodInfo
from ..runtime.framework import PluginFailure
from ..runtime.generation import Generation
from ..runtime.reload import hand_off, plugin_where
from .eventhandlers import SwapGeneration

if TYPE_CHECKING:
    from .scheduler import Scheduler

log = logging.getLogger(__name__)

DRY_RUN_POD = "kubeberth-dry-run"


def synthetic_pod(scheduler_name: str) -> PodInfo:
    """A small best-effort-sized pod of `scheduler_name`'s profile for the dry run."""
    return PodInfo.from_dict(
        {
            "metadata": {"name": DRY_RUN_POD, "namespace": "kube-system", "uid": DRY_RUN_POD, "labels": {}},
            "spec": {
                "schedulerName": scheduler_name,
                "containers": [{"name": "c", "resources": {"requests": {"cpu": "1m", "memory": "1Mi"}}}],
            },
        }
    )


def dry_run(scheduler: Scheduler, generation: Generation) -> str | None:
    """Run every profile's PreFilter/Filter/Score hooks once; the first plugin error, or None.

    Must run on the scheduling thread (it reads the live node table). No state changes: the
    round-robin start index is restored and nothing is assumed."""
    start = scheduler.next_start_index
    try:
        for profile, framework in generation.profiles.items():
            pod = synthetic_pod(profile)
            try:
                framework.queue_sort_key(pod)
                result = scheduler.find_node(framework, CycleState(), pod, None)
            except PluginFailure as failure:
                return _plugin_error(generation, failure.status.plugin, failure.status.message)
            except Exception as exc:  # noqa: BLE001 - anything that escapes refuses the generation
                return f"profile {profile!r}: dry run raised {type(exc).__name__}: {exc}"
            if result.status.code == Code.ERROR:
                return _plugin_error(generation, result.status.plugin, result.status.message)
    finally:
        scheduler.next_start_index = start
        for framework in generation.profiles.values():
            scheduler._handles.pop(id(framework), None)
    return None


def _plugin_error(generation: Generation, plugin: str | None, message: str) -> str:
    if plugin:
        return f"{plugin_where(generation, plugin)}: plugin {plugin!r} failed the dry run: {message}"
    return f"dry run failed: {message}"


class SwapRequest:
    """One swap, applied by the scheduling thread; `done` is set when it was applied or refused."""

    def __init__(
        self,
        scheduler: Scheduler,
        generation: Generation,
        check: bool = True,
        on_swapped: Callable[[Generation, Generation], None] | None = None,
        hand_off: bool = True,
    ) -> None:
        """`hand_off=False`: the new generation's plugins keep their own state (a canary's
        candidate, which has been scheduling beside the old one)."""
        self.scheduler = scheduler
        self.generation = generation
        self.check = check
        self.hand_off = hand_off
        self.on_swapped = on_swapped
        self.done = threading.Event()
        self.error: str | None = None
        self.applied_at = 0.0  # time.monotonic() of the swap

    def submit(self) -> SwapRequest:
        self.scheduler.submit(self)
        return self

    def wait(self, timeout: float | None = None) -> bool:
        return self.done.wait(timeout)

    def __call__(self) -> None:
        """On the scheduling thread, between cycles."""
        try:
            self._apply()
        except Exception as exc:  # noqa: BLE001 - a failed swap keeps the running generation
            log.exception("swapping to generation %s failed", self.generation.id)
            self.error = f"swap failed: {type(exc).__name__}: {exc}"
        finally:
            self.done.set()

    def _apply(self) -> None:
        sched = self.scheduler
        new, old = self.generation, sched.generation
        if new is old:
            return
        if self.check:
            self.error = dry_run(sched, new)
            if self.error is not None:
                return
        if self.hand_off:
            hand_off(old, new)
        sched._apply(SwapGeneration(new))
        in_use = {id(fw) for fw in new.profiles.values()}
        for key in [k for k in sched._handles if k not in in_use]:
            del sched._handles[key]
        for per_profile in (sched._batches, sched._incremental):  # reuse caches of the old frameworks
            for profile in [p for p, cache in per_profile.items() if id(cache.framework) not in in_use]:
                del per_profile[profile]
        # Pods the old plugins found unschedulable may fit under the new ones.
        sched.queue.move_for_event("Generation/Swap", lambda *_: True)
        added = set(new.profiles) - set(old.profiles)
        if added:
            _pick_up_profiles(sched, added)
        _watch_new_kinds(sched, new)
        self.applied_at = time.monotonic()
        if self.on_swapped is not None:
            self.on_swapped(old, new)


def _watch_new_kinds(sched: Scheduler, generation: Generation) -> None:
    """A plugin the new generation enables may read kinds nobody watched (PodGroups for
    GangScheduling, DRA's claims, slices and classes): the backend starts watching them."""
    watch = getattr(sched.backend, "watch_kinds", None)
    if callable(watch):
        watch(watched_kinds(generation))


def watched_kinds(generation: Generation) -> tuple[str, ...]:
    """The kinds a backend watches for `generation`: the base kinds, its plugins' extra ones, and the
    custom resources ('<plural>.<version>.<group>') its enabled plugins registered events of (as
    kube-scheduler's addAllEventHandlers starts a dynamic informer for each such GVK)."""
    enabled = {p for fw in generation.profiles.values() for point in fw.points for p in fw.enabled(point)}
    custom: dict[str, None] = {}
    for fw in generation.profiles.values():
        for plugin in sorted({p for point in fw.points for p in fw.enabled(point)}):
            caps = fw.capabilities_of(plugin)
            for event in sorted({*(caps.requeue_on or ()), *caps.queueing_hints}):
                if (gvk := custom_resource(event)) is not None:
                    custom[gvk] = None
    return (*kinds_for(enabled, generation.feature_gates), *custom)


def _pick_up_profiles(sched: Scheduler, names: set[str]) -> None:
    """Pending pods of a profile that did not exist were ignored: ask the backend for them again."""
    backend = sched.backend
    accepted = getattr(backend, "scheduler_names", None)
    if isinstance(accepted, frozenset):
        backend.scheduler_names = accepted | names  # type: ignore[attr-defined]
    resync = getattr(backend, "resync_pending_pods", None)
    if callable(resync):
        resync()
    else:
        log.info(
            "new profile(s) %s: pods already pending for them are picked up at their next update or informer relist",
            ", ".join(sorted(names)),
        )
