"""NodePorts: rejects nodes where a requested hostPort (hostIP, protocol, port) is already taken.

Used host ports live in an incremental index kept by the cluster cache (`cluster.index`), keyed
by (protocol, port) then host IP, counting placed pods per node row; a query touches only the
pod's own ports. A pod without host ports is skipped at pre_filter and costs nothing.
Semantics follow kube-scheduler's HostPortInfo: 0.0.0.0 conflicts with every IP of the same
(protocol, port), a specific IP with itself and 0.0.0.0. Ports come from containers and
restartable (sidecar) init containers only, like schedutil.GetHostPorts.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
from kubeberth import (
    ClusterView,
    FilterResult,
    MemoKey,
    NodeView,
    PodView,
    PreFilterState,
    Status,
    hookimpl,
    is_pod,
)
from kubeberth.api.signing import HOST_PORTS_SIGNER, SignFragment, host_ports_signer

ERR_REASON = "node(s) didn't have free ports for the requested pod ports"
DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"
_MEMO_KEY: MemoKey[tuple[HostPortKey, ...]] = MemoKey("NodePorts.ports")
_INDEX_KEY = "NodePorts.used_host_ports"
_STATE_KEY = "PreFilterNodePorts"

HostPortKey = tuple[str, str, int]  # (ip, protocol, port)


def pod_host_ports(pod: PodView) -> tuple[HostPortKey, ...]:
    """The pod's host ports as kube-scheduler counts them (sanitised: '' -> 0.0.0.0 / TCP); memoised."""
    found = _MEMO_KEY.get(pod)
    if found is not None:
        return found
    ports: list[HostPortKey] = []
    if pod.host_ports:  # PodView's list is a superset; re-read the spec for the exact containers
        spec = pod.raw.get("spec") or {}
        containers = [c for c in spec.get("initContainers") or () if c.get("restartPolicy") == "Always"]
        containers += list(spec.get("containers") or ())
        for container in containers:
            for port in container.get("ports") or ():
                host_port = int(port.get("hostPort") or 0)
                if host_port <= 0:
                    continue
                ports.append((port.get("hostIP") or DEFAULT_BIND_ALL_HOST_IP, port.get("protocol") or "TCP", host_port))
    result = tuple(ports)
    _MEMO_KEY.set(pod, result)
    return result


class UsedHostPorts:
    """PodIndex: {(protocol, port): {ip: Counter(row -> pods using it)}} over placed pods."""

    def __init__(self, cluster: ClusterView) -> None:
        self.by_port: dict[tuple[str, int], dict[str, Counter[int]]] = {}

    def pod_added(self, pod: PodView, row: int) -> None:
        for ip, protocol, port in pod_host_ports(pod):
            self.by_port.setdefault((protocol, port), {}).setdefault(ip, Counter())[row] += 1

    def pod_removed(self, pod: PodView, row: int) -> None:
        for ip, protocol, port in pod_host_ports(pod):
            ips = self.by_port.get((protocol, port))
            if ips is None or ip not in ips:
                continue
            rows = ips[ip]
            rows[row] -= 1
            if rows[row] <= 0:
                del rows[row]
            if not rows:
                del ips[ip]
            if not ips:
                del self.by_port[(protocol, port)]

    def conflicting_rows(self, wanted: tuple[HostPortKey, ...]) -> set[int]:
        """Rows where any wanted (ip, protocol, port) conflicts with a used one."""
        out: set[int] = set()
        for ip, protocol, port in wanted:
            ips = self.by_port.get((protocol, port))
            if not ips:
                continue
            if ip == DEFAULT_BIND_ALL_HOST_IP:
                for rows in ips.values():
                    out.update(rows)
            else:
                for key in (DEFAULT_BIND_ALL_HOST_IP, ip):
                    used = ips.get(key)
                    if used:
                        out.update(used)
        return out


def _conflict(wanted: tuple[HostPortKey, ...], used: tuple[HostPortKey, ...]) -> bool:
    """Does any wanted port conflict with a used one (HostPortInfo.CheckConflict: 0.0.0.0 takes every IP)?"""
    for ip, protocol, port in wanted:
        for used_ip, used_protocol, used_port in used:
            if (protocol, port) == (used_protocol, used_port) and DEFAULT_BIND_ALL_HOST_IP in (ip, used_ip):
                return True
            if (ip, protocol, port) == (used_ip, used_protocol, used_port):
                return True
    return False


class NodePorts:
    name = "NodePorts"
    pre_filter_state = PreFilterState.NO_POD_DATA
    # EventsToRegister: a placed pod deleted (Pod/Delete, with its hint), a node added (no hint: the
    # pod is retried with backoff, "the same as Queue"). Pod updates are ignored: ports are immutable.
    queueing_hints = {"Pod/Delete": "is_schedulable_after_assigned_pod_deleted"}
    requeue_on = frozenset({"Pod/Delete", "Node/Add"})
    # The host-port index is not declared (pod_indexes): built for the first pod that asks for a
    # host port, as most clusters' pods never do (a third of a second at 650,000 placed pods).

    def is_schedulable_after_assigned_pod_deleted(self, pod: PodView, old: Any, new: Any) -> bool:
        """isSchedulableAfterAssignedPodDeleted: the deleted pod was placed (or nominated) and freed
        a host port the pod wants."""
        if not is_pod(old):
            raise TypeError(f"unexpected object in is_schedulable_after_assigned_pod_deleted: {type(old).__name__}")
        nominated = ((old.raw.get("status") or {}).get("nominatedNodeName")) or ""
        if not old.node_name and not nominated:
            return False  # an unscheduled pod frees nothing
        used = pod_host_ports(old)
        if not used:
            return False
        return _conflict(pod_host_ports(pod), used)

    @hookimpl
    def sign_pod(self, pod: PodView) -> list[SignFragment]:
        """kube-scheduler's NodePorts.SignPod: the pod's host ports."""
        return [SignFragment(HOST_PORTS_SIGNER, host_ports_signer(pod))]

    @hookimpl
    def pre_filter(self, state: dict[str, Any], pod: PodView, cluster: ClusterView) -> Status | None:
        ports = pod_host_ports(pod)
        if not ports:
            return Status.skip()
        cluster.index(_INDEX_KEY, UsedHostPorts)  # build once from current placements, then kept
        state[_STATE_KEY] = ports
        return None

    @hookimpl
    def filter(self, state: dict[str, Any], pod: PodView, nodes: NodeView, cluster: ClusterView) -> FilterResult | None:
        ports = state.get(_STATE_KEY)
        if ports is None:
            ports = pod_host_ports(pod)
        if not ports:
            return None
        index = cluster.index(_INDEX_KEY, UsedHostPorts)
        assert isinstance(index, UsedHostPorts)
        taken = index.conflicting_rows(ports)
        if not taken:
            return None
        conflict = np.zeros(nodes.table.capacity, dtype=bool)
        conflict[np.fromiter(taken, dtype=np.int64, count=len(taken))] = True
        return FilterResult.reject_where(conflict[nodes.rows], ERR_REASON)
