"""kubeberth's score vectors, choices, FailedScheduling messages and preemption outcomes against
kube-scheduler v1.37.2's, on one real API server, the same cluster state and the same pods.

kube-scheduler runs at -v=10 and its log gives every plugin's weighted score and every node's
total for each pod (score_parity.KubeSchedulerLog). kubeberth runs in-process over a
KubernetesBackend (its own informers, the shipped RBAC) and evaluates each pod with
`kubeberth.testing.evaluate_pod` (PreFilter..NormalizeScore, and PostFilter as a dry run) right
before the pod is created for kube-scheduler: both see exactly the pods kube-scheduler has placed
so far. Per pod: the feasible node set, every plugin's weighted score on every node and the totals
must be equal; kube-scheduler's node must be kubeberth's best, or among kubeberth's tied best (a
tie, reported); an unschedulable pod's FailedScheduling message must be equal, word for word.

The same-signature stream (identical pods created back to back, which kube-scheduler's
opportunistic batching answers from its previous cycle) is replayed on an embedded copy of the
state before it, in kube-scheduler's order: each of kube-scheduler's decisions must be among
kubeberth's best nodes on the same state (the pod is then placed where kube-scheduler put it).
kubeberth's own loop (with its batching) also runs the stream; its choices among tied nodes follow
its own order, so they are reported only.

docs/parity.md describes what is compared and how.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from typing import Any

import pytest
import yaml
from cluster import LocalControlPlane, wait_for
from kubeberth_harness import Api, suffix
from score_parity import ZONES, KubeSchedulerLog, nodes, workload

SCHED = "default-scheduler"
# kube-scheduler cannot batch pods that PodTopologySpread constrains, and the system defaults
# constrain every pod: the stream runs on a second profile without default constraints.
BATCH = "parity-batch"
BATCH_PROFILE = {"schedulerName": BATCH, "pluginConfig": [
    {"name": "PodTopologySpread", "args": {"defaultingType": "List", "defaultConstraints": []}}]}
SEED = int(os.environ.get("KUBEBERTH_PARITY_SEED", "20261123"))
WORKLOAD_PODS = int(os.environ.get("KUBEBERTH_PARITY_PODS", "300"))
STREAM_PODS = int(os.environ.get("KUBEBERTH_PARITY_STREAM", "200"))


@pytest.fixture(scope="module")
def verbose_kube_scheduler(control_plane: LocalControlPlane, tmp_path_factory: Any) -> Any:
    """kube-scheduler (default profile, default-scheduler) logging every score: --v=10."""
    config = tmp_path_factory.mktemp("ks") / "config.yaml"
    config.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": SCHED}, {**BATCH_PROFILE, "pluginConfig": [
            {"name": "PodTopologySpread", "args": {"apiVersion": "kubescheduler.config.k8s.io/v1",
                                                  "kind": "PodTopologySpreadArgs", "defaultingType": "List"}}]}]}))
    proc = control_plane.start_kube_scheduler(config, extra_args=["--v=10"], name=f"kube-scheduler-v10-{suffix()}")
    try:
        yield proc
    finally:
        proc.stop()
        if proc in control_plane.schedulers:
            control_plane.schedulers.remove(proc)


@pytest.fixture(scope="module")
def ks_log(verbose_kube_scheduler: Any) -> KubeSchedulerLog:
    return KubeSchedulerLog(verbose_kube_scheduler.log_path)


@pytest.fixture(scope="module")
def kubeberth(sa_kubeconfig: str) -> Any:
    """kubeberth's default profile as `default-scheduler`, in-process over the Kubernetes backend.

    No scheduling loop runs: the test drains its informer events and evaluates pods; nothing is
    written to the API server."""
    from kubeberth.backends.kubernetes import KubernetesBackend, load_api_client
    from kubeberth.runtime.config import parse_configuration
    from kubeberth.runtime.generation import build_generation
    from kubeberth.scheduling.scheduler import Scheduler

    generation = build_generation(config=parse_configuration({"profiles": [{"schedulerName": SCHED}]}))
    backend = KubernetesBackend(load_api_client(sa_kubeconfig), [SCHED])
    scheduler = Scheduler(generation, backend, seed=0)
    scheduler.start_backend()
    assert backend.wait_ready(60), "kubeberth's informers did not sync"
    scheduler.drain_events()
    try:
        yield scheduler
    finally:
        backend.stop()
        scheduler.shutdown(wait=False)


def create_nodes(api: Api, created: list[str], seed: int, count: int, prefix: str) -> list[str]:
    names = []
    for node, status in nodes(seed, count, prefix):
        name = node["metadata"]["name"]
        api.call("POST", "/api/v1/nodes", node)
        created.append(name)
        names.append(name)
        api._patch(f"/api/v1/nodes/{name}/status", status)
    return names


def create_services(api: Api, ns: str) -> None:
    for app in ("web", "api"):
        api.call("POST", f"/api/v1/namespaces/{ns}/services", {
            "apiVersion": "v1", "kind": "Service", "metadata": {"name": app},
            "spec": {"selector": {"app": app}, "ports": [{"port": 80}]}})


def synced(scheduler: Any, api: Api, ns: str) -> bool:
    """kubeberth's cache holds exactly the namespace's bound pods, on their nodes."""
    scheduler.drain_events()
    cluster = scheduler.cluster
    have = {p.name: cluster.table.names[row] for p, row in cluster.placed_pods() if p.namespace == ns}
    return have == api.bound(ns)


def defaulted(api: Api, ns: str, body: dict[str, Any]) -> dict[str, Any]:
    """The pod as the API server will store it (admission and defaults), without creating it."""
    obj = api.call("POST", f"/api/v1/namespaces/{ns}/pods?dryRun=All", body)
    obj["metadata"].setdefault("uid", f"dry-{obj['metadata']['name']}")
    obj["metadata"]["uid"] = obj["metadata"]["uid"] or f"dry-{obj['metadata']['name']}"
    return obj


def outcome(api: Api, ns: str, name: str) -> tuple[str, str] | None:
    """("bound", node) | ("unschedulable", message) once kube-scheduler has decided."""
    pod = api.pod(ns, name)
    if pod is None:
        return None
    if pod["spec"].get("nodeName"):
        return "bound", pod["spec"]["nodeName"]
    for c in pod.get("status", {}).get("conditions") or ():
        if c["type"] == "PodScheduled" and c["status"] == "False" and c.get("reason") == "Unschedulable":
            return "unschedulable", c.get("message", "")
    return None


def weighted(scheduler: Any, ev: Any) -> dict[str, dict[str, int]]:
    weights = scheduler.generation.default_profile.score_weight_map
    out: dict[str, dict[str, int]] = {}
    for plugin, per_node in ev.scores.items():
        for node, score in per_node.items():
            out.setdefault(node, {})[plugin] = int(score) * weights.get(plugin, 1)
    return out


def compare_pod(scheduler: Any, ev: Any, result: tuple[str, str], scored: Any) -> tuple[str, str]:
    """(verdict, detail): verdict in {"same", "tie", "single", "hinted", "unschedulable", "MISMATCH"}."""
    kind, value = result
    if kind == "unschedulable":
        if ev.feasible:
            return "MISMATCH", f"kube-scheduler: unschedulable ({value}); kubeberth: feasible {ev.feasible}"
        if ev.message != value:
            return "MISMATCH", f"FailedScheduling\n    kube-scheduler: {value}\n    kubeberth:      {ev.message}"
        return "unschedulable", value
    node = value
    if not scored.totals:
        if scored.hinted:
            return ("hinted", node) if node in ev.best or ev.feasible == [node] else (
                "MISMATCH", f"kube-scheduler took the batch hint {node}; kubeberth's best {ev.best}")
        if ev.feasible == [node]:
            return "single", node
        return "MISMATCH", f"kube-scheduler: only {node} fit (no scores); kubeberth: feasible {ev.feasible}"
    if set(scored.totals) != set(ev.totals):
        return "MISMATCH", (f"feasible nodes differ: only kube-scheduler {sorted(set(scored.totals) - set(ev.totals))}, "
                            f"only kubeberth {sorted(set(ev.totals) - set(scored.totals))}; verdicts "
                            f"{ {n: ev.verdicts.get(n) for n in set(scored.totals) - set(ev.totals)} }")
    ours = weighted(scheduler, ev)
    diffs = []
    for n in sorted(scored.totals):
        theirs = scored.plugins.get(n, {})
        mine = ours.get(n, {})
        # A plugin one side skipped (PreScore Skip) or does not have (DynamicResources without
        # claims) adds 0 to the total: compared as 0.
        if any(theirs.get(p, 0) != mine.get(p, 0) for p in {*theirs, *mine}) or scored.totals[n] != ev.totals[n]:
            diffs.append(f"{n}: kube-scheduler {theirs} total {scored.totals[n]}; kubeberth {mine} total {ev.totals[n]}")
    if diffs:
        return "MISMATCH", "scores differ\n      " + "\n      ".join(diffs[:6])
    if node not in ev.best:
        return "MISMATCH", f"kube-scheduler chose {node} (total {scored.totals[node]}); kubeberth's best {ev.best}"
    return ("tie", f"{node} among {ev.best}") if len(ev.best) > 1 else ("same", node)


def report(title: str, rows: list[tuple[str, str, str]]) -> Counter[str]:
    counts = Counter(v for _n, v, _d in rows)
    sys.stderr.write(f"\n[e2e] {title}: {dict(counts)}\n")
    for name, verdict, detail in rows:
        if verdict == "MISMATCH":
            sys.stderr.write(f"[e2e]   {name}: {detail}\n")
    return counts


def test_score_vectors_match_kube_scheduler(api: Api, namespace: str, nodes: list[str], kubeberth: Any,
                                            ks_log: KubeSchedulerLog, record_property: Any) -> None:
    """>= 300 generated pods on 36 nodes in 3 zones, one at a time: scores, choices, messages."""
    from kubeberth.testing import evaluate_pod

    ns = namespace
    create_nodes(api, nodes, SEED, 36, f"sp{suffix()[:3]}")
    create_services(api, ns)
    rows: list[tuple[str, str, str]] = []
    started = time.monotonic()
    for body in workload(SEED, WORKLOAD_PODS, SCHED):
        name = body["metadata"]["name"]
        wait_for(lambda: synced(kubeberth, api, ns), 30, f"kubeberth's cache before {name}")
        ev = evaluate_pod(kubeberth, defaulted(api, ns, body), preemption=True)
        api.call("POST", f"/api/v1/namespaces/{ns}/pods", body)
        result = wait_for(lambda n=name: outcome(api, ns, n), 30, f"kube-scheduler's decision on {name}")
        key = f"{ns}/{name}"
        if result[0] == "bound" and len(ev.feasible) > 1:
            # The score lines are written before the binding; give the log a moment to catch up.
            wait_for(lambda k=key: ks_log.get(k).totals or ks_log.get(k).hinted, 5, f"score lines of {name}", 0.05)
        verdict, detail = compare_pod(kubeberth, ev, result, ks_log.get(key))
        rows.append((name, verdict, detail))
        if result[0] == "unschedulable":
            api.delete_pod(ns, name)  # no retries: later state changes would rewrite its message
            wait_for(lambda n=name: api.pod(ns, n) is None, 10, f"{name} deleted")
    counts = report(f"score parity over {len(rows)} pods in {time.monotonic() - started:.0f}s", rows)
    for verdict, n in counts.items():
        record_property(f"parity_{verdict}", n)
    compared = counts["same"] + counts["tie"]
    assert compared >= WORKLOAD_PODS * 0.6, f"too few pods were scored by both to compare: {dict(counts)}"
    assert counts["unschedulable"] >= 3, f"the workload must exercise FailedScheduling messages: {dict(counts)}"
    assert not counts["MISMATCH"], [r for r in rows if r[1] == "MISMATCH"][:10]


def _mirror(api: Api) -> list[dict[str, Any]]:
    """Every object the scheduler reads, as the API server holds it now (for the embedded copy)."""
    objects: list[dict[str, Any]] = []
    for kind, path in (("PriorityClass", "/apis/scheduling.k8s.io/v1/priorityclasses"),
                       ("Namespace", "/api/v1/namespaces"), ("Node", "/api/v1/nodes"),
                       ("Service", "/api/v1/services"), ("ReplicaSet", "/apis/apps/v1/replicasets"),
                       ("Pod", "/api/v1/pods")):
        for obj in api.call("GET", path)["items"]:
            if kind == "Pod" and (not obj["spec"].get("nodeName")
                                  or obj.get("status", {}).get("phase") in ("Succeeded", "Failed")):
                continue
            obj["kind"] = kind
            obj["apiVersion"] = "scheduling.k8s.io/v1" if kind == "PriorityClass" else (
                "apps/v1" if kind == "ReplicaSet" else "v1")
            objects.append(obj)
    return objects


def test_same_signature_stream_matches_kube_scheduler(api: Api, namespace: str, nodes: list[str],
                                                      ks_log: KubeSchedulerLog, record_property: Any) -> None:
    """Hundreds of identical pods back to back: kube-scheduler answers many from its batch (the
    node hint of KEP-5598); kubeberth's loop on the same state must place every pod alike."""
    from kubeberth.testing import SchedulerTester

    ns = namespace
    prefix = f"ss{suffix()[:3]}"
    for i in range(30):  # distinct sizes: few ties
        name = f"{prefix}-{i:02d}"
        api.create_node(name, str(6 + i), f"{12 + 5 * i}Gi", labels={"topology.kubernetes.io/zone": ZONES[i % 3]})
        nodes.append(name)
    before = _mirror(api)
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {"app": "stream"}}, "spec": {
        "schedulerName": BATCH, "terminationGracePeriodSeconds": 0,
        "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                        "resources": {"requests": {"cpu": "300m", "memory": "512Mi"}}}]}}
    names = [f"s-{i:03d}" for i in range(STREAM_PODS)]
    created = []
    for name in names:
        created.append(api.call("POST", f"/api/v1/namespaces/{ns}/pods", {**body, "metadata": {**body["metadata"], "name": name}}))
    wait_for(lambda: len(api.bound(ns)) == len(names), 120, "kube-scheduler to bind the stream")
    theirs = api.bound(ns)
    ks_log.read()
    order = [k.split("/", 1)[1] for k in ks_log.order if k.startswith(f"{ns}/")]
    assert sorted(order) == sorted(names), "every stream pod appears in kube-scheduler's log"
    hinted = sum(ks_log.get(f"{ns}/{n}").hinted for n in names)

    # Each of kube-scheduler's decisions (most of them batched) on kubeberth's embedded copy of the
    # same state: its node must be among kubeberth's best; then the pod is placed where
    # kube-scheduler put it, so the next decision starts from the same state again.
    config = {"profiles": [BATCH_PROFILE]}
    by_name = {o["metadata"]["name"]: {k: v for k, v in o.items() if k != "status"} | {"kind": "Pod"} for o in created}
    rows = []
    with SchedulerTester(config=config, objects=before) as t:
        for name in order:
            ev = t.evaluate(by_name[name])
            node = theirs[name]
            verdict = "MISMATCH" if node not in ev.best else ("tie" if len(ev.best) > 1 else "same")
            rows.append((name, verdict, f"kube-scheduler {node} (total {ev.totals.get(node)}); kubeberth's best "
                                        f"{ev.best} (total {max(ev.totals.values()) if ev.totals else None})"))
            t.add({**by_name[name], "spec": {**by_name[name]["spec"], "nodeName": node}})
    counts = report(f"same-signature stream of {len(names)} pods ({hinted} answered from kube-scheduler's batch)", rows)
    # kubeberth's own loop (opportunistic batching included) on the same stream: its choices among
    # tied nodes follow its own order, so they are reported, not required to be kube-scheduler's.
    with SchedulerTester(config=config, objects=before) as t:
        ours = t.schedule(*[by_name[n] for n in order], timeout=120)
        batched = sum(1 for r in t.scheduler.records if r.batch and r.batch.get("hint"))
    same_loop = sum((ours.get(f"{ns}/{n}") or ours.get(n)) == theirs[n] for n in order)
    sys.stderr.write(f"[e2e]   kubeberth's loop: {same_loop}/{len(order)} on kube-scheduler's node, {batched} from its batch\n")
    record_property("stream_hinted", hinted)
    record_property("stream_loop_same", same_loop)
    for verdict, n in counts.items():
        record_property(f"stream_{verdict}", n)
    assert len(ours) == len(order) and all(ours.values()), "kubeberth's loop placed every stream pod"
    assert not counts["MISMATCH"], [r for r in rows if r[1] == "MISMATCH"][:10]


def test_preemption_outcomes_match_kube_scheduler(api: Api, namespace: str, nodes: list[str], kubeberth: Any,
                                                  verbose_kube_scheduler: Any) -> None:
    """Low-priority pods fill six nodes; high-priority pods preempt one at a time. kubeberth's
    dry-run preemption must name kube-scheduler's node and victims; a pod preemption cannot help
    gets the same FailedScheduling message."""
    from kubeberth.testing import evaluate_pod

    ns = namespace
    sfx = suffix()
    values = {f"p{v}-{sfx}": v for v in (*range(10, 16), *range(50, 56), 1000)}
    for name, value in values.items():
        api.call("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", {
            "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value})

    def pod(name: str, cpu: str, value: int, **spec: Any) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": "pe"}}, "spec": {
            "schedulerName": SCHED, "priorityClassName": f"p{value}-{sfx}", "terminationGracePeriodSeconds": 30,
            "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                            "resources": {"requests": {"cpu": cpu, "memory": "256Mi"}}}], **spec}}

    node_names = []
    for k in range(6):
        name = f"pe{k}-{sfx}"
        api.create_node(name, "4", "16Gi", labels={"topology.kubernetes.io/zone": f"zone-{'abc'[k % 3]}"})
        nodes.append(name)
        node_names.append(name)
        for label, value in (("a", 10 + k), ("b", 50 + k)):
            api.call("POST", f"/api/v1/namespaces/{ns}/pods", pod(f"{label}{k}", "1800m", value, nodeName=name))
    rows = []
    for i, cpu in enumerate(("2", "2", "3500m", "2", "5")):
        name = f"high-{i}"
        body = pod(name, cpu, 1000)
        wait_for(lambda: synced(kubeberth, api, ns), 30, f"kubeberth's cache before {name}")
        ev = evaluate_pod(kubeberth, defaulted(api, ns, body), preemption=True)
        api.call("POST", f"/api/v1/namespaces/{ns}/pods", body)

        def decided(n: str = name) -> tuple[str, Any, str] | None:
            """(kind, nominated node or message, FailedScheduling message) once both are written."""
            p = api.pod(ns, n)
            got = outcome(api, ns, n)
            if not got or got[0] != "unschedulable" or "preemption:" not in got[1]:
                return None
            if "found a potential placement" in got[1]:
                node = (p or {}).get("status", {}).get("nominatedNodeName")
                return ("nominated", node, got[1]) if node else None
            return "unschedulable", got[1], got[1]

        kind, value, message = wait_for(decided, 30, f"kube-scheduler's preemption for {name}")
        if kind == "nominated":
            # kube-scheduler's preemption deletes its victims asynchronously, possibly after the
            # nomination is written: play the kubelet until the pod binds, finishing every victim's
            # graceful deletion as it appears, and compare the victims seen in all.
            victims_seen: set[str] = set()

            def bound_after_victims(n: str = name, seen: set[str] = victims_seen) -> Any:
                for p in api.pods(ns):
                    if p["metadata"].get("deletionTimestamp"):
                        seen.add(f"{ns}/{p['metadata']['name']}")
                        api.delete_pod(ns, p["metadata"]["name"])  # the kubelet's final delete
                return api.bound(ns).get(n)

            wait_for(bound_after_victims, 90, f"kube-scheduler to bind {name}")
            victims = sorted(victims_seen)
            same = (value, victims, message) == (ev.nominated_node, ev.victims, ev.message)
            rows.append((name, "same" if same else "MISMATCH",
                         f"kube-scheduler {value} {victims} ({message}); kubeberth {ev.nominated_node or None} "
                         f"{ev.victims} ({ev.message})"))
        else:
            same = not ev.nominated_node and ev.message == value
            rows.append((name, "unschedulable" if same else "MISMATCH",
                         f"kube-scheduler: {value}\n    kubeberth:      {ev.message} (nominated {ev.nominated_node or None})"))
            api.delete_pod(ns, name)
    counts = report("preemption outcomes", rows)
    assert counts["same"] == 4 and counts["unschedulable"] == 1, [r for r in rows if r[1] == "MISMATCH"]
