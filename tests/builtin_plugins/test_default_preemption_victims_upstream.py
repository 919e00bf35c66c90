"""Workload-aware preemption's building blocks: kube-scheduler v1.37.2's framework/preemption util_test.go
TestFilterVictimsWithPDBViolation and TestMoreImportantVictim, and types_test.go
TestNewPodGroupPreemptorResolvesPreemptionPolicy, case by case, against DefaultPreemption's counterparts
(default_preemption/victims.py, default_preemption/podgroup.py). The CompositePodGroup cases are listed
in upstream_unported.py.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
import st
from kubeberth.api.placement import PodGroupInfo
from kubeberth.builtin_plugins.default_preemption import (
    PDB,
    Victim,
    VictimKind,
    filter_victims_with_pdb_violation,
    more_important_victim,
)
from kubeberth.builtin_plugins.default_preemption.podgroup import PodGroupPreemptor
from upstream import cases, pod_info

_KIND = {"pod": VictimKind.POD, "podgroup": VictimKind.POD_GROUP, "compositepodgroup": None}


class fwk:  # noqa: N801 - the EntityKeyTypes
    PodKeyType = "pod"
    PodGroupKeyType = "podgroup"
    CompositePodGroupKeyType = "compositepodgroup"


class metav1:  # noqa: N801
    NamespaceDefault = "default"


def newPodInfo(p: dict[str, Any]) -> Any:  # noqa: N802
    return pod_info(p)


def victim(pods: list[Any] | None = None, keyType: str = "pod", priority: int = 0,  # noqa: N803
           earliestStartTime: float | None = None) -> Victim | None:  # noqa: N803
    """The Go test's &victim{...} literal: its pods (no node needed), priority, key type and earliest start."""
    kind = _KIND[keyType]
    if kind is None:
        return None  # a CompositePodGroup victim (excluded cases only)
    start = float("inf") if earliestStartTime is None else earliestStartTime
    return Victim(tuple((p, -1) for p in pods or ()), priority, kind, start)


def pdb(selector: dict[str, Any] | None, allowed: int = 0, disrupted: tuple[str, ...] = ()) -> PDB:
    """A policy.PodDisruptionBudget in the default namespace (ObjectMeta{Namespace: NamespaceDefault})."""
    return PDB("default", selector, allowed, frozenset(disrupted))


# ---- TestFilterVictimsWithPDBViolation ---------------------------------------------------------------

viNoPDBMatch = victim([newPodInfo(st.MakePod().Name("p1").Label("app", "foo").Obj())], fwk.PodKeyType)
viMatchPDB = victim([newPodInfo(st.MakePod().Name("p1").Namespace(metav1.NamespaceDefault).Label("app", "foo").Obj())], fwk.PodKeyType)
viMatchPDB2 = victim([newPodInfo(st.MakePod().Name("p2").Namespace(metav1.NamespaceDefault).Label("app", "foo").Obj())], fwk.PodKeyType)
viPodGroup = victim([
    newPodInfo(st.MakePod().Name("p1").Namespace(metav1.NamespaceDefault).Label("app", "foo").Obj()),
    newPodInfo(st.MakePod().Name("p2").Namespace(metav1.NamespaceDefault).Label("app", "foo").Obj()),
], fwk.PodKeyType)
viMatchMultiplePDBs = victim([newPodInfo(
    st.MakePod().Name("p1").Namespace(metav1.NamespaceDefault).Label("app", "foo").Label("tier", "backend").Obj()
)], fwk.PodKeyType)
foo, bar, backend = {"matchLabels": {"app": "foo"}}, {"matchLabels": {"app": "bar"}}, {"matchLabels": {"tier": "backend"}}

TestFilterVictimsWithPDBViolation = [
    {"name": "TestFilterVictimsWithPDBViolation/no victims, no PDBs",
     "victims": [], "pdbs": [], "expectedViolating": [], "expectedNonViolating": []},
    {"name": "TestFilterVictimsWithPDBViolation/victim with no matching PDBs",
     "victims": [viNoPDBMatch], "pdbs": [pdb(bar)], "expectedViolating": [], "expectedNonViolating": [viNoPDBMatch]},
    {"name": "TestFilterVictimsWithPDBViolation/victim matching PDB, adequate DisruptionsAllowed",
     "victims": [viMatchPDB], "pdbs": [pdb(foo, 1)], "expectedViolating": [], "expectedNonViolating": [viMatchPDB]},
    {"name": "TestFilterVictimsWithPDBViolation/victim matching PDB, no DisruptionsAllowed",
     "victims": [viMatchPDB], "pdbs": [pdb(foo, 0)], "expectedViolating": [(viMatchPDB, 1)], "expectedNonViolating": []},
    {"name": "TestFilterVictimsWithPDBViolation/podgroup victim with multiple pods, all violating",
     "victims": [viPodGroup], "pdbs": [pdb(foo, 0)], "expectedViolating": [(viPodGroup, 2)], "expectedNonViolating": []},
    {"name": "TestFilterVictimsWithPDBViolation/podgroup victim with multiple pods, none violating",
     "victims": [viPodGroup], "pdbs": [pdb(foo, 2)], "expectedViolating": [], "expectedNonViolating": [viPodGroup]},
    {"name": "TestFilterVictimsWithPDBViolation/multiple victims matching the same PDB",
     "victims": [viMatchPDB, viMatchPDB2], "pdbs": [pdb(foo, 1)],
     "expectedViolating": [(viMatchPDB2, 1)], "expectedNonViolating": [viMatchPDB]},
    {"name": "TestFilterVictimsWithPDBViolation/pod in DisruptedPods is ignored",
     "victims": [viMatchPDB], "pdbs": [pdb(foo, 0, ("p1",))], "expectedViolating": [], "expectedNonViolating": [viMatchPDB]},
    {"name": "TestFilterVictimsWithPDBViolation/PDB with empty selector",
     "victims": [viMatchPDB], "pdbs": [pdb({}, 0)], "expectedViolating": [], "expectedNonViolating": [viMatchPDB]},
    {"name": "TestFilterVictimsWithPDBViolation/Multiple PDBs",
     "victims": [viMatchMultiplePDBs], "pdbs": [pdb(foo, 1), pdb(backend, 0)],
     "expectedViolating": [(viMatchMultiplePDBs, 1)], "expectedNonViolating": []},
]


