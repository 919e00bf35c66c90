"""Status codes and results returned by plugins, mirroring kube-scheduler's framework.Status."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import numpy as np


class Code(enum.IntEnum):
    """kube-scheduler's status codes; the order matters (higher = more severe for merging)."""

    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5
    PENDING = 6


CODE_STRINGS: dict[Code, str] = {
    Code.SUCCESS: "Success",
    Code.ERROR: "Error",
    Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable",
    Code.WAIT: "Wait",
    Code.SKIP: "Skip",
    Code.PENDING: "Pending",
}
"""kube-scheduler's Code.String(), for messages that quote a code as it does."""


@dataclass(slots=True)
class Status:
    """Outcome of one plugin call: a code, human reasons, and the plugin that produced it."""

    code: Code = Code.SUCCESS
    reasons: tuple[str, ...] = ()
    plugin: str = ""
    # kube-scheduler's Status.err: the exception behind an Error, for callers that must tell
    # kinds of failure apart (a bind answered NotFound means the pod is gone, not "retry").
    err: BaseException | None = field(default=None, compare=False, repr=False)

    @classmethod
    def success(cls) -> Status:
        return cls(Code.SUCCESS)

    @classmethod
    def error(cls, reason: str, plugin: str = "", err: BaseException | None = None) -> Status:
        return cls(Code.ERROR, (reason,), plugin, err)

    @classmethod
    def unschedulable(cls, *reasons: str, unresolvable: bool = False) -> Status:
        code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else Code.UNSCHEDULABLE
        return cls(code, tuple(reasons))

    @classmethod
    def skip(cls) -> Status:
        return cls(Code.SKIP)

    @classmethod
    def wait(cls, reason: str = "") -> Status:
        return cls(Code.WAIT, (reason,) if reason else ())

    @property
    def ok(self) -> bool:
        return self.code == Code.SUCCESS

    @property
    def is_rejected(self) -> bool:
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    @property
    def message(self) -> str:
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> Status:
        if not self.plugin:
            self.plugin = plugin
        return self


def as_status(value: object, plugin: str) -> Status:
    """Normalise a hook's return value (None, Status, or bool) into a Status."""
    if value is None or value is True:
        return Status(Code.SUCCESS, (), plugin)
    if isinstance(value, Status):
        return value.with_plugin(plugin)
    if value is False:
        return Status(Code.UNSCHEDULABLE, (f"rejected by {plugin}",), plugin)
    raise TypeError(f"plugin {plugin!r} returned {type(value).__name__}; expected Status or None")


@dataclass(slots=True)
class Rejection:
    """Nodes (a boolean mask over the candidate view) rejected by one plugin for one reason."""

    reason: str
    nodes: np.ndarray
    code: Code = Code.UNSCHEDULABLE


@dataclass(slots=True)
class FilterResult:
    """What a batch filter returns: which candidates pass, and why the others do not.

    `feasible` is a boolean array aligned with the NodeView the plugin received. A node that is
    not feasible should be covered by at least one Rejection; uncovered rejected nodes are
    reported with a generic reason naming the plugin.
    """

    feasible: np.ndarray
    rejections: list[Rejection] = field(default_factory=list)

    @classmethod
    def all_pass(cls, count: int) -> FilterResult:
        return cls(np.ones(count, dtype=bool))

    @classmethod
    def from_rejections(
        cls, count: int, rejected: dict[str, np.ndarray], code: Code = Code.UNSCHEDULABLE
    ) -> FilterResult:
        """Build from {reason: mask of rejected nodes}; a node may carry several reasons."""
        feasible = np.ones(count, dtype=bool)
        rejections = []
        for reason, mask in rejected.items():
            if mask.any():
                feasible &= ~mask
                rejections.append(Rejection(reason, mask, code))
        return cls(feasible, rejections)

    @classmethod
    def reject_where(
        cls, mask: np.ndarray, reason: str, code: Code = Code.UNSCHEDULABLE
    ) -> FilterResult:
        """All nodes where `mask` is true are rejected for a single reason."""
        mask = np.asarray(mask, dtype=bool)
        if not mask.any():
            return cls(np.ones(mask.shape[0], dtype=bool))
        return cls(~mask, [Rejection(reason, mask, code)])


@dataclass(slots=True)
class PreFilterResult:
    """A pre_filter may narrow the candidates to a set of node names (None = all nodes)."""

    node_names: frozenset[str] | None = None
    status: Status | None = None


@dataclass(slots=True)
class PreBindPreFlightResult:
    """What a pre_bind_pre_flight may return instead of a bare Status (kube-scheduler's
    PreBindPreFlightResult): the status, and whether this plugin's pre_bind may run concurrently
    with the neighbouring plugins that allow it too (consecutive ones form one parallel group)."""

    status: Status | None = None  # None: Success, the plugin's pre_bind has work for this pod
    allow_parallel: bool = False


@dataclass(slots=True)
class PermitResult:
    """Permit outcome: Success (approve), Unschedulable (deny) or Wait with a timeout in seconds."""

    status: Status
    timeout: float = 0.0

    @classmethod
    def approve(cls) -> PermitResult:
        return cls(Status.success())

    @classmethod
    def deny(cls, reason: str) -> PermitResult:
        return cls(Status.unschedulable(reason))

    @classmethod
    def wait(cls, timeout: float, reason: str = "") -> PermitResult:
        """Hold the pod for at most `timeout` seconds; `reason` says what it waits for."""
        return cls(Status.wait(reason), timeout)


@dataclass(slots=True)
class PostFilterResult:
    """Preemption's outcome: the node nominated for the pod (victims already being deleted)."""

    nominated_node: str | None
    status: Status = field(default_factory=Status.success)
    # What explains the choice (traces, `kubeberth explain`, scheduler_preemption_victims):
    victims: tuple[str, ...] = ()  # namespace/name of the pods evicted for the preemptor
    candidates: int = 0  # candidate nodes the dry run found
