"""PodInfo: the small, parsed-once form of a pod that every plugin reads.

Pods arrive as raw JSON dicts (from the embedded cluster or the API server) and are parsed here
exactly once; plugins never see the Kubernetes client's generated model classes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from ..objects import Pod
from .quantity import QuantityError, resource_value
from .shapes import POD, describe_object, malformed

if TYPE_CHECKING:
    from ..api.views import PodView  # the read-only type plugins hold; PodInfo satisfies it

DEFAULT_MILLI_CPU_REQUEST = 100  # kube-scheduler's non-zero default for scoring (100m)
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024  # 200Mi
CPU, MEMORY, EPHEMERAL_STORAGE, PODS = "cpu", "memory", "ephemeral-storage", "pods"


class PodSpecError(ValueError):
    """A pod whose spec cannot be scheduled as written (e.g. a malformed quantity)."""


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    def tolerates(self, key: str, value: str, effect: str) -> bool:
        """v1 helper ToleratesTaint: effect, key (empty key + Exists matches all) and value."""
        if self.effect and self.effect != effect:
            return False
        if self.key and self.key != key:
            return False
        if self.operator == "Exists":
            return True
        if self.operator in ("Equal", ""):
            return self.value == value
        return False


@dataclass(frozen=True, slots=True)
class HostPort:
    ip: str
    protocol: str
    port: int


T = TypeVar("T")
_MISSING: Any = object()


class MemoKey(Generic[T]):
    """A typed key into a pod's cache (`PodInfo.cached`); compare by identity, so define it once:

        TERMS: MemoKey[tuple[Term, ...]] = MemoKey("MyPlugin.terms")
        terms = pod.cached(TERMS, parse_terms)
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"MemoKey({self.name!r})"

    def get(self, pod: PodView) -> T | None:
        """What was stored for this key on `pod`, or None."""
        found: T | None = pod.memo.get(self)
        return found

    def set(self, pod: PodView, value: T) -> T:
        """Store `value` for this key on `pod`; returns it."""
        pod.memo[self] = value
        return value


