"""Score-vector parity with kube-scheduler v1.37.2 on one real API server (test_score_parity_e2e.py).

kube-scheduler runs at -v=10, where prioritizeNodes (schedule_one.go) logs every plugin's weighted
score for every node ("Plugin scored node for pod") and each node's total ("Calculated node's final
score for pod"); `KubeSchedulerLog` reads those lines back per pod. kubeberth runs in-process over a
KubernetesBackend with its own informers (the shipped least-privilege RBAC), so it sees the cluster
through the same API server; `evaluate_pod` runs its filters and scores without writing anything.
The workload generator is seeded: the same seed gives the same cluster and pods.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# klog's text format quotes strings (with Go escapes) and prints integers bare.
_PLUGIN_SCORE = re.compile(r'"Plugin scored node for pod" pod="([^"]+)" plugin="([^"]+)" node="([^"]+)" score=(-?\d+)')
_FINAL_SCORE = re.compile(r'"Calculated node\'s final score for pod" pod="([^"]+)" node="([^"]+)" score=(-?\d+)')
_HINT = re.compile(r'"OpportunisticBatch provided node hint".*?pod="([^"]+)"')
_ATTEMPT = re.compile(r'"Attempting to schedule pod" pod="([^"]+)"')


@dataclass
class Scored:
    """What kube-scheduler logged for one pod's cycles (the last scored cycle wins)."""

    plugins: dict[str, dict[str, int]] = field(default_factory=dict)  # node -> plugin -> weighted score
    totals: dict[str, int] = field(default_factory=dict)  # node -> total
    hinted: bool = False  # a cycle took OpportunisticBatch's node hint (no scores logged)
    attempts: int = 0


