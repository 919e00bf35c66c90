"""`kubeberth simulate`: the real framework, queue and binding path on the embedded cluster.

A what-if tool (feed it a `kubectl get` dump, see DUMP_COMMAND), the default main job on a fresh
machine, and the engine behind `kubeberth bench`.

Which pods it schedules is explicit: those whose schedulerName is one of the configuration's
profiles or `default-scheduler` (the what-if "kubeberth replaces the default scheduler"), or the
names given; pods for other schedulers are left Pending and reported as `pending_other`, as a real
cluster would leave them to their own scheduler.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from ..backends.embedded import EmbeddedCluster
from ..cache.nodetable import NodeSpecError, NodeTable
from ..cache.podinfo import PodInfo, PodSpecError
from ..cache.shapes import SHAPES, malformed, section
from ..errors import ManifestError
from ..runtime.config import YAML_LOADER
from ..runtime.generation import Generation
from ..runtime.records import CycleRecord
from ..scheduling.scheduler import Scheduler, VirtualClock
from .dump import check_references, warn_missing

SIMULATE_MAX_ERRORS_PER_POD = 5

# ---- generated clusters ---------------------------------------------------------------------
_NODE_SHAPES = (  # (name, cpu cores, memory GiB, weight)
    ("m.large", 4, 16, 3),
    ("m.xlarge", 8, 32, 4),
    ("m.2xlarge", 16, 64, 3),
    ("c.4xlarge", 32, 64, 1),
    ("r.4xlarge", 32, 256, 1),
)
_APPS = ("web", "api", "cache", "worker", "batch", "search", "auth", "ingest", "report", "queue")


def generate_cluster(nodes: int, pods: int, seed: int = 0) -> list[dict[str, Any]]:
    """A realistic mixed cluster: node sizes, zones, taints, GPU nodes; mixed workloads."""
    rng = np.random.default_rng(seed)
    objects: list[dict[str, Any]] = []
    zones = [f"zone-{c}" for c in "abc"]
    weights = np.array([s[3] for s in _NODE_SHAPES], dtype=float)
    shapes = rng.choice(len(_NODE_SHAPES), size=nodes, p=weights / weights.sum())
    for i in range(nodes):
        shape, cpu, mem, _ = _NODE_SHAPES[shapes[i]]
        name = f"node-{i:05d}"
        labels = {
            "kubernetes.io/hostname": name,
            "kubernetes.io/os": "linux",
            "topology.kubernetes.io/region": "region-1",
            "topology.kubernetes.io/zone": zones[i % len(zones)],
            "node.kubernetes.io/instance-type": shape,
        }
        allocatable = {"cpu": f"{cpu * 1000 - 100}m", "memory": f"{mem * 1024 - 512}Mi", "pods": "110",
                       "ephemeral-storage": "100Gi"}
        taints = []
        if i % 20 == 7:  # GPU pool, tainted so only tolerating pods land there
            labels["accelerator"] = "gpu"
            allocatable["nvidia.com/gpu"] = "4"
            taints.append({"key": "dedicated", "value": "gpu", "effect": "NoSchedule"})
        elif i % 50 == 13:
            taints.append({"key": "maintenance", "value": "soon", "effect": "PreferNoSchedule"})
        objects.append({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": labels},
            "spec": {"taints": taints} if taints else {},
            "status": {"allocatable": allocatable, "capacity": allocatable,
                       "conditions": [{"type": "Ready", "status": "True"}]},
        })
    for j in range(pods):
        app = _APPS[int(rng.integers(len(_APPS)))]
        kind = rng.random()
        requests: dict[str, str] = {}
        spec: dict[str, Any] = {}
        if kind < 0.1:
            pass  # no requests: scored with kube-scheduler's non-zero defaults
        else:
            requests = {"cpu": f"{int(rng.choice([100, 250, 500, 1000, 2000]))}m",
                        "memory": f"{int(rng.choice([128, 256, 512, 1024, 2048, 4096]))}Mi"}
        if 0.1 <= kind < 0.13:
            requests["nvidia.com/gpu"] = "1"
            spec["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]
            spec["nodeSelector"] = {"accelerator": "gpu"}
        elif 0.13 <= kind < 0.23:
            spec["nodeSelector"] = {"topology.kubernetes.io/zone": zones[int(rng.integers(len(zones)))]}
        elif 0.23 <= kind < 0.28:
            spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "node.kubernetes.io/instance-type", "operator": "In",
                     "values": ["m.2xlarge", "c.4xlarge", "r.4xlarge"]}]}]}}}
        elif 0.28 <= kind < 0.33:
            spec["affinity"] = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": app}},
                                                    "topologyKey": "kubernetes.io/hostname"}}]}}
        container: dict[str, Any] = {"name": "main", "image": f"registry.local/{app}:1.{j % 3}"}
        if requests:
            container["resources"] = {"requests": requests}
        spec["containers"] = [container]
        if rng.random() < 0.1:
            spec["priority"] = 1000
        objects.append({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"{app}-{j:06d}", "namespace": "default", "labels": {"app": app}},
            "spec": spec,
        })
    return objects


# ---- manifests ------------------------------------------------------------------------------
def load_manifests(path: str | Path) -> list[dict[str, Any]]:
    """Objects from a YAML stream or a `List` (e.g. `kubectl get nodes,pods -A -o yaml`)."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        docs = list(yaml.load_all(text, Loader=YAML_LOADER))  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark else ""
        raise ManifestError(f"{path}: {where}invalid YAML: {getattr(exc, 'problem', exc)}") from None
    objects: list[dict[str, Any]] = []

    def visit(doc: Any, where: str) -> None:
        if doc is None:
            return
        if not isinstance(doc, dict):
            raise ManifestError(f"{path}: {where}: expected a Kubernetes object, got {type(doc).__name__}")
        kind = doc.get("kind")
        if not kind:
            raise ManifestError(f"{path}: {where}: missing `kind`")
        if not isinstance(kind, str):
            raise ManifestError(f"{path}: {where}: kind: expected a string, got {type(kind).__name__}")
        if kind.endswith("List"):
            items = doc.get("items") or ()
            if not isinstance(items, list):
                raise ManifestError(f"{path}: {where} ({kind}): items: expected a list, got {type(items).__name__}")
            for i, item in enumerate(items):
                visit(item, f"{where}.items[{i}]")
            return
        meta = doc.get("metadata") or {}
        if not isinstance(meta, dict):
            raise ManifestError(f"{path}: {where} ({kind}): metadata: expected a mapping, got {type(meta).__name__}")
        name = meta.get("name")
        if not name:
            raise ManifestError(f"{path}: {where} ({kind}): missing metadata.name")
        if not isinstance(name, str):
            raise ManifestError(f"{path}: {where} ({kind}): metadata.name: expected a string, got {type(name).__name__}")
        label = f"{where} ({kind} {name})"
        # Every field the scheduler reads must have its shape (spec a mapping, containers a list,
        # ...): one line naming the field, never a traceback from deep inside a plugin.
        shape = SHAPES.get(kind)
        problem = malformed(doc, shape) if shape is not None else None
        if problem:
            raise ManifestError(f"{path}: {label}: {problem}; fix the manifest and retry")
        try:
            if kind == "Pod":
                PodInfo.from_dict(doc)
            elif kind == "Node":
                NodeTable(4).upsert_node(doc)
        except (PodSpecError, NodeSpecError) as exc:
            raise ManifestError(f"{path}: {label}: {exc}; fix the quantity and retry") from None
        objects.append(doc)

    for i, doc in enumerate(docs):
        visit(doc, f"document {i + 1}")
    if not any(o.get("kind") == "Node" for o in objects):
        raise ManifestError(f"{path}: contains no Node objects; nothing to schedule onto")
    return objects


