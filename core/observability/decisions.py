"""Decision records: the last attempt of each recent pod, and one log line per decision.

DecisionStore keeps each pod's last record keyed by pod uid (with a namespace/name index) and the
HTTP server serves it at /debug/decisions/<namespace>/<pod> for `kubeberth explain`. Its bound
(KUBEBERTH_DECISION_RECORDS) holds finished pods only (bound, deleted, preempted): a pod the
scheduler still holds keeps its last record however many pods finish meanwhile. A pod without a
record gets a 404 whose JSON body says why (pod_state.explain_missing). The loop thread writes,
the HTTP thread reads, under one uncontended lock. DecisionLog writes one INFO line per decision with
its trace id, and repeats an unschedulable pod's line only when its message changes or a minute
has passed, so a pod stuck in a retry loop does not flood the log.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from ..runtime.records import CycleRecord

DEFAULT_DECISION_RECORDS = 1000
EARLIER_ATTEMPTS_KEPT = 5  # one-line summaries of a pod's previous attempts (a preemption, then the bind)
REPEAT_UNSCHEDULABLE_SECONDS = 60.0
_PRUNE_MIN = 64  # adds between two checks at least
_LOG_MEMORY = 10000  # pods whose last unschedulable line is remembered for rate limiting

JSON = "application/json"
TEXT = "text/plain; charset=utf-8"


def attempt_summary(record: CycleRecord) -> dict[str, Any]:
    """What an earlier attempt decided, in a line: kept when the pod is attempted again."""
    out: dict[str, Any] = {"attempt": record.attempt, "result": record.result, "trace_id": record.trace_id}
    if record.node:
        out["node"] = record.node
    if record.message:
        out["message"] = record.message
    if record.preemption:
        out["preemption"] = record.preemption
    if record.requeued_by:
        out["requeued_by"] = record.requeued_by
    binding = record.binding
    if binding and binding.get("result") != "Bound":  # the node was picked, its binding cycle failed
        out["binding"] = {k: binding.get(k, "") for k in ("result", "plugin", "message")}
    return out


class DecisionStore:
    """The last CycleRecord of every pod the scheduler still holds and of the `size` pods that
    finished most recently, with a summary of each pod's few attempts before it (so a pod that
    preempted and then bound still tells both).

    `still_pending(uid)` (set by `track`, called on the loop thread) says whether the scheduler
    still holds a pod; without it every record counts as finished. `explain_missing(key)` answers
    for a pod without a record (called on the HTTP thread)."""

    def __init__(self, size: int = DEFAULT_DECISION_RECORDS) -> None:
        if size < 1:
            raise ValueError("decision store size must be >= 1")
        self.size = size
        self._records: OrderedDict[str, CycleRecord] = OrderedDict()  # recent, oldest first
        self._pending: dict[str, CycleRecord] = {}  # past the bound, kept while their pod is pending
        self._prune_at = _PRUNE_MIN  # adds between two checks of the kept pending records
        self._adds = 0
        self._earlier: dict[str, list[dict[str, Any]]] = {}
        self._uid_of: dict[str, str] = {}
        self._lock = threading.Lock()
        self.still_pending: Callable[[str], bool] | None = None
        self.explain_missing: Callable[[str], dict[str, Any]] | None = None

    def track(self, still_pending: Callable[[str], bool], explain_missing: Callable[[str], dict[str, Any]]) -> None:
        """Keep the records of pods `still_pending` says the scheduler holds; answer misses with
        `explain_missing`."""
        self.still_pending = still_pending
        self.explain_missing = explain_missing

    def __len__(self) -> int:
        return len(self._records) + len(self._pending)

    def add(self, record: CycleRecord) -> None:
        """A cycle's record (loop thread): kept apart while the scheduler holds its pod (queued,
        assumed while it binds), else among the `size` most recently finished."""
        with self._lock:
            uid = record.uid
            previous = self._records.get(uid) or self._pending.get(uid)
            if previous is not None and previous is not record:
                earlier = self._earlier.setdefault(uid, [])
                earlier.append(attempt_summary(previous))
                del earlier[:-EARLIER_ATTEMPTS_KEPT]
            self._uid_of[record.pod] = uid
            if self.still_pending is not None and self.still_pending(uid):
                self._records.pop(uid, None)
                self._pending[uid] = record
            else:
                self._pending.pop(uid, None)
                self._finish(record)
            self._adds += 1
            if self._adds >= self._prune_at:
                self._prune()

    def finished(self, record: CycleRecord) -> None:
        """Its pod is bound (the binding cycle's observer): the record joins the finished ones."""
        with self._lock:
            if self._pending.get(record.uid) is record:
                del self._pending[record.uid]
                self._finish(record)

    def _finish(self, record: CycleRecord) -> None:
        self._records[record.uid] = record
        self._records.move_to_end(record.uid)
        self._evict()

    def _evict(self) -> None:
        """Past the bound, the oldest finished records go (lock held)."""
        records, pending = self._records, self.still_pending
        while len(records) > self.size:
            uid, old = records.popitem(last=False)
            if pending is not None and pending(uid):  # back in the scheduler's hands since
                self._pending[uid] = old
            else:
                self._forget(old)

    def _prune(self) -> None:
        """Kept pods that finished otherwise (deleted, preempted, bound by another) join the
        finished ones. Amortized O(1) per add: once per max(size, kept) adds (lock held)."""
        pending = self.still_pending
        for uid in [uid for uid in self._pending if pending is None or not pending(uid)]:
            self._finish(self._pending.pop(uid))
        self._adds = 0
        self._prune_at = max(_PRUNE_MIN, self.size, len(self._pending))

    def _forget(self, old: CycleRecord) -> None:
        self._earlier.pop(old.uid, None)
        if self._uid_of.get(old.pod) == old.uid:
            del self._uid_of[old.pod]

    def _find(self, key: str) -> tuple[str, CycleRecord | None]:
        uid = self._uid_of.get(key, key)
        record = self._records.get(uid)
        return uid, record if record is not None else self._pending.get(uid)

    def get(self, key: str) -> CycleRecord | None:
        """By namespace/name, or by uid."""
        with self._lock:
            return self._find(key)[1]

    def decision(self, key: str) -> dict[str, Any] | None:
        """The record as JSON-ready data, with `earlier_attempts`."""
        with self._lock:
            uid, record = self._find(key)
            earlier = list(self._earlier.get(uid, ()))
        if record is None:
            return None
        out = record.as_dict()
        out["earlier_attempts"] = earlier
        return out

    def route(self, rest: str) -> tuple[int, str, bytes]:
        """GET /debug/decisions/<namespace>/<pod>: the pod's last decision record as JSON."""
        key = unquote(rest.strip("/"))
        if key.count("/") != 1:
            return 400, TEXT, b"expected /debug/decisions/<namespace>/<pod>\n"
        decision = self.decision(key)
        if decision is None:
            return 404, JSON, json.dumps({"pod": key, **self._missing(key)}).encode()
        return 200, JSON, json.dumps(decision).encode()

    def _missing(self, key: str) -> dict[str, Any]:
        """Why `key` has no record: {"state": ..., "message": ...}."""
        if self.explain_missing is not None:
            return self.explain_missing(key)
        return {
            "state": "no-record",
            "message": f"no decision recorded for pod {key} (the scheduler keeps the pods it holds and "
            f"the last {self.size} that finished)",
        }


class DecisionLog:
    """One structured INFO line per decision (logger `kubeberth.decisions`), with the trace id."""

    def __init__(self, logger: logging.Logger | None = None, repeat_seconds: float = REPEAT_UNSCHEDULABLE_SECONDS) -> None:
        self.log = logger or logging.getLogger("kubeberth.decisions")
        self.repeat_seconds = repeat_seconds
        self._last: OrderedDict[str, tuple[float, str, int]] = OrderedDict()  # uid -> (when, message, suppressed)

    def __call__(self, record: CycleRecord) -> None:
        if not self.log.isEnabledFor(logging.INFO):
            return
        suppressed = 0
        if record.result == "Unschedulable":
            now = time.monotonic()
            last = self._last.get(record.uid)
            if last is not None and last[1] == record.message and now - last[0] < self.repeat_seconds:
                self._last[record.uid] = (last[0], last[1], last[2] + 1)
                return
            suppressed = last[2] if last is not None else 0
            self._last[record.uid] = (now, record.message, 0)
            self._last.move_to_end(record.uid)
            if len(self._last) > _LOG_MEMORY:
                self._last.popitem(last=False)
        else:
            self._last.pop(record.uid, None)
        fields: dict[str, Any] = {
            "pod": record.pod,
            "uid": record.uid,
            "result": record.result,
            "attempt": record.attempt,
            "profile": record.profile,
            "generation": record.generation,
            "evaluated_nodes": record.evaluated_nodes,
            "feasible_nodes": record.feasible_nodes,
            "duration_ms": round((record.end_ns - record.start_ns) / 1e6, 3) if record.end_ns else None,
            "trace_id": record.trace_id,
        }
        if record.node:
            fields["node"] = record.node
        if record.message:
            fields["message"] = record.message
        if suppressed:
            fields["repeats_suppressed"] = suppressed
        if record.batch is not None:
            fields["batch"] = record.batch
        if record.result == "Scheduled":
            text = f"Scheduled {record.pod} on {record.node}"
            if (record.batch or {}).get("result") == "hint_used":
                text += " (batch hint from the previous same-signature pod)"
        else:
            text = f"{record.result} {record.pod}: {record.message}"
        details = f"attempt {record.attempt}, {record.feasible_nodes}/{record.evaluated_nodes} feasible"
        if suppressed:
            details += f", {suppressed} identical attempts not logged"
        if record.trace_id:
            details += f", trace {record.trace_id}"
        self.log.info("%s (%s)", text, details, extra={"decision": fields})
