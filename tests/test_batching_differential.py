"""Opportunistic batching end to end: the scheduler's decisions over a mixed stream equal a small
reference model of kube-scheduler's algorithm, decision by decision; explain says when a decision
came from the batch; the 500 ms age and the gate are honoured.

The reference keeps the candidates as a plain Python list of (name, raw scores) and does every
step of upstream's GetNodeHint / StoreScheduleResults in the simplest way: it is what the test
reasons about. Its full cycle is `find_node` without batching (the clusters are below 100 nodes,
so there is no sampling and the rotating start index stays at 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from kubeberth import CycleState
from kubeberth.cache.podinfo import PodInfo
from kubeberth.runtime.framework import Framework
from kubeberth.testing import SchedulerTester, make_node, make_pod
from kubeberth.testing.builders import pod_info

NO_DEFAULT_SPREAD = {"PodTopologySpread": {"defaultingType": "List", "defaultConstraints": []}}


def first_by_name(_pod: PodInfo, names: list[str]) -> str:
    return min(names)


def cluster(n: int = 40) -> list[dict[str, Any]]:
    nodes = []
    for i in range(n):
        cpu, mem = [("2", "4Gi"), ("4", "8Gi"), ("8", "16Gi")][i % 3]
        labels = {"topology.kubernetes.io/zone": f"zone-{i % 3}", "disk": "ssd" if i % 4 == 0 else "hdd"}
        taints = ["dedicated=gpu:NoSchedule"] if i % 10 == 9 else None
        nodes.append(make_node(f"n{i:03d}", cpu, mem, labels=labels, taints=taints))
    return nodes


def stream(seed: int = 3, runs: int = 30) -> list[dict[str, Any]]:
    """Runs of identical pods (same signature) of mixed templates, some unsignable."""
    rng = np.random.default_rng(seed)
    templates: list[dict[str, Any]] = [
        {"cpu": "500m", "memory": "512Mi", "labels": {"app": "web"}},
        {"cpu": "1", "memory": "1Gi", "labels": {"app": "api"}},
        {"cpu": "250m", "memory": "256Mi", "labels": {"app": "cache"}, "nodeSelector": {"disk": "ssd"}},
        {"cpu": "2", "memory": "2Gi", "labels": {"app": "batch"},
         "tolerations": ["dedicated=gpu:NoSchedule"]},
        {"cpu": "100m", "memory": "128Mi", "labels": {"app": "spread"}, "affinity": {"podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 50, "podAffinityTerm": {
                "labelSelector": {"matchLabels": {"app": "spread"}}, "topologyKey": "kubernetes.io/hostname"}}]}}},
        {"cpu": "300m", "memory": "300Mi", "labels": {"app": "pref"}, "affinity": {"nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "preference": {
                "matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}}]}}},
    ]
    pods = []
    for r in range(runs):
        tpl = dict(templates[int(rng.integers(len(templates)))])
        for k in range(int(rng.integers(1, 12))):
            spec = dict(tpl)
            pods.append(make_pod(f"p{r:03d}-{k:02d}", spec.pop("cpu"), spec.pop("memory"), **spec))
    return pods


# ---- the reference: kube-scheduler's batch.go written as plainly as possible ----------------
class Reference:
    def __init__(self, t: SchedulerTester) -> None:
        self.t = t
        self.fw: Framework = t.framework
        self.sched = t.scheduler
        self.signature: bytes | None = None
        self.candidates: list[tuple[str, dict[str, int]]] = []  # best first
        self.last: tuple[int, str] | None = None  # (cycle, chosen) of the last stored result
        self.hinted = 0

    def _filter(self, state: CycleState, pod: PodInfo, name: str) -> bool:
        table = self.t.cluster.table
        one = np.asarray([table.row_of[name]], dtype=np.int64)
        return bool(self.fw.run_filters(state, pod, table.view(one), self.t.cluster, self.sched.handle_for(self.fw))[0])

    def _rescore(self, state: CycleState, pod: PodInfo, chosen: str) -> None:
        table, cl, h = self.t.cluster.table, self.t.cluster, self.sched.handle_for(self.fw)
        names = [n for n, _ in self.candidates] + [chosen]
        view = table.view(np.asarray([table.row_of[n] for n in names], dtype=np.int64))
        st = CycleState()
        st.update(state)
        st.skip_score = set(state.skip_score)
        self.fw.run_pre_score(st, pod, view, cl, h, None)
        fresh = self.fw.run_raw_scores(st, pod, table.view(view.rows[-1:]), cl, h, None)
        raw = {p: np.asarray([c[1].get(p, 0) for c in self.candidates] + [int(s[0])]) for p, s in fresh.items()}
        totals, _ = self.fw.normalize_scores(st, pod, view, raw)
        ranked = sorted(range(len(names)), key=lambda i: -int(totals[i]))  # stable: ties keep list order
        self.candidates = [(names[i], {p: int(raw[p][i]) for p in raw}) for i in ranked]

    def decide(self, obj: dict[str, Any], cycle: int) -> str | None:
        pod = pod_info(obj)
        table, cl, h = self.t.cluster.table, self.t.cluster, self.sched.handle_for(self.fw)
        state = CycleState()
        sig = self.fw.sign_pod(pod)[0]
        hint = ""
        self.fw.run_pre_filter(state, pod, table.view(table.ordered_rows()), cl, h, None)
        usable = (
            self.candidates and self.last is not None and self.last[0] == cycle - 1
            and sig is not None and sig == self.signature and not pod.nominated_node_name
        )
        if usable:
            assert self.last is not None
            if self._filter(state, pod, self.last[1]):
                self._rescore(state, pod, self.last[1])
            hint = self.candidates.pop(0)[0]
        if hint and self._filter(state, pod, hint):
            self.last = (cycle, hint)
            self.hinted += 1
            return hint
        # A full cycle: every feasible node scored, best first, ties by name (the tie breaker).
        rows = table.ordered_rows()
        ok = self.fw.run_filters(state, pod, table.view(rows), cl, h)
        feasible = rows[ok]
        if not len(feasible):
            return None
        names = [table.names[r] for r in feasible.tolist()]
        if len(feasible) == 1:
            self.last, self.candidates, self.signature = (cycle, names[0]), [], None
            return names[0]
        view = table.view(feasible)
        self.fw.run_pre_score(state, pod, view, cl, h, None)
        raw = self.fw.run_raw_scores(state, pod, view, cl, h, None)
        totals, _ = self.fw.normalize_scores(state, pod, view, raw)
        best = max(int(x) for x in totals)
        chosen = min(n for n, x in zip(names, totals.tolist(), strict=True) if x == best)
        i = names.index(chosen)
        rest = [j for j in range(len(names)) if j != i]
        ranked = sorted(rest, key=lambda j: -int(totals[j]))
        self.last = (cycle, chosen)
        if sig is not None and ranked:
            self.signature = sig
            self.candidates = [(names[j], {p: int(raw[p][j]) for p in raw}) for j in ranked]
        else:
            self.signature, self.candidates = None, []
        return chosen


def run_reference(nodes: list[dict[str, Any]], pods: list[dict[str, Any]]) -> tuple[dict[str, str | None], int]:
    with SchedulerTester(default_plugins=True, args=NO_DEFAULT_SPREAD, objects=nodes) as t:
        ref = Reference(t)
        out: dict[str, str | None] = {}
        for cycle, obj in enumerate(pods, start=1):
            node = ref.decide(obj, cycle)
            out[obj["metadata"]["name"]] = node
            if node is not None:
                t.cluster.assume(pod_info(obj), node)
        return out, ref.hinted


def run_scheduler(
    nodes: list[dict[str, Any]], pods: list[dict[str, Any]], batching: bool
) -> tuple[list[tuple[str, str | None]], list[dict[str, Any]]]:
    with SchedulerTester(default_plugins=True, args=NO_DEFAULT_SPREAD, objects=nodes) as t:
        t.scheduler.tie_breaker = first_by_name
        t.scheduler.batching = batching
        for obj in pods:
            t.add(obj)
        t.sync()
        decisions: list[tuple[str, str | None]] = []
        batches: list[dict[str, Any]] = []
        while t.scheduler.step():
            rec = t.scheduler.records[-1]
            decisions.append((rec.pod.split("/", 1)[1], rec.node))
            batches.append(rec.batch or {})
        return decisions, batches


def test_batched_decisions_equal_the_reference_model_of_upstream() -> None:
    nodes, pods = cluster(), stream()
    decisions, batches = run_scheduler(nodes, pods, batching=True)
    assert [name for name, _ in decisions] == [p["metadata"]["name"] for p in pods]  # one cycle each, in order
    expected, hinted = run_reference(nodes, pods)
    assert dict(decisions) == expected
    assert all(node is not None for node in expected.values())
    used = sum(1 for b in batches if b.get("result") == "hint_used")
    assert used == hinted and used > len(pods) // 3  # the stream is mostly same-signature runs
    # Unsignable pods (pod affinity terms) never took a hint, and say why.
    spread = [b for (name, _), b in zip(decisions, batches, strict=True) if name in
              {p["metadata"]["name"] for p in pods if p["metadata"]["labels"]["app"] == "spread"}]
    assert spread and all(b.get("unsigned") == "InterPodAffinity: pods with InterPodAffinity are not signable"
                          for b in spread)


def test_with_the_gate_off_no_hint_is_taken_and_decisions_are_full_cycles() -> None:
    nodes, pods = cluster(), stream(seed=5, runs=10)
    decisions, batches = run_scheduler(nodes, pods, batching=False)
    assert all(b == {} for b in batches)
    assert len(decisions) == len(pods)


def test_explain_and_the_record_say_a_decision_came_from_the_batch() -> None:
    from kubeberth.observability.explain import batch_summary

    with SchedulerTester(default_plugins=True, args=NO_DEFAULT_SPREAD, objects=cluster(10)) as t:
        placed = t.schedule(*(make_pod(f"w{i}", "500m", "512Mi", labels={"app": "w"}) for i in range(3)))
        assert all(placed.values())
        recs = {r.pod: r for r in t.scheduler.records}
        first, second = recs["default/w0"], recs["default/w1"]
        assert first.batch == {"hint": "", "rescored": False, "flush": "empty_list"}
        assert second.batch is not None and second.batch["result"] == "hint_used"
        assert second.batch["hint"] == second.node and second.evaluated_nodes == 1
        assert batch_summary(second.as_dict()["batch"]).startswith(f"placed on {second.node}, the next of the")


def test_a_batch_older_than_500ms_on_the_scheduler_clock_is_not_used() -> None:
    with SchedulerTester(default_plugins=True, args=NO_DEFAULT_SPREAD, objects=cluster(10)) as t:
        t.schedule(make_pod("a0", "500m", labels={"app": "a"}))
        t.clock.advance_to(t.clock.now() + 0.5)
        t.schedule(make_pod("a1", "500m", labels={"app": "a"}))
        t.clock.advance_to(t.clock.now() + 0.501)
        t.schedule(make_pod("a2", "500m", labels={"app": "a"}))
        recs = {r.pod: r for r in t.scheduler.records}
        assert recs["default/a1"].batch["result"] == "hint_used"  # exactly 500 ms: still fresh
        assert recs["default/a2"].batch["flush"] == "expired"


def test_another_signature_a_failed_pod_and_a_nominated_pod_flush() -> None:
    with SchedulerTester(default_plugins=True, args=NO_DEFAULT_SPREAD, objects=cluster(10)) as t:
        t.schedule(make_pod("a0", "500m", labels={"app": "a"}))
        t.schedule(make_pod("b0", "600m", labels={"app": "a"}))  # another signature
        t.schedule(make_pod("huge", "64", labels={"app": "a"}))  # fits nowhere: stores nothing
        t.schedule(make_pod("b1", "600m", labels={"app": "a"}))
        recs = {r.pod: r for r in t.scheduler.records}
        assert recs["default/b0"].batch["flush"] == "pod_incompatible"
        assert recs["default/b1"].batch["flush"] == "pod_skipped"  # the failed pod stored no result
        nominated = make_pod("b2", "600m", labels={"app": "a"})
        nominated["status"]["nominatedNodeName"] = "n001"
        t.schedule(make_pod("b3", "600m", labels={"app": "a"}), nominated)
        recs = {r.pod: r for r in t.scheduler.records}
        assert recs["default/b2"].batch["flush"] == "pod_nominated"
