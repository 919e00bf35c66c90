"""kube-scheduler v1.37.2's TestIsSchedulableAfterClaimChange and TestIsSchedulableAfterTargetPodUpdate
(dynamicresources_test.go), verbatim: DynamicResources' queueing hints for ResourceClaim events and
for the pending pod's own update, given the claims the cluster holds.

As upstream's test does, the claims of the case are in the cluster, a changed claim is applied to it
(so the hint sees it where the pod's claims are looked up), and the hint is asked for the pod.
Objects that are not claims make the hint fail, which retries the pod (upstream's Queue on error).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import st
from kubeberth.api.capabilities import capabilities_of
from kubeberth.cache.cluster import ClusterState
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from test_dynamic_resources_plugin_upstream import (
    allocatedClaim,
    claimName,
    otherAllocatedClaim,
    pendingClaim,
    pod_with,
    podWithClaimName,
    podWithClaimTemplate,
    podWithClaimTemplateInStatus,
    resourceName,
    resourceName2,
)
from upstream_unported import UNPORTED

QUEUE, QUEUE_SKIP = True, False


def _with(claim: dict[str, Any], change: Any) -> dict[str, Any]:
    out = copy.deepcopy(claim)
    change(out)
    return out


def _wrong_owner(claim: dict[str, Any]) -> None:
    owner = claim["metadata"]["ownerReferences"][0]
    owner["uid"] = (owner.get("uid") or "") + "123"


def _unrelated(claim: dict[str, Any]) -> None:
    claim["metadata"]["name"] += "-foo"
    claim["metadata"]["uid"] = (claim["metadata"].get("uid") or "") + "123"


def _finalizer(claim: dict[str, Any]) -> None:
    claim["metadata"].setdefault("finalizers", []).append("foo")


def _allocation(claim: dict[str, Any]) -> None:
    claim.setdefault("status", {})["allocation"] = {}  # &resourceapi.AllocationResult{}


def _deallocate(claim: dict[str, Any]) -> None:
    claim["status"]["allocation"] = None


CASES: list[dict[str, Any]] = [
    {"name": "TestIsSchedulableAfterClaimChange/skip-deletes", "pod": podWithClaimTemplate,
     "oldObj": pendingClaim, "newObj": None, "wantHint": QUEUE_SKIP},
    {"name": "TestIsSchedulableAfterClaimChange/queue-on-delete-with-allocation", "pod": podWithClaimTemplate,
     "oldObj": allocatedClaim, "newObj": None, "wantHint": QUEUE},
    {"name": "TestIsSchedulableAfterClaimChange/backoff-wrong-new-object", "pod": podWithClaimTemplate,
     "newObj": "not-a-claim", "wantErr": True},
    {"name": "TestIsSchedulableAfterClaimChange/skip-wrong-claim", "pod": podWithClaimTemplate,
     "newObj": _with(allocatedClaim, _wrong_owner), "wantHint": QUEUE_SKIP},
    {"name": "TestIsSchedulableAfterClaimChange/skip-unrelated-claim", "pod": podWithClaimTemplate,
     "claims": [allocatedClaim], "newObj": _with(allocatedClaim, _unrelated), "wantHint": QUEUE_SKIP},
    {"name": "TestIsSchedulableAfterClaimChange/queue-on-add", "pod": podWithClaimName,
     "newObj": pendingClaim, "wantHint": QUEUE},
    {"name": "TestIsSchedulableAfterClaimChange/backoff-wrong-old-object", "pod": podWithClaimName,
     "claims": [pendingClaim], "oldObj": "not-a-claim", "newObj": pendingClaim, "wantErr": True},
    {"name": "TestIsSchedulableAfterClaimChange/skip-adding-finalizer", "pod": podWithClaimName,
     "claims": [pendingClaim], "oldObj": pendingClaim, "newObj": _with(pendingClaim, _finalizer),
     "wantHint": QUEUE_SKIP},
    {"name": "TestIsSchedulableAfterClaimChange/queue-on-status-change", "pod": podWithClaimName,
     "claims": [pendingClaim], "oldObj": pendingClaim, "newObj": _with(pendingClaim, _allocation),
     "wantHint": QUEUE},
    {"name": "TestIsSchedulableAfterClaimChange/claim-deallocate", "pod": podWithClaimName,
     "claims": [pendingClaim, otherAllocatedClaim], "oldObj": otherAllocatedClaim,
     "newObj": _with(otherAllocatedClaim, _deallocate), "wantHint": QUEUE},
]


def _plugin() -> Any:
    # The features upstream's case enables (filter timeout, binding conditions, device status) are on
    # by default in v1.37.
    config = parse_configuration({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"})
    return build_generation(config=config).default_profile.plugins["DynamicResources"]


@pytest.mark.parametrize("tc", CASES, ids=[c["name"] for c in CASES])
def test_is_schedulable_after_claim_change(tc: dict[str, Any]) -> None:
    assert tc["name"] not in UNPORTED
    plugin = _plugin()
    cluster = ClusterState()
    for claim in tc.get("claims") or ():
        cluster.upsert_object("ResourceClaim", copy.deepcopy(claim))
    old, new = tc.get("oldObj"), tc.get("newObj")
    if isinstance(new, dict):  # added or updated in the cluster first, as the informer delivers it
        new = copy.deepcopy(new)
        cluster.upsert_object("ResourceClaim", new)
    event = "ResourceClaim/Delete" if new is None else "ResourceClaim/Add" if old is None else "ResourceClaim/Update"
    pod = st.pod_info(tc["pod"])
    if tc.get("wantErr"):
        with pytest.raises(TypeError):
            plugin.is_schedulable_after_claim_change(pod, old, new, cluster)
        assert capabilities_of(plugin).requeues(event, pod, old, new, cluster)  # an error retries the pod
        return
    assert capabilities_of(plugin).requeues(event, pod, old, new, cluster) is tc["wantHint"]


podWithTwoClaimTemplates = pod_with({"name": resourceName, "resourceClaimTemplateName": claimName},
                                    {"name": resourceName2, "resourceClaimTemplateName": claimName})


def _one_of_two_created() -> dict[str, Any]:
    pod = copy.deepcopy(podWithTwoClaimTemplates)
    # Only one of two claims created.
    pod.setdefault("status", {})["resourceClaimStatuses"] = [
        {"name": pod["spec"]["resourceClaims"][0]["name"], "resourceClaimName": claimName}
    ]
    return pod


TARGET_POD_CASES: list[dict[str, Any]] = [
    {"name": "TestIsSchedulableAfterTargetPodUpdate/backoff-wrong-new-object", "pod": podWithClaimTemplate,
     "obj": "not-a-claim", "wantErr": True},
    {"name": "TestIsSchedulableAfterTargetPodUpdate/complete", "objs": [pendingClaim], "pod": podWithClaimTemplate,
     "obj": podWithClaimTemplateInStatus, "wantHint": QUEUE},
    {"name": "TestIsSchedulableAfterTargetPodUpdate/missing-claim", "objs": None, "pod": podWithClaimTemplate,
     "obj": podWithClaimTemplateInStatus, "wantHint": QUEUE_SKIP},
    {"name": "TestIsSchedulableAfterTargetPodUpdate/incomplete", "objs": [pendingClaim], "pod": podWithTwoClaimTemplates,
     "obj": _one_of_two_created(), "wantHint": QUEUE_SKIP},
]


@pytest.mark.parametrize("tc", TARGET_POD_CASES, ids=[c["name"] for c in TARGET_POD_CASES])
def test_is_schedulable_after_target_pod_update(tc: dict[str, Any]) -> None:
    """TargetPod/UpdatePodGeneratedResourceClaim: the pod's status names its generated claims."""
    assert tc["name"] not in UNPORTED
    plugin = _plugin()
    cluster = ClusterState()
    for claim in tc.get("objs") or ():
        cluster.upsert_object("ResourceClaim", copy.deepcopy(claim))
    pod = st.pod_info(tc["pod"])
    new = st.pod_info(tc["obj"]) if isinstance(tc["obj"], dict) else tc["obj"]
    event = "TargetPod/UpdatePodGeneratedResourceClaim"
    if tc.get("wantErr"):
        with pytest.raises(TypeError):
            plugin.is_schedulable_after_target_pod_update(pod, None, new, cluster)
        assert capabilities_of(plugin).requeues(event, pod, None, new, cluster)
        return
    assert capabilities_of(plugin).requeues(event, pod, pod, new, cluster) is tc["wantHint"]
