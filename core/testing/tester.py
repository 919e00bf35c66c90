"""SchedulerTester: a plugin under test inside the real framework, scheduler and embedded cluster.

Built the way `kubeberth simulate` builds its scheduler (plugin discovery, configuration, args
validation, hook binding, queue, binding pool, embedded backend, virtual clock), so what passes
here behaves the same in `kubeberth run`. Two ways to look at a plugin:

- `evaluate(pod)`: the scheduling cycle's PreFilter, Filter, PreScore, Score and NormalizeScore
  over *every* node, with nothing reserved or bound: per-node verdicts and per-plugin scores.
- `schedule(*pods)`: the whole loop (queue, cycles, Reserve, Permit, binding) until settled.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..api.features import FeatureGates
from ..api.status import Code, Status
from ..api.types import CycleState
from ..api.views import PodView
from ..backends.embedded import EmbeddedCluster
from ..cache.cluster import ClusterState
from ..cache.podinfo import PodInfo
from ..runtime.config import SchedulerConfiguration, load_configuration, parse_configuration
from ..runtime.framework import Framework, PluginFailure
from ..runtime.generation import Generation, build_generation
from ..runtime.records import CycleRecord, Diagnosis
from ..scheduling.clock import VirtualClock
from ..scheduling.handle import FrameworkHandle
from ..scheduling.scheduler import Scheduler
from .builders import load_objects

PROFILE = "kubeberth"
BASE_PLUGINS = ("PrioritySort", "DefaultBinder")
"""Enabled besides the plugins under test, so pods are ordered and bound: a profile needs a queue sort and a binder."""

PluginEntry = str | type | object | tuple[str | type | object, int]
"""A plugin to enable: an installed plugin's name, or a plugin class/object (registered for the test only, as a
`--plugins-dir` file would be); or either with a score weight, `(TeamNodes, 3)`."""


class PluginError(AssertionError):
    """A plugin raised or returned an Error status during `evaluate`; the plugin's exception is the cause."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message)
        self.status = status


@dataclass(frozen=True)
class Verdict:
    """Why one node was rejected: the first filter plugin that rejected it, its reason and code."""

    plugin: str
    reason: str
    code: Code = Code.UNSCHEDULABLE


@dataclass
class Evaluation:
    """What one scheduling cycle's filter and score steps found for a pod, for every node.

    `verdicts` maps every node (table order) to None (feasible) or the Verdict of the plugin that
    rejected it; `scores` maps each score plugin to its normalized, unweighted score per feasible
    node; `totals` is the weighted sum the scheduler picks from.
    """

    pod: PodInfo
    pre_filter: Status
    verdicts: dict[str, Verdict | None]
    scores: dict[str, dict[str, int]] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=dict)
    message: str = ""
    nominated_node: str = ""  # evaluate(..., preemption=True): where preemption would nominate the pod
    victims: list[str] = field(default_factory=list)  # and the pods (namespace/name) it would delete

    @property
    def feasible(self) -> list[str]:
        """Nodes every filter accepted, in table order."""
        return [n for n, v in self.verdicts.items() if v is None]

    @property
    def reasons(self) -> dict[str, str | None]:
        """Node -> rejection reason (None if feasible): the usual thing to assert."""
        return {n: (v.reason if v else None) for n, v in self.verdicts.items()}

    def rejected_by(self, plugin: str) -> dict[str, str]:
        """Node -> reason for the nodes `plugin` rejected."""
        return {n: v.reason for n, v in self.verdicts.items() if v is not None and v.plugin == plugin}

    @property
    def best(self) -> list[str]:
        """The nodes with the highest total score (the scheduler picks one at random among them)."""
        if not self.totals:
            return []
        top = max(self.totals.values())
        return [n for n, t in self.totals.items() if t == top]


