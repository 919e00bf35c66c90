"""The scheduling lifecycle end to end: the real Scheduler, queue and binding path on EmbeddedCluster.

Small test plugins below exercise every status path of every extension point. Runs use a
VirtualClock, so backoffs cost no real time; only permit timeouts wait (fractions of a second).
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any

import numpy as np
import pytest
from kubeberth import Code, FilterResult, PermitResult, PreFilterResult, Status, hookimpl
from kubeberth.backends.base import PodGone
from kubeberth.cache.podinfo import PodInfo
from kubeberth.runtime.framework import num_feasible_nodes_to_find
from kubeberth.testing import PROFILE, make_node, make_pod

BASE = ("PrioritySort", "DefaultBinder")
seen: list[str] = []


@pytest.fixture(autouse=True)
def _clear_events() -> None:
    seen.clear()


# ---- builders (the scheduler comes from the kit's scheduler_tester fixture) ----------------------
def pod(name: str, cpu: str | None = None, memory: str | None = None, labels: dict | None = None, **spec: Any) -> dict:
    return make_pod(name, cpu, memory, uid=name, labels=labels, schedulerName=PROFILE, **spec)


def nodes(count: int, cpu: str = "4", memory: str = "8Gi", prefix: str = "n") -> list[dict]:
    return [make_node(f"{prefix}{i}", cpu, memory) for i in range(count)]


# ---- test plugins -------------------------------------------------------------------------
class TPreReject:
    name = "TPreReject"

    @hookimpl
    def pre_filter(self, pod: PodInfo) -> Status | None:
        if pod.labels.get("reject") == "pre":
            return Status.unschedulable("pod is not welcome here")
        return None


class TCountFilter:
    """Passes every node; records which nodes it saw."""

    name = "TCountFilter"

    @hookimpl
    def filter(self, pod: PodInfo, nodes) -> None:
        seen.append(f"filter:{self.name}:{pod.name}:{','.join(nodes.names)}")


class TSkipper:
    """Skips its own filter from pre_filter; the filter would reject everything."""

    name = "TSkipper"

    @hookimpl
    def pre_filter(self, pod: PodInfo) -> Status:
        return Status.skip()

    @hookimpl
    def filter(self, pod: PodInfo, nodes) -> FilterResult:
        seen.append(f"filter:{self.name}:{pod.name}")
        return FilterResult.reject_where(np.ones(len(nodes), dtype=bool), "skipper filter ran")


class _Narrow:
    """Narrows candidates to the comma-separated node names in the pod label named after the plugin."""

    name = ""
    key = ""

    @hookimpl
    def pre_filter(self, pod: PodInfo) -> PreFilterResult | None:
        value = pod.labels.get(self.key)
        if value is None:
            return None
        return PreFilterResult(node_names=frozenset(v for v in value.split(".") if v))


class TNarrowA(_Narrow):
    name = "TNarrowA"
    key = "a"


class TNarrowB(_Narrow):
    name = "TNarrowB"
    key = "b"


class TTaintish:
    name = "TTaintish"

    @hookimpl
    def filter(self, nodes) -> FilterResult:
        tainted = np.array([nodes.table.labels_of(r).get("taint") == "yes" for r in nodes.rows], dtype=bool)
        return FilterResult.reject_where(tainted, "node(s) had untolerated taint(s)")


class TShort:
    name = "TShort"

    @hookimpl
    def filter(self, nodes) -> FilterResult:
        labels = [nodes.table.labels_of(r) for r in nodes.rows]
        return FilterResult.from_rejections(
            len(nodes),
            {
                "Insufficient cpu": np.array([lb.get("cpu") == "low" for lb in labels], dtype=bool),
                "Insufficient memory": np.array([lb.get("mem") == "low" for lb in labels], dtype=bool),
            },
        )


class TWhy:
    """Rejects every node with the reason in its `why` label."""

    name = "TWhy"

    @hookimpl
    def filter(self, nodes) -> FilterResult:
        reasons = [nodes.table.labels_of(r)["why"] for r in nodes.rows]
        return FilterResult.from_rejections(
            len(nodes), {w: np.array([x == w for x in reasons], dtype=bool) for w in set(reasons)}
        )


class TNoReason:
    """Rejects without saying why: the framework supplies a generic reason."""

    name = "TNoReason"

    @hookimpl
    def filter(self, pod: PodInfo, nodes) -> FilterResult | Status | None:
        if pod.labels.get("mode") == "silent":
            return FilterResult(np.zeros(len(nodes), dtype=bool))
        if pod.labels.get("mode") == "status":
            return Status.unschedulable("nope", unresolvable=True)
        return None


class TErrFilter:
    name = "TErrFilter"

    @hookimpl
    def filter(self, pod: PodInfo) -> Status | None:
        if pod.labels.get("err") == "yes":
            return Status.error("disk on fire")
        return None


class TCrash:
    name = "TCrash"

    @hookimpl
    def filter(self, pod: PodInfo) -> None:
        if pod.labels.get("crash") == "filter":
            raise RuntimeError("kaboom")


class TPost:
    name = "TPost"

    @hookimpl
    def post_filter(self, pod: PodInfo, diagnosis) -> Status:
        seen.append(f"post_filter:{pod.name}:{diagnosis.num_all_nodes}")
        return Status.unschedulable("preemption: not eligible.")  # kube-scheduler style: ends with "."


class TAllNo:
    name = "TAllNo"

    @hookimpl
    def filter(self, pod: PodInfo, nodes) -> FilterResult | None:
        if pod.labels.get("fit") == "never":
            return FilterResult.reject_where(np.ones(len(nodes), dtype=bool), "node(s) are never good enough")
        return None


class TCores:
    """Scores by allocatable cores x10; normalizes to [0, 100] by the maximum."""

    name = "TCores"

    @hookimpl
    def score(self, nodes) -> np.ndarray:
        return nodes.allocatable("cpu") // 100

    @hookimpl
    def normalize_score(self, scores: np.ndarray) -> np.ndarray:
        return scores * 100 // scores.max()


class TFavorite:
    name = "TFavorite"

    @hookimpl
    def score(self, nodes) -> np.ndarray:
        return np.array([60 if n == "a" else 0 for n in nodes.names])


class TBadScore:
    name = "TBadScore"

    @hookimpl
    def score(self, pod: PodInfo, nodes) -> np.ndarray:
        mode = pod.labels.get("bad")
        if mode == "shape":
            return np.zeros(len(nodes) + 1)
        return np.full(len(nodes), 101)


class TBadNorm:
    name = "TBadNorm"

    @hookimpl
    def score(self, nodes) -> np.ndarray:
        return np.full(len(nodes), 5)

    @hookimpl
    def normalize_score(self, scores: np.ndarray) -> np.ndarray:
        return scores - 10


class TConst:
    name = "TConst"

    @hookimpl
    def score(self, nodes) -> np.ndarray:
        return np.zeros(len(nodes), dtype=np.int64)


class TLast:
    """Scores only the last node of the cluster."""

    name = "TLast"
    target = "n499"

    @hookimpl
    def score(self, nodes) -> np.ndarray:
        return np.array([100 if n == self.target else 0 for n in nodes.names])


class _Reserver:
    name = ""

    @hookimpl
    def reserve(self, pod: PodInfo, node_name: str) -> Status | None:
        seen.append(f"reserve:{self.name}")
        if pod.labels.get("fail-reserve") == self.name:
            return Status.unschedulable("no room in the reservation")
        return None

    @hookimpl
    def unreserve(self, pod: PodInfo, node_name: str) -> None:
        seen.append(f"unreserve:{self.name}")


class TR1(_Reserver):
    name = "TR1"


class TR2(_Reserver):
    name = "TR2"


class TR3(_Reserver):
    name = "TR3"


class TDeny:
    name = "TDeny"

    @hookimpl
    def permit(self, pod: PodInfo) -> PermitResult:
        if pod.labels.get("deny") == "yes":
            return PermitResult.deny("permit says no")
        return PermitResult.approve()


class TPermitCrash:
    name = "TPermitCrash"

    @hookimpl
    def permit(self, pod: PodInfo) -> None:
        if pod.labels.get("crash") == "permit":
            raise ValueError("permit exploded")


class TWaiter:
    name = "TWaiter"

    @hookimpl
    def permit(self, pod: PodInfo) -> PermitResult | None:
        if "wait" in pod.labels:
            seen.append(f"wait:{pod.name}")
            return PermitResult.wait(float(pod.labels["wait"]))
        return None


class TWaiter2:
    name = "TWaiter2"

    @hookimpl
    def permit(self, pod: PodInfo) -> PermitResult | None:
        if "wait2" in pod.labels:
            return PermitResult.wait(float(pod.labels["wait2"]))
        return None


class TReleaser:
    """Allows pods waiting at TWaiter when a pod labelled release=yes arrives at permit."""

    name = "TReleaser"

    @hookimpl
    def permit(self, pod: PodInfo, handle) -> None:
        if pod.labels.get("release") == "yes":
            for uid in pod.labels["targets"].split("."):
                waiting = handle.get_waiting_pod(uid)
                assert waiting is not None, uid
                assert "TWaiter" in waiting.pending_plugins
                seen.append(f"allow:{uid}")
                waiting.allow("TWaiter")


class TRejecter:
    name = "TRejecter"

    @hookimpl
    def permit(self, pod: PodInfo, handle) -> None:
        if pod.labels.get("reject") == "others":
            for waiting in handle.waiting_pods():
                waiting.reject(self.name, "gang member failed")


class TBindSkip:
    name = "TBindSkip"

    @hookimpl
    def bind(self, pod: PodInfo) -> Status:
        seen.append(f"bind:{self.name}")
        return Status.skip()


class TBindOK:
    name = "TBindOK"

    @hookimpl
    def bind(self, pod: PodInfo, node_name: str, handle) -> Status:
        seen.append(f"bind:{self.name}")
        return handle.bind(pod, node_name)


class TBindNever:
    name = "TBindNever"

    @hookimpl
    def bind(self, pod: PodInfo) -> Status:
        seen.append(f"bind:{self.name}")
        return Status.error("TBindNever must not be reached")


class TFlakyBinder:
    """Fails each pod's first bind, then binds through the backend."""

    name = "TFlakyBinder"

    def __init__(self) -> None:
        self.failed: set[str] = set()

    @hookimpl
    def bind(self, pod: PodInfo, node_name: str, handle) -> Status:
        if pod.uid not in self.failed:
            self.failed.add(pod.uid)
            seen.append("bind:fail")
            return Status.error("etcd is down")
        seen.append("bind:ok")
        return handle.bind(pod, node_name)


