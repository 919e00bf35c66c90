"""Read-only views of the scheduler's cache: what a plugin may read of the cluster, the node table
and a pod (kube-scheduler's listers: `SharedLister`, `NodeInfoLister` in
k8s.io/kube-scheduler/framework/listers.go, and the read side of `fwk.PodInfo`).

The cache behind them (ClusterState, NodeTable, PodInfo, DeviceState) is the runtime's: it changes
between cycles through informer events and assume/forget, which plugins must not call. These
Protocols are the plugin's type for it: `handle.cluster` is a `ClusterView`, `nodes.table` and
`cluster.table` a `NodeTableView`, every pod a hook receives a `PodView`. They are typing only:
the objects a hook receives are the cache's own (no wrapper, no per-pod cost), and mypy checks
that they satisfy these Protocols (tests/test_views.py).

What a plugin may change is named here too, and is all it may change:
- `cluster.hypothetical(...)`: what-if placements, undone when the `with` block exits;
- `cluster.index(key, factory)`: registering an incremental index of its own over placed pods;
- `pod.cached(KEY, compute)` / `pod.memo`: its own per-pod memo (see `MemoKey`);
- `cluster.devices.assume_allocation / release`: DynamicResources' in-flight claim allocations
  (kube-scheduler's SharedDRAManager `SignalClaimPendingAllocation` / `RemoveClaimPendingAllocation`).
numpy columns are returned as the cache holds them (copying them per call would cost every
cycle): read them, never write into them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol, TypeGuard, TypeVar

import numpy as np
from numpy.typing import NDArray

from ..cache.podinfo import PodInfo

if TYPE_CHECKING:
    from ..cache.devices import AllocatedState
    from ..cache.nodetable import NodeView, Taint
    from ..cache.podgroups import PodGroupState
    from ..cache.podinfo import HostPort, MemoKey, Toleration
    from .objects import Pod

__all__ = [
    "ClusterView",
    "DeviceStateView",
    "InternedSets",
    "LabelCountsView",
    "NodeTableView",
    "PodIndex",
    "PodView",
    "WhatIf",
    "is_pod",
    "parse_pod",
]

T = TypeVar("T")
IndexT = TypeVar("IndexT", bound="PodIndex")


class PodView(Protocol):
    """A pod as plugins read it: parsed once from its JSON (kubeberth.cache.podinfo.PodInfo).

    Resource amounts are in base units (cpu millicores, memory bytes, counts); `raw` is the pod's
    JSON as the API server sent it. A pod update is a new object, so anything derived from the pod
    alone may be memoised on it with `pod.cached(KEY, compute)`.
    """

    @property
    def uid(self) -> str: ...
    @property
    def namespace(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def labels(self) -> dict[str, str]: ...
    @property
    def scheduler_name(self) -> str: ...
    @property
    def node_name(self) -> str:
        """spec.nodeName: "" while the pod is pending."""
        ...
    @property
    def priority(self) -> int: ...
    @property
    def preemption_policy(self) -> str: ...
    @property
    def requests(self) -> dict[str, int]:
        """kube-scheduler's effective pod request (init containers, sidecars, overhead, pod-level
        resources, an in-place resize in flight), in base units; zero amounts left out."""
        ...
    @property
    def nonzero_cpu(self) -> int:
        """cpu request with 100m for a container that requests none (what scoring counts)."""
        ...
    @property
    def nonzero_memory(self) -> int:
        """memory request with 200Mi for a container that requests none."""
        ...
    @property
    def tolerations(self) -> tuple[Toleration, ...]: ...
    @property
    def node_selector(self) -> dict[str, str]: ...
    @property
    def affinity(self) -> dict[str, Any]: ...
    @property
    def topology_spread_constraints(self) -> tuple[dict[str, Any], ...]: ...
    @property
    def host_ports(self) -> tuple[HostPort, ...]: ...
    @property
    def scheduling_gates(self) -> tuple[str, ...]: ...
    @property
    def pvc_names(self) -> tuple[str, ...]:
        """Claims the pod's volumes use: persistentVolumeClaim names and `<pod>-<volume>` of
        generic ephemeral volumes."""
        ...
    @property
    def images(self) -> tuple[str, ...]: ...
    @property
    def creation_timestamp(self) -> float: ...
    @property
    def nominated_node_name(self) -> str: ...
    @property
    def phase(self) -> str: ...
    @property
    def deleting(self) -> bool:
        """metadata.deletionTimestamp is set."""
        ...
    @property
    def raw(self) -> Pod: ...
    @property
    def memo(self) -> dict[Any, Any]:
        """The storage behind `MemoKey` / `cached`: plugins' own per-pod memo, nothing else."""
        ...
    @property
    def queue_timestamp(self) -> float:
        """When the pod (re-)entered the scheduling queue; QueueSort's tie-break."""
        ...
    @property
    def pod_group(self) -> str:
        """spec.schedulingGroup.podGroupName: the PodGroup (same namespace) it belongs to, or ""."""
        ...
    @property
    def key(self) -> str:
        """`namespace/name`."""
        ...
    @property
    def is_terminal(self) -> bool:
        """phase Succeeded or Failed."""
        ...

    def cached(self, key: MemoKey[T], compute: Callable[[PodView], T]) -> T:
        """What `compute(pod)` returns, computed once per pod object."""
        ...


