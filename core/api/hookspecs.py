"""Hook specifications: one per extension point of kube-scheduler's Scheduling Framework.

Every hook receives keyword arguments; an implementation may accept any subset of them (pluggy
matches by name). Batch hooks receive `nodes`, a NodeView over the candidate rows of the columnar
NodeTable, and return arrays aligned with `nodes.rows`. The per-node forms (`filter_node`,
`score_node`) are adapted by the framework into batch calls: convenient, and the slow path — a
Python call per node per pod.

Common arguments:
    state    CycleState shared by all plugins within one scheduling cycle
    pod      PodInfo of the pod being scheduled
    nodes    NodeView of candidate nodes
    cluster  ClusterState: NodeTable, placed pods, PVs/PVCs/... (read-only for plugins)
    handle   the Handle (kubeberth.api.handle): cluster reads, permitted writes, waiting pods, clock,
             generation, running the profile's other plugins
    node_name  the node chosen for the pod (reserve onwards)
"""

from __future__ import annotations

from dataclasses import dataclass

import pluggy

PROJECT = "kubeberth"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec(firstresult=True)
def queue_sort(pod):
    """QueueSort: return a sort key; pods with smaller keys are popped first.

    Exactly one queue_sort plugin is enabled per profile, and all profiles must agree.
    """


@hookspec
def pre_enqueue(pod, handle):
    """PreEnqueue: return a non-success Status to keep the pod out of the active queue.

    The pod is re-checked when it is updated (e.g. its schedulingGates are removed).
    """


@hookspec
def pre_filter(state, pod, nodes, cluster, handle):
    """PreFilter: compute per-cycle state once per pod.

    Return None/Success to continue, a PreFilterResult whose `node_names` narrows the
    candidates for every filter, Status.skip() to skip this plugin's own filter, or an
    Unschedulable status to reject the pod on every node at once.
    """


@hookspec
def filter(state, pod, nodes, cluster, handle):
    """Filter (batch): return a FilterResult (mask over `nodes` + reasons), a Status for all nodes, or None if every node passes.

    Each node is rejected by the first plugin that rejects it; reasons use kube-scheduler's
    strings so the aggregated message matches (`0/N nodes are available: ...`).
    """


@hookspec
def filter_node(state, pod, node, cluster, handle):
    """Filter (per node, slow path): return None/True to pass, or an Unschedulable Status with reasons.

    `node` is a NodeInfo built for one row. Prefer the batch `filter` hook.
    """


@hookspec
def post_filter(state, pod, cluster, handle, diagnosis):
    """PostFilter: runs only when no node fits (preemption lives here).

    Return PostFilterResult(nominated_node=...) to make the pod schedulable later, or a Status.
    Runs in order until one plugin succeeds or one returns UnschedulableAndUnresolvable.
    """


@hookspec
def pre_score(state, pod, nodes, cluster, handle):
    """PreScore: prepare scoring for the feasible nodes; Status.skip() skips this plugin's score."""


@hookspec
def score(state, pod, nodes, cluster, handle):
    """Score (batch): return an array of integer scores aligned with `nodes`."""


@hookspec
def score_node(state, pod, node, cluster, handle):
    """Score (per node, slow path): return an integer score for one NodeInfo."""


@hookspec
def normalize_score(state, pod, nodes, scores):
    """NormalizeScore: map this plugin's raw scores into [0, MaxNodeScore=100].

    Called only for the plugin's own scores; return a new array or modify `scores` in place.
    """


@hookspec
def sign_pod(pod, cluster):
    """SignPod (kube-scheduler's SignPlugin, KEP-5598): the parts of the pod this plugin reads.

    Return a list of `kubeberth.api.signing.SignFragment` (None = nothing to add), or a
    non-success Status to refuse: an unsignable pod is scheduled without batching. Two pods with
    equal fragments from every plugin must get the same filter verdicts and scores on the same
    nodes in the same state. Every pre_filter/filter/pre_score/score plugin of a profile must
    implement it, or that profile never batches. `cluster` (read-only, may be None) is for a
    refusal that depends on cluster objects, as NodeResourcesFit's does on DeviceClasses; a pod's
    signature is kept until the pod or the DeviceClasses change.
    """


@hookspec
def reserve(state, pod, node_name, cluster, handle):
    """Reserve: claim resources on the chosen node (in plugin order). A failure unreserves all."""


@hookspec
def unreserve(state, pod, node_name, cluster, handle):
    """Unreserve: undo reserve; called in reverse plugin order on any later failure. Must not fail."""


@hookspec
def permit(state, pod, node_name, handle):
    """Permit: return PermitResult.approve(), .deny(reason) or .wait(timeout_seconds).

    A waiting pod is released by `handle.get_waiting_pod(uid).allow(plugin_name)` from every
    plugin that asked it to wait, or rejected by any plugin; it is rejected at timeout.
    """


@hookspec
def pre_bind_pre_flight(state, pod, node_name, handle):
    """PreBindPreFlight: does this plugin's pre_bind have work for this pod on `node_name`?

    Runs in the binding worker, before Permit's wait, for every plugin enabled at preBind. Return
    None/Success when pre_bind has work, Status.skip() when it has none (its pre_bind is then not
    called), or an Error status; any other code is an Error. Return a
    `PreBindPreFlightResult(status, allow_parallel=True)` to let pre_bind run concurrently with
    the neighbouring plugins that allow it too. It exists so that, when some plugin has work (a
    volume or a ResourceClaim to write), the scheduler first writes `status.nominatedNodeName` =
    the chosen node (NominatedNodeNameForExpectation): a slow pre_bind then already tells cluster
    autoscalers and other observers where the pod is going, and pods with no work pay no write.
    Keep it cheap and side-effect free: read the cycle state only. A plugin without this hook
    counts as having work. Not called when the NominatedNodeNameForExpectation gate is off.
    """


