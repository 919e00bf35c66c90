"""Reserve, Unreserve, Permit, PreBindPreFlight, PreBind, Bind and PostBind: kube-scheduler's
RunReservePluginsReserve .. RunPostBindPlugins (framework/runtime/framework.go).

Reserve, Unreserve and Permit run on the scheduling thread; the rest in a binding worker, where
a parallel PreBind group runs its plugins on threads of their own.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..api.status import CODE_STRINGS, Code, PermitResult, PreBindPreFlightResult, Status, as_status
from .hooks import BoundHook, PluginFailure, call_parallel, call_status, guarded, wrapped

if TYPE_CHECKING:
    from ..api.handle import Handle
    from ..api.types import CycleState
    from ..cache.cluster import ClusterState
    from ..cache.podinfo import PodInfo

log = logging.getLogger(__name__)


def run_reserve(
    hooks: Sequence[BoundHook], state: CycleState, pod: PodInfo, node: str, cluster: ClusterState, handle: Handle
) -> Status:
    """RunReservePluginsReserve: the first failure stops (the caller unreserves)."""
    kwargs = {"state": state, "pod": pod, "node_name": node, "cluster": cluster, "handle": handle}
    for hook in hooks:
        status = call_status(hook, kwargs)
        if status.code == Code.ERROR:
            return wrapped(status, f'running Reserve plugin "{hook.plugin}"', hook.plugin)
        if not status.ok:
            return status
    return Status.success()


def run_unreserve(
    hooks: Sequence[BoundHook], state: CycleState, pod: PodInfo, node: str, cluster: ClusterState, handle: Handle
) -> None:
    """RunReservePluginsUnreserve: every plugin, in reverse order; a failure is only logged."""
    kwargs = {"state": state, "pod": pod, "node_name": node, "cluster": cluster, "handle": handle}
    for hook in reversed(hooks):
        try:
            hook.call(kwargs)
        except Exception:
            log.exception("unreserve of plugin %s failed for pod %s", hook.plugin, pod.key)


def run_permit(
    hooks: Sequence[BoundHook], state: CycleState, pod: PodInfo, node: str, handle: Handle
) -> tuple[Status, dict[str, float]]:
    """RunPermitPlugins: (status, {plugin: timeout}) where a non-empty dict means the pod must wait."""
    kwargs = {"state": state, "pod": pod, "node_name": node, "handle": handle}
    waits: dict[str, float] = {}
    for hook in hooks:
        try:
            result = guarded(hook, kwargs)
        except PluginFailure as failure:  # the caller must unreserve and forget the assumed pod
            return wrapped(failure.status, f'running Permit plugin "{hook.plugin}"', hook.plugin), {}
        if isinstance(result, PermitResult):
            status, timeout = result.status.with_plugin(hook.plugin), result.timeout
        else:
            status, timeout = as_status(result, hook.plugin), 0.0
        if status.code == Code.WAIT:
            waits[hook.plugin] = timeout
        elif status.code == Code.ERROR:
            return wrapped(status, f'running Permit plugin "{hook.plugin}"', hook.plugin), {}
        elif not status.ok and status.code != Code.SKIP:  # deny
            return status, {}
    return Status.success(), waits


def run_pre_bind_pre_flights(
    hooks: Sequence[BoundHook], flights: Mapping[str, BoundHook], state: CycleState, pod: PodInfo, node: str,
    handle: Handle,
) -> Status:
    """kube-scheduler's RunPreBindPreFlights: Success when some PreBind plugin has work for
    the pod, Skip when none has (no PreBind plugins at all included), else an Error.

    Records on `state` the plugins whose pre_bind is skipped and those that allow a parallel
    pre_bind (run_pre_bind reads both). A plugin without the hook has work."""
    if not hooks:
        return Status(Code.SKIP)
    has_work = False
    kwargs = {"state": state, "pod": pod, "node_name": node, "handle": handle}
    skipped: set[str] = set()
    parallel: set[str] = set()
    for hook in hooks:
        flight = flights.get(hook.plugin)
        if flight is None:
            has_work = True
            continue
        status = _pre_flight(flight, kwargs, parallel)
        code = status.code
        if code == Code.SKIP:
            skipped.add(hook.plugin)
        elif code == Code.SUCCESS:
            has_work = True
        elif code == Code.ERROR:
            return Status.error(f'running PreBindPreFlight "{hook.plugin}": {status.message}', hook.plugin, status.err)
        else:
            return Status.error(
                f'PreBindPreFlight {hook.plugin} returned "{CODE_STRINGS[code]}", which is unsupported. '
                "It is supposed to return Success, Skip, or Error status",
                hook.plugin,
            )
    if skipped:
        state.skip_pre_bind = skipped
    if parallel:
        state.parallel_pre_bind = parallel
    return Status(Code.SUCCESS if has_work else Code.SKIP)


def _pre_flight(flight: BoundHook, kwargs: dict[str, object], parallel: set[str]) -> Status:
    """One plugin's pre-flight answer as a Status (its plugin added to `parallel` when it allows)."""
    plugin = flight.plugin
    try:
        answer = flight.call(kwargs)
        if answer.__class__ is PreBindPreFlightResult:
            if answer.allow_parallel:
                parallel.add(plugin)
            answer = answer.status
        # A returned Status is read, not stamped with the plugin: plugins may return constants.
        return answer if answer.__class__ is Status else as_status(answer, plugin)
    except Exception as exc:
        log.exception("pre_bind_pre_flight of plugin %s raised for pod %s", plugin, getattr(kwargs["pod"], "key", "?"))
        return Status.error(f"plugin {plugin} raised {type(exc).__name__}: {exc}", plugin, exc)


