"""Why no node fit a pod: kube-scheduler's framework.Diagnosis and the FitError text built from it.

The runtime fills it during Filter (one entry per plugin and reason, over absolute node-table rows);
PostFilter plugins (preemption) read it through the `post_filter` hook and `Handle.run_filters`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .status import Code, Status

_ONE_ROW = np.zeros(1, dtype=np.int64)  # the chosen node, in a one-node diagnosis (rows are counted, not read)


@dataclass
class Diagnosis:
    """Why no node fit: per-plugin rejections over absolute table rows, as kube-scheduler's FitError."""

    num_all_nodes: int
    rejections: list[tuple[str, str, np.ndarray, Code]] = field(default_factory=list)
    pre_filter_msg: str = ""
    pre_filter_code: Code = Code.SUCCESS
    post_filter_msg: str = ""
    unschedulable_plugins: set[str] = field(default_factory=set)

    def add(self, plugin: str, reason: str, rows: np.ndarray, code: Code) -> None:
        self.rejections.append((plugin, reason, rows, code))
        self.unschedulable_plugins.add(plugin)

    def pre_filter_failed(self, plugin: str, message: str, code: Code, rows: np.ndarray) -> None:
        """A PreFilter rejection: it is the message, and every row of `rows` failed on it."""
        self.pre_filter_msg = message
        self.pre_filter_code = code
        self.add(plugin, message, rows, code)

    @classmethod
    def one_node(cls, status: Status) -> Diagnosis:
        """The FitError kube-scheduler builds for a rejection at Reserve, Permit or WaitOnPermit:
        one node (the chosen one), rejected with the status's reasons by its plugin."""
        diagnosis = cls(1)
        for reason in status.reasons:
            diagnosis.add(status.plugin, reason, _ONE_ROW, status.code)
        if status.plugin:
            diagnosis.unschedulable_plugins.add(status.plugin)
        return diagnosis

    def reason_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for _plugin, reason, rows, _code in self.rejections:
            counts[reason] = counts.get(reason, 0) + int(rows.shape[0])
        return counts

    def unresolvable_rows(self) -> set[int]:
        """Rows no preemption can help (UnschedulableAndUnresolvable), or all if pre_filter said so."""
        out: set[int] = set()
        for _plugin, _reason, rows, code in self.rejections:
            if code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                out.update(rows.tolist())
        return out

    def message(self) -> str:
        """kube-scheduler's FitError text: `0/N nodes are available: <sorted histogram>.`"""
        msg = f"0/{self.num_all_nodes} nodes are available:"
        if self.pre_filter_msg:
            msg += f" {self.pre_filter_msg}."
        else:
            histogram = sorted(f"{count} {reason}" for reason, count in self.reason_counts().items())
            if histogram:
                msg += f" {', '.join(histogram)}."
        if self.post_filter_msg:
            msg += f" {self.post_filter_msg}"  # kube-scheduler appends it verbatim (it ends with its own '.')
        return msg
