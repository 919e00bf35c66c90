"""The probe endpoints: kube-scheduler's named checks at /healthz|/livez|/readyz/<name>, and a failed check
answered 500, as k8s.io/apiserver's healthz handlers do (serving/endpoints_test.go TestEndpointHandlers runs the
same paths against kubeberth on a real API server)."""

from __future__ import annotations

from pathlib import Path

from reload_harness import EmbeddedRun


def test_named_checks_pass_and_a_failed_check_is_a_500_naming_it(tmp_path: Path) -> None:
    with EmbeddedRun(tmp_path, nodes=2) as run:
        for path in ("/healthz", "/livez", "/readyz", "/healthz/ping", "/livez/ping", "/livez/log",
                     "/livez/scheduling-loop", "/readyz/ping", "/readyz/log", "/readyz/sched-handler-sync",
                     "/readyz/shutdown"):
            assert run.get(path) == (200, "ok"), path
        assert run.get("/readyz/nonexistent")[0] == 404
        assert run.get("/livez/leaderElection")[0] == 404  # registered only with leader election
        run.runner.stop_event.set()  # shutting down: not ready, still live
        assert run.get("/readyz/shutdown") == (500, "shutting down")
        assert run.get("/readyz") == (500, "[-]shutdown failed: shutting down")
        assert run.get("/readyz/sched-handler-sync") == (200, "ok")