@dataclass(slots=True, eq=False)
class PodInfo:
    """Everything the framework needs from a pod, parsed once from its JSON."""

    uid: str
    namespace: str
    name: str
    labels: dict[str, str]
    scheduler_name: str
    node_name: str
    priority: int
    preemption_policy: str
    requests: dict[str, int]
    nonzero_cpu: int
    nonzero_memory: int
    tolerations: tuple[Toleration, ...]
    node_selector: dict[str, str]
    affinity: dict[str, Any]
    topology_spread_constraints: tuple[dict[str, Any], ...]
    host_ports: tuple[HostPort, ...]
    scheduling_gates: tuple[str, ...]
    pvc_names: tuple[str, ...]
    images: tuple[str, ...]
    creation_timestamp: float
    nominated_node_name: str
    phase: str
    deleting: bool
    raw: Pod  # the pod's JSON as the API server sent it (typed: kubeberth.api.objects)
    # The storage of MemoKey / PodInfo.cached, made on first use (most running pods never need one).
    _memo: dict[Any, Any] | None = None
    queue_timestamp: float = 0.0  # when the pod (re-)entered the scheduling queue; QueueSort's tie-break
    pod_group: str = ""  # spec.schedulingGroup.podGroupName: the PodGroup (same namespace) it belongs to

    @property
    def memo(self) -> dict[Any, Any]:
        """The storage behind `MemoKey` / `cached`: plugins' own per-pod memo."""
        memo = self._memo
        if memo is None:
            memo = self._memo = {}
        return memo

    def cached(self, key: MemoKey[T], compute: Callable[[PodInfo], T]) -> T:
        """What `compute(pod)` returns, computed once per pod object (a pod update is a new object).

        The per-pod cache plugins use for anything they derive from the pod alone (parsed terms,
        selectors); `key` is a module-level MemoKey, typed by what it stores.
        """
        found = self.memo.get(key, _MISSING)
        if found is _MISSING:
            found = self.memo[key] = compute(self)
        return found

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def is_terminal(self) -> bool:
        return self.phase in ("Succeeded", "Failed")

    @classmethod
    def from_dict(cls, obj: dict[str, Any]) -> PodInfo:
        """Parse a pod manifest; raises PodSpecError naming the pod and field on bad input."""
        try:
            return cls._parse(obj)
        except PodSpecError:
            raise
        except (AttributeError, TypeError, ValueError, KeyError) as exc:
            # A field of the wrong shape (spec as a string, containers as a mapping): name it. The
            # shape walk runs only here, off the good path.
            problem = malformed(obj, POD) or f"cannot be read ({type(exc).__name__}: {exc})"
            raise PodSpecError(f"{describe_object('Pod', obj)}: {problem}") from None

    @classmethod
    def unparsed(cls, obj: Any) -> PodInfo:
        """Only the identity of a pod that cannot be parsed: enough to record an event about it."""
        meta = obj.get("metadata") if isinstance(obj, dict) else None
        meta = meta if isinstance(meta, dict) else {}
        spec = obj.get("spec") if isinstance(obj, dict) else None
        spec = spec if isinstance(spec, dict) else {}

        def text(value: Any, default: str = "") -> str:
            return value if isinstance(value, str) and value else default

        namespace, name = text(meta.get("namespace"), "default"), text(meta.get("name"))
        return cls(
            uid=text(meta.get("uid"), f"{namespace}/{name}"), namespace=namespace, name=name, labels={},
            scheduler_name=text(spec.get("schedulerName"), "default-scheduler"), node_name=text(spec.get("nodeName")),
            priority=0, preemption_policy="", requests={}, nonzero_cpu=0, nonzero_memory=0, tolerations=(),
            node_selector={}, affinity={}, topology_spread_constraints=(), host_ports=(), scheduling_gates=(),
            pvc_names=(), images=(), creation_timestamp=0.0, nominated_node_name="", phase="", deleting=False,
            raw=cast(Pod, obj if isinstance(obj, dict) else {}),
        )

    @classmethod
    def _parse(cls, obj: dict[str, Any]) -> PodInfo:
        meta = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        status = obj.get("status") or {}
        namespace = meta.get("namespace") or "default"
        name = meta.get("name") or meta.get("generateName") or ""
        try:
            requests, nonzero_cpu, nonzero_memory = _effective_requests(spec, status)
        except QuantityError as exc:
            raise PodSpecError(f"pod {namespace}/{name}: {exc}") from None
        # Fields kept as given must have their shape now, or a plugin trips over them later.
        labels = meta.get("labels") or {}
        node_selector = spec.get("nodeSelector") or {}
        affinity = spec.get("affinity") or {}
        spread = spec.get("topologySpreadConstraints") or ()
        # Names the cache indexes pods by (hashed, compared with node names); name may be generateName.
        scheduler_name = spec.get("schedulerName") or "default-scheduler"
        node_name = spec.get("nodeName") or ""
        nominated = status.get("nominatedNodeName") or ""
        if not (
            isinstance(labels, dict)
            and isinstance(node_selector, dict)
            and isinstance(affinity, dict)
            and isinstance(spread, list | tuple)
            and type(name) is str
            and type(scheduler_name) is str
            and type(node_name) is str
            and type(nominated) is str
        ):
            raise TypeError("a field kept as given has the wrong shape")
        ports = []
        containers = spec.get("containers") or ()
        inits = spec.get("initContainers")
        for container in (*inits, *containers) if inits else containers:
            for port in container.get("ports") or ():
                if port.get("hostPort"):
                    ports.append(
                        HostPort(
                            port.get("hostIP") or "0.0.0.0",
                            port.get("protocol") or "TCP",
                            int(port["hostPort"]),
                        )
                    )
        pvcs = []
        for volume in spec.get("volumes") or ():
            if not isinstance(volume, dict):
                raise TypeError("volume is not a mapping")
            if "persistentVolumeClaim" in volume:
                pvcs.append(volume["persistentVolumeClaim"].get("claimName", ""))
            elif "ephemeral" in volume:
                pvcs.append(f"{name}-{volume.get('name', '')}")
        group = spec.get("schedulingGroup") or {}
        pod_group = group.get("podGroupName") or ""
        if not isinstance(pod_group, str):
            raise TypeError("spec.schedulingGroup.podGroupName is not a string")
        listed = spec.get("tolerations")
        tolerations = tuple(
            Toleration(
                t.get("key") or "",
                t.get("operator") or "Equal",
                t.get("value") or "",
                t.get("effect") or "",
                t.get("tolerationSeconds"),
            )
            for t in listed
        ) if listed else ()
        gates = spec.get("schedulingGates")
        return cls(
            uid=meta.get("uid") or f"{namespace}/{name}",
            namespace=namespace,
            name=name,
            labels=dict(labels) if labels else _NONE,
            scheduler_name=scheduler_name,
            node_name=node_name,
            priority=int(spec.get("priority") or 0),
            preemption_policy=spec.get("preemptionPolicy") or "PreemptLowerPriority",
            requests=_shared_requests(requests),
            nonzero_cpu=nonzero_cpu,
            nonzero_memory=nonzero_memory,
            tolerations=tolerations,
            node_selector=dict(node_selector) if node_selector else _NONE,
            affinity=affinity,
            topology_spread_constraints=tuple(spread),
            host_ports=tuple(ports),
            scheduling_gates=tuple([g.get("name", "") for g in gates]) if gates else (),
            pvc_names=tuple(pvcs),
            images=tuple([c.get("image", "") for c in containers]),
            creation_timestamp=_timestamp(meta.get("creationTimestamp")),
            nominated_node_name=nominated,
            phase=status.get("phase") or "Pending",
            deleting=bool(meta.get("deletionTimestamp")),
            raw=cast(Pod, obj),
            pod_group=pod_group,
        )


