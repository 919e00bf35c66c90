"""The Handle: the services a running framework gives its plugins (kube-scheduler's framework.Handle).

Every hook may ask for `handle`. It is the only way a plugin reaches beyond its arguments: cluster
reads, the few writes a plugin may make, pods waiting at Permit, the clock, the generation, and
running the profile's other plugins (what preemption needs). It is a Protocol, so a test can hand a
plugin any object with these members; the runtime's implementation holds injected services only
(backend, cache, clock, waiting pods, framework), never the scheduler itself.

Threading: scheduling-cycle hooks (pre_filter .. permit, post_filter) run on the scheduling thread
and may read `cluster`; binding-cycle hooks (pre_bind_pre_flight, pre_bind, bind, post_bind) run on worker
threads (pre_binds that allow it in parallel, on threads of their own) and
must use only the write methods and `get_object`, which are thread-safe.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

    from ..cache.nodetable import NodeView
    from .capabilities import Capabilities
    from .diagnosis import Diagnosis
    from .features import FeatureGates
    from .status import Status
    from .types import CycleState, PreBindCancellation
    from .views import ClusterView, PodView

__all__ = ["Handle", "WaitingPodHandle"]


@runtime_checkable
class WaitingPodHandle(Protocol):
    """A pod held at Permit: release it with `allow` from every plugin that asked it to wait."""

    @property
    def pod(self) -> PodView: ...

    @property
    def pending_plugins(self) -> list[str]: ...

    def allow(self, plugin: str) -> None: ...

    def reject(self, plugin: str, message: str) -> None: ...

    def preempt(self, plugin: str, message: str) -> bool:
        """Preemption's end of the wait (kube-scheduler's WaitingPod.Preempt): an Error, so the pod is retried
        after its backoff; True again for a pod already preempted, False when the wait had ended otherwise."""
        ...


@runtime_checkable
class Handle(Protocol):
    """What a plugin may do beyond its own state. All members are documented; nothing else exists."""

    # ---- reads -----------------------------------------------------------------------------
    @property
    def cluster(self) -> ClusterView:
        """The scheduler's cache as plugins read it (kubeberth.api.views.ClusterView): nodes
        (`cluster.table`), placed pods, PVs/PVCs/... by kind. Read-only, except through
        `cluster.hypothetical(...)` (what-if placements, undone on exit). Scheduling thread only.
        """
        ...

    @property
    def profile(self) -> str:
        """The schedulerName of the profile this plugin instance runs in."""
        ...

    @property
    def generation_id(self) -> str:
        """The id of the generation (plugins + configuration) this cycle runs on, e.g. 'g3-1a2b3c4d'."""
        ...

    @property
    def feature_gates(self) -> FeatureGates:
        """The process's feature gates (`--feature-gates`), e.g.
        `handle.feature_gates.enabled("GenericWorkload")`. Fixed for the process's lifetime."""
        ...

    def now(self) -> float:
        """The scheduler's clock in seconds (virtual in `simulate`, wall time in `run`)."""
        ...

    def get_object(self, kind: str, key: str) -> dict[str, Any] | None:
        """A fresh read from the cluster (not the cache) of `kind` at `key` ('ns/name' or 'name');
        None when it does not exist. For read-modify-write in PreBind (thread-safe)."""
        ...

    # ---- writes ----------------------------------------------------------------------------
    def nominate(self, pod: PodView, node_name: str | None) -> None:
        """Set (or clear, with None) the pod's nominated node, in the cache and in its status."""
        ...

    def delete_victim(
        self, victim: PodView, preemptor: PodView, node_name: str = "", *, pod_group: Mapping[str, Any] | None = None
    ) -> Status:
        """Delete a preemption victim and record a Preempted event on it; NotFound counts as success.
        `pod_group`: the PodGroup preempting as a whole (its members' stand-in is `preemptor`)."""
        ...

    def reserve_room(self, preemptor: PodView, node_name: str) -> Status:
        """Claim the room on `node_name` for `preemptor` before its victims there are deleted, so another
        active-active replica (docs/scale-out.md) does not fill it meanwhile. Success with one scheduler, or
        when claimed; an Error when another replica holds a claim there this view does not count: delete
        nothing then, the preemptor is tried again. `delete_victim` does this itself for a single pod; a
        pod group's preemption calls it for every member's nominated node before its first victim."""
        ...

    def bind(self, pod: PodView, node_name: str, annotations: Mapping[str, str] | None = None) -> Status:
        """Bind the pod through the Binding subresource (for bind plugins). `annotations` go on the Binding's
        metadata, which the API server copies onto the pod (e.g. which plugin bound it)."""
        ...

    def update_object(self, kind: str, obj: dict[str, Any], subresource: str = "") -> Status:
        """Replace an object the plugin owns the change to (e.g. a PV's claimRef). The object's
        metadata.resourceVersion guards the write: a concurrent change is an Error status whose
        message says "the object has been modified". `subresource="status"` writes only the
        status (a ResourceClaim's allocation), as the API's /status subresource does."""
        ...

    def patch_object(self, kind: str, key: str, patch: Mapping[str, Any], subresource: str = "") -> Status:
        """JSON merge-patch an object the plugin owns the change to (e.g. an annotation);
        `subresource="status"` patches through the /status subresource (e.g. a pod's
        `status.extendedResourceClaimStatus`)."""
        ...

    def create_object(self, kind: str, obj: dict[str, Any]) -> tuple[Status, dict[str, Any] | None]:
        """Create an object the plugin owns (e.g. DynamicResources' claim for DRA-backed extended
        resources). An empty metadata.name with metadata.generateName gets a generated name, as
        the API server does; returns the status and the created object (name, uid and
        resourceVersion filled in), or an Error status and None."""
        ...

    def delete_object(self, kind: str, key: str) -> Status:
        """Delete an object the plugin owns ('ns/name' or 'name'); one already gone is a success."""
        ...

    def request_requeue(self, event: str) -> None:
        """Retry the unschedulable pods rejected by plugins whose `requeue_on` names `event`, as a
        cluster event would — for plugins whose inputs change outside cluster objects (e.g.
        LoadThreshold's "NodeLoad/Update" when measured load drops). Thread-safe: callable from a
        plugin's own background thread; the move happens on the scheduling thread between cycles."""
        ...

    def activate(self, pods: Sequence[PodView]) -> None:
        """Move these pending pods from backoff or the unschedulable pool straight to the active
        queue (kube-scheduler's Handle.Activate), e.g. the rest of a gang when one member waits at
        Permit. Gated and in-flight pods are left alone. From a scheduling-cycle hook the pods move at
        once; from a binding-cycle hook (pre_bind, bind, post_bind: kube-scheduler's PodsToActivate,
        applied after PostBind) they move on the scheduling thread between cycles."""
        ...

    def run_async(self, work: Callable[[], None], then: Callable[[], None] | None = None) -> None:
        """Run `work` off the scheduling thread (a binding worker), as kube-scheduler runs async
        preemption's API calls in a goroutine; `work` may use only the thread-safe write methods.
        `then` runs afterwards on the scheduling thread, between cycles. The scheduler counts the
        work as in flight until `then` has run, so `simulate` waits for it. Without a running
        scheduler (a plugin's unit test), both run at once in the caller."""
        ...

    def preemption_extenders(
        self, pod: PodView, victims: dict[str, tuple[list[PodView], int]]
    ) -> tuple[dict[str, tuple[list[PodView], int]], Status | None]:
        """Offer preemption candidates (node -> (victims, PDB violations)) to the configuration's
        extenders with a preemptVerb, as kube-scheduler's callExtenders does; returns the nodes and
        victims they keep, or an Error status. Unchanged when no extender is configured."""
        ...

    # ---- Permit ----------------------------------------------------------------------------
    def get_waiting_pod(self, uid: str) -> WaitingPodHandle | None:
        """The pod waiting at Permit with this uid, if any."""
        ...

    def waiting_pods(self) -> list[WaitingPodHandle]:
        """Every pod waiting at Permit (a snapshot)."""
        ...

    # ---- PreBind ---------------------------------------------------------------------------
    def get_pod_in_pre_bind(self, uid: str) -> PreBindCancellation | None:
        """kube-scheduler's GetPodInPreBind: the PreBind running for this pod (one with work, under
        NominatedNodeNameForExpectation), which preemption may cancel, or None."""
        ...

    # ---- the profile's other plugins (preemption, what-ifs) ---------------------------------
    def plugins_at(self, point: str) -> list[str]:
        """The plugins enabled at an extension point, in order (e.g. 'filter')."""
        ...

    def capabilities(self, plugin: str) -> Capabilities:
        """A plugin's declared capabilities (see kubeberth.api.capabilities)."""
        ...

    def run_pre_filter(
        self, state: CycleState, pod: PodView, nodes: NodeView, plugins: Sequence[str] | None = None
    ) -> tuple[Status, frozenset[str] | None]:
        """Run PreFilter (all plugins, or just `plugins`) into `state`; returns the status and the
        narrowed node names (None: not narrowed)."""
        ...

    def run_filters(
        self,
        state: CycleState,
        pod: PodView,
        nodes: NodeView,
        diagnosis: Diagnosis | None = None,
        plugins: Sequence[str] | None = None,
    ) -> np.ndarray:
        """Run the Filter chain (or just `plugins`) over `nodes` with `state`; returns the feasible
        mask aligned with `nodes`, and fills `diagnosis` with per-plugin reasons when given."""
        ...

    def run_reserve(self, state: CycleState, pod: PodView, node_name: str) -> Status:
        """kube-scheduler's Handle.RunReservePluginsReserve: the profile's Reserve plugins for the pod on the
        node, in order, with `state`; the first non-success status (e.g. a pod group's preemption reserving a
        member it simulates on its node, as the cycle would)."""
        ...

    def run_unreserve(self, state: CycleState, pod: PodView, node_name: str) -> None:
        """kube-scheduler's Handle.RunReservePluginsUnreserve: undo run_reserve (every Reserve plugin's
        Unreserve, in reverse order)."""
        ...

    def run_scores(
        self, state: CycleState, pod: PodView, nodes: NodeView, plugins: Sequence[str] | None = None
    ) -> tuple[np.ndarray, Status]:
        """kube-scheduler's Handle.RunScorePlugins: Score and NormalizeScore (all plugins, or just `plugins`)
        over `nodes` with `state` (PreScore is not run: call it first where a plugin needs it); returns the
        weighted totals aligned with `nodes` and Success, or zeros and the failing plugin's Error status
        (e.g. a PostFilter plugin scoring the nodes it would make room on)."""
        ...
