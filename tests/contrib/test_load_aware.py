"""kubeberth.contrib.load_aware: the base the load-aware plugins share (args, close/handoff,
degraded skip, neutral scores, weighted sums)."""

from __future__ import annotations

import numpy as np
import pytest
from kubeberth import Code
from kubeberth.contrib.cpu_usage_score import CPUUsageScore
from kubeberth.contrib.interference_score import InterferenceScore
from kubeberth.contrib.load_aware import (
    NEUTRAL_SCORE,
    DegradableScorePlugin,
    LoadAwarePlugin,
    weighted_sums,
)
from kubeberth.contrib.load_threshold import LoadThreshold
from kubeberth.contrib.load_variation_risk_balancing import LoadVariationRiskBalancing
from kubeberth.contrib.multi_dimension_score import MultiDimensionScore
from kubeberth.contrib.target_load_packing import TargetLoadPacking
from pydantic import ValidationError
from snapshot_util import cluster_of, pod, snapshot_args, view

DOWN = {"address": "http://127.0.0.1:9", "timeout": 0.2}


@pytest.mark.parametrize("cls", [TargetLoadPacking, CPUUsageScore, LoadVariationRiskBalancing])
def test_degradable_scorers_share_pre_score_and_args(cls: type[DegradableScorePlugin]) -> None:
    assert issubclass(cls, DegradableScorePlugin)
    with pytest.raises(ValidationError):
        cls.Args(bogus=1)  # type: ignore[call-arg]  # strict args: unknown keys fail
    plugin = cls(cls.Args(metrics=DOWN, degraded="skip"))  # type: ignore[call-arg]
    try:
        status = plugin.pre_score(pod=pod())
        assert status is not None and status.code == Code.SKIP
        assert cls(cls.Args(metrics=DOWN)).pre_score(pod=pod()) is None  # type: ignore[call-arg]
    finally:
        plugin.close()


@pytest.mark.parametrize("cls", [LoadThreshold, MultiDimensionScore, InterferenceScore])
def test_other_load_aware_plugins_have_no_pre_score(cls: type[LoadAwarePlugin]) -> None:
    assert issubclass(cls, LoadAwarePlugin) and not issubclass(cls, DegradableScorePlugin)
    assert not hasattr(cls, "pre_score")


def test_handoff_takes_over_the_provider_and_subclass_state(tmp_path) -> None:
    args = TargetLoadPacking.Args(metrics=snapshot_args(tmp_path, {"a": {"cpu": 0.5}}))
    old, new = TargetLoadPacking(args), TargetLoadPacking(args)
    old.recent.append((0.0, 0, "uid", 100))
    new.handoff(old)
    assert new.recent is old.recent
    assert new.load.provider is old.load.provider
    old.close()
    new.close()


def test_neutral_scores() -> None:
    assert LoadAwarePlugin.neutral_scores(view(cluster_of(("a", "1", "1Gi"), ("b", "1", "1Gi")))).tolist() == [
        NEUTRAL_SCORE, NEUTRAL_SCORE]


def test_weighted_sums_skip_missing_values_and_zero_weights() -> None:
    signals = {"x": np.array([0.5, np.nan, 2.0]), "y": np.array([1.0, 1.0, np.nan]), "z": np.array([0.0, 0.0, 0.0])}
    num, den = weighted_sums(signals, {"x": 2.0, "y": 1.0, "z": 0.0}, 3, lambda _n, v: np.clip(v, 0.0, 1.0))
    assert num.tolist() == [2.0, 1.0, 2.0]
    assert den.tolist() == [3.0, 1.0, 2.0]
