"""Canary generations on a running scheduler: start, report, promote, stop (docs/shadow.md, "Canary").

    POST /canary/start?plugins=DIR&config=FILE&share=10%&namespace=NS&selector=k=v&...   build and start
    POST /canary/promote                                                                   promote it now
    POST /canary/stop                                                                      end it (pods back to live)
    GET  /debug/canary                                                                     the report (JSON)

The candidate is built as a hot reload builds a generation (`GenerationBuilder`), then installed
on the scheduling thread (kubeberth.scheduling.canary: dry run, then the selected pods' cycles run
on it). The verdict of its thresholds, or a promote or stop asked for, is acted on here: a
promotion swaps the candidate in through the reloader (`Reloader.adopt`: the live generation, on
probation as after a reload), a rollback ends the canary and is recorded as a rollback
(`Reloader.candidate_rolled_back`). Every step is an Event on the scheduler's Lease
(CanaryStarted, CanaryPromoted, CanaryRolledBack, CanaryStopped) and the state is in
/debug/generation's `canary`. The POST routes are served as POST /reload and /shadow/* are (the
nonResourceURL `/canary/*` for ClusterRole kubeberth:admin; loopback only on plain HTTP).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from ..errors import KubeberthError
from ..observability.divergence import DivergenceReport, format_divergences
from ..runtime.generation import Generation
from ..runtime.reload import GenerationBuilder
from ..scheduling.canary import CanaryPolicy, CanaryRun, CanarySelection, CanaryVerdict
from ..scheduling.shadow import ShadowOutcome
from .httpserver import HTTPServer, Request
from .serving.client import ServerAuth
from .serving.options import is_loopback
from .shadow import _iso, call_server

if TYPE_CHECKING:
    from ..api.features import FeatureGates
    from ..observability import Observability
    from ..scheduling.scheduler import Scheduler
    from .reloader import Reloader

log = logging.getLogger(__name__)

JSON = "application/json"
TEXT = "text/plain; charset=utf-8"
LOOP_TIMEOUT_SECONDS = 30.0
DIVERGENCES_KEPT = 50
PODS_KEPT = 50  # the canary's last bound pods listed in the report
STEPS = ("started", "promoted", "rolled_back", "stopped")

Announce = Callable[..., None]  # LeaseEvents.record(reason, message, action=None, event_type="Warning")


class CanaryController:
    """The canary of one scheduler: thread-safe start/promote/stop/report; verdicts arrive on the
    scheduling thread."""

    def __init__(
        self,
        scheduler: Scheduler,
        reloader: Reloader,
        observability: Observability | None = None,
        *,
        live_config: str | Path | None = None,
        feature_gates: FeatureGates | None = None,
        allow_insecure_plugins_dir: bool = False,
        announce: Announce | None = None,
    ) -> None:
        self.scheduler = scheduler
        self.reloader = reloader
        self.observability = observability
        self.live_config = live_config
        self.feature_gates = feature_gates or scheduler.generation.feature_gates
        self.allow_insecure_plugins_dir = allow_insecure_plugins_dir
        self.announce = announce
        self.run: CanaryRun | None = None
        self.state = "none"  # none, running, promoting, promoted, rolled_back, stopped
        self.steps: list[dict[str, Any]] = []
        self.step_counts = dict.fromkeys(STEPS, 0)
        self._lock = threading.Lock()
        self._starting = threading.Lock()
        self._report = DivergenceReport(("canary", "live"), keep=DIVERGENCES_KEPT)
        self._bound: deque[dict[str, str]] = deque(maxlen=PODS_KEPT)
        self._source: dict[str, Any] = {}
        self._promoted = threading.Event()
        reloader.canary_status = self.summary
        scheduler.binding_observers.append(self._binding_done)
        metrics = getattr(observability, "metrics", None)
        if metrics is not None:
            metrics.registry.register(CanaryMetrics(self))

    # ---- start / promote / stop (any thread) ---------------------------------------------------
    def start(self, plugins_dir: str | Path | None, config: str | Path | None, selection: CanarySelection,
              policy: CanaryPolicy | None = None) -> dict[str, Any]:
        """Build the candidate as a reload would and start the canary; one-line KubeberthError
        (naming the field or file) when it cannot start — a running canary is left as it is."""
        policy = policy or CanaryPolicy()
        try:
            policy.check()
        except ValueError as exc:
            raise KubeberthError(f"canary: {exc}") from None
        if plugins_dir is not None and not Path(plugins_dir).is_dir():
            raise KubeberthError(f"canary: plugins: {plugins_dir}: no such directory")
        if config is not None and not Path(config).is_file():
            raise KubeberthError(f"canary: config: {config}: no such file")
        if plugins_dir is None and config is None:
            raise KubeberthError("canary: plugins, config: give the candidate's plugin folder and/or configuration")
        with self._lock:
            if self.state in ("running", "promoting"):
                assert self.run is not None
                raise KubeberthError(f"canary: generation {self.run.generation_id} is {self.state}: promote or stop it "
                                     "first (kubeberth canary promote|stop)")
        refused = self.reloader.guard.quarantine.refusal(Path(plugins_dir)) if plugins_dir is not None else None
        if refused is not None:
            raise KubeberthError(f"canary: {refused}")
        config = config or self.live_config
        with self._starting:
            builder = GenerationBuilder(config, plugins_dir, allow_insecure_plugins_dir=self.allow_insecure_plugins_dir,
                                        feature_gates=self.feature_gates)
            generation = builder.build()  # KubeberthError names the file
            live = self.scheduler.generation
            run = CanaryRun(generation, live, selection, policy, self._verdict, self._compared)
            source = {"plugins_dir": str(plugins_dir) if plugins_dir else None, "config": str(config) if config else None}
            error = self._on_loop(lambda: self._install(run, source))
            if error:
                raise KubeberthError(f"canary: generation {generation.id} refused: {error}")
        return self.report()

    def _install(self, run: CanaryRun, source: dict[str, Any]) -> str | None:
        """On the scheduling thread: install `run` and record its start before any of its cycles."""
        with self._lock:
            if self.run is not None and self.state in ("running", "promoting"):
                return f"generation {self.run.generation_id} is {self.state}: promote or stop it first"
        error = run.install(self.scheduler)
        if error is not None:
            return error
        policy = run.policy
        with self._lock:
            self.run, self.state = run, "running"
            labels = ("canary", "live") if policy.compare == "canary" else ("live", "canary")
            self._report = DivergenceReport(labels, keep=DIVERGENCES_KEPT)
            self._bound.clear()
            self.steps = []
            self._promoted.clear()
            self._source = source
        what = ", ".join(f"{k} {v}" for k, v in _selection_text(run.selection).items())
        self._step("started", "CanaryStarted", f"generation {run.generation_id} schedules {what} beside live "
                                               f"{run.live_id} (promote {policy.promote} after {policy.min_pods} pods "
                                               f"and {policy.min_seconds:g}s)", "Normal", {})
        return None

    def promote(self, timeout: float = LOOP_TIMEOUT_SECONDS) -> dict[str, Any]:
        """Promote the running canary now (whatever its figures); waits for the swap."""
        run = self._running("promote")
        verdict = self._on_loop(lambda: run.decide("promote", "promotion asked for (kubeberth canary promote)"))
        if verdict is None and (run.verdict is None or run.verdict.action != "promote"):
            raise KubeberthError(f"canary: generation {run.generation_id} was {self.state.replace('_', ' ')} already")
        if not self._promoted.wait(timeout):
            raise KubeberthError(f"canary: the scheduling loop did not swap generation {run.generation_id} in within "
                                 f"{timeout:.0f}s")
        return self.report()

    def stop(self) -> dict[str, Any]:
        """End the running canary: its pods go back to the live generation (the report stays)."""
        run = self.run
        if run is not None and self.state == "running":
            self._on_loop(lambda: run.decide("stop", "stop asked for (kubeberth canary stop)"))
        return self.report()

    def _running(self, action: str) -> CanaryRun:
        with self._lock:
            run, state = self.run, self.state
        if run is None or state not in ("running", "promoting"):
            raise KubeberthError(f"canary: no canary is running to {action} (kubeberth canary start --server URL ...)")
        return run

    def _on_loop(self, work: Callable[[], Any]) -> Any:
        try:
            return self.scheduler.call(work, LOOP_TIMEOUT_SECONDS)
        except TimeoutError:
            raise KubeberthError(f"canary: the scheduling loop did not answer within {LOOP_TIMEOUT_SECONDS:.0f}s") from None
        except Exception as exc:
            raise KubeberthError(f"canary: {type(exc).__name__}: {exc}") from exc

    # ---- verdicts (the scheduling thread) ----------------------------------------------------------
    def _verdict(self, run: CanaryRun, verdict: CanaryVerdict) -> None:
        figures = verdict.figures
        if verdict.action == "promote":
            with self._lock:
                self.state = "promoting"

            def swapped(old: Generation, new: Generation) -> None:
                run.uninstall(self.scheduler, promoted=True)
                with self._lock:
                    self.state = "promoted"
                self._step("promoted", "CanaryPromoted", f"generation {new.id} promoted, replacing {old.id}: "
                                                         f"{verdict.reason}; {_figures_text(figures)}", "Normal", figures)
                self._promoted.set()

            self.reloader.adopt(run.generation, "canary", on_swapped=swapped)
            return
        run.uninstall(self.scheduler)
        if verdict.action == "stop":
            with self._lock:
                self.state = "stopped"
            self._step("stopped", "CanaryStopped", f"generation {run.generation_id} stopped: {verdict.reason}; "
                                                   f"{_figures_text(figures)}", "Normal", figures)
            return
        with self._lock:
            self.state = "rolled_back"
        self.reloader.candidate_rolled_back(run.generation_id, verdict.reason)
        self._step("rolled_back", "CanaryRolledBack", f"generation {run.generation_id} rolled back, its pods back to "
                                                      f"{run.live_id}: {verdict.reason}; {_figures_text(figures)}",
                   "Warning", figures)

    def _step(self, step: str, reason: str, message: str, event_type: str, figures: dict[str, Any]) -> None:
        with self._lock:
            self.steps.append({"step": step, "at": _iso(time.time()), "message": message, "figures": figures or None})
            self.step_counts[step] += 1
        (log.warning if event_type == "Warning" else log.info)("canary: %s", message)
        if self.announce is not None:
            try:
                self.announce(reason, message, None, event_type)
            except Exception:  # noqa: BLE001 - best effort
                log.exception("announcing the canary's %s failed", step)

    def _compared(self, outcome: ShadowOutcome) -> None:
        if outcome.error:
            return
        with self._lock:
            self._report.add(outcome.pod, outcome.live_node, outcome.shadow_node, outcome.message, outcome.detail)

    def _binding_done(self, record: Any) -> None:
        run = self.run
        binding = record.binding or {}
        if run is not None and binding.get("result") == "Bound" and binding.get("generation") == run.generation_id:
            with self._lock:
                self._bound.append({"pod": record.pod, "node": binding.get("node", "")})

    # ---- reports (any thread) ---------------------------------------------------------------------
    def summary(self) -> dict[str, Any] | None:
        """/debug/generation's `canary`: the candidate, its state, its steps."""
        run = self.run
        if run is None:
            return None
        with self._lock:
            return {"generation": run.generation_id, "state": self.state, "selection": _selection_text(run.selection),
                    "steps": [{k: v for k, v in s.items() if k != "figures"} for s in self.steps]}

    def report(self) -> dict[str, Any]:
        """GET /debug/canary."""
        run = self.run
        if run is None:
            return {"state": "none", "generation": None}
        figures = run.figures()
        with self._lock:
            divergences = self._report.as_dict()
            body = {
                "state": self.state,
                "generation": run.generation_id,
                "live_generation": self.scheduler.generation.id,
                "beside": run.live_id,
                **self._source,
                "selection": _selection_text(run.selection),
                "policy": run.policy.as_dict(),
                "figures": figures,
                "verdict": None if run.verdict is None else {"action": run.verdict.action, "reason": run.verdict.reason,
                                                             "automatic": run.verdict.automatic},
                "steps": list(self.steps),
                "bound": list(self._bound),
                "divergences": divergences,
            }
        return body


