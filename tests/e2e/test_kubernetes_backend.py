"""kubeberth against a real kube-apiserver: binding, events, leader election, restarts, RBAC.

Every kubeberth here runs as a separate `kubeberth run` process under the least-privilege service
account from config/rbac.yaml, except the relist test, which drives the backend in-process.
Nodes are plain Node objects (no kubelet); each test creates its own and deletes them, and runs
its own kubeberth, so tests do not see each other's nodes.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from cluster import LocalControlPlane, wait_for
from kubeberth_harness import CONFIG_DIR, PROFILE, Api, Kubeberth, suffix

DEPLOY_FILES = [CONFIG_DIR / f for f in ("rbac.yaml", "scheduler-config.yaml", "deployment.yaml")]


# ---------------------------------------------------------------------------- tests


def test_manifests_apply_with_server_dry_run(control_plane: LocalControlPlane) -> None:
    args = ["apply", "--dry-run=server"]
    for f in DEPLOY_FILES:
        args += ["-f", str(f)]
    out = control_plane.kubectl(*args, check=False)
    assert out.returncode == 0, out.stderr
    for kind in ("serviceaccount/kubeberth", "clusterrole.rbac.authorization.k8s.io/kubeberth",
                 "configmap/kubeberth-config", "deployment.apps/kubeberth"):
        assert kind in out.stdout, out.stdout


def test_binds_own_pods_and_leaves_others(api: Api, namespace: str, nodes: list[str], start_kubeberth: Any) -> None:
    node = f"kb-n-{suffix()}"
    api.create_node(node, "4", "8Gi")
    nodes.append(node)
    kb = start_kubeberth()
    for i in range(5):
        api.create_pod(namespace, f"ours-{i}")
    api.create_pod(namespace, "theirs", scheduler="someone-else")
    wait_for(lambda: len(api.bound(namespace)) == 5, 30, "our 5 pods to be bound")
    bound = api.bound(namespace)
    assert set(bound) == {f"ours-{i}" for i in range(5)} and set(bound.values()) == {node}
    time.sleep(1.0)
    theirs = api.pod(namespace, "theirs")
    assert theirs is not None and not theirs["spec"].get("nodeName")
    assert not theirs.get("status", {}).get("conditions")  # not touched at all
    events = api.events(namespace)
    scheduled = [e for e in events if e["reason"] == "Scheduled"]
    assert sorted(e["regarding"]["name"] for e in scheduled) == [f"ours-{i}" for i in range(5)]
    assert all(e["note"] == f"Successfully assigned {namespace}/{e['regarding']['name']} to {node}"
               and e["type"] == "Normal" and e["reportingController"] == PROFILE for e in scheduled)
    assert not [e for e in events if e["regarding"]["name"] == "theirs"]
    for i in range(5):
        conds = {c["type"]: c["status"] for c in api.pod(namespace, f"ours-{i}")["status"].get("conditions", [])}
        assert conds.get("PodScheduled") == "True"
    assert kb.probe("/healthz") == 200 and kb.probe("/readyz") == 200


def test_unschedulable_then_node_added(control_plane: LocalControlPlane, api: Api, namespace: str,
                                       nodes: list[str], start_kubeberth: Any) -> None:
    small = f"kb-small-{suffix()}"
    api.create_node(small, "1", "1Gi")
    nodes.append(small)
    start_kubeberth()
    api.create_pod(namespace, "big", cpu="3", memory="1Gi")

    def failed() -> dict[str, Any] | None:
        return next((e for e in api.events(namespace) if e["reason"] == "FailedScheduling"), None)

    event = wait_for(failed, 30, "FailedScheduling")
    assert event["type"] == "Warning" and event["regarding"]["name"] == "big"
    assert event["note"].startswith("0/1 nodes are available:") and "Insufficient cpu" in event["note"], event["note"]

    def condition() -> dict[str, Any] | None:
        pod = api.pod(namespace, "big") or {}
        return next((c for c in pod.get("status", {}).get("conditions", []) if c["type"] == "PodScheduled"), None)

    cond = wait_for(condition, 30, "PodScheduled condition")
    assert cond["status"] == "False" and cond["reason"] == "Unschedulable" and cond["message"] == event["note"]
    # What a user sees with kubectl.
    shown = control_plane.kubectl("get", "events", "-n", namespace, "--field-selector", "reason=FailedScheduling",
                                  "-o", "custom-columns=TYPE:.type,REASON:.reason,OBJ:.involvedObject.name,MSG:.message")
    assert "FailedScheduling" in shown.stdout and "Insufficient cpu" in shown.stdout, shown.stdout
    jp = control_plane.kubectl("get", "pod", "big", "-n", namespace, "-o",
                               "jsonpath={.status.conditions[?(@.type=='PodScheduled')].reason}")
    assert jp.stdout == "Unschedulable"

    big = f"kb-big-{suffix()}"
    api.create_node(big, "8", "16Gi")
    nodes.append(big)
    wait_for(lambda: api.bound(namespace).get("big") == big, 30, "the pod to land on the new node")
    scheduled = wait_for(lambda: [e for e in api.events(namespace) if e["reason"] == "Scheduled"], 10, "Scheduled")
    assert scheduled[0]["note"] == f"Successfully assigned {namespace}/big to {big}"
    described = control_plane.kubectl("describe", "pod", "big", "-n", namespace).stdout
    assert "Successfully assigned" in described and "FailedScheduling" in described


def _lease(api: Api) -> dict[str, Any]:
    return api.call("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubeberth")["spec"]


def _double_bound(procs: list[Kubeberth]) -> list[str]:
    counts = Counter(line.split(" bound ", 1)[1].split(" to ", 1)[0] for kb in procs for line in kb.bind_lines())
    return [pod for pod, n in counts.items() if n > 1]


def test_leader_election_failover(api: Api, namespace: str, nodes: list[str], start_kubeberth: Any,
                                  record_property: Any) -> None:
    node = f"kb-le-{suffix()}"
    api.create_node(node, "64", "128Gi")
    nodes.append(node)
    lease_cfg = ("4s", "3s", "1s")
    a = start_kubeberth(leader_elect=True, lease=lease_cfg)
    b = start_kubeberth(leader_elect=True, lease=lease_cfg)
    holder = wait_for(lambda: _lease(api).get("holderIdentity"), 20, "a leader")
    leader, standby = (a, b) if f"_{a.proc.pid}_" in holder else (b, a)
    assert f"_{leader.proc.pid}_" in holder
    for i in range(10):
        api.create_pod(namespace, f"before-{i}")
    wait_for(lambda: len(api.bound(namespace)) == 10, 30, "10 pods bound by the leader")
    # The apiserver can show the binding before the leader's log line for it is written.
    wait_for(lambda: len(leader.bind_lines()) == 10, 10, "the leader to log its 10 bindings")
    assert not standby.bind_lines()

    leader.kill()
    killed = time.monotonic()
    for i in range(10):
        api.create_pod(namespace, f"after-{i}")
    wait_for(lambda: f"_{standby.proc.pid}_" in (_lease(api).get("holderIdentity") or ""), 30, "takeover",
             interval=0.05)
    takeover = time.monotonic() - killed
    wait_for(lambda: len(api.bound(namespace)) == 20, 30, "all 20 pods bound")
    all_bound = time.monotonic() - killed
    record_property("takeover_seconds", round(takeover, 2))
    sys.stderr.write(f"\n[e2e] leader takeover {takeover:.2f}s, all pods bound {all_bound:.2f}s after kill\n")
    assert takeover <= 4 + 2 * 1 + 1.5  # leaseDuration + 2*retryPeriod + slack
    assert not _double_bound([leader, standby])
    scheduled = Counter(e["regarding"]["name"] for e in api.events(namespace) if e["reason"] == "Scheduled")
    assert all(n == 1 for n in scheduled.values()), scheduled
    # Graceful stop of the new leader releases the Lease.
    assert standby.stop() == 0
    assert not _lease(api).get("holderIdentity")


def test_apiserver_restart_loses_nothing(control_plane: LocalControlPlane, api: Api, namespace: str,
                                         nodes: list[str], start_kubeberth: Any) -> None:
    node = f"kb-rs-{suffix()}"
    api.create_node(node, "64", "128Gi")
    nodes.append(node)
    kb = start_kubeberth()
    for i in range(15):
        api.create_pod(namespace, f"pre-{i}")
    control_plane.restart_apiserver(downtime=2.0, grace_period=1.0)
    for i in range(15):
        api.create_pod(namespace, f"post-{i}")
    wait_for(lambda: len(api.bound(namespace)) == 30, 90, "all 30 pods bound after the restart")
    assert not _double_bound([kb])
    assert len(kb.bind_lines()) <= 30
    scheduled = Counter(e["regarding"]["name"] for e in api.events(namespace) if e["reason"] == "Scheduled")
    assert all(n == 1 for n in scheduled.values()), scheduled
    assert kb.proc.poll() is None
    wait_for(lambda: kb.probe("/readyz") == 200, 30, "readyz after restart")


def test_initial_lists_are_fetched_together_and_emitted_in_list_order(api: Api, namespace: str, nodes: list[str],
                                                                      sa_kubeconfig: str) -> None:
    """Every informer lists at once at start-up, but the scheduler still hears the lists in
    LIST_ORDER: every kind's SYNCED after the kind before it, our nodes before any of our pods."""
    from kubeberth.backends.base import ClusterEvent
    from kubeberth.backends.kubernetes import KubernetesBackend, load_api_client
    from kubeberth.backends.kubernetes.informer import LIST_ORDER

    for i in range(30):
        nodes.append(f"order-{suffix()}-{i}")
        api.create_node(nodes[-1], "4", "8Gi")
    for i in range(5):
        api.create_pod(namespace, f"p-{i}")
    seen: list[ClusterEvent] = []
    lock = threading.Lock()

    def sink(ev: ClusterEvent) -> None:
        with lock:
            seen.append(ev)

    backend = KubernetesBackend(load_api_client(sa_kubeconfig), [PROFILE])
    backend.start(sink)
    try:
        assert backend.wait_ready(30)
        with lock:
            events = list(seen)
    finally:
        backend.stop()
    synced = [e.kind for e in events if e.type == "SYNCED"]
    assert synced == [k for k in LIST_ORDER if k in backend.informers], synced
    ours = set(nodes)
    added = [(i, e.kind, e.obj["metadata"]) for i, e in enumerate(events) if e.type == "ADDED"]
    node_at = [i for i, kind, meta in added if kind == "Node" and meta["name"] in ours]
    pod_at = [i for i, kind, meta in added if kind == "Pod" and meta.get("namespace") == namespace]
    assert len(node_at) >= len(ours) and len(pod_at) >= 5
    assert max(node_at[:len(ours)]) < min(pod_at), "a pod of the initial list came before a node of it"