class TPostBind:
    name = "TPostBind"

    @hookimpl
    def post_bind(self, pod: PodInfo, node_name: str, handle) -> None:
        stored = handle.get_object("Pod", pod.key)
        seen.append(f"post_bind:{pod.name}:{node_name}:{stored['spec'].get('nodeName')}")


class TNeedsLabel:
    """Rejects nodes without ready=yes; only node updates can change that."""

    name = "TNeedsLabel"
    requeue_on = ("Node/Update",)

    @hookimpl
    def filter(self, nodes) -> FilterResult:
        ready = np.array([nodes.table.labels_of(r).get("ready") == "yes" for r in nodes.rows], dtype=bool)
        return FilterResult.reject_where(~ready, "node(s) not ready for test")


class TSlowFilter:
    name = "TSlowFilter"

    @hookimpl
    def filter_node(self, pod: PodInfo, node) -> Status | None:
        if node.labels.get("bad") == "yes":
            return Status.unschedulable("node is bad")
        return None


class TSlowScore:
    name = "TSlowScore"

    @hookimpl
    def score_node(self, node) -> int:
        return int(node.labels.get("rank", "0"))


class TFastFilter:
    name = "TFastFilter"

    @hookimpl
    def filter(self, nodes) -> FilterResult:
        bad = np.array([nodes.table.labels_of(r).get("bad") == "yes" for r in nodes.rows], dtype=bool)
        return FilterResult.reject_where(bad, "node is bad")