# ---- running --------------------------------------------------------------------------------
# `kubeberth simulate` exit codes (README "Simulate"): CI runs simulate on a config and must see
# a plugin that raised, not a green run with a footnote.
EXIT_OK = 0
EXIT_PODS_ERRORED = 1  # some pod ended in Error: a plugin raised or returned Error on every attempt
EXIT_BAD_INPUT = 2  # config, manifest or plugin file (KubeberthError)
EXIT_UNSCHEDULABLE = 3  # only with --fail-on-unschedulable

DEFAULT_SCHEDULER_NAME = "default-scheduler"


@dataclass
class SimulationResult:
    summary: dict[str, Any]
    scheduler: Scheduler
    backend: EmbeddedCluster
    placements: dict[str, str] = field(default_factory=dict)
    # Every scheduling cycle per pod ("namespace/name"), oldest first, when asked for (keep_history).
    history: dict[str, list[CycleRecord]] = field(default_factory=dict)
    # The input pods as admitted (priority resolved), by "namespace/name".
    inputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    scheduler_names: frozenset[str] = frozenset()

    def pod_index(self) -> dict[str, dict[str, dict[str, Any]]]:
        """The summary's per-pod lists by pod key (built once: the report asks for every pod)."""
        cached = self.__dict__.get("_pod_index")
        if cached is None:
            lists = ("victims", "pending_other_pods", "gated_pods", "errored_pods")
            cached = {name: {e["pod"]: e for e in self.summary.get(name, ())} for name in lists}
            self.__dict__["_pod_index"] = cached
        return cached

    def pod_claims(self) -> dict[str, list[tuple[str, list[str]]]]:
        """ResourceClaims reserved for each pod (by uid), as (claim name, allocated devices as
        driver/pool/device): its own claims and DynamicResources' claim for DRA-backed extended
        resources alike. Built once: the report asks for every pod."""
        cached = self.__dict__.get("_pod_claims")
        if cached is None:
            cached = {}
            for claim in self.backend.list("ResourceClaim"):
                status = claim.get("status") or {}
                results = ((status.get("allocation") or {}).get("devices") or {}).get("results") or ()
                devices = [f"{r.get('driver')}/{r.get('pool')}/{r.get('device')}" for r in results]
                for ref in status.get("reservedFor") or ():
                    cached.setdefault(str(ref.get("uid") or ""), []).append(
                        (str((claim.get("metadata") or {}).get("name", "")), devices))
            self.__dict__["_pod_claims"] = cached
        return cached

    def errored_pods(self) -> list[str]:
        """Pods that ended in Error (gave up after SIMULATE_MAX_ERRORS_PER_POD attempts)."""
        return sorted(e.pod.key for e in self.scheduler.failed.values())

    def unschedulable_pods(self) -> list[str]:
        return sorted(e.pod.key for e in self.scheduler.queue.entries.values() if e.where == "unschedulable")

    def exit_status(self, fail_on_unschedulable: bool = False) -> tuple[int, str]:
        """The process exit code for this run, and a one-line reason when it is not 0."""
        skipped = self.scheduler.skipped_pods
        if skipped:
            return EXIT_BAD_INPUT, f"{len(skipped)} malformed pod(s) skipped: {_first(sorted(skipped.values()), 1)}"
        errored = self.errored_pods()
        if errored:
            return EXIT_PODS_ERRORED, (
                f"{len(errored)} pod(s) ended in Error (a plugin raised or returned Error; see the summary): "
                f"{_first(errored)}"
            )
        unschedulable = self.unschedulable_pods()
        if fail_on_unschedulable and unschedulable:
            return EXIT_UNSCHEDULABLE, (
                f"{len(unschedulable)} pod(s) unschedulable (--fail-on-unschedulable): {_first(unschedulable)}"
            )
        return EXIT_OK, ""


