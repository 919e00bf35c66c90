"""kube-scheduler v1.37.2 integration test cases (test/integration/scheduler) intentionally not ported, and why.

Read by scripts/upstream_cases.py and tests/test_upstream_cases.py: every key must name an upstream
integration case (`TestFunction/case name`, or `TestFunction` for a test without a table) and must not also
be ported. Cases neither ported nor listed here are open (`python scripts/upstream_cases.py --missing`).
"""

_COMPOSITE = (
    "CompositePodGroup (alpha gate, off by default: scheduling.k8s.io/v1alpha3 pod group hierarchies) is not "
    "implemented"
)
_DEFERRED_RESIZE = (
    "InPlacePodVerticalScalingSchedulerPreemption (alpha gate, off by default: a running pod's deferred resize "
    "queued, scheduled and preempted for on its own node) is not implemented"
)
_COMPARISON_OPS = "TaintTolerationComparisonOperators (alpha gate, off by default: Gt/Lt tolerations) is not implemented"

UNPORTED_INTEGRATION: dict[str, str] = {
    'TestCPGScheduling/TestCPGHierarchicalScheduling': _COMPOSITE,
    'TestCPGScheduling/TestCPGMinGroupCount': _COMPOSITE,
    'TestCPGScheduling/TestCPGBasicWithGangChildren': _COMPOSITE,
    'TestCPGScheduling/TestCPGBasicWithBasicChildren': _COMPOSITE,
    'TestCPGScheduling/TestCPGGangWithBasicChildren': _COMPOSITE,
    'TestCPGScheduling/TestCPGBasicWithUnschedulableBasicChildren': _COMPOSITE,
    'TestCPGScheduling/TestCPGDynamicChildAddition': _COMPOSITE,
    'TestPodGroupDependentRequiredValidation': _COMPOSITE,
    'TestCPGTopologyAwareScheduling/parent CPG has topology constraints, children do not; schedules on a single rack': _COMPOSITE,
    'TestCPGTopologyAwareScheduling/parent CPG has topology constraints, children do not; preexisting pod belonging to the hierarchy determines the topology': _COMPOSITE,
    'TestCPGTopologyAwareScheduling/parent CPG has topology constraints, children do not; remains pending when no single rack can fit all children': _COMPOSITE,
    'TestCPGTopologyAwareScheduling/parent CPG and child PGs both have topology constraints (multi-level constraints: zone and rack)': _COMPOSITE,
    "TestCPGTopologyAwareScheduling/parent CPG and only one child PG has topology constraints; the other child uses parent's topology": _COMPOSITE,
    'TestCPGTopologyAwareScheduling/parent CPG and all child PGs have topology constraints, preexisting pod group pods constrain the available topology domains': _COMPOSITE,
    'TestCPGTopologyAwareScheduling/parent CPG has topology constraints, preexisting pod group pods are in conflicting domains across pod groups, fails to schedule any pod': _COMPOSITE,
    'TestCPGTopologyAwareScheduling/3-level CPG hierarchy: all levels have topology constraints (root=zone, sub=block, leaf=rack)': _COMPOSITE,
    'TestCPGTopologyAwareScheduling/3-level CPG hierarchy: mid-level without topology constraints (root=zone, sub=none, leaf=rack)': _COMPOSITE,
    'TestCPGTopologyAwareScheduling/3-level CPG hierarchy: top level without topology constraint (root=none, sub=zone, leaf=rack)': _COMPOSITE,
    'TestCPGTopologyAwareScheduling/3-level CPG hierarchy: bottom level without topology constraint (root=zone, sub=rack, leaf=none)': _COMPOSITE,
    'TestCPGTopologyAwareScheduling/3-level CPG hierarchy: preexisting pod in leaf PodGroup determines topology for intermediate and root CPGs': _COMPOSITE,
    'TestCPGTopologyAwareSchedulingWorkloadAwarePreemption/parent CPG has topology constraints, children do not; schedules on a single rack after preempting lower priority pods': _COMPOSITE,
    'TestCPGTopologyAwareSchedulingWorkloadAwarePreemption/parent CPG has topology constraints, children do not; schedules on a single rack after preempting lower priority pods, then cannot schedule additional pods': _COMPOSITE,
    'TestCPGTopologyAwareSchedulingWorkloadAwarePreemption/parent CPG has topology constraints, children do not; preexisting pod belonging to the hierarchy determines topology and lower priority pods are preempted': _COMPOSITE,
    'TestCPGTopologyAwareSchedulingWorkloadAwarePreemption/parent CPG has topology constraints, children do not; schedules on a rack after preempting lower priority pods': _COMPOSITE,
    'TestCPGTopologyAwareSchedulingWorkloadAwarePreemption/parent CPG and child PGs both have topology constraints (multi-level constraints: zone and rack) with preemption': _COMPOSITE,
    'TestCPGTopologyAwareSchedulingWorkloadAwarePreemption/parent CPG and child PGs both have topology constraints (multi-level constraints: zone and rack), preemption does not help for subsequent': _COMPOSITE,
    "TestCPGTopologyAwareSchedulingWorkloadAwarePreemption/parent CPG and only one child PG has topology constraints; the other child uses parent's topology with preemption": _COMPOSITE,
    'TestCPGTopologyAwareSchedulingWorkloadAwarePreemption/parent CPG and all child PGs have topology constraints, preexisting pod group pods constrain available topology domains with preemption': _COMPOSITE,
    'TestCPGTopologyAwareSchedulingWorkloadAwarePreemption/3-level CPG hierarchy: all levels have topology constraints (root=zone, sub=block, leaf=rack) with preemption': _COMPOSITE,
    'TestCPGTopologyAwareSchedulingWorkloadAwarePreemption/3-level CPG hierarchy: mid-level without topology constraints (root=zone, sub=none, leaf=rack) with preemption': _COMPOSITE,
    'TestCPGTopologyAwareSchedulingWorkloadAwarePreemption/3-level CPG hierarchy: top level without topology constraint (root=none, sub=zone, leaf=rack) with preemption': _COMPOSITE,
    'TestCPGTopologyAwareSchedulingWorkloadAwarePreemption/3-level CPG hierarchy: bottom level without topology constraint (root=zone, sub=rack, leaf=none) with preemption': _COMPOSITE,
    'TestCPGTopologyAwareSchedulingWorkloadAwarePreemption/3-level CPG hierarchy: preexisting pod in leaf PodGroup determines topology for intermediate and root CPGs with preemption': _COMPOSITE,
    'TestDeferredResizePodPreemption/preempt single low priority pod': _DEFERRED_RESIZE,
    'TestDeferredResizePodPreemption/preempt multiple low priority pods': _DEFERRED_RESIZE,
    'TestDeferredResizePodPreemption/no preemption when preemptor policy is PreemptNever': _DEFERRED_RESIZE,
    'TestDeferredResizePodPreemption/parking strategy when deferred resize fits on node': _DEFERRED_RESIZE,
    'TestDeferredResizePodPreemption/node-level preemption policy disables preemption': _DEFERRED_RESIZE,
    'TestDeferredResizeQueueingHints/irrelevant pod scale down ignores queue': _DEFERRED_RESIZE,
    'TestDeferredResizeQueueingHints/assigned pod scale down on same node wakes queue': _DEFERRED_RESIZE,
    'TestDeferredResizeQueueingHints/irrelevant pod deletion ignores queue': _DEFERRED_RESIZE,
    'TestDeferredResizeQueueingHints/assigned pod deletion on same node wakes queue': _DEFERRED_RESIZE,
    'TestDeferredResizeQueueingHints/non-resource label change ignores queue': _DEFERRED_RESIZE,
    'TestDeferredResizeQueueingHints/assigned node capacity increase wakes queue': _DEFERRED_RESIZE,
    'TestDeferredResizeQueueingHints/target pod spec scale down wakes queue': _DEFERRED_RESIZE,
    'TestDeferredResizeNodePreemptionPolicy': _DEFERRED_RESIZE,
    'TestDeferredResizeQueueingHandlers': _DEFERRED_RESIZE,
    'TestTaintTolerationGtLtIntegration': _COMPARISON_OPS,
}