def test_a_custom_resource_that_cannot_be_listed_warns_once_and_does_not_hold_readiness(
        sa_kubeconfig: str, caplog: pytest.LogCaptureFixture) -> None:
    """A plugin registered events of bars.v1.example.com, which the scheduler's service account may not
    list (and no CRD serves): the backend is ready with its built-in kinds synced, one warning names
    the resource and what to do, and its informer keeps retrying with backoff until stopped."""
    from kubeberth.backends.base import WATCHED_KINDS
    from kubeberth.backends.kubernetes import KubernetesBackend, load_api_client

    bars = "bars.v1.example.com"
    backend = KubernetesBackend(load_api_client(sa_kubeconfig), [PROFILE], kinds=(*WATCHED_KINDS, bars),
                                backoff_initial=0.2, backoff_max=0.4)
    with caplog.at_level("INFO", logger="kubeberth.backends.kubernetes.informer"):
        backend.start(lambda ev: None)
        try:
            assert backend.wait_ready(30)
            informer = backend.informers[bars]
            assert informer.unavailable.is_set() and not informer.synced.is_set()
            assert all(inf.synced.is_set() for kind, inf in backend.informers.items() if kind != bars)
            time.sleep(1.5)  # several retries
            assert informer.is_alive() and not informer.synced.is_set()
        finally:
            backend.stop()
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING" and bars in r.getMessage()]
    assert len(warnings) == 1, warnings
    assert "/apis/example.com/v1/bars" in warnings[0] and "403" in warnings[0], warnings[0]
    assert "grant the scheduler's service account list and watch" in warnings[0]


