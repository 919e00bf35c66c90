"""The podGroupPostFilter plugin set (kube-scheduler v1.37's Plugins.PodGroupPostFilter): the plugins asked when a
pod group's cycle is Unschedulable, configured apart from postFilter, as podgroup_test.go's
TestPodGroupPostFilterIteration and TestPostFilterNotCalled configure them."""

from __future__ import annotations

from kubeberth.api.features import FeatureGates
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation

GATES = FeatureGates.parse("GenericWorkload=true")


def profile(plugins: dict[str, object]) -> object:
    config = parse_configuration({"profiles": [{"schedulerName": "kubeberth", "plugins": plugins}]})
    return build_generation(config=config, feature_gates=GATES).default_profile


def test_multi_point_puts_default_preemption_at_both_sets() -> None:
    fw = build_generation(feature_gates=GATES).default_profile
    assert fw.enabled("pod_group_post_filter") == ["DefaultPreemption"]
    assert "DefaultPreemption" in fw.enabled("post_filter")
    assert [h.plugin for h in fw.pod_group_hooks.post_filter] == ["DefaultPreemption"]


def test_disabled_at_pod_group_post_filter_only() -> None:
    """TestPodGroupPostFilterIteration's profile: DefaultPreemption disabled at podGroupPostFilter keeps its PostFilter."""
    fw = profile({"multiPoint": {"enabled": [{"name": "GangScheduling"}]},
                  "podGroupPostFilter": {"disabled": [{"name": "DefaultPreemption"}]}})
    assert fw.enabled("pod_group_post_filter") == []
    assert fw.pod_group_hooks.post_filter == ()
    assert "DefaultPreemption" in fw.enabled("post_filter")


def test_post_filter_set_leaves_pod_group_post_filter_alone() -> None:
    """TestPostFilterNotCalled's profile: postFilter plugins are not asked for a pod group."""
    fw = profile({"postFilter": {"enabled": [{"name": "DefaultPreemption"}]}})
    assert fw.enabled("pod_group_post_filter") == ["DefaultPreemption"]
