"""Public plugin helpers: label selectors, node selector terms, tolerations, topology domains and
per-label-set broadcasting (kube-scheduler's `framework/plugins/helper`), plus the small pieces of
Kubernetes semantics plugins share (quantities, resource names, strict args models, shape scoring,
raw object accessors).

Why a package of its own: NodeAffinity, PodTopologySpread, InterPodAffinity, VolumeBinding and any
third-party plugin evaluate the same Kubernetes selector semantics, and all need it in batch form.
Selectors are evaluated column-wise over append-only lists of label dicts — the NodeTable's
interned label sets (nodes) and PodLabelCounts' (namespace, labels) groups (placed pods) — so the
cost of a cycle follows the number of distinct selectors and keys, not nodes x pods. Columns and
per-selector masks are memoised per source list and extended incrementally as new sets/groups are
interned.

One module per concern, every name re-exported here (import from `kubeberth.api.helpers`):

- `selectors`: labels.Requirement and metav1.LabelSelector, validated with apimachinery's messages;
  `label_selector_matches(..., none_is_everything=...)` says what a nil selector means at a call site.
- `columns`: the batch form (`LabelColumns`, `node_columns`, `group_columns`, `matching_pod_counts`).
- `node_selectors`: NodeSelectorTerms, preferred terms, a pod's required node affinity.
- `taints`: untolerated taints, per node and per taint set.
- `topology`: topology labels, per-domain sums, live rows, placed-pod change tracking.
- `scoring`: DefaultNormalizeScore and the broken-linear utilization shape (shape_score.go).
- `quantities`: resource quantities and names; `accessors`: raw API object getters;
  `args`: `StrictArgs` and `args_error` for plugin argument models.
"""

from __future__ import annotations

from .accessors import (
    ANN_BETA_STORAGE_CLASS,
    annotations_of,
    claim_class,
    meta_of,
    object_key,
    pv_class,
    spec_of,
)
from .args import StrictArgs, args_error
from .columns import LabelColumns, ValueColumn, group_columns, matching_pod_counts, node_columns
from .node_selectors import (
    OBJECT_NAME_FIELD,
    NodeSelector,
    NodeSelectorTerm,
    PreferredTerm,
    RequiredNodeAffinity,
    node_selector_terms,
    node_selector_terms_match,
    parse_preferred_terms,
    preferred_score,
    preferred_terms_error,
    required_node_affinity,
)
from .quantities import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    PODS,
    QuantityError,
    int_value,
    milli_value,
    parse_quantity,
)
from .scoring import (
    MAX_CUSTOM_PRIORITY_SCORE,
    MAX_UTILIZATION,
    UtilizationShapePoint,
    broken_linear_table,
    default_normalize_score,
    go_div,
    shape_table,
    validate_shape,
)
from .selectors import (
    EVERYTHING,
    LABEL_OPS,
    NODE_OPS,
    NOTHING,
    LabelSelector,
    Requirement,
    SelectorError,
    compile_label_selector,
    label_key_errors,
    label_selector_matches,
    label_value_errors,
    make_requirement,
)
from .taints import DO_NOT_SCHEDULE_EFFECTS, first_untolerated, untolerated_taint_sets
from .topology import HOSTNAME_LABEL, ZONE_LABEL, PodChangeCounter, alive_rows, domain_sums, pod_state_version

__all__ = [
    "ANN_BETA_STORAGE_CLASS",
    "CPU",
    "DO_NOT_SCHEDULE_EFFECTS",
    "EPHEMERAL_STORAGE",
    "EVERYTHING",
    "HOSTNAME_LABEL",
    "LABEL_OPS",
    "MAX_CUSTOM_PRIORITY_SCORE",
    "MAX_UTILIZATION",
    "MEMORY",
    "NODE_OPS",
    "NOTHING",
    "OBJECT_NAME_FIELD",
    "PODS",
    "ZONE_LABEL",
    "LabelColumns",
    "LabelSelector",
    "NodeSelector",
    "NodeSelectorTerm",
    "PodChangeCounter",
    "PreferredTerm",
    "QuantityError",
    "Requirement",
    "RequiredNodeAffinity",
    "SelectorError",
    "StrictArgs",
    "UtilizationShapePoint",
    "ValueColumn",
    "alive_rows",
    "annotations_of",
    "args_error",
    "broken_linear_table",
    "claim_class",
    "compile_label_selector",
    "default_normalize_score",
    "domain_sums",
    "first_untolerated",
    "go_div",
    "group_columns",
    "int_value",
    "label_key_errors",
    "label_selector_matches",
    "label_value_errors",
    "make_requirement",
    "matching_pod_counts",
    "meta_of",
    "milli_value",
    "node_columns",
    "node_selector_terms",
    "node_selector_terms_match",
    "object_key",
    "parse_preferred_terms",
    "parse_quantity",
    "pod_state_version",
    "preferred_score",
    "preferred_terms_error",
    "pv_class",
    "required_node_affinity",
    "shape_table",
    "spec_of",
    "untolerated_taint_sets",
    "validate_shape",
]
