"""kube-scheduler v1.37.2 plugin test cases intentionally not ported, and why.

Read by scripts/upstream_cases.py and tests/test_upstream_cases.py: every key must name an
upstream case (`TestFunction/case name`) and must not also be ported.
"""

_COMPARISON_OPS = "TaintTolerationComparisonOperators (alpha gate, Gt/Lt tolerations) is not implemented"

UNPORTED: dict[str, str] = {
    "TestTaintTolerationFilter/Pod with Gt toleration cannot be scheduled on node when taint value is lower than threshold":
        _COMPARISON_OPS,
    "TestTaintTolerationFilter/Pod with Gt toleration can be scheduled on node when taint value is higher than threshold":
        _COMPARISON_OPS,
    "TestTaintTolerationFilter/Pod with Lt toleration cannot be scheduled on node when taint value is higher than threshold":
        _COMPARISON_OPS,
    "TestTaintTolerationFilter/Pod with Lt toleration can be scheduled on node when taint value is lower than threshold":
        _COMPARISON_OPS,
    "TestTaintTolerationFilter/Pod with Gt toleration cannot be scheduled on node with non-numeric taint value":
        _COMPARISON_OPS,
    "TestTaintTolerationFilterWithFeatureGate/Pod with Gt toleration can be scheduled when feature gate is enabled and "
    "taint value is higher": _COMPARISON_OPS,
    "TestTaintTolerationFilterWithFeatureGate/Pod with Lt toleration can be scheduled when feature gate is enabled and "
    "taint value is lower": _COMPARISON_OPS,
    "TestTaintTolerationScore/Numeric Gt operator: pod with Gt toleration prefers nodes with matching SLA taint":
        _COMPARISON_OPS,
    "TestTaintTolerationScore/Numeric Lt operator: pod with Lt toleration prefers nodes with matching SLA taint":
        _COMPARISON_OPS,
    "TestLeastAllocatedScoringStrategy/Resources not set, pods scheduled with error":
        "calls the scorer with nil resources, bypassing config defaulting; kubeberth's args default an empty "
        "scoringStrategy.resources to cpu and memory as kube-scheduler's defaulting does, so it cannot occur",
    "TestMostAllocatedScoringStrategy/Resources not set, pods scheduled with error":
        "calls the scorer with nil resources, bypassing config defaulting; kubeberth's args default an empty "
        "scoringStrategy.resources to cpu and memory as kube-scheduler's defaulting does, so it cannot occur",
}