def _first(names: list[str], limit: int = 5) -> str:
    return ", ".join(names[:limit]) + (f", ... ({len(names) - limit} more)" if len(names) > limit else "")


def scheduled_names(generation: Generation, names: list[str] | None = None) -> frozenset[str]:
    """The schedulerNames simulate schedules: the given ones, else the profiles plus default-scheduler."""
    if names:
        return frozenset(names)
    return frozenset(generation.profiles) | {DEFAULT_SCHEDULER_NAME}


def simulate(
    generation: Generation,
    objects: list[dict[str, Any]],
    seed: int | None = 0,
    progress: Callable[[int, int], None] | None = None,
    binding_workers: int = 4,
    observers: list[Callable[[Any], None]] | None = None,
    attach: Callable[[Scheduler], None] | None = None,
    scheduler_names: list[str] | None = None,
    keep_history: bool = False,
    tie_breaker: Callable[[PodInfo, list[str]], str] | None = None,
) -> SimulationResult:
    """Schedule `objects` until settled. `attach(scheduler)` may add observers before it starts.

    `scheduler_names`: pods with these schedulerNames are scheduled (with the profile of that
    name, else the default profile); default: the profiles and `default-scheduler`.
    `tie_breaker(pod, node names)`: chooses among equally scored best nodes (default: the seed).
    """
    warn_missing(check_references(objects))
    clock = VirtualClock()
    backend = EmbeddedCluster(objects, clock=clock.now)
    admitted = backend.pods()  # the input pods as the API server stored them (priority resolved)
    names = scheduled_names(generation, scheduler_names)
    scheduler = Scheduler(
        generation,
        backend,
        clock=clock,
        seed=seed,
        binding_workers=binding_workers,
        max_errors_per_pod=SIMULATE_MAX_ERRORS_PER_POD,
        adopted_scheduler_names=names,
        tie_breaker=tie_breaker,
    )
    scheduler.observers.extend(observers or ())
    # Attempts that ended in Error, retried or not: a plugin that raised once must show up even
    # when its retry succeeded.
    error_attempts = [0]

    def count_errors(record: Any) -> None:
        if record.result == "Error" or (record.binding or {}).get("result") == "Error":
            error_attempts[0] += 1

    scheduler.observers.append(count_errors)
    scheduler.binding_observers.append(count_errors)

    victims: list[dict[str, Any]] = []
    history: dict[str, list[CycleRecord]] = {}

    def watch(record: CycleRecord) -> None:
        pre = record.preemption
        if pre and pre.get("victims"):
            victims.extend(
                {"pod": v, "preemptor": record.pod, "node": pre.get("nominated_node") or ""} for v in pre["victims"]
            )
        if keep_history:
            history.setdefault(record.pod, []).append(record)

    scheduler.observers.append(watch)
    if attach is not None:
        attach(scheduler)
    input_pods = [o for o in objects if o.get("kind") == "Pod"]
    already_bound = sum(1 for p in input_pods if section(p, "spec").get("nodeName"))
    to_schedule = len(input_pods) - already_bound
    scheduler.start_backend()
    scheduler.drain_events()
    t0 = time.perf_counter()
    cpu0 = time.process_time()  # CPU of all threads: less sensitive to a busy machine than wall time
    done = [0]

    def on_progress() -> None:
        done[0] += 1
        if progress is not None and done[0] % 200 == 0:
            progress(scheduler.stats.scheduled, to_schedule)

    scheduler.run_until_settled(on_progress)
    elapsed = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    scheduler.shutdown()
    if progress is not None:
        progress(scheduler.stats.scheduled, to_schedule)
    summary = _summarize(generation, scheduler, backend, len(input_pods), already_bound, elapsed)
    summary["error_attempts"] = error_attempts[0]
    summary["cpu_seconds"] = round(cpu, 3)
    summary["victims"] = victims
    # Buckets are exclusive: a victim counts as preempted, not where it was before.
    gone = {v["pod"] for v in victims} - {
        f"{section(p, 'metadata').get('namespace')}/{section(p, 'metadata').get('name')}" for p in backend.pods()
    }
    bound_before = {
        f"{section(p, 'metadata').get('namespace') or 'default'}/{section(p, 'metadata').get('name')}"
        for p in input_pods
        if section(p, "spec").get("nodeName")
    }
    summary["already_bound"] -= len(gone & bound_before)
    summary["scheduled"] -= len(gone - bound_before)
    summary["scheduler_names"] = sorted(names)
    other = _pending_other(backend, scheduler)
    summary["pending_other"] = len(other)
    summary["pending_other_pods"] = other
    if backend.unknown_priority_classes:
        summary["unknown_priority_classes"] = dict(backend.unknown_priority_classes)
    placements = {
        f"{p['metadata']['namespace']}/{p['metadata']['name']}": p["spec"]["nodeName"]
        for p in backend.pods()
        if section(p, "spec").get("nodeName")
    }
    inputs = {
        f"{section(p, 'metadata').get('namespace') or 'default'}/{section(p, 'metadata').get('name')}": p
        for p in admitted
    }
    return SimulationResult(summary, scheduler, backend, placements, history, inputs, names)


