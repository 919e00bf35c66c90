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

_MATCH_LABEL_KEYS_OFF = (
    "turns MatchLabelKeysInPodTopologySpread off in the API server and the scheduler of its own process (the gate "
    "drops matchLabelKeys at pod creation); the shared control plane keeps v1.37's default, on"
)
_APISERVER_MATCH_LABEL_KEYS = (
    "checks kube-apiserver's pod admission, not the scheduler: matchLabelKeys merged into the label selector at "
    "creation as MatchLabelKeysInPodAffinity is switched under emulation version 1.32 in its own API server"
)
_NODE_DECLARED_FEATURES_OFF = (
    "turns NodeDeclaredFeatures (GA in v1.37) off under emulation version 1.36 in the API server and scheduler of "
    "its own process; the shared control plane and kubeberth run v1.37's defaults"
)
_MOCK_FEATURE = (
    "replaces the node-declared-features framework's feature list in-process with a mock FeatureA, inferred from "
    "the first container's name (ndftesting.SetFrameworkDuringTest); kubeberth infers a pod's features from its "
    "own list of real features, with no test hook to swap it"
)
_MOCK_FEATURE_TOLERATION = (
    "replaces the node-declared-features framework's feature list in-process with a mock FeatureA, inferred from "
    "the pod's first toleration having tolerationSeconds > 0 (ndftesting.SetFrameworkDuringTest); kubeberth infers "
    "a pod's features from its own list of real features, with no test hook to swap it"
)
_POD_GROUP_API = (
    "runs with GenericWorkload (beta, off by default) and creates scheduling.k8s.io/v1beta1 PodGroups, an API the "
    "session's shared control plane does not serve (--runtime-config); kubeberth's gang scheduling is checked on an "
    "API server of its own in tests/e2e/test_gang_scheduling_e2e.py"
)
_NODE_LIFECYCLE = (
    "checks kube-controller-manager's node lifecycle controller, run in the test's own process, tainting a node by "
    "its conditions (and PodTolerationRestriction admission) before the scheduler sees it; the shared control plane "
    "runs no controller manager, and TaintToleration on such taints is covered by TestTaintTolerationFilter"
)
_FAKE_CLOCK_BACKOFF = (
    "steps the scheduler's clock (WithClock(fakeClock).Step) past a one-minute backoff, with SchedulerPopFromBackoffQ "
    "turned off, so that a nominated pod's update lands while it is in backoffQ; kubeberth's run loop reads the real "
    "clock and its feature gates are the process's (SchedulerPopFromBackoffQ on)"
)
_POD_INJECTOR = (
    "its podInjectorPlugin creates a member pod through the test's clientset from PreFilter, in the middle of the pod "
    "group's cycle, and holds the cycle until the scheduler's own queue lists the pod in pendingPodGroupPods (an "
    "in-process read of SchedulingQueue): kubeberth's loop cannot be held from a plugin until an informer event is in"
)
_SCHEDULE_ONE = (
    "runs the scheduler without its loop and steps it (RunScheduleOne) between reads of activeQ (PodsInActiveQ), to "
    "check which pod one given cycle pops; kubeberth's loop pops on its own, so the order of single cycles is not "
    "observable from outside"
)
_PRE_QUEUEING_HINTS = (
    "SchedulerPreQueueingHints (alpha gate, off by default: a PreQueueingHintFn narrowing an event to the pods it "
    "names) is not implemented"
)