@pytest.mark.parametrize("tt", cases(TestFilterVictimsWithPDBViolation))
def test_filter_victims_with_pdb_violation(tt: dict[str, Any]) -> None:
    violating, nonViolating = filter_victims_with_pdb_violation(tt["victims"], tt["pdbs"])
    # cmp.Comparer on *victim: the same victims (by identity), in order, with the same counts
    assert [(id(v), n) for v, n in violating] == [(id(v), n) for v, n in tt["expectedViolating"]]
    assert [id(v) for v in nonViolating] == [id(v) for v in tt["expectedNonViolating"]]


# ---- TestMoreImportantVictim --------------------------------------------------------------------------

now = datetime.fromtimestamp(1000, UTC).timestamp() * 1e9  # time.Unix(1000, 0), in nanoseconds
before = datetime.fromtimestamp(500, UTC).timestamp() * 1e9


def _pg() -> Any:
    return newPodInfo(st.MakePod().PodGroupName("pg").Obj())


def _pod() -> Any:
    return newPodInfo(st.MakePod().Obj())


TestMoreImportantVictim = [
    {"name": "TestMoreImportantVictim/vi1 has higher priority",
     "vi1": victim(priority=20, keyType=fwk.PodKeyType), "vi2": victim(priority=10, keyType=fwk.PodKeyType), "want": True},
    {"name": "TestMoreImportantVictim/vi2 has higher priority",
     "vi1": victim(priority=10, keyType=fwk.PodKeyType), "vi2": victim(priority=20, keyType=fwk.PodKeyType), "want": False},
    {"name": "TestMoreImportantVictim/vi1 is PG, vi2 is Pod, same priority",
     "vi1": victim([_pg()], fwk.PodGroupKeyType, 10), "vi2": victim([_pod()], fwk.PodKeyType, 10), "want": True},
    {"name": "TestMoreImportantVictim/vi1 is Pod, vi2 is PG, same priority",
     "vi1": victim([_pod()], fwk.PodKeyType, 10), "vi2": victim([_pg()], fwk.PodGroupKeyType, 10), "want": False},
    {"name": "TestMoreImportantVictim/both Pods, vi1 older",
     "vi1": victim([_pod()], fwk.PodKeyType, 10, before), "vi2": victim([_pod()], fwk.PodKeyType, 10, now), "want": True},
    {"name": "TestMoreImportantVictim/both Pods, vi2 older",
     "vi1": victim([_pod()], fwk.PodKeyType, 10, now), "vi2": victim([_pod()], fwk.PodKeyType, 10, before), "want": False},
    {"name": "TestMoreImportantVictim/both PGs, vi1 larger",
     "vi1": victim([_pg(), _pg()], fwk.PodGroupKeyType, 10), "vi2": victim([_pg()], fwk.PodGroupKeyType, 10), "want": True},
    {"name": "TestMoreImportantVictim/both PGs, vi2 larger",
     "vi1": victim([_pg()], fwk.PodGroupKeyType, 10), "vi2": victim([_pg(), _pg()], fwk.PodGroupKeyType, 10), "want": False},
    {"name": "TestMoreImportantVictim/both PGs, same size, vi1 older",
     "vi1": victim([_pg(), _pg()], fwk.PodGroupKeyType, 10, before),
     "vi2": victim([_pg(), _pg()], fwk.PodGroupKeyType, 10, now), "want": True},
    {"name": "TestMoreImportantVictim/both PGs, same size, vi2 older",
     "vi1": victim([_pg(), _pg()], fwk.PodGroupKeyType, 10, now),
     "vi2": victim([_pg(), _pg()], fwk.PodGroupKeyType, 10, before), "want": False},
    *({"name": f"TestMoreImportantVictim/{name}", "vi1": None, "vi2": None, "want": None} for name in (
        "CPG vs Pod, same priority (CPG wins)",
        "Pod vs CPG, same priority (CPG wins)",
        "CPG vs PG, same priority (CPG wins)",
        "PG vs CPG, same priority (CPG wins)",
        "CPG vs PG, PG higher priority (higher priority wins)",
        "PG vs CPG, PG higher priority (higher priority wins)",
        "CPG vs PG, CPG smaller size, same priority (CPG rank wins over size)",
        "CPG vs PG, CPG newer start time, same priority (CPG rank wins over start time)",
        "both CPGs, vi1 larger (larger size wins)",
        "both CPGs, vi2 larger (larger size wins)",
        "both CPGs, same size, vi1 older (earlier start time wins)",
        "both CPGs, same size, vi2 older (earlier start time wins)",
    )),
]


