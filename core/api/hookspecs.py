"""Hook specifications: one per extension point of kube-scheduler's Scheduling Framework.

Every hook receives keyword arguments; an implementation may accept any subset of them (pluggy
matches by name: the argument names below are the contract, checked when a plugin is loaded).
Batch hooks receive `nodes`, a NodeView over the candidate rows of the columnar node table
(`nodes.table`, read as a NodeTableView), and return arrays aligned with `nodes.rows`. The
per-node forms (`filter_node`, `score_node`) are adapted by the framework into batch calls:
convenient, and the slow path — a Python call per node per pod.

The annotations say what the runtime passes and what it accepts back (as pytest's hookspec.py
does); a plugin's own annotations may be narrower. A return type that includes None means
"nothing to say" (Success). Hooks run on the scheduling thread unless said otherwise.

Common arguments:
    state      CycleState shared by all plugins within one scheduling cycle
    pod        PodView of the pod being scheduled
    nodes      NodeView of candidate nodes
    cluster    ClusterView (kubeberth.api.views): the node table, placed pods, PVs/PVCs/..., read-only
    handle     the Handle (kubeberth.api.handle): cluster reads, permitted writes, waiting pods,
               clock, generation, running the profile's other plugins
    node_name  the node chosen for the pod (reserve onwards)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from ..cache.nodetable import NodeView
    from .diagnosis import Diagnosis
    from .handle import Handle
    from .placement import (
        Placement,
        PlacementProgress,
        PlacementScore,
        PodGroupAssignments,
        PodGroupInfo,
        PodGroupPostFilterResult,
        ProposedAssignment,
    )
    from .signing import SignFragment
    from .status import (
        FilterResult,
        PermitResult,
        PostFilterResult,
        PreBindPreFlightResult,
        PreFilterResult,
        Status,
    )
    from .types import CycleState, NodeInfo, PodGroupCycleState
    from .views import ClusterView, PodView

PROJECT = "kubeberth"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

# Hookspecs are never called: their bodies are their docstrings (hence the few empty-body ignores
# where a hook must return a value).


# ---- queueing ----------------------------------------------------------------------------------
@hookspec(firstresult=True)
def queue_sort(pod: PodView) -> Any:
    """QueueSort: called when a pod enters the active queue, to order it.

    :param pod: The pending pod.
    :returns: A sort key; pods with smaller keys are popped first.

    Exactly one queue_sort plugin is enabled per profile, and all profiles must agree.
    """


@hookspec
def pre_enqueue(pod: PodView, handle: Handle) -> Status | None:
    """PreEnqueue: called before a pod may enter the active queue, and again when it is updated
    (e.g. its schedulingGates are removed).

    :param pod: The pod about to be queued.
    :param handle: The framework's Handle.
    :returns: None/Success to let it in; a non-success Status keeps it out of the active queue.
    """


# ---- scheduling cycle --------------------------------------------------------------------------
@hookspec
def pre_filter(
    state: CycleState, pod: PodView, nodes: NodeView, cluster: ClusterView, handle: Handle
) -> PreFilterResult | Status | None:
    """PreFilter: called once per scheduling attempt, before any filter, to compute per-cycle state.

    :param state: The cycle's state, where the plugin keeps what its filter and score need.
    :param pod: The pod being scheduled.
    :param nodes: Every node of the cycle's snapshot.
    :param cluster: The scheduler's cache (read-only).
    :param handle: The framework's Handle.
    :returns: None/Success to continue; a PreFilterResult whose `node_names` narrows the
        candidates for every filter; Status.skip() to skip this plugin's own filter; or an
        Unschedulable status to reject the pod on every node at once.
    """


@hookspec
def filter(
    state: CycleState, pod: PodView, nodes: NodeView, cluster: ClusterView, handle: Handle
) -> FilterResult | Status | None:
    """Filter (batch): called with the candidates the plugins before it did not reject.

    :param nodes: The candidate nodes still feasible.
    :returns: A FilterResult (mask over `nodes` + reasons), a Status for all nodes, or None if
        every node passes.

    Each node is rejected by the first plugin that rejects it; reasons use kube-scheduler's
    strings so the aggregated message matches (`0/N nodes are available: ...`).
    """


@hookspec
def filter_node(state: CycleState, pod: PodView, node: NodeInfo, cluster: ClusterView, handle: Handle) -> Status | bool | None:
    """Filter (per node, slow path): called once per candidate node when the plugin has no batch
    `filter`.

    :param node: A NodeInfo built for one row of the node table.
    :returns: None/True to pass, or an Unschedulable Status with reasons (False: rejected
        without a reason). Prefer the batch `filter` hook.
    """


@hookspec
def post_filter(
    state: CycleState, pod: PodView, cluster: ClusterView, handle: Handle, diagnosis: Diagnosis
) -> PostFilterResult | Status | None:
    """PostFilter: called only when no node fits (preemption lives here).

    :param diagnosis: Why each node was rejected (per plugin and reason), as kube-scheduler's FitError.
    :returns: PostFilterResult(nominated_node=...) to make the pod schedulable later, or a Status.

    Runs in order until one plugin succeeds or one returns UnschedulableAndUnresolvable.
    """


@hookspec
def pre_score(state: CycleState, pod: PodView, nodes: NodeView, cluster: ClusterView, handle: Handle) -> Status | None:
    """PreScore: called once with the feasible nodes, before Score, to prepare scoring.

    :param nodes: The feasible nodes that will be scored.
    :returns: None/Success, or Status.skip() to skip this plugin's score; anything else is an Error.
    """


@hookspec
def score(  # type: ignore[empty-body]  # a hookspec: pluggy never runs its body
    state: CycleState, pod: PodView, nodes: NodeView, cluster: ClusterView, handle: Handle
) -> NDArray[np.int64] | Sequence[int]:
    """Score (batch): called once with the feasible nodes.

    :param nodes: The feasible nodes.
    :returns: Integer scores aligned with `nodes` (normalized to [0, 100] by normalize_score).
    """


@hookspec
def score_node(state: CycleState, pod: PodView, node: NodeInfo, cluster: ClusterView, handle: Handle) -> int:  # type: ignore[empty-body]  # a hookspec: pluggy never runs its body
    """Score (per node, slow path): called once per feasible node when the plugin has no batch `score`.

    :param node: A NodeInfo built for one row of the node table.
    :returns: An integer score for that node.
    """


@hookspec
def normalize_score(
    state: CycleState, pod: PodView, nodes: NodeView, scores: NDArray[np.int64]
) -> NDArray[np.int64] | Status | None:
    """NormalizeScore: called after Score with this plugin's own scores only.

    :param scores: The plugin's raw scores aligned with `nodes` (its own copy).
    :returns: A new array in [0, MaxNodeScore=100], or None after modifying `scores` in place;
        a non-success Status is an Error.
    """


@hookspec
def sign_pod(pod: PodView, cluster: ClusterView | None) -> Iterable[SignFragment] | Status | None:
    """SignPod (kube-scheduler's SignPlugin, KEP-5598): called when a pod is popped, to decide
    whether it may reuse the previous pod's results (opportunistic batching).

    :param pod: The pod to sign.
    :param cluster: The cache, read-only, for a refusal that depends on cluster objects (as
        NodeResourcesFit's does on DeviceClasses); may be None.
    :returns: The `kubeberth.api.signing.SignFragment`s of the parts of the pod this plugin reads
        (None = nothing to add), or a non-success Status to refuse: an unsignable pod is
        scheduled without batching.

    Two pods with equal fragments from every plugin must get the same filter verdicts and scores
    on the same nodes in the same state. Every pre_filter/filter/pre_score/score plugin of a
    profile must implement it, or that profile never batches. A pod's signature is kept until
    the pod or the DeviceClasses change.
    """


@hookspec
def reserve(state: CycleState, pod: PodView, node_name: str, cluster: ClusterView, handle: Handle) -> Status | None:
    """Reserve: called once a node is chosen and the pod assumed on it, in plugin order.

    :param node_name: The chosen node.
    :returns: None/Success to claim the resources; a failure unreserves every plugin.
    """


@hookspec
def unreserve(state: CycleState, pod: PodView, node_name: str, cluster: ClusterView, handle: Handle) -> None:
    """Unreserve: called in reverse plugin order on any failure after Reserve, to undo it. Must not fail."""


@hookspec
def permit(state: CycleState, pod: PodView, node_name: str, handle: Handle) -> PermitResult | Status | None:
    """Permit: called after Reserve, the last step of the scheduling cycle.

    :returns: PermitResult.approve(), .deny(reason) or .wait(timeout_seconds).

    A waiting pod is released by `handle.get_waiting_pod(uid).allow(plugin_name)` from every
    plugin that asked it to wait, or rejected by any plugin; it is rejected at timeout.
    """


# ---- binding cycle (binding worker threads) ----------------------------------------------------
@hookspec
def pre_bind_pre_flight(state: CycleState, pod: PodView, node_name: str, handle: Handle) -> PreBindPreFlightResult | Status | None:
    """PreBindPreFlight: called in the binding worker, before Permit's wait, for every plugin
    enabled at preBind: does this plugin's pre_bind have work for this pod on `node_name`?

    :returns: None/Success when pre_bind has work, Status.skip() when it has none (its pre_bind
        is then not called), or an Error status; any other code is an Error. A
        `PreBindPreFlightResult(status, allow_parallel=True)` lets pre_bind run concurrently
        with the neighbouring plugins that allow it too.

    It exists so that, when some plugin has work (a volume or a ResourceClaim to write), the
    scheduler first writes `status.nominatedNodeName` = the chosen node
    (NominatedNodeNameForExpectation): a slow pre_bind then already tells cluster autoscalers
    and other observers where the pod is going, and pods with no work pay no write. Keep it
    cheap and side-effect free: read the cycle state only. A plugin without this hook counts as
    having work. Not called when the NominatedNodeNameForExpectation gate is off.
    """


@hookspec
def pre_bind(state: CycleState, pod: PodView, node_name: str, handle: Handle) -> Status | None:
    """PreBind: called in the binding worker before bind (e.g. to bind volumes).

    :returns: None/Success; a failure aborts binding. An Error is reported as
        `running PreBind plugin "<name>": <message>`.

    Not called when this plugin's pre_bind_pre_flight returned Status.skip() for the pod. A
    pre_bind that waits (for a controller, a claim) should wait with `state.sleep_in_pre_bind(s)`
    and return Status.error(reason) when it returns a reason: preemption cancels a pod's running
    PreBind instead of deleting the pod (kube-scheduler's PodsInPreBind), and a cancelled pod is
    never bound.
    """


@hookspec
def bind(state: CycleState, pod: PodView, node_name: str, handle: Handle) -> Status | None:
    """Bind: called in the binding worker after PreBind, in order until one plugin binds.

    :returns: Status.skip() to leave the pod to the next bind plugin; anything else ends Bind
        (None/Success: bound).
    """


@hookspec
def post_bind(state: CycleState, pod: PodView, node_name: str, handle: Handle) -> None:
    """PostBind: called in the binding worker after a successful bind; informational."""


# ---- the pod group scheduling cycle (GenericWorkload; kubeberth.api.placement) ------------------
@hookspec
def placement_generate(
    state: PodGroupCycleState, pod_group: PodGroupInfo, placement: Placement, handle: Handle
) -> list[Placement] | Status | None:
    """PlacementGenerate: called at the start of a pod group cycle under the
    TopologyAwareWorkloadScheduling gate; only the profile's first placement_generate plugin runs.

    :param state: The group's PodGroupCycleState (shared with its members' `state.pod_group_cycle`).
    :param pod_group: The group being scheduled.
    :param placement: A Placement over every node.
    :returns: The candidate placements for the whole group (e.g. one per topology domain), or a
        Status. Without such a plugin, the group is tried on all nodes.
    """


@hookspec
def placement_feasible(state: CycleState, pod_group: PodGroupInfo, progress: PlacementProgress, handle: Handle) -> Status | None:
    """PlacementFeasible: called before the first member of a pod group is tried and after each one.

    :param progress: Members placed so far and members still to try.
    :returns: None when the group's constraints are met, Status.wait(reason) when more members
        must be placed, or an Unschedulable status when they can no longer be met (the cycle
        stops and undoes the group).

    kube-scheduler calls it on GangScheduling only; kubeberth calls every enabled plugin of the
    profile that implements it.
    """


@hookspec
def pod_group_post_filter(  # type: ignore[empty-body]  # a hookspec: pluggy never runs its body
    state: PodGroupCycleState,
    pod_group: PodGroupInfo,
    schedule: Callable[[], tuple[list[ProposedAssignment], Status]],
    cluster: ClusterView,
    handle: Handle,
) -> PodGroupPostFilterResult | Status:
    """PodGroupPostFilter: called when a pod group failed its cycle as Unschedulable, to make room
    for the whole group (workload-aware preemption). Asked of the profile's podGroupPostFilter
    plugins, in order, until one succeeds or answers UnschedulableAndUnresolvable.

    :param state: The group's PodGroupCycleState: what its members' per-pod plugins wrote into
        `state.pod_group_cycle` during the cycle (kube-scheduler's podGroupCycleState).
    :param pod_group: The group (PodGroupInfo) that did not fit.
    :param schedule: Re-runs the group's algorithm on the cluster as it is then (e.g. with victims
        taken off hypothetically); returns (list of ProposedAssignment, Status). Nothing stays assumed.
    :returns: A PodGroupPostFilterResult (nominated node per member uid, and the Status), or a
        Status. Success sends every member back to the queue nominated, waiting for the victims to go.
    """


@hookspec
def placement_score(state: CycleState, pod_group: PodGroupInfo, placement: PodGroupAssignments, handle: Handle) -> int:  # type: ignore[empty-body]  # a hookspec: pluggy never runs its body
    """PlacementScore: called once per feasible placement, only when more than one is feasible.

    :param placement: The PodGroupAssignments the placement would make.
    :returns: An integer score (normalized to [0, 100] by normalize_placement_score).
    """


@hookspec
def normalize_placement_score(state: CycleState, pod_group: PodGroupInfo, scores: list[PlacementScore]) -> Status | None:
    """NormalizePlacementScore: called after PlacementScore with this plugin's scores.

    :param scores: One PlacementScore per feasible placement, rewritten in place into
        [0, MaxNodeScore=100].
    :returns: None/Success, or a non-success Status to fail the group's cycle.
    """


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
    ExtensionPoint("post_filter", "postFilter", ("post_filter",)),
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
    # kube-scheduler's podGroupPostFilter plugin set: asked when a pod group's cycle is Unschedulable.
    ExtensionPoint("pod_group_post_filter", "podGroupPostFilter", ("pod_group_post_filter",)),
)
"""Extension points in lifecycle order; a configuration enables plugins at these."""

POINTS_BY_HOOK = {p.hook: p for p in EXTENSION_POINTS}
PER_NODE_FORMS = {form: p.hook for p in EXTENSION_POINTS for form in p.forms if form != p.hook}