# Shared by every PodInfo that has none or the same: a cluster's running pods come from a few templates,
# and a dict per pod is 64-200 bytes (at 650,000 running pods, ~80 MB for the labels and nodeSelector
# alone). PodInfo fields are read-only (plugins see PodView); nothing may mutate them in place.
_NONE: dict[str, str] = {}
_REQUESTS: dict[tuple[tuple[str, int], ...], dict[str, int]] = {}
_REQUESTS_KEPT = 4096  # distinct request shapes interned; beyond that a pod keeps its own dict


def _shared_requests(requests: dict[str, int]) -> dict[str, int]:
    """The one dict of pods with these requests (interned while there are at most _REQUESTS_KEPT shapes)."""
    key = tuple(requests.items())
    found = _REQUESTS.get(key)
    if found is not None:
        return found
    if len(_REQUESTS) < _REQUESTS_KEPT:
        _REQUESTS[key] = requests
    return requests


@lru_cache(maxsize=1024)  # pods listed together were mostly created in the same few seconds
def _timestamp(value: str | None) -> float:
    if not value:
        return 0.0
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


def _container_requests(container: dict[str, Any]) -> dict[str, int]:
    """A container's requests; a resource with only a limit requests its limit (API defaulting)."""
    resources = container.get("resources")
    if not resources:
        return {}
    limits, requests = resources.get("limits"), resources.get("requests")
    if limits:
        merged = dict(limits)
        if requests:
            merged.update(requests)
    else:
        merged = requests or {}
    return {name: resource_value(name, qty) for name, qty in merged.items()}


def _add(total: dict[str, int], extra: dict[str, int]) -> None:
    for name, value in extra.items():
        total[name] = total.get(name, 0) + value


def _max_into(total: dict[str, int], other: dict[str, int]) -> None:
    for name, value in other.items():
        if value > total.get(name, 0):
            total[name] = value


def _pod_level_requests(spec: dict[str, Any]) -> dict[str, int]:
    """spec.resources.requests of the resources kube-scheduler takes at pod level (cpu, memory, hugepages-*)."""
    resources = spec.get("resources")
    requests = resources.get("requests") if resources else None
    if not requests:
        return {}
    return {
        name: resource_value(name, q)
        for name, q in requests.items()
        if name in (CPU, MEMORY) or name.startswith("hugepages-")
    }


