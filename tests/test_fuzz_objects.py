"""Property-based fuzzing of what the scheduler reads from the cluster: arbitrary JSON-valid Pods,
Nodes, PersistentVolumeClaims, PodGroups and ResourceClaims through parsing and through the
default profile on the embedded backend.

Each object starts from a valid one and has fields replaced by arbitrary JSON (wrong types,
missing keys, huge or negative numbers, bad quantities, unicode). The fields are those the
scheduler reads (the shapes in kubeberth.cache.shapes, plus the PVC, PodGroup and ResourceClaim
fields the volume, gang and DRA plugins read). Properties:

- parsing raises only the named errors (PodSpecError, NodeSpecError) with one line naming the
  object and the field, and a rejected node keeps the table as it was;
- a scheduler running the default profile never dies on them: every good pod beside them is
  bound, a bad pod is skipped (one line, naming it) or fails for itself only, and no event is
  dropped by the loop's last-resort handler.

Example counts are kept small enough for CI (derandomized there, so a failure reproduces); a
longer local run: `HYPOTHESIS_PROFILE=fuzz-long python3 -m pytest tests/test_fuzz_objects.py`.
"""

from __future__ import annotations

import copy
import logging
import os
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from kubeberth.apps.simulate import simulate
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.cache.nodetable import NodeSpecError, NodeTable
from kubeberth.cache.podinfo import PodInfo, PodSpecError
from kubeberth.cache.shapes import NODE, POD, MapOf, describe_object
from kubeberth.runtime.generation import build_generation
from kubeberth.testing import make_node, make_pod, make_pod_group, make_pvc

Obj = dict[str, Any]

_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}
settings.register_profile("fuzz-ci", max_examples=150, derandomize=True, **_COMMON)
settings.register_profile("fuzz-dev", max_examples=150, **_COMMON)
settings.register_profile("fuzz-long", max_examples=3000, **_COMMON)
# Derandomized unless asked otherwise (CI=true always): the suite stays deterministic for everyone;
# HYPOTHESIS_PROFILE=fuzz-dev or fuzz-long explores new examples.
_PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or "fuzz-ci"
# A scheduler run is ~50x dearer than a parse: a third of the examples.
_RUN_EXAMPLES = max(10, settings.get_profile(_PROFILE).max_examples // 3)

# ---- arbitrary JSON ------------------------------------------------------------------------
_TEXT = st.text(max_size=12) | st.sampled_from(["", " ", "é", "日本", "\x00", "🚀", "a" * 300, "-", "/", "."])
_NUMBERS = (
    st.integers(min_value=-(2**70), max_value=2**70)
    | st.sampled_from([0, -1, 2**31, 2**63, -(2**63), 2**64 + 1, 10**30])
    | st.floats(allow_nan=False, allow_infinity=False)
)
# Quantities: valid ones, near-valid ones and garbage.
_QUANTITY = st.sampled_from(
    ["100m", "1", "0", "1Gi", "1.5", "-1", "-100m", "1e3", "1E400", "1e-400", "9" * 40, "1Ki", "+5", " 1",
     "1.5.5", "0x10", "abc", "", "1Gib", "Infinity", "NaN", "1m", "1n", "1u", "∞", "١"]
) | _NUMBERS | _TEXT
_SCALARS = st.none() | st.booleans() | _NUMBERS | _TEXT | _QUANTITY
JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
)