def _pending_other(backend: EmbeddedCluster, scheduler: Scheduler) -> list[dict[str, str]]:
    """Unbound pods no profile of ours handles: a real cluster leaves them to their own scheduler."""
    out = []
    for p in backend.pods():
        spec, meta = section(p, "spec"), section(p, "metadata")
        if spec.get("nodeName") or section(p, "status").get("phase") in ("Succeeded", "Failed"):
            continue
        if meta.get("uid") in scheduler.skipped_pods:
            continue  # malformed: counted as skipped
        name = spec.get("schedulerName") or DEFAULT_SCHEDULER_NAME
        if scheduler.generation.framework_for(name) is None and name not in scheduler.adopted_scheduler_names:
            out.append({"pod": f"{meta.get('namespace') or 'default'}/{meta.get('name')}", "scheduler_name": name})
    return sorted(out, key=lambda o: o["pod"])


def node_usage(scheduler: Scheduler) -> list[dict[str, Any]]:
    """Per node (in name order): zone and requested/allocatable of cpu, memory and pods."""
    table = scheduler.cluster.table
    zone_ids, zones = table.label_values("topology.kubernetes.io/zone") if len(table) else (None, [])
    cols = {r: table.resource_index[r] for r in ("cpu", "memory", "pods")}
    out = []
    for row in table.ordered_rows().tolist():
        entry: dict[str, Any] = {"node": table.names[row]}
        zid = int(zone_ids[row]) if zone_ids is not None else -1
        entry["zone"] = zones[zid] if 0 <= zid < len(zones) else ""
        entry["requested"], entry["allocatable"] = {}, {}
        for resource, col in cols.items():
            alloc = float(table.allocatable[row, col])
            used = float(table.requested[row, col])
            entry[resource] = round(used / alloc, 4) if alloc > 0 else 0.0
            entry["requested"][resource] = used
            entry["allocatable"][resource] = alloc
        entry["pod_count"] = int(table.requested[row, cols["pods"]])
        out.append(entry)
    return sorted(out, key=lambda e: e["node"])


