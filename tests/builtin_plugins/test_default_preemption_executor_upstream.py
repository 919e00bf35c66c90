"""DefaultPreemption's record of running preemptions: kube-scheduler v1.37.2's framework/preemption
executor_test.go TestIsPodRunningPreemption and TestIsPodGroupRunningPreemption, case by case.

The Go test sets the Executor's preempting set and last pending victims and fills its pod lister; here
DefaultPreemption's own (`_preempting`, `_last_victim`: the preemptor's key -> its last victim's uid, the
victims' UIDs being their names in these tables) and the cluster cache the scheduler reads pods from.
"""

from __future__ import annotations

from typing import Any

import pytest
import st
from kubeberth.builtin_plugins.default_preemption import DefaultPreemption
from upstream import cases, snapshot

midPriority = 100


class sets:  # noqa: N801
    @staticmethod
    def New(*items: str) -> set[str]:  # noqa: N802
        return set(items)


victim1 = (st.MakePod().Namespace("ns").Name("victim1").UID("victim1")
           .Node("node").SchedulerName("sch").Priority(midPriority)
           .Containers([st.MakeContainer().Name("container1").Obj()])
           .Obj())
victim2 = (st.MakePod().Namespace("ns").Name("victim2").UID("victim2")
           .Node("node").SchedulerName("sch").Priority(midPriority)
           .Containers([st.MakeContainer().Name("container1").Obj()])
           .Obj())
victimWithDeletionTimestamp = (st.MakePod().Namespace("ns").Name("victim-deleted").UID("victim-deleted")
                               .Node("node").SchedulerName("sch").Priority(midPriority)
                               .Terminating()
                               .Containers([st.MakeContainer().Name("container1").Obj()])
                               .Obj())

TestIsPodRunningPreemption = [
    {
        "name": "TestIsPodRunningPreemption/preemptor not in preemptingSet",
        "preemptorUID":   "preemptor",
        "preemptingSet":  sets.New(),
        "lastVictimSet":  {},
        "expectedResult": False,
    },
    {
        "name": "TestIsPodRunningPreemption/preemptor not in preemptingSet, lastVictimSet not empty",
        "preemptorUID":  "preemptor",
        "preemptingSet": sets.New(),
        "lastVictimSet": {
            "preemptor": {
                "namespace": "ns",
                "name": "victim1",
            },
        },
        "expectedResult": False,
    },
    {
        "name": "TestIsPodRunningPreemption/preemptor in preemptingSet, no lastVictim for preemptor",
        "preemptorUID":  "preemptor",
        "preemptingSet": sets.New("preemptor"),
        "lastVictimSet": {
            "otherPod": {
                "namespace": "ns",
                "name": "victim1",
            },
        },
        "expectedResult": True,
    },
    {
        "name": "TestIsPodRunningPreemption/preemptor in preemptingSet, victim in lastVictimSet, not in PodLister",
        "preemptorUID":  "preemptor",
        "preemptingSet": sets.New("preemptor"),
        "lastVictimSet": {
            "preemptor": {
                "namespace": "ns",
                "name": "victim1",
            },
        },
        "podsInPodLister": {},
        "expectedResult":  False,
    },
    {
        "name": "TestIsPodRunningPreemption/preemptor in preemptingSet, victim in lastVictimSet and in PodLister",
        "preemptorUID":  "preemptor",
        "preemptingSet": sets.New("preemptor"),
        "lastVictimSet": {
            "preemptor": {
                "namespace": "ns",
                "name": "victim1",
            },
        },
        "podsInPodLister": {
            "victim1": victim1,
            "victim2": victim2,
        },
        "expectedResult": True,
    },
    {
        "name": "TestIsPodRunningPreemption/preemptor in preemptingSet, victim in lastVictimSet and in PodLister with deletion timestamp",
        "preemptorUID":  "preemptor",
        "preemptingSet": sets.New("preemptor"),
        "lastVictimSet": {
            "preemptor": {
                "namespace": "ns",
                "name": "victim-deleted",
            },
        },
        "podsInPodLister": {
            "victim1":        victim1,
            "victim-deleted": victimWithDeletionTimestamp,
        },
        "expectedResult": False,
    }
]

