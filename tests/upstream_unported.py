"""kube-scheduler v1.37.2 plugin test cases intentionally not ported, and why.

Read by scripts/upstream_cases.py and tests/test_upstream_cases.py: every key must name an
upstream case (`TestFunction/case name`) and must not also be ported.
"""

_COMPARISON_OPS = "TaintTolerationComparisonOperators (alpha gate, Gt/Lt tolerations) is not implemented"

_COMPOSITE = "CompositePodGroup (alpha gate, scheduling.k8s.io/v1alpha3 hierarchies) is not implemented"
_POD_GROUP_CYCLE = (
    "DynamicResources' PodGroupPostFilter (deallocating a PodGroup's claims when its pod group cycle fails; "
    "DRAWorkloadResourceClaims) is not implemented: the pod group cycle runs PodGroupPostFilter "
    "(core/scheduling/podgroup_cycle.py), but only DefaultPreemption implements it"
)

_ZERO_WEIGHT = (
    "hands weight 0 to the plugin, bypassing config defaulting; kubeberth's args are the v1 configuration, where an "
    "unset (0) weight defaults to 1 as kube-scheduler's v1 defaulting does, so it cannot reach the plugin"
)

_REMOVE_ELSEWHERE = (
    "RemovePod is handed existingPods[0] (deletedPodIdx left at 0) with node-b's NodeInfo, where that pod is not "
    "placed; kubeberth's PreFilter state follows the cluster, where a pod leaves the node it is on"
)
_DRA_NODE_MATCH_CACHE = (
    "reads back what it stored in resourceAllocationScorer's private NodeMatches cache (a sync.Map keyed by node "
    "and selector, used when scoring DRA-backed extended resources); kubeberth evaluates a ResourceSlice's node "
    "selector over the whole node table at once (kubeberth.api.device_counts) and keeps the per-row counts, so "
    "there is no per-node match cache to read back (the selectors themselves are covered by "
    "TestCalculateResourceAllocatableRequest/DRA-backed-resource-with-per-device-node-selection)"
)
_DEFERRED_RESIZE_QUEUE = (
    "re-evaluates a deferred resize when another pod on its node scales up (InPlacePodVerticalScalingSchedulerPreemption, "
    "alpha, off by default): kubeberth does not queue deferred resizes (no DeferredPodScheduling) and a placed pod's "
    "scale-up is no event"
)
_NONZERO_SIGNED = (
    "expects one fragment for a pod and the same pod with one more container without requests; kubeberth's "
    "resources fragment also carries the non-zero cpu/memory that scoring reads (100m/200Mi for a container "
    "without requests), so the two sign apart (upstream's fragment is computePodResourceRequest alone)"
)
_BENCHMARK = (
    "a benchmark (Benchmark... table after the Test function), not a test case: the case reader attributes its "
    "names to the Test function before it"
)


_EMPTY_UID = (
    "fails PodGroupPostFilter through a cached pod with an empty UID (the snapshot's \"cannot get cache key for "
    "pod with empty UID\"); kubeberth's cache keys pods by UID and gives a pod without one its namespace/name, so "
    "no such pod reaches preemption (an evaluation error is prefixed \"pod group preemption: \" as upstream: "
    "tests/test_pod_group_preemption.py)"
)
_SNAPSHOT_MUTATIONS = (
    "injects StartMutations/EndMutations errors into the mutable snapshot lister; kubeberth's PodGroupPostFilter "
    "takes victims off inside ClusterState.hypothetical(), which restores the cache exactly and has no "
    "start/end step that can fail"
)
_DEFERRED_RESIZE = (
    "InPlacePodVerticalScalingSchedulerPreemption (alpha gate: a running pod's deferred resize scheduled, and "
    "preempted for, on its own node) is not implemented in NodeResourcesFit, the scheduling cycle or preemption"
)
_PREFILTER_EXTENSION_ERROR = (
    "the test plugin fails in its PreFilterExtensions RemovePod; kubeberth's plugin API has no AddPod/RemovePod "
    "extension (preemption re-runs a PreFilterState.RERUN plugin's PreFilter on the hypothetical cluster), so no "
    "plugin can fail there"
)

_DRA_NODE_ALLOCATABLE = "DRANodeAllocatableResources (alpha gate: devices mapped onto node cpu/memory) is not implemented"
_DRA_NODE_ALLOCATABLE_VICTIM = (
    "DRANodeAllocatableResources (alpha gate) is not implemented: the victim's 2 CPUs held through a DRA claim "
    "(status.nodeAllocatableResourceClaimStatuses) are not counted in the node's requested cpu, so the dry run "
    "sees room without evicting it (the gate-off case of the same table is ported)"
)
_DRA_POD_GROUP = "DRAWorkloadResourceClaims / PodGroup claims (alpha and off-by-default beta gates) are not implemented"
_DRA_ALLOCATOR_VARIANTS = (
    "asserts which of upstream's stable/incubating/experimental allocator builds a feature set picks; kubeberth has "
    "one allocator with two search orders (the incubating variant's while DRAPartitionableDevices or "
    "DRAConsumableCapacity is on, as by default; the stable variant's with both off), no experimental build (its "
    "alpha gates are not implemented), and DeviceBindingAndStatus or FractionalCapacityRange alone do not switch "
    "it, so the expected build names have no counterpart (see builtin_plugins/dynamic_resources/allocator.py; the "
    "shared allocator table runs in tests/builtin_plugins/test_dynamic_resources_allocator_upstream.py)"
)
_PRE_QUEUEING_HINT = (
    "PreQueueingHint narrows which pods DynamicResources' ResourceClaim hint is asked about (the claim's pods, or all "
    "on deallocation); kubeberth asks the hint (ported: TestIsSchedulableAfterClaimChange) for every pod it rejected"
)
_FINAL_STATE_UNKNOWN = (
    "a cache.DeletedFinalStateUnknown tombstone: kubeberth's informers deliver a deletion with the object's last "
    "known state (the hint queues the pod when there is none)"
)
_DRA_OPTIONAL_NODE_OPS = "DRAOptionalNodeOperations (alpha gate) is not implemented"
_DRA_MANAGER = (
    "tests upstream's DRA manager internals (SignalClaimPendingAllocation and friends); kubeberth keeps in-flight "
    "allocations in ClusterState.devices, covered by tests/builtin_plugins/test_dynamic_resources.py"
)
_DRA_GATHER_ONE_CLAIM_TWICE = (
    "the fixture feeds allocatedClaim and allocatedClaimWithConsumedCapacity, two versions of one ResourceClaim "
    "(same namespace/name), to the tracker as two informer adds; kubeberth's claim cache keys claims by "
    "namespace/name, so the second replaces the first as an informer update would (upstream's tracker ignores "
    "such an update). Shares, consumed capacity and in-flight shares are covered by the other "
    "TestGatherAllocatedState cases in tests/builtin_plugins/test_dynamic_resources_allocated_state_upstream.py"
)

