"""The informer's lists (backends/kubernetes/informer.py): the first one as client-go's reflector makes it, whole
from the API server's watch cache at resourceVersion 0; every relist consistent and paged. The full informer runs
against a real kube-apiserver in tests/e2e/test_kubernetes_backend.py (relists after 410, paging, prefetch)."""

from __future__ import annotations

import threading
from typing import Any

from kubeberth.backends.base import ClusterEvent
from kubeberth.backends.kubernetes.backend import _resources
from kubeberth.backends.kubernetes.informer import PAGE_SIZE, Informer


class _Host:
    """What an informer reads of its backend (InformerHost): answers each list with two nodes, one page."""

    def __init__(self) -> None:
        self.stopping = threading.Event()
        self.resync_period, self.watch_timeout, self.backoff_initial, self.backoff_max = 0.0, 1.0, 0.01, 0.02
        self.queries: list[dict[str, Any]] = []
        self.events: list[ClusterEvent] = []
        self.raw = self

    def request(self, method: str, path: str, query: list[tuple[str, Any]], **_kwargs: Any) -> Any:
        self.queries.append(dict(query))
        items = [{"metadata": {"name": n, "uid": f"uid-{n}", "resourceVersion": "7"}} for n in ("a", "b")]
        return {"metadata": {"resourceVersion": "7"}, "items": items}

    def emit(self, event: ClusterEvent) -> None:
        self.events.append(event)


def test_the_first_list_is_whole_from_the_watch_cache_and_relists_are_consistent_pages() -> None:
    host = _Host()
    (nodes,) = _resources(["Node"])
    informer = Informer(host, nodes)  # type: ignore[arg-type]
    informer.relist()
    assert host.queries == [{"resourceVersion": "0"}]
    assert [(e.type, (e.obj.get("metadata") or {}).get("name")) for e in host.events] == [
        ("ADDED", "a"), ("ADDED", "b"), ("SYNCED", None)]
    informer.relist()
    assert host.queries[1] == {"limit": PAGE_SIZE}
    assert len(host.events) == 3  # nothing changed: a relist emits only differences
