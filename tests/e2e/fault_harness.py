"""Fault injection around a real control plane: a pod stream that rides out outages, a watch that
records every node each pod is ever seen on, a TCP proxy whose connections can be made to go
silent, and the check of every promise in docs/reliability.md read back from the API."""

from __future__ import annotations

import contextlib
import json
import random
import select
import socket
import struct
import threading
import time
import urllib.request
from collections.abc import Callable, Iterable
from typing import Any

from cluster import LOOPBACK, LocalControlPlane, wait_for
from fault_promises import bound_more_than_once, key, moved, overcommitted, queued_but_gone, unbound
from kubeberth_harness import PROFILE, Api, Kubeberth


def pod_body(name: str, cpu: str = "100m", memory: str = "64Mi", labels: dict[str, str] | None = None) -> dict:
    return {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels or {}},
        "spec": {"schedulerName": PROFILE, "containers": [
            {"name": "c", "image": "registry.k8s.io/pause:3.10",
             "resources": {"requests": {"cpu": cpu, "memory": memory}}}]},
    }


def create_riding_out(cp: LocalControlPlane, ns: str, body: dict, deadline: float = 90.0,
                      post: Callable[[str, dict], tuple[int, Any]] | None = None) -> None:
    """POST a pod, retrying while the API server is down or stalled; 409 means an earlier try landed.
    `post(path, body)` -> (status, answer) sends it (default: cp.request, 5 s timeout)."""
    send = post or (lambda path, obj: cp.request("POST", path, obj, timeout=5))
    give_up = time.monotonic() + deadline
    while True:
        try:
            status, data = send(f"/api/v1/namespaces/{ns}/pods", body)
        except OSError:
            status, data = 0, None
        if status in (200, 201, 409):
            return
        if 400 <= status < 500 and status != 429:
            raise AssertionError(f"creating pod {body['metadata']['name']}: {status} {data}")
        if time.monotonic() > give_up:
            raise AssertionError(f"could not create pod {body['metadata']['name']} within {deadline:.0f}s")
        time.sleep(0.2)


class PodStream(threading.Thread):
    """Creates `count` pods p-0000... at `rate` per second (uniform requests unless `cpus` is given)."""

    def __init__(self, cp: LocalControlPlane, ns: str, count: int, rate: float, prefix: str = "p",
                 cpus: tuple[str, ...] = ("100m",), seed: int = 0) -> None:
        super().__init__(name=f"pod-stream-{ns}", daemon=True)
        self.cp, self.ns, self.count, self.rate, self.prefix = cp, ns, count, rate, prefix
        self.rng = random.Random(seed)
        self.cpus = cpus
        self.created: dict[str, float] = {}  # name -> monotonic time the create returned
        self.error: BaseException | None = None

    def name_of(self, i: int) -> str:
        return f"{self.prefix}-{i:04d}"

    def run(self) -> None:
        start = time.monotonic()
        try:
            for i in range(self.count):
                delay = start + i / self.rate - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                name = self.name_of(i)
                create_riding_out(self.cp, self.ns, pod_body(name, cpu=self.rng.choice(self.cpus)))
                self.created[name] = time.monotonic()
        except BaseException as exc:  # reported by finish()
            self.error = exc

    def wait_created(self, n: int, timeout: float = 60) -> None:
        wait_for(lambda: len(self.created) >= n or self.error, timeout, f"{n} pods created")
        assert self.error is None, self.error

    def finish(self, timeout: float = 120) -> None:
        self.join(timeout)
        assert not self.is_alive(), "pod stream did not finish"
        assert self.error is None, self.error