_DRA_LOCKED_GATE = (
    "turns off a DRA gate that is GA and locked to true in v1.37 (upstream's table hands the plugin a feature struct "
    "or an older emulation version); kubeberth's --feature-gates refuses to change a locked gate, as kube-scheduler's does"
)
_DRA_CANCEL = (
    "cancels Filter's context from the outside; kubeberth's Filter has no caller cancellation (the filter timeout, "
    "ported as TestPlugin/timeout, is its only deadline)"
)

_VB_NIL_BINDINGS = (
    "hands checkBindings or BindPodVolumes a nil bindings or claims-to-provision slice (a pod whose binding cache "
    "entry is missing) and expects an error; kubeberth's check_bindings and bind_pod_volumes take the pod's reserved "
    "assignments from its cycle state, a list that is empty, never missing, so there is no lookup that can fail"
)

_VB_ASSUME_CACHE = (
    "tests upstream's generic assume cache (AssumeCache.Assume: an in-memory copy of a PV or PVC, accepted only at "
    "the informer's resourceVersion); kubeberth keeps no object copies: the PVs a pod reserved are a name -> "
    "(claim, pod) index over the scheduler's cache (AssumedVolumes in builtin_plugins/volume_binding/assume_cache.py, covered by "
    "tests/builtin_plugins/test_volume_binding.py), and PreBind reads and writes the API objects fresh"
)
_VB_ASSUME_POD_VOLUMES = (
    "checks what AssumePodVolumes leaves in the binder's PV/PVC assume caches (claimRef'd PV copies, PVC copies "
    "carrying the selected-node annotation, restored after a version error); kubeberth's Reserve records only the "
    "chosen PV names in its AssumedVolumes index (no object copies, no claims to provision, nothing that can fail), "
    "so the expected cache contents have no counterpart"
)
_VB_BIND_API_UPDATE = (
    "bindAPIUpdate writes the assumed copies held in the assume caches (the PV whose claimRef AssumePodVolumes set, "
    "the PVC annotated at assume time) and the test checks both caches after; kubeberth's PreBind (bind_claim, "
    "select_node) reads the PV and claim fresh through the Handle and writes a resourceVersion-guarded update or a "
    "patch, so these fixtures (bound claims absent from the API, cache and API at different versions) have no "
    "counterpart; its writes are covered by the pre_bind tests in tests/builtin_plugins/test_volume_binding.py"
)

_MOCKED_SCHEDULE_POD = (
    "replaces the scheduling algorithm (sched.SchedulePod) with a function returning an injected error; "
    "kubeberth's scheduling cycle has no such seam (a plugin's Error is reported with the plugin's own message)"
)
_DELETING_POD_EVENT = (
    "kube-scheduler pops a pod being deleted and records `skip schedule deleting pod` as a FailedScheduling event; "
    "kubeberth drops such a pod from the queue when its update arrives (no cycle, no event)"
)

_BACKOFF_CACHE = (
    "kubeberth computes a pod's backoff once, when the pod comes back to the queue, and keeps it on the entry "
    "(QueuedPod.backoff_until); there is no separate cached BackoffExpiration to preset and read back"
)
_ENTITY_BACKOFF = (
    "kubeberth queues a pod group's members one by one (a group is tried together when one is popped), so a "
    "backoff is never computed for a multi-pod entity (the square root of its size on the maximum)"
)

