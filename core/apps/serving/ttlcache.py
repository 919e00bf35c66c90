"""A small expiring cache for delegated authentication and authorization answers.

Mirrors what k8s.io/apiserver keeps in front of its TokenReview and SubjectAccessReview calls
(authentication/token/cache and the webhook authorizer's LRU-expire cache): answers live for a
short TTL, chosen per entry (allowed and denied answers have their own), errors are not cached,
and the number of entries is bounded so a flood of distinct tokens cannot grow memory.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")

DEFAULT_MAX_ENTRIES = 4096


class TTLCache(Generic[V]):
    """Thread-safe; least recently stored entries go first when full."""

    def __init__(self, max_entries: int = DEFAULT_MAX_ENTRIES, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_entries = max_entries
        self.clock = clock
        self._entries: OrderedDict[Hashable, tuple[float, V]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        """The cached value, or None when absent or expired."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            expires, value = entry
            if self.clock() >= expires:
                del self._entries[key]
                return None
            return value

    def put(self, key: Hashable, value: V, ttl: float) -> None:
        """Keep `value` for `ttl` seconds (a TTL of 0 or less keeps nothing)."""
        if ttl <= 0:
            return
        with self._lock:
            self._entries.pop(key, None)
            self._entries[key] = (self.clock() + ttl, value)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
