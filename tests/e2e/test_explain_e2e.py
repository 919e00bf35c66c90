"""`kubeberth explain` against `kubeberth run` on a real API server: pods without a record.

The scheduler looks such a pod up through the API server (its ClusterRole's `get` on pods) and
says why it has no record: another scheduler's pod (named), bound by someone else, not in the
cluster. An unschedulable pod keeps its record after more pods than KUBEBERTH_DECISION_RECORDS
have bound since.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from cluster import wait_for
from kubeberth_harness import Api, suffix

KEPT = 2  # KUBEBERTH_DECISION_RECORDS: finished pods kept
FINISHED = 6


def _explain(port: int, pod: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kubeberth", "explain", pod, "--server", f"http://127.0.0.1:{port}", *extra],
        capture_output=True, text=True, timeout=60,
    )


def test_explain_pods_without_a_record(api: Api, namespace: str, nodes: list[str], start_kubeberth: Any) -> None:
    node = f"explain-{suffix()}"
    api.create_node(node, cpu="2", memory="4Gi")
    nodes.append(node)
    kb = start_kubeberth(env={"KUBEBERTH_DECISION_RECORDS": str(KEPT)})
    ns = namespace
    api.create_pod(ns, "huge", cpu="64")  # never fits: stays Pending with its decision
    wait_for(lambda: _explain(kb.port, f"{ns}/huge").returncode == 0, 30, "huge's first attempt")
    for i in range(FINISHED):
        api.create_pod(ns, f"small-{i}", cpu="10m")
    wait_for(lambda: len(api.bound(ns)) == FINISHED, 60, "the small pods to bind")
    api.create_pod(ns, "foreign", scheduler="default-scheduler")  # no kube-scheduler runs here
    api.create_pod(ns, "pinned", scheduler="someone-else", node_name=node)

    out = _explain(kb.port, f"{ns}/huge", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["result"] == "Unschedulable"
    out = _explain(kb.port, f"{ns}/foreign")
    assert (out.returncode, out.stderr) == (0, ""), out.stderr
    assert out.stdout.startswith(f"pod {ns}/foreign is not ours: its spec.schedulerName is default-scheduler")
    assert out.stdout.endswith("it is Pending for it\n")
    answer = json.loads(_explain(kb.port, f"{ns}/pinned", "--json").stdout)
    assert answer["state"] == "other-scheduler" and answer["scheduler_name"] == "someone-else"
    assert answer["node"] == node
    out = _explain(kb.port, f"{ns}/small-0")  # bound by us, its record past the KEPT finished pods
    assert out.stdout.startswith(f"pod {ns}/small-0 is bound to {node} with no decision recorded here")
    out = _explain(kb.port, f"{ns}/ghost")
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == f"error: explain: pod {ns}/ghost does not exist in the cluster\n"
