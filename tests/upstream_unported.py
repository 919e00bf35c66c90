"""kube-scheduler v1.37.2 plugin test cases intentionally not ported, and why.

Read by scripts/upstream_cases.py and tests/test_upstream_cases.py: every key must name an
upstream case (`TestFunction/case name`) and must not also be ported.
"""

_COMPARISON_OPS = "TaintTolerationComparisonOperators (alpha gate, Gt/Lt tolerations) is not implemented"

_COMPOSITE = "CompositePodGroup (alpha gate, scheduling.k8s.io/v1alpha3 hierarchies) is not implemented"
_POD_GROUP_CYCLE = (
    "the pod group scheduling cycle (schedule_one_podgroup.go: placements, PlacementFeasible, PlacementScore) is "
    "not implemented; kubeberth schedules a gang's members pod by pod through PreEnqueue and Permit"
)

_DRA_EXTENDED = (
    "DRAExtendedResource: an extended resource served by a DRA DeviceClass and ResourceSlices; kubeberth has no "
    "DRA device accounting in NodeResourcesFit"
)

_ZERO_WEIGHT = (
    "hands weight 0 to the plugin, bypassing config defaulting; kubeberth's args are the v1 configuration, where an "
    "unset (0) weight defaults to 1 as kube-scheduler's v1 defaulting does, so it cannot reach the plugin"
)

_TARGET_POD = (
    "a hint for an update of the pending pod itself (TargetPod events): kubeberth re-queues a pending "
    "pod whenever it is updated, without asking the plugins that rejected it"
)

_REMOVE_ELSEWHERE = (
    "RemovePod is handed existingPods[0] (deletedPodIdx left at 0) with node-b's NodeInfo, where that pod is not "
    "placed; kubeberth's PreFilter state follows the cluster, where a pod leaves the node it is on"
)
_BENCHMARK = (
    "a benchmark (Benchmark... table after the Test function), not a test case: the case reader attributes its "
    "names to the Test function before it"
)

_WORKLOAD_PREEMPTION = (
    "workload-aware preemption (GenericWorkload: a PodGroup's pods chosen, reprieved and counted against PDBs as "
    "one victim, across nodes) is not implemented in DefaultPreemption, which picks victims pod by pod"
)

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

