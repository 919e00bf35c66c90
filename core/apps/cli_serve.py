"""The flags of `kubeberth run` and `kubeberth extender` (their commands: runner.py, extender.py)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .cli_flags import add_common_flags, add_feature_gates_flag
from .serving.flags import add_serving_flags


def add_run_parser(sub: Any) -> argparse.ArgumentParser:
    """The `run` subcommand and its flags."""
    run = sub.add_parser("run", help="schedule pods of a real cluster")
    add_common_flags(run)
    run.add_argument("--kubeconfig", help="kubeconfig path (default: in-cluster, then ~/.kube/config)")
    run.add_argument(
        "--healthz-bind-address", default=None, metavar="HOST:PORT",
        help="plain HTTP, no authentication, loopback only: every route (default 127.0.0.1:10260 with --embedded, else off)",
    )
    add_serving_flags(run)
    run.add_argument("--leader-elect", default=None, action=argparse.BooleanOptionalAction)
    run.add_argument("--leader-elect-resource-name", metavar="NAME",
                     help="the leader election Lease's name (overrides leaderElection.resourceName)")
    run.add_argument("--leader-elect-resource-namespace", metavar="NAMESPACE",
                     help="the leader election Lease's namespace (overrides leaderElection.resourceNamespace), "
                     "e.g. the pod's own namespace from the downward API")
    run.add_argument(
        "--replicas-mode", choices=["leader", "active-active"], default=None,
        help="leader (default): one leader-elected replica schedules; active-active: every replica schedules the "
        "pods it owns, committing placements against the others' claims (docs/scale-out.md; env "
        "KUBEBERTH_REPLICAS_MODE)",
    )
    run.add_argument(
        "--scale-out-store", choices=["kubernetes", "etcd"], default=None,
        help="active-active: where the replicas' in-flight claims live: kubernetes (default, a Lease per node) or "
        "etcd (a key per node; needs kubeberth[etcd]) (env KUBEBERTH_SCALE_OUT_STORE)",
    )
    run.add_argument("--scale-out-etcd-endpoints", metavar="URL[,URL...]",
                     help="--scale-out-store=etcd: http(s)://HOST:PORT of the etcd members")
    run.add_argument("--scale-out-etcd-prefix", metavar="PREFIX",
                     help="--scale-out-store=etcd: key prefix (default /kubeberth/<leaderElection.resourceName>)")
    run.add_argument("--scale-out-etcd-cafile", metavar="FILE", help="--scale-out-store=etcd: CA to verify etcd with")
    run.add_argument("--scale-out-etcd-certfile", metavar="FILE", help="--scale-out-store=etcd: client certificate")
    run.add_argument("--scale-out-etcd-keyfile", metavar="FILE", help="--scale-out-store=etcd: client certificate's key")
    run.add_argument("--embedded", action="store_true", help="schedule an embedded in-memory cluster instead")
    run.add_argument("--nodes", type=int, help="--embedded: generated cluster of N nodes (default 100)")
    run.add_argument("--cluster", type=Path, help="--embedded: manifests (YAML stream or List) to start from")
    run.add_argument("--pods-per-second", type=float, help="--embedded: create pods at this rate")
    run.add_argument("--pod-lifetime", type=float, help="--embedded: seconds a bound pod runs before it completes (30)")
    run.add_argument("--seed", type=int, help="--embedded: seed for the generated cluster, pods and tie-breaking")
    run.add_argument(
        "--scheduler-names",
        metavar="NAME[,NAME...]",
        help="--embedded: schedule pods with these schedulerNames, as simulate does (default: the profiles and "
        "default-scheduler); the start says how many pending pods of other schedulers stay Pending",
    )
    add_feature_gates_flag(run)
    return run


def add_extender_parser(sub: Any) -> argparse.ArgumentParser:
    """The `extender` subcommand and its flags."""
    ext = sub.add_parser("extender", help="serve a profile's filter and score plugins as a kube-scheduler extender")
    add_common_flags(ext)
    ext.add_argument("--kubeconfig", help="kubeconfig path (default: in-cluster, then ~/.kube/config)")
    ext.add_argument("--bind-address", default=None,
                     help="address:port of the extender API, /healthz, /readyz and /metrics (default 127.0.0.1:10262)")
    ext.add_argument("--profile", help="the profile whose plugins answer (default: the first)")
    ext.add_argument("--bind", action="store_true", help="also serve the bind verb (Binding subresource)")
    add_feature_gates_flag(ext)
    return ext
