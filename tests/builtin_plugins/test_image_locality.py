"""ImageLocality: kube-scheduler's image_locality_test cases and formula."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from kubeberth import CycleState
from kubeberth.builtin_plugins.image_locality import ImageLocality, normalized_image_name
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo
from kubeberth.testing import SchedulerTester, all_nodes, cluster_of

MB = 1024 * 1024


def node(name: str, images: dict[str, int]) -> dict[str, Any]:
    return {"metadata": {"name": name}, "status": {"images": [{"names": [n], "sizeBytes": s} for n, s in images.items()]}}


def pod(*images: str, init: tuple[str, ...] = ()) -> PodInfo:
    spec = {
        "containers": [{"name": f"c{i}", "image": img} for i, img in enumerate(images)],
        "initContainers": [{"name": f"i{i}", "image": img} for i, img in enumerate(init)],
    }
    return PodInfo.from_dict({"metadata": {"name": "p"}, "spec": spec})


def scores(nodes: list[dict[str, Any]], p: PodInfo, plugin: ImageLocality | None = None, cluster: ClusterState | None = None) -> list[int]:
    """The plugin's scores called directly; for a fresh cluster, checked against a cycle of a profile running it."""
    fresh = cluster is None
    if cluster is None:
        cluster = cluster_of(nodes)
    direct = (plugin or ImageLocality()).score(state=CycleState(), pod=p, nodes=all_nodes(cluster)).tolist()
    if fresh:
        with SchedulerTester(["ImageLocality"], objects=[{"kind": "Node", **n} for n in nodes]) as t:
            names = [n["metadata"]["name"] for n in nodes]
            assert t.evaluate(p).scores["ImageLocality"] == dict(zip(names, direct, strict=True))
    return direct


NODE_40_300_2000 = node("node1", {"gcr.io/40:latest": 40 * MB, "gcr.io/300:latest": 300 * MB, "gcr.io/2000:latest": 2000 * MB})
NODE_250_10 = node("node2", {"gcr.io/250:latest": 250 * MB, "gcr.io/10:v1": 10 * MB})


def priority(total: int, containers: int) -> int:
    hi = 1000 * MB * containers
    total = min(max(total, 23 * MB), hi)
    return 100 * (total - 23 * MB) // (hi - 23 * MB)


def test_two_images_spread_on_two_nodes_prefer_the_larger_one():
    # node1: 40MB * 1/2 = 20MB (< 23MB) -> 0 ; node2: 250MB * 1/2 = 125MB -> 100*(125-23)/(2000-23) = 5
    assert scores([NODE_40_300_2000, NODE_250_10], pod("gcr.io/40", "gcr.io/250")) == [0, 5]


def test_two_images_on_one_node_prefer_that_node():
    # node1: (40 + 300) * 1/2 = 170MB -> 100*(170-23)/(2000-23) = 7 ; node2: 0
    assert scores([NODE_40_300_2000, NODE_250_10], pod("gcr.io/40", "gcr.io/300")) == [7, 0]


def test_huge_image_is_clamped_to_the_per_container_maximum():
    # 2000MB * 1/2 = 1000MB with one container -> 100 ; gcr.io/10 is tagged v1 on node2, not latest -> 0
    assert scores([NODE_40_300_2000, NODE_250_10], pod("gcr.io/2000", "gcr.io/10")) == [
        priority(1000 * MB, 2), 0,
    ]
    assert scores([NODE_40_300_2000, NODE_250_10], pod("gcr.io/2000")) == [100, 0]


def test_image_spread_across_all_nodes_counts_in_full():
    nodes = [node(f"n{i}", {"gcr.io/300:latest": 300 * MB}) for i in range(3)] + [node("n3", {})]
    # spread 3/4: int(300MB * 0.75) = 225MB -> 100*(225-23)/(1000-23) = 20
    assert scores(nodes, pod("gcr.io/300")) == [20, 20, 20, 0]


def test_init_containers_count_in_sum_and_threshold():
    n = [node("node1", {"gcr.io/300:latest": 300 * MB, "gcr.io/init:latest": 500 * MB})]
    # both present on the only node: 800MB over 2 containers -> 100*(800-23)/(2000-23) = 39
    assert scores(n, pod("gcr.io/300", init=("gcr.io/init",))) == [39]


