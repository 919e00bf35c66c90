"""kube-scheduler v1.37.2's dynamicresources test tables, ported verbatim where kubeberth implements
what they test (case names are upstream's map keys; fixtures and expected values unchanged)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from kubeberth.builtin_plugins.dynamic_resources.plugin import DynamicResources, compute_score

# ---- upstream fixtures (pkg/scheduler/testing wrappers, dynamicresources_test.go globals) -----
NODE_NAME = "worker"
DRIVER = "some-driver"
DRIVER2 = "some-driver-2"
POD_NAME, POD_UID, NAMESPACE = "my-pod", "1234", "default"
CLASS_NAME = "my-resource-class"
CLAIM_NAME, CLAIM_NAME2 = "my-pod-my-resource", "my-pod-my-resource-2"
MAX_INT32 = 2**31 - 1


class ResourceClaimWrapper:
    """st.MakeResourceClaim()."""

    def __init__(self) -> None:
        self.obj: dict[str, Any] = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                                    "metadata": {}, "spec": {"devices": {"requests": []}}}

    def Name(self, name: str) -> ResourceClaimWrapper:  # noqa: N802 - upstream's wrapper names
        self.obj["metadata"]["name"] = name
        return self

    def Namespace(self, ns: str) -> ResourceClaimWrapper:  # noqa: N802
        self.obj["metadata"]["namespace"] = ns
        return self

    def Request(self, class_name: str) -> ResourceClaimWrapper:  # noqa: N802
        requests = self.obj["spec"]["devices"]["requests"]
        requests.append({"name": f"req-{len(requests) + 1}", "exactly": {
            "allocationMode": "ExactCount", "count": 1, "deviceClassName": class_name}})
        return self

    def NamedRequestWithPrioritizedList(self, name: str, *subs: dict[str, Any]) -> ResourceClaimWrapper:  # noqa: N802
        self.obj["spec"]["devices"]["requests"].append({"name": name, "firstAvailable": list(subs)})
        return self

    def OwnerReference(self, name: str, uid: str) -> ResourceClaimWrapper:  # noqa: N802
        self.obj["metadata"]["ownerReferences"] = [
            {"apiVersion": "v1", "kind": "Pod", "name": name, "uid": uid, "controller": True}]
        return self

    def Allocation(self, allocation: dict[str, Any]) -> ResourceClaimWrapper:  # noqa: N802
        self.obj.setdefault("status", {})["allocation"] = allocation
        return self

    def Obj(self) -> dict[str, Any]:  # noqa: N802
        return self.obj


def MakeResourceClaim() -> ResourceClaimWrapper:  # noqa: N802
    return ResourceClaimWrapper()


def SubRequest(name: str, class_name: str, count: int) -> dict[str, Any]:  # noqa: N802
    return {"name": name, "allocationMode": "ExactCount", "count": count, "deviceClassName": class_name}


def _node_selector() -> dict[str, Any]:
    return {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [NODE_NAME]}]}]}


def _result(request: str, driver: str = "", pool: str = "", device: str = "") -> dict[str, Any]:
    return {"request": request, "driver": driver, "pool": pool, "device": device}


allocationResult = {"devices": {"results": [_result("req-1", DRIVER, NODE_NAME, "instance-1")]},
                    "nodeSelector": _node_selector()}
allocationResult2 = {"devices": {"results": [_result("req-2", DRIVER2, NODE_NAME, "instance-2")]},
                     "nodeSelector": _node_selector()}
claim = MakeResourceClaim().Name(CLAIM_NAME).Namespace(NAMESPACE).Request(CLASS_NAME).Obj()
claim2 = MakeResourceClaim().Name(CLAIM_NAME2).Namespace(NAMESPACE).Request(CLASS_NAME).Obj()


def _from(obj: dict[str, Any]) -> ResourceClaimWrapper:
    """st.FromResourceClaim: a copy to build on."""
    import copy

    wrapper = ResourceClaimWrapper()
    wrapper.obj = copy.deepcopy(obj)
    return wrapper


pendingClaim = _from(claim).OwnerReference(POD_NAME, POD_UID).Obj()
pendingClaim2 = _from(claim2).OwnerReference(POD_NAME, POD_UID).Obj()
allocatedClaim = _from(pendingClaim).Allocation(allocationResult).Obj()


def _allocation(*requests: str) -> dict[str, Any]:
    return {"devices": {"results": [{"request": r} for r in requests]}}


# ---- Test_computesScore -----------------------------------------------------------------------
COMPUTE_SCORE_CASES = {
    "Test_computesScore/more-claims-than-allocations": dict(
        claims=[
            MakeResourceClaim().NamedRequestWithPrioritizedList("req-1", SubRequest("subreq-1", CLASS_NAME, 1)).Obj(),
            MakeResourceClaim().NamedRequestWithPrioritizedList("req-2", SubRequest("subreq-1", CLASS_NAME, 1)).Obj(),
        ],
        allocations=[], expectedScore=0, expectErr=True),
    "Test_computesScore/mix-of-allocated-and-unallocated-claims": dict(
        claims=[allocatedClaim, pendingClaim2], allocations=[allocationResult2], expectedScore=0, expectErr=False),
    "Test_computesScore/single-request-only-subrequest-allocated": dict(
        claims=[MakeResourceClaim().NamedRequestWithPrioritizedList("req-1", SubRequest("subreq-1", CLASS_NAME, 1)).Obj()],
        allocations=[_allocation("req-1/subreq-1")], expectedScore=8, expectErr=False),
    "Test_computesScore/single-request-last-subrequest-allocated": dict(
        claims=[MakeResourceClaim().NamedRequestWithPrioritizedList(
            "req-1", *[SubRequest(f"subreq-{i}", CLASS_NAME, 1) for i in range(1, 9)]).Obj()],
        allocations=[_allocation("req-1/subreq-8")], expectedScore=1, expectErr=False),
    "Test_computesScore/multiple-requests-with-middle-subrequests-allocated": dict(
        claims=[MakeResourceClaim()
                .NamedRequestWithPrioritizedList("req-1", *[SubRequest(f"subreq-{i}", CLASS_NAME, 1) for i in range(1, 5)])
                .NamedRequestWithPrioritizedList("req-2", *[SubRequest(f"subreq-{i}", CLASS_NAME, 1) for i in range(1, 6)])
                .Obj()],
        allocations=[_allocation("req-1/subreq-4", "req-2/subreq-5")], expectedScore=9, expectErr=False),
    "Test_computesScore/multiple-requests-with-top-subrequests-allocated": dict(
        claims=[MakeResourceClaim()
                .NamedRequestWithPrioritizedList("req-1", *[SubRequest(f"subreq-{i}", CLASS_NAME, 1) for i in range(1, 9)])
                .NamedRequestWithPrioritizedList("req-2", SubRequest("subreq-1", CLASS_NAME, 1))
                .Obj()],
        allocations=[_allocation("req-1/subreq-8", "req-2/subreq-1")], expectedScore=9, expectErr=False),
    "Test_computesScore/multiple-claims-with-last-subrequests-allocated": dict(
        claims=[
            MakeResourceClaim().NamedRequestWithPrioritizedList(
                "req-1", *[SubRequest(f"subreq-{i}", CLASS_NAME, 1) for i in range(1, 9)]).Obj(),
            MakeResourceClaim().NamedRequestWithPrioritizedList(
                "req-2", *[SubRequest(f"subreq-{i}", CLASS_NAME, 1) for i in range(1, 9)]).Obj(),
        ],
        allocations=[_allocation("req-1/subreq-8"), _allocation("req-2/subreq-8")], expectedScore=2, expectErr=False),
    "Test_computesScore/multiple-claims-with-top-subrequests-allocated": dict(
        claims=[
            MakeResourceClaim().NamedRequestWithPrioritizedList("req-1", SubRequest("subreq-1", CLASS_NAME, 1)).Obj(),
            MakeResourceClaim().NamedRequestWithPrioritizedList("req-2", SubRequest("subreq-1", CLASS_NAME, 1)).Obj(),
        ],
        allocations=[_allocation("req-1/subreq-1"), _allocation("req-2/subreq-1")], expectedScore=16, expectErr=False),
}


@pytest.mark.parametrize("case", COMPUTE_SCORE_CASES, ids=lambda c: c.split("/", 1)[1])
def test_compute_score(case: str) -> None:
    tc = COMPUTE_SCORE_CASES[case]
    if tc["expectErr"]:
        with pytest.raises(ValueError, match="smaller than number of claims needing allocation"):
            compute_score(tc["claims"], tc["allocations"])
        return
    assert compute_score(tc["claims"], tc["allocations"]) == tc["expectedScore"]


# ---- TestNormalizeScore -----------------------------------------------------------------------
NORMALIZE_CASES = {
    "TestNormalizeScore/empty": ([], []),
    "TestNormalizeScore/single-score": ([42], [100]),
    "TestNormalizeScore/all-same": ([8, 8], [100, 100]),
    "TestNormalizeScore/all-same-very-large": ([MAX_INT32, MAX_INT32], [100, 100]),
    "TestNormalizeScore/max-and-min-values": ([MAX_INT32, 0], [100, 0]),
    "TestNormalizeScore/mid-value": ([99, 98, 97], [100, 98, 97]),
    "TestNormalizeScore/large-spread-lost-precision": ([MAX_INT32, MAX_INT32 - 1, 1, 0], [100, 99, 0, 0]),
}


@pytest.mark.parametrize("case", NORMALIZE_CASES, ids=lambda c: c.split("/", 1)[1])
def test_normalize_score(case: str) -> None:
    scores, expected = NORMALIZE_CASES[case]
    out = DynamicResources().normalize_score(np.asarray(scores, dtype=np.int64))
    assert out.tolist() == expected
