#!/usr/bin/env python3
"""Per-node cost of DynamicResources' structured allocator: one claim of 4 devices allocated on
each of 200 nodes with 16 devices each, for the stable variant (DRAPartitionableDevices and
DRAConsumableCapacity off), the incubating one on plain devices (both gates on, the v1.37
default), and the incubating one on partitioned GPUs (8 counter sets per node, a whole GPU and a
half per set). Prints the median of N rounds in microseconds per node.

    python scripts/dra_allocator_bench.py [rounds]
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

from kubeberth.api.dra import SelectorCache
from kubeberth.builtin_plugins.dynamic_resources.allocator import Allocator, AllocatorFeatures, DeviceContexts

DRIVER = "gpu.example.com"
NODES = 200
CLASS = {"metadata": {"name": "gpu"}, "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}}
CLAIM = {"metadata": {"name": "c", "namespace": "d"}, "spec": {"devices": {"requests": [
    {"name": "r", "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 4}}]}}}


def _slices(partitioned: bool) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for n in range(NODES):
        node = f"n{n}"
        if not partitioned:
            pool = {"name": node, "generation": 1, "resourceSliceCount": 1}
            out.append({"metadata": {"name": f"{node}-d"}, "spec": {"driver": DRIVER, "nodeName": node, "pool": pool,
                                                                   "devices": [{"name": f"g{i}"} for i in range(16)]}})
            continue
        pool = {"name": node, "generation": 1, "resourceSliceCount": 2}
        out.append({"metadata": {"name": f"{node}-c"}, "spec": {"driver": DRIVER, "nodeName": node, "pool": pool, "sharedCounters": [
            {"name": f"g{i}", "counters": {"mem": {"value": "40Gi"}}} for i in range(8)]}})
        devices = []
        for i in range(8):
            devices.append({"name": f"g{i}", "consumesCounters": [{"counterSet": f"g{i}", "counters": {"mem": {"value": "40Gi"}}}]})
            devices.append({"name": f"g{i}-a", "consumesCounters": [{"counterSet": f"g{i}", "counters": {"mem": {"value": "20Gi"}}}]})
        out.append({"metadata": {"name": f"{node}-d"}, "spec": {"driver": DRIVER, "nodeName": node, "pool": pool, "devices": devices}})
    return out


def _round(features: AllocatorFeatures, slices: list[dict[str, Any]]) -> float:
    by_node: dict[str, list[dict[str, Any]]] = {}
    for s in slices:
        by_node.setdefault(s["spec"]["nodeName"], []).append(s)
    selectors = SelectorCache()
    allocator = Allocator([CLAIM], set(), {"gpu": CLASS}.get, selectors, DeviceContexts(selectors), lambda: slices, features)
    start = time.perf_counter()
    for node, own in by_node.items():
        assert allocator.allocate(node, {}, own) is not None
    return (time.perf_counter() - start) / len(by_node) * 1e6


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    on = AllocatorFeatures(partitionable_devices=True, consumable_capacity=True)
    modes = {"stable, plain devices": (AllocatorFeatures(), _slices(False)),
             "incubating, plain devices": (on, _slices(False)),
             "incubating, partitioned GPUs": (on, _slices(True))}
    times: dict[str, list[float]] = {name: [] for name in modes}
    for _ in range(rounds):  # interleaved, so load changes hit every mode alike
        for name, (features, slices) in modes.items():
            times[name].append(_round(features, slices))
    for name, values in times.items():
        print(f"{name}: {statistics.median(values):.0f} us per node")


if __name__ == "__main__":
    main()
