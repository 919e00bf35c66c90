"""Decision records: the last attempt of each recent pod, and one log line per decision.

DecisionStore is a bounded LRU keyed by pod uid (with a namespace/name index) that the HTTP server
serves at /debug/decisions/<namespace>/<pod> for `kubeberth explain`. The loop thread writes, the
HTTP thread reads, under one uncontended lock. DecisionLog writes one INFO line per decision with
its trace id, and repeats an unschedulable pod's line only when its message changes or a minute
has passed, so a pod stuck in a retry loop does not flood the log.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import OrderedDict
from typing import Any
from urllib.parse import unquote

from ..runtime.records import CycleRecord

DEFAULT_DECISION_RECORDS = 1000
EARLIER_ATTEMPTS_KEPT = 5  # one-line summaries of a pod's previous attempts (a preemption, then the bind)
REPEAT_UNSCHEDULABLE_SECONDS = 60.0
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
    return out


class DecisionStore:
    """The last CycleRecord of the `size` most recently attempted pods, with a summary of each
    pod's few attempts before it (so a pod that preempted and then bound still tells both)."""

    def __init__(self, size: int = DEFAULT_DECISION_RECORDS) -> None:
        if size < 1:
            raise ValueError("decision store size must be >= 1")
        self.size = size
        self._records: OrderedDict[str, CycleRecord] = OrderedDict()
        self._earlier: dict[str, list[dict[str, Any]]] = {}
        self._uid_of: dict[str, str] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._records)

    def add(self, record: CycleRecord) -> None:
        with self._lock:
            records = self._records
            previous = records.get(record.uid)
            if previous is not None and previous is not record:
                earlier = self._earlier.setdefault(record.uid, [])
                earlier.append(attempt_summary(previous))
                del earlier[:-EARLIER_ATTEMPTS_KEPT]
            records[record.uid] = record
            records.move_to_end(record.uid)
            self._uid_of[record.pod] = record.uid
            while len(records) > self.size:
                _uid, old = records.popitem(last=False)
                self._earlier.pop(old.uid, None)
                if self._uid_of.get(old.pod) == old.uid:
                    del self._uid_of[old.pod]

    def get(self, key: str) -> CycleRecord | None:
        """By namespace/name, or by uid."""
        with self._lock:
            uid = self._uid_of.get(key, key)
            return self._records.get(uid)

    def decision(self, key: str) -> dict[str, Any] | None:
        """The record as JSON-ready data, with `earlier_attempts`."""
        with self._lock:
            uid = self._uid_of.get(key, key)
            record = self._records.get(uid)
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
            msg = f"no decision recorded for pod {key} (the scheduler keeps the last {self.size} pods it attempted)\n"
            return 404, TEXT, msg.encode()
        return 200, JSON, json.dumps(decision).encode()


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
