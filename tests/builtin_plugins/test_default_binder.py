"""DefaultBinder: kube-scheduler v1.37.2's TestDefaultBinder, against the embedded cluster's Binding subresource.

The Go test injects its error through a fake clientset reactor; here the embedded API server refuses the
binding for a real reason (the target node does not exist), which is the same outcome for the plugin.
"""

from __future__ import annotations

import pytest
import st
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.builtin_plugins.default_binder import DefaultBinder
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo
from kubeberth.scheduling.handle import FrameworkHandle
from test_default_preemption import framework

testPod = st.MakePod().Name("foo").Namespace("ns").Obj()
testNode = "foohost.kubernetes.mydomain.com"

CASES = [
    ("TestDefaultBinder/successful", None, {"metadata": {"namespace": "ns", "name": "foo"},
                                           "target": {"kind": "Node", "name": testNode}}),
    ("TestDefaultBinder/binding error", "binding error", None),
]


@pytest.mark.parametrize(("inject_err", "want_binding"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_default_binder(inject_err: str | None, want_binding: dict | None) -> None:
    backend = EmbeddedCluster([testPod] if inject_err else [testPod, st.MakeNode().Name(testNode).Obj()])
    handle = FrameworkHandle(framework(), backend, ClusterState(), lambda: 0.0, {})
    pod = PodInfo.from_dict(backend.get("Pod", "ns/foo"))
    status = DefaultBinder().bind(pod=pod, node_name=testNode, handle=handle)
    assert (inject_err is not None) == (not status.ok)
    bound = backend.get("Pod", "ns/foo")
    got_binding = None
    if bound["spec"].get("nodeName"):
        meta = bound["metadata"]
        got_binding = {"metadata": {"namespace": meta["namespace"], "name": meta["name"]},
                       "target": {"kind": "Node", "name": bound["spec"]["nodeName"]}}
    assert got_binding == want_binding
