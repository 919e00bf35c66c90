"""kube-scheduler v1.37.2 test/integration/scheduler/batch/batch_test.go (TestBatchScenarios) against kubeberth on a
real API server: the scenarios' nodes and pods as upstream builds them (newNode, newPod), created one pod at a time,
each scheduled (or not) before the next; the same nodes, and the same pods batched.

Upstream runs a fresh API server and scheduler per scenario, its default configuration with PodTopologySpread's
default constraints emptied (ListDefaulting) in every profile: default-scheduler, mysched, and nosign / emptysign
with a Filter plugin that signs no pods (no SignPod) or refuses to (an Unschedulable SignPod). Here one `kubeberth
run` serves every scenario, those four profiles under names of its own, the two test plugins drop-ins; each scenario
has its own namespace and node names. "Batched" is upstream's TotalBatchedPods of default-scheduler growing with the
pod; here the pod's decision record (GET /debug/decisions/<ns>/<pod>) says the batch hint was used
(batch.result hint_used), and the pod is of the default-scheduler profile.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from cluster import LocalControlPlane, wait_for
from kubeberth_harness import PROFILE, Api, Kubeberth
from upstream_integration import PAUSE, Case, case_of, named_cases, serving

PROFILES = {"": f"{PROFILE}-batch", "mysched": f"{PROFILE}-mysched", "nosign": f"{PROFILE}-nosign",
            "emptysign": f"{PROFILE}-emptysign"}
PLUGINS = '''"""batch_test.go's testPluginNoSign (a Filter, no SignPod) and testPluginEmptySign (SignPod: Unschedulable)."""
from kubeberth import Status, hookimpl


class nosign:  # noqa: N801 - upstream's plugin name
    name = "nosign"

    @hookimpl
    def filter_node(self, pod, node):
        return None


class emptysign:  # noqa: N801 - upstream's registry name
    name = "emptysign"

    @hookimpl
    def filter_node(self, pod, node):
        return None

    @hookimpl
    def sign_pod(self, pod):
        return Status.unschedulable()
