"""What the dry run reports per candidate node, and the reasons it gives for a node without victims."""

from __future__ import annotations

from kubeberth import Diagnosis, PodView

NO_VICTIMS = "No preemption victims found for incoming pod"
PRE_FILTER_RESULT_REASON = "node(s) didn't satisfy plugin(s) PreFilter result"

Outcome = tuple[int, "list[PodView] | None", int, tuple[str, ...]]
"""(row, victims or None, PDB violations, reasons when None)."""


def outcome(row: int, name: str, victims: list[PodView], num_violations: int) -> Outcome:
    if not victims:  # kube-scheduler reports this as an error for the node, never a candidate
        return row, None, 0, (f'expected at least one victim pod on node "{name}"',)
    return row, victims, num_violations, ()


def reasons_by_row(diagnosis: Diagnosis) -> dict[int, tuple[str, ...]]:
    """Per rejected row, its reasons in order (one plugin per row: filters stop at the first failure)."""
    out: dict[int, dict[str, None]] = {}
    for _plugin, reason, rejected_rows, _code in diagnosis.rejections:
        for r in rejected_rows.tolist():
            out.setdefault(r, {})[reason] = None
    return {r: tuple(reasons) for r, reasons in out.items()}
