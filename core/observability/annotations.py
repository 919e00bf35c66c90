"""The last decision as a pod annotation (off by default: KUBEBERTH_DECISION_ANNOTATION=true).

`kubectl get pod web-0 -o jsonpath='{.metadata.annotations.kubeberth\\.io/last-decision}'` then
tells the story without access to the scheduler's HTTP server. It needs the `patch` verb on
`pods`, which config/rbac.yaml does not grant by default (see the comment there).

Writes leave the loop thread at once: a bounded queue feeds one writer thread, and a full queue
drops the annotation (counted) rather than slow scheduling down. A pod stuck in a retry loop is
annotated again only when what it would say changes. The scheduler's event handlers ignore this
annotation, so writing it never requeues a pod.
"""

from __future__ import annotations

import json
import logging
import queue as queue_mod
import threading
from collections import OrderedDict
from typing import Any

from ..runtime.records import CycleRecord
from ..scheduling.eventhandlers import DECISION_ANNOTATION as ANNOTATION

MAX_BYTES = 2048  # annotations share a 256 KiB budget per object: stay small
_QUEUE = 1000
_MEMORY = 10000

log = logging.getLogger(__name__)


def decision_annotation(record: CycleRecord, max_bytes: int = MAX_BYTES) -> str:
    """A compact JSON summary of the attempt, cut to `max_bytes` by shortening the message."""
    result, message = record.result, record.message
    binding = record.binding or {}
    if binding:
        result = "Scheduled" if binding.get("result") == "Bound" else "BindingFailed"
        if result == "BindingFailed":
            message = binding.get("message") or message
    out: dict[str, Any] = {"result": result, "attempt": record.attempt, "generation": record.generation}
    if record.node:
        out["node"] = record.node
    if message:
        out["message"] = message
    if record.trace_id:
        out["traceID"] = record.trace_id
    text = json.dumps(out, separators=(",", ":"))
    while len(text.encode()) > max_bytes and out.get("message"):
        over = len(text.encode()) - max_bytes
        out["message"] = out["message"][: max(0, len(out["message"]) - over - 3)] + "..."
        text = json.dumps(out, separators=(",", ":"))
    return text


class DecisionAnnotator:
    """Observer: patches the decision annotation onto the pod, off the loop thread."""

    def __init__(self, backend: Any, max_bytes: int = MAX_BYTES) -> None:
        self.backend = backend
        self.max_bytes = max_bytes
        self.dropped = 0
        self.written = 0
        self._queue: queue_mod.Queue[tuple[str, str] | None] = queue_mod.Queue(maxsize=_QUEUE)
        self._last: OrderedDict[str, str] = OrderedDict()  # uid -> what it says, without attempt/trace
        self._thread = threading.Thread(target=self._write, name="kubeberth-annotate", daemon=True)
        self._thread.start()

    def cycle_done(self, record: CycleRecord) -> None:
        if record.result != "Scheduled":  # scheduled pods are annotated once bound
            self._offer(record)

    def binding_done(self, record: CycleRecord) -> None:
        self._offer(record)

    def _offer(self, record: CycleRecord) -> None:
        said = f"{record.result}|{record.node}|{record.message}|{(record.binding or {}).get('result')}"
        if self._last.get(record.uid) == said:
            return
        self._last[record.uid] = said
        self._last.move_to_end(record.uid)
        if len(self._last) > _MEMORY:
            self._last.popitem(last=False)
        try:
            self._queue.put_nowait((record.pod, decision_annotation(record, self.max_bytes)))
        except queue_mod.Full:
            self.dropped += 1

    def _write(self) -> None:
        warned = False
        while True:
            item = self._queue.get()
            if item is None:
                self._queue.task_done()
                return
            pod, value = item
            try:
                status = self.backend.patch_object("Pod", pod, {"metadata": {"annotations": {ANNOTATION: value}}})
                if status.ok:
                    self.written += 1
                elif not warned:
                    warned = True
                    log.warning(
                        "cannot annotate pods with their decision (%s); does the scheduler's role allow "
                        "patch on pods? (further failures are logged at debug level)", status.message,
                    )
                else:
                    log.debug("annotating %s: %s", pod, status.message)
            except Exception:  # noqa: BLE001 - a failed annotation must never stop the writer
                log.exception("annotating %s failed", pod)
            finally:
                self._queue.task_done()

    def flush(self) -> None:
        self._queue.join()

    def shutdown(self) -> None:
        self.flush()
        self._queue.put(None)
        self._thread.join(timeout=5)
