"""ClusterState: the scheduler's cache of nodes, pods and other objects.

Owned by the scheduling thread alone (DESIGN property 2): informers and binding workers send
events, the loop applies them between cycles, so plugins always read a consistent state with no
locks. Pods placed on a node — bound or only *assumed* by a scheduling cycle whose binding is
still in flight — are accounted in the NodeTable and in every registered PodIndex.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

import numpy as np

from .devices import DeviceState, SliceChange
from .nodetable import NodeTable
from .podgroups import PodGroupMembers, PodGroupState
from .podinfo import PodInfo

if TYPE_CHECKING:
    # The read-only Protocols plugins see this cache through (ClusterState satisfies ClusterView).
    from ..api.views import ClusterView, PodView
    from ..api.views import PodIndex as PluginPodIndex

    IndexT = TypeVar("IndexT", bound=PluginPodIndex)


class PodIndex(Protocol):
    """An incremental structure over placed pods (e.g. per-domain counts), kept by the cache;
    plugins implement `kubeberth.api.views.PodIndex`, the same with the pod read-only."""

    def pod_added(self, pod: PodInfo, row: int) -> None: ...

    def pod_removed(self, pod: PodInfo, row: int) -> None: ...


class PodLabelCounts:
    """Placed pods counted per (namespace, label set) per node row.

    Label selectors are evaluated once per distinct (namespace, labels) group, and the matching
    groups' per-node counts are summed: the basis of topology spread and inter-pod affinity.
    """

    def __init__(self, table: NodeTable) -> None:
        self.table = table
        self.groups: list[tuple[str, dict[str, str]]] = []
        self._group_ids: dict[tuple[str, frozenset], int] = {}
        self.counts: list[np.ndarray] = []
        self.totals: list[int] = []

    def group_of(self, pod: PodInfo) -> int:
        key = (pod.namespace, frozenset(pod.labels.items()))
        gid = self._group_ids.get(key)
        if gid is None:
            gid = len(self.groups)
            self._group_ids[key] = gid
            self.groups.append((pod.namespace, pod.labels))
            self.counts.append(np.zeros(self.table.capacity, dtype=np.int32))
            self.totals.append(0)
        return gid

    def _array(self, gid: int) -> np.ndarray:
        arr = self.counts[gid]
        if arr.shape[0] < self.table.capacity:
            grown = np.zeros(self.table.capacity, dtype=np.int32)
            grown[: arr.shape[0]] = arr
            self.counts[gid] = arr = grown
        return arr

    def pod_added(self, pod: PodInfo, row: int) -> None:
        gid = self.group_of(pod)
        self._array(gid)[row] += 1
        self.totals[gid] += 1

    def pod_removed(self, pod: PodInfo, row: int) -> None:
        gid = self.group_of(pod)
        self._array(gid)[row] -= 1
        self.totals[gid] -= 1

    def matching_groups(self, predicate: Callable[[str, dict[str, str]], bool]) -> list[int]:
        return [
            gid for gid, (ns, labels) in enumerate(self.groups) if self.totals[gid] and predicate(ns, labels)
        ]

    def per_node(self, groups: Iterable[int]) -> np.ndarray:
        """Sum of counts of the given groups for every row of the table (length = capacity)."""
        total = np.zeros(self.table.capacity, dtype=np.int32)
        for gid in groups:
            total += self._array(gid)
        return total


class ClusterState:
    """Nodes (as a NodeTable), pods, and the other objects plugins read, keyed by kind."""

    def __init__(self) -> None:
        self.table = NodeTable()
        self.pods: dict[str, PodInfo] = {}
        self.placement: dict[str, int] = {}
        self.assumed: set[str] = set()
        self.pods_on: dict[int, dict[str, PodInfo]] = {}
        self.objects: dict[str, dict[str, dict[str, Any]]] = {}
        self.nominated: dict[str, dict[str, PodInfo]] = {}
        self._nominated_on: dict[str, str] = {}  # uid -> the node in `nominated` holding it
        # nominated_ghosts' last answer, valid while nominations, placements of nominated pods,
        # node rows and the asking priority are the same (the version moves with the first two).
        self._nominated_version = 0
        self._ghosts: tuple[tuple[int, int, int], dict[int, list[PodInfo]]] | None = None
        self.objects_version = 0  # bumped on every change to `objects` (PVs, PVCs, Services, ...)
        self._orphans: dict[str, dict[str, PodInfo]] = {}
        self.label_counts = PodLabelCounts(self.table)
        # ResourceSlices by node, devices allocated by ResourceClaims (DynamicResources reads it).
        self.devices = DeviceState()
        self._indexes: dict[Hashable, PodIndex] = {"pod_label_counts": self.label_counts}
        self._pod_groups = PodGroupMembers()

    # ---- indexes -----------------------------------------------------------------------
    def index(self, key: Hashable, factory: Callable[[ClusterView], IndexT]) -> IndexT:
        """Get or build an incremental pod index; built from current placements, then kept."""
        if key not in self._indexes:
            self.build_indexes({key: factory})
        return self._indexes[key]  # type: ignore[return-value]  # the factory registered under `key` built it

    def build_indexes(self, factories: Mapping[Hashable, Callable[[ClusterView], Any]]) -> None:
        """Build, in one pass over the placed pods, the indexes of `factories` not built yet."""
        built = {key: factory(self) for key, factory in factories.items() if key not in self._indexes}
        if not built:
            return
        adders = [index.pod_added for index in built.values()]
        for row, pods in self.pods_on.items():
            for pod in pods.values():
                for add in adders:
                    add(pod, row)
        self._indexes.update(built)

    # ---- nodes -------------------------------------------------------------------------
    def upsert_node(self, node: dict[str, Any]) -> int:
        row = self.table.upsert_node(node)
        name = self.table.names[row]
        assert name is not None
        self.pods_on.setdefault(row, {})
        for pod in self._orphans.pop(name, {}).values():
            self._place(pod, row)
        return row

    def remove_node(self, name: str) -> None:
        row = self.table.row_of.get(name)
        if row is None:
            return
        orphans = self._orphans.setdefault(name, {})
        for pod in list(self.pods_on.get(row, {}).values()):
            self._unplace(pod)
            orphans[pod.uid] = pod
        self.pods_on.pop(row, None)
        self.table.remove_node(name)

    def node_pods(self, row: int) -> dict[str, PodInfo]:
        return self.pods_on.get(row, {})

    # ---- pods --------------------------------------------------------------------------
    def _place(self, pod: PodInfo, row: int) -> None:
        self.placement[pod.uid] = row
        self.pods_on.setdefault(row, {})[pod.uid] = pod
        self.table.add_pod(row, pod)
        for index in self._indexes.values():
            index.pod_added(pod, row)

    def _unplace(self, pod: PodInfo) -> None:
        row = self.placement.pop(pod.uid, None)
        if row is None:
            return
        self.pods_on.get(row, {}).pop(pod.uid, None)
        self.table.remove_pod(row, pod)
        for index in self._indexes.values():
            index.pod_removed(pod, row)

    def upsert_pod(self, pod: PodInfo) -> None:
        """Apply a pod seen by an informer; a bound pod confirms an assumed one."""
        old = self.pods.get(pod.uid)
        kept = ""
        if old is not None:
            if not pod.nominated_node_name and not pod.node_name and not _informer_nomination(old):
                # kube-scheduler's UpdateNominatedPod: an update without a nominated node, after one
                # without it too, keeps the nomination made in memory (its status write may still be
                # on its way, behind this update of another field).
                kept = self._nominated_on.get(pod.uid, "")
            self._unplace(old)
            self._unnominate(pod.uid)
            self._orphans.get(old.node_name, {}).pop(pod.uid, None)
        self.assumed.discard(pod.uid)
        self.pods[pod.uid] = pod
        if pod.pod_group or old is not None:
            self._pod_groups.update(pod)
        if pod.node_name and not pod.is_terminal:
            row = self.table.row_of.get(pod.node_name)
            if row is None:
                self._orphans.setdefault(pod.node_name, {})[pod.uid] = pod
            else:
                self._place(pod, row)
        elif not pod.node_name and (pod.nominated_node_name or kept):
            if kept:
                pod.nominated_node_name = kept
            self._nominate_on(pod, pod.nominated_node_name)

    def remove_pod(self, uid: str) -> PodInfo | None:
        pod = self.pods.pop(uid, None)
        if pod is None:
            return None
        self._pod_groups.remove(uid)
        self._unplace(pod)
        self._unnominate(uid)
        if uid in self.assumed:
            self.assumed.discard(uid)
            self._drop_orphan(uid)
        else:
            self._orphans.get(pod.node_name, {}).pop(uid, None)
        return pod

    def assume(self, pod: PodInfo, node_name: str) -> None:
        """Account the pod on the node before binding finishes (kube-scheduler's AssumePod)."""
        row = self.table.row_of[node_name]
        self._unplace(pod)
        self._unnominate(pod.uid)
        self.pods[pod.uid] = pod
        self.assumed.add(pod.uid)
        self._place(pod, row)

    def forget(self, pod: PodInfo) -> None:
        """Undo an assume after a failed binding cycle."""
        if pod.uid in self.assumed:
            self.assumed.discard(pod.uid)
            self._unplace(pod)
            self._drop_orphan(pod.uid)

    def _drop_orphan(self, uid: str) -> None:
        """An assumed pod whose node was removed waits among the orphans under the node's name
        (an assumed pod has no nodeName of its own): it must not come back with the node."""
        for orphans in self._orphans.values():
            orphans.pop(uid, None)

    def nominate(self, pod: PodInfo, node_name: str | None) -> None:
        self._unnominate(pod.uid)
        if node_name:
            pod.nominated_node_name = node_name
            self._nominate_on(pod, node_name)

    def _nominate_on(self, pod: PodInfo, node_name: str) -> None:
        self._unnominate(pod.uid)
        self.nominated.setdefault(node_name, {})[pod.uid] = pod
        self._nominated_on[pod.uid] = node_name
        self._nominated_version += 1
        self._patch_ghosts(pod.uid, node_name, pod)

    def _unnominate(self, uid: str) -> None:
        node_name = self._nominated_on.pop(uid, None)
        if node_name is not None:
            on_node = self.nominated.get(node_name)
            if on_node is not None:
                on_node.pop(uid, None)
                if not on_node:  # `not cluster.nominated` must mean no nominations at all
                    del self.nominated[node_name]
            self._nominated_version += 1
            self._patch_ghosts(uid, node_name, None)

    def _patch_ghosts(self, uid: str, node_name: str, added: PodInfo | None) -> None:
        """Carry nominated_ghosts' last answer over one nomination added or removed (each
        preemption nominates a pod: recomputing it would cost O(nominations) per cycle)."""
        found = self._ghosts
        if found is None:
            return
        (version, table_version, priority), ghosts = found
        if version != self._nominated_version - 1 or table_version != self.table.version:
            return  # already stale: the next call recomputes it
        row = self.table.row_of.get(node_name)
        if row is not None:
            ghosts = dict(ghosts)  # callers may still hold the previous answer
            if added is None:
                rest = [o for o in ghosts.get(row, ()) if o.uid != uid]
                if rest:
                    ghosts[row] = rest
                else:
                    ghosts.pop(row, None)
            elif added.priority >= priority and uid not in self.placement:
                ghosts[row] = [*ghosts.get(row, ()), added]
        self._ghosts = ((self._nominated_version, table_version, priority), ghosts)

    def nominated_ghosts(self, pod: PodView) -> dict[int, list[PodInfo]]:
        """Unplaced pods nominated on each node row with priority >= `pod`'s (kube-scheduler's
        RunFilterPluginsWithNominatedPods accounts them when filtering `pod`). Read-only: the
        answer is shared with the next caller asking at the same priority while nothing changed."""
        key = (self._nominated_version, self.table.version, pod.priority)
        found = self._ghosts
        if found is None or found[0] != key:
            out: dict[int, list[PodInfo]] = {}
            row_of, placement, nominated, priority = self.table.row_of, self.placement, self.nominated, pod.priority
            for uid, node_name in self._nominated_on.items():
                other = nominated[node_name][uid]
                if other.priority >= priority and uid not in placement:
                    row = row_of.get(node_name)
                    if row is not None:
                        out.setdefault(row, []).append(other)
            found = self._ghosts = (key, out)
        ghosts = found[1]
        own = self._nominated_on.get(pod.uid)
        row = None if own is None else self.table.row_of.get(own)
        if row is not None and row in ghosts and any(o.uid == pod.uid for o in ghosts[row]):
            ghosts = dict(ghosts)  # the pod itself is no ghost of its own
            rest = [o for o in ghosts[row] if o.uid != pod.uid]
            if rest:
                ghosts[row] = rest
            else:
                del ghosts[row]
        return ghosts

    # ---- pod groups --------------------------------------------------------------------
    def pod_group_state(self, namespace: str, name: str) -> PodGroupState:
        """The members of PodGroup `namespace/name` by where they are: unscheduled, assumed
        (placed by a scheduling cycle, not yet bound) or assigned (bound). Costs O(members)."""
        return self._pod_groups.state(namespace, name, self.pods, self.assumed.__contains__)

    # ---- what-ifs ----------------------------------------------------------------------
    @contextlib.contextmanager
    def hypothetical(
        self, add: Iterable[tuple[PodView, int | str]] = (), remove: Iterable[PodView] = ()
    ) -> Iterator[Hypothetical]:
        """Place and remove pods for the duration of a `with` block, then restore the cache exactly.

        Everything plugins read follows: the NodeTable's requested columns, `node_pods`,
        `label_counts` and every `index(...)`. `add` takes (pod, node row or name). The yielded
        Hypothetical takes more changes inside the block. Scheduling thread only (plugins run there):

            with cluster.hypothetical(remove=victims) as what_if:
                fits = handle.run_filters(state, pod, cluster.table.view(rows))[0]
                what_if.add(victims[0], row)       # reprieve one
        """
        what_if = Hypothetical(self)
        try:
            for pod in remove:
                what_if.remove(pod)
            for pod, node in add:
                what_if.add(pod, node)
            yield what_if
        finally:
            what_if.restore()

    def placed_pods(self) -> Iterator[tuple[PodInfo, int]]:
        for uid, row in self.placement.items():
            yield self.pods[uid], row

    # ---- other objects -----------------------------------------------------------------
    def upsert_object(self, kind: str, obj: dict[str, Any]) -> list[SliceChange]:
        """Store an object; returns the ResourceSlices it changed as the allocator sees them (the
        slice itself, or those a DeviceTaintRule taints), for the ResourceSlice events they make."""
        self.objects_version += 1
        bucket = self.objects.setdefault(kind, {})
        key = object_key(obj)
        old = bucket.get(key)
        bucket[key] = obj
        if kind == "DeviceClass":
            self.devices.upsert_device_class(obj, old)
        elif kind == "ResourceSlice":
            return [self.devices.upsert_slice(obj)]
        elif kind == "DeviceTaintRule":
            return self.devices.upsert_taint_rule(obj)
        elif kind == "ResourceClaim":
            self.devices.upsert_claim(obj)
        return []

    def remove_object(self, kind: str, obj: dict[str, Any]) -> list[SliceChange]:
        """Forget an object; returns the ResourceSlices that changed, as upsert_object."""
        self.objects_version += 1
        self.objects.get(kind, {}).pop(object_key(obj), None)
        if kind == "DeviceClass":
            self.devices.remove_device_class(obj)
        elif kind == "ResourceSlice":
            return [self.devices.remove_slice(obj)]
        elif kind == "DeviceTaintRule":
            return self.devices.remove_taint_rule(obj)
        elif kind == "ResourceClaim":
            self.devices.remove_claim(obj)
        return []

    def get_object(self, kind: str, key: str) -> dict[str, Any] | None:
        return self.objects.get(kind, {}).get(key)

    def list_objects(self, kind: str) -> list[dict[str, Any]]:
        return list(self.objects.get(kind, {}).values())


class Hypothetical:
    """Changes made inside `ClusterState.hypothetical(...)`, undone when the block exits."""

    __slots__ = ("_cluster", "_added", "_removed", "_orders", "_requested")

    def __init__(self, cluster: ClusterState) -> None:
        self._cluster = cluster
        self._added: dict[str, PodInfo] = {}  # pods placed here that were not placed before
        self._removed: dict[str, tuple[PodInfo, int]] = {}  # pods placed before, with their row
        self._orders: dict[int, list[tuple[str, PodInfo]]] = {}  # node_pods order of rows losing a pod
        self._requested: list[tuple[np.ndarray, np.ndarray]] = []

    def add(self, pod: PodView, node: int | str) -> None:
        """Place `pod` on a node (row or name); a pod removed in this block may come back to its row."""
        pod = cast(PodInfo, pod)  # every pod a plugin holds is the cache's PodInfo (PodView: its read-only type)
        cluster = self._cluster
        row = node if isinstance(node, int) else cluster.table.row_of[node]
        if pod.uid in cluster.placement:
            raise ValueError(f"pod {pod.key} is already placed")
        original = self._removed.get(pod.uid)
        if original is None:
            self._added[pod.uid] = pod
        elif original[1] != row:
            raise ValueError(f"pod {pod.key} may only come back to the node it was removed from")
        cluster._place(pod, row)
        if pod.uid in cluster._nominated_on:
            cluster._nominated_version += 1  # a nominated pod placed is no ghost (nominated_ghosts)

    def remove(self, pod: PodView) -> None:
        """Take a placed pod off its node (no-op for a pod that is not placed)."""
        pod = cast(PodInfo, pod)  # as in add
        cluster = self._cluster
        row = cluster.placement.get(pod.uid)
        if row is None:
            return
        if pod.uid in self._added:
            del self._added[pod.uid]
        else:
            if row not in self._orders:
                self._orders[row] = list(cluster.pods_on.get(row, {}).items())
            self._removed.setdefault(pod.uid, (pod, row))
        cluster._unplace(pod)

    def add_requests(self, rows: np.ndarray, delta: np.ndarray) -> None:
        """Add `delta` (one row per node, columns as `table.resources`; negative frees) to the
        requested totals of `rows`, and nothing else: pods and indexes stay as they are.

        A cheap what-if for many nodes at once, exact for filters that read only requested
        totals (FilterScope.NODE_RESOURCES). Use `table.request_vector(pod)` to build `delta`.
        """
        table = self._cluster.table
        width = delta.shape[1]
        self._requested.append((rows, table.requested[rows, :width].copy()))
        table.requested[rows, :width] += delta

    def restore(self) -> None:
        cluster = self._cluster
        table = cluster.table
        for rows, saved in reversed(self._requested):
            table.requested[rows, : saved.shape[1]] = saved
        self._requested.clear()
        if self._added:
            cluster._nominated_version += 1
        for pod in self._added.values():
            cluster._unplace(pod)
        self._added.clear()
        for pod, row in self._removed.values():
            if pod.uid not in cluster.placement:
                cluster._place(pod, row)
        self._removed.clear()
        for row, order in self._orders.items():
            on_node = cluster.pods_on.get(row)
            if on_node is not None:
                on_node.clear()
                on_node.update(order)
        self._orders.clear()


def object_key(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    ns = meta.get("namespace")
    return f"{ns}/{meta.get('name')}" if ns else str(meta.get("name"))


def _informer_nomination(pod: PodInfo) -> str:
    """status.nominatedNodeName of the pod as the informer last delivered it (its raw object),
    whatever the scheduler has nominated it to in memory since."""
    status = pod.raw.get("status") if isinstance(pod.raw, dict) else None
    value = status.get("nominatedNodeName") if isinstance(status, dict) else None
    return value if isinstance(value, str) else ""