class TFastScore:
    name = "TFastScore"

    @hookimpl
    def score(self, nodes) -> np.ndarray:
        return np.array([int(nodes.table.labels_of(r).get("rank", "0")) for r in nodes.rows])


# ---- pre_filter ---------------------------------------------------------------------------
def test_pre_filter_unschedulable_rejects_all_nodes(scheduler_tester) -> None:
    t = scheduler_tester([TPreReject, TCountFilter], objects=[*nodes(3), pod("no", labels={"reject": "pre"}), pod("yes")])
    s, b = t.scheduler, t.backend
    t.settle(timeout=10)
    assert t.events("no", "FailedScheduling") == ["0/3 nodes are available: pod is not welcome here."]
    assert t.node_of("no") is None and t.node_of("yes") is not None
    assert not any(e.startswith("filter:TCountFilter:no:") for e in seen)  # filters never ran
    entry = s.queue.entries["no"]
    assert entry.where == "unschedulable"
    assert entry.unschedulable_plugins == frozenset({"TPreReject"})
    assert t.records("no")[-1].result == "Unschedulable"
    cond = [c for c in b.get("Pod", "default/no")["status"]["conditions"] if c["type"] == "PodScheduled"]
    assert cond == [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                     "message": "0/3 nodes are available: pod is not welcome here."}]


def test_pre_filter_skip_skips_only_own_filter(scheduler_tester) -> None:
    t = scheduler_tester([TSkipper, TCountFilter], objects=[*nodes(2), pod("p")])
    t.settle(timeout=10)
    assert t.node_of("p") is not None
    assert "filter:TSkipper:p" not in seen
    assert "filter:TCountFilter:p:n0,n1" in seen


def test_pre_filter_narrows_candidates(scheduler_tester) -> None:
    objs = [*nodes(3), pod("p", labels={"a": "n0.n1", "b": "n1.n2"})]
    t = scheduler_tester([TNarrowA, TNarrowB, TCountFilter], objects=objs)
    t.settle(timeout=10)
    assert t.node_of("p") == "n1"
    assert "filter:TCountFilter:p:n1" in seen  # filters saw only the intersection


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ({"a": "n0", "b": "n2"}, "0/3 nodes are available: node(s) didn't satisfy plugin(s) [TNarrowA TNarrowB] simultaneously."),
        ({"a": ""}, "0/3 nodes are available: node(s) didn't satisfy plugin TNarrowA."),
    ],
)
def test_pre_filter_empty_intersection(scheduler_tester, labels: dict, message: str) -> None:
    t = scheduler_tester([TNarrowA, TNarrowB, TCountFilter], objects=[*nodes(3), pod("p", labels=labels)])
    s = t.scheduler
    t.settle(timeout=10)
    assert t.events("p", "FailedScheduling") == [message]
    assert not any(e.startswith("filter:") for e in seen)
    assert s.queue.entries["p"].unschedulable_plugins  # some plugin is responsible for requeueing


def test_pre_filter_narrowing_counts_only_evaluated_nodes(scheduler_tester) -> None:
    """Nodes excluded by a PreFilterResult count as `didn't satisfy plugin(s) [...]` (FitError's absent nodes)."""
    t = scheduler_tester([TNarrowA, "NodeResourcesFit"], objects=[*nodes(3, cpu="1"), pod("p", "2", labels={"a": "n0"})])
    t.settle(timeout=10)
    assert t.events("p", "FailedScheduling") == [
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [TNarrowA]."
    ]


