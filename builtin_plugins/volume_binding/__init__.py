"""VolumeBinding: a pod's PersistentVolumeClaims decide which nodes it may use.

- Bound claims: the PV's spec.nodeAffinity must admit the node.
- Unbound claims of a WaitForFirstConsumer class: a matching Available PV admitted by the node is
  chosen (smallest that fits), else the class must be able to provision there (a provisioner other
  than kubernetes.io/no-provisioner, and allowedTopologies admitting the node).
- Unbound claims of an Immediate class are the PV controller's job: the pod waits.

Every decision depends on node labels only (PV node affinity is matched against labels, as
kube-scheduler's CheckNodeAffinity does), so it is computed once per distinct label set and
broadcast. Claims carrying the selected-node annotation are pinned to that node by name.

With StorageCapacityScoring (beta, on by default in v1.37) a claim to provision whose CSI driver
publishes storage capacity needs a CSIStorageCapacity object that admits the node and holds the
claim (kube-scheduler's hasEnoughCapacity), and PreScore/Score prefer nodes by how full the chosen
PVs, or the provisioning pools, would be (scorer.go, along the args' `shape`). Scores are computed
once per label set like the verdicts; a pod without delay-binding claims skips PreScore.

reserve assumes the chosen PVs (kept in a cluster index, so another pod in the same loop cannot take
the same PV, even across generation swaps) and unreserve releases them. pre_bind writes through the
Handle, as kube-scheduler's BindPodVolumes does: the chosen PV's claimRef (`update_object`, guarded
by its resourceVersion), or the selected-node annotation on a claim to provision (`patch_object`).

Split as kube-scheduler's plugins/volumebinding: `plugin` (volume_binding.go: the extension
points and queueing hints), `binder` (binder.go: FindPodVolumes and BindPodVolumes), `scorer`
(scorer.go), `assume_cache` (the assumed PVs), `state` (stateData / PodVolumes),
`csi_translation` (csi-translation-lib's topology rewrite for migrated in-tree PVs) and `volumes`
(reasons, annotations and getters over claims and volumes). Label and node selectors are matched
by kubeberth.api.helpers, the one selector engine (a claim's nil selector matches every PV, a
CSIStorageCapacity's nil nodeTopology no node, as upstream).
"""

from __future__ import annotations

from kubeberth.api.helpers import ANN_BETA_STORAGE_CLASS as ANN_BETA_CLASS
from kubeberth.api.helpers import claim_class, node_selector_terms_match, pv_class

from . import binder
from .assume_cache import AssumedVolumes, assumed_index
from .binder import (
    BIND_POLL_SECONDS,
    bind_claim,
    bind_pod_volumes,
    check_bindings,
    has_enough_capacity,
    select_node,
)
from .csi_translation import migrated_plugins, migration_topology_key, pv_admits_node, translate_topology
from .plugin import VolumeBinding
from .scorer import DEFAULT_SHAPE, capacity_scorer
from .state import STATE_KEY, NodeVolumes, VolumeBindingState
from .volumes import (
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_MIGRATED_PLUGINS,
    ANN_SELECTED_NODE,
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
    ERR_UNBOUND_IMMEDIATE,
    NOT_SUPPORTED_PROVISIONER,
    claim_request,
    is_fully_bound,
    pv_capacity,
    pv_node_affinity_matches,
    topology_terms_match,
)

__all__ = [
    "ANN_BETA_CLASS",
    "ANN_BIND_COMPLETED",
    "ANN_BOUND_BY_CONTROLLER",
    "ANN_MIGRATED_PLUGINS",
    "ANN_SELECTED_NODE",
    "BIND_POLL_SECONDS",
    "DEFAULT_SHAPE",
    "ERR_REASON_BIND_CONFLICT",
    "ERR_REASON_NODE_CONFLICT",
    "ERR_REASON_NOT_ENOUGH_SPACE",
    "ERR_REASON_PV_NOT_EXIST",
    "ERR_UNBOUND_IMMEDIATE",
    "NOT_SUPPORTED_PROVISIONER",
    "STATE_KEY",
    "AssumedVolumes",
    "NodeVolumes",
    "VolumeBinding",
    "VolumeBindingState",
    "assumed_index",
    "bind_claim",
    "bind_pod_volumes",
    "binder",
    "capacity_scorer",
    "check_bindings",
    "claim_class",
    "claim_request",
    "has_enough_capacity",
    "is_fully_bound",
    "migrated_plugins",
    "migration_topology_key",
    "node_selector_terms_match",
    "pv_admits_node",
    "pv_capacity",
    "pv_class",
    "pv_node_affinity_matches",
    "select_node",
    "topology_terms_match",
    "translate_topology",
]
