"""NodeResourcesFit: rejects nodes without room for the pod's requests; scores by allocation.

Split as kube-scheduler's plugins/noderesources: `fit` (the plugin: Filter, Score, queueing
hints), `args` (NodeResourcesFitArgs), `resource_allocation` (the resourceAllocationScorer shared
with NodeResourcesBalancedAllocation), one module per scoring strategy (`least_allocated`,
`most_allocated`, `requested_to_capacity_ratio`), and `resources` (resource names and the
node-level fit checks the hints use). The shape of RequestedToCapacityRatio is
kubeberth.api.helpers' (plugins/helper/shape_score.go), shared with VolumeBinding.

Filter is one vectorised comparison of the pod's non-zero requests against every candidate row's
(allocatable - requested). Scoring follows kube-scheduler's resourceAllocationScorer with the
LeastAllocated, MostAllocated or RequestedToCapacityRatio strategy, in Go's integer arithmetic.

Extended resources backed by DRA (DRAExtendedResource): a requested extended resource that a
DeviceClass serves (its `extendedResourceName`, or `deviceclass.resource.kubernetes.io/<class>`)
is left to DynamicResources on nodes whose allocatable for it is 0, and scored there from the
devices the class matches in the node's ResourceSlices (`kubeberth.api.device_counts`). None of
it runs while the cluster has no DeviceClass, and only rejected rows or scored DRA-backed
resources look at it otherwise.
"""

from __future__ import annotations

from kubeberth.api.helpers import (
    MAX_CUSTOM_PRIORITY_SCORE,
    MAX_UTILIZATION,
    UtilizationShapePoint,
    broken_linear_table,
    go_div,
    validate_shape,
)

from .args import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    NodeResourcesFitArgs,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    default_resources,
    qualified_name_error,
)
from .fit import SIGN_REFUSED_FOR_DRA, NodeResourcesFit
from .least_allocated import least_allocated
from .most_allocated import most_allocated
from .requested_to_capacity_ratio import requested_to_capacity_ratio
from .resource_allocation import DraResources, ResourceAllocationScorer
from .resources import (
    delegated_to_dra,
    have_any_requested_resources_increased,
    is_dra_extended_resource_name,
    is_extended_resource,
    is_fit,
    is_native_resource,
    is_prefixed_native_resource,
    is_resize_deferred,
    is_scalar_resource,
    node_allocatable,
    requests_dra_extended_resource,
)

__all__ = [
    "LEAST_ALLOCATED",
    "MAX_CUSTOM_PRIORITY_SCORE",
    "MAX_UTILIZATION",
    "MOST_ALLOCATED",
    "REQUESTED_TO_CAPACITY_RATIO",
    "SIGN_REFUSED_FOR_DRA",
    "DraResources",
    "NodeResourcesFit",
    "NodeResourcesFitArgs",
    "RequestedToCapacityRatioParam",
    "ResourceAllocationScorer",
    "ResourceSpec",
    "ScoringStrategy",
    "UtilizationShapePoint",
    "broken_linear_table",
    "default_resources",
    "delegated_to_dra",
    "go_div",
    "have_any_requested_resources_increased",
    "is_dra_extended_resource_name",
    "is_extended_resource",
    "is_fit",
    "is_native_resource",
    "is_prefixed_native_resource",
    "is_resize_deferred",
    "is_scalar_resource",
    "least_allocated",
    "most_allocated",
    "node_allocatable",
    "qualified_name_error",
    "requested_to_capacity_ratio",
    "requests_dra_extended_resource",
    "validate_shape",
]