# ---- filter -----------------------------------------------------------------------------
def test_filter_reasons_aggregated_and_sorted(scheduler_tester) -> None:
    objs = [
        make_node("n0", labels={"taint": "yes"}),
        make_node("n1", labels={"taint": "yes", "cpu": "low"}),
        make_node("n2", labels={"cpu": "low", "mem": "low"}),
        make_node("n3", labels={"mem": "low"}),
        pod("p"),
    ]
    t = scheduler_tester([TTaintish, TShort], objects=objs)
    s = t.scheduler
    t.settle(timeout=10)
    # n1 is rejected by TTaintish first, so its low cpu is never reported
    assert t.events("p", "FailedScheduling") == [
        "0/4 nodes are available: 1 Insufficient cpu, 2 Insufficient memory, 2 node(s) had untolerated taint(s)."
    ]
    rec = t.records("p")[-1]
    assert rec.rejected == {
        "TTaintish": {"node(s) had untolerated taint(s)": 2},
        "TShort": {"Insufficient cpu": 1, "Insufficient memory": 2},
    }
    assert s.queue.entries["p"].unschedulable_plugins == frozenset({"TTaintish", "TShort"})


def test_histogram_sorted_as_strings(scheduler_tester) -> None:
    """kube-scheduler sorts "count reason" strings, so "10 zzz" comes before "2 aaa"."""
    objs = [make_node(f"n{i}", labels={"why": "zzz" if i < 10 else "aaa"}) for i in range(12)]
    t = scheduler_tester([TWhy], objects=[*objs, pod("p")])
    t.settle(timeout=10)
    assert t.events("p", "FailedScheduling") == ["0/12 nodes are available: 10 zzz, 2 aaa."]


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("silent", "0/3 nodes are available: 3 node(s) were rejected by TNoReason."),
        ("status", "0/3 nodes are available: 3 nope."),
    ],
)
def test_filter_without_rejections_or_with_status(scheduler_tester, mode: str, message: str) -> None:
    t = scheduler_tester([TNoReason], objects=[*nodes(3), pod("p", labels={"mode": mode})])
    t.settle(timeout=10)
    assert t.events("p", "FailedScheduling") == [message]


def test_filter_error_gives_pod_error_and_backoff(scheduler_tester) -> None:
    t = scheduler_tester([TErrFilter], objects=[*nodes(2), pod("p", labels={"err": "yes"})])
    s = t.scheduler
    s.drain_events()
    assert s.step()
    rec = s.records[-1]
    assert rec.result == "Error" and "disk on fire" in rec.message
    entry = s.queue.entries["p"]
    assert entry.where == "backoff" and entry.errors == 1
    # 1 s, aligned down to the 1 s ordering window (SchedulerPopFromBackoffQ); it backs off until that window passed
    assert s.queue.backoff_time(entry) == pytest.approx(math.floor(s.clock.now() + 1))
    assert entry.backoff_until == pytest.approx(math.floor(s.clock.now() + 1) + 1)
    assert not s.step()  # still backing off
    s.clock.advance_to(entry.backoff_until)
    assert s.step()
    assert entry.errors == 2
    assert entry.backoff_until == pytest.approx(math.floor(s.clock.now() + 2) + 1)  # 2 s, the same window rule
    assert t.node_of("p") is None
    assert "p" not in s.cluster.placement


def test_plugin_raising_is_error_and_scheduler_keeps_running(scheduler_tester, caplog) -> None:
    objs = [*nodes(2), pod("good1"), pod("bad", labels={"crash": "filter"}), pod("good2")]
    t = scheduler_tester([TCrash], objects=objs, max_errors_per_pod=3)
    s = t.scheduler
    with caplog.at_level(logging.ERROR):
        t.settle(timeout=10)
    assert t.node_of("good1") and t.node_of("good2")
    assert t.node_of("bad") is None
    failed = s.failed["bad"]
    assert failed.errors == 3
    assert "plugin TCrash raised RuntimeError: kaboom" in failed.last_message
    logged = [r for r in caplog.records if "TCrash" in r.getMessage() and "default/bad" in r.getMessage()]
    assert len(logged) == 3
    assert all(r.exc_info and r.exc_info[0] is RuntimeError for r in logged)
    assert s.stats.errors == 3 and s.stats.scheduled == 2


# ---- post_filter ------------------------------------------------------------------------
def test_post_filter_only_when_no_node_fits(scheduler_tester) -> None:
    objs = [*nodes(3), pod("fits"), pod("never", labels={"fit": "never"})]
    t = scheduler_tester([TAllNo, TPost], objects=objs)
    t.settle(timeout=10)
    assert t.node_of("fits") is not None
    assert seen == ["post_filter:never:3"]
    assert t.events("never", "FailedScheduling") == [
        "0/3 nodes are available: 3 node(s) are never good enough. preemption: not eligible."
    ]