@pytest.mark.parametrize("tt", cases(TestMoreImportantVictim))
def test_more_important_victim(tt: dict[str, Any]) -> None:
    assert more_important_victim(tt["vi1"], tt["vi2"]) is tt["want"]


# ---- TestNewPodGroupPreemptorResolvesPreemptionPolicy ------------------------------------------------

preemptNeverPod = st.MakePod().Name("p-never").PreemptionPolicy("Never").Obj()
preemptLowerPriorityPod = st.MakePod().Name("p-lower").PreemptionPolicy("PreemptLowerPriority").Obj()
noPolicyPod = st.MakePod().Name("p-nil").Obj()

TestNewPodGroupPreemptorResolvesPreemptionPolicy = [
    {"name": "TestNewPodGroupPreemptorResolvesPreemptionPolicy/PreemptionPolicy PreemptNever is resolved from PodGroup, "
             "ignoring policy in pod, with PodGroupPreemptionPolicy enabled",
     "pg": st.MakePodGroup().Name("pg").PreemptionPolicy("Never").Obj(),
     "pods": [preemptLowerPriorityPod], "enablePodGroupPreemptionPolicy": True, "wantPolicy": "Never"},
    {"name": "TestNewPodGroupPreemptorResolvesPreemptionPolicy/PreemptionPolicy PreemptLowerPriority is resolved from "
             "PodGroup, ignoring different policies in pods, with PodGroupPreemptionPolicy enabled",
     "pg": st.MakePodGroup().Name("pg").PreemptionPolicy("PreemptLowerPriority").Obj(),
     "pods": [preemptLowerPriorityPod, noPolicyPod], "enablePodGroupPreemptionPolicy": True,
     "wantPolicy": "PreemptLowerPriority"},
    {"name": "TestNewPodGroupPreemptorResolvesPreemptionPolicy/PreemptionPolicy is resolved from pods with "
             "PodGroupPreemptionPolicy disabled",
     "pg": st.MakePodGroup().Name("pg").PreemptionPolicy("Never").Obj(),
     "pods": [preemptLowerPriorityPod], "enablePodGroupPreemptionPolicy": False, "wantPolicy": "PreemptLowerPriority"},
    {"name": "TestNewPodGroupPreemptorResolvesPreemptionPolicy/PreemptionPolicy is resolved from pods when multiple "
             "pods have different policies, with PodGroupPreemptionPolicy disabled",
     "pg": st.MakePodGroup().Name("pg").PreemptionPolicy("PreemptLowerPriority").Obj(),
     "pods": [preemptNeverPod, preemptLowerPriorityPod, noPolicyPod], "enablePodGroupPreemptionPolicy": False,
     "wantPolicy": "Never"},
    *({"name": f"TestNewPodGroupPreemptorResolvesPreemptionPolicy/{name}"} for name in (
        "PreemptionPolicy is resolved from pods when CompositePodGroup is active: PreemptLowerPriority when no pod is "
        "PreemptNever",
        "PreemptionPolicy is resolved from pods when CompositePodGroup is active: PreemptNever when any pod is "
        "PreemptNever",
        "PreemptionPolicy PreemptNever is resolved from CompositePodGroup, ignoring policy in pod, with "
        "PodGroupPreemptionPolicy enabled",
        "PreemptionPolicy PreemptLowerPriority is resolved from CompositePodGroup, ignoring different policies in "
        "pods, with PodGroupPreemptionPolicy enabled",
        "PreemptionPolicy is resolved from pods when CompositePodGroup has policy but PodGroupPreemptionPolicy is "
        "disabled",
        "PreemptionPolicy defaults to PreemptLowerPriority when CompositePodGroup has no policy set with "
        "PodGroupPreemptionPolicy enabled, even if pods are PreemptNever",
    )),
]


@pytest.mark.parametrize("tt", cases(TestNewPodGroupPreemptorResolvesPreemptionPolicy))
def test_new_pod_group_preemptor_resolves_preemption_policy(tt: dict[str, Any]) -> None:
    info = PodGroupInfo("", "pg", tt["pg"], tuple(pod_info(p) for p in tt["pods"]))
    preemptor = PodGroupPreemptor.of(info, tt["enablePodGroupPreemptionPolicy"])
    assert preemptor.preemption_policy == tt["wantPolicy"]