def profile_config(
    plugins: Sequence[PluginEntry] = (),
    *,
    args: Mapping[str, Mapping[str, Any]] | None = None,
    default_plugins: bool = False,
    base: Sequence[str] = BASE_PLUGINS,
    profile: str = PROFILE,
    percentage_of_nodes_to_score: int | None = None,
    **top: Any,
) -> dict[str, Any]:
    """A KubeSchedulerConfiguration dict with one profile enabling `plugins` (multiPoint).

    With `default_plugins=False` (the default) only `base` + `plugins` run, so a test sees its
    plugin's effect alone; with True they are added on top of kube-scheduler's default profile,
    as a user's configuration would. `args` become `pluginConfig`; `top` are top-level fields
    (e.g. `podInitialBackoffSeconds=1`).
    """
    refs: list[dict[str, Any]] = [] if default_plugins else [{"name": n} for n in base]
    for entry in plugins:
        if isinstance(entry, tuple):
            refs.append({"name": plugin_name(entry[0]), "weight": entry[1]})
        else:
            refs.append({"name": plugin_name(entry)})
    multi: dict[str, Any] = {"enabled": refs}
    if not default_plugins:
        multi["disabled"] = [{"name": "*"}]
    prof: dict[str, Any] = {"schedulerName": profile, "plugins": {"multiPoint": multi}}
    if percentage_of_nodes_to_score is not None:
        prof["percentageOfNodesToScore"] = percentage_of_nodes_to_score
    if args:
        prof["pluginConfig"] = [{"name": name, "args": dict(a)} for name, a in args.items()]
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": [prof], **top}


def plugin_name(entry: PluginEntry) -> str:
    """The registry name of a plugin entry: a string as is, else its `name` attribute."""
    if isinstance(entry, str):
        return entry
    name = getattr(entry, "name", None)
    if not isinstance(name, str):
        raise TypeError(f"plugin {entry!r} has no `name` attribute")
    return name