def _summarize(
    generation: Generation, scheduler: Scheduler, backend: EmbeddedCluster, total_pods: int, already_bound: int, elapsed: float
) -> dict[str, Any]:
    queue = scheduler.queue
    counts = queue.counts()
    reasons: Counter[str] = Counter()
    unschedulable_pods = []
    for entry in queue.entries.values():
        # A gang the simulation gave up on (see Scheduler.run_until_settled) may have members
        # queued for another try: they failed their last attempt and stay pending.
        retried = entry.where in ("active", "backoff") and entry.attempts and entry.last_message
        if entry.where == "unschedulable" or retried:
            reasons[entry.last_message] += 1
            unschedulable_pods.append({"pod": entry.pod.key, "message": entry.last_message, "attempts": entry.attempts})
    errors: Counter[str] = Counter(e.last_message for e in scheduler.failed.values())
    gated = [e for e in queue.entries.values() if e.where == "gated"]
    table = scheduler.cluster.table
    rows = table.ordered_rows()
    per_node = Counter(scheduler.cluster.table.names[r] for r in scheduler.cluster.placement.values())
    pods_per_node = [per_node.get(table.names[r], 0) for r in rows.tolist()]
    util: dict[str, Any] = {}
    for resource in ("cpu", "memory"):
        col = table.resource_index[resource]
        alloc = table.allocatable[rows, col].astype(float)
        used = table.requested[rows, col].astype(float)
        frac = np.divide(used, alloc, out=np.zeros_like(used), where=alloc > 0)
        util[resource] = {
            "mean": round(float(frac.mean()), 4) if len(frac) else 0.0,
            "min": round(float(frac.min()), 4) if len(frac) else 0.0,
            "max": round(float(frac.max()), 4) if len(frac) else 0.0,
            "stdev": round(float(frac.std()), 4) if len(frac) else 0.0,
        }
    scheduled = scheduler.stats.scheduled
    remaining_pods = len(backend.pods())
    preempted = total_pods - remaining_pods
    return {
        "nodes": len(table),
        "pods": total_pods,
        "already_bound": already_bound,
        "scheduled": scheduled,
        "unschedulable": sum(reasons.values()),
        "gated": len(gated),
        "errored": sum(errors.values()),
        "skipped": len(scheduler.skipped_pods),  # malformed: cannot be parsed (one warning each)
        "preempted": preempted,
        "still_queued": counts.get("active", 0) + counts.get("backoff", 0) + counts.get("inflight", 0),
        "attempts": scheduler.stats.attempts,
        "preemptions": scheduler.stats.preemptions,
        "seconds": round(elapsed, 3),
        "pods_per_second": round(scheduled / elapsed, 1) if elapsed > 0 else 0.0,
        "unschedulable_reasons": dict(reasons.most_common()),
        "unschedulable_pods": sorted(unschedulable_pods, key=lambda u: u["pod"]),
        "gated_pods": sorted(
            (
                {"pod": e.pod.key, "gates": list(e.pod.scheduling_gates), "plugin": e.gating_plugin,
                 "message": e.last_message}
                for e in gated
            ),
            key=lambda g: g["pod"],
        ),
        "errored_pods": sorted(
            ({"pod": e.pod.key, "message": e.last_message} for e in scheduler.failed.values()), key=lambda g: g["pod"]
        ),
        "error_reasons": dict(errors.most_common()),
        "generation": generation.id,
        "profile": generation.default_profile.profile,
        "plugins": {p: generation.default_profile.enabled(p) for p in ("filter", "score") },
        "pods_per_node": {
            "min": min(pods_per_node, default=0),
            "max": max(pods_per_node, default=0),
            "mean": round(statistics.fmean(pods_per_node), 2) if pods_per_node else 0.0,
        },
        "utilization": util,
    }