# ---- score ------------------------------------------------------------------------------
@pytest.mark.parametrize(("weight", "winner", "top"), [(1, "c", 100), (2, "a", 145)])
def test_scores_normalized_and_weighted(scheduler_tester, weight: int, winner: str, top: int) -> None:
    objs = [make_node("a", "2"), make_node("b", "4"), make_node("c", "8"), pod("p")]
    t = scheduler_tester([TCores, (TFavorite, weight)], objects=objs)
    t.settle(timeout=10)
    assert t.node_of("p") == winner
    rec = t.records("p")[-1]
    by_node = {t["node"]: t for t in rec.top_scores}
    assert by_node["a"] == {"node": "a", "total": 25 + 60 * weight, "plugins": {"TCores": 25, "TFavorite": 60 * weight}}
    assert by_node["b"]["total"] == 50
    assert by_node["c"]["total"] == 100
    assert rec.top_scores[0]["total"] == top


@pytest.mark.parametrize(
    ("plugin", "labels", "fragment"),
    [
        ("TBadScore", {}, 'plugin "TBadScore" returns an invalid score 101, it should in the range of [0, 100]'),
        ("TBadScore", {"bad": "shape"}, "returned shape (4,) for 3 nodes"),
        ("TBadNorm", {}, 'plugin "TBadNorm" returns an invalid score -5, it should in the range of [0, 100]'),
    ],
)
def test_score_validation_errors(scheduler_tester, plugin: str, labels: dict, fragment: str) -> None:
    t = scheduler_tester([plugin], objects=[*nodes(3), pod("p", labels=labels)], register=(TBadScore, TBadNorm), max_errors_per_pod=1)
    s = t.scheduler
    t.settle(timeout=10)
    assert t.node_of("p") is None
    assert fragment in s.failed["p"].last_message
    assert plugin in s.failed["p"].last_message
    assert t.records("p")[-1].result == "Error"


def _tie_placements(scheduler_tester, seed: int) -> dict[str, str | None]:
    objs = [*nodes(8), *(pod(f"p{i:02d}") for i in range(40))]
    t = scheduler_tester([TConst], objects=objs, seed=seed)
    t.settle(timeout=10)
    return {f"p{i:02d}": t.node_of(f"p{i:02d}") for i in range(40)}


def test_ties_broken_by_seeded_rng(scheduler_tester) -> None:
    first = _tie_placements(scheduler_tester, 7)
    again = _tie_placements(scheduler_tester, 7)
    other = _tie_placements(scheduler_tester, 8)
    assert first == again
    assert None not in first.values()
    assert len(set(first.values())) > 4  # ties really are spread, not always the first node
    assert first != other


# ---- reserve / permit / bind --------------------------------------------------------------
RESERVERS = ("TR1", "TR2", "TR3")
RESERVER_CLASSES = (TR1, TR2, TR3)
REVERSE_UNRESERVE = ["unreserve:TR3", "unreserve:TR2", "unreserve:TR1"]
ALL_RESERVE = ["reserve:TR1", "reserve:TR2", "reserve:TR3"]


def test_reserve_in_order_then_success(scheduler_tester) -> None:
    t = scheduler_tester([*RESERVER_CLASSES, TPostBind], objects=[*nodes(1), pod("p")])
    s = t.scheduler
    t.settle(timeout=10)
    assert seen == [*ALL_RESERVE, "post_bind:p:n0:n0"]
    assert t.node_of("p") == "n0"
    assert "p" in s.cluster.placement and "p" not in s.cluster.assumed  # confirmed by the informer
    assert "p" not in s.queue.entries


def test_reserve_failure_unreserves_all_in_reverse(scheduler_tester) -> None:
    t = scheduler_tester(RESERVER_CLASSES, objects=[*nodes(1), pod("p", labels={"fail-reserve": "TR2"})])
    s = t.scheduler
    t.settle(timeout=10)
    assert seen == ["reserve:TR1", "reserve:TR2", *REVERSE_UNRESERVE]
    assert "p" not in s.cluster.placement
    assert t.events("p", "FailedScheduling") == ["0/1 nodes are available: 1 no room in the reservation."]


def test_permit_deny_unreserves_in_reverse(scheduler_tester) -> None:
    t = scheduler_tester([*RESERVER_CLASSES, TDeny], objects=[*nodes(2), pod("p", labels={"deny": "yes"})])
    s = t.scheduler
    t.settle(timeout=10)
    assert seen == [*ALL_RESERVE, *REVERSE_UNRESERVE]
    assert t.node_of("p") is None
    assert "p" not in s.cluster.placement and "p" not in s.cluster.assumed
    assert not s.cluster.table.requested[:, s.cluster.table.resource_index["pods"]].any()
    entry = s.queue.entries["p"]
    assert entry.where == "unschedulable" and entry.unschedulable_plugins == frozenset({"TDeny"})
    assert t.events("p", "FailedScheduling") == ["0/1 nodes are available: 1 permit says no."]


def test_permit_plugin_raising_unreserves_and_forgets(scheduler_tester, caplog) -> None:
    t = scheduler_tester([*RESERVER_CLASSES, TPermitCrash], objects=[*nodes(1), pod("p", "1", labels={"crash": "permit"})], max_errors_per_pod=1)
    s = t.scheduler
    with caplog.at_level(logging.ERROR):
        t.settle(timeout=10)
    assert seen == [*ALL_RESERVE, *REVERSE_UNRESERVE]
    assert "p" not in s.cluster.placement and "p" not in s.cluster.assumed
    assert not s.cluster.table.requested.any()
    assert "permit exploded" in s.failed["p"].last_message
    assert any(r.exc_info for r in caplog.records)


