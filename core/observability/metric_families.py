"""Metric families kept as plain per-label-set counts: a bisect and two additions per histogram
sample, turned into prometheus_client families only when /metrics is scraped (prometheus_client's
own Histogram takes a lock and walks every bucket per sample)."""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.utils import floatToGoString


def exponential_buckets(start: float, factor: float, count: int) -> list[float]:
    """Go's metrics.ExponentialBuckets(start, factor, count)."""
    return [start * factor**i for i in range(count)]


class CounterFamily:
    """A counter family: label values -> value."""

    __slots__ = ("name", "help", "labels", "values")

    def __init__(self, name: str, help: str, labels: tuple[str, ...] = ()) -> None:  # noqa: A002
        self.name, self.help, self.labels = name, help, labels
        self.values: dict[tuple[str, ...], float] = {} if labels else {(): 0.0}

    def inc(self, key: tuple[str, ...] = (), amount: float = 1.0) -> None:
        self.values[key] = self.values.get(key, 0.0) + amount

    def family(self) -> Metric:
        family = CounterMetricFamily(self.name, self.help, labels=self.labels)
        for key, value in list(self.values.items()):
            family.add_metric(list(key), value)
        return family


class HistogramFamily:
    """A histogram family: label values -> [per-bucket counts (last: +Inf), sum]."""

    __slots__ = ("name", "help", "labels", "bounds", "series")

    def __init__(self, name: str, help: str, labels: tuple[str, ...], bounds: list[float]) -> None:  # noqa: A002
        self.name, self.help, self.labels, self.bounds = name, help, labels, bounds
        self.series: dict[tuple[str, ...], list[Any]] = {}

    def observe(self, key: tuple[str, ...], value: float) -> None:
        s = self.series.get(key)
        if s is None:
            s = self.series[key] = [[0] * (len(self.bounds) + 1), 0.0]
        s[0][bisect_left(self.bounds, value)] += 1  # first bucket whose upper bound is >= value
        s[1] += value

    def family(self) -> Metric:
        family = HistogramMetricFamily(self.name, self.help, labels=self.labels)
        for key, (counts, total) in list(self.series.items()):
            cumulative, running = [], 0
            for bound, count in zip([*self.bounds, float("inf")], list(counts), strict=True):
                running += count
                cumulative.append((le_label(bound), running))
            family.add_metric(list(key), cumulative, total)
        return family


def le_label(bound: float) -> str:
    """A bucket's `le` label as Go formats it."""
    return floatToGoString(bound)