@hookspec
def pre_bind(state, pod, node_name, handle):
    """PreBind: runs in the binding worker before bind (e.g. bind volumes); failure aborts binding.

    Not called when this plugin's pre_bind_pre_flight returned Status.skip() for the pod. A
    pre_bind that waits (for a controller, a claim) should wait with `state.sleep_in_pre_bind(s)`
    and return Status.error(reason) when it returns a reason: preemption cancels a pod's running
    PreBind instead of deleting the pod (kube-scheduler's PodsInPreBind), and a cancelled pod is
    never bound. An Error is reported as `running PreBind plugin "<name>": <message>`.
    """


@hookspec
def bind(state, pod, node_name, handle):
    """Bind: the first plugin that does not return Status.skip() binds the pod."""


@hookspec
def post_bind(state, pod, node_name, handle):
    """PostBind: informational, after a successful bind."""


# ---- the pod group scheduling cycle (GenericWorkload; kubeberth.api.placement) ------------------
@hookspec
def placement_generate(state, pod_group, placement, handle):
    """PlacementGenerate: split `placement` (a Placement over every node) into candidate placements
    for the whole group, e.g. one per topology domain. Return a list of Placement or a Status.

    Runs only under the TopologyAwareWorkloadScheduling gate; only the profile's first
    placement_generate plugin runs. Without one, the group is tried on all nodes.
    """


@hookspec
def placement_feasible(state, pod_group, progress, handle):
    """PlacementFeasible: can `pod_group` still meet its constraints, given `progress`
    (PlacementProgress: members placed so far, members still to try)?

    Return None when they are met, Status.wait(reason) when more members must be placed, or an
    Unschedulable status when they can no longer be met (the cycle stops and undoes the group).
    Called before the first member and after each one. kube-scheduler calls it on GangScheduling
    only; kubeberth calls every enabled plugin of the profile that implements it.
    """


@hookspec
def pod_group_post_filter(state, pod_group, schedule, cluster, handle):
    """PodGroupPostFilter: `pod_group` (PodGroupInfo) failed its pod group cycle as Unschedulable;
    make room for the whole group (workload-aware preemption). Asked of the profile's postFilter
    plugins that implement it, in order, until one succeeds or answers UnschedulableAndUnresolvable.

    `schedule()` re-runs the group's algorithm on the cluster as it is then (e.g. with victims taken
    off hypothetically) and returns (list of ProposedAssignment, Status); nothing stays assumed.
    Return a PodGroupPostFilterResult (nominated node per member uid, and the Status), or a Status.
    Success sends every member back to the queue nominated, waiting for the victims to go.
    """


@hookspec
def placement_score(state, pod_group, placement, handle):
    """PlacementScore: an integer score for one feasible placement (`placement` is the
    PodGroupAssignments it would make). Called only when more than one placement is feasible."""


@hookspec
def normalize_placement_score(state, pod_group, scores):
    """NormalizePlacementScore: map this plugin's `scores` (list of PlacementScore) into
    [0, MaxNodeScore=100] in place; return a non-success Status to fail the group's cycle."""


@dataclass(frozen=True, slots=True)
class ExtensionPoint:
    """One extension point: the one table hookspecs, configuration and generations all read."""

    hook: str  # what a plugin implements and the runtime calls, e.g. "pre_filter"
    config: str  # its field under a profile's `plugins` in the KubeSchedulerConfiguration, e.g. "preFilter"
    forms: tuple[str, ...]  # hooks that make a plugin usable here (per-node forms count as the batch one)
    companion: str | None = None  # a hook run for the plugins enabled here (normalize_score, unreserve, ...)


EXTENSION_POINTS: tuple[ExtensionPoint, ...] = (
    ExtensionPoint("queue_sort", "queueSort", ("queue_sort",)),
    ExtensionPoint("pre_enqueue", "preEnqueue", ("pre_enqueue",)),
    ExtensionPoint("pre_filter", "preFilter", ("pre_filter",)),
    ExtensionPoint("filter", "filter", ("filter", "filter_node")),
    ExtensionPoint("post_filter", "postFilter", ("post_filter",), "pod_group_post_filter"),
    ExtensionPoint("pre_score", "preScore", ("pre_score",)),
    ExtensionPoint("score", "score", ("score", "score_node"), "normalize_score"),
    ExtensionPoint("reserve", "reserve", ("reserve",), "unreserve"),
    ExtensionPoint("permit", "permit", ("permit",)),
    ExtensionPoint("pre_bind", "preBind", ("pre_bind",), "pre_bind_pre_flight"),
    ExtensionPoint("bind", "bind", ("bind",)),
    ExtensionPoint("post_bind", "postBind", ("post_bind",)),
    # kube-scheduler's placementGenerate and placementScore plugin sets (the pod group cycle).
    ExtensionPoint("placement_generate", "placementGenerate", ("placement_generate",)),
    ExtensionPoint("placement_score", "placementScore", ("placement_score",), "normalize_placement_score"),
)
"""Extension points in lifecycle order; a configuration enables plugins at these."""

POINTS_BY_HOOK = {p.hook: p for p in EXTENSION_POINTS}
PER_NODE_FORMS = {form: p.hook for p in EXTENSION_POINTS for form in p.forms if form != p.hook}