UNPORTED_INTEGRATION: dict[str, str] = {
    'TestCPGScheduling/TestCPGHierarchicalScheduling': _COMPOSITE,
    'TestCPGScheduling/TestCPGMinGroupCount': _COMPOSITE,
    'TestCPGScheduling/TestCPGBasicWithGangChildren': _COMPOSITE,
    'TestCPGScheduling/TestCPGBasicWithBasicChildren': _COMPOSITE,
    'TestCPGScheduling/TestCPGGangWithBasicChildren': _COMPOSITE,
    'TestCPGScheduling/TestCPGBasicWithUnschedulableBasicChildren': _COMPOSITE,
    'TestCPGScheduling/TestCPGDynamicChildAddition': _COMPOSITE,
    'TestPodGroupDependentRequiredValidation': _COMPOSITE,
    # podgroup/queueing_test.go: every case builds a CompositePodGroup tree
    'TestCPGQueueing/Incomplete CPG tree buffers pods and missing root CPG wakes them up': _COMPOSITE,
    'TestCPGQueueing/Node add triggers queueing hint for complete CPG tree from unschedulableQ': _COMPOSITE,
    'TestCPGQueueing/Pod add triggers queueing hint for unschedulable CPG root': _COMPOSITE,
    'TestCPGQueueing/PodGroup add triggers queueing hint for unschedulable CPG root': _COMPOSITE,
    'TestCPGQueueing/PodGroup update (reduce minCount) triggers queueing hint for unschedulable CPG tree': _COMPOSITE,
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
    # preemption/preemption_test.go
    'TestPreemption/pod group victim across multiple nodes, pod-group-as-victim enabled': _POD_GROUP_API,
    'TestPreemption/pod group occupying a single node, pod-group-as-victim enabled': _POD_GROUP_API,
    'TestPreemption/multiple victim pod groups, only subset selected for preemption': _POD_GROUP_API,
    'TestPreemption/unsuccessful pod group preemption when freeing lower priority group is insufficient': _POD_GROUP_API,
    'TestPreemption/pod group victim across multiple nodes, DisruptionModeSingle enabled': _POD_GROUP_API,
    'TestPreemption/CPG victim across multiple nodes, pod-group-as-victim enabled': _COMPOSITE,
    'TestPreemption/CPG occupying a single node, pod-group-as-victim enabled': _COMPOSITE,
    'TestPreemption/multiple victim CPGs, only subset selected for preemption': _COMPOSITE,
    'TestPreemption/unsuccessful CPG preemption when freeing lower priority group is insufficient': _COMPOSITE,
    'TestPreemption/CPG victim across multiple nodes, DisruptionModeSingle enabled': _COMPOSITE,
    "TestAsyncPreemption/gated preemptor is eventually scheduled even if victim deletion doesn't raise queue hints": (
        "flushes the unschedulable pool by hand (MoveAllToActiveOrBackoffQueue with UnschedulableTimeout) once the "
        "victims are gone; kubeberth flushes it on its own timer only (podMaxInUnschedulablePodsDuration, 5 minutes, "
        "as kube-scheduler's), too long for a CI case"),
    "TestAsyncPreemption/While lower priority Pod is waiting for preemption, higher priority Pod takes its place on "
    "the node": (
        "schedules the mid-priority preemptor again (it must preempt on node2) only by the test's ScheduleOne, after "
        "its first preemption has ended; kubeberth's own loop retries it on that preemption's last victim's deletion "
        "event, which can come before the preemption's end is recorded: the second preemption then starts and the "
        "first one's end clears its running mark (Executor.preempting, keyed by pod, as kube-scheduler's), so the pod "
        "is retried in the middle of it, depending on whether the watch event or the API call's answer comes first"),
    'TestTaintTolerationGtLtIntegration': _COMPARISON_OPS,
    # filters/filters_test.go
    'TestTaintTolerationFilter/Pod with Gt toleration matches node taint with greater value': _COMPARISON_OPS,
    'TestTaintTolerationFilter/Pod with Gt toleration does not match node taint with lesser value': _COMPARISON_OPS,
    'TestTaintTolerationFilter/Pod with Lt toleration matches node taint with lesser value': _COMPARISON_OPS,
    'TestTaintTolerationFilter/Pod with Lt toleration does not match node taint with greater value': _COMPARISON_OPS,
    'TestTaintTolerationFilter/Pod with mixed tolerations including Gt operator': _COMPARISON_OPS,
    'TestTaintTolerationFilter/Pod with Gt toleration with negative values': _COMPARISON_OPS,
    'TestTaintTolerationFilter/Pod with Lt toleration with zero values': _COMPARISON_OPS,
    'TestTaintTolerationFilter/Pod with Gt toleration and empty Effect matches any taint effect': _COMPARISON_OPS,
    'TestTaintTolerationFilter/Pod with Lt toleration with large numbers': _COMPARISON_OPS,
    'TestPodTopologySpreadFilter/matchLabelKeys ignored when feature gate disabled, pods spread across zone as 2/1': _MATCH_LABEL_KEYS_OFF,
    'TestPodAffinityMatchLabelKeyEnablement': _APISERVER_MATCH_LABEL_KEYS,
    'TestNodeDeclaredFeaturesFilter/Feature gate disabled': _NODE_DECLARED_FEATURES_OFF,
    'TestNodeDeclaredFeaturesFilter/pod with feature requirement schedulable on node with the feature': _MOCK_FEATURE,
    'TestNodeDeclaredFeaturesFilter/pod with feature requirement not schedulable on node without features': _MOCK_FEATURE,
    'TestNodeDeclaredFeaturesFilter/pod with feature requirement schedulable on node with multiple features': _MOCK_FEATURE,
    # scoring/priorities_test.go
    'TestTaintTolerationScoring/pod with Gt toleration prefers nodes with matching numeric taints': _COMPARISON_OPS,
    'TestPodTopologySpreadScoring/matchLabelKeys ignored when feature gate disabled, node-1 is the preferred fit':
        _MATCH_LABEL_KEYS_OFF,
    # queueing/queue_test.go (CoreResourceEnqueueTestCases in queue.go)
    'TestCoreResourceEnqueue/pod becomes schedulable after node update with required feature': _MOCK_FEATURE_TOLERATION,
    'TestCoreResourceEnqueue/pod remains unschedulable after node update that does not update declared features':
        _MOCK_FEATURE_TOLERATION,
    'TestCoreResourceEnqueue/pod becomes schedulable after pod update that removes feature requirement':
        _MOCK_FEATURE_TOLERATION,
    'TestCoreResourceEnqueue/pod remains unschedulable after pod update that does not remove feature requirement':
        _MOCK_FEATURE_TOLERATION,
    'TestCoreResourceEnqueue/Pod rejected by the GangScheduling plugin is requeued when a new pod with matching scheduling group is created':
        _POD_GROUP_API,
    'TestCoreResourceEnqueue/Pod rejected by the GangScheduling plugin is requeued when a matching pod group is created':
        _POD_GROUP_API,
    # taint/taint_test.go
    'TestTaintNodeByCondition/not-ready node': _NODE_LIFECYCLE,
    'TestTaintNodeByCondition/unschedulable node': _NODE_LIFECYCLE,
    'TestTaintNodeByCondition/memory pressure node': _NODE_LIFECYCLE,
    'TestTaintNodeByCondition/disk pressure node': _NODE_LIFECYCLE,
    'TestTaintNodeByCondition/network unavailable and node is ready': _NODE_LIFECYCLE,
    'TestTaintNodeByCondition/network unavailable and node is not ready': _NODE_LIFECYCLE,
    'TestTaintNodeByCondition/pid pressure node': _NODE_LIFECYCLE,
    'TestTaintNodeByCondition/multi taints on node': _NODE_LIFECYCLE,
    'TestTaintNodeByCondition/node with numeric priority-class taint - pods with Gt toleration': _COMPARISON_OPS,
    'TestTaintNodeByCondition/node with numeric error-rate taint - pods with Lt toleration': _COMPARISON_OPS,
    'TestTaintNodeByCondition/node with multiple numeric taints - mixed tolerations': _COMPARISON_OPS,
    'TestTaintNodeByCondition/node with numeric taint - pods with Lt or Gt tolerations, and NoExecute effect': _COMPARISON_OPS,
    'TestTaintNodeByCondition/node with numeric taint - pods with PreferNoSchedule effect and Gt toleration': _COMPARISON_OPS,
    # eventhandler/eventhandler_test.go
    'TestUpdateNominatedNodeName/Preempt nominated pod': _FAKE_CLOCK_BACKOFF,
    'TestUpdateNominatedNodeName/Remove nominated pod': _FAKE_CLOCK_BACKOFF,
    # prequeueinghint/prequeueinghint_test.go
    'TestPreQueueingHintNarrowsPodSet/feature enabled: only targeted pod evaluated': _PRE_QUEUEING_HINTS,
    # podgroup/queueing/queueing_test.go
    'TestPodGroupQueueing/Gang scheduling pod group member pod added mid-cycle is correctly buffered and retried after unschedulable attempt': _POD_INJECTOR,
    'TestPodGroupQueueing/Gang scheduling pod group member pod added mid-cycle is correctly buffered and retried after schedulable attempt': _POD_INJECTOR,
    'TestPodGroupQueueing/Basic policy pod group member pod added mid-cycle is correctly buffered and retried after unschedulable attempt': _POD_INJECTOR,
    'TestPodGroupQueueing/Basic policy pod group member pod added mid-cycle is correctly buffered and retried after schedulable attempt': _POD_INJECTOR,
    'TestPodGroupRequeueRemainingOnSchedulingSuccess/After successfully scheduling a podgroup and requeuing a remaining unscheduled pod, the next scheduling attempt prioritizes the higher priority pod': _SCHEDULE_ONE,
    'TestPodGroupRequeueRemainingOnSchedulingSuccess/After successfully scheduling a podgroup and requeuing a remaining unscheduled pod, the next scheduling attempt prioritizes the old pod if priorities are equal': _SCHEDULE_ONE,
    'TestPodGroupRequeueRemainingOnSchedulingSuccess/After successfully scheduling a podgroup with a new pending pod added mid-cycle, an older individual pod in queue is prioritized if priorities are equal': _SCHEDULE_ONE,
    'TestPodGroupSequentialQueueing/Gang scheduling pod group fails scheduling and retries without any cluster change': _SCHEDULE_ONE,
    'TestPodGroupSequentialQueueing/Basic policy pod group partially fails scheduling and retries without any cluster change': _SCHEDULE_ONE,
    # preemption/podgroup/podgrouppreemption_test.go: TestCompositePodGroupPreemption runs with CompositePodGroup on
    'TestCompositePodGroupPreemption/3-Level Nested CPG resolves DisruptionMode up to the grandparent': _COMPOSITE,
    'TestCompositePodGroupPreemption/Binding first before preemption for CPG': _COMPOSITE,
    'TestCompositePodGroupPreemption/Binding first before preemption for gang policy': _COMPOSITE,
    'TestCompositePodGroupPreemption/CPG Gang scheduling: preemption with pod anti-affinity constraints': _COMPOSITE,
    'TestCompositePodGroupPreemption/CPG Gang scheduling: preemption with pod node port': _COMPOSITE,
    'TestCompositePodGroupPreemption/CPG Missing Parent Reference Fallback': _COMPOSITE,
    'TestCompositePodGroupPreemption/CPG Partial Preemption': _COMPOSITE,
    'TestCompositePodGroupPreemption/CPG Preemption aborted if victim yields insufficient resources': _COMPOSITE,
    'TestCompositePodGroupPreemption/CPG PreemptionPolicy PreemptLowerPriority allows preemption': _COMPOSITE,
    'TestCompositePodGroupPreemption/CPG PreemptionPolicy PreemptNever prevents preemption': _COMPOSITE,
    'TestCompositePodGroupPreemption/CPG Tie-Breaking: PodGroup chosen over CompositePodGroup': _COMPOSITE,
    'TestCompositePodGroupPreemption/CPG Victim Across Multiple Nodes, CPG DisruptionModeAll': _COMPOSITE,
    'TestCompositePodGroupPreemption/CPG Victim Across Multiple Nodes, CPG DisruptionModeSingle': _COMPOSITE,
    'TestCompositePodGroupPreemption/CPG with PreemptLowerPriority Policy': _COMPOSITE,
    'TestCompositePodGroupPreemption/CPG with PreemptNever Policy': _COMPOSITE,
    'TestCompositePodGroupPreemption/CPG with PreemptNever preemption policy in all pods does not perform preemption, with PodGroupPreemptionPolicy disabled': _COMPOSITE,
    'TestCompositePodGroupPreemption/CPG with default preemption policy performs preemption, with PodGroupPreemptionPolicy enabled': _COMPOSITE,
    'TestCompositePodGroupPreemption/Hierarchical DisruptionMode - Grandparent Single, Parent All': _COMPOSITE,
    'TestCompositePodGroupPreemption/PDB Violation reprieves only the child PG (DisruptionModeSingle)': _COMPOSITE,
    'TestCompositePodGroupPreemption/PDB Violation reprieves the entire CPG victim (DisruptionModeAll)': _COMPOSITE,
    'TestCompositePodGroupPreemption/Reserve plugins are called during preemption simulation, so second pod fails': _COMPOSITE,
    'TestCompositePodGroupPreemption/Scheduler targets lower-priority CPG over higher-priority CPG': _COMPOSITE,
}
