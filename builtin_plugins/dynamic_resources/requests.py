"""A claim's requests as the allocator sees them (upstream's requestAccessor with the API's
defaults applied), the devices it picks for them (internalDeviceResult), and the claim-level
constraints those devices must satisfy (matchAttribute, distinctAttribute) plus device taints."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .capacity import Quantity
    from .pools import Pool

__all__ = [
    "ALL",
    "EXACT_COUNT",
    "DeviceID",
    "DeviceResult",
    "DistinctAttribute",
    "MatchAttribute",
    "Request",
    "RequestData",
    "lookup_attribute",
    "taint_prevents",
    "tolerates",
]

EXACT_COUNT = "ExactCount"
ALL = "All"

DeviceID = tuple[str, str, str]


@dataclass(slots=True)
class Request:
    """A request or subrequest, with the API's defaults applied."""

    name: str
    class_name: str
    mode: str
    count: int
    admin_access: bool
    has_admin_access: bool
    selectors: list[dict[str, Any]]
    tolerations: list[dict[str, Any]]
    derived: bool
    capacity: dict[str, Any] | None = None  # capacity requirements (DRAConsumableCapacity)

    @classmethod
    def of(cls, spec: dict[str, Any], name: str, allow_admin: bool) -> Request:
        mode = spec.get("allocationMode") or EXACT_COUNT
        count = spec.get("count")
        if count is None and mode == EXACT_COUNT:
            count = 1
        admin = spec.get("adminAccess") if allow_admin else None
        return cls(name, str(spec.get("deviceClassName") or ""), mode, int(count or 0), bool(admin),
                   admin is not None, list(spec.get("selectors") or ()), list(spec.get("tolerations") or ()),
                   bool(spec.get("derivedAttributes")), spec.get("capacity"))


@dataclass(slots=True)
class RequestData:
    request: Request
    parent: str | None  # name of the parent request for a subrequest
    cls: dict[str, Any] | None = None
    num_devices: int = 0
    selected_sub: int = 0
    all_devices: list[tuple[DeviceID, dict[str, Any], dict[str, Any], Pool | None]] = field(default_factory=list)

    @property
    def request_name(self) -> str:
        return f"{self.parent}/{self.request.name}" if self.parent else self.request.name


@dataclass(slots=True)
class DeviceResult:
    request: str
    parent: str
    id: DeviceID
    device: dict[str, Any]
    slice: dict[str, Any]
    admin_access: bool | None
    share_id: str | None = None
    consumed: dict[str, Quantity] | None = None

    @property
    def request_name(self) -> str:
        return f"{self.parent}/{self.request}" if self.parent else self.request


class MatchAttribute:
    """matchAttributeConstraint: every device of the named requests has the same attribute value."""

    def __init__(self, requests: list[str], attribute: str) -> None:
        self.requests = set(requests)
        self.attribute = attribute
        self.value: tuple[str, Any] | None = None
        self.count = 0

    def _applies(self, request: str, sub: str) -> bool:
        if not self.requests:
            return True
        if not sub:
            return request in self.requests
        return request in self.requests or f"{request}/{sub}" in self.requests

    def add(self, request: str, sub: str, device: dict[str, Any], device_id: DeviceID) -> bool:
        if not self._applies(request, sub):
            return True
        attr = lookup_attribute(device, device_id, self.attribute)
        if attr is None:
            return False
        if self.count == 0:
            self.value = attr
            self.count = 1
            return True
        if attr[0] not in ("int", "bool", "string", "version") or self.value != attr:
            return False
        self.count += 1
        return True

    def remove(self, request: str, sub: str) -> None:
        if self._applies(request, sub):
            self.count -= 1


class DistinctAttribute(MatchAttribute):
    """distinctAttributeConstraint (DRAConsumableCapacity): the devices of the named requests all
    have the attribute, each with a different value."""

    def __init__(self, requests: list[str], attribute: str) -> None:
        super().__init__(requests, attribute)
        self.values: list[tuple[str, Any]] = []

    def add(self, request: str, sub: str, device: dict[str, Any], device_id: DeviceID) -> bool:
        if not self._applies(request, sub):
            return True
        attr = lookup_attribute(device, device_id, self.attribute)
        if attr is None:
            return False
        for seen in self.values:
            if attr[0] not in ("int", "bool", "string", "version") or seen == attr:
                return False
        self.values.append(attr)
        return True

    def remove(self, request: str, sub: str) -> None:
        if self._applies(request, sub):
            self.values.pop()


def lookup_attribute(device: dict[str, Any], device_id: DeviceID, name: str) -> tuple[str, Any] | None:
    attrs = device.get("attributes") or {}
    attr = attrs.get(name)
    if attr is None:
        domain, sep, ident = name.partition("/")
        if not sep or domain != device_id[0]:
            return None
        attr = attrs.get(ident)
        if attr is None:
            return None
    for kind in ("string", "int", "bool", "version"):
        if kind in attr:
            return (kind, attr[kind])
    return ("", None)


def tolerates(toleration: dict[str, Any], taint: dict[str, Any]) -> bool:
    """resourceclaim.ToleratesTaint."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    operator = toleration.get("operator") or "Equal"
    if key and key != taint.get("key"):
        return False
    if operator == "Exists":
        return True
    if operator == "Equal":
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return False


def taint_prevents(device: dict[str, Any], request: Request) -> bool:
    for taint in device.get("taints") or ():
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not any(
            tolerates(t, taint) for t in request.tolerations
        ):
            return True
    return False


