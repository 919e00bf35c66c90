"""Quantities must parse exactly as the Kubernetes API does (the client library is the oracle)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from kubeberth.cache.quantity import QuantityError, int_value, milli_value, parse_quantity, resource_value
from kubernetes.utils import parse_quantity as k8s_parse_quantity

AGREE = [
    "500m", "1Gi", "1e3", "0.5", "1.5Ki", "100M", "2E", "1n", "+1", ".5",
    "1E3", "5e-3", "1u", "3Ti", "1Pi", "1Ei", "1k", "7G", "2T", "4P", "128974848", "129e6",
    "129M", "123Mi", "0", "-1", "1.", "0.1m", "100Ki",
]


@pytest.mark.parametrize("text", AGREE)
def test_agrees_with_kubernetes_client(text: str) -> None:
    assert parse_quantity(text) == k8s_parse_quantity(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("500m", Decimal("0.5")),
        ("1Gi", Decimal(2**30)),
        ("1e3", Decimal(1000)),
        ("2E", Decimal(2 * 10**18)),
        ("1.5Ki", Decimal(1536)),
        ("1n", Decimal("1e-9")),
    ],
)
def test_exact_values(text: str, expected: Decimal) -> None:
    assert parse_quantity(text) == expected


@pytest.mark.parametrize(
    ("text", "millis"),
    [("500m", 500), ("1", 1000), ("0.5", 500), ("1n", 1), ("0.1m", 1), ("1.0001", 1001), ("1e-3", 1), ("250u", 1)],
)
def test_milli_value_rounds_up(text: str, millis: int) -> None:
    assert milli_value(text) == millis


@pytest.mark.parametrize(
    ("text", "value"),
    [("1Gi", 2**30), ("0.5", 1), ("1500m", 2), ("1n", 1), ("1k", 1000), ("1.5Ki", 1536), ("100M", 10**8)],
)
def test_int_value_rounds_up(text: str, value: int) -> None:
    assert int_value(text) == value


def test_resource_value_units() -> None:
    assert resource_value("cpu", "250m") == 250
    assert resource_value("cpu", 2) == 2000
    assert resource_value("memory", "1Mi") == 2**20
    assert resource_value("nvidia.com/gpu", "2") == 2


def test_numbers_accepted() -> None:
    assert parse_quantity(2) == 2
    assert parse_quantity(0.25) == Decimal("0.25")


@pytest.mark.parametrize("text", ["", "abc", "1Gb", "1.2.3", "m", "--1", "1e", "Gi", "1KI", "1k1", "1 Gi", "0x10", "1i"])
def test_bad_inputs_raise(text: str) -> None:
    with pytest.raises(QuantityError) as exc:
        parse_quantity(text)
    assert repr(text) in str(exc.value)


def test_bool_is_not_a_quantity() -> None:
    with pytest.raises(QuantityError):
        parse_quantity(True)


def test_quantity_error_is_value_error() -> None:
    assert issubclass(QuantityError, ValueError)
