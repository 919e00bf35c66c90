"""Porting kube-scheduler's integration tests (test/integration/scheduler) onto the shared control plane: a
case's namespaces, nodes and other cluster-scoped objects carry a per-case suffix and are deleted afterwards;
"scheduled" and "unschedulable" are read from the API as testutils.PodScheduled / PodUnschedulable do.
Tables dumped by scripts/upstream_integration_tables.py are read from upstream_tables/."""

from __future__ import annotations

import contextlib
import copy
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from cluster import LocalControlPlane, wait_for
from kubeberth_harness import PROFILE, Api, Kubeberth, suffix

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from upstream_unported_integration import UNPORTED_INTEGRATION  # noqa: E402

sys.path.pop(0)

POLL_TIMEOUT = 30  # wait.ForeverTestTimeout
PAUSE = "registry.k8s.io/pause:3.10.2"


def tables(name: str) -> dict[str, Any]:
    """upstream_tables/<name>.json's tables: Test function -> its cases."""
    return dict(json.loads((Path(__file__).parent / "upstream_tables" / f"{name}.json").read_text())["tables"])


def case_marks(key: str, differences: dict[str, str]) -> list[Any]:
    """An upstream case's pytest marks: excluded -> skip with its reason, differs from upstream's outcome ->
    strict xfail with its reason."""
    if key in UNPORTED_INTEGRATION:
        return [pytest.mark.skip(reason=UNPORTED_INTEGRATION[key])]
    if key in differences:
        return [pytest.mark.xfail(strict=True, reason=differences[key])]
    return []


def cases(table: list[dict[str, Any]], test: str, differences: dict[str, str]) -> list[Any]:
    """pytest params for one upstream Test function: id = case name, marks from case_marks."""
    return [pytest.param(case, id=case["name"], marks=case_marks(f"{test}/{case['name']}", differences))
            for case in table]


def named_cases(test: str, names: list[str], differences: dict[str, str]) -> list[Any]:
    """pytest params for upstream case names (a table transcribed by hand): id and value = name, marks from
    case_marks."""
    return [pytest.param(name, id=name, marks=case_marks(f"{test}/{name}", differences)) for name in names]


# A helper module (not a plugin: its name starts with "_") that the test plugins' drop-ins import: what
# kube-scheduler's test plugins have in common.
PLUGIN_HELPERS = ("_upstream_test_plugins.py", '''"""What kube-scheduler's integration test plugins share."""
from kubeberth import PreBindPreFlightResult, Status, hookimpl


class Configured:
    """A test plugin whose arguments (its class's `Args`) are its profile's pluginConfig."""

    def __init__(self, args):
        self.args = args


class SerialPreBind:
    """A PreBind plugin that runs on its own, as upstream's test PreBind plugins do (no PreBind in parallel)."""

    @hookimpl
    def pre_bind_pre_flight(self, pod):
        return PreBindPreFlightResult(allow_parallel=False)


def injected(args, pod):
    """plugins_test.go's injected outcomes: fail -> Error, reject -> Unschedulable, otherwise None."""
    if args.fail:
        return Status.error(f"injecting failure for pod {pod.name}")
    if args.reject:
        return Status.unschedulable(f"reject pod {pod.name}")
    return None


def plugin(base, module, **attrs):
    """`base` (with `attrs`) as a class of the drop-in `module`: kubeberth loads the classes a drop-in defines."""
    members = {k: v for k, v in vars(base).items() if k not in ("__dict__", "__weakref__")}
    name = attrs.get("name", base.__name__)
    return type(name, base.__bases__, {**members, **attrs, "__module__": module})


class FilterPlugin(Configured):
    """plugins_test.go's FilterPlugin: fail -> Error, reject -> Unschedulable; each call logged by the drop-in's
    `called(plugin, hook, pod)`."""
    name = "filter-plugin"
    requeue_on = ("Pod/Delete",)

    @hookimpl
    def filter_node(self, pod, node):
        self.called(self.name, "filter", pod)
        return injected(self.args, pod)
''')


def drop_ins(folder: Path, files: dict[str, str]) -> Path:
    """folder/plugins: a drop-in plugins folder with these files (name -> source) and PLUGIN_HELPERS."""
    plugins = folder / "plugins"
    plugins.mkdir(mode=0o755)
    for name, source in (PLUGIN_HELPERS, *files.items()):
        (plugins / name).write_text(source)
    return plugins


