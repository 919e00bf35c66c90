"""VolumeBinding: pre_filter classification, per-label-set filtering, reserve/unreserve, pre_bind."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth import Code, CycleState
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.builtin_plugins.volume_binding import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
    ERR_UNBOUND_IMMEDIATE,
    VolumeBinding,
    has_enough_capacity,
    node_selector_terms_match,
    topology_terms_match,
)
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from kubeberth.scheduling.handle import FrameworkHandle
from kubeberth.testing import cluster_of, make_node, make_pod

ZONE = "topology.kubernetes.io/zone"


def zone_affinity(*zones: str) -> dict[str, Any]:
    return {"required": {"nodeSelectorTerms": [{"matchExpressions": [{"key": ZONE, "operator": "In", "values": list(zones)}]}]}}


def make_pv(
    name: str,
    size: str = "10Gi",
    storage_class: str = "local",
    zones: tuple[str, ...] = (),
    modes: tuple[str, ...] = ("ReadWriteOnce",),
    claim_ref: str | None = None,
    phase: str | None = "Available",
    labels: dict[str, str] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {"capacity": {"storage": size}, "storageClassName": storage_class, "accessModes": list(modes)}
    if zones:
        spec["nodeAffinity"] = zone_affinity(*zones)
    if claim_ref:
        spec["claimRef"] = {"namespace": "default", "name": claim_ref}
    pv: dict[str, Any] = {"kind": "PersistentVolume", "metadata": {"name": name, "labels": labels or {}}, "spec": spec}
    if phase:
        pv["status"] = {"phase": phase}
    return pv


def make_pvc(
    name: str,
    size: str = "5Gi",
    storage_class: str = "local",
    volume: str = "",
    bound: bool = False,
    modes: tuple[str, ...] = ("ReadWriteOnce",),
    annotations: dict[str, str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    ann = dict(annotations or {})
    if bound:
        ann["pv.kubernetes.io/bind-completed"] = "yes"
    spec: dict[str, Any] = {
        "accessModes": list(modes),
        "resources": {"requests": {"storage": size}},
        "storageClassName": storage_class,
    }
    if volume:
        spec["volumeName"] = volume
    meta = {"name": name, "namespace": "default", "annotations": ann, **extra.pop("meta", {})}
    return {"kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec, **extra}


def storage_class(name: str, mode: str = "WaitForFirstConsumer", provisioner: str = "kubernetes.io/no-provisioner", topologies: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    sc: dict[str, Any] = {"kind": "StorageClass", "metadata": {"name": name}, "provisioner": provisioner, "volumeBindingMode": mode}
    if topologies is not None:
        sc["allowedTopologies"] = topologies
    return sc


KINDS = {"PersistentVolume", "PersistentVolumeClaim", "StorageClass"}


def make_cluster(*objects: dict[str, Any], zones: tuple[str, ...] = ("a", "b")) -> ClusterState:
    assert all(obj["kind"] in KINDS for obj in objects)
    return cluster_of([make_node(f"node-{zone}-{i}", labels={ZONE: zone}) for i, zone in enumerate(zones)], objects)


def claim_pod(*claims: str, name: str = "p") -> PodInfo:
    vols = [{"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}} for i, c in enumerate(claims)]
    return PodInfo.from_dict(make_pod(name, uid=name, volumes=vols))


def run_filter(plugin: VolumeBinding, cluster: ClusterState, pod: PodInfo, state: CycleState | None = None):
    state = state if state is not None else CycleState()
    status = plugin.pre_filter(state, pod, cluster)
    if status is not None:
        return status, state, {}
    nodes = cluster.table.view(cluster.table.ordered_rows())
    result = plugin.filter(state, pod, nodes, cluster)
    out: dict[str, tuple[str, ...]] = {n: () for n in nodes.names}
    if result is not None:
        for rej in result.rejections:
            assert rej.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
            for name, hit in zip(nodes.names, rej.nodes, strict=True):
                if hit:
                    out[name] = (*out[name], rej.reason)
        for name, ok in zip(nodes.names, result.feasible, strict=True):
            assert bool(ok) == (out[name] == ())
    return None, state, out


def test_pod_without_claims_skips() -> None:
    status, _, _ = run_filter(VolumeBinding(), make_cluster(), PodInfo.from_dict(make_pod("p")))
    assert status.code == Code.SKIP


@pytest.mark.parametrize(
    ("objects", "claim", "message"),
    [
        ((), "missing", 'persistentvolumeclaim "missing" not found'),
        ((make_pvc("c", meta={"deletionTimestamp": "2024-01-01T00:00:00Z"}),), "c", 'persistentvolumeclaim "c" is being deleted'),
        ((make_pvc("c", volume="pv", status={"phase": "Lost"}),), "c", 'persistentvolumeclaim "c" bound to non-existent persistentvolume "pv"'),
        ((make_pvc("c", storage_class="imm"), storage_class("imm", "Immediate")), "c", ERR_UNBOUND_IMMEDIATE),
        ((make_pvc("c", storage_class=""),), "c", ERR_UNBOUND_IMMEDIATE),  # no class: immediate
        ((make_pvc("c", storage_class="ghost"),), "c", ERR_UNBOUND_IMMEDIATE),  # unknown class: immediate
        ((make_pvc("c", volume="pv"), storage_class("local")), "c", ERR_UNBOUND_IMMEDIATE),  # pre-bound, not completed
    ],
)
def test_pre_filter_unresolvable(objects: tuple[dict[str, Any], ...], claim: str, message: str) -> None:
    status, _, _ = run_filter(VolumeBinding(), make_cluster(*objects), claim_pod(claim))
    assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.reasons == (message,)


def test_ephemeral_claim_not_created_yet() -> None:
    pod = PodInfo.from_dict(make_pod("p", uid="p", volumes=[{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {}}}]))
    status, _, _ = run_filter(VolumeBinding(), make_cluster(), pod)
    assert status.reasons == ('waiting for ephemeral volume controller to create the persistentvolumeclaim "p-scratch"',)


def test_bound_claim_checks_pv_node_affinity() -> None:
    cluster = make_cluster(make_pv("pv", zones=("a",), phase="Bound"), make_pvc("c", volume="pv", bound=True))
    _, _, out = run_filter(VolumeBinding(), cluster, claim_pod("c"))
    assert out == {"node-a-0": (), "node-b-1": (ERR_REASON_NODE_CONFLICT,)}


def test_bound_claim_phase_bound_without_annotation_counts_as_bound() -> None:
    cluster = make_cluster(make_pv("pv", zones=("b",), phase="Bound"), make_pvc("c", volume="pv", status={"phase": "Bound"}))
    _, _, out = run_filter(VolumeBinding(), cluster, claim_pod("c"))
    assert out == {"node-a-0": (ERR_REASON_NODE_CONFLICT,), "node-b-1": ()}


def test_bound_claim_with_missing_pv() -> None:
    cluster = make_cluster(make_pvc("c", volume="gone", bound=True))
    _, _, out = run_filter(VolumeBinding(), cluster, claim_pod("c"))
    assert out == {"node-a-0": (ERR_REASON_PV_NOT_EXIST,), "node-b-1": (ERR_REASON_PV_NOT_EXIST,)}


def test_delayed_claim_matches_available_pv_on_its_node() -> None:
    cluster = make_cluster(storage_class("local"), make_pvc("c"), make_pv("pv-a", zones=("a",)))
    plugin = VolumeBinding()
    _, state, out = run_filter(plugin, cluster, claim_pod("c"))
    assert out == {"node-a-0": (), "node-b-1": (ERR_REASON_BIND_CONFLICT,)}


@pytest.mark.parametrize(
    ("pvs", "chosen"),
    [
        ([make_pv("big", "100Gi"), make_pv("small", "6Gi"), make_pv("tiny", "1Gi")], "small"),  # smallest that fits
        ([make_pv("rwx", modes=("ReadWriteMany",)), make_pv("rwo", "50Gi")], "rwo"),  # access modes must cover
        ([make_pv("other", storage_class="fast"), make_pv("mine", "20Gi")], "mine"),  # same class only
        ([make_pv("taken", claim_ref="someone"), make_pv("free", "20Gi")], "free"),
        ([make_pv("released", phase="Released"), make_pv("free", "20Gi")], "free"),
        ([make_pv("small", "6Gi"), make_pv("prebound", "50Gi", claim_ref="c")], "prebound"),  # pre-bound wins
        ([make_pv("nophase", phase=None)], "nophase"),  # hand-made PV without status counts as Available
        ([make_pv("block", "6Gi") | {"spec": make_pv("block", "6Gi")["spec"] | {"volumeMode": "Block"}}, make_pv("fs", "7Gi")], "fs"),
    ],
)
def test_find_matching_volume(pvs: list[dict[str, Any]], chosen: str) -> None:
    cluster = make_cluster(storage_class("local"), make_pvc("c"), *pvs, zones=("a",))
    plugin = VolumeBinding()
    pod = claim_pod("c")
    _, state, out = run_filter(plugin, cluster, pod)
    assert out == {"node-a-0": ()}
    assert plugin.reserve(state, pod, "node-a-0", cluster) is None
    assert state["VolumeBinding"].assignments == [{"claim": "default/c", "pv": chosen, "node": "node-a-0"}]


@pytest.mark.parametrize(("claim_vac", "pvs", "chosen"), [
    ("gold", [make_pv("plain", "6Gi"), make_pv("gold", "9Gi") | {"spec": make_pv("gold", "9Gi")["spec"]
                                                                  | {"volumeAttributesClassName": "gold"}}], "gold"),
    ("", [make_pv("gold", "6Gi") | {"spec": make_pv("gold", "6Gi")["spec"] | {"volumeAttributesClassName": "gold"}},
          make_pv("plain", "9Gi")], "plain"),
], ids=["claim-with-vac-takes-the-pv-with-that-vac", "claim-without-vac-skips-pvs-with-one"])
def test_find_matching_volume_volume_attributes_class(claim_vac: str, pvs: list[dict[str, Any]], chosen: str) -> None:
    """FindMatchingVolume under VolumeAttributesClass (GA, locked on): a PV matches only a claim with the same
    volumeAttributesClassName (none on both counts as the same), before the smallest size is picked."""
    pvc = make_pvc("c")
    if claim_vac:
        pvc["spec"]["volumeAttributesClassName"] = claim_vac
    cluster = make_cluster(storage_class("local"), pvc, *pvs, zones=("a",))
    plugin = VolumeBinding()
    pod = claim_pod("c")
    _, state, out = run_filter(plugin, cluster, pod)
    assert out == {"node-a-0": ()}
    plugin.reserve(state, pod, "node-a-0", cluster)
    assert state["VolumeBinding"].assignments[0]["pv"] == chosen


def test_claim_selector_filters_pvs() -> None:
    pvc = make_pvc("c")
    pvc["spec"]["selector"] = {"matchLabels": {"tier": "gold"}}
    cluster = make_cluster(
        storage_class("local"), pvc, make_pv("plain", "6Gi"), make_pv("gold", "9Gi", labels={"tier": "gold"}), zones=("a",)
    )
    plugin = VolumeBinding()
    pod = claim_pod("c")
    _, state, _ = run_filter(plugin, cluster, pod)
    plugin.reserve(state, pod, "node-a-0", cluster)
    assert state["VolumeBinding"].assignments[0]["pv"] == "gold"


def test_two_claims_get_distinct_pvs_smallest_claim_first() -> None:
    cluster = make_cluster(
        storage_class("local"),
        make_pvc("big", "8Gi"),
        make_pvc("small", "1Gi"),
        make_pv("pv-2", "2Gi"),
        make_pv("pv-9", "9Gi"),
        zones=("a",),
    )
    plugin = VolumeBinding()
    pod = claim_pod("big", "small")
    _, state, out = run_filter(plugin, cluster, pod)
    assert out == {"node-a-0": ()}
    plugin.reserve(state, pod, "node-a-0", cluster)
    got = {a["claim"]: a["pv"] for a in state["VolumeBinding"].assignments}
    assert got == {"default/small": "pv-2", "default/big": "pv-9"}


def test_only_one_pv_for_two_claims_conflicts() -> None:
    cluster = make_cluster(storage_class("local"), make_pvc("c1"), make_pvc("c2"), make_pv("only"), zones=("a",))
    _, _, out = run_filter(VolumeBinding(), cluster, claim_pod("c1", "c2"))
    assert out == {"node-a-0": (ERR_REASON_BIND_CONFLICT,)}


def test_dynamic_provisioning_respects_allowed_topologies() -> None:
    topo = [{"matchLabelExpressions": [{"key": ZONE, "values": ["b"]}]}]
    cluster = make_cluster(storage_class("csi", provisioner="ebs.csi.aws.com", topologies=topo), make_pvc("c", storage_class="csi"))
    plugin = VolumeBinding()
    pod = claim_pod("c")
    _, state, out = run_filter(plugin, cluster, pod)
    assert out == {"node-a-0": (ERR_REASON_BIND_CONFLICT,), "node-b-1": ()}
    plugin.reserve(state, pod, "node-b-1", cluster)
    assert state["VolumeBinding"].assignments == [{"claim": "default/c", "pv": None, "node": "node-b-1"}]


def test_dynamic_provisioning_without_topologies_fits_everywhere() -> None:
    cluster = make_cluster(storage_class("csi", provisioner="ebs.csi.aws.com"), make_pvc("c", storage_class="csi"))
    _, _, out = run_filter(VolumeBinding(), cluster, claim_pod("c"))
    assert out == {"node-a-0": (), "node-b-1": ()}


def test_no_provisioner_and_no_pv_conflicts_everywhere() -> None:
    cluster = make_cluster(storage_class("local"), make_pvc("c"))
    _, _, out = run_filter(VolumeBinding(), cluster, claim_pod("c"))
    assert out == {"node-a-0": (ERR_REASON_BIND_CONFLICT,), "node-b-1": (ERR_REASON_BIND_CONFLICT,)}


def test_selected_node_annotation_pins_the_claim() -> None:
    cluster = make_cluster(
        storage_class("csi", provisioner="ebs.csi.aws.com"),
        make_pvc("c", storage_class="csi", annotations={"volume.kubernetes.io/selected-node": "node-b-1"}),
    )
    _, _, out = run_filter(VolumeBinding(), cluster, claim_pod("c"))
    assert out == {"node-a-0": (ERR_REASON_BIND_CONFLICT,), "node-b-1": ()}


def test_bound_and_unbound_reasons_combine() -> None:
    cluster = make_cluster(
        storage_class("local"),
        make_pv("pv-bound", zones=("a",), phase="Bound"),
        make_pvc("b", volume="pv-bound", bound=True),
        make_pvc("u"),
        make_pv("pv-free", zones=("c",)),
    )
    _, _, out = run_filter(VolumeBinding(), cluster, claim_pod("b", "u"))
    assert out == {"node-a-0": (ERR_REASON_BIND_CONFLICT,), "node-b-1": (ERR_REASON_NODE_CONFLICT, ERR_REASON_BIND_CONFLICT)}


def test_reserve_assumes_pv_until_unreserve() -> None:
    cluster = make_cluster(storage_class("local"), make_pvc("c1"), make_pvc("c2"), make_pv("only"), zones=("a",))
    plugin = VolumeBinding()
    first = claim_pod("c1", name="first")
    _, state1, out = run_filter(plugin, cluster, first)
    assert out == {"node-a-0": ()}
    assert plugin.reserve(state1, first, "node-a-0", cluster) is None
    second = claim_pod("c2", name="second")
    _, _, out = run_filter(plugin, cluster, second)
    assert out == {"node-a-0": (ERR_REASON_BIND_CONFLICT,)}  # the PV is assumed for c1
    # A pod sharing c1 still sees the PV as pre-bound to its claim.
    _, _, out = run_filter(plugin, cluster, claim_pod("c1", name="sharer"))
    assert out == {"node-a-0": ()}
    plugin.unreserve(state1, first, cluster)
    _, _, out = run_filter(plugin, cluster, second)
    assert out == {"node-a-0": ()}


def test_assumption_survives_new_plugin_instance_and_drops_when_bound() -> None:
    cluster = make_cluster(storage_class("local"), make_pvc("c1"), make_pvc("c2"), make_pv("only"), zones=("a",))
    first = claim_pod("c1", name="first")
    plugin = VolumeBinding()
    _, state, _ = run_filter(plugin, cluster, first)
    plugin.reserve(state, first, "node-a-0", cluster)
    _, _, out = run_filter(VolumeBinding(), cluster, claim_pod("c2", name="second"))  # e.g. after a reload
    assert out == {"node-a-0": (ERR_REASON_BIND_CONFLICT,)}
    cluster.upsert_object("PersistentVolume", make_pv("only", claim_ref="c1", phase="Bound"))
    _, _, out = run_filter(VolumeBinding(), cluster, claim_pod("c2", name="second"))
    assert out == {"node-a-0": (ERR_REASON_BIND_CONFLICT,)}  # now really bound to c1


def volume_handle(cluster: ClusterState, pod: PodInfo | None = None) -> tuple[FrameworkHandle, EmbeddedCluster]:
    """The runtime's Handle over an embedded cluster holding the cache's volume objects (and the
    pod being bound: PreBind stops waiting for a pod that no longer exists)."""
    backend = EmbeddedCluster()
    if pod is not None:
        backend.apply({"kind": "Pod", **pod.raw})
    for kind in ("PersistentVolume", "PersistentVolumeClaim", "StorageClass"):
        for obj in cluster.list_objects(kind):
            backend.apply({"kind": kind, **obj})
    fw = build_generation(config=parse_configuration({"profiles": [{"schedulerName": "kubeberth"}]})).default_profile
    return FrameworkHandle(fw, backend, cluster, lambda: 0.0, {}), backend


def test_pre_bind_sets_claim_ref_on_the_chosen_pv() -> None:
    cluster = make_cluster(storage_class("local"), make_pvc("c"), make_pv("pv"), zones=("a",))
    plugin = VolumeBinding()
    pod = claim_pod("c")
    _, state, _ = run_filter(plugin, cluster, pod)
    plugin.reserve(state, pod, "node-a-0", cluster)
    handle, backend = volume_handle(cluster, pod)
    assert plugin.pre_bind(state, pod, handle) is None
    pv = backend.get("PersistentVolume", "pv")
    assert pv["spec"]["claimRef"]["name"] == "c" and pv["spec"]["claimRef"]["namespace"] == "default"
    assert pv["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"] == "yes"
    assert pv["status"]["phase"] == "Bound"  # the embedded cluster is its own PV controller
    assert backend.get("PersistentVolumeClaim", "default/c")["spec"]["volumeName"] == "pv"


def test_pre_bind_fails_when_the_pv_was_claimed_meanwhile() -> None:
    cluster = make_cluster(storage_class("local"), make_pvc("c"), make_pv("pv"), zones=("a",))
    plugin = VolumeBinding()
    pod = claim_pod("c")
    _, state, _ = run_filter(plugin, cluster, pod)
    plugin.reserve(state, pod, "node-a-0", cluster)
    handle, backend = volume_handle(cluster, pod)
    backend.apply({"kind": "PersistentVolume", **make_pv("pv", claim_ref="other")})
    status = plugin.pre_bind(state, pod, handle)
    assert status.code == Code.ERROR
    assert status.message == 'binding volumes of default/p: persistentvolume "pv" is already claimed by default/other'


def test_pre_bind_marks_claims_to_provision_with_the_selected_node() -> None:
    cluster = make_cluster(storage_class("csi", provisioner="csi.example.com"), make_pvc("c", storage_class="csi"), zones=("a",))
    plugin = VolumeBinding()
    pod = claim_pod("c")
    _, state, _ = run_filter(plugin, cluster, pod)
    plugin.reserve(state, pod, "node-a-0", cluster)
    handle, backend = volume_handle(cluster, pod)
    assert plugin.pre_bind(state, pod, handle) is None
    pvc = backend.get("PersistentVolumeClaim", "default/c")
    assert pvc["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] == "node-a-0"


def test_pre_bind_skips_when_all_bound() -> None:
    cluster = make_cluster(make_pv("pv", phase="Bound"), make_pvc("c", volume="pv", bound=True), zones=("a",))
    plugin = VolumeBinding()
    pod = claim_pod("c")
    _, state, _ = run_filter(plugin, cluster, pod)
    plugin.reserve(state, pod, "node-a-0", cluster)
    handle, backend = volume_handle(cluster, pod)
    before = backend.get("PersistentVolume", "pv")
    assert plugin.pre_bind(state, pod, handle) is None
    assert backend.get("PersistentVolume", "pv") is before  # nothing written


def test_pre_bind_waits_until_the_pv_controller_binds() -> None:
    """BindPodVolumes polls until the claim is fully bound; a controller that never binds it
    runs into bindTimeoutSeconds ("binding volumes: context deadline exceeded")."""
    cluster = make_cluster(storage_class("local"), make_pvc("c"), make_pv("pv"), zones=("a",))
    plugin = VolumeBinding(VolumeBinding.Args(bindTimeoutSeconds=1))
    pod = claim_pod("c")
    _, state, _ = run_filter(plugin, cluster, pod)
    plugin.reserve(state, pod, "node-a-0", cluster)
    handle, backend = volume_handle(cluster, pod)
    backend._pv_controller = lambda pv: None  # type: ignore[method-assign]  # no PV controller
    status = plugin.pre_bind(state, pod, handle)
    assert status is not None and status.code == Code.ERROR
    assert status.message == "binding volumes: context deadline exceeded"
    assert backend.get("PersistentVolume", "pv")["spec"]["claimRef"]["name"] == "c"  # the API update was made


def test_pre_bind_stops_waiting_when_the_binding_is_undone_or_the_pod_is_gone() -> None:
    cluster = make_cluster(storage_class("local"), make_pvc("c"), make_pv("pv"), zones=("a",))
    plugin = VolumeBinding()
    pod = claim_pod("c")
    _, state, _ = run_filter(plugin, cluster, pod)
    plugin.reserve(state, pod, "node-a-0", cluster)
    handle, backend = volume_handle(cluster, pod)

    def unbind(pv: dict) -> None:  # a controller that drops the claimRef (unbindVolume)
        pv = {**pv, "spec": {k: v for k, v in pv["spec"].items() if k != "claimRef"}}
        backend.apply(pv)

    backend._pv_controller = unbind  # type: ignore[method-assign]
    status = plugin.pre_bind(state, pod, handle)
    assert status is not None and status.message == 'binding volumes: ClaimRef got reset for pv "pv"'
    backend.delete("Pod", "default/p")
    status = plugin.pre_bind(state, pod, handle)
    assert status is not None and status.message == 'binding volumes: pod does not exist any more: pods "p" not found'


def test_evaluated_once_per_label_set() -> None:
    cluster = make_cluster(storage_class("local"), make_pvc("c"), make_pv("pv-a", zones=("a",)), zones=("a", "a", "b", "b", "a"))
    plugin = VolumeBinding()
    _, state, out = run_filter(plugin, cluster, claim_pod("c"))
    assert [bool(not r) for r in out.values()] == [n.startswith("node-a") for n in out]
    # node names differ, so each node has its own label set (hostname label); results are cached per set.
    assert len(state["VolumeBinding"].results) == 5


@pytest.mark.parametrize(
    ("expr", "labels", "ok"),
    [
        ({"key": "k", "operator": "In", "values": ["v"]}, {"k": "v"}, True),
        ({"key": "k", "operator": "In", "values": ["v"]}, {}, False),
        ({"key": "k", "operator": "NotIn", "values": ["v"]}, {}, True),
        ({"key": "k", "operator": "NotIn", "values": ["v"]}, {"k": "v"}, False),
        ({"key": "k", "operator": "Exists"}, {"k": ""}, True),
        ({"key": "k", "operator": "DoesNotExist"}, {"k": ""}, False),
        ({"key": "k", "operator": "Gt", "values": ["5"]}, {"k": "6"}, True),
        ({"key": "k", "operator": "Lt", "values": ["5"]}, {"k": "6"}, False),
        ({"key": "k", "operator": "Gt", "values": ["x"]}, {"k": "6"}, False),
        ({"key": "k", "operator": "Bogus", "values": ["v"]}, {"k": "v"}, False),
    ],
)
def test_node_selector_requirements(expr: dict[str, Any], labels: dict[str, str], ok: bool) -> None:
    assert node_selector_terms_match([{"matchExpressions": [expr]}], labels) is ok


def test_node_selector_terms_are_ored_and_empty_matches_nothing() -> None:
    a = {"matchExpressions": [{"key": "z", "operator": "In", "values": ["a"]}]}
    b = {"matchExpressions": [{"key": "z", "operator": "In", "values": ["b"]}]}
    assert node_selector_terms_match([a, b], {"z": "b"})
    assert not node_selector_terms_match([{}], {"z": "b"})
    assert not node_selector_terms_match([], {"z": "b"})


def test_topology_terms() -> None:
    assert topology_terms_match(None, {})
    assert topology_terms_match([], {})
    term = {"matchLabelExpressions": [{"key": ZONE, "values": ["a", "b"]}]}
    assert topology_terms_match([term], {ZONE: "b"})
    assert not topology_terms_match([term], {ZONE: "c"})
    assert not topology_terms_match([{"matchLabelExpressions": []}], {ZONE: "a"})


def test_args_validation() -> None:
    assert VolumeBinding.Args.model_validate({"bindTimeoutSeconds": 30}).bindTimeoutSeconds == 30
    with pytest.raises(ValueError):
        VolumeBinding.Args.model_validate({"bindTimeoutSeconds": -1})


# ---- storage capacity: binder_test.go's TestCapacity, case by case -------------------------------
_NODE_KEY, _PROVISIONER, _CLASS = "nodeKey", "test-provisioner", "waitClassWithProvisioner"


def _capacity(name: str, storage_class: str, node: str | None, capacity: str, maximum: str) -> dict[str, Any]:
    c: dict[str, Any] = {"kind": "CSIStorageCapacity", "metadata": {"name": name, "namespace": "default"},
                         "storageClassName": storage_class, "nodeTopology": {}}
    if node is not None:
        c["nodeTopology"]["matchLabels"] = {_NODE_KEY: node}
    if capacity:
        c["capacity"] = capacity
    if maximum:
        c["maximumVolumeSize"] = maximum
    return c


_NET = _capacity("net", _CLASS, None, "1Gi", "")
_NODE1 = _capacity("net", _CLASS, "node1", "1Gi", "")
_NODE2 = _capacity("net", _CLASS, "node2", "1Gi", "")
CAPACITY_SCENARIOS = {  # name -> (capacities, the capacity chosen, rejected for lack of space)
    "TestCapacity/network-attached": ([_NET], _NET, False),
    "TestCapacity/local-storage": ([_NODE1], _NODE1, False),
    "TestCapacity/multiple": ([_NET, _NODE2, _NODE1], _NODE1, False),  # one name: the last one created is the object
    "TestCapacity/no-storage": ([], None, True),
    "TestCapacity/wrong-node": ([_capacity("net", _CLASS, "node2", "1Gi", "")], None, True),
    "TestCapacity/wrong-storage-class": ([_capacity("net", "waitClass", "node1", "1Gi", "")], None, True),
    "TestCapacity/insufficient-storage": ([_capacity("net", _CLASS, "node1", "1Mi", "")], None, True),
    "TestCapacity/insufficient-volume-size": ([_capacity("net", _CLASS, "node1", "1Gi", "1Mi")], None, True),
    "TestCapacity/zero-storage": ([_capacity("net", _CLASS, "node1", "0Mi", "")], None, True),
    "TestCapacity/zero-volume-size": ([_capacity("net", _CLASS, "node1", "", "0Mi")], None, True),
    "TestCapacity/nil-storage": ([_capacity("net", _CLASS, "node1", "", "")], None, True),
}


@pytest.mark.parametrize("opt_in", [True, False], ids=["CSIDriver.StorageCapacity=true", "CSIDriver.StorageCapacity=false"])
@pytest.mark.parametrize("name", list(CAPACITY_SCENARIOS))
def test_storage_capacity_check(name: str, opt_in: bool) -> None:
    """A driver that does not opt in is never checked; one that does needs a CSIStorageCapacity of the
    claim's class, admitting the node, whose volume limit (maximumVolumeSize, else capacity) holds it."""
    capacities, chosen, rejected = CAPACITY_SCENARIOS[name]
    storage_class = {"kind": "StorageClass", "metadata": {"name": _CLASS}, "provisioner": _PROVISIONER,
                     "volumeBindingMode": "WaitForFirstConsumer",
                     "allowedTopologies": [{"matchLabelExpressions": [{"key": _NODE_KEY, "values": ["node1", "reference-value"]}]}]}
    driver = {"kind": "CSIDriver", "metadata": {"name": _PROVISIONER}, "spec": {"storageCapacity": opt_in}}
    claim = {"kind": "PersistentVolumeClaim", "metadata": {"name": "provisioned-pvc", "namespace": "default", "uid": "pvc-uid"},
             "spec": {"storageClassName": _CLASS, "volumeMode": "Filesystem", "resources": {"requests": {"storage": "1Gi"}}}}
    node = {"kind": "Node", "metadata": {"name": "node1", "labels": {_NODE_KEY: "node1"}}}
    cluster = cluster_of([node], [], [storage_class, driver, claim, *capacities])
    status, _state, verdicts = run_filter(VolumeBinding(), cluster, claim_pod("provisioned-pvc"))
    assert status is None
    assert verdicts == {"node1": (ERR_REASON_NOT_ENOUGH_SPACE,) if opt_in and rejected else ()}
    found = has_enough_capacity(cluster, _PROVISIONER, claim, storage_class, {_NODE_KEY: "node1"})
    assert found == ((not rejected, chosen) if opt_in else (True, None))