UNPORTED: dict[str, str] = {
    "TestBackoffQueue_getBackoffTime/backoff is returned from the cache": _BACKOFF_CACHE,
    "TestBackoffQueue_calculateBackoffDuration/larger entity size": _ENTITY_BACKOFF,
    "TestBackoffQueue_calculateBackoffDuration/hitting max backoff duration with larger entity size": _ENTITY_BACKOFF,
    "TestSchedulerScheduleOne/schedule pod failed": _MOCKED_SCHEDULE_POD,
    "TestSchedulerScheduleOne/pod with existing nominated node name on scheduling error clears nomination": _MOCKED_SCHEDULE_POD,
    "TestSchedulerScheduleOne/deleting pod": _DELETING_POD_EVENT,
    "TestAssume/fail-new-bad-version": _VB_ASSUME_CACHE,
    "TestAssume/fail-new-higher-version": _VB_ASSUME_CACHE,
    "TestAssume/fail-new-lower-version": _VB_ASSUME_CACHE,
    "TestAssume/fail-old-bad-version": _VB_ASSUME_CACHE,
    "TestAssume/fail-old-not-found": _VB_ASSUME_CACHE,
    "TestAssume/success-same-version": _VB_ASSUME_CACHE,
    "TestAssumePodVolumes/all-bound": _VB_ASSUME_POD_VOLUMES,
    "TestAssumePodVolumes/one-binding": _VB_ASSUME_POD_VOLUMES,
    "TestAssumePodVolumes/one-binding, one-provision-tmpupdate-failed": _VB_ASSUME_POD_VOLUMES,
    "TestAssumePodVolumes/one-binding, one-pvc-provisioned": _VB_ASSUME_POD_VOLUMES,
    "TestAssumePodVolumes/pv-already-bound": _VB_ASSUME_POD_VOLUMES,
    "TestAssumePodVolumes/tmpupdate-failed": _VB_ASSUME_POD_VOLUMES,
    "TestAssumePodVolumes/two-bindings": _VB_ASSUME_POD_VOLUMES,
    "TestBindAPIUpdate/api-already-updated": _VB_BIND_API_UPDATE,
    "TestBindAPIUpdate/api-update-failed": _VB_BIND_API_UPDATE,
    "TestBindAPIUpdate/binding-succeed, provision-api-update-failed": _VB_BIND_API_UPDATE,
    "TestBindAPIUpdate/nothing-to-bind-bindings-nil": _VB_BIND_API_UPDATE,
    "TestBindAPIUpdate/nothing-to-bind-empty": _VB_BIND_API_UPDATE,
    "TestBindAPIUpdate/nothing-to-bind-nil": _VB_BIND_API_UPDATE,
    "TestBindAPIUpdate/nothing-to-bind-provisionings-nil": _VB_BIND_API_UPDATE,
    "TestBindAPIUpdate/one-binding": _VB_BIND_API_UPDATE,
    "TestBindAPIUpdate/one-provisioned-pvc": _VB_BIND_API_UPDATE,
    "TestBindAPIUpdate/provision-api-update-failed": _VB_BIND_API_UPDATE,
    "TestBindAPIUpdate/two-bindings": _VB_BIND_API_UPDATE,
    "TestCheckBindings/nothing-to-bind-nil": _VB_NIL_BINDINGS,
    "TestBindPodVolumes/nothing-to-bind-nil": _VB_NIL_BINDINGS,
    "TestCheckBindings/nothing-to-bind-bindings-nil": _VB_NIL_BINDINGS,
    "TestCheckBindings/nothing-to-bind-provisionings-nil": _VB_NIL_BINDINGS,
    "TestPostFilter/only one node but failed with TestPlugin": _PREFILTER_EXTENSION_ERROR,
    "TestPostFilter/one failed with TestPlugin and the other pass": _PREFILTER_EXTENSION_ERROR,
    "TestPostFilter/deferred pod resize preemption success (mitigates double counting)": _DEFERRED_RESIZE,
    "TestPostFilter/deferred pod resize preemption success (bypasses skipped filter plugins)": _DEFERRED_RESIZE,
    "TestPostFilter/deferred pod resize preemption fails because victim search is isolated to host node":
        _DEFERRED_RESIZE,
    "TestPreEnqueue/CompositePodGroup enabled, pod in different leaf PodGroup but same root CompositePodGroup, "
    "returns UnschedulableAndUnresolvable": _COMPOSITE,
    "TestPreEnqueue/CompositePodGroup enabled, pod in different leaf PodGroup and different root CompositePodGroup, "
    "returns nil": _COMPOSITE,
    "TestPreEnqueue/CompositePodGroup disabled, pod in different leaf PodGroup but same root CompositePodGroup, "
    "returns nil": _COMPOSITE,
    "TestPreEnqueue/CompositePodGroup enabled, parent CompositePodGroup is missing, returns nil": _COMPOSITE,
    "TestPreEnqueue/CompositePodGroup enabled, pod in different leaf PodGroup under multi-level CompositePodGroup "
    "hierarchy, returns UnschedulableAndUnresolvable": _COMPOSITE,
    "TestPreEnqueue/CompositePodGroup enabled, intermediate parent CompositePodGroup missing, returns nil":
        _COMPOSITE,
    "TestDefaultPreemption_PodGroupPostFilter_ErrorWrapping/PodGroup preemptor": _EMPTY_UID,
    "TestMoreImportantVictim/CPG vs Pod, same priority (CPG wins)": _COMPOSITE,
    "TestMoreImportantVictim/Pod vs CPG, same priority (CPG wins)": _COMPOSITE,
    "TestMoreImportantVictim/CPG vs PG, same priority (CPG wins)": _COMPOSITE,
    "TestMoreImportantVictim/PG vs CPG, same priority (CPG wins)": _COMPOSITE,
    "TestMoreImportantVictim/CPG vs PG, PG higher priority (higher priority wins)": _COMPOSITE,
    "TestMoreImportantVictim/PG vs CPG, PG higher priority (higher priority wins)": _COMPOSITE,
    "TestMoreImportantVictim/CPG vs PG, CPG smaller size, same priority (CPG rank wins over size)": _COMPOSITE,
    "TestMoreImportantVictim/CPG vs PG, CPG newer start time, same priority (CPG rank wins over start time)": _COMPOSITE,
    "TestMoreImportantVictim/both CPGs, vi1 larger (larger size wins)": _COMPOSITE,
    "TestMoreImportantVictim/both CPGs, vi2 larger (larger size wins)": _COMPOSITE,
    "TestMoreImportantVictim/both CPGs, same size, vi1 older (earlier start time wins)": _COMPOSITE,
    "TestMoreImportantVictim/both CPGs, same size, vi2 older (earlier start time wins)": _COMPOSITE,
    "TestNewPodGroupPreemptorResolvesPreemptionPolicy/PreemptionPolicy is resolved from pods when CompositePodGroup is active: PreemptLowerPriority when no pod is PreemptNever": _COMPOSITE,
    "TestNewPodGroupPreemptorResolvesPreemptionPolicy/PreemptionPolicy is resolved from pods when CompositePodGroup is active: PreemptNever when any pod is PreemptNever": _COMPOSITE,
    "TestNewPodGroupPreemptorResolvesPreemptionPolicy/PreemptionPolicy PreemptNever is resolved from CompositePodGroup, ignoring policy in pod, with PodGroupPreemptionPolicy enabled": _COMPOSITE,
    "TestNewPodGroupPreemptorResolvesPreemptionPolicy/PreemptionPolicy PreemptLowerPriority is resolved from CompositePodGroup, ignoring different policies in pods, with PodGroupPreemptionPolicy enabled": _COMPOSITE,
    "TestNewPodGroupPreemptorResolvesPreemptionPolicy/PreemptionPolicy is resolved from pods when CompositePodGroup has policy but PodGroupPreemptionPolicy is disabled": _COMPOSITE,
    "TestNewPodGroupPreemptorResolvesPreemptionPolicy/PreemptionPolicy defaults to PreemptLowerPriority when CompositePodGroup has no policy set with PodGroupPreemptionPolicy enabled, even if pods are PreemptNever": _COMPOSITE,
    "TestDefaultPreemption_PodGroupPostFilter_ErrorWrapping/CompositePodGroup preemptor": _COMPOSITE,
    "TestDefaultPreemption_PodGroupPostFilter_InvalidSnapshot/PodGroup start mutation error": _SNAPSHOT_MUTATIONS,
    "TestDefaultPreemption_PodGroupPostFilter_InvalidSnapshot/PodGroup end mutation error": _SNAPSHOT_MUTATIONS,
    "TestDefaultPreemption_PodGroupPostFilter_InvalidSnapshot/CompositePodGroup start mutation error": _COMPOSITE,
    "TestDefaultPreemption_PodGroupPostFilter_InvalidSnapshot/CompositePodGroup end mutation error": _COMPOSITE,
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

# Workload-aware scheduling (GenericWorkload): GangScheduling, PodGroupPodsCount, TopologyPlacementGenerator.
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
    'TestPlacementFeasible/1 pod scheduled, 2 unscheduled pods succeed, minCount 3 met (isCPG=true, cpgFeatureGate=true)':
        _COMPOSITE,
    'TestPlacementFeasible/1 pod scheduled, minCount 3, first unscheduled fails, not enough remaining (isCPG=true, cpgFeatureGate=true)':
        _COMPOSITE,
    'TestPlacementFeasible/1 pod scheduled, minCount 4, first unscheduled succeeds, not enough remaining (isCPG=true, cpgFeatureGate=true)':
        _COMPOSITE,
    'TestPlacementFeasible/All pods succeed, minCount met at end (isCPG=true, cpgFeatureGate=true)':
        _COMPOSITE,
    'TestPlacementFeasible/First pod fails, minCount not satisfiable (isCPG=true, cpgFeatureGate=true)':
        _COMPOSITE,
    'TestPlacementFeasible/More than minCount pods, all succeed (isCPG=true, cpgFeatureGate=true)':
        _COMPOSITE,
    'TestPlacementFeasible/More than minCount pods, first fails (isCPG=true, cpgFeatureGate=true)':
        _COMPOSITE,
    'TestPlacementFeasible/More than minCount pods, minCount not satisfiable (isCPG=true, cpgFeatureGate=true)':
        _COMPOSITE,
    'TestPlacementFeasible/Non-gang pod group with 0 scheduled pods fails (isCPG=true, cpgFeatureGate=false)':
        _COMPOSITE,
    'TestPlacementFeasible/Non-gang pod group with 0 scheduled pods fails (isCPG=true, cpgFeatureGate=true)':
        _COMPOSITE,
    'TestPlacementFeasible/Non-gang pod group with 1 initially scheduled pod succeeds (isCPG=true, cpgFeatureGate=false)':
        _COMPOSITE,
    'TestPlacementFeasible/Non-gang pod group with 1 initially scheduled pod succeeds (isCPG=true, cpgFeatureGate=true)':
        _COMPOSITE,
    'TestPlacementFeasible/Non-gang pod group with succeeds once 1 pod is scheduled (isCPG=true, cpgFeatureGate=false)':
        _COMPOSITE,
    'TestPlacementFeasible/Non-gang pod group with succeeds once 1 pod is scheduled (isCPG=true, cpgFeatureGate=true)':
        _COMPOSITE,
    'TestPlacementFeasible/Second pod fails, minCount not satisfiable (isCPG=true, cpgFeatureGate=true)':
        _COMPOSITE,
    'TestPlacementFeasible/minCount already met by scheduled pods (isCPG=true, cpgFeatureGate=true)':
        _COMPOSITE,
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
    'TestGeneratePlacements/for cpg without constraint returns placement matching all nodes':
        _COMPOSITE,
    'TestGeneratePlacements/for cpg with topology key constraint, returns placement for each topology domain':
        _COMPOSITE,
    'TestGeneratePlacements/for cpg without matching topology label, returns empty':
        _COMPOSITE,
    'TestGeneratePlacements/for cpg with pods already scheduled in a single domain, returns that domain':
        _COMPOSITE,
    'TestGeneratePlacements/for cpg with pods already scheduled in a single domain not present in current placement, returns empty':
        _COMPOSITE,
    'TestGeneratePlacements/for cpg with pods already scheduled in conflicting domains across separate pod groups, returns error':
        _COMPOSITE,
    'TestGeneratePlacements/for cpg with pods already scheduled in conflicting domains in a single pod group, returns error':
        _COMPOSITE,
    'TestGeneratePlacements/for cpg with already scheduled pod on node outside of snapshot, returns error':
        _COMPOSITE,
    'TestGeneratePlacements/for cpg with already scheduled pod on node without topology label, returns error':
        _COMPOSITE,
    'TestScorePlacement/for cpg existing assigned and assumed pods across multi-level hierarchies':
        _COMPOSITE,
    'TestScorePlacement/for cpg with no assigned pods':
        _COMPOSITE,
    'TestScorePlacement/for cpg with no assigned pods, no assumed pods':
        _COMPOSITE,
    'TestScorePlacement/for cpg with no assumed pods':
        _COMPOSITE,
    "TestPreferredAffinityWithHardPodAffinitySymmetricWeight/with default weight":
        "its pods have no namespace and its term lists the empty namespace \"\": the API server always sets "
        "metadata.namespace, and kubeberth reads an unset one as \"default\" (as kubectl and the API server do), "
        "so the term's namespaces never match",
    "TestLeastAllocatedScoringStrategy/resource with zero weight": _ZERO_WEIGHT,
    "TestMostAllocatedScoringStrategy/resource with zero weight": _ZERO_WEIGHT,
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
    "TestDryRunPreemption/Preemption with DRA Node Allocatable: victim pod has DRA, preemptor does not":
        _DRA_NODE_ALLOCATABLE_VICTIM,
    "TestDryRunPreemption/Preemption with DRA Node Allocatable: two victims, one with DRA is evicted, standard one "
    "is reprieved": _DRA_NODE_ALLOCATABLE_VICTIM,
    "TestCustomSelection/filter for matching composite pod group: all affected nodes eligible":
        _COMPOSITE,
    "TestCustomSelection/filter for matching composite pod group: one node ineligible rejects entire composite pod group":
        _COMPOSITE,
    "TestCustomOrdering/select composite pod group over standalone pod due to custom ordering":
        _COMPOSITE,
    "TestCustomOrdering/select larger composite pod group over smaller composite pod group due to custom ordering":
        _COMPOSITE,
    "TestPreFilterStateRemovePod/1000nodes/single-constraint-node": _BENCHMARK,
    "TestPreFilterStateRemovePod/1000nodes/single-constraint-zone": _BENCHMARK,
    "TestPreFilterStateRemovePod/1000nodes/two-Constraints-zone-node": _BENCHMARK,
    "TestPodEligibleToPreemptOthers/Preemptor with SchedulingGroup, victim priority overridden by CompositePodGroup in victim namespace":
        _COMPOSITE,
    "TestPodEligibleToPreemptOthers/Preemptor with SchedulingGroup, CompositePodGroup not found in victim namespace, fallback to PodGroup priority":
        _COMPOSITE,
    "TestPodEligibleToPreemptOthers/Preemptor with SchedulingGroup, PodGroup not found in victim namespace, fallback to pod priority when CompositePodGroup is enabled":
        _COMPOSITE,
    "TestPodEligibleToPreemptOthers/Preemptor with SchedulingGroup, victim priority overridden by root CompositePodGroup in multi-level CPG hierarchy":
        _COMPOSITE,
    'TestAllocatorSelection/AdminAccess': _DRA_ALLOCATOR_VARIANTS,
    'TestAllocatorSelection/CompatibilityGroups': _DRA_ALLOCATOR_VARIANTS,
    'TestAllocatorSelection/ConsumableCapacity': _DRA_ALLOCATOR_VARIANTS,
    'TestAllocatorSelection/DerivedAttributes': _DRA_ALLOCATOR_VARIANTS,
    'TestAllocatorSelection/DeviceBindingAndStatus': _DRA_ALLOCATOR_VARIANTS,
    'TestAllocatorSelection/DeviceTaints': _DRA_ALLOCATOR_VARIANTS,
    'TestAllocatorSelection/FractionalCapacityRange': _DRA_ALLOCATOR_VARIANTS,
    'TestAllocatorSelection/ListTypeAttributes': _DRA_ALLOCATOR_VARIANTS,
    'TestAllocatorSelection/OptionalNodeOperations': _DRA_ALLOCATOR_VARIANTS,
    'TestAllocatorSelection/PartitionableDevices': _DRA_ALLOCATOR_VARIANTS,
    'TestAllocatorSelection/PrioritizedList': _DRA_ALLOCATOR_VARIANTS,
    'TestAllocatorSelection/alpha': _DRA_ALLOCATOR_VARIANTS,
    'TestAllocatorSelection/default': _DRA_ALLOCATOR_VARIANTS,
    'TestAllocatorSelection/only-GA': _DRA_ALLOCATOR_VARIANTS,
    'TestBuildNodeAllocatableDRAInfo/Capacity Key Missing in Allocation - Should be Ignored': _DRA_NODE_ALLOCATABLE,
    'TestBuildNodeAllocatableDRAInfo/Combined CPU request and Auxiliary Request': _DRA_NODE_ALLOCATABLE,
    'TestBuildNodeAllocatableDRAInfo/Combined Capacity and PerAllocatedUnitQuantity': _DRA_NODE_ALLOCATABLE,
    'TestBuildNodeAllocatableDRAInfo/Combined direct mapped and overhead mappings for the same resource': _DRA_NODE_ALLOCATABLE,
    'TestBuildNodeAllocatableDRAInfo/Driver name collision with same pool and device name': _DRA_NODE_ALLOCATABLE,
    'TestBuildNodeAllocatableDRAInfo/Fungible GPU/CPU claim - CPU selected': _DRA_NODE_ALLOCATABLE,
    'TestBuildNodeAllocatableDRAInfo/Fungible GPU/CPU claim - GPU selected': _DRA_NODE_ALLOCATABLE,
    'TestBuildNodeAllocatableDRAInfo/Invalid -  Device Not Found': _DRA_NODE_ALLOCATABLE,
    'TestBuildNodeAllocatableDRAInfo/Multiple Claims per Container': _DRA_NODE_ALLOCATABLE,
    'TestBuildNodeAllocatableDRAInfo/Overhead Mappings': _DRA_NODE_ALLOCATABLE,
    'TestBuildNodeAllocatableDRAInfo/Overhead Mappings - Multiple Containers': _DRA_NODE_ALLOCATABLE,
    'TestBuildNodeAllocatableDRAInfo/Overhead Mappings - Only PerContainer': _DRA_NODE_ALLOCATABLE,
    'TestBuildNodeAllocatableDRAInfo/Overhead Mappings - Only PerPod': _DRA_NODE_ALLOCATABLE,
    'TestBuildNodeAllocatableDRAInfo/Pod Level Resources with shared CPU claim and sidecar containers': _DRA_NODE_ALLOCATABLE,
    'TestBuildNodeAllocatableDRAInfo/Pod with Standard and DRA CPU and Memory Request': _DRA_NODE_ALLOCATABLE,
    'TestBuildNodeAllocatableDRAInfo/Unreferenced Claims': _DRA_NODE_ALLOCATABLE,
    'TestBuildNodeAllocatableDRAInfo/Unreferenced Claims with Overhead': _DRA_NODE_ALLOCATABLE,
    'TestBuildNodeAllocatableDRAInfo/Unreferenced Claims with Overhead Per Container Only': _DRA_NODE_ALLOCATABLE,
    'TestBuildNodeAllocatableDRAInfo/device with both mapped and overhead': _DRA_NODE_ALLOCATABLE,
    'TestBuildNodeAllocatableDRAInfo/empty': _DRA_NODE_ALLOCATABLE,
    'TestBuildNodeAllocatableDRAInfo/one container, one claim, per instance quantity': _DRA_NODE_ALLOCATABLE,
    'TestClearNodeAllocatableResourceClaimStatus/no status to clear': _DRA_NODE_ALLOCATABLE,
    'TestClearNodeAllocatableResourceClaimStatus/status cleared': _DRA_NODE_ALLOCATABLE,
    'TestFilterSlicesForNode/matches AllNodes': _DRA_NODE_ALLOCATABLE,
    'TestFilterSlicesForNode/matches NodeName exactly': _DRA_NODE_ALLOCATABLE,
    'TestFilterSlicesForNode/matches NodeSelector': _DRA_NODE_ALLOCATABLE,
    'TestGatherAllocatedState/add-inflight-allocated-claim-with-capacity': _DRA_GATHER_ONE_CLAIM_TWICE,
    'TestGatherAllocatedState/disabled-inflight-allocated-claim-with-capacity': _DRA_GATHER_ONE_CLAIM_TWICE,
    'TestGatherAllocatedState/mixed-allocated-claim': _DRA_GATHER_ONE_CLAIM_TWICE,
    'TestGetPendingAllocation/claim': _DRA_MANAGER,
    'TestGetPendingAllocation/empty': _DRA_MANAGER,
    'TestGetPendingAllocation/nil-claim': _DRA_MANAGER,
    'TestPlugin/DRA-disabled': _DRA_LOCKED_GATE,
    'TestPlugin/canceled': _DRA_CANCEL,
    'TestPlugin/claim-with-prioritized-list-feature-disabled': _DRA_LOCKED_GATE,
    'TestPlugin/node-allocatable-direct-mapped-sharing-rejected': _DRA_NODE_ALLOCATABLE,
    'TestPlugin/node-allocatable-mapping-and-overhead-in-same-device': _DRA_NODE_ALLOCATABLE,
    'TestPlugin/node-allocatable-mapping-and-overhead-sharing-rejected': _DRA_NODE_ALLOCATABLE,
    'TestPlugin/node-allocatable-overhead-only-sharing-allowed': _DRA_NODE_ALLOCATABLE,
    'TestPlugin/node-allocatable-resource-capacitykey': _DRA_NODE_ALLOCATABLE,
    'TestPlugin/node-allocatable-resource-capacitykey-and-multiplier': _DRA_NODE_ALLOCATABLE,
    'TestPlugin/node-allocatable-resource-insufficient-resources-with-multiplier': _DRA_NODE_ALLOCATABLE,
    'TestPlugin/node-allocatable-resource-insufficient-with-capacityKey': _DRA_NODE_ALLOCATABLE,
    'TestPlugin/node-allocatable-resource-multiplier': _DRA_NODE_ALLOCATABLE,
    'TestPlugin/node-allocatable-unreferenced-claim-direct-mapped': _DRA_NODE_ALLOCATABLE,
    'TestPlugin/node-allocatable-unreferenced-claim-overhead': _DRA_NODE_ALLOCATABLE,
    'TestPlugin/postfilter-deallocate-reserved-podgroup': _POD_GROUP_CYCLE,
    'TestPlugin/postfilter-deallocate-unreserved-podgroup': _POD_GROUP_CYCLE,
    'TestPlugin/postfilter-skip-deallocate-reserved-podgroup-when-pods-active': _POD_GROUP_CYCLE,
    'TestPlugin/request-admin-access-without-DRAAdminAccess-featuregate': _DRA_LOCKED_GATE,
    'TestIsSchedulableAfterClaimChange/queue-on-delete-final-state-unknown': _FINAL_STATE_UNKNOWN,
    'TestIsSchedulableAfterClaimChange/queue-on-delete-final-state-unknown-with-object': _FINAL_STATE_UNKNOWN,
    'TestIsSchedulableAfterClaimChange/queue-on-delete-final-state-unknown-without-object': _FINAL_STATE_UNKNOWN,
    'TestMaybeRemoveClaimPendingAllocation/decrement-remaining-sharers': _DRA_MANAGER,
    'TestMaybeRemoveClaimPendingAllocation/delete-last-sharer': _DRA_MANAGER,
    'TestMaybeRemoveClaimPendingAllocation/empty': _DRA_MANAGER,
    'TestMaybeRemoveClaimPendingAllocation/force-delete-last-sharer': _DRA_MANAGER,
    'TestMaybeRemoveClaimPendingAllocation/force-delete-remaining-sharers': _DRA_MANAGER,
    'TestNodeFitsNativeResources/all resources sufficient': _DRA_NODE_ALLOCATABLE,
    'TestNodeFitsNativeResources/empty pod request': _DRA_NODE_ALLOCATABLE,
    'TestNodeFitsNativeResources/insufficient cpu': _DRA_NODE_ALLOCATABLE,
    'TestNodeFitsNativeResources/insufficient hugepages 1Gi': _DRA_NODE_ALLOCATABLE,
    'TestNodeFitsNativeResources/insufficient hugepages 2Mi': _DRA_NODE_ALLOCATABLE,
    'TestNodeFitsNativeResources/insufficient memory': _DRA_NODE_ALLOCATABLE,
    'TestNodeFitsNativeResources/sufficient cpu and memory': _DRA_NODE_ALLOCATABLE,
    'TestNodeFitsNativeResources/sufficient hugepages': _DRA_NODE_ALLOCATABLE,
    'TestPatchNodeAllocatableResourceClaimStatus/assumed pod status different from new status': _DRA_NODE_ALLOCATABLE,
    'TestPatchNodeAllocatableResourceClaimStatus/assumed pod status same as new status': _DRA_NODE_ALLOCATABLE,
    'TestPatchNodeAllocatableResourceClaimStatus/no node allocatable resource claims for this pod': _DRA_NODE_ALLOCATABLE,
    'TestPatchNodeAllocatableResourceClaimStatus/pod status patch error': _DRA_NODE_ALLOCATABLE,
    'TestPodGroupPostFilter/deallocate-pod-level-claim': _DRA_POD_GROUP,
    'TestPodGroupPostFilter/deallocate-podgroup-level-claim': _DRA_POD_GROUP,
    'TestPodGroupPostFilter/delete-pod-level-extended-claim': _DRA_POD_GROUP,
    'TestPodGroupPostFilter/disabled': _DRA_POD_GROUP,
    'TestPodGroupPostFilter/empty': _DRA_POD_GROUP,
    'TestPodGroupPostFilter/mixed-pod-level-and-podgroup-claims': _DRA_POD_GROUP,
    'TestPodGroupPostFilter/skip-deallocate-feature-disabled': _DRA_POD_GROUP,
    'TestPodGroupPostFilter/skip-deallocate-topology-aware-podgroup': _DRA_POD_GROUP,
    'TestPodGroupPostFilter/unreserve-podgroup-claim': _DRA_POD_GROUP,
    'TestPodGroupPostFilter/unreserve-podgroup-multiple-unscheduled-pods': _DRA_POD_GROUP,
    'TestPreQueueingHint/claim with no matching pods returns empty set': _PRE_QUEUEING_HINT,
    'TestPreQueueingHint/claim with no pod in indexer returns empty set': _PRE_QUEUEING_HINT,
    'TestPreQueueingHint/deallocation returns nil to evaluate all pods': _PRE_QUEUEING_HINT,
    'TestPreQueueingHint/delete event uses oldObj': _PRE_QUEUEING_HINT,
    'TestPreQueueingHint/delete of allocated claim returns AllPods': _PRE_QUEUEING_HINT,
    'TestPreQueueingHint/non-claim object returns nil': _PRE_QUEUEING_HINT,
    'TestPreQueueingHint/shared claim returns nil': _PRE_QUEUEING_HINT,
    'TestSignalClaimPendingAllocation/already-exists': _DRA_MANAGER,
    'TestSignalClaimPendingAllocation/already-exists-ignores-different-claim-argument': _DRA_MANAGER,
    'TestSignalClaimPendingAllocation/claim-already-allocated': _DRA_MANAGER,
    'TestSignalClaimPendingAllocation/empty': _DRA_MANAGER,
    'TestSignalClaimPendingAllocation/extended-resource-claim-not-in-cache': _DRA_MANAGER,
    'TestValidateNodeAllocatableDRAClaimSharing/claim not allocated yet': _DRA_NODE_ALLOCATABLE,
    'TestValidateNodeAllocatableDRAClaimSharing/empty claim': _DRA_NODE_ALLOCATABLE,
    'TestValidateNodeAllocatableDRAClaimSharing/mapped claim, already reserved for another pod - early exit': _DRA_NODE_ALLOCATABLE,
    'TestValidateNodeAllocatableDRAClaimSharing/mapped claim, not shared (no other pods on node)': _DRA_NODE_ALLOCATABLE,
    'TestValidateNodeAllocatableDRAClaimSharing/mapped claim, pending allocation by another pod in same group': _DRA_NODE_ALLOCATABLE,
    'TestValidateNodeAllocatableDRAClaimSharing/mapped claim, pending allocation by same pod in same group': _DRA_NODE_ALLOCATABLE,
    'TestValidateNodeAllocatableDRAClaimSharing/mapped claim, reserved for different pod group, workload claims enabled - exit early': _DRA_NODE_ALLOCATABLE,
    'TestValidateNodeAllocatableDRAClaimSharing/mapped claim, reserved for same pod group, workload claims enabled - allowed since no pods on node': _DRA_NODE_ALLOCATABLE,
    'TestValidateNodeAllocatableDRAClaimSharing/mapped claim, same name but different namespace (sharing allowed)': _DRA_NODE_ALLOCATABLE,
    'TestValidateNodeAllocatableDRAClaimSharing/mapped claim, shared (other pod using it via template)': _DRA_NODE_ALLOCATABLE,
    'TestValidateNodeAllocatableDRAClaimSharing/mapped claim, shared (other pod using it)': _DRA_NODE_ALLOCATABLE,
    'TestValidateNodeAllocatableDRAClaimSharing/mapping and overhead in same device, shared (other pod using it)': _DRA_NODE_ALLOCATABLE,
    'TestValidateNodeAllocatableDRAClaimSharing/overhead-only claim, pending allocation by another pod in same group': _DRA_NODE_ALLOCATABLE,
    'TestValidateNodeAllocatableDRAClaimSharing/overhead-only mapped claim, shared (other pod using it)': _DRA_NODE_ALLOCATABLE,
    'TestValidatePodLevelResourcesCoverDRA/PodLevel insufficient for multiple resources': _DRA_NODE_ALLOCATABLE,
    'TestValidatePodLevelResourcesCoverDRA/PodLevel insufficient for one of the resource': _DRA_NODE_ALLOCATABLE,
    'TestValidatePodLevelResourcesCoverDRA/PodLevel limits cover DRA': _DRA_NODE_ALLOCATABLE,
    'TestValidatePodLevelResourcesCoverDRA/PodLevel limits does not cover DRA': _DRA_NODE_ALLOCATABLE,
    'TestValidatePodLevelResourcesCoverDRA/PodLevel limits overcommitted but individual container limits with DRA covered by pod level limits': _DRA_NODE_ALLOCATABLE,
    'TestValidatePodLevelResourcesCoverDRA/PodLevel resources insufficient with DRA Overhead': _DRA_NODE_ALLOCATABLE,
    'TestValidatePodLevelResourcesCoverDRA/PodLevel resources sufficient': _DRA_NODE_ALLOCATABLE,
    'TestValidatePodLevelResourcesCoverDRA/PodLevel resources sufficient with DRA Overhead': _DRA_NODE_ALLOCATABLE,
    'TestValidatePodLevelResourcesCoverDRA/PodLevel resources sufficient with overheads': _DRA_NODE_ALLOCATABLE,
    'TestValidatePodLevelResourcesCoverDRA/PodLevelResources enabled, no pod resources set': _DRA_NODE_ALLOCATABLE,
    'Test_allocationResultRequiresDRAOptionalNodeOperations/empty-results': _DRA_OPTIONAL_NODE_OPS,
    'Test_allocationResultRequiresDRAOptionalNodeOperations/empty-skip-node-operations': _DRA_OPTIONAL_NODE_OPS,
    'Test_allocationResultRequiresDRAOptionalNodeOperations/mixed-skip-node-operations': _DRA_OPTIONAL_NODE_OPS,
    'Test_allocationResultRequiresDRAOptionalNodeOperations/nil': _DRA_OPTIONAL_NODE_OPS,
    'Test_allocationResultRequiresDRAOptionalNodeOperations/no-skip-node-operations': _DRA_OPTIONAL_NODE_OPS,
    'Test_allocationResultRequiresDRAOptionalNodeOperations/with-skip-node-operations': _DRA_OPTIONAL_NODE_OPS,
    "TestComputePodResourceRequestWithNodeAllocatableDRA/Pod with DRA claim and EnableDRANodeAllocatableResources enabled":
        _DRA_NODE_ALLOCATABLE,
    "TestComputePodResourceRequestWithNodeAllocatableDRA/Pod with DRA claim specifying Overhead and EnableDRANodeAllocatableResources enabled":
        _DRA_NODE_ALLOCATABLE,
    "TestComputePodResourceRequestWithNodeAllocatableDRA/Pod with DRA claim specifying both Mapping and Overhead and EnableDRANodeAllocatableResources enabled":
        _DRA_NODE_ALLOCATABLE,
    "TestNodeMatchCaching/all nodes match": _DRA_NODE_MATCH_CACHE,
    "TestNodeMatchCaching/exact node name match": _DRA_NODE_MATCH_CACHE,
    "TestNodeMatchCaching/node name mismatch": _DRA_NODE_MATCH_CACHE,
    "TestNodeMatchCaching/node selector match": _DRA_NODE_MATCH_CACHE,
    "Test_isSchedulableAfterAssignedPodScaleUp/backoff-wrong-new-object": _DEFERRED_RESIZE_QUEUE,
    "Test_isSchedulableAfterAssignedPodScaleUp/backoff-wrong-old-object": _DEFERRED_RESIZE_QUEUE,
    "Test_isSchedulableAfterAssignedPodScaleUp/queue-on-same-node-scale-up": _DEFERRED_RESIZE_QUEUE,
    "Test_isSchedulableAfterAssignedPodScaleUp/skip-queue-on-different-node-scale-up": _DEFERRED_RESIZE_QUEUE,
    "Test_isSchedulableAfterAssignedPodScaleUp/skip-queue-on-pod-not-deferred": _DEFERRED_RESIZE_QUEUE,
    "TestFitSignPod/DRA extended resource disabled": _NONZERO_SIGNED,
    "TestBalancedAllocationSignPod/DRA extended resource disabled": _NONZERO_SIGNED,
}
