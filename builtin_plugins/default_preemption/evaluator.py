"""The dry run (kube-scheduler's Evaluator): which candidate nodes could fit the pod, and with the
fewest victims.

For each candidate node (one rejected by a resolvable filter), all lower-priority pods are taken
off the node hypothetically, the filters re-run on that node, and victims are then reprieved one
by one (PDB-violating first, most important first) while the pod still fits. Every what-if goes
through `cluster.hypothetical(...)`, which restores the cache exactly.

PreFilter runs once per attempt and its state is cloned per check (kube-scheduler clones the
cycle's state). Plugins' declared capabilities decide the rest:
- a PreFilter whose state is `PreFilterState.RERUN` is re-run for every check (the others keep
  no placed-pod data, or notice changes themselves);
- when every active filter is node-local (`FilterScope.NODE` or `NODE_RESOURCES`), a chunk of
  candidate nodes is evaluated in one batch call on hypothetical requested totals; otherwise each
  node is checked alone, after a batch screen by the resource filters.

The PreFilter snapshot is in snapshot.py, the batch path in batch.py.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from kubeberth import ClusterView, CycleState, Diagnosis, Handle, NodeInfo, PodView, Status

from .batch import BatchEvaluation
from .candidates import Candidate, IsEligibleVictim, MoreImportantVictim, victim_sort_key
from .lower_pods import LowerPods, lower_priority_pods
from .outcome import NO_VICTIMS, PRE_FILTER_RESULT_REASON, Outcome, outcome, reasons_by_row
from .pdb import PDB, filter_pods_with_pdb_violation
from .snapshot import PreFilterSnapshot
from .victims import Victim, filter_victims_with_pdb_violation, victim_importance_key, victims_on_node

MIN_CHUNK = 32  # candidate nodes evaluated together once few more candidates are wanted


class Evaluator:
    """One preemption attempt for one pod: the inputs every step shares, and the dry run."""

    def __init__(
        self,
        plugin: str,
        pod: PodView,
        cluster: ClusterView,
        handle: Handle,
        all_rows: np.ndarray,
        pdbs: list[PDB],
        *,
        chunk: int = MIN_CHUNK,
        is_eligible: IsEligibleVictim | None = None,
        more_important: MoreImportantVictim | None = None,
        workload: bool = False,
    ) -> None:
        """`chunk`: how many potential nodes are evaluated together once fewer candidates are wanted
        (see DefaultPreemption.dry_run_chunk); `is_eligible` and `more_important`: the plugin's
        victim eligibility and order (DefaultPreemption.is_eligible_victim, more_important_victim);
        `workload`: GenericWorkload is on, victims are units (victims.py) and are handed to
        `is_eligible` and `more_important` as Victim objects."""
        self.plugin = plugin
        self.chunk = chunk
        self.is_eligible = is_eligible
        self.workload = workload
        self.victim_key = victim_sort_key(None if workload else more_important)  # pods
        self.unit_key = victim_sort_key(more_important, victim_importance_key)  # units (GenericWorkload)
        # Under GenericWorkload a node whose pods name no PodGroup has only single-pod units at their own
        # priority, ordered as pods are: the pod paths (batched where they can be) decide it, unless the
        # plugin customizes eligibility or order (those hooks are handed units).
        self.plain_rows_as_pods = workload and is_eligible is None and more_important is None
        self.pod = pod
        self.cluster = cluster
        self.handle = handle
        self.all_rows = all_rows
        self.pdbs = pdbs
        self.base = PreFilterSnapshot.build(pod, cluster, handle, all_rows)
        self.nominated = cluster.nominated_ghosts(pod)
        self.lower: dict[int, LowerPods] = {}  # this attempt's rows read through the cross-attempt cache
        self.batch = BatchEvaluation(
            plugin, pod, cluster, handle, self.base, pdbs, self.nominated, self.lower, self.victim_key
        )

    def dry_run(
        self, potential: list[int], offset: int, wanted: int, statuses: dict[str, tuple[str, ...]]
    ) -> list[Candidate]:
        """Evaluate candidate nodes from `offset` until `wanted` candidates are found.

        Nodes are taken in chunks in kube-scheduler's order; a chunk is evaluated in batch where the
        active filters allow it (`PreFilterSnapshot.fast`), else node by node after a batch screen.
        """
        n = len(potential)
        order = potential[offset:] + potential[:offset]
        non_violating: list[Candidate] = []
        violating: list[Candidate] = []
        deferred: list[tuple[int, list[PodView]]] = []  # screened out: reasons only needed without candidates
        cluster = self.cluster
        names = cluster.table.names
        pos = 0
        done = False
        while pos < n and not done:
            size = max(wanted - len(non_violating) - len(violating), self.chunk)
            chunk = order[pos : pos + size]
            pos += len(chunk)
            units = self.workload and not (self.plain_rows_as_pods and self._without_pod_groups(chunk))
            items: list[tuple[int, list[PodView]]] = []
            for row, lower in zip(chunk, self._lower_pods(chunk, units), strict=True):
                if lower:
                    items.append((row, lower))
                else:
                    statuses[names[row] or ""] = (NO_VICTIMS,)
            outcomes: Iterator[Outcome]
            if units:
                outcomes = self.evaluate_units(items)  # type: ignore[arg-type]
            elif self.base.fast:
                outcomes = iter(self.batch.evaluate(items))
            else:
                outcomes = self.evaluate_each(items, deferred)
            for row, victims, num_violations, reasons in outcomes:
                name = names[row] or ""
                if victims is None:
                    statuses[name] = reasons
                    continue
                bucket = violating if num_violations else non_violating
                if len(bucket) < wanted:
                    bucket.append(Candidate(name, victims, num_violations))
                if non_violating and len(non_violating) + len(violating) >= wanted:
                    done = True
                    break
        if not non_violating and not violating:
            for row, lower in deferred:  # only now do their exact reasons matter (the FitError text)
                statuses[names[row] or ""] = self.select_victims_on_node(row, lower)[2]
        return non_violating + violating

    def _without_pod_groups(self, rows: list[int]) -> bool:
        """No pod on these rows names a PodGroup (GenericWorkload then changes nothing for them)."""
        node_pods = self.cluster.node_pods
        return not any(p.pod_group for row in rows for p in node_pods(row).values())

    def _lower_pods(self, rows: list[int], units: bool = False) -> list[list[PodView]]:
        """Each row's pods of lower priority than the pod that may be preempted (isPreemptionAllowed);
        with `units` (GenericWorkload), the row's victim units that may be (Victim objects)."""
        cluster, pod = self.cluster, self.pod
        if units:
            return [self.victims_on_row(row) for row in rows]  # type: ignore[misc]
        if self.is_eligible is None:
            entries = lower_priority_pods(cluster, rows, pod.priority)
            self.lower.update(zip(rows, entries, strict=True))
            return [e.pods for e in entries]
        out = []
        for row in rows:
            lower = [p for p in cluster.node_pods(row).values() if p.priority < pod.priority]
            if lower:
                node, eligible = NodeInfo(cluster, row), self.is_eligible
                lower = [p for p in lower if eligible(node, p, pod)]
            out.append(lower)
        return out

    # ---- workload-aware evaluation (GenericWorkload: victims are units) --------------------
    def victims_on_row(self, row: int) -> list[Victim]:
        """GetVictimsOnNode then isPreemptionAllowedAcrossAllVictimNodes: the row's units of lower
        priority than the preemptor, eligible (is_eligible) on every node they span."""
        cluster, pod, eligible = self.cluster, self.pod, self.is_eligible
        out = []
        for victim in victims_on_node(cluster, row):
            if victim.priority >= pod.priority:
                continue
            if eligible is not None and not all(
                eligible(NodeInfo(cluster, r), victim, pod) for r in victim.affected_rows
            ):
                continue
            out.append(victim)
        return out

    def evaluate_units(self, items: list[tuple[int, list[Victim]]]) -> Iterator[Outcome]:
        """Node by node, lazily, in order: SelectVictimsOnNode over units."""
        names = self.cluster.table.names
        for row, units in items:
            victims, num_violations, reasons = self.select_victim_units_on_node(row, units)
            if victims is None:
                yield row, None, 0, reasons
            else:
                yield outcome(row, names[row] or "", victims, num_violations)

    def select_victim_units_on_node(
        self, row: int, units: list[Victim]
    ) -> tuple[list[PodView] | None, int, tuple[str, ...]]:
        """kube-scheduler's SelectVictimsOnNode under GenericWorkload: every unit taken off (a PodGroup's
        pods on other nodes too, so plugins that count pods cluster-wide see them gone), the filters run
        on this node, then units reprieved whole, PDB-violating first, most important first."""
        if not units:
            return None, 0, (NO_VICTIMS,)
        potential = sorted(units, key=self.unit_key)
        with self.cluster.hypothetical(remove=[p for v in potential for p in v.pods]) as what_if:
            fits, reasons = self._fits(row)
            if not fits:
                return None, 0, reasons
            violating, non_violating = filter_victims_with_pdb_violation(potential, self.pdbs)
            chosen: list[Victim] = []
            num_violations = 0
            for victim, count in [*violating, *((v, 0) for v in non_violating)]:
                for p, r in victim.placed:
                    what_if.add(p, r)
                if not self._fits(row, reprieve=True)[0]:
                    for p in victim.pods:
                        what_if.remove(p)
                    chosen.append(victim)
                    num_violations += count
            if violating and non_violating:
                chosen.sort(key=self.unit_key)
            return [p for v in chosen for p in v.pods], num_violations, ()

    # ---- node-by-node evaluation (some active filter reads other nodes' pods) ---------------
    def evaluate_each(
        self, items: list[tuple[int, list[PodView]]], deferred: list[tuple[int, list[PodView]]]
    ) -> Iterator[Outcome]:
        """Lazily, in order, after a batch screen of the resource filters (and those before them).

        A node failing the screen cannot fit after removing all its lower-priority pods. When the
        screened filters are all node-local its reasons are exact; otherwise they are computed only
        if they end up in the FitError text (no candidate at all).
        """
        could_fit, reasons_of = self._screen(items)
        for (row, lower), ok in zip(items, could_fit.tolist(), strict=True):
            if not ok:
                if reasons_of is None:
                    deferred.append((row, lower))
                else:
                    yield row, None, 0, reasons_of.get(row) or (f"node(s) were rejected by {self.plugin}",)
                continue
            victims, num_violations, reasons = self.select_victims_on_node(
                row, lower, screened=reasons_of is not None
            )
            if victims is None:
                yield row, None, 0, reasons
            else:
                yield outcome(row, self.cluster.table.names[row] or "", victims, num_violations)

    def _screen(self, items: list[tuple[int, list[PodView]]]) -> tuple[np.ndarray, dict[int, tuple[str, ...]] | None]:
        """The screen over all the nodes with every lower-priority pod gone and nominated pods in.

        Returns the could-fit mask and, when the screen is exact, the reasons of the rows failing it.
        """
        base = self.base
        if base.screen is None or base.state is None or not items:
            return np.ones(len(items), dtype=bool), None
        rows, delta, _gone, _starts = self.batch.deltas(items)
        diagnosis = Diagnosis(num_all_nodes=len(items))
        with self.cluster.hypothetical() as what_if:
            what_if.add_requests(rows, delta)
            mask = self.handle.run_filters(base.clone(), self.pod, self.cluster.table.view(rows), diagnosis, base.screen)
        if not base.screen_exact:
            return mask, None
        return mask, reasons_by_row(diagnosis)

    def select_victims_on_node(
        self, row: int, lower: list[PodView], screened: bool = False
    ) -> tuple[list[PodView] | None, int, tuple[str, ...]]:
        """Fewest victims on one node: (victims or None, PDB violations, reasons when None).

        `screened`: the node passed the exact screen (`_screen`), so the first check runs only the
        filters after it: the screened ones, node-local, already passed in this very state."""
        potential = list(lower)
        with self.cluster.hypothetical(remove=potential) as what_if:
            fits, reasons = self._fits(row, after_screen=screened)
            if not fits:
                return None, 0, reasons
            potential.sort(key=self.victim_key)
            violating, non_violating = filter_pods_with_pdb_violation(potential, self.pdbs)
            victims: list[PodView] = []
            num_violations = 0
            for group, counts in ((violating, True), (non_violating, False)):
                for victim in group:
                    what_if.add(victim, row)
                    if not self._fits(row, reprieve=True)[0]:
                        what_if.remove(victim)
                        victims.append(victim)
                        num_violations += int(counts)
            if violating and non_violating:
                victims.sort(key=self.victim_key)
            return victims, num_violations, ()

    def _fits(self, row: int, reprieve: bool = False, after_screen: bool = False) -> tuple[bool, tuple[str, ...]]:
        """RunFilterPluginsWithNominatedPods on one node: with this node's nominated pods, then without.

        `reprieve`: only the verdict matters, so the resource filters alone (cheap, and necessary
        for the whole chain to pass) are tried first with the nominated pods in. `after_screen`: run
        only the filters after the exact screen the node passed with its nominated pods in (node-local
        filters passing with them pass without them too).
        """
        plugins = self.base.after_screen if after_screen else None
        nominated_here = self.nominated.get(row, [])
        if nominated_here:
            with self.cluster.hypothetical(add=[(other, row) for other in nominated_here]):
                if reprieve and not self._resources_fit(row):
                    return False, ()
                fits, reasons = self._run_filters_on(row, plugins)
            if not fits:
                return fits, reasons
        elif reprieve and not self._resources_fit(row):
            return False, ()
        return self._run_filters_on(row, plugins)

    def _resources_fit(self, row: int) -> bool:
        base = self.base
        if base.resources is None or base.state is None:
            return True
        one = self.cluster.table.view(np.asarray([row], dtype=np.int64))
        return bool(self.handle.run_filters(base.clone(), self.pod, one, None, base.resources)[0])

    def _run_filters_on(self, row: int, plugins: list[str] | None = None) -> tuple[bool, tuple[str, ...]]:
        base, handle, pod = self.base, self.handle, self.pod
        table = self.cluster.table
        if base.state is None:
            state = CycleState()
            status, narrowed = handle.run_pre_filter(state, pod, table.view(self.all_rows))
        else:
            state = base.clone()
            status, narrowed = Status.success(), base.narrowed
            if base.refresh is not None:
                status, refreshed = handle.run_pre_filter(state, pod, table.view(self.all_rows), base.refresh)
                if refreshed is not None:
                    narrowed = refreshed if narrowed is None else narrowed & refreshed
        if not status.ok:
            return False, status.reasons or (status.message,)
        if narrowed is not None and table.names[row] not in narrowed:
            return False, (PRE_FILTER_RESULT_REASON,)
        if plugins is not None and not plugins:
            return True, ()
        diagnosis = Diagnosis(num_all_nodes=1)
        feasible = handle.run_filters(
            state, pod, table.view(np.asarray([row], dtype=np.int64)), diagnosis, plugins
        )
        if feasible[0]:
            return True, ()
        return False, tuple(dict.fromkeys(reason for _p, reason, _rows, _c in diagnosis.rejections))