def is_pod(obj: object) -> TypeGuard[PodView]:
    """Whether `obj` is a pod as the cache holds it (a queueing hint's old/new objects are pods for
    Pod events, the object's JSON for other kinds): kube-scheduler's `util.As[*v1.Pod]`."""
    return isinstance(obj, PodInfo)


def parse_pod(obj: Mapping[str, Any]) -> PodView:
    """A pod parsed from its JSON exactly as the cache parses pods (kube-scheduler's
    framework.NewPodInfo), e.g. a what-if copy of a pod to run filters with; raises ValueError
    (PodSpecError) naming the pod and field on bad input. The cache never sees it."""
    return PodInfo.from_dict(dict(obj))


class InternedSets(Protocol):
    """Interned label / taint / image sets of a NodeTable: `values[id]` is the set with that id."""

    @property
    def values(self) -> Sequence[Any]: ...

    def __len__(self) -> int: ...


class NodeTableView(Protocol):
    """The columnar node cache as plugins read it (kubeberth.cache.nodetable.NodeTable).

    Rows are stable for a node's lifetime; arrays span `capacity` rows (live ones: `alive`).
    Resource columns follow `resources`; amounts are int64 in base units. Label, taint and image
    sets are interned: `label_set[row]` is an id into `label_sets.values`.
    """

    @property
    def resources(self) -> Sequence[str]: ...
    @property
    def resource_index(self) -> Mapping[str, int]: ...
    @property
    def capacity(self) -> int: ...
    @property
    def size(self) -> int:
        """High-water mark of used rows."""
        ...
    @property
    def names(self) -> Sequence[str | None]:
        """Node name per row, None for a free row."""
        ...
    @property
    def row_of(self) -> Mapping[str, int]: ...
    @property
    def raw(self) -> Sequence[dict[str, Any] | None]:
        """The Node JSON per row."""
        ...
    @property
    def alive(self) -> NDArray[np.bool_]: ...
    @property
    def allocatable(self) -> NDArray[np.int64]: ...
    @property
    def requested(self) -> NDArray[np.int64]:
        """Requests of the pods placed (bound or assumed) per row and resource column."""
        ...
    @property
    def nonzero_requested(self) -> NDArray[np.int64]:
        """Non-zero cpu and memory requests per row (columns 0 and 1)."""
        ...
    @property
    def unschedulable(self) -> NDArray[np.bool_]: ...
    @property
    def label_set(self) -> NDArray[np.int32]: ...
    @property
    def taint_set(self) -> NDArray[np.int32]: ...
    @property
    def image_set(self) -> NDArray[np.int32]: ...
    @property
    def label_sets(self) -> InternedSets: ...
    @property
    def taint_sets(self) -> InternedSets: ...
    @property
    def image_sets(self) -> InternedSets: ...
    @property
    def image_node_count(self) -> Mapping[str, int]:
        """Nodes holding each image (ImageLocality's spread)."""
        ...
    @property
    def version(self) -> int:
        """Moves when node membership, labels, taints, images or order change."""
        ...
    @property
    def row_version(self) -> NDArray[np.int64]:
        """Per-row change stamps: a row's moves when its node or the pods on it change."""
        ...

    def __len__(self) -> int: ...

    def request_vector(self, pod: PodView) -> NDArray[np.int64]:
        """The pod's requests aligned with `resources` (pods column = 1); memoised per pod."""
        ...

    def cached(self, key: Hashable, build: Callable[[], T]) -> T:
        """Memoise a derived structure until `version` moves."""
        ...

    def ordered_rows(self) -> NDArray[np.int64]:
        """Live rows, interleaved across zones like kube-scheduler's node tree."""
        ...

    def label_values(self, key: str) -> tuple[NDArray[np.int32], list[str]]:
        """Per-row interned value of a label: (ids over all rows, -1 if absent; id -> value)."""
        ...

    def labels_of(self, row: int) -> dict[str, str]: ...

    def taints_of(self, row: int) -> tuple[Taint, ...]: ...

    def images_of(self, row: int) -> dict[str, int]: ...

    def view(self, rows: NDArray[np.int64]) -> NodeView:
        """The candidate-rows view batch hooks receive, over `rows`."""
        ...