def format_summary(summary: dict[str, Any]) -> str:
    """Human-readable placement summary."""
    lines = [
        f"kubeberth simulate — generation {summary['generation']}, profile {summary['profile']}",
        f"  nodes: {summary['nodes']}   pods: {summary['pods']} ({summary['already_bound']} already bound)",
        f"  scheduled: {summary['scheduled']}   unschedulable: {summary['unschedulable']}   gated: {summary['gated']}"
        f"   errored: {summary['errored']}{_retried(summary)}   preempted: {summary['preempted']}"
        f"   pending_other: {summary.get('pending_other', 0)}"
        + (f"   skipped (malformed): {summary['skipped']}" if summary.get("skipped") else ""),
        f"  throughput: {summary['pods_per_second']} pods/s ({summary['attempts']} attempts in {summary['seconds']} s)",
        f"  pods per node: min {summary['pods_per_node']['min']}, mean {summary['pods_per_node']['mean']},"
        f" max {summary['pods_per_node']['max']}",
    ]
    for resource, u in summary["utilization"].items():
        lines.append(
            f"  {resource} requested/allocatable: mean {u['mean']:.1%}, min {u['min']:.1%}, max {u['max']:.1%},"
            f" stdev {u['stdev']:.1%}"
        )
    if summary["unschedulable_reasons"]:
        lines.append("  unschedulable pods:")
        for message, count in summary["unschedulable_reasons"].items():
            lines.append(f"    {count:6d} × {message}")
    if summary["error_reasons"]:
        lines.append("  pods that failed with plugin errors:")
        for message, count in summary["error_reasons"].items():
            lines.append(f"    {count:6d} × {message}")
    if summary.get("victims"):
        lines.append("  preemption victims (victim ← preemptor, node):")
        for v in summary["victims"]:
            lines.append(f"    {v['pod']} ← {v['preemptor']} on {v['node']}")
    other = summary.get("pending_other_pods") or []
    if other:
        by_name = Counter(o["scheduler_name"] for o in other)
        lines.append(
            "  pending for other schedulers (not simulated; --scheduler-names adds them): "
            + ", ".join(f"{n} {name}" for name, n in sorted(by_name.items()))
        )
    return "\n".join(lines)