def etcd_revision(cp: LocalControlPlane) -> int:
    req = urllib.request.Request(f"{cp.etcd_url}/v3/kv/range", data=b'{"key": "AA=="}', method="POST")
    with urllib.request.urlopen(req, timeout=5) as resp:
        return int(json.loads(resp.read())["header"]["revision"])


def compact_etcd(cp: LocalControlPlane) -> int:
    """Compact etcd at its current revision: every older resourceVersion is gone for watches."""
    revision = etcd_revision(cp)
    body = json.dumps({"revision": str(revision), "physical": True}).encode()
    req = urllib.request.Request(f"{cp.etcd_url}/v3/kv/compaction", data=body, method="POST")
    with urllib.request.urlopen(req, timeout=10):
        return revision


@pytest.fixture(scope="module")
def uncached_plane() -> Iterator[LocalControlPlane]:
    """An API server with the watch cache off: watches are served by etcd, so compacting etcd
    expires a resourceVersion for certain (the tests of expiry share it)."""
    with LocalControlPlane(extra_apiserver_args=["--watch-cache=false"]) as cp:
        yield cp


def test_watch_expiry_relists_without_missing_pods(uncached_plane: LocalControlPlane) -> None:
    """A watch resumed from an expired resourceVersion gets 410, lists again and misses nothing.
    On the uncached plane (watches served by etcd) compacting etcd expires it for certain; the
    watch cache of a young API server still holds everything since its first list."""
    from kubeberth.backends.base import ClusterEvent
    from kubeberth.backends.kubernetes import KubernetesBackend, load_api_client

    seen: list[ClusterEvent] = []
    lock = threading.Lock()

    def sink(ev: ClusterEvent) -> None:
        with lock:
            seen.append(ev)

    def pod_events(typ: str) -> set[str]:
        with lock:
            return {e.obj["metadata"]["name"] for e in seen if e.kind == "Pod" and e.type == typ
                    and e.obj.get("metadata", {}).get("namespace") == namespace}

    api = Api(uncached_plane)
    namespace = f"kb-expiry-{suffix()}"
    api.call("POST", "/api/v1/namespaces", {"metadata": {"name": namespace}})
    api.create_pod(namespace, "doomed")
    backend = KubernetesBackend(load_api_client(uncached_plane.admin_kubeconfig), [PROFILE])
    backend.start(sink)
    try:
        assert backend.wait_ready(30)
        assert "doomed" in pod_events("ADDED")
        informer = backend.informers["Pod"]
        wait_for(lambda: informer.watches >= 1, 10, "the pod watch")
        relists = informer.relists
        informer.hold()  # disconnected: nothing is seen from here on
        time.sleep(0.3)
        for i in range(5):
            api.create_pod(namespace, f"missed-{i}")
        api.delete_pod(namespace, "doomed")
        # Our resourceVersion has been compacted away meanwhile.
        old = informer.resource_version
        assert compact_etcd(uncached_plane) > int(old) + 1
        informer.resume(resource_version=old)
        wait_for(lambda: informer.relists > relists, 30, "a relist after 410 Gone")
        wait_for(lambda: {f"missed-{i}" for i in range(5)} <= pod_events("ADDED"), 10, "missed pods")
        assert "doomed" in pod_events("DELETED")
        # And the watch resumes from the relist's resourceVersion.
        api.create_pod(namespace, "later")
        wait_for(lambda: "later" in pod_events("ADDED"), 10, "a pod created after the relist")
        assert int(informer.resource_version) > int(old)
    finally:
        backend.stop()


