"""`kubeberth bench --extender`: what `kubeberth extender` adds to each pod kube-scheduler
schedules — one filter and one prioritize round trip over pooled HTTP with keep-alive (as Go's
transport does), `nodeCacheCapable` (node names only), against a generated cluster. The caller is
a separate process, as kube-scheduler is.

Two request sizes per cluster: every node (percentageOfNodesToScore: 100) and kube-scheduler's
default sample (numFeasibleNodesToFind: 500 names at 5,000 nodes).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

import numpy as np
import orjson

from ..backends.embedded import EmbeddedCluster
from ..runtime.framework import num_feasible_nodes_to_find
from ..runtime.generation import Generation
from ..scheduling.scheduler import Scheduler
from .extender import ExtenderService
from .httpserver import HTTPServer
from .simulate import generate_cluster


def run_extender_bench(
    generation: Generation, nodes: int = 5000, pods: int = 1000, seed: int = 1, warmup: int = 50
) -> list[dict[str, Any]]:
    objects = generate_cluster(nodes, pods + warmup, seed)
    node_objs = [o for o in objects if o.get("kind") == "Node"]
    pod_objs = [o for o in objects if o.get("kind") == "Pod"]
    scheduler = Scheduler(generation, EmbeddedCluster(node_objs), seed=seed)
    scheduler.paused = True
    scheduler.start_backend()
    scheduler.drain_events()
    stop = threading.Event()
    loop = threading.Thread(target=scheduler.run, args=(stop,), daemon=True)
    loop.start()
    http = HTTPServer("127.0.0.1:0")
    ExtenderService(scheduler).add_routes(http)
    http.start()
    url = f"http://127.0.0.1:{http.port}"
    names = [o["metadata"]["name"] for o in node_objs]
    sample = num_feasible_nodes_to_find(nodes, generation.config.percentageOfNodesToScore)
    results = []
    try:
        rng = np.random.default_rng(seed)
        for label, count in (("all nodes", nodes), ("default sample", sample)):
            bodies = []
            for pod in pod_objs:
                start = int(rng.integers(nodes))
                bodies.append({"Pod": pod, "Nodes": None, "NodeNames": (names[start:] + names[:start])[:count]})
            ms = np.asarray(_client_process(url, bodies)[warmup:])
            results.append({
                "nodes": nodes, "names": count, "label": label, "pods": len(ms),
                "p50_ms": round(float(np.percentile(ms, 50)), 3), "p99_ms": round(float(np.percentile(ms, 99)), 3),
                "max_ms": round(float(ms.max()), 3),
            })
    finally:
        stop.set()
        scheduler.submit(lambda: None)
        loop.join(5)
        http.stop()
    return results


# The caller runs in its own process, as kube-scheduler does: in this one it would compete with the
# extender's threads for the GIL and measure that instead of the round trip.
_CLIENT = """
import sys, time, orjson, urllib3
url, path = sys.argv[1], sys.argv[2]
bodies = orjson.loads(open(path, "rb").read())
client = urllib3.PoolManager(maxsize=1, retries=False, timeout=urllib3.Timeout(total=10))
def post(verb, body):
    resp = client.request("POST", url + "/" + verb, body=orjson.dumps(body), headers={"Content-Type": "application/json"})
    if resp.status != 200:
        raise SystemExit(f"{verb}: HTTP {resp.status}")
    return orjson.loads(resp.data)
times = []
for body in bodies:
    t0 = time.perf_counter()
    kept = post("filter", body).get("NodeNames") or []
    if len(kept) > 1:
        post("prioritize", {"Pod": body["Pod"], "Nodes": None, "NodeNames": kept})
    times.append((time.perf_counter() - t0) * 1e3)
sys.stdout.write(orjson.dumps(times).decode())
"""


def _client_process(url: str, bodies: list[dict[str, Any]]) -> list[float]:
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        f.write(orjson.dumps(bodies))
        f.flush()
        out = subprocess.run([sys.executable, "-c", _CLIENT, url, f.name], capture_output=True, check=True)
    times: list[float] = orjson.loads(out.stdout)
    return times


def render_extender_bench(rows: list[dict[str, Any]], generation: Generation, label: str = "") -> str:
    from .bench import machine

    fw = generation.default_profile
    lines = [
        f"### {time.strftime('%Y-%m-%d')} — kubeberth extender round trip per pod{(' — ' + label) if label else ''}",
        "",
        machine() + ". One filter + one prioritize request per pod, keep-alive connection, nodeCacheCapable.",
        "",
        "| nodes | names sent | pods | p50 (ms) | p99 (ms) | max (ms) |",
        "|---:|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['nodes']} | {r['names']} ({r['label']}) | {r['pods']} | {r['p50_ms']} | {r['p99_ms']} | {r['max_ms']} |"
        )
    lines += ["", f"Profile: filters {', '.join(fw.enabled('filter')) or 'none'}; scores "
              + (", ".join(f"{n}×{w}" for n, w in fw.score_weights().items()) or "none") + "."]
    return "\n".join(lines) + "\n"