def _selection_text(selection: CanarySelection) -> dict[str, Any]:
    return {k: v for k, v in selection.describe().items() if v is not None}


def _figures_text(figures: dict[str, Any]) -> str:
    c, v = figures.get("canary") or {}, figures.get("live") or {}
    if not c:
        return ""
    parts = [f"canary {c['attempts']} attempts ({c['errors']} errors, {c['unschedulable_rate']:.1%} unschedulable)",
             f"live {v['attempts']} ({v['errors']} errors, {v['unschedulable_rate']:.1%} unschedulable)"]
    if figures.get("agreement") is not None:
        parts.append(f"agreement {figures['agreement']:.1%} over {figures['compared']} pods")
    if figures.get("cost_ratio") is not None:
        parts.append(f"cost {figures['cost_ratio']:.2f}x")
    return ", ".join(parts) + f" in {figures['seconds']:.0f}s"


class CanaryMetrics:
    """kubeberth_canary_* at scrape time."""

    def __init__(self, controller: CanaryController) -> None:
        self.controller = controller

    def describe(self) -> list[Metric]:
        return []

    def collect(self) -> Iterator[Metric]:
        c = self.controller
        run = c.run
        active = GaugeMetricFamily("kubeberth_canary_active", "1 while a canary generation schedules a share of the pods.",
                                   labels=["generation"])
        if run is not None:
            active.add_metric([run.generation_id], 1.0 if c.state in ("running", "promoting") else 0.0)
        yield active
        steps = CounterMetricFamily("kubeberth_canary_steps", "Canary steps (started, promoted, rolled_back, stopped).",
                                    labels=["step"])
        with c._lock:
            counts = dict(c.step_counts)
        for step in STEPS:
            steps.add_metric([step], float(counts[step]))
        yield steps
        if run is None:
            return
        pods = CounterMetricFamily("kubeberth_canary_pods", "Scheduling attempts of the current canary, by side (live, "
                                   "canary) and result (scheduled, unschedulable, error, bound, bind_error).",
                                   labels=["side", "result"])
        seconds = CounterMetricFamily("kubeberth_canary_seconds", "Scheduling cycle seconds of the current canary, by "
                                      "side.", labels=["side"])
        for side, counts_ in run.counts.items():
            d = counts_.as_dict()
            for result in ("scheduled", "unschedulable", "bound", "bind_error"):
                pods.add_metric([side, result], float(d["bind_errors" if result == "bind_error" else result]))
            pods.add_metric([side, "error"], float(d["errors"] - d["bind_errors"]))
            seconds.add_metric([side], counts_.seconds)
        yield pods
        yield seconds
        agreement = run.agreement()
        if agreement is not None:
            yield GaugeMetricFamily("kubeberth_canary_agreement_ratio", "Share of compared pods both generations "
                                    "placed on the same node.", value=agreement)