def _paths(shape: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every field path a shape declares (list items as index 0, map entries as a sample key)."""
    out: list[tuple[Any, ...]] = [prefix] if prefix else []
    if isinstance(shape, dict):
        for key, sub in shape.items():
            out += _paths(sub, (*prefix, key))
    elif isinstance(shape, list):
        out += _paths(shape[0], (*prefix, 0))
    elif isinstance(shape, MapOf):
        out += _paths(shape.value, (*prefix, "cpu"))
    return out


# The fields the volume, gang and DRA plugins read beyond the declared Pod shape.
_POD_EXTRA = [
    ("spec", "resourceClaims"), ("spec", "resourceClaims", 0, "name"),
    ("spec", "resourceClaims", 0, "resourceClaimName"), ("spec", "containers", 0, "resources", "claims"),
    ("spec", "volumes", 0, "persistentVolumeClaim"), ("spec", "priorityClassName"), ("spec", "overhead"),
    ("spec", "resources"), ("spec", "resources", "requests", "cpu"), ("spec", "hostNetwork"),
    ("spec", "containers", 0, "resources", "requests", "memory"), ("spec", "containers", 0, "resources", "limits", "cpu"),
    ("status", "resize"), ("status", "containerStatuses"), ("status", "conditions", 0, "type"),
    ("metadata", "ownerReferences", 0, "controller"), ("metadata", "annotations"),
    ("spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms", 0,
     "matchExpressions", 0, "values", 0),
]
POD_PATHS = _paths(POD) + _POD_EXTRA
NODE_PATHS = _paths(NODE) + [
    ("status", "allocatable", "memory"), ("status", "allocatable", "pods"), ("status", "allocatable", "nvidia.com/gpu"),
    ("status", "declaredFeatures"), ("status", "conditions"), ("metadata", "labels", "topology.kubernetes.io/zone"),
    ("status", "volumesAttached"), ("spec", "taints", 0, "timeAdded"),
]
PVC_PATHS = [
    ("metadata",), ("metadata", "name"), ("metadata", "namespace"), ("metadata", "annotations"), ("spec",),
    ("spec", "accessModes"), ("spec", "accessModes", 0), ("spec", "resources"), ("spec", "resources", "requests"),
    ("spec", "resources", "requests", "storage"), ("spec", "storageClassName"), ("spec", "volumeName"),
    ("spec", "volumeMode"), ("spec", "dataSource"), ("status",), ("status", "phase"),
]
POD_GROUP_PATHS = [
    ("metadata",), ("metadata", "name"), ("metadata", "namespace"), ("spec",), ("spec", "schedulingPolicy"),
    ("spec", "schedulingPolicy", "gang"), ("spec", "schedulingPolicy", "gang", "minCount"),
    ("spec", "schedulingPolicy", "basic"), ("spec", "workloadRef"), ("spec", "workloadRef", "workloadName"),
    ("spec", "workloadRef", "templateName"), ("status",),
]
CLAIM_PATHS = [
    ("metadata",), ("metadata", "name"), ("metadata", "namespace"), ("metadata", "uid"), ("spec",),
    ("spec", "devices"), ("spec", "devices", "requests"), ("spec", "devices", "requests", 0),
    ("spec", "devices", "requests", 0, "name"), ("spec", "devices", "requests", 0, "exactly"),
    ("spec", "devices", "requests", 0, "exactly", "deviceClassName"), ("spec", "devices", "requests", 0, "exactly", "count"),
    ("spec", "devices", "requests", 0, "exactly", "allocationMode"),
    ("spec", "devices", "requests", 0, "exactly", "selectors"),
    ("spec", "devices", "requests", 0, "exactly", "selectors", 0, "cel", "expression"),
    ("spec", "devices", "constraints"), ("status",), ("status", "allocation"), ("status", "reservedFor"),
]

_DELETE = object()


def _mutate(obj: Any, path: tuple[Any, ...], value: Any) -> None:
    """Set (or delete, for _DELETE) a field; missing parents are created, parents of the wrong
    shape are left alone (the path then no longer applies)."""
    target = obj
    for part in path[:-1]:
        if isinstance(part, int):
            if not isinstance(target, list):
                return
            if not target:
                target.append({})
            target = target[0]
        else:
            if not isinstance(target, dict):
                return
            target = target.setdefault(part, [] if isinstance(path[path.index(part) + 1], int) else {})
    last = path[-1]
    if isinstance(last, int):
        if isinstance(target, list):
            if value is _DELETE:
                target.clear()
            elif target:
                target[0] = value
            else:
                target.append(value)
    elif isinstance(target, dict):
        if value is _DELETE:
            target.pop(last, None)
        else:
            target[last] = value


def mutated(base: Callable[[], Obj], paths: list[tuple[Any, ...]]) -> st.SearchStrategy[Any]:
    """A valid object with 1-3 fields set to arbitrary JSON (or removed), or the valid object itself."""
    edit = st.tuples(st.sampled_from(paths), st.just(_DELETE) | _QUANTITY | JSON)

    def build(edits: list[tuple[tuple[Any, ...], Any]]) -> Obj:
        obj = base()
        for path, value in edits:
            _mutate(obj, path, value if value is _DELETE else copy.deepcopy(value))
        return obj

    return st.lists(edit, min_size=1, max_size=3).map(build) | st.builds(base)


def _fuzz_pod() -> Obj:
    pod = make_pod(
        "fuzz-pod", "100m", "64Mi", uid="uid-fuzz", labels={"app": "fuzz"}, tolerations=["k=v:NoSchedule"],
        nodeSelector={"kubernetes.io/os": "linux"},
        volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": "fuzz-data"}}],
        schedulingGroup={"podGroupName": "fuzz-group"},
        resourceClaims=[{"name": "gpu", "resourceClaimName": "fuzz-claim"}],
        affinity={"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 10, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "fuzz"}},
                                               "topologyKey": "kubernetes.io/hostname"}}]}},
        topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
                                    "whenUnsatisfiable": "ScheduleAnyway",
                                    "labelSelector": {"matchLabels": {"app": "fuzz"}}}],
    )
    pod["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8080}]
    return pod


def _fuzz_node() -> Obj:
    return make_node("fuzz-node", cpu="8", labels={"kubernetes.io/os": "linux"}, taints=["k=v:NoSchedule"],
                     images={"registry.k8s.io/pause:3.9": 1000}, zone="z1")


def _fuzz_claim() -> Obj:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "fuzz-claim", "namespace": "default", "uid": "uid-claim"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}}


def _pod_with(path: tuple[Any, ...], value: Any) -> Obj:
    pod = _fuzz_pod()
    _mutate(pod, path, value)
    return pod


def _node_with(path: tuple[Any, ...], value: Any) -> Obj:
    node = _fuzz_node()
    _mutate(node, path, value)
    return node


PODS = mutated(_fuzz_pod, POD_PATHS)
NODES = mutated(_fuzz_node, NODE_PATHS)
PVCS = mutated(lambda: make_pvc("fuzz-data"), PVC_PATHS)
POD_GROUPS = mutated(lambda: make_pod_group("fuzz-group", 1), POD_GROUP_PATHS)
CLAIMS = mutated(_fuzz_claim, CLAIM_PATHS)


def _one_line_naming(message: str, kind: str, obj: Any) -> None:
    assert "\n" not in message, message
    assert message.startswith(describe_object(kind, obj) + ": ") or message.startswith(f"{kind.lower()} "), message


def _identity_readable(obj: Any) -> bool:
    """What the scheduler's event handlers check before parsing: an object whose metadata is a
    mapping and whose name, namespace and uid are strings when given."""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    return isinstance(meta, dict) and all(
        meta.get(key) is None or isinstance(meta.get(key), str) for key in ("name", "namespace", "uid")
    )


# ---- parsing ---------------------------------------------------------------------------------
@settings(settings.get_profile(_PROFILE))
@given(PODS | JSON)
@example(_pod_with(("status", "nominatedNodeName"), [None]))  # once a TypeError in the nominator's index
@example({"kind": "Pod", "metadata": {"generateName": 1}, "spec": {}})  # once parsed with a name that is a number
def test_pod_parse_names_the_pod_and_field(obj: Any) -> None:
    if not _identity_readable(obj):
        return  # refused before parsing, by the event handlers (tests/test_malformed_objects.py)
    try:
        pod = PodInfo.from_dict(obj)
    except PodSpecError as exc:
        _one_line_naming(str(exc), "Pod", obj)
        return
    # A parsed pod carries the types the framework and plugins rely on.
    assert isinstance(pod.uid, str) and isinstance(pod.name, str) and isinstance(pod.namespace, str)
    assert isinstance(pod.priority, int) and all(isinstance(v, int) for v in pod.requests.values())
    assert isinstance(pod.labels, dict) and isinstance(pod.node_selector, dict) and isinstance(pod.affinity, dict)
    assert all(isinstance(name, str) for name in (pod.scheduler_name, pod.node_name, pod.nominated_node_name))


@settings(settings.get_profile(_PROFILE))
@given(NODES | JSON)
# Each once escaped as an OverflowError or TypeError after the table had changed.
@example(_node_with(("status", "allocatable", "cpu"), 2**63 // 1000 + 1))
@example(_node_with(("metadata", "labels", "cpu"), []))
@example(_node_with(("spec", "taints", 0, "key"), []))
def test_node_upsert_names_the_node_and_field_and_keeps_the_last_good_state(obj: Any) -> None:
    table = NodeTable()
    good = _fuzz_node()
    table.upsert_node(good)
    if isinstance(obj, dict) and isinstance(obj.get("metadata"), dict):
        obj["metadata"]["name"] = "fuzz-node"  # an update of the known node
    before = (table.allocatable.copy(), dict(table.row_of), table.labels_of(0), table.taints_of(0))
    try:
        table.upsert_node(obj)
    except NodeSpecError as exc:
        _one_line_naming(str(exc), "Node", obj)
        event("node refused: " + str(exc).split(": ", 1)[-1].split(":")[0])
        assert (table.allocatable == before[0]).all() and table.row_of == before[1]
        assert table.labels_of(0) == before[2] and table.taints_of(0) == before[3]


# ---- the default profile on the embedded backend ---------------------------------------------
_GENERATION = build_generation()


def _cluster(fuzzed: list[Any]) -> list[Any]:
    good: list[Any] = [make_node(f"good-{i}", cpu="64", memory="256Gi", labels={"kubernetes.io/os": "linux"})
                       for i in range(2)]
    good.append({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
                 "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}})
    good.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "good-0-gpu"},
                 "spec": {"driver": "gpu.example.com", "nodeName": "good-0",
                          "pool": {"name": "good-0", "generation": 1, "resourceSliceCount": 1},
                          "devices": [{"name": "gpu-0", "attributes": {"model": {"string": "a100"}}}]}})
    good.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "standard"},
                 "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer"})
    good.append({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "fuzz-pv"},
                 "spec": {"capacity": {"storage": "10Gi"}, "storageClassName": "standard",
                          "accessModes": ["ReadWriteOnce"]}, "status": {"phase": "Available"}})
    good_pods = [make_pod(f"good-pod-{i}", uid=f"uid-good-{i}", labels={"fuzz-good": str(i)}) for i in range(3)]
    return [*good, *(obj for obj in fuzzed if _stored(obj)), *good_pods]


def _stored(obj: Any) -> bool:
    """Whether the embedded cluster stores the object (it refuses, in one line, what an API server
    could not store: metadata that is not a mapping)."""
    try:
        EmbeddedCluster([obj])
    except ValueError as exc:
        assert "\n" not in str(exc) and "metadata" in str(exc), exc
        return False
    return True


@settings(settings.get_profile(_PROFILE), max_examples=_RUN_EXAMPLES)
@given(pod=PODS, node=NODES, pvc=PVCS, group=POD_GROUPS, claim=CLAIMS)
# Once a TypeError in simulate's reference check (an unhashable name), and a node the table could not hold.
@example(pod=_fuzz_pod(), node=_node_with(("status", "allocatable", "cpu"), "1E400"), pvc=make_pvc("fuzz-data"),
         group=make_pod_group("fuzz-group", 1), claim={**_fuzz_claim(), "metadata": {"name": [None]}})
# A node with negative allocatable memory and no taint once failed every pod (NodeResourcesFit's score out of range).
@example(pod=_fuzz_pod(), node={**_node_with(("status", "allocatable", "memory"), -1), "spec": {}},
         pvc=make_pvc("fuzz-data"), group=make_pod_group("fuzz-group", 1), claim=_fuzz_claim())
# A pod whose status.conditions is not a list once stopped the loop when its failure was written.
@example(pod=_pod_with(("status", "conditions"), "100m"), node=_fuzz_node(), pvc={**make_pvc("fuzz-data"), "spec": 1},
         group=make_pod_group("fuzz-group", 1), claim=_fuzz_claim())
# Once an event dropped by the loop's last resort: a TypeError indexing the pod's nomination.
@example(pod=_pod_with(("status", "nominatedNodeName"), [None]), node=_fuzz_node(), pvc=make_pvc("fuzz-data"),
         group=make_pod_group("fuzz-group", 1), claim=_fuzz_claim())
def test_default_profile_survives_malformed_objects(pod: Any, node: Any, pvc: Any, group: Any, claim: Any) -> None:
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = records.append  # type: ignore[method-assign]  # collect, do not format
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        result = simulate(_GENERATION, _cluster([pvc, group, claim, node, pod]), seed=0)
    finally:
        root.removeHandler(handler)
    scheduler = result.scheduler
    fuzz = scheduler.cluster.pods.get("uid-fuzz")
    event("fuzzed pod: " + ("skipped" if scheduler.skipped_pods else "errored" if scheduler.failed
                            else "bound" if fuzz is not None and fuzz.node_name else "not bound"))
    event(f"nodes in the table: {len(scheduler.cluster.table)}")
    bound = {p.name for p in scheduler.cluster.pods.values() if p.node_name}
    assert {f"good-pod-{i}" for i in range(3)} <= bound, result.summary
    # No event was dropped by the loop's last resort (a crash in an event handler).
    dropped = [r.getMessage() for r in records if "event dropped" in r.getMessage()]
    assert not dropped, dropped
    # Every failure is the fuzzed pod's own: skipped with one line naming it, or failed for itself.
    for reason in scheduler.skipped_pods.values():
        assert "\n" not in reason and reason.startswith(describe_object("Pod", pod) + ": "), reason
    for entry in scheduler.failed.values():
        assert not entry.pod.name.startswith("good-pod-"), entry.last_message
    for record in records:
        if record.levelno >= logging.ERROR:
            assert "good-pod-" not in record.getMessage(), record.getMessage()