TestIsPodGroupRunningPreemption = [
    {
        "name": "TestIsPodGroupRunningPreemption/preemptor not in preemptingSet",
        "preemptorID":    "preemptor",
        "preemptingSet":  sets.New(),
        "lastVictimSet":  {},
        "expectedResult": False,
    },
    {
        "name": "TestIsPodGroupRunningPreemption/preemptor not in preemptingSet, lastVictimSet not empty",
        "preemptorID":   "preemptor",
        "preemptingSet": sets.New(),
        "lastVictimSet": {
            "preemptor": {
                "namespace": "ns",
                "name": "victim1",
            },
        },
        "expectedResult": False,
    },
    {
        "name": "TestIsPodGroupRunningPreemption/preemptor in preemptingSet, no lastVictim for preemptor",
        "preemptorID":   "preemptor",
        "preemptingSet": sets.New("preemptor"),
        "lastVictimSet": {
            "otherPod": {
                "namespace": "ns",
                "name": "victim1",
            },
        },
        "expectedResult": True,
    },
    {
        "name": "TestIsPodGroupRunningPreemption/preemptor in preemptingSet, victim in lastVictimSet, not in PodLister",
        "preemptorID":   "preemptor",
        "preemptingSet": sets.New("preemptor"),
        "lastVictimSet": {
            "preemptor": {
                "namespace": "ns",
                "name": "victim1",
            },
        },
        "podsInPodLister": {},
        "expectedResult":  False,
    },
    {
        "name": "TestIsPodGroupRunningPreemption/preemptor in preemptingSet, victim in lastVictimSet and in PodLister",
        "preemptorID":   "preemptor",
        "preemptingSet": sets.New("preemptor"),
        "lastVictimSet": {
            "preemptor": {
                "namespace": "ns",
                "name": "victim1",
            },
        },
        "podsInPodLister": {
            "victim1": victim1,
            "victim2": victim2,
        },
        "expectedResult": True,
    },
    {
        "name": "TestIsPodGroupRunningPreemption/preemptor in preemptingSet, victim in lastVictimSet and in PodLister with deletion timestamp",
        "preemptorID":   "preemptor",
        "preemptingSet": sets.New("preemptor"),
        "lastVictimSet": {
            "preemptor": {
                "namespace": "ns",
                "name": "victim-deleted",
            },
        },
        "podsInPodLister": {
            "victim1":        victim1,
            "victim-deleted": victimWithDeletionTimestamp,
        },
        "expectedResult": False,
    }
]


def plugin_with(tt: dict[str, Any], key: Any) -> tuple[DefaultPreemption, Any]:
    """DefaultPreemption with the table's preempting set and last victims, and its pods in the cache."""
    cluster = snapshot(list((tt.get("podsInPodLister") or {}).values()), [st.MakeNode().Name("node").Obj()])
    pl = DefaultPreemption()
    pl._preempting = {key(u) for u in tt["preemptingSet"]}
    pl._last_victim = {key(u): v["name"] for u, v in tt["lastVictimSet"].items()}
    return pl, cluster


@pytest.mark.parametrize("tt", cases(TestIsPodRunningPreemption))
def test_is_pod_running_preemption(tt: dict[str, Any]) -> None:
    a, cluster = plugin_with(tt, lambda uid: uid)
    assert a.is_pod_running_preemption(tt["preemptorUID"], cluster) is tt["expectedResult"]


@pytest.mark.parametrize("tt", cases(TestIsPodGroupRunningPreemption))
def test_is_pod_group_running_preemption(tt: dict[str, Any]) -> None:
    # A PodGroup's running preemption is kept under "podgroup:<uid>" (pod and group UIDs never mix).
    a, cluster = plugin_with(tt, lambda uid: f"podgroup:{uid}")
    assert a.is_pod_group_running_preemption(tt["preemptorID"], cluster) is tt["expectedResult"]