def test_normalization():
    assert normalized_image_name("gcr.io/foo") == "gcr.io/foo:latest"
    assert normalized_image_name("gcr.io:5000/foo") == "gcr.io:5000/foo:latest"
    assert normalized_image_name("gcr.io/foo:v1") == "gcr.io/foo:v1"
    assert normalized_image_name("gcr.io/foo@sha256:abc") == "gcr.io/foo@sha256:abc"


def test_index_follows_node_updates():
    plugin = ImageLocality()
    cluster = ClusterState()
    cluster.upsert_node(node("a", {"gcr.io/big:latest": 900 * MB}))
    cluster.upsert_node(node("b", {}))
    assert scores([], pod("gcr.io/big"), plugin, cluster) == [priority(450 * MB, 1), 0]
    cluster.upsert_node(node("b", {"gcr.io/big:latest": 900 * MB}))  # the image got pulled on b
    assert scores([], pod("gcr.io/big"), plugin, cluster) == [priority(900 * MB, 1)] * 2
    cluster.remove_node("a")
    assert scores([], pod("gcr.io/big"), plugin, cluster) == [priority(900 * MB, 1)]


def test_matches_reference_on_random_nodes():
    rng = np.random.default_rng(11)
    images = [f"repo/img{i}:latest" for i in range(8)]
    sizes = {img: int(rng.integers(1, 1500)) * MB + int(rng.integers(0, MB)) for img in images}
    nodes = []
    for i in range(50):
        held = [img for img in images if rng.random() < 0.4]
        nodes.append(node(f"n{i:02d}", {img: sizes[img] for img in held}))
    counts = {img: sum(1 for n in nodes if any(x["names"][0] == img for x in n["status"]["images"])) for img in images}
    p = pod("repo/img1", "repo/img3", init=("repo/img5",))
    want = []
    for n in nodes:
        held = {x["names"][0] for x in n["status"]["images"]}
        total = sum(int(float(sizes[img]) * (float(counts[img]) / 50.0)) for img in ("repo/img1:latest", "repo/img3:latest", "repo/img5:latest") if img in held)
        want.append(priority(total, 3))
    assert scores(nodes, p) == want


# TestImageLocalityPriority, v1.37.2, verbatim: fixtures (image names, sizes) and expected scores.
def image_node(name: str, images: list[tuple[list[str], int]]) -> dict[str, Any]:
    return {"metadata": {"name": name}, "status": {"images": [{"names": n, "sizeBytes": s} for n, s in images]}}


def spec_pod(containers: list[str], init: list[str] = (), volumes: list[str] = ()) -> PodInfo:  # type: ignore[assignment]
    spec: dict[str, Any] = {"containers": [{"image": img} for img in containers]}
    if init:
        spec["initContainers"] = [{"image": img} for img in init]
    if volumes:
        spec["volumes"] = [{"name": "imageVolume", "image": {"reference": ref}} for ref in volumes]
    return PodInfo.from_dict({"metadata": {"name": "p"}, "spec": spec})


TEST_40_250 = (["gcr.io/40", "gcr.io/250"],)
TEST_40_300 = (["gcr.io/40", "gcr.io/300"],)
TEST_MIN_MAX = (["gcr.io/10", "gcr.io/4000"],)
TEST_300_600_900 = (["gcr.io/300", "gcr.io/600", "gcr.io/900"],)
TEST_30_40 = (["gcr.io/30", "gcr.io/40"],)
TEST_IMAGE_VOLUME = (["gcr.io/30"], (), ["gcr.io/300"])
TEST_30_300_AS_CONTAINERS = (["gcr.io/30", "gcr.io/300"],)
TEST_30_INIT_300 = (["gcr.io/30"], ["gcr.io/300"])

S_403002000 = [(["gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"], 40 * MB),
               (["gcr.io/300:latest", "gcr.io/300:v1"], 300 * MB), (["gcr.io/2000:latest"], 2000 * MB)]