def _aggregate(
    spec: dict[str, Any], requests_of: Callable[[dict[str, Any]], dict[str, int]]
) -> tuple[dict[str, int], list[int]]:
    """The containers' part of the pod request: max(sum of containers (+ sidecars), each init
    step), and its non-zero form (100m / 200Mi for a container that requests no cpu / memory)."""
    totals: dict[str, int] = {}
    nonzero_cpu = nonzero_memory = 0
    for container in spec.get("containers") or ():
        req = requests_of(container)  # an explicit 0 stays 0; only missing ones default
        for name, value in req.items():
            totals[name] = totals.get(name, 0) + value
        # Only an unset request is defaulted; an explicit zero stays zero (as kube-scheduler).
        nonzero_cpu += req.get(CPU, DEFAULT_MILLI_CPU_REQUEST)
        nonzero_memory += req.get(MEMORY, DEFAULT_MEMORY_REQUEST)
    nonzero = [nonzero_cpu, nonzero_memory]
    if not spec.get("initContainers"):
        return totals, nonzero
    init_peak: dict[str, int] = {}
    sidecars: dict[str, int] = {}
    init_nonzero_peak = [0, 0]
    sidecar_nonzero = [0, 0]
    for container in spec.get("initContainers") or ():
        req = requests_of(container)
        nz = [req.get(CPU, DEFAULT_MILLI_CPU_REQUEST), req.get(MEMORY, DEFAULT_MEMORY_REQUEST)]
        if container.get("restartPolicy") == "Always":  # sidecar: runs for the pod's lifetime
            _add(totals, req)
            _add(sidecars, req)
            nonzero[0] += nz[0]
            nonzero[1] += nz[1]
            sidecar_nonzero = [sidecar_nonzero[0] + nz[0], sidecar_nonzero[1] + nz[1]]
            step, step_nz = dict(sidecars), list(sidecar_nonzero)
        else:
            step = dict(req)
            _add(step, sidecars)
            step_nz = [nz[0] + sidecar_nonzero[0], nz[1] + sidecar_nonzero[1]]
        _max_into(init_peak, step)
        init_nonzero_peak = [max(init_nonzero_peak[0], step_nz[0]), max(init_nonzero_peak[1], step_nz[1])]
    _max_into(totals, init_peak)
    return totals, [max(nonzero[0], init_nonzero_peak[0]), max(nonzero[1], init_nonzero_peak[1])]


def _quantities(values: dict[str, Any] | None) -> dict[str, int]:
    return {name: resource_value(name, q) for name, q in (values or {}).items()}


def _resize_pending_reason(status: dict[str, Any]) -> str | None:
    """The reason of the PodResizePending condition (Deferred / Infeasible), if any."""
    for condition in status.get("conditions") or ():
        if isinstance(condition, dict) and condition.get("type") == "PodResizePending":
            return str(condition.get("reason") or "")
    return None


def _has_status_resources(spec: dict[str, Any], status: dict[str, Any]) -> bool:
    """Whether the kubelet reports resources that can differ from the spec's (a resize in flight).

    A running pod's container statuses normally repeat its spec requests; then the max is the spec
    and the status is not read again (raw equality: quantities as written)."""
    if "allocatedResources" in status or "resources" in status or _resize_pending_reason(status) == "Infeasible":
        return True
    statuses = [cs for key in ("containerStatuses", "initContainerStatuses") for cs in status.get(key) or ()]
    if not statuses:
        return False
    asked = {
        c.get("name") or "": (c.get("resources") or {}).get("requests") or {}
        for key in ("containers", "initContainers")
        for c in spec.get(key) or ()
        if isinstance(c, dict)
    }
    for cs in statuses:
        if not isinstance(cs, dict):
            continue
        requests = asked.get(cs.get("name") or "", {})
        allocated = cs.get("allocatedResources")
        if allocated is not None and allocated != requests:
            return True
        actuated = (cs.get("resources") or {}).get("requests")
        if actuated is not None and actuated != requests:
            return True
    return False