def test_paged_relist_that_outlives_the_watch_window_does_not_relist_again(
    uncached_plane: LocalControlPlane, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A relist longer than the API server's watch window used to end in a watch from an expired
    resourceVersion, another 410 and another relist, over and over under churn. With the watch
    cache off, watches are served by etcd and anything older than its compaction is expired, so
    compacting etcd while the relist is applied is exactly a list that outlived the window: the
    watch goes on from the stream opened after the first page, sees what happened meanwhile, and
    there is no second relist."""
    from kubeberth.backends.base import ClusterEvent
    from kubeberth.backends.kubernetes import KubernetesBackend, load_api_client
    from kubeberth.backends.kubernetes import informer as informer_module

    monkeypatch.setattr(informer_module, "PAGE_SIZE", 4)  # 13 pods: four pages
    cp = uncached_plane
    api = Api(cp)
    ns = f"kb-relist-{suffix()}"
    api.call("POST", "/api/v1/namespaces", {"metadata": {"name": ns}})
    for i in range(12):
        api.create_pod(ns, f"p{i}")
    seen: list[ClusterEvent] = []
    lock = threading.Lock()
    armed = threading.Event()
    fired: list[int] = []

    def sink(ev: ClusterEvent) -> None:
        with lock:
            seen.append(ev)
        if ev.kind == "Pod" and armed.is_set() and not fired:  # inside the relist's apply
            api.create_pod(ns, "during")
            api.delete_pod(ns, "p0")
            fired.append(compact_etcd(cp))  # two revisions past the list's: a watch from it is expired

    def names(typ: str) -> set[str]:  # this test's namespace: the plane is shared with the expiry test
        with lock:
            return {e.obj["metadata"]["name"] for e in seen if e.kind == "Pod" and e.type == typ
                    and e.obj["metadata"].get("namespace") == ns}

    backend = KubernetesBackend(load_api_client(cp.admin_kubeconfig), [PROFILE])
    backend.start(sink)
    try:
        assert backend.wait_ready(60)
        informer = backend.informers["Pod"]
        wait_for(lambda: informer.watches >= 1, 10, "the pod watch")
        informer.hold()
        time.sleep(0.3)
        old = informer.resource_version
        api.create_pod(ns, "missed")
        api.delete_pod(ns, "p1")  # the relist's difference: DELETED
        # A watch from `old` starts at the revision after it, now compacted away: resuming gets 410.
        assert compact_etcd(cp) > int(old) + 1
        relists, prefetched = informer.relists, informer.prefetched
        armed.set()
        informer.resume(resource_version=old)
        wait_for(lambda: "during" in names("ADDED") and "p0" in names("DELETED"), 30,
                 "the pod created and the pod deleted while the relist was applied")
        assert "missed" in names("ADDED") and "p1" in names("DELETED")
        api.create_pod(ns, "later")
        wait_for(lambda: "later" in names("ADDED"), 10, "a pod created after the relist")
        assert fired and informer.relists == relists + 1, (informer.relists, relists)
        assert informer.prefetched == prefetched + 1
        assert int(informer.resource_version) > fired[0]
    finally:
        backend.stop()


def test_side_by_side_with_kube_scheduler(control_plane: LocalControlPlane, kube_scheduler: Any, api: Api,
                                          namespace: str, nodes: list[str], start_kubeberth: Any,
                                          record_property: Any) -> None:
    """Same state, same pod: does kubeberth pick kube-scheduler's node?

    Distinct node sizes (no two nodes alike) and pods that differ in size make the default profile's
    scores resource-driven (NodeResourcesFit LeastAllocated + BalancedAllocation; the other default
    scores are equal on every node or skipped for bare pods). The workload is chosen so that, by
    kube-scheduler v1.37's formulas worked out by hand, every pod has a unique best node (a lead of
    at least one point): kube-scheduler breaks ties at random, so a tie would make a mismatch
    meaningless. Each step: kubeberth schedules pod k_i, it is deleted, kube-scheduler schedules the
    identical pod d_i, which stays. Both see the same pods in the same order (one pod watch each), so
    every decision is made on the same cluster state, and every choice must be identical.
    """
    sizes = [(3, 5), (5, 11), (7, 9), (11, 19), (13, 29)]  # (cpu cores, memory GiB)
    names = []
    for i, (cpu, mem) in enumerate(sizes):
        name = f"sbs-{i}-{suffix()}"
        api.create_node(name, str(cpu), f"{mem}Gi")
        nodes.append(name)
        names.append(name)
    start_kubeberth()
    workload = [(f"{350 + 200 * (i % 3)}m", f"{256 + 640 * (i % 7)}Mi") for i in range(20)]  # tie-free
    same = 0
    rows = []
    for i, (cpu, mem) in enumerate(workload):
        api.create_pod(namespace, f"k-{i}", scheduler=PROFILE, cpu=cpu, memory=mem)
        k = wait_for(lambda i=i: api.bound(namespace).get(f"k-{i}"), 30, f"kubeberth to bind k-{i}")
        api.delete_pod(namespace, f"k-{i}")
        wait_for(lambda i=i: api.pod(namespace, f"k-{i}") is None, 10, f"k-{i} deleted")
        api.create_pod(namespace, f"d-{i}", scheduler="default-scheduler", cpu=cpu, memory=mem)
        d = wait_for(lambda i=i: api.bound(namespace).get(f"d-{i}"), 30, f"kube-scheduler to bind d-{i}")
        same += k == d
        rows.append((i, cpu, mem, d, k))
    rate = same / len(workload)
    record_property("identical_choice_rate", rate)
    sys.stderr.write(f"\n[e2e] side by side: identical choices {same}/{len(workload)} ({rate:.0%})\n")
    for row in rows:
        sys.stderr.write(f"[e2e]   pod {row[0]:2d} {row[1]:>6} {row[2]:>7}  kube-scheduler={row[3]}  kubeberth={row[4]}\n")
    # Scores are exact integers on both sides and the workload has no ties: every choice must match.
    minimum = float(os.environ.get("KUBEBERTH_E2E_MIN_IDENTICAL", "1.0"))
    assert rate >= minimum, rows


def bind_claim_as_pv_controller(api: Api, namespace: str, claim: str, pv: str) -> None:
    """What the PV controller does once a PV's claimRef names a claim: bind both ways."""
    api._patch(f"/api/v1/namespaces/{namespace}/persistentvolumeclaims/{claim}", {
        "metadata": {"annotations": {"pv.kubernetes.io/bind-completed": "yes"}}, "spec": {"volumeName": pv}})
    api._patch(f"/api/v1/namespaces/{namespace}/persistentvolumeclaims/{claim}/status", {"status": {"phase": "Bound"}})
    api._patch(f"/api/v1/persistentvolumes/{pv}/status", {"status": {"phase": "Bound"}})