class KubeSchedulerLog:
    """Reads kube-scheduler's log incrementally and keeps the score lines per pod."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.pods: dict[str, Scored] = {}
        self.order: list[str] = []  # pods in the order of their first scheduling attempt
        self._partial = ""

    def read(self) -> None:
        with self.path.open("r", errors="replace") as f:
            f.seek(self.offset)
            chunk = f.read()
            self.offset = f.tell()
        text = self._partial + chunk
        lines = text.split("\n")
        self._partial = lines.pop()  # an incomplete last line waits for the next read
        for line in lines:
            if "scored node for pod" in line or "final score for pod" in line:
                m = _PLUGIN_SCORE.search(line)
                if m:
                    pod, plugin, node, score = m.groups()
                    self.pods.setdefault(pod, Scored()).plugins.setdefault(node, {})[plugin] = int(score)
                    continue
                m = _FINAL_SCORE.search(line)
                if m:
                    pod, node, score = m.groups()
                    self.pods.setdefault(pod, Scored()).totals[node] = int(score)
            elif "Attempting to schedule pod" in line:
                m = _ATTEMPT.search(line)
                if m:
                    scored = self.pods.setdefault(m.group(1), Scored())
                    if not scored.attempts:
                        self.order.append(m.group(1))
                    scored.attempts += 1
            elif "OpportunisticBatch provided node hint" in line:
                m = _HINT.search(line)
                if m:
                    self.pods.setdefault(m.group(1), Scored()).hinted = True

    def get(self, pod_key: str) -> Scored:
        self.read()
        return self.pods.get(pod_key, Scored())


# ---- the generated cluster and workload -----------------------------------------------------

ZONES = ("zone-a", "zone-b", "zone-c")
IMAGES = {  # name -> size in bytes (ImageLocality scores by size and spread)
    "registry.example/ml-runtime:2.1": 900 * 1024 * 1024,
    "registry.example/web:1.9": 350 * 1024 * 1024,
    "registry.example/db:16": 600 * 1024 * 1024,
    "registry.example/batch:3": 120 * 1024 * 1024,
}
APPS = ("web", "api", "batch", "cache", "db", "misc")
SERVICE_APPS = ("web", "api")  # Services select these: PodTopologySpread's system defaults apply


def nodes(seed: int, count: int, prefix: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(Node, status) pairs: sizes, zones, disks, taints and images, all seeded."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        name = f"{prefix}-{i:02d}"
        cpu = rng.choice((4, 8, 8, 16, 16, 32))
        mem_gi = cpu * rng.choice((2, 4, 4, 8))
        labels = {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": ZONES[i % 3],
                  "disk": "ssd" if rng.random() < 0.4 else "hdd", "pool": "general"}
        taints = []
        if i % 12 == 5:
            labels["pool"] = "gpu"
            taints.append({"key": "dedicated", "value": "gpu", "effect": "NoSchedule"})
        elif rng.random() < 0.12:
            taints.append({"key": "maintenance", "value": "soon", "effect": "PreferNoSchedule"})
        spec: dict[str, Any] = {"taints": taints} if taints else {}
        images = [{"names": [img], "sizeBytes": size} for img, size in IMAGES.items() if rng.random() < 0.35]
        res = {"cpu": str(cpu), "memory": f"{mem_gi}Gi", "pods": str(rng.choice((110, 110, 30)))}
        node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}, "spec": spec}
        status = {"status": {"capacity": res, "allocatable": res, "images": images, "conditions": [
            {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "e2e"}]}}
        out.append((node, status))
    return out


def _container(rng: random.Random, image: str | None = None, port: int | None = None) -> dict[str, Any]:
    cpu = rng.choice(("50m", "100m", "250m", "500m", "750m", "1", "1500m", "2"))
    mem = rng.choice(("64Mi", "128Mi", "256Mi", "512Mi", "1Gi", "2Gi", "3Gi"))
    c: dict[str, Any] = {"name": "c", "image": image or "registry.k8s.io/pause:3.10",
                         "resources": {"requests": {"cpu": cpu, "memory": mem}}}
    if rng.random() < 0.1:
        del c["resources"]["requests"]["memory"]  # BalancedAllocation/LeastAllocated with defaults
    if port:
        c["ports"] = [{"containerPort": port, "hostPort": port, "protocol": "TCP"}]
    return c


def workload(seed: int, count: int, scheduler: str) -> list[dict[str, Any]]:
    """Pods mixing resources, node affinity (required, preferred), tolerations, spread (hard, soft,
    minDomains), inter-pod (anti-)affinity (required, preferred), images and host ports; a few
    cannot fit anywhere (their FailedScheduling messages are compared)."""
    rng = random.Random(seed)
    pods = []
    for i in range(count):
        app = rng.choice(APPS)
        labels = {"app": app}
        spec: dict[str, Any] = {"schedulerName": scheduler, "terminationGracePeriodSeconds": 0}
        affinity: dict[str, Any] = {}
        image = rng.choice(list(IMAGES)) if rng.random() < 0.3 else None
        port = rng.choice((8080, 9090)) if rng.random() < 0.08 else None
        features = rng.sample(range(12), k=rng.choice((1, 1, 2, 2, 3)))
        for f in features:
            if f == 0:
                affinity["nodeAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In",
                                           "values": rng.sample(ZONES, 2)}]}]}}
            elif f == 1:
                spec["nodeSelector"] = {"disk": "ssd"}
            elif f == 2:
                affinity.setdefault("nodeAffinity", {})["preferredDuringSchedulingIgnoredDuringExecution"] = [
                    {"weight": rng.randint(1, 100), "preference": {"matchExpressions": [
                        {"key": "disk", "operator": "In", "values": ["ssd"]}]}},
                    {"weight": rng.randint(1, 100), "preference": {"matchExpressions": [
                        {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [rng.choice(ZONES)]}]}}]
            elif f == 3:
                spec["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
                                       {"key": "maintenance", "operator": "Exists"}]
            elif f == 4:
                c = {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
                     "labelSelector": {"matchLabels": {"app": app}}}
                if rng.random() < 0.4:
                    c["minDomains"] = rng.choice((3, 4))
                spec.setdefault("topologySpreadConstraints", []).append(c)
            elif f == 5:
                spec.setdefault("topologySpreadConstraints", []).append(
                    {"maxSkew": rng.choice((1, 2)), "topologyKey": "kubernetes.io/hostname",
                     "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": {"matchLabels": {"app": app}}})
            elif f == 6:
                affinity.setdefault("podAffinity", {})["requiredDuringSchedulingIgnoredDuringExecution"] = [
                    {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "topology.kubernetes.io/zone"}]
            elif f == 7:
                affinity.setdefault("podAntiAffinity", {})["requiredDuringSchedulingIgnoredDuringExecution"] = [
                    {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}]
            elif f == 8:
                affinity.setdefault("podAffinity", {})["preferredDuringSchedulingIgnoredDuringExecution"] = [
                    {"weight": rng.randint(1, 100), "podAffinityTerm": {
                        "labelSelector": {"matchLabels": {"app": rng.choice(APPS)}}, "topologyKey": "kubernetes.io/hostname"}}]
            elif f == 9:
                affinity.setdefault("podAntiAffinity", {})["preferredDuringSchedulingIgnoredDuringExecution"] = [
                    {"weight": rng.randint(1, 100), "podAffinityTerm": {
                        "labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "topology.kubernetes.io/zone"}}]
            elif f == 10:
                image = rng.choice(list(IMAGES))
            elif f == 11 and rng.random() < 0.35:
                spec["nodeSelector"] = {"disk": "nvme"}  # no such node: FailedScheduling
        if affinity:
            spec["affinity"] = affinity
        spec["containers"] = [_container(rng, image, port)]
        if i % 41 == 40:
            spec["containers"][0]["resources"]["requests"]["cpu"] = "64"  # fits nowhere
        pods.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"w-{i:03d}", "labels": labels},
                     "spec": spec})
    return pods