def _with_status_resources(
    spec: dict[str, Any], status: dict[str, Any], totals: dict[str, int], nonzero: list[int]
) -> tuple[dict[str, int], list[int]]:
    """InPlacePodVerticalScaling (GA): while a resize is in flight a pod holds the most of what its
    spec asks, what the kubelet allocated and what it actuated (component-helpers'
    AggregateContainerRequests with UseStatusResources); an infeasible resize holds only the latter two."""
    infeasible = _resize_pending_reason(status) == "Infeasible"
    by_name: dict[str, dict[str, Any]] = {}
    for key in ("initContainerStatuses", "containerStatuses"):  # findContainerStatus prefers containers
        for cs in status.get(key) or ():
            if isinstance(cs, dict):
                by_name[cs.get("name") or ""] = cs
    pod_allocated = status.get("allocatedResources")
    pod_actuated = (status.get("resources") or {}).get("requests")
    if pod_allocated is not None and pod_actuated is not None:
        # InPlacePodLevelResourcesVerticalScaling: pod-level status maps already hold the aggregate.
        parts = [(_quantities(pod_allocated), [0, 0]), (_quantities(pod_actuated), [0, 0])]
        for values, nz in parts:
            nz[0], nz[1] = values.get(CPU, 0), values.get(MEMORY, 0)
    else:
        def allocated(container: dict[str, Any]) -> dict[str, int]:
            cs = by_name.get(container.get("name") or "")
            if cs is not None and cs.get("allocatedResources") is not None:
                return _quantities(cs["allocatedResources"])
            return {} if infeasible else _container_requests(container)

        def actuated(container: dict[str, Any]) -> dict[str, int]:
            cs = by_name.get(container.get("name") or "")
            requests = ((cs or {}).get("resources") or {}).get("requests")
            if requests is not None:
                return _quantities(requests)
            return allocated(container)

        parts = [_aggregate(spec, allocated), _aggregate(spec, actuated)]
    out: dict[str, int] = {} if infeasible else dict(totals)
    out_nz = [0, 0] if infeasible else list(nonzero)
    for values, nz in parts:
        _max_into(out, values)
        out_nz = [max(out_nz[0], nz[0]), max(out_nz[1], nz[1])]
    return out, out_nz


def _effective_requests(spec: dict[str, Any], status: dict[str, Any] | None = None) -> tuple[dict[str, int], int, int]:
    """kube-scheduler's pod request: max(sum of containers (+ sidecars), each init step) + overhead,
    counting an in-place resize in flight from `status` (PodInfo.CalculateResource).

    Returns (requests, non-zero cpu, non-zero memory); the non-zero forms substitute 100m / 200Mi
    for containers that request no cpu / memory, as scoring does.
    """
    totals, nonzero = _aggregate(spec, _container_requests)
    if status and _has_status_resources(spec, status):
        totals, nonzero = _with_status_resources(spec, status, totals, nonzero)
    pod_level = _pod_level_requests(spec)
    if pod_level:
        if status and status.get("resources") is not None:
            # InPlacePodLevelResourcesVerticalScaling (beta, on): the pod-level resize in flight.
            spec_level = {} if _resize_pending_reason(status) == "Infeasible" else pod_level
            pod_level = dict(spec_level)
            for values in ((status.get("resources") or {}).get("requests"), status.get("allocatedResources")):
                _max_into(pod_level, {k: v for k, v in _quantities(values).items()
                                      if k in (CPU, MEMORY) or k.startswith("hugepages-")})
        # PodLevelResources (on by default since v1.34): the pod's own cpu/memory/hugepages requests replace
        # the containers' sum; a resource named at neither level still gets the non-zero default.
        for i, name in enumerate((CPU, MEMORY)):
            if name in pod_level or name in totals:
                nonzero[i] = pod_level.get(name, totals.get(name, 0))
        totals.update(pod_level)
    overhead_listed = spec.get("overhead")
    if overhead_listed:
        overhead = {name: resource_value(name, q) for name, q in overhead_listed.items()}
        _add(totals, overhead)
        nonzero[0] += overhead.get(CPU, 0)
        nonzero[1] += overhead.get(MEMORY, 0)
    return {k: v for k, v in totals.items() if v}, nonzero[0], nonzero[1]