class SchedulerTester:
    """A real Scheduler over an EmbeddedCluster, configured with the plugins under test.

    e.g.::

        t = SchedulerTester([TeamNodes], args={"TeamNodes": {"label": "team"}})
        t.add(make_node("a", labels={"team": "a"}), make_node("b"))
        ev = t.evaluate(make_pod("p", labels={"team": "a"}))
        assert ev.reasons == {"a": None, "b": "node(s) are not for team a"}
        assert t.schedule(make_pod("q", labels={"team": "a"})) == {"q": "a"}

    `plugins` are names of installed plugins, (name, weight) pairs, or plugin classes/objects
    (registered for this tester only, as a `--plugins-dir` file would be). `config` (a dict, a
    SchedulerConfiguration, or a YAML file path) replaces the generated profile entirely;
    `register` makes plugin classes available without enabling them (for a `config` that names
    them). `max_errors_per_pod` gives up on a pod after that many Error attempts (as simulate
    does); other keyword arguments are top-level configuration fields, e.g.
    `podInitialBackoffSeconds=1` or `percentage_of_nodes_to_score=30` for the profile.
    Pods without a `schedulerName` are scheduled by the first profile. `feature_gates`
    ("GenericWorkload=true" or a mapping) are the process's `--feature-gates`.
    """

    def __init__(
        self,
        plugins: Sequence[PluginEntry] = (),
        *,
        args: Mapping[str, Mapping[str, Any]] | None = None,
        objects: Iterable[dict[str, Any]] = (),
        config: Mapping[str, Any] | SchedulerConfiguration | str | Path | None = None,
        default_plugins: bool = False,
        base: Sequence[str] = BASE_PLUGINS,
        register: Sequence[type | object] = (),
        plugins_dir: str | Path | None = None,
        seed: int | None = 0,
        max_errors_per_pod: int | None = None,
        binding_workers: int = 16,
        start: bool = True,
        feature_gates: str | Mapping[str, bool] | FeatureGates | None = None,
        **top: Any,
    ) -> None:
        if config is not None and (args or default_plugins or top):
            raise TypeError("SchedulerTester: give either config= or args=/default_plugins=/profile fields, not both")
        extra = [e for e in (p[0] if isinstance(p, tuple) else p for p in plugins) if not isinstance(e, str)]
        extra += [r for r in register if r not in extra]
        if config is None:
            parsed = parse_configuration(
                profile_config(plugins, args=args, default_plugins=default_plugins, base=base, **top)
            )
        elif isinstance(config, SchedulerConfiguration):
            parsed = config
        elif isinstance(config, str | Path):
            parsed = load_configuration(config)
        else:
            parsed = parse_configuration(dict(config))
        gates = feature_gates if isinstance(feature_gates, FeatureGates) else FeatureGates.parse(feature_gates)
        self.generation: Generation = build_generation(
            config=parsed, plugins_dir=plugins_dir, extra_plugins=extra, feature_gates=gates
        )
        clock = VirtualClock()  # also the embedded cluster's: victims terminate on virtual time
        self.backend = EmbeddedCluster(clock=clock.now)
        self.scheduler = Scheduler(
            self.generation,
            self.backend,
            clock=clock,
            seed=seed,
            binding_workers=binding_workers,
            adopt_unknown_profiles=True,
            max_errors_per_pod=max_errors_per_pod,
        )
        self._seed = seed
        self._started = False
        self._closed = False
        self.add(*objects)
        if start:
            self.start()

    # ---- the pieces, for tests that need to look deeper ----------------------------------
    @property
    def framework(self) -> Framework:
        """The first profile's framework (what pods without a known schedulerName run on)."""
        return self.generation.default_profile

    @property
    def cluster(self) -> ClusterState:
        """The scheduler's cache, current as of the last `sync()`."""
        return self.scheduler.cluster

    @property
    def clock(self) -> VirtualClock:
        clock = self.scheduler.clock
        assert isinstance(clock, VirtualClock)
        return clock

    def plugin(self, name: str) -> Any:
        """The plugin instance the first profile runs (to inspect what it recorded)."""
        return self.framework.plugins[name]

    # ---- the cluster ----------------------------------------------------------------------
    def add(self, *objects: dict[str, Any] | str | Path | Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """Create or replace objects in the embedded cluster: dicts, lists of dicts, YAML text or a YAML file."""
        applied = []
        for obj in objects:
            if isinstance(obj, str | Path):
                items: Iterable[dict[str, Any]] = load_objects(obj)
            elif isinstance(obj, dict):
                items = [obj]
            else:
                items = obj
            for item in items:
                applied.append(self.backend.apply(item))
        return applied

    def delete(self, kind: str, key: str) -> None:
        """Delete an object (`"Pod", "default/p"`, `"Node", "n1"`) from the embedded cluster."""
        self.backend.delete(kind, key)

    def start(self) -> None:
        """Start the informers (done by the constructor unless `start=False`)."""
        if not self._started:
            self._started = True
            self.scheduler.start_backend()
            self.scheduler.drain_events()

    def sync(self) -> None:
        """Let the scheduler see every change made so far (drains the event queue; no cycle runs)."""
        self.start()
        self.scheduler.drain_events()

    # ---- running the framework ---------------------------------------------------------------
    def evaluate(self, pod: dict[str, Any] | PodInfo, *, profile: str | None = None, preemption: bool = False) -> Evaluation:
        """Run PreFilter, Filter, PreScore, Score and NormalizeScore for `pod` over every node.

        Nothing is reserved, bound or queued; the pod need not be in the cluster. Unlike a real
        cycle, every node is filtered (no percentageOfNodesToScore sampling) and feasible nodes
        are scored even when only one fits. Pods nominated by preemption are accounted as in a
        real cycle. A plugin that raises or returns Error raises PluginError (the plugin's own
        exception as its cause). With `preemption`, a pod that fits nowhere runs PostFilter as a
        dry run (see `evaluate_pod`).
        """
        self.sync()
        return evaluate_pod(self.scheduler, pod, profile=profile, preemption=preemption)

    def schedule(self, *pods: dict[str, Any] | str, timeout: float = 30) -> dict[str, str | None]:
        """Add `pods` (or YAML), run the scheduler until nothing is left to try; each added pod's node.

        Returns `{name: node or None}` for the pods given (namespace/name when not in `default`).
        Pods already in the cluster are scheduled too; read them with `node_of`.
        """
        added = [o for o in self.add(*pods) if o.get("kind") == "Pod"]
        self.settle(timeout=timeout)
        out: dict[str, str | None] = {}
        for obj in added:
            meta = obj["metadata"]
            key = meta["name"] if meta["namespace"] == "default" else f"{meta['namespace']}/{meta['name']}"
            out[key] = self.node_of(f"{meta['namespace']}/{meta['name']}")
        return out

    def settle(self, timeout: float = 30) -> None:
        """Run the scheduling loop until nothing is left to try (backoffs pass on the virtual clock)."""
        self.start()
        self.scheduler.run_until_settled(timeout=timeout)

    def step(self) -> bool:
        """Drain events and run at most one scheduling cycle; whether a cycle ran."""
        self.start()
        return self.scheduler.step()

    def simulate(self, *objects: dict[str, Any] | str | Path | Iterable[dict[str, Any]], seed: int | None = None) -> Any:
        """`kubeberth simulate` of `objects` on a fresh embedded cluster with this tester's generation.

        Returns the SimulationResult (`summary` as `simulate --json` prints it, `placements`).
        """
        from ..apps.simulate import simulate

        flat: list[dict[str, Any]] = []
        for obj in objects:
            if isinstance(obj, str | Path):
                flat.extend(load_objects(obj))
            elif isinstance(obj, dict):
                flat.append(obj)
            else:
                flat.extend(obj)
        return simulate(self.generation, flat, seed=self._seed if seed is None else seed)

    # ---- reading results ----------------------------------------------------------------------
    def pod(self, key: str) -> dict[str, Any]:
        """A pod as the embedded API server holds it now (`"name"` or `"namespace/name"`)."""
        obj = self.backend.get("Pod", _pod_key(key))
        if obj is None:
            raise KeyError(f"no pod {key!r} in the cluster")
        return obj

    def node_of(self, key: str) -> str | None:
        """The node a pod is bound to, or None while it is pending."""
        return (self.pod(key).get("spec") or {}).get("nodeName") or None

    def placements(self) -> dict[str, str | None]:
        """Every pod's node (None if pending), keyed namespace/name."""
        pods: Iterable[dict[str, Any]] = self.backend.list("Pod")
        return {
            f"{p['metadata']['namespace']}/{p['metadata']['name']}": (p.get("spec") or {}).get("nodeName") or None
            for p in pods
        }

    def events(self, key: str, reason: str | None = None) -> list[str]:
        """Messages of the events recorded for a pod (e.g. reason="FailedScheduling"), oldest first."""
        pod_key = _pod_key(key)
        return [e["note"] for e in self.backend.events
                if e["regarding"] == pod_key and (reason is None or e["reason"] == reason)]

    def records(self, key: str) -> list[CycleRecord]:
        """The decision records of a pod's scheduling cycles, oldest first (what `--explain` shows)."""
        pod_key = _pod_key(key)
        return [r for r in self.scheduler.records if r.pod == pod_key]

    def close(self) -> None:
        """Reject waiting pods and stop the binding workers."""
        if self._closed:
            return
        self._closed = True
        for waiting in list(self.scheduler.waiting_pods.values()):
            waiting.reject("teardown", "test finished")
        self.scheduler.shutdown(wait=True)

    def __enter__(self) -> SchedulerTester:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _pod_key(key: str) -> str:
    return key if "/" in key else f"default/{key}"


class _DryRunHandle(FrameworkHandle):
    """A Handle whose preemption writes are recorded instead of made (victims, nominations)."""

    def __init__(self, base: FrameworkHandle) -> None:
        super().__init__(base.framework, base._backend, base._cluster, base._now, base._waiting)
        self.victims: list[str] = []
        self.nominations: list[tuple[str, str | None]] = []

    def nominate(self, pod: PodView, node_name: str | None) -> None:
        self.nominations.append((pod.key, node_name))

    def delete_victim(
        self, victim: PodView, preemptor: PodView, node_name: str = "", *, pod_group: Mapping[str, Any] | None = None
    ) -> Status:
        self.victims.append(victim.key)
        return Status.success()


def evaluate_pod(
    scheduler: Scheduler, pod: dict[str, Any] | PodInfo, *, profile: str | None = None, preemption: bool = False
) -> Evaluation:
    """`SchedulerTester.evaluate` over any running Scheduler's cache (embedded or Kubernetes backend).

    With `preemption`, a pod that fits nowhere runs the profile's PostFilter plugins as a dry run:
    `nominated_node` and `victims` say what preemption would do (nothing is deleted or written),
    and `message` is the whole FailedScheduling text, PostFilter's part included.
    """
    info = pod if isinstance(pod, PodInfo) else PodInfo.from_dict(pod)
    fw = scheduler.generation.profiles[profile] if profile else (scheduler.framework_for(info) or scheduler.generation.default_profile)
    handle = scheduler.handle_for(fw)
    cluster = scheduler.cluster
    table = cluster.table
    rows = np.asarray(sorted(table.row_of.values()), dtype=np.int64)
    names = [table.names[r] or "" for r in rows.tolist()]
    state = CycleState()
    diagnosis = Diagnosis(num_all_nodes=len(rows))
    verdicts: dict[str, Verdict | None] = dict.fromkeys(names)
    try:
        status, narrowed = fw.run_pre_filter(state, info, table.view(rows), cluster, handle, None)
        if not status.ok:
            diagnosis.pre_filter_failed(status.plugin, status.message, status.code, rows)
            verdicts = {n: Verdict(status.plugin, status.message, status.code) for n in names}
            evaluation = Evaluation(info, status, verdicts)
            _post_filter(evaluation, fw, state, info, cluster, handle, diagnosis, preemption)
            return evaluation
        candidates = rows
        if narrowed is not None:
            keep = [table.names[r] in narrowed for r in rows.tolist()]
            for name, kept in zip(names, keep, strict=True):
                if not kept:
                    verdicts[name] = Verdict(min(state.narrowed_by), state.narrowed_reason(),
                                             Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
            kept_mask = np.asarray(keep, dtype=bool)
            if not kept_mask.all():
                diagnosis.add(min(state.narrowed_by), state.narrowed_reason(), rows[~kept_mask],
                              Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
            candidates = rows[kept_mask]
        ghosts = cluster.nominated_ghosts(info) if cluster.nominated else {}
        feasible = scheduler.filter_rows(fw, state, info, candidates, diagnosis, None, ghosts)
        for plugin, reason, hit_rows, code in diagnosis.rejections:
            for row in hit_rows.tolist():
                name = table.names[row] or ""
                if verdicts[name] is None:
                    verdicts[name] = Verdict(plugin, reason, code)
        feasible_rows = candidates[feasible]
        evaluation = Evaluation(info, status, verdicts)
        if len(feasible_rows) == 0:
            _post_filter(evaluation, fw, state, info, cluster, handle, diagnosis, preemption)
            return evaluation
        view = table.view(feasible_rows)
        total, per_plugin = fw.run_scores(state, info, view, cluster, handle, None)
    except PluginFailure as failure:
        raise PluginError(failure.status) from failure.__cause__
    feasible_names = view.names
    evaluation.scores = {p: dict(zip(feasible_names, s.tolist(), strict=True)) for p, s in per_plugin.items()}
    evaluation.totals = dict(zip(feasible_names, total.tolist(), strict=True))
    return evaluation


def _post_filter(
    evaluation: Evaluation, fw: Framework, state: CycleState, pod: PodInfo, cluster: ClusterState,
    handle: FrameworkHandle, diagnosis: Diagnosis, preemption: bool,
) -> None:
    """The FailedScheduling text, with PostFilter run as a dry run when `preemption` is asked for."""
    if preemption and fw.points.get("post_filter") and diagnosis.num_all_nodes:
        dry = _DryRunHandle(handle)
        nominated, post_status = fw.run_post_filter(state, pod, cluster, dry, diagnosis, None)
        if nominated:
            evaluation.nominated_node = nominated
            evaluation.victims = sorted(dry.victims)
        if post_status.message:
            diagnosis.post_filter_msg = post_status.message
    evaluation.message = diagnosis.message()