class LabelCountsView(Protocol):
    """Placed pods counted per (namespace, label set) group per node row (`cluster.label_counts`),
    the basis of topology spread and inter-pod affinity."""

    @property
    def groups(self) -> Sequence[tuple[str, dict[str, str]]]: ...
    @property
    def totals(self) -> Sequence[int]: ...

    def matching_groups(self, predicate: Callable[[str, dict[str, str]], bool]) -> list[int]: ...

    def per_node(self, groups: Iterable[int]) -> NDArray[np.int32]:
        """Sum of counts of the given groups for every row of the table (length = capacity)."""
        ...


class DeviceStateView(Protocol):
    """ResourceSlices by node, devices in use and in-flight allocations for DRA
    (kubeberth.cache.devices.DeviceState; kube-scheduler's SharedDRAManager)."""

    @property
    def slices(self) -> Mapping[str, dict[str, Any]]: ...
    @property
    def by_node(self) -> Mapping[str, Mapping[str, dict[str, Any]]]: ...
    @property
    def node_independent(self) -> Mapping[str, dict[str, Any]]: ...
    @property
    def version(self) -> int:
        """Moves on every change; per-cycle caches compare it."""
        ...
    @property
    def classes_version(self) -> int:
        """Moves when a DeviceClass changes."""
        ...

    def slices_for(self, node_name: str) -> list[dict[str, Any]]: ...

    def all_slices(self) -> Iterable[dict[str, Any]]: ...

    def device_class_for(self, resource_name: str) -> dict[str, Any] | None: ...

    def extended_resource_of(self, class_name: str) -> str: ...

    def has_extended_resource_classes(self) -> bool: ...

    def pending_allocation(self, claim_uid: str) -> dict[str, Any] | None: ...

    def allocated_devices(self) -> set[tuple[str, str, str]]: ...

    def allocated_state(self, consumable_capacity: bool) -> AllocatedState: ...

    def assume_allocation(
        self,
        claim_uid: str,
        claim_key: str,
        claim: dict[str, Any],
        pod_uid: str,
        settled: Callable[[dict[str, Any]], bool] | None = None,
        created_for: str = "",
    ) -> None:
        """Hold a claim allocated in Reserve until its allocation is observed (SignalClaimPendingAllocation)."""
        ...

    def release(self, claim_uid: str, pod_uid: str) -> bool:
        """Drop the pod's hold on an in-flight allocation (RemoveClaimPendingAllocation)."""
        ...