# ---- the HTTP routes ---------------------------------------------------------------------------
POLICY_FIELDS: dict[str, type] = {
    "min_pods": int, "min_seconds": float, "max_error_rate": float, "unschedulable_margin": float,
    "min_agreement": float, "max_cost_ratio": float, "promote": str, "compare": str, "sample": float,
    "cpu_budget": float,
}


def parse_start(params: dict[str, str]) -> tuple[CanarySelection, CanaryPolicy]:
    """The start request's selection and thresholds; KubeberthError naming the field."""
    try:
        selection = CanarySelection.parse(params.get("share"), params.get("namespace"), params.get("selector"))
        values: dict[str, Any] = {}
        for name, kind in POLICY_FIELDS.items():
            raw = params.get(name)
            if raw is None or raw == "":
                continue
            try:
                values[name] = kind(raw)
            except ValueError:
                raise ValueError(f"{name}: {raw!r} is not {'an integer' if kind is int else 'a number'}") from None
        policy = CanaryPolicy(**values)
        policy.check()
    except ValueError as exc:
        raise KubeberthError(f"canary: {exc}") from None
    unknown = sorted(set(params) - set(POLICY_FIELDS) - {"share", "namespace", "selector", "plugins", "config"})
    if unknown:
        raise KubeberthError(f"canary: {', '.join(unknown)}: unknown parameter(s)")
    return selection, policy