@contextlib.contextmanager
def serving(cp: LocalControlPlane, kubeconfig: str, config: Path, module: str,
            plugins: dict[str, str] | None = None, env: dict[str, str] | None = None) -> Iterator[Kubeberth]:
    """One `kubeberth run` for a module's cases (in place of upstream's per-test scheduler); `plugins` are
    drop-ins (file name -> source) of a plugins folder next to the config."""
    plugins_dir = drop_ins(config.parent, plugins) if plugins else None
    kb = Kubeberth(cp, kubeconfig, config, False, f"kubeberth-{module}-{suffix()}", plugins_dir=plugins_dir, env=env)
    try:
        kb.wait_ready()
        yield kb
    finally:
        kb.stop()


C = TypeVar("C", bound="Case")


@contextlib.contextmanager
def cleaned(case: C) -> Iterator[C]:
    """The case, whose objects are deleted when it ends."""
    try:
        yield case
    finally:
        case.cleanup()


def case_of(api: Api, kb: Kubeberth) -> contextlib.AbstractContextManager[Case]:
    """A case whose objects are deleted when it ends."""
    return cleaned(Case(api, kb))


class Case:
    """One upstream case's cluster objects: namespaces and nodes with this case's suffix, deleted afterwards."""

    def __init__(self, api: Api, kb: Kubeberth) -> None:
        self.api, self.kb, self.sfx = api, kb, suffix()
        self.namespaces: dict[str, str] = {}
        self.node_names: dict[str, str] = {}
        self.priority_classes: list[str] = []
        self.cluster_scoped: list[str] = []  # paths of other cluster-scoped objects to delete

    def ns(self, name: str, labels: dict[str, str] | None = None) -> str:
        """Upstream namespace `name` (created on first use) -> this case's namespace (which maps to itself)."""
        if name in self.namespaces.values():
            return name
        if name not in self.namespaces:
            real = f"{name}-{self.sfx}"
            self.api.call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                         "metadata": {"name": real, "labels": labels or {}}})
            self.namespaces[name] = real
        return self.namespaces[name]

    def rename_nodes(self, names: list[str]) -> None:
        self.node_names.update({n: f"{n}-{self.sfx}" for n in names})

    def renamed(self, obj: Any) -> Any:
        """A deep copy with every string equal to one of the case's node names (or a namespace name in a
        term's `namespaces`) replaced by this case's name."""
        if isinstance(obj, str):
            return self.node_names.get(obj, obj)
        if isinstance(obj, list):
            return [self.renamed(x) for x in obj]
        if isinstance(obj, dict):
            out = {k: self.renamed(v) for k, v in obj.items()}
            if isinstance(out.get("namespaces"), list):
                out["namespaces"] = [self.ns(n) for n in out["namespaces"]]
            return out
        return copy.deepcopy(obj)

    def node(self, node: dict[str, Any]) -> str:
        """createNode: the upstream Node object as is (status included: no kubelet overwrites it)."""
        body = self.renamed({**node, "apiVersion": "v1", "kind": "Node"})
        self.api.call("POST", "/api/v1/nodes", body)
        name = body["metadata"]["name"]
        got = self.api.call("GET", f"/api/v1/nodes/{name}")
        wanted = (body.get("status") or {}).get("allocatable")
        if wanted and got.get("status", {}).get("allocatable") != wanted:
            got["status"] = body["status"]
            self.api.call("PUT", f"/api/v1/nodes/{name}/status", got)
        return name

    def pod(self, pod: dict[str, Any], default_ns: str = "", ok: tuple[int, ...] = (201,),
            scheduler: str = PROFILE) -> tuple[str, str]:
        """Create the upstream Pod in its namespace (or default_ns), with a kubeberth profile's schedulerName."""
        body = self.renamed({**pod, "apiVersion": "v1", "kind": "Pod"})
        body.pop("status", None)
        meta = body["metadata"]
        meta["namespace"] = self.ns(meta.get("namespace") or default_ns)
        body["spec"]["schedulerName"] = scheduler
        if body["spec"].get("priority") is not None and not body["spec"].get("priorityClassName"):
            # upstream's test API server runs without the Priority admission plugin, which rejects a bare
            # spec.priority here: the same priority comes from a PriorityClass of that value
            body["spec"]["priorityClassName"] = self.priority_class(body["spec"].pop("priority"))
        self.api.call("POST", f"/api/v1/namespaces/{meta['namespace']}/pods", body, ok=ok)
        return meta["namespace"], meta["name"]

    def priority_class(self, value: int) -> str:
        name = f"priority-{value}-{self.sfx}"
        if name not in self.priority_classes:
            self.api.call("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", {
                "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                "value": value})
            self.priority_classes.append(name)
            self._admitted(name)
        return name

    def _admitted(self, priority_class: str) -> None:
        """Until the API server's Priority admission knows a new PriorityClass (its informer lags the create), an
        object naming it is refused ("no PriorityClass with name ... was found"): wait for a dry-run pod to pass."""
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "admission-probe"},
                "spec": {"priorityClassName": priority_class, "containers": [{"name": "c", "image": "pause"}]}}

        def admitted() -> bool:
            status, _ = self.api.cp.request("POST", "/api/v1/namespaces/default/pods?dryRun=All", body)
            return status in (200, 201)

        wait_for(admitted, 10, f"PriorityClass {priority_class} known to admission", interval=0.1)

    def get(self, ns: str, name: str) -> dict[str, Any]:
        return self.api.pod(ns, name) or {}

    def wait_scheduled(self, ns: str, name: str, candidates: list[str] | None = None) -> str:
        """testutils.PodScheduled (spec.nodeName set), or PodScheduledIn(candidates)."""
        real = [self.node_names.get(c, c) for c in candidates] if candidates is not None else None

        def placed() -> bool:
            node = self.get(ns, name).get("spec", {}).get("nodeName", "")
            return bool(node) and (real is None or node in real)

        try:
            wait_for(placed, POLL_TIMEOUT, f"pod {ns}/{name} scheduled" + (f" in {real}" if real else ""),
                     interval=0.1)
        except AssertionError as err:
            raise AssertionError(f"{err}\npod: {json.dumps(self.get(ns, name).get('status'))}\n"
                                 f"{self.kb.log_tail(20)}") from None
        return str(self.get(ns, name)["spec"]["nodeName"])

    def wait_unschedulable(self, ns: str, name: str) -> None:
        """testutils.PodUnschedulable: no node, PodScheduled False with reason Unschedulable."""

        def unschedulable() -> bool:
            pod = self.get(ns, name)
            if pod.get("spec", {}).get("nodeName"):
                raise AssertionError(f"pod {ns}/{name} was scheduled to {pod['spec']['nodeName']}")
            conditions = (pod.get("status") or {}).get("conditions") or []
            return any(c.get("type") == "PodScheduled" and c.get("status") == "False"
                       and c.get("reason") == "Unschedulable" for c in conditions)

        try:
            wait_for(unschedulable, POLL_TIMEOUT, f"pod {ns}/{name} unschedulable", interval=0.1)
        except AssertionError as err:
            raise AssertionError(f"{err}\npod: {json.dumps(self.get(ns, name).get('status'))}\n"
                                 f"{self.kb.log_tail(20)}") from None

    def node_name(self, upstream: str) -> str:
        return self.node_names.get(upstream, upstream)

    def cleanup(self) -> None:
        for real in self.namespaces.values():
            self.api.call("DELETE", f"/api/v1/namespaces/{real}/pods", {"gracePeriodSeconds": 0}, ok=(200, 404))
            self.api.call("DELETE", f"/api/v1/namespaces/{real}", ok=(200, 202, 404))
        for real in self.node_names.values():
            self.api.delete_node(real)
        for path in self.cluster_scoped:
            self.api.call("DELETE", path, ok=(200, 404))
        for name in self.priority_classes:
            self.api.call("DELETE", f"/apis/scheduling.k8s.io/v1/priorityclasses/{name}", ok=(200, 404))



def table_nodes(case: Case, nodes: list[dict[str, Any]]) -> None:
    case.rename_nodes([n["metadata"]["name"] for n in nodes])
    for node in nodes:
        case.node(node)


def make_node(name: str, labels: dict[str, str] | None = None, capacity: dict[str, str] | None = None,
               taints: list[dict[str, str]] | None = None) -> dict[str, Any]:
    """st.MakeNode().Name(name).Label(...).Capacity(...): `pods: 32` unless given."""
    res = {"pods": "32", **(capacity or {})}
    return {"metadata": {"name": name, "labels": labels or {}}, "spec": {"taints": taints} if taints else {},
            "status": {"capacity": res, "allocatable": res}}


# ---- TestInterPodAffinity ----
