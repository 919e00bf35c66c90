"""`kubeberth run`: schedule a real cluster (or, with `--embedded`, the embedded one).

Wires the generation, the Kubernetes backend, leader election, hot reload and the HTTP server
(probes, metrics, decisions, admin API) around the scheduling loop, which runs on the main
thread. `run --embedded` passes an EmbeddedCluster as the backend: same runner, no Lease. While not leading, the loop keeps draining
informer events (a warm standby) but schedules nothing and the backend refuses binds.
SIGTERM/SIGINT: stop taking pods, let in-flight binding cycles finish, release the Lease so a
standby takes over at once, then flush queued events. SIGUSR2: log what the scheduler holds.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..backends.base import Backend
from ..backends.kubernetes import KubernetesBackend, RawClient, load_api_client
from ..backends.kubernetes.backend import connection_pool_size
from ..backends.kubernetes.curl_transport import use_curl
from ..backends.kubernetes.leader import LeaderElector, parse_duration
from ..errors import ConfigError
from ..observability import Observability
from ..observability.lease_events import LeaseEvents
from ..runtime.config import Settings
from ..runtime.generation import Generation
from ..runtime.reload import GenerationBuilder
from ..scheduling.collector import PROCESS_START
from ..scheduling.rollback import RollbackPolicy
from ..scheduling.scheduler import Scheduler
from ..scheduling.shadow import ShadowPolicy
from ..scheduling.swap import watched_kinds
from .admin import add_admin_routes
from .canary import CanaryController, add_canary_routes
from .httpserver import DEFAULT_BIND_ADDRESS, HTTPServer, check_route
from .observability_routes import add_observability_routes
from .reloader import Reloader, Watcher
from .serving.options import SecureServingOptions
from .shadow import ShadowController, add_shadow_routes

log = logging.getLogger(__name__)


def _passes() -> tuple[bool, str]:
    """healthz.PingHealthz (and LogHealthz: kubeberth's logging cannot block)."""
    return True, ""


def _all(checks: dict[str, Callable[[], tuple[bool, str]]]) -> tuple[bool, str]:
    """The endpoint's checks in order; the first failure names its check (kube-scheduler lists each as [-]name)."""
    for name, check in checks.items():
        ok, why = check()
        if not ok:
            return False, f"[-]{name} failed: {why}"
    return True, ""

HEARTBEAT_SECONDS = 5.0
STATUS_FLUSH_SECONDS = 1.0  # on shutdown, before the Lease is released
EVENT_FLUSH_SECONDS = 5.0  # on shutdown, after it
LOOP_STALL_SECONDS = 60.0


class Runner:
    """One `kubeberth run` process; usable in-process by tests."""

    def __init__(
        self,
        kubeconfig: str | None = None,
        config: str | Path | None = None,
        plugins_dir: str | Path | None = None,
        healthz_bind_address: str | None = DEFAULT_BIND_ADDRESS,
        leader_elect: bool | None = None,
        settings: Settings | None = None,
        identity: str | None = None,
        backend: Backend | None = None,
        scheduler_names: list[str] | None = None,
        secure_serving: SecureServingOptions | None = None,
        lease_overrides: dict[str, str] | None = None,
    ) -> None:
        """`scheduler_names` overrides which pending pods are watched (default: the profiles';
        `kubeberth extender` watches none: it only keeps the cache). `healthz_bind_address` is a
        plain-HTTP listener; `secure_serving` the HTTPS one (against an API server only)."""
        self.settings = settings or Settings()
        # --leader-elect-resource-name/-namespace win over leaderElection, as in kube-scheduler.
        self.lease_overrides = lease_overrides or {}
        self.builder = GenerationBuilder(
            config or self.settings.config,
            plugins_dir or self.settings.plugins_dir,
            allow_insecure_plugins_dir=self.settings.allow_insecure_plugins_dir,
            feature_gates=self.settings.gates(),
        )
        # Imported modules (installed plugin packages included, imported by the entry point
        # scan) live as long as the process: out of the cyclic collector's scans, each full
        # collection — a pause of the scheduling loop — is about half as long. No collection
        # first: it found ~160 unreachable objects here and cost 70-150 ms of start-up, before
        # the first binding; generations, pods and nodes come later and stay collectable.
        self.builder.rescan_entry_points()
        gc.freeze()
        generation = self.builder.build()
        cfg = generation.config
        self.backend: Any
        if backend is not None:
            self.api_client = None
            self.backend = backend
            leader_elect = False
        else:
            kubeconfig = kubeconfig or cfg.clientConnection.kubeconfig or os.environ.get("KUBECONFIG") or None
            use_curl(self.settings.api_transport == "curl")
            self.api_client = load_api_client(kubeconfig, pool_size=connection_pool_size(self.settings.binding_workers))
            self.backend = KubernetesBackend(
                self.api_client,
                scheduler_names=list(generation.profiles) if scheduler_names is None else scheduler_names,
                qps=cfg.clientConnection.qps,
                burst=cfg.clientConnection.burst,
                watch_timeout=self.settings.watch_timeout,
                liveness=(self.settings.liveness_interval_seconds, self.settings.liveness_timeout_seconds,
                          self.settings.liveness_failures),
                kinds=watched_kinds(generation),
            )
        self.scheduler = Scheduler(
            generation, self.backend, seed=self.settings.seed, binding_workers=self.settings.binding_workers,
            plugin_timeout_seconds=self.settings.plugin_timeout_seconds, records_kept=0,
        )
        le = cfg.leaderElection.model_copy(update=self.lease_overrides)
        self.leader_elect = le.leaderElect if leader_elect is None else leader_elect
        self.scale_out: Any = None
        if self.settings.replicas_mode != "active-active" and self.settings.scale_out_store != "kubernetes":
            raise ConfigError(f"--scale-out-store={self.settings.scale_out_store}: only with --replicas-mode=active-active")
        if self.settings.replicas_mode == "active-active":
            if backend is not None:
                raise ConfigError("--replicas-mode=active-active needs an API server; it cannot run with --embedded")
            from .scale_out_run import ScaleOutRun

            self.leader_elect = False  # every replica schedules what it owns (docs/scale-out.md)
            self.scale_out = ScaleOutRun(
                self.scheduler, kubeconfig, le.resourceNamespace, le.resourceName, parse_duration(le.leaseDuration),
                parse_duration(le.retryPeriod), identity, self.settings.binding_workers, self.settings,
            )
        self.elector: LeaderElector | None = None
        if self.leader_elect:
            if le.resourceLock != "leases":
                raise ConfigError(f"leaderElection.resourceLock: only 'leases' is supported, got {le.resourceLock!r}")
            try:
                durations = [parse_duration(x) for x in (le.leaseDuration, le.renewDeadline, le.retryPeriod)]
                # Its own client: renewals never wait behind binds for a connection or a qps
                # token, and no automatic retry stretches a request past the renew deadline.
                lease_client = RawClient(load_api_client(kubeconfig, pool_size=2, retries=False))
                self.elector = LeaderElector(
                    lease_client,
                    le.resourceNamespace,
                    le.resourceName,
                    identity=identity,
                    lease_duration=durations[0],
                    renew_deadline=durations[1],
                    retry_period=durations[2],
                    on_started_leading=self._started_leading,
                    on_stopped_leading=self._stopped_leading,
                )
            except ValueError as exc:
                raise ConfigError(f"leaderElection: {exc}") from None
            self.scheduler.paused = True
            self.backend.writes_allowed.clear()
        self.stop_event = threading.Event()
        self._heartbeat = time.monotonic()
        self.observability = Observability.from_env(
            otlp_endpoint=self.settings.otlp_endpoint,
            decision_records=self.settings.decision_records,
            annotate=self.backend if self.settings.decision_annotation else None,
        )
        self.observability.attach(self.scheduler)
        self.lease_events = LeaseEvents(self.backend, le.resourceNamespace, le.resourceName)
        self.scheduler.timeout_observers.append(self.lease_events.plugin_timed_out)
        self._watch_client_metrics(le.resourceName)
        st = self.settings
        policy = RollbackPolicy(
            st.rollback, st.rollback_window_seconds, st.rollback_min_attempts, st.rollback_max_error_rate,
            st.rollback_unschedulable_margin,
        )
        self.reloader = Reloader(
            self.scheduler, self.builder, policy, self.observability, self._announce, st.rollback_max_memory_growth_mb
        )
        # A shadow generation (POST /shadow/start): decides beside the live one, writes nothing.
        self.shadow = ShadowController(
            self.scheduler, self.observability, live_config=self.builder.config, feature_gates=self.builder.feature_gates,
            allow_insecure_plugins_dir=self.settings.allow_insecure_plugins_dir,
            refusal=self.reloader.guard.quarantine.refusal,
        )
        if st.shadow_plugins_dir is not None or st.shadow_config is not None:
            # KUBEBERTH_SHADOW_*: built now (a bad candidate stops the start), installed by the loop.
            self.shadow.start(st.shadow_plugins_dir, st.shadow_config,
                              ShadowPolicy(st.shadow_sample, st.shadow_cpu_budget), wait=False)
        # A canary (POST /canary/start): a candidate decides and binds a share of the pods.
        self.canary = CanaryController(
            self.scheduler, self.reloader, self.observability, live_config=self.builder.config,
            feature_gates=self.builder.feature_gates, allow_insecure_plugins_dir=self.settings.allow_insecure_plugins_dir,
            announce=self.lease_events.record,
        )
        self.watcher: Watcher | None = None
        self.http: HTTPServer | None = None
        if healthz_bind_address or secure_serving is not None:
            self.http = HTTPServer(healthz_bind_address)
            if secure_serving is not None:
                if backend is not None:
                    raise ConfigError("secure serving needs an API server to delegate authentication to")
                from .serving.listener import add_secure_listener

                add_secure_listener(self.http, secure_serving, kubeconfig)
            self.http.add_route("/healthz", check_route(self.healthz))
            self.http.add_route("/livez", check_route(self.healthz))
            self.http.add_route("/readyz", check_route(self.readyz))
            # kube-scheduler's named checks, each at /<endpoint>/<name> (healthz.InstallHandler's layout)
            for endpoint, checks in (("/healthz", self.live_checks), ("/livez", self.live_checks),
                                     ("/readyz", self.ready_checks)):
                for name, check in checks().items():
                    self.http.add_route(f"{endpoint}/{name}", check_route(check))
            add_observability_routes(self.http, self.observability)
            add_admin_routes(self.http, self.reloader)
            add_shadow_routes(self.http, self.shadow)
            add_canary_routes(self.http, self.canary)
            self._install_zpages(self.http)

    def _install_zpages(self, http: HTTPServer) -> None:
        """kube-scheduler's newEndpointsHandler: /configz always, /flagz and /statusz under ComponentFlagz and
        ComponentStatusz (beta, on in v1.37). The flags are set by run_main (`self.flagz`)."""
        from .. import __version__
        from .zpages import ZPages

        self.flagz: dict[str, str] = {}
        gates = self.builder.feature_gates
        pages = ZPages(http, lambda: self.flagz, lambda: self.generation.config.model_dump(mode="json"), __version__)
        pages.install(flagz=gates.enabled("ComponentFlagz"), statusz=gates.enabled("ComponentStatusz"))

    def _watch_client_metrics(self, lease_name: str) -> None:
        """kube-scheduler's client-side families on /metrics: rest_client_* (every RawClient of the
        process) against an API server, leader_election_master_status{name} when leader-elected."""
        metrics = self.observability.metrics
        if metrics is None:
            return
        if self.api_client is not None:
            from ..backends.kubernetes.client_metrics import REST_CLIENT_METRICS

            metrics.registry.register(REST_CLIENT_METRICS)
        stats, events = getattr(self.backend, "write_stats", None), getattr(self.backend, "events", None)
        if stats is not None and events is not None:
            metrics.watch_writes(lambda: dict(stats.counts), events.backlog)
        elector = self.elector
        if elector is not None:
            metrics.watch_leader(lease_name, lambda: elector.is_leader)

    def _announce(self, reason: str, message: str) -> None:
        """A rollback, a quarantine, a refused reload: an Event on the scheduler's Lease
        (observability/lease_events.py; the embedded cluster's event list)."""
        self.lease_events.announce(reason, message)

    @property
    def generation(self) -> Generation:
        """The generation scheduling now (a reference kept elsewhere would pin an old one)."""
        return self.scheduler.generation

    # ---- leadership ------------------------------------------------------------------
    def _started_leading(self) -> None:
        self.backend.writes_allowed.set()
        self.scheduler.paused = False
        # Wake the loop: a quiet cluster sends it no event, and it would wait out its idle second
        # before the first cycle of a fresh leader.
        self.scheduler.submit(_wake)

    def _stopped_leading(self) -> None:
        self.scheduler.paused = True
        self.backend.writes_allowed.clear()
        dropped = self.backend.discard_status_writes()
        if dropped:
            log.info("dropped %d queued status writes on losing leadership", dropped)

    # ---- probes ----------------------------------------------------------------------
    def live_checks(self) -> dict[str, Callable[[], tuple[bool, str]]]:
        """/healthz and /livez, by name: kube-scheduler's ping, log and leaderElection (with leader election),
        and kubeberth's scheduling-loop."""
        checks = {"ping": _passes, "log": _passes, "scheduling-loop": self._loop_check}
        if self.elector is not None:
            checks["leaderElection"] = self._lease_check
        return checks

    def ready_checks(self) -> dict[str, Callable[[], tuple[bool, str]]]:
        """/readyz, by name: kube-scheduler's ping, log, sched-handler-sync (the informers synced) and shutdown,
        and kubeberth's leader-election-observed (with leader election)."""
        checks = {"ping": _passes, "log": _passes, "sched-handler-sync": self._sync_check,
                  "shutdown": self._shutdown_check}
        if self.elector is not None:
            checks["leader-election-observed"] = self._lease_observed_check
        return checks

    def healthz(self) -> tuple[bool, str]:
        return _all(self.live_checks())

    def readyz(self) -> tuple[bool, str]:
        return _all(self.ready_checks())

    def _loop_check(self) -> tuple[bool, str]:
        stalled = time.monotonic() - self._heartbeat
        if stalled > LOOP_STALL_SECONDS:
            return False, f"scheduling loop has not drained events for {stalled:.0f}s"
        return True, ""

    def _lease_check(self) -> tuple[bool, str]:
        if self.elector is not None and not self.elector.healthy():
            return False, "leader lease not renewed past renewDeadline"
        return True, ""

    def _shutdown_check(self) -> tuple[bool, str]:
        return (False, "shutting down") if self.stop_event.is_set() else (True, "")

    def _sync_check(self) -> tuple[bool, str]:
        ready = getattr(self.backend, "ready", None)
        if ready is not None and not ready():
            pending = [k for k, inf in self.backend.informers.items() if not inf.settled]
            return False, f"informers not synced: {', '.join(pending)}"
        return True, ""

    def _lease_observed_check(self) -> tuple[bool, str]:
        if self.elector is not None and not (self.elector.is_leader or self.elector.observed_ok):
            return False, "leader election has not reached the Lease API yet"
        return True, ""

    def _beat(self) -> None:
        self._heartbeat = time.monotonic()

    def _heartbeats(self) -> None:
        while not self.stop_event.wait(HEARTBEAT_SECONDS):
            self.scheduler.submit(self._beat)  # runs on the loop thread: proves it drains events

    # ---- run -------------------------------------------------------------------------
    def start(self) -> None:
        if self.http is not None:
            self.http.start()
        self.scheduler.start_backend()
        PROCESS_START.end()  # the scheduler's own pause has begun: the collector stays off until it has loaded
        if self.scale_out is not None:
            if self.observability.metrics is not None:
                self.scale_out.register_metrics(self.observability.metrics.registry)
            self.scale_out.start()
        threading.Thread(target=self._heartbeats, name="kubeberth-heartbeat", daemon=True).start()
        if self.elector is not None:
            self.elector.start()
        self.reloader.start()
        if self.settings.watch and (self.builder.config or self.builder.plugins_dir):
            self.watcher = Watcher(
                self.reloader, self.builder.config, self.builder.plugins_dir, self.settings.reload_debounce_seconds
            )
            self.watcher.start()
        log.info(
            "kubeberth running profiles %s (generation %s), leader election %s",
            ", ".join(self.generation.profiles), self.generation.id, "on" if self.elector else "off",
        )

    def serve(self) -> None:
        self.scheduler.run(self.stop_event)

    def request_stop(self) -> None:
        """Ask the loop to stop now (safe from a signal handler): set the flag, then wake the loop,
        which may be blocked on its event queue for up to a second when idle."""
        self.stop_event.set()
        self.scheduler.submit(_wake)

    def dump_state(self) -> None:
        """Log what the scheduler holds, one JSON line (kube-scheduler's SIGUSR2 cache dump):
        pods per queue place, waiting, assumed, failed, and those the informer no longer knows."""
        self.scheduler.submit(self._log_held_pods)

    def _log_held_pods(self) -> None:
        held = self.scheduler.held_pods()
        informer = getattr(self.backend, "informers", {}).get("Pod")
        if informer is not None:
            known = {_key(obj) for obj in informer.store.copy().values()}
            held["gone"] = sorted({k for keys in held.values() for k in keys} - known)
        log.info("held pods: %s", json.dumps(held, sort_keys=True))

    def shutdown(self) -> None:
        """Stop taking pods, finish in-flight binds, release the Lease, then flush events.

        The Lease goes as soon as no binding of ours can still land, so a standby takes over at
        once; status writes get a second to go out first (they are the leader's word on pending
        pods), the event backlog after the release (written all along on the event client; what
        the flush cannot write is counted in the stop summary's events_dropped).
        """
        self.stop_event.set()
        if self.watcher is not None:
            self.watcher.stop()
        self.reloader.stop()
        self.scheduler.paused = True
        self.scheduler.shutdown(wait=True)  # the binding workers, then the plugin watchdog
        self.scheduler.drain_events()
        if self.scale_out is not None:
            self.scale_out.stop()
        if self.elector is not None:
            self.backend.flush(STATUS_FLUSH_SECONDS, events=False)
            self.elector.stop(release=True)
        self.backend.stop(flush_timeout=EVENT_FLUSH_SECONDS)
        if self.http is not None:
            self.http.stop()
        self.observability.shutdown()
        log.info("kubeberth stopped: %s", getattr(self.backend, "stats", ""))


def _wake() -> None:
    """A no-op loop event: wakes a loop blocked on its event queue."""


def _key(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


def run_main(args: argparse.Namespace | Any) -> int:
    """Entry point for `kubeberth run` and `kubeberth run --embedded` (args from apps/cli.py)."""
    from .cli import settings_from_args

    settings = settings_from_args(args)  # KUBEBERTH_* with the flags over them, validated
    from .serving.options import insecure_bind_address, secure_serving_options
    from .zpages import flag_values

    embedded = bool(getattr(args, "embedded", False))
    healthz_bind_address = insecure_bind_address(getattr(args, "healthz_bind_address", None), embedded)
    secure_serving = secure_serving_options(args, embedded)
    load = None
    backend = None
    if embedded:
        from .embedded_run import embedded_backend

        backend, load = embedded_backend(args, settings)
    runner = Runner(
        kubeconfig=getattr(args, "kubeconfig", None),
        config=settings.config,
        plugins_dir=settings.plugins_dir,
        healthz_bind_address=healthz_bind_address,
        secure_serving=secure_serving,
        leader_elect=getattr(args, "leader_elect", None),
        settings=settings,
        backend=backend,
        lease_overrides={
            field: value
            for field, value in (
                ("resourceName", getattr(args, "leader_elect_resource_name", None)),
                ("resourceNamespace", getattr(args, "leader_elect_resource_namespace", None)),
            )
            if value
        },
    )
    le = runner.generation.config.leaderElection.model_copy(update=runner.lease_overrides)
    runner.flagz = flag_values(args, {"leader-elect": str(runner.leader_elect).lower(),
                                      "leader-elect-resource-name": le.resourceName,
                                      "leader-elect-resource-namespace": le.resourceNamespace})
    if backend is not None:
        from .embedded_run import adopt_scheduler_names

        adopt_scheduler_names(runner.scheduler, backend, getattr(args, "scheduler_names", None))

    def on_signal(signum: int, _frame: Any) -> None:
        log.info("received %s: shutting down", signal.Signals(signum).name)
        runner.request_stop()

    def on_hangup(_signum: int, _frame: Any) -> None:
        log.info("received SIGHUP: rescanning entry points and reloading")
        runner.reloader.request("SIGHUP", rescan=True)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGHUP, on_hangup)
    signal.signal(signal.SIGUSR2, lambda _signum, _frame: runner.dump_state())
    runner.start()
    if load is not None:
        load.start(runner.generation.default_profile.profile)
    try:
        runner.serve()
    finally:
        if load is not None:
            load.stop()
        runner.shutdown()
        # Stopped: a repeated Ctrl-C arriving while the interpreter exits (its handlers are reset
        # to the default then) must not turn the clean exit into death by SIGINT.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    return 0