def pre_bind_groups(hooks: Sequence[BoundHook], state: CycleState) -> list[list[BoundHook]]:
    """kube-scheduler's getPreBindPluginGroups: the pre_bind plugins not skipped, in order, in
    groups run one after another; a group of consecutive plugins that allow it runs in
    parallel. A skipped plugin that does not allow it still ends the group before it."""
    skipped, parallel = state.skip_pre_bind, state.parallel_pre_bind
    groups: list[list[BoundHook]] = []
    group: list[BoundHook] = []
    for hook in hooks:
        if hook.plugin in parallel:
            if hook.plugin not in skipped:
                group.append(hook)
            continue
        if group:
            groups.append(group)
            group = []
        if hook.plugin not in skipped:
            groups.append([hook])
    if group:
        groups.append(group)
    return groups


def run_pre_bind(hooks: Sequence[BoundHook], state: CycleState, pod: PodInfo, node: str, handle: Handle) -> Status:
    """PreBind of every plugin not skipped by its pre-flight; a parallel group's plugins run
    on threads of their own and the first failure in plugin order is reported (a Python
    thread cannot be cancelled: the others run to their end, where kube-scheduler cancels
    their context)."""
    skipped = state.skip_pre_bind
    if skipped and len(skipped) == len(hooks):
        return Status.success()  # every pre-flight said Skip (no volumes, no claims): the common case
    kwargs = {"state": state, "pod": pod, "node_name": node, "handle": handle}
    if not skipped and not state.parallel_pre_bind:  # pre-flights not run (the gate is off): one by one
        for hook in hooks:
            status = call_status(hook, kwargs)
            if not status.ok and status.code != Code.SKIP:
                return _pre_bind_failure(status, hook.plugin)
        return Status.success()
    for group in pre_bind_groups(hooks, state):
        statuses = [call_status(group[0], kwargs)] if len(group) == 1 else call_parallel(group, kwargs)
        for hook, status in zip(group, statuses, strict=True):
            if not status.ok and status.code != Code.SKIP:
                return _pre_bind_failure(status, hook.plugin)
    return Status.success()


def _pre_bind_failure(status: Status, plugin: str) -> Status:
    """RunPreBindPlugins' answer for a failed plugin: a rejection as the plugin said it, an
    Error wrapped with the plugin's name."""
    if status.is_rejected:
        return status.with_plugin(plugin)
    return wrapped(status, f'running PreBind plugin "{plugin}"', plugin)


def run_bind(hooks: Sequence[BoundHook], state: CycleState, pod: PodInfo, node: str, handle: Handle) -> Status:
    """RunBindPlugins: the first plugin that does not Skip binds the pod."""
    kwargs = {"state": state, "pod": pod, "node_name": node, "handle": handle}
    for hook in hooks:
        status = call_status(hook, kwargs)
        if status.code == Code.ERROR:
            return wrapped(status, f'running Bind plugin "{hook.plugin}"', hook.plugin)
        if status.code != Code.SKIP:
            return status
    return Status.error("no bind plugin bound the pod (all returned Skip)")


def run_post_bind(hooks: Sequence[BoundHook], state: CycleState, pod: PodInfo, node: str, handle: Handle) -> None:
    """RunPostBindPlugins: informational; a failure is only logged."""
    kwargs = {"state": state, "pod": pod, "node_name": node, "handle": handle}
    for hook in hooks:
        try:
            hook.call(kwargs)
        except Exception:
            log.exception("post_bind of plugin %s failed for pod %s", hook.plugin, pod.key)