def test_bind_failure_unreserves_in_reverse_then_retries(scheduler_tester) -> None:
    t = scheduler_tester([*RESERVER_CLASSES, TFlakyBinder, TPostBind], objects=[*nodes(1), pod("p")], base=("PrioritySort",))
    s = t.scheduler
    t.settle(timeout=10)
    assert seen == [
        *ALL_RESERVE, "bind:fail", *REVERSE_UNRESERVE,
        *ALL_RESERVE, "bind:ok", "post_bind:p:n0:n0",
    ]
    assert t.node_of("p") == "n0"
    assert s.stats.bind_failures == 1 and s.stats.scheduled == 1
    assert int(s.cluster.table.requested[0, s.cluster.table.resource_index["pods"]]) == 1  # counted once


def test_permit_wait_then_allowed_by_another_plugin(scheduler_tester) -> None:
    objs = [*nodes(2), pod("w", labels={"wait": "30"}), pod("r", labels={"release": "yes", "targets": "w"})]
    t = scheduler_tester([*RESERVER_CLASSES, TWaiter, TReleaser, TPostBind], objects=objs)
    s = t.scheduler
    t.settle(timeout=10)
    assert t.node_of("w") is not None and t.node_of("r") is not None
    assert seen.index("wait:w") < seen.index("allow:w")
    post_w = next(e for e in seen if e.startswith("post_bind:w:"))
    assert seen.index("allow:w") < seen.index(post_w)
    assert not any(e.startswith("unreserve") for e in seen)
    assert s.waiting_pods == {}


def test_permit_waits_for_every_waiting_plugin(scheduler_tester) -> None:
    """Allowing at one plugin is not enough while another still waits; then it times out there."""
    objs = [*nodes(1), pod("w", labels={"wait": "30", "wait2": "0.3"}),
            pod("r", labels={"release": "yes", "targets": "w"})]
    t = scheduler_tester([*RESERVER_CLASSES, TWaiter, TWaiter2, TReleaser], objects=objs)
    s = t.scheduler
    t.settle(timeout=10)
    assert t.node_of("r") == "n0"
    assert t.node_of("w") is None
    assert t.events("w", "FailedScheduling") == ["0/1 nodes are available: 1 rejected due to timeout after waiting 300ms at plugin TWaiter2."]
    assert s.queue.entries["w"].unschedulable_plugins == frozenset({"TWaiter2"})


def test_permit_wait_timeout_rejects_and_unreserves(scheduler_tester) -> None:
    t = scheduler_tester([*RESERVER_CLASSES, TWaiter], objects=[*nodes(1), pod("w", "1", labels={"wait": "0.2"})])
    s = t.scheduler
    t.settle(timeout=10)
    assert seen == [*ALL_RESERVE, "wait:w", *REVERSE_UNRESERVE]
    assert t.node_of("w") is None
    assert t.events("w", "FailedScheduling") == ["0/1 nodes are available: 1 rejected due to timeout after waiting 200ms at plugin TWaiter."]
    assert "w" not in s.cluster.placement
    assert not s.cluster.table.requested.any()
    entry = s.queue.entries["w"]
    assert entry.where == "unschedulable" and entry.unschedulable_plugins == frozenset({"TWaiter"})
    assert s.waiting_pods == {}


def test_permit_reject_from_another_plugin(scheduler_tester) -> None:
    objs = [*nodes(2), pod("w", labels={"wait": "30"}), pod("r", labels={"reject": "others"})]
    t = scheduler_tester([*RESERVER_CLASSES, TWaiter, TRejecter], objects=objs)
    s = t.scheduler
    t.settle(timeout=10)
    assert t.node_of("w") is None and t.node_of("r") is not None
    # r's binding is an assigned pod added (AssignedPodAdd), and TRejecter registers no events, so it is
    # interested in every event: w is retried, waits at TWaiter again and times out (as kube-scheduler would).
    assert t.events("w", "FailedScheduling") == [
        "0/1 nodes are available: 1 gang member failed.",
        "0/1 nodes are available: 1 rejected due to timeout after waiting 30s at plugin TWaiter.",
    ]
    assert s.queue.entries["w"].unschedulable_plugins == frozenset({"TWaiter"})
    assert seen.count("unreserve:TR1") == 2  # only w was unreserved, once per attempt
    assert "w" not in s.cluster.placement


def test_bind_skip_chain(scheduler_tester) -> None:
    t = scheduler_tester([TBindSkip, TBindOK, TBindNever, TPostBind], objects=[*nodes(1), pod("p")], base=("PrioritySort",))
    t.settle(timeout=10)
    assert seen == ["bind:TBindSkip", "bind:TBindOK", "post_bind:p:n0:n0"]
    assert t.node_of("p") == "n0"