S_25010 = [(["gcr.io/250:latest"], 250 * MB), (["gcr.io/10:latest", "gcr.io/10:v1"], 10 * MB)]
S_60040900 = [(["gcr.io/600:latest"], 600 * MB), (["gcr.io/40:latest"], 40 * MB), (["gcr.io/900:latest"], 900 * MB)]
S_300600900 = [(["gcr.io/300:latest"], 300 * MB), (["gcr.io/600:latest"], 600 * MB), (["gcr.io/900:latest"], 900 * MB)]
S_400030 = [(["gcr.io/4000:latest"], 4000 * MB), (["gcr.io/30:latest"], 30 * MB)]
S_203040 = [(["gcr.io/20:latest"], 20 * MB), (["gcr.io/30:latest"], 30 * MB), (["gcr.io/40:latest"], 40 * MB)]
S_NONE: list[tuple[list[str], int]] = []

UPSTREAM_PRIORITY = [
    ("TestImageLocalityPriority/two images spread on two nodes, prefer the larger image one", TEST_40_250,
     [("node1", S_403002000), ("node2", S_25010)], [0, 5]),
    ("TestImageLocalityPriority/two images on one node, prefer this node", TEST_40_300, [("node1", S_403002000), ("node2", S_25010)], [7, 0]),
    ("TestImageLocalityPriority/if exceed limit, use limit", TEST_MIN_MAX, [("node1", S_400030), ("node2", S_25010)], [100, 0]),
    ("TestImageLocalityPriority/if exceed limit, use limit (with node which has no images present)", TEST_MIN_MAX,
     [("node1", S_400030), ("node2", S_25010), ("node3", S_NONE)], [66, 0, 0]),
    ("TestImageLocalityPriority/pod with multiple large images, node2 is preferred", TEST_300_600_900,
     [("node1", S_60040900), ("node2", S_300600900), ("node3", S_NONE)], [32, 36, 0]),
    ("TestImageLocalityPriority/pod with multiple small images", TEST_30_40, [("node1", S_203040), ("node2", S_400030)], [1, 0]),
    ("TestImageLocalityPriority/pod with ImageVolume", TEST_IMAGE_VOLUME, [("node1", S_300600900), ("node2", S_400030)], [6, 0]),
    ("TestImageLocalityPriority/same images as ImageVolume pod but as regular container images", TEST_30_300_AS_CONTAINERS,
     [("node1", S_300600900), ("node2", S_400030)], [6, 0]),
    ("TestImageLocalityPriority/include InitContainers: two images spread on two nodes, prefer the larger image one", TEST_30_INIT_300,
     [("node1", S_403002000), ("node2", S_203040)], [6, 0]),
]


@pytest.mark.parametrize(
    ("spec", "nodes", "expected"), [c[1:] for c in UPSTREAM_PRIORITY],
    ids=[c[0] for c in UPSTREAM_PRIORITY],
)
def test_upstream_image_locality_priority(spec: tuple, nodes: list, expected: list[int]) -> None:
    assert scores([image_node(n, s) for n, s in nodes], spec_pod(*spec)) == expected


def test_image_volume_counts_even_when_absent() -> None:
    """An image volume raises the threshold like a container, whether or not the node holds it."""
    n = [image_node("node1", [(["gcr.io/300:latest"], 300 * MB)])]
    assert scores(n, spec_pod(["gcr.io/300"])) == [priority(300 * MB, 1)]
    assert scores(n, spec_pod(["gcr.io/300"], (), ["gcr.io/missing"])) == [priority(300 * MB, 2)]


# TestImageSignature, v1.37.2, verbatim
IMAGE_SIGNATURE_CASES = [
    ("TestImageSignature/no images", [], []),
    ("TestImageSignature/one image", [{"name": "c", "image": "myimage"}], ["myimage:latest"]),
    ("TestImageSignature/two images unsorted", [{"name": "c", "image": "zmyimage"}, {"name": "c2", "image": "myimage"}],
     ["myimage:latest", "zmyimage:latest"]),
]


@pytest.mark.parametrize(("containers", "value"), [c[1:] for c in IMAGE_SIGNATURE_CASES],
                         ids=[c[0] for c in IMAGE_SIGNATURE_CASES])
def test_upstream_image_signature(containers: list[dict[str, Any]], value: list[str]) -> None:
    from kubeberth.api.signing import IMAGE_NAMES_SIGNER

    got = ImageLocality().sign_pod(pod=PodInfo.from_dict({"kind": "Pod", "spec": {"containers": containers}}))
    assert [(f.key, list(f.value)) for f in got] == [(IMAGE_NAMES_SIGNER, value)]