'''


def _node(name: str, max_pods: int, labels: dict[str, str] | None = None) -> dict[str, Any]:
    """newNode: cpu 100, memory 4Gi, pods maxPods as capacity and allocatable."""
    res = {"cpu": "100", "memory": str(4 * 1024 * 1024 * 1024), "pods": str(max_pods)}
    return {"metadata": {"name": name, "labels": labels or {}}, "status": {"capacity": res, "allocatable": res}}


def _p(name: str, node: str, affinity: list[str] | None = None, batched: bool = False, scheduler: str = "",
       selector: dict[str, str] | None = None, unschedulable: bool = False) -> dict[str, Any]:
    return {"name": name, "expectedNode": node, "nodeAffinity": affinity or [], "expectBatched": batched,
            "scheduler": scheduler, "nodeSelector": selector or {}, "expectUnschedulable": unschedulable}


def _n(prefix: str, count: int, max_pods: int) -> list[dict[str, Any]]:
    """Nodes <prefix>n<count> .. n1, in upstream's (descending) order."""
    return [_node(f"{prefix}-batchn{i}", max_pods) for i in range(count, 0, -1)]


def _aff(prefix: str, *nums: int) -> list[str]:
    return [f"{prefix}-batchn{i}" for i in nums]


# TestBatchScenarios' table: name -> (pods, nodes)
SCENARIOS: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {
    "one pod one node": ([_p("1ppn-batchp1", "1ppn-batchn1")], [_node("1ppn-batchn1", 1)]),
    "distinct pods on distinct nodes": (
        [_p(f"dpdn-batchp{i}", f"dpdn-batchn{i}", selector={"forpod": str(i)}) for i in (1, 2, 3)],
        [_node(f"dpdn-batchn{i}", 10, {"forpod": str(i)}) for i in (3, 2, 1)]),
    "three pod batch": (
        [_p("tpb-batchp1", "tpb-batchn1", _aff("tpb", 1, 2, 3)),
         _p("tpb-batchp2", "tpb-batchn2", _aff("tpb", 1, 2, 3), batched=True),
         _p("tpb-batchp3", "tpb-batchn3", _aff("tpb", 1, 2, 3), batched=True)], _n("tpb", 3, 1)),
    "two consecutive batches": (
        [_p("tcb-batchp1", "tcb-batchn1", _aff("tcb", 1, 2)),
         _p("tcb-batchp2", "tcb-batchn2", _aff("tcb", 1, 2), batched=True),
         _p("tcb-batchp3", "tcb-batchn4", _aff("tcb", 4, 3)),
         _p("tcb-batchp4", "tcb-batchn3", _aff("tcb", 4, 3), batched=True)], _n("tcb", 4, 1)),
    "rescoring enables batching for multiple pods per node": (
        [_p("mppn-batchp1", "mppn-batchn1", _aff("mppn", 1, 2)),
         _p("mppn-batchp2", "mppn-batchn1", _aff("mppn", 1, 2), batched=True),
         _p("mppn-batchp3", "mppn-batchn4", _aff("mppn", 4, 3)),
         _p("mppn-batchp4", "mppn-batchn4", _aff("mppn", 4, 3), batched=True)], _n("mppn", 4, 2)),
    "rescoring falls back to next cached node when last chosen node is not feasible": (
        [_p("nfmb-batchp1", "nfmb-batchn1", _aff("nfmb", 1, 2)),
         _p("nfmb-batchp2", "nfmb-batchn1", _aff("nfmb", 1, 2), batched=True),
         _p("nfmb-batchp3", "nfmb-batchn2", _aff("nfmb", 1, 2), batched=True)],
        [_node("nfmb-batchn1", 2), _node("nfmb-batchn2", 2)]),
    "no batching between schedulers": (
        [_p("bts--batchp1", "bts--batchn1", _aff("bts-", 1, 2, 3)),
         _p("bts--batchp2", "bts--batchn2", _aff("bts-", 1, 2, 3), scheduler="mysched")], _n("bts-", 3, 1)),
    "no batching missing sign": (
        [_p("nsg-batchp1", "nsg-batchn1", _aff("nsg", 1, 2, 3), scheduler="nosign"),
         _p("nsg-batchp2", "nsg-batchn2", _aff("nsg", 1, 2, 3), scheduler="nosign")], _n("nsg", 3, 1)),
    "no batching empty sign": (
        [_p("esg-batchp1", "esg-batchn1", _aff("esg", 1, 2, 3), scheduler="emptysign"),
         _p("esg-batchp2", "esg-batchn2", _aff("esg", 1, 2, 3), scheduler="emptysign")], _n("esg", 3, 1)),
    "unschedulable pod": (
        [_p("usp-batchp1", "usp-batchn1"), _p("usp-batchp2", "", unschedulable=True)], [_node("usp-batchn1", 1)]),
}
UPSTREAM_CASES = (
    "TestBatchScenarios/one pod one node",
    "TestBatchScenarios/distinct pods on distinct nodes",
    "TestBatchScenarios/three pod batch",
    "TestBatchScenarios/two consecutive batches",
    "TestBatchScenarios/rescoring enables batching for multiple pods per node",
    "TestBatchScenarios/rescoring falls back to next cached node when last chosen node is not feasible",
    "TestBatchScenarios/no batching between schedulers",
    "TestBatchScenarios/no batching missing sign",
    "TestBatchScenarios/no batching empty sign",
    "TestBatchScenarios/unschedulable pod",
)
# Strict xfails: scenarios whose outcome differs from upstream's, with the reason.
DIFFERENCES: dict[str, str] = {}


@pytest.fixture(scope="module")
def kubeberth_batch(control_plane: LocalControlPlane, sa_kubeconfig: str,
                    tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kubeberth]:
    """newDefaultComponentConfig (PodTopologySpread without default constraints) in four profiles."""
    tmp = tmp_path_factory.mktemp("batch")
    spread = {"name": "PodTopologySpread", "args": {"defaultConstraints": [], "defaultingType": "List"}}
    profiles = []
    for upstream, name in PROFILES.items():
        profile: dict[str, Any] = {"schedulerName": name, "pluginConfig": [spread]}
        if upstream in ("nosign", "emptysign"):
            profile["plugins"] = {"filter": {"enabled": [{"name": upstream}]}}
        profiles.append(profile)
    config = tmp / "config.yaml"
    config.write_text(yaml.safe_dump({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                                      "leaderElection": {"leaderElect": False}, "profiles": profiles}))
    with serving(control_plane, sa_kubeconfig, config, "batch", {"batch_test.py": PLUGINS}) as kb:
        yield kb


@pytest.fixture
def case(kubeberth_batch: Kubeberth, api: Api) -> Iterator[Case]:
    with case_of(api, kubeberth_batch) as c:
        yield c


def _pod(d: dict[str, Any]) -> dict[str, Any]:
    """newPod: a pause pod requesting cpu 10, memory 4Mi; a preferred node affinity per listed node (matchFields
    metadata.name, weights len..1); the node selector."""
    preferred = [{"weight": len(d["nodeAffinity"]) - i, "preference": {"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": [node]}]}} for i, node in enumerate(d["nodeAffinity"])]
    spec: dict[str, Any] = {"containers": [{"name": d["name"], "image": PAUSE, "resources": {
        "requests": {"cpu": "10", "memory": str(4 * 1024 * 1024)}}}]}
    if preferred:
        spec["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": preferred}}
    if d["nodeSelector"]:
        spec["nodeSelector"] = d["nodeSelector"]
    return {"metadata": {"name": d["name"]}, "spec": spec}


def _batched(kb: Kubeberth, ns: str, name: str) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{kb.port}/debug/decisions/{ns}/{name}", timeout=10) as resp:
            record = json.loads(resp.read())
    except urllib.error.HTTPError:
        return False
    return (record.get("batch") or {}).get("result") == "hint_used"


def _params() -> list[Any]:
    return named_cases("TestBatchScenarios", list(SCENARIOS), DIFFERENCES)


@pytest.mark.parametrize("name", _params())
def test_TestBatchScenarios(case: Case, name: str) -> None:  # noqa: N802 - the upstream name
    """runScenario: the nodes, then each pod in turn (scheduled within 5 s, or, expected unschedulable, not); each
    on its expected node, batched or not as expected."""
    assert f"TestBatchScenarios/{name}" in UPSTREAM_CASES
    pods, nodes = SCENARIOS[name]
    case.rename_nodes([n["metadata"]["name"] for n in nodes])
    base = _node_adds(case.kb)
    for node in nodes:
        case.node(node)
    wait_for(lambda: _node_adds(case.kb) - base >= len(nodes), 30, "nodes in kubeberth's cache", interval=0.02)
    ns = case.ns("batch")
    got, want = [], []
    for d in pods:
        case.pod(_pod(d), ns, scheduler=PROFILES[d["scheduler"]])
        if d["expectUnschedulable"]:
            case.wait_unschedulable(ns, d["name"])
            break
        node = case.wait_scheduled(ns, d["name"])
        batched = d["scheduler"] == "" and _batched(case.kb, ns, d["name"])
        got.append((d["name"], node, batched))
        want.append((d["name"], case.node_name(d["expectedNode"]), d["expectBatched"]))
    assert got == want
    base = _node_deletes(case.kb)
    case.cleanup()
    wait_for(lambda: _node_deletes(case.kb) - base >= len(nodes), 30, "nodes gone from kubeberth's cache",
             interval=0.02)
    case.node_names.clear()
    case.namespaces.clear()


def _handled(kb: Kubeberth, event: str) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{kb.port}/metrics", timeout=10) as resp:
        text = resp.read().decode()
    prefix = f'scheduler_event_handling_duration_seconds_count{{event="{event}"}} '
    return sum(int(float(line[len(prefix):])) for line in text.splitlines() if line.startswith(prefix))


def _node_adds(kb: Kubeberth) -> int:
    return _handled(kb, "NodeAdd")


def _node_deletes(kb: Kubeberth) -> int:
    return _handled(kb, "NodeDelete")