def test_volume_binding_sets_claim_ref_on_the_chosen_pv(api: Api, namespace: str, nodes: list[str],
                                                      start_kubeberth: Any) -> None:
    """WaitForFirstConsumer: kubeberth picks the node whose local PV fits and binds that PV to the claim."""
    sfx = suffix()
    small, big = f"kb-vs-{sfx}", f"kb-vb-{sfx}"
    for node in (small, big):
        api.create_node(node, "4", "8Gi")
        nodes.append(node)
    sc = f"local-{sfx}"
    api.call("POST", "/apis/storage.k8s.io/v1/storageclasses", {
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": sc},
        "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer"})
    pvs = []
    for node, size in ((small, "1Gi"), (big, "10Gi")):
        name = f"pv-{node}"
        pvs.append(name)
        api.call("POST", "/api/v1/persistentvolumes", {
            "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
            "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"], "storageClassName": sc,
                     "local": {"path": "/mnt/data"},
                     "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                         {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]}}}})
        # No PV controller runs here: mark the PV Available as it would (kube-scheduler only binds those).
        api._patch(f"/api/v1/persistentvolumes/{name}/status", {"status": {"phase": "Available"}})
    try:
        api.call("POST", f"/api/v1/namespaces/{namespace}/persistentvolumeclaims", {
            "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": sc,
                     "resources": {"requests": {"storage": "5Gi"}}}})
        start_kubeberth()
        api.call("POST", f"/api/v1/namespaces/{namespace}/pods", {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "db"},
            "spec": {"schedulerName": PROFILE,
                     "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}],
                     "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]}})
        ref = wait_for(lambda: api.call("GET", f"/api/v1/persistentvolumes/pv-{big}")["spec"].get("claimRef"), 30,
                       "kubeberth to set the big PV's claimRef")
        assert (ref.get("namespace"), ref.get("name")) == (namespace, "data")
        assert not api.call("GET", f"/api/v1/persistentvolumes/pv-{small}")["spec"].get("claimRef")
        # PreBind waits for the PV controller (none runs here): the pod stays unbound meanwhile.
        time.sleep(2.5)
        assert "db" not in api.bound(namespace)
        bind_claim_as_pv_controller(api, namespace, "data", f"pv-{big}")
        wait_for(lambda: api.bound(namespace).get("db") == big, 30, "the pod on the node with the big PV")
    finally:
        for name in pvs:
            api.call("DELETE", f"/api/v1/persistentvolumes/{name}", ok=(200, 202, 404))
        api.call("DELETE", f"/apis/storage.k8s.io/v1/storageclasses/{sc}", ok=(200, 202, 404))


def test_volume_binding_times_out_without_a_pv_controller(api: Api, namespace: str, nodes: list[str],
                                                          start_kubeberth: Any) -> None:
    """bindTimeoutSeconds: with nobody to complete the binding, PreBind gives up as kube-scheduler's
    BindPodVolumes does ("binding volumes: context deadline exceeded") and the pod is not bound."""
    sfx = suffix()
    node = f"kb-vt-{sfx}"
    api.create_node(node, "4", "8Gi")
    nodes.append(node)
    sc, pv = f"local-t-{sfx}", f"pv-t-{sfx}"
    api.call("POST", "/apis/storage.k8s.io/v1/storageclasses", {
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": sc},
        "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer"})
    api.call("POST", "/api/v1/persistentvolumes", {
        "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": pv},
        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": sc,
                 "local": {"path": "/mnt/data"},
                 "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                     {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]}}}})
    api._patch(f"/api/v1/persistentvolumes/{pv}/status", {"status": {"phase": "Available"}})
    try:
        api.call("POST", f"/api/v1/namespaces/{namespace}/persistentvolumeclaims", {
            "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": sc,
                     "resources": {"requests": {"storage": "1Gi"}}}})
        kb = start_kubeberth(plugin_config=[{"name": "VolumeBinding", "args": {"bindTimeoutSeconds": 2}}])
        api.call("POST", f"/api/v1/namespaces/{namespace}/pods", {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "db"},
            "spec": {"schedulerName": PROFILE,
                     "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}],
                     "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]}})

        def timed_out() -> list[str]:
            return [e["note"] for e in api.events(namespace) if e["reason"] == "FailedScheduling"
                    and "binding volumes: context deadline exceeded" in e["note"]]

        try:
            wait_for(timed_out, 30, "PreBind to time out")
        except AssertionError:
            raise AssertionError(f"events: {[(e['reason'], e['note']) for e in api.events(namespace)]}\n"
                                 f"{kb.log_tail()}") from None
        assert "db" not in api.bound(namespace)
        # Once the binding completes (as the PV controller would), a retry binds the pod.
        bind_claim_as_pv_controller(api, namespace, "data", pv)
        wait_for(lambda: api.bound(namespace).get("db") == node, 60, "the pod bound after the claim was")
    finally:
        api.call("DELETE", f"/api/v1/persistentvolumes/{pv}", ok=(200, 202, 404))
        api.call("DELETE", f"/apis/storage.k8s.io/v1/storageclasses/{sc}", ok=(200, 202, 404))


def test_a_victim_already_being_deleted_is_neither_deleted_again_nor_reported(api: Api, namespace: str, nodes: list[str],
                                                                             sa_kubeconfig: str) -> None:
    """Two active-active replicas may choose the same victim: the second one's DisruptionTarget patch answers with
    the pod's deletionTimestamp, and the victim is left to the first deletion (no second delete, no second
    Preempted event); a victim both mark before either deletes is deleted by one of them (the other's delete,
    conditional on the version its patch answered, conflicts and finds it being deleted)."""
    from kubeberth.backends.base import PodGone
    from kubeberth.backends.kubernetes import KubernetesBackend, load_api_client
    from kubeberth.cache.podinfo import PodInfo

    node = f"kb-dt-{suffix()}"
    api.create_node(node, "4", "8Gi")
    nodes.append(node)
    terminating = PodInfo.from_dict(api.create_pod(namespace, "terminating", node_name=node))
    plain = PodInfo.from_dict(api.create_pod(namespace, "plain", node_name=node))
    # No kubelet: a graceful delete of a bound pod leaves it terminating.
    api.call("DELETE", f"/api/v1/namespaces/{namespace}/pods/terminating", {"gracePeriodSeconds": 30})
    condition = {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
                 "message": f"{PROFILE}: preempting to accommodate a higher priority pod"}
    backend = KubernetesBackend(load_api_client(sa_kubeconfig), [PROFILE])
    first = backend.mark_disruption_target(terminating, condition)
    assert first.ok and isinstance(first.err, PodGone), first
    second = backend.mark_disruption_target(plain, condition)
    assert second.ok and second.err is None, second
    marked = api.pod(namespace, "plain")
    assert marked is not None and not marked["metadata"].get("deletionTimestamp")
    assert [c["reason"] for c in marked["status"]["conditions"] if c["type"] == "DisruptionTarget"] == [
        "PreemptionByScheduler"]
    # Both replicas mark it before either deletes: the first delete conflicts with the second replica's patch,
    # finds the victim not being deleted and deletes it; the second's conflicts with that delete and leaves it.
    other = KubernetesBackend(load_api_client(sa_kubeconfig), [PROFILE])
    assert other.mark_disruption_target(plain, dict(condition, message="another replica")).ok
    first, second = backend.delete_pod(plain, "test"), other.delete_pod(plain, "test")
    assert first.ok and first.err is None, first
    assert second.ok and isinstance(second.err, PodGone), second
    assert (api.pod(namespace, "plain") or {}).get("metadata", {}).get("deletionTimestamp")
