"""PreBind's side of DynamicResources: writing a claim's allocation and reservation (bindClaim) and
waiting for device binding conditions (DRADeviceBindingConditions, beta and on by default in v1.37).

A device may declare `bindingConditions` (and `bindingFailureConditions`): the allocation carries
them, and the pod is bound only once the driver reports every binding condition True (and no failure
condition True) in the claim's `status.devices`, or PreBind fails after `bindingTimeout`. An
allocated claim whose binding failed or timed out is "not available" in Filter, so PostFilter
deallocates it and the next attempt may pick other devices.
"""

from __future__ import annotations

import copy
import datetime
import re
import time
from collections.abc import Callable
from typing import Any

from kubeberth import Handle, PreBindCancellation

from .allocator import kobj
from .claims import FINALIZER

__all__ = [
    "ERR_BINDING_FAILED",
    "ERR_BINDING_TIMEOUT",
    "BindingFailed",
    "bind_claim",
    "claim_ready_for_binding",
    "claim_timed_out",
    "has_binding_conditions",
    "parse_duration",
    "wait_for_binding",
]

ERR_BINDING_TIMEOUT = "device binding timeout"  # ErrDeviceBindingTimeout
ERR_BINDING_FAILED = "device binding failed"  # ErrDeviceBindingFailed
_CONFLICT_RETRIES = 5  # retry.DefaultRetry.Steps
POLL_INTERVAL = 5.0  # PreBind's wait.PollUntilContextTimeout interval
_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


class BindingFailed(Exception):
    """A binding failure condition of an allocated device is True."""


def parse_duration(text: str) -> float:
    """Go's time.ParseDuration (metav1.Duration in the configuration), in seconds."""
    s = text.strip()
    sign = -1.0 if s.startswith("-") else 1.0
    s = s.lstrip("+-")
    if s == "0":
        return 0.0
    total, pos = 0.0, 0
    for m in _DURATION.finditer(s):
        if m.start() != pos:
            break
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if not s or pos != len(s):
        raise ValueError(f'time: invalid duration "{text}"')
    return sign * total


def _timestamp(text: Any) -> datetime.datetime | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def _results(claim: dict[str, Any]) -> list[dict[str, Any]]:
    allocation = (claim.get("status") or {}).get("allocation") or {}
    return list((allocation.get("devices") or {}).get("results") or ())


def has_binding_conditions(claims: list[dict[str, Any]]) -> bool:
    """hasBindingConditions: any allocated device of these claims declares binding conditions."""
    return any(r.get("bindingConditions") for c in claims for r in _results(c))


def _device_status(claim: dict[str, Any], result: dict[str, Any]) -> dict[str, Any] | None:
    for status in (claim.get("status") or {}).get("devices") or ():
        if (status.get("driver"), status.get("pool"), status.get("device")) == (
            result.get("driver"), result.get("pool"), result.get("device")
        ) and status.get("shareID") == result.get("shareID"):
            return status
    return None


def claim_ready_for_binding(claim: dict[str, Any]) -> bool:
    """isClaimReadyForBinding: every binding condition True and no failure condition True; raises
    BindingFailed when a failure condition is True."""
    if (claim.get("status") or {}).get("allocation") is None:
        return False
    for result in _results(claim):
        wanted = result.get("bindingConditions") or ()
        if not wanted:
            continue
        status = _device_status(claim, result)
        if status is None:
            return False
        conditions = {c.get("type"): c for c in status.get("conditions") or ()}
        for name in result.get("bindingFailureConditions") or ():
            failed = conditions.get(name)
            if failed is not None and failed.get("status") == "True":
                name_ = (claim.get("metadata") or {}).get("name", "")
                raise BindingFailed(
                    f'{ERR_BINDING_FAILED}: claim={name_}, reason={failed.get("reason", "")}, '
                    f'message="{failed.get("message", "")}"'
                )
        if any((conditions.get(name) or {}).get("status") != "True" for name in wanted):
            return False
    return True


