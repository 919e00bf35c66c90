"""Pod signatures: the framework's SignPod (kube-scheduler v1.37.2 schedule_one_test.go TestSignatures,
ported) and the built-in plugins' sign_pod, which refuse exactly where upstream's SignPod does."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from kubeberth import Status, hookimpl
from kubeberth.api.signing import SignFragment
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from kubeberth.testing import SchedulerTester, make_pod
from kubeberth.testing.builders import pod_info
from kubeberth.testing.tester import profile_config

TEST_SCHEDULER = "test-scheduler"
POINT_HOOKS = {"filter": "filter", "prefilter": "pre_filter", "score": "score", "prescore": "pre_score"}


@dataclass
class ConstSig:
    name: str
    signature: list[SignFragment] = field(default_factory=list)
    status: Status = field(default_factory=Status.success)
    plugin_type: str = "filter"


def const_sig_plugin(cfg: ConstSig) -> type:
    """A plugin at one extension point whose sign_pod returns fixed fragments or a status."""

    def sign_pod(self, pod):  # noqa: ANN001, ANN202 - a hook implementation
        return cfg.signature if cfg.status.ok else cfg.status

    def point(self):  # noqa: ANN001, ANN202 - does nothing: only the signature matters
        return None

    hook = POINT_HOOKS[cfg.plugin_type]
    attrs = {"name": cfg.name, "sign_pod": hookimpl(sign_pod), hook: hookimpl(point)}
    if hook == "score":
        attrs["score"] = hookimpl(lambda self, nodes: [0] * len(nodes))
    return type(cfg.name, (), attrs)


SIGNATURE_CASES = [
    ("TestSignatures/no plugins", [], b'{"v1.Pod.Spec.SchedulerName":"test-scheduler"}'),
    (
        "TestSignatures/single filter",
        [ConstSig("ConstSig", [SignFragment("test", 16)], plugin_type="filter")],
        b'{"test":16,"v1.Pod.Spec.SchedulerName":"test-scheduler"}',
    ),
    (
        "TestSignatures/single prefilter",
        [ConstSig("ConstSig", [SignFragment("test", 16)], plugin_type="prefilter")],
        b'{"test":16,"v1.Pod.Spec.SchedulerName":"test-scheduler"}',
    ),
    (
        "TestSignatures/single score",
        [ConstSig("ConstSig", [SignFragment("test", 16)], plugin_type="score")],
        b'{"test":16,"v1.Pod.Spec.SchedulerName":"test-scheduler"}',
    ),
    (
        "TestSignatures/single prescore",
        [ConstSig("ConstSig", [SignFragment("test", 16)], plugin_type="prescore")],
        b'{"test":16,"v1.Pod.Spec.SchedulerName":"test-scheduler"}',
    ),
    (
        "TestSignatures/two plugins",
        [
            ConstSig("ConstSig", [SignFragment("test", 16)], plugin_type="filter"),
            ConstSig("ConstSig2", [SignFragment("test2", 17)], plugin_type="score"),
        ],
        b'{"test":16,"test2":17,"v1.Pod.Spec.SchedulerName":"test-scheduler"}',
    ),
    (
        "TestSignatures/plugin with multiple fragments",
        [ConstSig("ConstSig", [SignFragment("test", 16), SignFragment("test2", 17)], plugin_type="filter")],
        b'{"test":16,"test2":17,"v1.Pod.Spec.SchedulerName":"test-scheduler"}',
    ),
    (
        "TestSignatures/overlapping fragments",
        [
            ConstSig("ConstSig", [SignFragment("test", 16)], plugin_type="filter"),
            ConstSig("ConstSig2", [SignFragment("test", 16)], plugin_type="score"),
        ],
        b'{"test":16,"v1.Pod.Spec.SchedulerName":"test-scheduler"}',
    ),
    ("TestSignatures/unsignable plugin", [ConstSig("ConstSig", status=Status.unschedulable(), plugin_type="filter")], None),
    ("TestSignatures/error plugin", [ConstSig("ConstSig", status=Status.error("boom"), plugin_type="filter")], None),
]


@pytest.mark.parametrize(("name", "plugins", "expected"), SIGNATURE_CASES, ids=[c[0] for c in SIGNATURE_CASES])
def test_signatures(name: str, plugins: list[ConstSig], expected: bytes | None) -> None:
    classes = [const_sig_plugin(p) for p in plugins]
    entries: list[object] = [(c, 1) if p.plugin_type == "score" else c for c, p in zip(classes, plugins, strict=True)]
    with SchedulerTester(entries, profile=TEST_SCHEDULER, start=False) as t:
        pod = pod_info(make_pod("foo", schedulerName=TEST_SCHEDULER))
        signature, _why = t.framework.sign_pod(pod)
        assert signature == expected


def test_a_plugin_without_sign_pod_turns_signing_off_for_the_profile() -> None:
    class NoSign:
        name = "NoSign"

        @hookimpl
        def filter(self):  # noqa: ANN202
            return None

    with SchedulerTester([NoSign], start=False) as t:
        signature, why = t.framework.sign_pod(pod_info(make_pod("p")))
        assert signature is None
        assert why == "plugin(s) NoSign do not implement sign_pod"


def _framework(args: dict | None = None):  # noqa: ANN202
    config = profile_config(default_plugins=True, args=args)
    return build_generation(config=parse_configuration(config)).default_profile


NO_DEFAULT_SPREAD = {"PodTopologySpread": {"defaultingType": "List", "defaultConstraints": []}}


def test_default_profile_never_signs_because_of_system_default_spreading() -> None:
    signature, why = _framework().sign_pod(pod_info(make_pod("p", "1")))
    assert signature is None
    assert why == "PodTopologySpread: pods with default topology constraints are not signable"


def test_builtins_sign_equal_pods_alike_and_refuse_pod_affinity_and_spread_constraints() -> None:
    fw = _framework(NO_DEFAULT_SPREAD)
    a = fw.sign_pod(pod_info(make_pod("a", "1", "1Gi", labels={"app": "x"})))[0]
    b = fw.sign_pod(pod_info(make_pod("b", "1", "1Gi", labels={"app": "x"})))[0]
    assert a is not None and a == b
    # What the built-ins read changes the signature: requests, labels (InterPodAffinity), selector, image.
    assert fw.sign_pod(pod_info(make_pod("c", "2", "1Gi", labels={"app": "x"})))[0] != a
    assert fw.sign_pod(pod_info(make_pod("c", "1", "1Gi", labels={"app": "y"})))[0] != a
    assert fw.sign_pod(pod_info(make_pod("c", "1", "1Gi", labels={"app": "x"}, nodeSelector={"z": "1"})))[0] != a
    assert fw.sign_pod(pod_info(make_pod("c", "1", "1Gi", labels={"app": "x"}, image="other")))[0] != a
    # configMap and secret volumes never affect placement.
    cm = make_pod("c", "1", "1Gi", labels={"app": "x"}, volumes=[{"name": "v", "configMap": {"name": "c"}}])
    assert fw.sign_pod(pod_info(cm))[0] == a
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    assert fw.sign_pod(pod_info(make_pod("c", "1", affinity=anti))) == (
        None, "InterPodAffinity: pods with InterPodAffinity are not signable"
    )
    spread = [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchLabels": {"app": "x"}}}]
    assert fw.sign_pod(pod_info(make_pod("c", "1", topologySpreadConstraints=spread))) == (
        None, "PodTopologySpread: pods with topology constraints are not signable"
    )


def test_inter_pod_affinity_ignores_labels_when_only_pods_with_terms_matter() -> None:
    fw = _framework({**NO_DEFAULT_SPREAD, "InterPodAffinity": {"ignorePreferredTermsOfExistingPods": True}})
    a = fw.sign_pod(pod_info(make_pod("a", "1", labels={"app": "x"})))[0]
    assert a is not None and a == fw.sign_pod(pod_info(make_pod("b", "1", labels={"app": "y"})))[0]
