"""The cycle's PreFilter state as the dry run reuses it (kube-scheduler's Evaluator clones CycleState per check)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from kubeberth import ClusterView, CycleState, FilterScope, Handle, PodView, PreFilterState


@dataclass(slots=True)
class PreFilterSnapshot:
    """The cycle's PreFilter state, computed once per preemption attempt and cloned per check,
    with the plugin lists the capabilities allow (kube-scheduler clones CycleState and keeps it
    current through PreFilterExtensions)."""

    state: CycleState | None  # None: the cycle's pre_filter failed; every check re-runs all of it
    narrowed: frozenset[str] | None
    refresh: list[str] | None  # pre-filters re-run per check (PreFilterState.RERUN)
    screen: list[str] | None  # active filters up to the last resource filter (or the resource filters)
    screen_exact: bool  # the screen's filters are node-local: its reasons are the chain's
    after_screen: list[str] | None  # with an exact screen, the active filters after it
    resources: list[str] | None  # the NODE_RESOURCES filters: necessary for the whole chain to pass
    fast: bool  # every active filter is node-local and nothing needs a re-run: batch evaluation

    @classmethod
    def build(cls, pod: PodView, cluster: ClusterView, handle: Handle, all_rows: np.ndarray) -> PreFilterSnapshot:
        state = CycleState()
        status, narrowed = handle.run_pre_filter(state, pod, cluster.table.view(all_rows))
        if not status.ok:
            return cls(None, None, None, None, False, None, None, False)
        caps = handle.capabilities
        active = [p for p in handle.plugins_at("filter") if p not in state.skip_filter]
        refresh = [
            p for p in handle.plugins_at("pre_filter")
            if caps(p).pre_filter_state is PreFilterState.RERUN and p not in state.skip_filter
        ]
        resource = [p for p in active if caps(p).filter_scope is FilterScope.NODE_RESOURCES]
        screen, exact, after = None, False, None
        if resource:
            prefix = active[: active.index(resource[-1]) + 1]
            exact = all(caps(p).filter_scope.node_local for p in prefix)
            screen = prefix if exact else resource
            if exact and not set(refresh) & set(prefix):  # the screen's verdicts hold for every check
                after = active[len(prefix) :]
        return cls(
            state,
            narrowed,
            refresh or None,
            screen,
            exact,
            after,
            resource or None,
            not refresh and all(caps(p).filter_scope.node_local for p in active),
        )

    def clone(self) -> CycleState:
        assert self.state is not None
        state = CycleState()
        state.update(self.state)
        state.skip_filter = set(self.state.skip_filter)
        state.skip_score = set(self.state.skip_score)
        return state