def claim_timed_out(claim: dict[str, Any], timeout: float, now: datetime.datetime | None = None) -> bool:
    """isClaimTimeout: a device with binding conditions was allocated more than `timeout` ago."""
    allocation = (claim.get("status") or {}).get("allocation")
    if allocation is None:
        return False
    allocated = _timestamp(allocation.get("allocationTimestamp"))
    if allocated is None:
        return False
    now = now or datetime.datetime.now(datetime.UTC)
    return any(
        r.get("bindingConditions") is not None and allocated + datetime.timedelta(seconds=timeout) < now
        for r in _results(claim)
    )


def wait_for_binding(handle: Handle, claims: list[dict[str, Any]], timeout: float,
                     sleep: Callable[[float], None] = time.sleep,
                     cancellation: PreBindCancellation | None = None) -> str:
    """PreBind's wait for binding conditions: '' once every claim is ready, else the error text
    (a failure condition, the claim's timeout, or `timeout` passing). A `cancellation` set
    meanwhile (the pod preempted in PreBind) ends the wait with its reason."""
    deadline = time.monotonic() + timeout
    while True:
        ready = True
        for claim in claims:
            fresh = handle.get_object("ResourceClaim", kobj(claim))
            if fresh is None:
                return f'resourceclaim.resource.k8s.io "{(claim.get("metadata") or {}).get("name", "")}" not found'
            try:
                if claim_ready_for_binding(fresh):
                    continue
            except BindingFailed as exc:
                return str(exc)
            if claim_timed_out(fresh, timeout):
                return f"{ERR_BINDING_TIMEOUT}: claim={(fresh.get('metadata') or {}).get('name', '')}"
            ready = False
        if ready:
            return ""
        left = deadline - time.monotonic()
        if left <= 0:
            return f"{ERR_BINDING_TIMEOUT}: context deadline exceeded"
        if cancellation is None:
            sleep(min(POLL_INTERVAL, left))
        elif cancellation.wait(min(POLL_INTERVAL, left)):
            return cancellation.reason


def bind_claim(handle: Handle, claim: dict[str, Any], allocation: dict[str, Any] | None, binding: dict[str, Any],
               allocation_timestamp: bool) -> tuple[dict[str, Any] | None, str]:
    """bindClaim: add the allocation (with the delete-protection finalizer first) and the
    reservation (`binding`: the pod or its PodGroup) to the claim's status, retrying on conflicts; returns (the written claim, '') or
    (None, the error text). With binding conditions enabled the allocation gets its
    `allocationTimestamp` — on the allocation Reserve holds too, as upstream's shared pointer."""
    key = kobj(claim)
    last = ""
    for _ in range(_CONFLICT_RETRIES):
        fresh = handle.get_object("ResourceClaim", key)
        if fresh is None:
            return None, f'resourceclaims.resource.k8s.io "{(claim.get("metadata") or {}).get("name", "")}" not found'
        meta = fresh.setdefault("metadata", {})
        if meta.get("deletionTimestamp"):
            return None, f"claim {key} got deleted in the meantime"
        status = fresh.setdefault("status", {})
        if allocation is not None:
            if status.get("allocation") is not None:
                return None, f"claim {key} got allocated elsewhere in the meantime"
            finalizers = meta.setdefault("finalizers", [])
            if FINALIZER not in finalizers:
                finalizers.append(FINALIZER)
                written = handle.update_object("ResourceClaim", fresh)
                if not written.ok:
                    last = f"add finalizer to claim {key}: {written.message}"
                    if _conflict(written.message):
                        continue
                    return None, last
                fresh = handle.get_object("ResourceClaim", key) or fresh
                status = fresh.setdefault("status", {})
            status["allocation"] = allocation
        status.setdefault("reservedFor", []).append(dict(binding))
        if allocation_timestamp:
            if status.get("allocation") is None:
                return None, f"claim {key} got deallocated elsewhere in the meantime"
            status["allocation"].setdefault(
                "allocationTimestamp", datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            )
        written = handle.update_object("ResourceClaim", copy.deepcopy(fresh), subresource="status")
        if written.ok:
            return handle.get_object("ResourceClaim", key) or fresh, ""
        what = "add allocation and reservation to" if allocation is not None else "add reservation to"
        last = f"{what} claim {key}: {written.message}"
        if not _conflict(written.message):
            return None, last
    return None, last


def _conflict(message: str) -> bool:
    return "the object has been modified" in message or "Conflict" in message