def add_canary_routes(http: HTTPServer, controller: CanaryController) -> None:
    def report() -> tuple[int, str, bytes]:
        return 200, JSON, json.dumps(controller.report()).encode()

    def allowed(request: Request) -> tuple[int, str, bytes] | None:
        if request.authorized or is_loopback(request.client):
            return None
        return 403, TEXT, f"POST {request.path}: on plain HTTP it is served to loopback clients only (use the secure port)\n".encode()

    def guarded(action: Callable[[dict[str, str]], dict[str, Any]]) -> Callable[[Request], tuple[int, str, bytes]]:
        def route(request: Request) -> tuple[int, str, bytes]:
            refused = allowed(request)
            if refused is not None:
                return refused
            params = {k: v[-1] for k, v in parse_qs(request.query).items()}
            try:
                body = action(params)
            except KubeberthError as exc:
                return 422, JSON, json.dumps({"error": str(exc)}).encode()
            return 200, JSON, json.dumps(body).encode()

        return route

    def start(params: dict[str, str]) -> dict[str, Any]:
        selection, policy = parse_start(params)
        return controller.start(params.get("plugins") or None, params.get("config") or None, selection, policy)

    http.add_route("/debug/canary", report)
    http.add_post_route("/canary/start", guarded(start))
    http.add_post_route("/canary/promote", guarded(lambda _: controller.promote()))
    http.add_post_route("/canary/stop", guarded(lambda _: controller.stop()))