class PodIndex(Protocol):
    """An incremental structure over placed pods (e.g. per-domain counts) that a plugin registers
    with `cluster.index(key, factory)`; the cache calls it on every placement and removal."""

    def pod_added(self, pod: PodView, row: int) -> None: ...

    def pod_removed(self, pod: PodView, row: int) -> None: ...


class WhatIf(Protocol):
    """The changes of one `cluster.hypothetical(...)` block, undone when it exits."""

    def add(self, pod: PodView, node: int | str) -> None:
        """Place `pod` on a node (row or name)."""
        ...

    def remove(self, pod: PodView) -> None:
        """Take a placed pod off its node (no-op for a pod that is not placed)."""
        ...

    def add_requests(self, rows: NDArray[np.int64], delta: NDArray[np.int64]) -> None:
        """Add `delta` to the requested totals of `rows` only (a batch what-if for NODE_RESOURCES filters)."""
        ...


class ClusterView(Protocol):
    """The scheduler's cache as plugins read it (`handle.cluster`; kube-scheduler's SharedLister).

    Scheduling thread only. Objects other than nodes and pods (PVs, PVCs, StorageClasses,
    ResourceClaims, PodGroups, ...) are read by kind with `get_object` / `list_objects`.
    """

    @property
    def table(self) -> NodeTableView: ...
    @property
    def devices(self) -> DeviceStateView: ...
    @property
    def label_counts(self) -> LabelCountsView: ...
    @property
    def pods(self) -> Mapping[str, PodView]:
        """Every pod the cache knows, by uid (pending, assumed and bound)."""
        ...
    @property
    def placement(self) -> Mapping[str, int]:
        """uid -> node row of every placed (bound or assumed) pod."""
        ...
    @property
    def nominated(self) -> Mapping[str, Mapping[str, PodView]]:
        """node name -> {uid: pod} of the pods nominated there (empty when there are none)."""
        ...
    @property
    def objects_version(self) -> int:
        """Moves on every change to objects other than nodes and pods."""
        ...

    def node_pods(self, row: int) -> Mapping[str, PodView]:
        """The pods placed on a node row, by uid."""
        ...

    def nominated_ghosts(self, pod: PodView) -> Mapping[int, Sequence[PodView]]:
        """Unplaced pods nominated on each node row with priority >= `pod`'s."""
        ...

    def pod_group_state(self, namespace: str, name: str) -> PodGroupState:
        """The members of PodGroup `namespace/name`: unscheduled, assumed or assigned."""
        ...

    def get_object(self, kind: str, key: str) -> dict[str, Any] | None:
        """The cached object of `kind` at `key` ('ns/name' or 'name'), or None."""
        ...

    def list_objects(self, kind: str) -> list[dict[str, Any]]: ...

    def index(self, key: Hashable, factory: Callable[[ClusterView], IndexT]) -> IndexT:
        """Get or register an incremental pod index: built from current placements, then kept."""
        ...

    def hypothetical(
        self, add: Iterable[tuple[PodView, int | str]] = (), remove: Iterable[PodView] = ()
    ) -> AbstractContextManager[WhatIf]:
        """Place and remove pods for a `with` block; everything plugins read follows, and the
        cache is restored exactly on exit (the documented what-if service)."""
        ...



if TYPE_CHECKING:
    from ..cache.cluster import ClusterState, Hypothetical, PodLabelCounts
    from ..cache.devices import DeviceState
    from ..cache.nodetable import NodeTable

    def _the_cache_satisfies_the_views(
        cluster: ClusterState,
        table: NodeTable,
        pod: PodInfo,
        devices: DeviceState,
        what_if: Hypothetical,
        counts: PodLabelCounts,
    ) -> None:
        """Checked by mypy (tests/test_typing.py), as kube-scheduler's `var _ fwk.X = &Y{}`."""
        _cluster: ClusterView = cluster
        _table: NodeTableView = table
        _pod: PodView = pod
        _devices: DeviceStateView = devices
        _what_if: WhatIf = what_if
        _counts: LabelCountsView = counts