def _retried(summary: dict[str, Any]) -> str:
    attempts = summary.get("error_attempts", 0)
    return f" ({attempts} failed attempts)" if attempts else ""


def format_placements(placements: dict[str, str]) -> str:
    """`--placements` without --json: one `POD NODE` line per placed pod, sorted."""
    width = max((len(k) for k in placements), default=3)
    rows = [f"{'POD':<{width}}  NODE"] + [f"{k:<{width}}  {placements[k]}" for k in sorted(placements)]
    return "\n".join(rows)


def progress_printer(stream: Any = sys.stderr) -> Callable[[int, int], None]:
    """A one-line progress bar for long runs on a terminal."""

    def show(done: int, total: int) -> None:
        if total <= 0:
            return
        width = 30
        filled = int(width * min(done, total) / total)
        stream.write(f"\r  scheduling [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done >= total:
            stream.write("\n")
        stream.flush()

    return show


def pod_story(result: SimulationResult, key: str) -> dict[str, Any]:
    """What happened to one pod in the simulation (for --explain and the report): its state, a
    sentence about it, and every scheduling cycle it had. Unknown names raise ManifestError."""
    pod = result.inputs.get(key)
    if pod is None:
        import difflib

        close = difflib.get_close_matches(key, list(result.inputs), n=3, cutoff=0.85)
        hint = f"; did you mean {', '.join(close)}?" if close else " (use namespace/name)"
        raise ManifestError(f"--explain: pod {key!r} does not exist in the simulated cluster{hint}")
    cycles = [r.as_dict() for r in result.history.get(key, ())]
    spec = pod.get("spec") or {}
    summary = result.summary
    story: dict[str, Any] = {"pod": key, "cycles": cycles}
    index = result.pod_index()
    victim = index["victims"].get(key)
    other = index["pending_other_pods"].get(key)
    gated = index["gated_pods"].get(key)
    errored = index["errored_pods"].get(key)
    if victim is not None:
        story["state"] = "preempted"
        story["detail"] = (
            f"preempted by {victim['preemptor']} on node {victim['node']} (deleted gracefully:"
            f" terminationGracePeriodSeconds {spec.get('terminationGracePeriodSeconds', 30)})"
        )
    elif other is not None:
        story["state"] = "other-scheduler"
        story["detail"] = (
            f"schedulerName {other['scheduler_name']!r} is not simulated (scheduled: "
            f"{', '.join(summary.get('scheduler_names', ()))}); it stays Pending for its own scheduler."
            " Add it with --scheduler-names."
        )
    elif gated is not None:
        story["state"] = "gated"
        if gated["gates"]:
            story["detail"] = (
                f"schedulingGates {', '.join(gated['gates'])}: never attempted; it waits in the gated pool"
                " until every gate is removed"
            )
        else:  # held by a PreEnqueue plugin, e.g. GangScheduling until its gang is complete
            story["detail"] = (
                f"{gated['plugin']} PreEnqueue: {gated['message']}; never attempted, it waits in the gated pool"
            )
    elif errored is not None:
        story["state"] = "errored"
        story["detail"] = errored["message"]
    elif spec.get("nodeName") and not cycles:
        story["state"] = "already-bound"
        story["detail"] = f"bound to node {spec['nodeName']} in the input; the simulation did not move it"
    elif key in result.placements:
        story["state"] = "scheduled"
        story["detail"] = f"on node {result.placements[key]}"
        uid = str((pod.get("metadata") or {}).get("uid") or "")
        for name, devices in result.pod_claims().get(uid, ()):
            story["detail"] += f"; claim {name}: {', '.join(devices) or 'no devices'}"
    elif cycles and cycles[-1].get("result") == "Unschedulable":
        story["state"] = "unschedulable"
        story["detail"] = cycles[-1].get("message", "")
    else:
        story["state"] = "pending"
    return story