# ---- the client (kubeberth canary ...) -----------------------------------------------------------
def call_canary(server: str, action: str, params: dict[str, Any] | None = None, auth: ServerAuth | None = None,
                timeout: float = 60.0) -> dict[str, Any]:
    """POST /canary/<action> (start, promote, stop) or GET /debug/canary (report); one-line errors."""
    return call_server(server, action, params, auth, timeout, group="canary")


def render_report(report: dict[str, Any]) -> str:
    """`kubeberth canary report`: state, selection, both sides' figures, steps, divergences."""
    if report.get("generation") is None:
        return "no canary has run on this scheduler (kubeberth canary start --server URL --plugins DIR --share 10%)"
    selection = ", ".join(f"{k} {v}" for k, v in report["selection"].items())
    lines = [f"canary generation {report['generation']} beside {report['beside']}: {report['state'].replace('_', ' ')} "
             f"(live now {report['live_generation']}; pods: {selection}; plugins {report.get('plugins_dir') or '-'}, "
             f"config {report.get('config') or '-'})"]
    figures = report["figures"]
    for side in ("canary", "live"):
        f = figures[side]
        ms = "-" if f["ms_per_attempt"] is None else f"{f['ms_per_attempt']:.3f}"
        lines.append(f"  {side:<6} {f['pods']} pods, {f['attempts']} attempts: {f['scheduled']} scheduled, "
                     f"{f['unschedulable']} unschedulable ({f['unschedulable_rate']:.1%}), {f['errors']} errors, "
                     f"{f['bound']} bound; {ms} ms per attempt")
    agreement = figures["agreement"]
    policy = report["policy"]
    lines.append(f"  agreement {'-' if agreement is None else f'{agreement:.1%}'} over {figures['compared']} compared "
                 f"pods ({policy['compare']} side), cost ratio {figures['cost_ratio'] or '-'}, after {figures['seconds']:.0f}s")
    lines.append(f"  thresholds: {policy['min_pods']} pods and {policy['min_seconds']:g}s, errors <= "
                 f"{policy['max_error_rate']:.1%}, unschedulable <= live + {policy['unschedulable_margin']:.1%}, "
                 f"agreement >= {policy['min_agreement']:.1%}, cost <= {policy['max_cost_ratio'] or '-'}x; "
                 f"promote {policy['promote']}")
    for step in report["steps"]:
        lines.append(f"  {step['at']} {step['step']}: {step['message']}")
    lines += format_divergences(report["divergences"], shown=5)
    return "\n".join(lines)
