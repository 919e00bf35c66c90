"""Bound hooks: one plugin's implementation of one hook, and the guarded ways the runtime calls it.

A BoundHook is what pluggy's HookImpl is to `pm.hook.<name>(...)`: the function, the argument
names it asked for (pluggy's convention: a plugin takes any subset of the hookspec's arguments)
and, for weighted points, its weight in this profile. The per-node adapters turn the slow
`filter_node` / `score_node` forms into the batch hooks the runtime calls.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import operator
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..api.status import Code, FilterResult, Rejection, Status, as_status
from ..api.types import NodeInfo

if TYPE_CHECKING:
    from ..api.handle import Handle
    from ..api.types import CycleState
    from ..cache.cluster import ClusterState
    from ..cache.nodetable import NodeView
    from ..cache.podinfo import PodInfo

log = logging.getLogger(__name__)

__all__ = [
    "BoundHook",
    "PluginFailure",
    "PluginTimeout",
    "argnames",
    "call_parallel",
    "call_status",
    "filter_node_adapter",
    "guarded",
    "score_node_adapter",
    "wrapped",
]


class PluginFailure(Exception):
    """A plugin raised or returned an Error status; the pod gets an Error and is retried."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message)
        self.status = status


class PluginTimeout(Exception):  # noqa: N818 - reads as what happened: "plugin X raised PluginTimeout"
    """Raised in the scheduling thread, inside a plugin call past the plugin timeout, by the
    scheduling loop's watchdog (kubeberth.scheduling.watchdog); `guarded` makes it the plugin's Error."""

    bound_seconds = 0.0

    def __init__(self, *args: object) -> None:
        default = f"ran past the plugin timeout of {self.bound_seconds:g}s (KUBEBERTH_PLUGIN_TIMEOUT_SECONDS)"
        super().__init__(*(args or (default,)))