def test_all_binders_skip_is_error(scheduler_tester) -> None:
    t = scheduler_tester([*RESERVER_CLASSES, TBindSkip, TPostBind], objects=[*nodes(1), pod("p")], base=("PrioritySort",), max_errors_per_pod=1)
    s = t.scheduler
    t.settle(timeout=10)
    assert seen == [*ALL_RESERVE, "bind:TBindSkip", *REVERSE_UNRESERVE]  # no post_bind
    assert t.node_of("p") is None
    assert "all returned Skip" in s.failed["p"].last_message
    assert "p" not in s.cluster.placement


# ---- queueing through the scheduler -------------------------------------------------------
def test_scheduling_gates_hold_pod_until_removed(scheduler_tester) -> None:
    gated = pod("g", schedulingGates=[{"name": "example.com/hold"}])
    t = scheduler_tester(["SchedulingGates"], objects=[*nodes(1), gated, pod("free")])
    s, b = t.scheduler, t.backend
    t.settle(timeout=10)
    assert t.node_of("free") == "n0"
    assert t.node_of("g") is None
    assert t.records("g") == []  # never attempted
    assert s.queue.entries["g"].where == "gated"
    b.apply(pod("g", schedulingGates=[{"name": "example.com/other"}]))
    t.settle(timeout=10)
    assert t.records("g") == [] and s.queue.entries["g"].where == "gated"
    b.apply(pod("g"))
    t.settle(timeout=10)
    assert t.node_of("g") == "n0"
    assert len(t.records("g")) == 1


def test_unschedulable_pod_scheduled_after_node_added(scheduler_tester) -> None:
    t = scheduler_tester(["NodeResourcesFit"], objects=[*nodes(2), pod("big", "8")])
    s, b = t.scheduler, t.backend
    t.settle(timeout=10)
    assert t.events("big", "FailedScheduling") == ["0/2 nodes are available: 2 Insufficient cpu."]
    assert s.queue.entries["big"].where == "unschedulable"
    b.apply(make_node("huge", "16", "32Gi"))
    t.settle(timeout=10)
    assert t.node_of("big") == "huge"
    assert "big" not in s.queue.entries


def test_requeue_only_on_events_the_rejecting_plugin_wants(scheduler_tester) -> None:
    t = scheduler_tester([TNeedsLabel], objects=[make_node("n0"), pod("p")])
    s, b = t.scheduler, t.backend
    t.settle(timeout=10)
    assert len(t.records("p")) == 1
    b.apply(make_node("n1"))  # Node/Add: TNeedsLabel does not care
    b.apply(make_pod("other", "100m", uid="other", nodeName="n0"))  # Pod/Add
    t.settle(timeout=10)
    assert len(t.records("p")) == 1
    assert s.queue.entries["p"].where == "unschedulable"
    b.apply(make_node("n1", labels={"ready": "yes"}))  # Node/Update
    t.settle(timeout=10)
    assert t.node_of("p") == "n1"
    assert len(t.records("p")) == 2


# ---- sampling ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("num_nodes", "percentage", "expected"),
    [
        (50, None, 50),
        (99, 0, 99),
        (100, None, 100),
        (1000, None, 420),
        (5000, None, 500),
        (10000, None, 500),
        (100000, None, 5000),
        (1000, 10, 100),
        (1000, 5, 100),  # never fewer than 100
        (5000, 30, 1500),
        (5000, 100, 5000),
    ],
)
def test_num_feasible_nodes_to_find(num_nodes: int, percentage: int | None, expected: int) -> None:
    assert num_feasible_nodes_to_find(num_nodes, percentage) == expected


@pytest.mark.parametrize(
    ("profile", "top", "expected"),
    [
        ({"percentageOfNodesToScore": 20}, {}, 100),
        ({}, {"percentageOfNodesToScore": 30}, 150),
        ({}, {}, 230),  # adaptive: 50 - 500/125 = 46%
        ({"percentageOfNodesToScore": 100}, {"percentageOfNodesToScore": 10}, 500),
    ],
)
def test_percentage_of_nodes_to_score(scheduler_tester, profile: dict, top: dict, expected: int) -> None:
    objs = [*nodes(500), pod("p1"), pod("p2")]
    t = scheduler_tester([TCountFilter, TLast], objects=objs, percentage_of_nodes_to_score=profile.get("percentageOfNodesToScore"), **top)
    s = t.scheduler
    t.settle(timeout=10)
    r1, r2 = t.records("p1")[-1], t.records("p2")[-1]
    assert r1.feasible_nodes == expected and r1.evaluated_nodes == expected
    # the next cycle starts where this one stopped (kube-scheduler's nextStartNodeIndex)
    assert s.next_start_index == (2 * expected) % 500
    if expected < 500:
        assert t.node_of("p1") != "n499"  # the best node was outside the sample
        assert int(t.node_of("p1")[1:]) < expected
    else:
        assert t.node_of("p1") == "n499"
    assert r2.feasible_nodes == expected


# ---- per-node forms --------------------------------------------------------------------------
def _slow_vs_fast(scheduler_tester, filter_plugin: str, score_plugin: str) -> tuple[dict, list[str]]:
    objs = [
        make_node(f"n{i}", "2", "8Gi", labels={"rank": str(r), **({"bad": "yes"} if i in (1, 4) else {})})
        for i, r in enumerate([5, 90, 40, 70, 99, 10])
    ]
    objs += [pod(f"p{i}", "1") for i in range(7)] + [pod("huge", "3")]
    t = scheduler_tester([filter_plugin, score_plugin, "NodeResourcesFit"], objects=objs, register=(TSlowFilter, TSlowScore, TFastFilter, TFastScore), seed=3)
    t.settle(timeout=10)
    placements = {f"p{i}": t.node_of(f"p{i}") for i in range(7)}
    return placements, t.events("huge", "FailedScheduling")


