"""The community kube-scheduler dashboard (kubernetes-mixin) on a real Prometheus scraping `kubeberth run`
against kube-apiserver: the panels `run --embedded` cannot fill (rest_client_*, from the API client's
real requests) show data too, and leader_election_master_status says who leads.

Prometheus scrapes the plain-HTTP loopback listener (--healthz-bind-address) under the job name the
mixin selects (job="kube-scheduler") with a cluster label, as a multi-cluster setup labels targets.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from cluster import wait_for
from kubeberth_harness import Api, suffix

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS / "contrib"))
sys.path.insert(0, str(TESTS))
import community_dashboard  # noqa: E402
from prom_harness import PrometheusServer, find_prometheus, provision_prometheus  # noqa: E402

LEASE = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubeberth"


def test_community_dashboard_shows_a_scheduler_on_a_real_api_server(
    api: Api, namespace: str, nodes: list[str], start_kubeberth: Any, tmp_path: Path
) -> None:
    binary = find_prometheus() or provision_prometheus()
    # A first deployment: the lease does not exist yet, so the elector's first GET is answered 404 (a 4xx).
    api.call("DELETE", LEASE, ok=(200, 404))
    node = f"kb-n-{suffix()}"
    api.create_node(node, "8", "16Gi")
    nodes.append(node)
    kb = start_kubeberth(leader_elect=True)
    prometheus = PrometheusServer(binary, tmp_path, [f"127.0.0.1:{kb.port}"], job=community_dashboard.JOB,
                                  labels={"cluster": community_dashboard.CLUSTER})
    prometheus.start()
    try:
        for i in range(20):  # binds (POST), events (POST), status patches (PATCH), informer lists (GET)
            api.create_pod(namespace, f"p-{i}")
        wait_for(lambda: len(api.bound(namespace)) == 20, 60, "20 pods bound")
        last: list[Any] = []

        def every_target_has_data() -> bool:
            try:
                last[:] = community_dashboard.empty_targets(prometheus)
            except AssertionError as exc:  # not scraped yet: the variables find nothing
                last[:] = [str(exc)]
                return False
            return not last

        try:
            wait_for(every_target_has_data, 60, "every community dashboard target to show data")
        except AssertionError as exc:
            raise AssertionError(f"{exc}; still empty: {last}") from None
        leader = prometheus.query('leader_election_master_status{job="kube-scheduler", name="kubeberth"}')
        assert [float(r["value"][1]) for r in leader] == [1.0]
        codes = {r["metric"]["code"] for r in prometheus.query('rest_client_requests_total{job="kube-scheduler"}')}
        assert {"200", "201", "404"} <= codes, codes
        verbs = {r["metric"]["verb"] for r in prometheus.query(
            'rest_client_request_duration_seconds_count{job="kube-scheduler"}')}
        assert {"GET", "POST"} <= verbs, verbs
        hosts = {r["metric"]["host"] for r in prometheus.query('rest_client_requests_total{job="kube-scheduler"}')}
        assert hosts == {urlsplit(api.cp.server).netloc}, hosts  # the API server, as client-go labels it
    finally:
        prometheus.stop()