class PodWatch(threading.Thread):
    """Every nodeName each pod of a namespace is ever seen with, and when it was first seen bound.

    Lists, then watches from the list's resourceVersion; any failure (API server down, stalled)
    starts over with a new list, so an outage can hide a change only if it is undone meanwhile.
    """

    def __init__(self, cp: LocalControlPlane, ns: str) -> None:
        super().__init__(name=f"pod-watch-{ns}", daemon=True)
        self.cp, self.ns = cp, ns
        self.history: dict[str, list[str]] = {}
        self.first_bound: dict[str, tuple[str, float]] = {}  # pod -> (node, monotonic time seen)
        self._halt = threading.Event()
        self._lock = threading.Lock()

    def _see(self, pod: dict[str, Any]) -> None:
        name = key(pod)
        node = (pod.get("spec") or {}).get("nodeName") or ""
        with self._lock:
            seen = self.history.setdefault(name, [])
            if not seen or seen[-1] != node:
                seen.append(node)
            if node and name not in self.first_bound:
                self.first_bound[name] = (node, time.monotonic())

    def run(self) -> None:
        path = f"/api/v1/namespaces/{self.ns}/pods"
        while not self._halt.is_set():
            try:
                status, data = self.cp.request("GET", path, timeout=5)
                if status != 200:
                    raise OSError(f"list: {status}")
                for pod in data["items"]:
                    self._see(pod)
                rv = data["metadata"]["resourceVersion"]
                url = f"{self.cp.server}{path}?watch=1&resourceVersion={rv}&timeoutSeconds=2"
                req = urllib.request.Request(url)
                req.add_header("Authorization", f"Bearer {self.cp.admin_token}")
                with urllib.request.urlopen(req, timeout=5, context=self.cp._ssl) as resp:
                    for line in resp:
                        event = json.loads(line)
                        if event.get("type") in ("ADDED", "MODIFIED", "DELETED"):
                            self._see(event["object"])
                        if self._halt.is_set():
                            return
            except (OSError, ValueError, KeyError):
                self._halt.wait(0.2)

    def bound_after(self, since: float, nodes: Iterable[str]) -> list[str]:
        """Pods first seen bound to one of `nodes` later than `since` (monotonic)."""
        wanted = set(nodes)
        with self._lock:
            return sorted(f"{pod} -> {node}" for pod, (node, at) in self.first_bound.items()
                          if node in wanted and at > since)

    def stop(self) -> None:
        self._halt.set()
        self.join(15)


class SilencingProxy:
    """A loopback TCP proxy in front of the API server whose open connections can be made silent.

    After `silence()`, connections open at that moment forward nothing more in either direction
    and stay open (a middlebox that lost its state, a half-dead peer): a watch on one just stops
    receiving. A client that writes to one is reset, as it would be by a real network, so pooled
    connections fail fast and are replaced; connections opened later work normally.
    """

    def __init__(self, target_port: int) -> None:
        self.target = (LOOPBACK, target_port)
        self.listener = socket.create_server((LOOPBACK, 0))
        self.port = self.listener.getsockname()[1]
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._silenced: set[int] = set()
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, name="silencing-proxy", daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._pairs.append((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()

    def _pump(self, client: socket.socket, upstream: socket.socket) -> None:
        peers = {client: upstream, upstream: client}
        try:
            while not self._closed and peers:
                readable, _, _ = select.select(list(peers), [], [], 0.2)
                silenced = id(client) in self._silenced
                for sock in readable:
                    if silenced and sock is client:  # the client wrote to a dead connection: reset it
                        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                        return
                    data = sock.recv(65536)
                    if silenced:  # the server's bytes (or its close) never reach the client
                        if not data:
                            del peers[upstream]
                        continue
                    if not data:
                        return
                    peers[sock].sendall(data)
        except OSError:
            pass
        finally:
            for sock in (client, upstream):
                with contextlib.suppress(OSError):
                    sock.close()
            with self._lock:
                self._silenced.discard(id(client))
                with contextlib.suppress(ValueError):
                    self._pairs.remove((client, upstream))

    def silence(self) -> int:
        """Silence every open connection; returns how many."""
        with self._lock:
            for client, _ in self._pairs:
                self._silenced.add(id(client))
            return len(self._pairs)

    def close(self) -> None:
        self._closed = True
        with contextlib.suppress(OSError):
            self.listener.close()


def check_promises(api: Api, ns: str, node_names: Iterable[str], procs: Iterable[Kubeberth],
                   watch: PodWatch | None) -> list[str]:
    """Every promise of docs/reliability.md, from the API and the schedulers' own accounts."""
    pods = api.pods(ns)
    nodes = [n for n in (api.cp.request("GET", f"/api/v1/nodes/{name}") for name in node_names) if n[0] == 200]
    broken = [*unbound(pods, PROFILE), *overcommitted([n[1] for n in nodes], pods)]
    if watch is not None:
        broken += moved(watch.history)
    procs = list(procs)
    broken += bound_more_than_once(p for kb in procs for p in kb.bound_pods() if p.startswith(f"{ns}/"))
    scheduled = [f"{ns}/{e['regarding']['name']}" for e in api.events(ns) if e["reason"] == "Scheduled"
                 for _ in range((e.get("series") or {}).get("count") or 1)]
    broken += [f"{line} (Scheduled events)" for line in bound_more_than_once(scheduled)]
    existing = {key(p) for p in pods}
    for kb in procs:
        if kb.proc.poll() is None:
            held = kb.held_pods()
            broken += [f"{kb.name}: {line}" for line in queued_but_gone((k for v in held.values() for k in v), existing)]
            leftover = {where: keys for where, keys in held.items() if keys}
            if leftover:
                broken.append(f"{kb.name} still holds {leftover} after every pod was bound")
        if "Traceback" in kb.log_text():
            broken.append(f"{kb.name}: traceback in the log")
    return broken