def test_per_node_forms_match_batch(scheduler_tester) -> None:
    slow = _slow_vs_fast(scheduler_tester, "TSlowFilter", "TSlowScore")
    fast = _slow_vs_fast(scheduler_tester, "TFastFilter", "TFastScore")
    assert slow == fast
    placements, messages = slow
    assert "n1" not in placements.values() and "n4" not in placements.values()
    assert list(placements.values()).count("n3") == 2  # rank 70 is the best good node
    assert messages == ["0/6 nodes are available: 2 node is bad, 4 Insufficient cpu."]


# ---- default profile ------------------------------------------------------------------------
def test_impossible_pod_default_profile(scheduler_tester) -> None:
    t = scheduler_tester(default_plugins=True, seed=1)
    t.add(*nodes(3), make_pod("huge", "100", uid="huge", schedulerName=t.framework.profile))
    t.settle(timeout=10)
    s, backend = t.scheduler, t.backend
    expected = "0/3 nodes are available: 3 Insufficient cpu."
    notes = [e["note"] for e in backend.events if e["reason"] == "FailedScheduling"]
    assert len(notes) == 1
    # DefaultPreemption (when installed) appends its own sentence after the filter histogram.
    assert notes[0] == expected or notes[0].startswith(expected + " preemption: ")
    assert s.records[-1].result == "Unschedulable"
    assert s.queue.entries["huge"].where == "unschedulable"
    assert Code.UNSCHEDULABLE  # the code module is part of the public API used above


class TPreSeen:
    """Records that its pre_filter ran."""

    name = "TPreSeen"

    @hookimpl
    def pre_filter(self, pod: PodInfo) -> None:
        seen.append(f"pre_filter:{self.name}:{pod.name}")


def test_pre_filter_unschedulable_lets_later_pre_filters_run(scheduler_tester) -> None:
    """kube-scheduler runs the remaining pre_filters after an Unschedulable (not after UnschedulableAndUnresolvable)."""
    t = scheduler_tester([TPreReject, TPreSeen], objects=[*nodes(2), pod("no", labels={"reject": "pre"})])
    t.settle(timeout=10)
    assert "pre_filter:TPreSeen:no" in seen
    assert t.events("no", "FailedScheduling") == ["0/2 nodes are available: pod is not welcome here."]


# ---- a pod deleted while binding: its failed binding still frees what it reserved --------------
GONE: dict[str, Any] = {}


def _wait(check: Any, what: str) -> None:
    deadline = time.monotonic() + 10
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


class TReserving:
    """preemption_test.go's reservingPlugin: the others fail Filter while "v" holds its reservation."""

    name = "TReserving"
    requeue_on = ("Pod/Delete",)

    def __init__(self) -> None:
        self.reserved = False

    @hookimpl
    def filter_node(self, pod: PodInfo) -> Status | None:
        return Status.unschedulable("resources are reserved") if self.reserved and pod.name != "v" else None

    @hookimpl
    def reserve(self, pod: PodInfo) -> None:
        self.reserved = self.reserved or pod.name == "v"

    @hookimpl
    def unreserve(self, pod: PodInfo) -> None:
        self.reserved = self.reserved and pod.name != "v"


class TGoneBinder:
    """Binds "v" only after "w" was found unschedulable and "v" was deleted (and the cache saw it): the API
    answers NotFound, as a victim deleted while blocked in binding."""

    name = "TGoneBinder"

    @hookimpl
    def bind(self, pod: PodInfo, node_name: str, handle) -> Status:
        if pod.name != "v":
            return handle.bind(pod, node_name)
        t = GONE["tester"]
        s = t.scheduler
        _wait(lambda: getattr(s.queue.entries.get("w"), "where", "") == "unschedulable", "w unschedulable")
        t.delete("Pod", "default/v")
        _wait(lambda: "v" not in s.cluster.pods and s.queue.entries["w"].where == "unschedulable"
              and s.queue.entries["w"].attempts >= 2, "v gone from the cache and w retried")
        return Status.error("pods \"v\" not found", err=PodGone(pod.key))


def test_binding_of_a_pod_deleted_meanwhile_moves_the_pods_it_held_back(scheduler_tester) -> None:
    """TestAsyncPreemption's "victim blocked in binding ... deleted and its resources are unreserved": kube-scheduler's
    handleBindingCycleError forgets the pod (a no-op: its deletion removed it) and moves the unschedulable pods with
    an AssignedPodDelete event, which is when the pod's reservation is released (Unreserve)."""
    t = scheduler_tester([TReserving, TGoneBinder], objects=[*nodes(1), pod("v", priority=10), pod("w")],
                         base=("PrioritySort",))
    GONE["tester"] = t
    try:
        t.settle(timeout=20)
    finally:
        GONE.clear()
    assert t.node_of("w") == "n0"