# Workload-aware scheduling (GenericWorkload): GangScheduling and PodGroupPodsCount.
    'TestGangSchedulingFlow/CPG Basic With Gang Stage 1: pg1 ready, root ready (CPG=true)':
        _COMPOSITE,
    'TestGangSchedulingFlow/CPG Hierarchical Stage 1: No pods, tree not ready (CPG=true)':
        _COMPOSITE,
    'TestGangSchedulingFlow/CPG Hierarchical Stage 2: Add p6, cpg-sub1 ready but root not ready (CPG=true)':
        _COMPOSITE,
    'TestGangSchedulingFlow/CPG Hierarchical Stage 3: Add p4, root becomes ready (CPG=true)':
        _COMPOSITE,
    "TestGangSchedulingFlow/CPG Permit Wait: Hierarchical gang waits at permit if gang isn't fully scheduled (CPG=true)":
        _COMPOSITE,
    'TestGangSchedulingFlow/basic policy pod succeeds immediately (CPG=true)':
        _COMPOSITE,
    'TestGangSchedulingFlow/final gang pod arrives at Permit and allows all waiting pods from a gang (CPG=true)':
        _COMPOSITE,
    'TestGangSchedulingFlow/gang pod fails PreEnqueue when pod group is not yet created (CPG=true)':
        _COMPOSITE,
    'TestGangSchedulingFlow/gang pod fails PreEnqueue when quorum is not met (CPG=true)':
        _COMPOSITE,
    'TestGangSchedulingFlow/gang pod passes PreEnqueue, but waits at Permit (CPG=true)':
        _COMPOSITE,
    'TestGangSchedulingFlow/non-gang pod succeeds immediately (CPG=true)':
        _COMPOSITE,
    'TestPlacementFeasible/1 pod scheduled, 2 unscheduled pods succeed, minCount 3 met (isCPG=false, cpgFeatureGate=false)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/1 pod scheduled, 2 unscheduled pods succeed, minCount 3 met (isCPG=false, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/1 pod scheduled, 2 unscheduled pods succeed, minCount 3 met (isCPG=true, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/1 pod scheduled, minCount 3, first unscheduled fails, not enough remaining (isCPG=false, cpgFeatureGate=false)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/1 pod scheduled, minCount 3, first unscheduled fails, not enough remaining (isCPG=false, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/1 pod scheduled, minCount 3, first unscheduled fails, not enough remaining (isCPG=true, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/1 pod scheduled, minCount 4, first unscheduled succeeds, not enough remaining (isCPG=false, cpgFeatureGate=false)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/1 pod scheduled, minCount 4, first unscheduled succeeds, not enough remaining (isCPG=false, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/1 pod scheduled, minCount 4, first unscheduled succeeds, not enough remaining (isCPG=true, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/All pods succeed, minCount met at end (isCPG=false, cpgFeatureGate=false)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/All pods succeed, minCount met at end (isCPG=false, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/All pods succeed, minCount met at end (isCPG=true, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/First pod fails, minCount not satisfiable (isCPG=false, cpgFeatureGate=false)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/First pod fails, minCount not satisfiable (isCPG=false, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/First pod fails, minCount not satisfiable (isCPG=true, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/More than minCount pods, all succeed (isCPG=false, cpgFeatureGate=false)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/More than minCount pods, all succeed (isCPG=false, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/More than minCount pods, all succeed (isCPG=true, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/More than minCount pods, first fails (isCPG=false, cpgFeatureGate=false)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/More than minCount pods, first fails (isCPG=false, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/More than minCount pods, first fails (isCPG=true, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/More than minCount pods, minCount not satisfiable (isCPG=false, cpgFeatureGate=false)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/More than minCount pods, minCount not satisfiable (isCPG=false, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/More than minCount pods, minCount not satisfiable (isCPG=true, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/Non-gang pod group with 0 scheduled pods fails (isCPG=false, cpgFeatureGate=false)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/Non-gang pod group with 0 scheduled pods fails (isCPG=false, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/Non-gang pod group with 0 scheduled pods fails (isCPG=true, cpgFeatureGate=false)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/Non-gang pod group with 0 scheduled pods fails (isCPG=true, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/Non-gang pod group with 1 initially scheduled pod succeeds (isCPG=false, cpgFeatureGate=false)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/Non-gang pod group with 1 initially scheduled pod succeeds (isCPG=false, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/Non-gang pod group with 1 initially scheduled pod succeeds (isCPG=true, cpgFeatureGate=false)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/Non-gang pod group with 1 initially scheduled pod succeeds (isCPG=true, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/Non-gang pod group with succeeds once 1 pod is scheduled (isCPG=false, cpgFeatureGate=false)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/Non-gang pod group with succeeds once 1 pod is scheduled (isCPG=false, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/Non-gang pod group with succeeds once 1 pod is scheduled (isCPG=true, cpgFeatureGate=false)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/Non-gang pod group with succeeds once 1 pod is scheduled (isCPG=true, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/Second pod fails, minCount not satisfiable (isCPG=false, cpgFeatureGate=false)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/Second pod fails, minCount not satisfiable (isCPG=false, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/Second pod fails, minCount not satisfiable (isCPG=true, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/minCount already met by scheduled pods (isCPG=false, cpgFeatureGate=false)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/minCount already met by scheduled pods (isCPG=false, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    'TestPlacementFeasible/minCount already met by scheduled pods (isCPG=true, cpgFeatureGate=true)':
        _POD_GROUP_CYCLE,
    "Test_isSchedulableAfterCompositePodGroupAdded/add a CPG which does not match the pod's CPG hierarchy":
        _COMPOSITE,
    "Test_isSchedulableAfterCompositePodGroupAdded/add a CPG which does not match the pod's CPG hierarchy (CPG=false)":
        _COMPOSITE,
    "Test_isSchedulableAfterCompositePodGroupAdded/add a CPG which matches the pod's intermediate CPG but implies the same root":
        _COMPOSITE,
    "Test_isSchedulableAfterCompositePodGroupAdded/add a CPG which matches the pod's intermediate CPG but implies the same root (CPG=false)":
        _COMPOSITE,
    "Test_isSchedulableAfterCompositePodGroupAdded/add a CPG which matches the pod's root CPG":
        _COMPOSITE,
    "Test_isSchedulableAfterCompositePodGroupAdded/add a CPG which matches the pod's root CPG (CPG=false)":
        _COMPOSITE,
    'Test_isSchedulableAfterPodAdded/add a newPod which belongs to a different scheduling group and does not match the root CPG':
        _COMPOSITE,
    'Test_isSchedulableAfterPodAdded/add a newPod which belongs to a different scheduling group but matches the root CPG':
        _COMPOSITE,
    "Test_isSchedulableAfterPodAdded/add a newPod which doesn't match the pod's namespace":
        _COMPOSITE,
    "Test_isSchedulableAfterPodAdded/add a newPod which doesn't match the pod's pod group name":
        _COMPOSITE,
    "Test_isSchedulableAfterPodAdded/add a newPod which matches the pod's scheduling group":
        _COMPOSITE,
    "Test_isSchedulableAfterPodAdded/add a newPod with NodeName set which matches the pod's scheduling group":
        _COMPOSITE,
    "Test_isSchedulableAfterPodGroupAdded/add a pod group which doesn't match the pod's scheduling group and doesn't match the root CPG":
        _COMPOSITE,
    "Test_isSchedulableAfterPodGroupAdded/add a pod group which doesn't match the pod's scheduling group but matches the root CPG":
        _COMPOSITE,
    "Test_isSchedulableAfterPodGroupAdded/add a pod group which doesn't match the pod's scheduling group name":
        _COMPOSITE,
    "Test_isSchedulableAfterPodGroupAdded/add a pod group which doesn't match the pod's scheduling group namespace":
        _COMPOSITE,
    "Test_isSchedulableAfterPodGroupAdded/add a pod group which matches the pod's pod group name":
        _COMPOSITE,
    "Test_isSchedulableAfterPodGroupUpdated/minCount decreased but pod group name doesn't match target pod":
        _COMPOSITE,
    "Test_isSchedulableAfterPodGroupUpdated/minCount decreased but pod group namespace doesn't match target pod":
        _COMPOSITE,
    'Test_isSchedulableAfterPodGroupUpdated/minCount decreased matches target pod':
        _COMPOSITE,
    'Test_isSchedulableAfterPodGroupUpdated/minCount increased matches target pod':
        _COMPOSITE,
    'Test_isSchedulableAfterPodGroupUpdated/minCount unchanged matches target pod':
        _COMPOSITE,
    'Test_isSchedulableAfterPodGroupUpdated/pod without a scheduling group is skipped':
        _COMPOSITE,
    'Test_isSchedulableAfterPodGroupUpdated/update Basic policy':
        _COMPOSITE,
    'TestNormalizePlacementScore/distinct scores':
        _POD_GROUP_CYCLE,
    'TestNormalizePlacementScore/equal scores':
        _POD_GROUP_CYCLE,
    'TestNormalizePlacementScore/single score':
        _POD_GROUP_CYCLE,
    'TestNormalizePlacementScore/some minimal score that is far from a group of scores located closely':
        _POD_GROUP_CYCLE,
    'TestNormalizePlacementScore/zero scores':
        _POD_GROUP_CYCLE,
    'TestScorePlacement/existing assigned and assumed pods':
        _POD_GROUP_CYCLE,
    'TestScorePlacement/for cpg existing assigned and assumed pods across multi-level hierarchies':
        _POD_GROUP_CYCLE,
    'TestScorePlacement/for cpg with no assigned pods':
        _POD_GROUP_CYCLE,
    'TestScorePlacement/for cpg with no assigned pods, no assumed pods':
        _POD_GROUP_CYCLE,
    'TestScorePlacement/for cpg with no assumed pods':
        _POD_GROUP_CYCLE,
    'TestScorePlacement/no assigned pods':
        _POD_GROUP_CYCLE,
    'TestScorePlacement/no assigned pods, no assumed pods':
        _POD_GROUP_CYCLE,
    'TestScorePlacement/no assumed pods':
        _POD_GROUP_CYCLE,
    "TestSignatures/ConstSig": "not a case: the table's test plugins carry a `name:` field the case reader also sees",
    "TestSignatures/ConstSig2": "not a case: the table's test plugins carry a `name:` field the case reader also sees",
    "TestPreferredAffinityWithHardPodAffinitySymmetricWeight/with default weight":
        "its pods have no namespace and its term lists the empty namespace \"\": the API server always sets "
        "metadata.namespace, and kubeberth reads an unset one as \"default\" (as kubectl and the API server do), "
        "so the term's namespaces never match",
    "TestEnoughRequests/extended resource backed by DRA": _DRA_EXTENDED,
    "TestEnoughRequests/extended resource was backed by Device Plugin (Allocatable: 0)": _DRA_EXTENDED,
    "TestFitScore/test case for ScoringStrategy LeastAllocated with Extended resources": _DRA_EXTENDED,
    "TestFitScore/test case for ScoringStrategy LeastAllocated with Extended resources if PreScore is not called":
        _DRA_EXTENDED,
    "TestLeastAllocatedScoringStrategy/resource with zero weight": _ZERO_WEIGHT,
    "TestMostAllocatedScoringStrategy/resource with zero weight": _ZERO_WEIGHT,
    "TestNodeResourcesBalancedAllocation/include DRA resource on a node for balanced resource allocation":
        _DRA_EXTENDED,
    "TestNodeResourcesBalancedAllocation/include DRA resource on a node for balanced resource allocation if "
    "PreScore not called": _DRA_EXTENDED,
    "TestIsSchedulableAfterPodTolerationChange/error-wrong-new-object": _TARGET_POD,
    "TestIsSchedulableAfterPodTolerationChange/error-wrong-old-object": _TARGET_POD,
    "TestIsSchedulableAfterPodTolerationChange/queue-when-the-unsched-pod-gets-toleration": _TARGET_POD,
    "TestIsSchedulableAfterPodTolerationChange/skip-when-the-unsched-pod-gets-unrelated-toleration": _TARGET_POD,
    "TestWithBinding/unbound volume no storage class":
        "expects the message of the test's fake StorageClass lister (storageclasses.storage.k8s.io); kube-scheduler's "
        "informer lister, and kubeberth, say storageclass.storage.k8s.io \"Class_0\" not found",
    "TestWithBinding/unbound volume immediate binding mode":
        "its StorageClass has no volumeBindingMode, which the API server always defaults to Immediate; kubeberth "
        "applies that default, so the claim is an unbound Immediate one (PersistentVolume had no name)",
    "TestPreFilterStateRemovePod/remove a pod when scheduling node affinity matched pod with NodeInclusionPolicy "
    "disabled": _REMOVE_ELSEWHERE,
    "TestPreFilterStateRemovePod/remove a pod when scheduling node affinity matched pod with NodeInclusionPolicy "
    "enabled": _REMOVE_ELSEWHERE,
    "TestPodTopologySpreadScore/1000nodes/single-constraint-node": _BENCHMARK,
    "TestPodTopologySpreadScore/1000nodes/single-constraint-zone": _BENCHMARK,
    "TestPodTopologySpreadScore/1000nodes/two-Constraints-zone-node": _BENCHMARK,
    "TestFitScore/LeastAllocated with 10 resources": _BENCHMARK,
    "TestFitScore/LeastAllocated with defaultResources": _BENCHMARK,
    "TestFitScore/MostAllocated with 10 resources": _BENCHMARK,
    "TestFitScore/MostAllocated with defaultResources": _BENCHMARK,
    "TestFitScore/RequestedToCapacityRatio with 10 resources": _BENCHMARK,
    "TestFitScore/RequestedToCapacityRatio with defaultResources": _BENCHMARK,
    "TestSelectVictimsOnNode/Workload Aware: Atomic preemption of PodGroup":
        _WORKLOAD_PREEMPTION,
    "TestSelectVictimsOnNode/Workload Aware: prefer single pod over podGroup for preemption candidate":
        _WORKLOAD_PREEMPTION,
    "TestSelectVictimsOnNode/Workload Aware: preempt lower priority pod group instead of higher priority single pod":
        _WORKLOAD_PREEMPTION,
    "TestSelectVictimsOnNode/Workload Aware: preempt lower priority single pod instead of higher priority pod group":
        _WORKLOAD_PREEMPTION,
    "TestSelectVictimsOnNode/Workload Aware: PDB: PodGroup as victim with 2 PDB violations":
        _WORKLOAD_PREEMPTION,
    "TestSelectVictimsOnNode/Workload Aware: PDB: Prefer non-violating PodGroup over lower-priority violating PodGroup (DisruptionModeAll)":
        _WORKLOAD_PREEMPTION,
    "TestSelectVictimsOnNode/Workload Aware: PDB: Prefer non-violating PodGroup over lower-priority violating PodGroup (DisruptionModeSingle)":
        _WORKLOAD_PREEMPTION,
    "TestSelectVictimsOnNode/Cross-node PodGroup: zone anti-affinity blocks reprieve via PreFilterExtension on node-a":
        _WORKLOAD_PREEMPTION,
    "TestSelectVictimsOnNode/Cross-node PodGroup: zone anti-affinity blocks reprieve via PreFilterExtension on node-b":
        _WORKLOAD_PREEMPTION,
    "TestSelectVictimsOnNode/Cross-node PodGroup: zone anti-affinity reprieve succeeds when remote pod lacks constraint label (negative control)":
        _WORKLOAD_PREEMPTION,
    "TestSelectVictimsOnNode/Cross-node PodGroup: topology spread blocks reprieve via PreFilterExtension on node-a":
        _WORKLOAD_PREEMPTION,
    "TestSelectVictimsOnNode/Cross-node PodGroup: topology spread blocks reprieve via PreFilterExtension on node-c":
        _WORKLOAD_PREEMPTION,
    "TestSelectVictimsOnNode/Cross-node PodGroup: whole pod group across multiple nodes expected to be preempted":
        _WORKLOAD_PREEMPTION,
    "TestPreFilterStateRemovePod/1000nodes/single-constraint-node": _BENCHMARK,
    "TestPreFilterStateRemovePod/1000nodes/single-constraint-zone": _BENCHMARK,
    "TestPreFilterStateRemovePod/1000nodes/two-Constraints-zone-node": _BENCHMARK,
    "Test_isSchedulableAfterTargetPodChange/the unschedulable Pod has topologySpreadConstraint and has got a new "
    "label matching the selector of the constraint": _TARGET_POD,
    "Test_isSchedulableAfterTargetPodChange/the unschedulable Pod has topologySpreadConstraint and has got a new "
    "unrelated label": _TARGET_POD,
    "Test_isSchedulableAfterTargetPodChange/the unschedulable Pod has topologySpreadConstraint with "
    "NodeTaintsPolicy:Honor and has got a new toleration": _TARGET_POD,
    "Test_isSchedulableAfterTargetPodChange/the unschedulable Pod has topologySpreadConstraint without "
    "NodeTaintsPolicy:Honor and has got a new toleration": _TARGET_POD,
    "TestPodEligibleToPreemptOthers/Preemptor with SchedulingGroup, victim priority overridden by PodGroup in victim namespace":
        _WORKLOAD_PREEMPTION,
    "TestPodEligibleToPreemptOthers/Preemptor with SchedulingGroup, victim priority overridden by CompositePodGroup in victim namespace":
        _WORKLOAD_PREEMPTION,
    "TestPodEligibleToPreemptOthers/Preemptor with SchedulingGroup, CompositePodGroup not found in victim namespace, fallback to PodGroup priority":
        _WORKLOAD_PREEMPTION,
    "TestPodEligibleToPreemptOthers/Preemptor with SchedulingGroup, PodGroup not found in victim namespace, fallback to pod priority when CompositePodGroup is enabled":
        _WORKLOAD_PREEMPTION,
    "TestPodEligibleToPreemptOthers/Preemptor with SchedulingGroup, victim priority overridden by root CompositePodGroup in multi-level CPG hierarchy":
        _WORKLOAD_PREEMPTION,
}
