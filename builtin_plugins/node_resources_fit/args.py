"""NodeResourcesFitArgs (kubescheduler.config.k8s.io/v1), defaulted and validated as
kube-scheduler's SetDefaults_NodeResourcesFitArgs / ValidateNodeResourcesFitArgs do."""

from __future__ import annotations

import re
from typing import Final, Literal

from kubeberth import MAX_NODE_SCORE
from kubeberth.api.helpers import CPU, MEMORY, StrictArgs, UtilizationShapePoint, args_error, validate_shape
from pydantic import Field, model_validator

StrategyType = Literal["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"]
LEAST_ALLOCATED: Final = "LeastAllocated"
MOST_ALLOCATED: Final = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO: Final = "RequestedToCapacityRatio"


_QUALIFIED_NAME_PART = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def qualified_name_error(value: str) -> str | None:
    """metav1validation.ValidateLabelName (a qualified name), or None when valid."""
    parts = value.split("/")
    if len(parts) > 2:
        return "a qualified name must consist of alphanumeric characters, '-', '_' or '.', with an optional DNS subdomain prefix and '/'"
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            return "prefix part must be non-empty"
        if len(prefix) > 253 or not _DNS1123_SUBDOMAIN.match(prefix):
            return "prefix part must be a lowercase RFC 1123 subdomain"
    if not name:
        return "name part must be non-empty"
    if len(name) > 63:
        return "name part must be no more than 63 characters"
    if not _QUALIFIED_NAME_PART.match(name):
        return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
    return None


class ResourceSpec(StrictArgs):
    name: str
    weight: int = 0  # 0 (unset) defaults to 1, as kube-scheduler's v1 defaulting does


class RequestedToCapacityRatioParam(StrictArgs):
    shape: list[UtilizationShapePoint] = Field(default_factory=list)


class ScoringStrategy(StrictArgs):
    type: StrategyType
    resources: list[ResourceSpec] = Field(default_factory=list)
    requestedToCapacityRatio: RequestedToCapacityRatioParam | None = None


def default_resources() -> list[ResourceSpec]:
    return [ResourceSpec(name=CPU, weight=1), ResourceSpec(name=MEMORY, weight=1)]


class NodeResourcesFitArgs(StrictArgs):
    """kube-scheduler's NodeResourcesFitArgs, defaulted and validated the same way."""

    apiVersion: str | None = None
    kind: str | None = None
    ignoredResources: list[str] = Field(default_factory=list)
    ignoredResourceGroups: list[str] = Field(default_factory=list)
    scoringStrategy: ScoringStrategy | None = None

    @model_validator(mode="after")
    def _default_and_validate(self) -> NodeResourcesFitArgs:
        for i, res in enumerate(self.ignoredResources):
            err = qualified_name_error(res)
            if err:
                raise args_error(f"ignoredResources[{i}]", f"{res!r}: {err}")
        for i, group in enumerate(self.ignoredResourceGroups):
            if "/" in group:
                raise args_error(f"ignoredResourceGroups[{i}]", f"{group!r}: resource group name can't contain '/'")
            err = qualified_name_error(group)
            if err:
                raise args_error(f"ignoredResourceGroups[{i}]", f"{group!r}: {err}")
        if self.scoringStrategy is None:
            self.scoringStrategy = ScoringStrategy(type=LEAST_ALLOCATED, resources=default_resources())
        strategy = self.scoringStrategy
        if not strategy.resources:
            strategy.resources = default_resources()
        for i, spec in enumerate(strategy.resources):
            if spec.weight == 0:
                spec.weight = 1
            if not 0 < spec.weight <= MAX_NODE_SCORE:
                raise args_error(
                    f"scoringStrategy.resources[{i}].weight",
                    f"resource weight of {spec.name} not in valid range (0, {MAX_NODE_SCORE}]",
                )
        if strategy.requestedToCapacityRatio is not None:
            validate_shape(strategy.requestedToCapacityRatio.shape, "scoringStrategy.shape")
        elif strategy.type == REQUESTED_TO_CAPACITY_RATIO:
            raise args_error("scoringStrategy.requestedToCapacityRatio", "required for type RequestedToCapacityRatio")
        return self
