"""kube-scheduler v1.37.2's TestIsSchedulableAfterClaimChange (dynamicresources_test.go), verbatim:
DynamicResources' queueing hint for ResourceClaim events, given the claims the cluster holds.

As upstream's test does, the claims of the case are in the cluster, a changed claim is applied to it
(so the hint sees it where the pod's claims are looked up), and the hint is asked for the pod.
Objects that are not claims make the hint fail, which retries the pod (upstream's Queue on error).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import st
from kubeberth import ClusterState
from kubeberth.api.capabilities import capabilities_of
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from test_dynamic_resources_plugin_upstream import (
    allocatedClaim,
    otherAllocatedClaim,
    pendingClaim,
    podWithClaimName,
    podWithClaimTemplate,
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
