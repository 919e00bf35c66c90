"""Shadow generations on a running scheduler: start, report, stop (docs/shadow.md).

    POST /shadow/start?plugins=DIR&config=FILE&sample=0.2&cpu_budget=0.25   build and install a candidate
    POST /shadow/stop                                                         remove it (the last report stays)
    GET  /debug/shadow                                                        the report (JSON)

The candidate is built exactly as a hot reload builds a generation (`GenerationBuilder`: the
folder's drop-ins, the configuration, the installed entry points, each plugin's `validate()`),
then dry-run and installed on the scheduling thread (kubeberth.scheduling.shadow). The POST
routes load code, so they are served as POST /reload is: on the secure port to callers the API
server authorizes to `create` the nonResourceURL (ClusterRole kubeberth:admin), on a plain-HTTP
listener to loopback clients only. `kubeberth shadow start|stop|report --server URL` calls them.

The report holds the divergence report simulate --compare also prints
(kubeberth.observability.divergence), the shadow's counts and its cost against the live cycles';
/metrics carries kubeberth_shadow_* families; each compared pod has a ShadowDecision span linked
to its live SchedulingCycle span.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlencode

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from ..errors import KubeberthError
from ..observability.divergence import DivergenceReport, format_divergences
from ..runtime.reload import GenerationBuilder
from ..scheduling.shadow import ShadowOutcome, ShadowPolicy, ShadowRun
from .httpserver import HTTPServer, Request
from .serving.client import ServerAuth, explain_failure
from .serving.options import is_loopback

if TYPE_CHECKING:
    from ..api.features import FeatureGates
    from ..observability import Observability
    from ..scheduling.scheduler import Scheduler

log = logging.getLogger(__name__)

JSON = "application/json"
TEXT = "text/plain; charset=utf-8"
INSTALL_TIMEOUT_SECONDS = 30.0
DIVERGENCES_KEPT = 50  # per kind, the most recent
ERRORS_KEPT = 20


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


class ShadowController:
    """The shadow generation of one scheduler: thread-safe start/stop/report; the outcomes arrive
    on the scheduling thread."""

    def __init__(
        self,
        scheduler: Scheduler,
        observability: Observability | None = None,
        *,
        live_config: str | Path | None = None,
        feature_gates: FeatureGates | None = None,
        allow_insecure_plugins_dir: bool = False,
        refusal: Callable[[Path | None], str | None] | None = None,
    ) -> None:
        """`refusal(folder)`: why a build of `folder` must not run (the reloader's quarantine)."""
        self.scheduler = scheduler
        self.refusal = refusal
        self.observability = observability
        self.live_config = live_config
        self.feature_gates = feature_gates or scheduler.generation.feature_gates
        self.allow_insecure_plugins_dir = allow_insecure_plugins_dir
        self.run: ShadowRun | None = None
        self.active = False
        self._lock = threading.Lock()
        self._starting = threading.Lock()  # one build at a time
        self._report = DivergenceReport(("live", "shadow"), keep=DIVERGENCES_KEPT)
        self._errors: deque[dict[str, Any]] = deque(maxlen=ERRORS_KEPT)
        self._results: dict[str, int] = {}
        self._source: dict[str, Any] = {}
        self._started = self._stopped = 0.0
        metrics = getattr(observability, "metrics", None)
        if metrics is not None:
            metrics.registry.register(ShadowMetrics(self))

    # ---- start / stop (any thread) ---------------------------------------------------------
    def start(
        self, plugins_dir: str | Path | None, config: str | Path | None = None, policy: ShadowPolicy | None = None,
        wait: bool = True,
    ) -> dict[str, Any]:
        """Build the candidate as a reload would, dry-run and install it (replacing a running
        shadow); one-line KubeberthError when it cannot be built or fails the dry run. `wait=False`
        (at start-up, before the loop runs): the loop installs it, a dry-run failure is logged."""
        policy = policy or ShadowPolicy()
        try:
            policy.check()
        except ValueError as exc:
            raise KubeberthError(f"shadow: {exc}") from None
        if plugins_dir is not None and not Path(plugins_dir).is_dir():
            raise KubeberthError(f"shadow: plugins folder {plugins_dir}: no such directory")
        config = config or self.live_config
        refused = self.refusal(Path(plugins_dir)) if self.refusal is not None and plugins_dir is not None else None
        if refused is not None:
            raise KubeberthError(f"shadow: {refused}")
        with self._starting:
            builder = GenerationBuilder(
                config, plugins_dir, allow_insecure_plugins_dir=self.allow_insecure_plugins_dir,
                feature_gates=self.feature_gates,
            )
            generation = builder.build()  # KubeberthError names the file
            run = ShadowRun(generation, policy, self._outcome)
            with self._lock:  # reset before the loop can hand over the first outcome
                self.run, self.active = run, True
                self._report = DivergenceReport(("live", "shadow"), keep=DIVERGENCES_KEPT)
                self._errors.clear()
                self._results = {}
                self._started, self._stopped = time.time(), 0.0
                self._source = {"plugins_dir": str(plugins_dir) if plugins_dir else None,
                                "config": str(config) if config else None}
            if not wait:
                self.scheduler.submit(lambda: self._install_logged(run))
                return self.report()
            try:
                error = self._on_loop(lambda: self._install(run))
            except KubeberthError:
                error = "the scheduling loop did not install it"
            if error:  # a shadow running before was removed: none runs now
                with self._lock:
                    self.active, self._stopped = False, time.time()
                raise KubeberthError(f"shadow: generation {generation.id} refused: {error}")
        log.info("shadow generation %s started (sample %g, cpu budget %g)", generation.id, policy.sample,
                 policy.cpu_budget)
        return self.report()

    def _install(self, run: ShadowRun) -> str | None:
        current = self.scheduler.shadow
        if current is not None:
            current.uninstall(self.scheduler)
        return run.install(self.scheduler)

    def _install_logged(self, run: ShadowRun) -> None:
        error = self._install(run)
        if error:
            with self._lock:
                self.active, self._stopped = False, time.time()
            log.error("shadow generation %s refused: %s", run.generation.id, error)
        else:
            log.info("shadow generation %s started", run.generation.id)

    def stop(self) -> dict[str, Any]:
        """Remove the shadow (the next cycle runs without it); the report is kept."""
        run = self.run
        if run is not None:
            self._on_loop(lambda: run.uninstall(self.scheduler))
        with self._lock:
            was = self.active
            self.active = False
            if was:
                self._stopped = time.time()
        if was and run is not None:
            log.info("shadow generation %s stopped", run.generation.id)
        return self.report()

    def _on_loop(self, work: Any) -> Any:
        """Run `work` on the scheduling thread between cycles and wait for its result."""
        try:
            return self.scheduler.call(work, INSTALL_TIMEOUT_SECONDS)
        except TimeoutError:
            raise KubeberthError(f"shadow: the scheduling loop did not answer within {INSTALL_TIMEOUT_SECONDS:.0f}s") from None
        except Exception as exc:
            raise KubeberthError(f"shadow: {type(exc).__name__}: {exc}") from exc

    # ---- outcomes (the scheduling thread) --------------------------------------------------
    def _outcome(self, outcome: ShadowOutcome) -> None:
        trace_id = self._span(outcome)
        with self._lock:
            if outcome.error:
                result = "error"
                self._errors.append({"pod": outcome.pod, "error": outcome.error, "at": _iso(time.time())})
            else:
                detail = outcome.detail
                if detail is not None and trace_id:
                    detail = {**detail, "trace_id": trace_id}
                result = self._report.add(outcome.pod, outcome.live_node, outcome.shadow_node, outcome.message, detail)
            self._results[result] = self._results.get(result, 0) + 1

    def _span(self, outcome: ShadowOutcome) -> str:
        tracer = getattr(self.observability, "tracer", None)
        run = self.run
        if tracer is None or run is None:
            return ""
        namespace, _, name = outcome.pod.partition("/")
        attrs: dict[str, Any] = {
            "k8s.namespace.name": namespace,
            "k8s.pod.name": name,
            "k8s.pod.uid": outcome.uid,
            "kubeberth.profile": outcome.profile,
            "kubeberth.generation": run.generation.id,
            "kubeberth.shadow.live_node": outcome.live_node or "",
            "kubeberth.shadow.node": outcome.shadow_node or "",
            "kubeberth.shadow.agrees": not outcome.error and outcome.live_node == outcome.shadow_node,
            "kubeberth.shadow.tied_node": outcome.tied_node or "",
            "kubeberth.shadow.seconds": round(outcome.shadow_seconds, 6),
            "kubeberth.shadow.live_seconds": round(outcome.live_seconds, 6),
        }
        if outcome.message:
            attrs["kubeberth.message"] = outcome.message
        record = outcome.live_record
        if record is not None:
            attrs["kubeberth.live_generation"] = record.generation
        live = record.span_context if record is not None else None
        return tracer.shadow_decision(live, attrs, outcome.start_ns, outcome.end_ns, outcome.error)

    # ---- the report (any thread) ---------------------------------------------------------------
    def report(self) -> dict[str, Any]:
        """GET /debug/shadow."""
        run = self.run
        with self._lock:
            if run is None:
                return {"active": False, "generation": None}
            divergences = self._report.as_dict()
            errors = list(self._errors)
            results = dict(self._results)
            started, stopped, source, active = self._started, self._stopped, dict(self._source), self.active
        counts = run.counts
        compared = counts.compared
        cost = {
            "live_seconds": round(counts.live_seconds, 6),
            "shadow_seconds": round(counts.shadow_seconds, 6),
            "detail_seconds": round(counts.detail_seconds, 6),
            "ratio": round(counts.shadow_seconds / counts.live_seconds, 4) if counts.live_seconds else None,
            "with_detail_ratio": round((counts.shadow_seconds + counts.detail_seconds) / counts.live_seconds, 4)
            if counts.live_seconds else None,
            "shadow_ms_per_pod": round(counts.shadow_seconds * 1000 / compared, 4) if compared else None,
            "live_ms_per_pod": round(counts.live_seconds * 1000 / compared, 4) if compared else None,
            "budget_share": run.budget_share(),
        }
        return {
            "active": active,
            "generation": run.generation.id,
            "live_generation": self.scheduler.generation.id,
            "started": _iso(started),
            "stopped": _iso(stopped) if stopped else None,
            **source,
            "policy": {"sample": run.policy.sample, "cpu_budget": run.policy.cpu_budget, "window": run.policy.window},
            "pods": {
                "compared": compared,
                "agreed": divergences["agreed"],
                "agreed_on_tie": counts.ties,
                "errors": counts.errors,
                "skipped_sampling": counts.skipped_sampling,
                "skipped_budget": counts.skipped_budget,
                **{f"skipped_{k}": v for k, v in counts.skipped_other.items()},
            },
            "agreement": divergences["agreement"],
            "results": results,
            "writes_refused": counts.writes_refused,
            "cost": cost,
            "divergences": divergences,
            "errors": errors,
        }


class ShadowMetrics:
    """kubeberth_shadow_* at scrape time (a prometheus_client collector on the scheduler's registry)."""

    def __init__(self, controller: ShadowController) -> None:
        self.controller = controller

    def describe(self) -> list[Metric]:
        return []

    def collect(self) -> Iterator[Metric]:
        c = self.controller
        run = c.run
        active = GaugeMetricFamily("kubeberth_shadow_active", "1 while a shadow generation decides beside the live one.",
                                   labels=["generation"])
        if run is not None:
            active.add_metric([run.generation.id], 1.0 if c.active else 0.0)
        yield active
        if run is None:
            return
        with c._lock:
            results = dict(c._results)
            agreement = c._report.agreement()
        pods = CounterMetricFamily(
            "kubeberth_shadow_pods", "Pods the shadow generation decided, by how its decision compares with the live one "
            "(agree, moved, newly_unschedulable, newly_placed, error).", labels=["result"])
        for result in ("agree", "moved", "newly_unschedulable", "newly_placed", "error"):
            pods.add_metric([result], float(results.get(result, 0)))
        yield pods
        counts = run.counts
        skipped = CounterMetricFamily("kubeberth_shadow_skipped_pods", "Live cycles the shadow did not decide, by why "
                                      "(sampling, budget, live_error, no_profile).", labels=["reason"])
        skipped.add_metric(["sampling"], float(counts.skipped_sampling))
        skipped.add_metric(["budget"], float(counts.skipped_budget))
        for why, n in counts.skipped_other.items():
            skipped.add_metric([why], float(n))
        yield skipped
        if agreement is not None:
            yield GaugeMetricFamily("kubeberth_shadow_agreement_ratio",
                                    "Share of compared pods the shadow placed as the live generation did.", value=agreement)
        seconds = CounterMetricFamily("kubeberth_shadow_seconds", "Seconds of the compared pods' cycles on the scheduling "
                                      "thread, by side (live, shadow, detail).", labels=["side"])
        seconds.add_metric(["live"], counts.live_seconds)
        seconds.add_metric(["shadow"], counts.shadow_seconds)
        seconds.add_metric(["detail"], counts.detail_seconds)
        yield seconds
        if counts.live_seconds:
            yield GaugeMetricFamily("kubeberth_shadow_cost_ratio", "Shadow cycle seconds per live cycle second of the "
                                    "compared pods.", value=counts.shadow_seconds / counts.live_seconds)
        yield CounterMetricFamily("kubeberth_shadow_writes_refused", "Writes the shadow generation's plugins attempted "
                                  "(each refused).", value=float(counts.writes_refused))


# ---- the HTTP routes ---------------------------------------------------------------------------
def add_shadow_routes(http: HTTPServer, controller: ShadowController) -> None:
    def report() -> tuple[int, str, bytes]:
        return 200, JSON, json.dumps(controller.report()).encode()

    def allowed(request: Request) -> tuple[int, str, bytes] | None:
        if request.authorized or is_loopback(request.client):
            return None
        return 403, TEXT, f"POST {request.path}: on plain HTTP it is served to loopback clients only (use the secure port)\n".encode()

    def start(request: Request) -> tuple[int, str, bytes]:
        refused = allowed(request)
        if refused is not None:
            return refused
        params = {k: v[-1] for k, v in parse_qs(request.query).items()}
        try:
            policy = ShadowPolicy(
                sample=_number(params, "sample", 1.0), cpu_budget=_number(params, "cpu_budget", 0.25),
                window=_number(params, "window", 10.0),
            )
            body = controller.start(params.get("plugins") or None, params.get("config") or None, policy)
        except KubeberthError as exc:
            return 422, JSON, json.dumps({"error": str(exc)}).encode()
        return 200, JSON, json.dumps(body).encode()

    def stop(request: Request) -> tuple[int, str, bytes]:
        refused = allowed(request)
        if refused is not None:
            return refused
        return 200, JSON, json.dumps(controller.stop()).encode()

    http.add_route("/debug/shadow", report)
    http.add_post_route("/shadow/start", start)
    http.add_post_route("/shadow/stop", stop)


def _number(params: dict[str, str], name: str, default: float) -> float:
    raw = params.get(name)
    if raw is None or raw == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise KubeberthError(f"shadow: {name}={raw!r} is not a number") from None


# ---- the client (kubeberth shadow ...) -----------------------------------------------------------
def call_server(server: str, action: str, params: dict[str, Any] | None = None, auth: ServerAuth | None = None,
                timeout: float = 60.0, group: str = "shadow") -> dict[str, Any]:
    """POST /<group>/<action> (start, stop; canary's promote) or GET /debug/<group> (report);
    one-line errors. `group`: shadow or canary."""
    auth = auth or ServerAuth()
    base = server.rstrip("/")
    if action == "report":
        url, method, data = f"{base}/debug/{group}", "GET", None
    else:
        query = urlencode({k: str(v) for k, v in (params or {}).items() if v is not None})
        url, method, data = f"{base}/{group}/{action}" + (f"?{query}" if query else ""), "POST", b""
    request = urllib.request.Request(url, method=method, data=data, headers={"Accept": JSON})
    if auth.token:
        request.add_header("Authorization", f"Bearer {auth.token}")
    context = auth.context() if url.lower().startswith("https:") else None
    try:
        with urllib.request.urlopen(request, timeout=timeout, context=context) as resp:  # noqa: S310 - operator's URL
            return json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        if exc.code == 422:
            body = json.loads(exc.read() or b"{}")
            raise KubeberthError(str(body.get("error") or f"{url}: 422")) from None
        raise KubeberthError(explain_failure(exc, url, auth) or f"--server {server}: {url}: {exc}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise KubeberthError(explain_failure(exc, url, auth) or f"--server {server}: cannot reach {url}: {exc}") from None


def render_report(report: dict[str, Any]) -> str:
    """`kubeberth shadow report`: agreement, counts, cost, then the divergences."""
    if report.get("generation") is None:
        return "no shadow generation has run on this scheduler (kubeberth shadow start --server URL --plugins DIR)"
    state = "running" if report["active"] else f"stopped at {report['stopped']}"
    pods = report["pods"]
    agreement = report["agreement"]
    lines = [
        f"shadow generation {report['generation']} beside live {report['live_generation']} ({state}, since "
        f"{report['started']}; plugins {report.get('plugins_dir') or '-'}, config {report.get('config') or '-'})",
        f"  compared {pods['compared']} pods: agreement {'-' if agreement is None else f'{agreement:.1%}'}, "
        f"errors {pods['errors']}; skipped: sampling {pods['skipped_sampling']}, budget {pods['skipped_budget']}",
    ]
    cost = report["cost"]
    if cost["ratio"] is not None:
        lines.append(
            f"  cost: shadow {cost['shadow_ms_per_pod']:.3f} ms per pod vs live {cost['live_ms_per_pod']:.3f} ms "
            f"(ratio {cost['ratio']:.2f}, {cost['with_detail_ratio']:.2f} with divergence detail); "
            f"writes refused: {report['writes_refused']}"
        )
    divergences = report["divergences"]
    for cause in divergences.get("top_causes", [])[:5]:
        who = "shadow" if cause["side"] == "after" else "live"
        lines.append(f"  cause: {who} rejects with {cause['plugin']}: {cause['reason']} ({cause['pods']} pods)")
    lines += format_divergences(divergences, shown=5)
    for err in report["errors"][-5:]:
        lines.append(f"  error: {err['pod']}: {err['error']}")
    return "\n".join(lines)