@dataclass(slots=True)
class BoundHook:
    """One plugin's implementation of one hook, with the argument names it asked for."""

    plugin: str
    fn: Callable[..., Any]
    argnames: tuple[str, ...]
    weight: int = 1
    # The arguments picked out of the call's keyword dict in one C call (hooks run ~20 times per pod).
    _pick: Callable[[dict[str, Any]], Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = self.argnames
        if not names:
            self._pick = lambda kwargs: ()
        elif len(names) == 1:
            key = names[0]
            self._pick = lambda kwargs: (kwargs[key],)
        else:
            self._pick = operator.itemgetter(*names)

    def call(self, kwargs: dict[str, Any]) -> Any:
        return self.fn(*self._pick(kwargs))

    @classmethod
    def of(cls, plugin: str, fn: Callable[..., Any], weight: int = 1) -> BoundHook:
        """Bind `fn` with the arguments its signature asks for."""
        return cls(plugin, fn, argnames(fn), weight)


# inspect.signature is the bulk of a reload's build: cached per function, weakly, so a drop-in's
# old classes are still freed when their generation goes.
_ARGNAMES: dict[bool, weakref.WeakKeyDictionary[Any, tuple[str, ...]]] = {
    True: weakref.WeakKeyDictionary(),
    False: weakref.WeakKeyDictionary(),
}


def argnames(fn: Any) -> tuple[str, ...]:
    """The arguments a hook implementation asks for (pluggy's HookImpl.argnames)."""
    func = getattr(fn, "__func__", fn)
    cache = _ARGNAMES[func is not fn]
    try:
        return cache[func]
    except (KeyError, TypeError):
        pass
    params = inspect.signature(fn).parameters.values()
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    names = tuple(p.name for p in params if p.kind in kinds and p.default is p.empty)
    with contextlib.suppress(TypeError):
        cache[func] = names
    return names


# ---- per-node forms (the slow path) -----------------------------------------------------------
BatchHook = Callable[["CycleState", "PodInfo", "NodeView", "ClusterState", "Handle"], Any]


def filter_node_adapter(plugin: str, fn: Callable[..., Any], argnames: tuple[str, ...]) -> BatchHook:
    """Turn a per-node filter into a batch filter (a Python call per node)."""

    def batch(state: CycleState, pod: PodInfo, nodes: NodeView, cluster: ClusterState, handle: Handle) -> Any:
        feasible = np.ones(len(nodes), dtype=bool)
        reasons: dict[tuple[str, Code], list[int]] = {}
        kwargs: dict[str, Any] = {"state": state, "pod": pod, "cluster": cluster, "handle": handle}
        for i, row in enumerate(nodes.rows.tolist()):
            kwargs["node"] = NodeInfo(cluster, row)
            status = as_status(fn(*[kwargs[a] for a in argnames]), plugin)
            if status.code == Code.ERROR:
                return status
            if status.is_rejected:
                feasible[i] = False
                for reason in status.reasons or (f"rejected by {plugin}",):
                    reasons.setdefault((reason, status.code), []).append(i)
        rejections = []
        for (reason, code), idx in reasons.items():
            mask = np.zeros(len(nodes), dtype=bool)
            mask[idx] = True
            rejections.append(Rejection(reason, mask, code))
        return FilterResult(feasible, rejections)

    return batch


def score_node_adapter(fn: Callable[..., Any], argnames: tuple[str, ...]) -> BatchHook:
    """Turn a per-node score into a batch score (a Python call per node)."""

    def batch(state: CycleState, pod: PodInfo, nodes: NodeView, cluster: ClusterState, handle: Handle) -> Any:
        kwargs: dict[str, Any] = {"state": state, "pod": pod, "cluster": cluster, "handle": handle}
        out = np.zeros(len(nodes), dtype=np.int64)
        for i, row in enumerate(nodes.rows.tolist()):
            kwargs["node"] = NodeInfo(cluster, row)
            out[i] = int(fn(*[kwargs[a] for a in argnames]))
        return out

    return batch


# ---- calling plugins --------------------------------------------------------------------------
def wrapped(status: Status, where: str, plugin: str) -> Status:
    """kube-scheduler's fwk.AsStatus(fmt.Errorf("<where>: %w", status.AsError())): the Error a
    plugin returned (or an exception it raised), as the runtime reports it. A non-Error status
    that is not allowed at the point (a PreScore rejection) becomes an Error the same way.
    The plugin stays on the status for decision records (kube-scheduler drops it for some points)."""
    return Status.error(f"{where}: {status.message}", plugin, status.err)


def guarded(hook: BoundHook, kwargs: dict[str, Any]) -> Any:
    """Call a plugin; an exception becomes an Error status for this pod, with the traceback logged."""
    try:
        return hook.call(kwargs)
    except PluginFailure:
        raise
    except Exception as exc:
        pod = kwargs.get("pod")
        log.exception("plugin %s raised while scheduling %s", hook.plugin, getattr(pod, "key", "?"))
        raise PluginFailure(Status.error(f"plugin {hook.plugin} raised {type(exc).__name__}: {exc}", hook.plugin)) from exc


def call_status(hook: BoundHook, kwargs: dict[str, Any]) -> Status:
    """Call a plugin whose answer is a Status; an exception is an Error status, logged."""
    try:
        return as_status(hook.call(kwargs), hook.plugin)
    except Exception as exc:
        pod = kwargs.get("pod")
        log.exception("plugin %s raised for pod %s", hook.plugin, getattr(pod, "key", "?"))
        return Status.error(f"plugin {hook.plugin} raised {type(exc).__name__}: {exc}", hook.plugin)


def call_parallel(hooks: list[BoundHook], kwargs: dict[str, Any]) -> list[Status]:
    """Call every hook at once (the first on this thread); their statuses in hook order."""
    out: list[Status] = [Status.success()] * len(hooks)

    def run(i: int) -> None:
        out[i] = call_status(hooks[i], kwargs)

    threads = [
        threading.Thread(target=run, args=(i,), name=f"pre_bind-{hooks[i].plugin}", daemon=True)
        for i in range(1, len(hooks))
    ]
    for t in threads:
        t.start()
    run(0)
    for t in threads:
        t.join()
    return out
