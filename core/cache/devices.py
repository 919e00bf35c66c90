"""Per-node device pools and allocated devices for Dynamic Resource Allocation (resource.k8s.io/v1).

kube-scheduler's DRA manager keeps a ResourceSlice lister and an allocated-devices tracker fed by
the ResourceClaim informer, plus in-flight allocations (claims allocated in Reserve whose status
write has not come back through the informer yet). `DeviceState` is the same for kubeberth's
cache: ClusterState routes ResourceSlice, DeviceTaintRule and ResourceClaim events here, so a pod
with claims reads "which slices may serve this node" and "which devices are taken" without scanning
every object, and a pod without claims pays nothing (no per-node or per-pod work happens here).
Slices are read with the taints of the DeviceTaintRules that select their devices, as
kube-scheduler's ListWithDeviceTaintRules (device_taint_rules.py).

Scheduling thread only, like the rest of ClusterState.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from .device_taint_rules import SliceChange, patch_slice, rule_selects_slice, taints_changed
from .quantity import QuantityError, parse_quantity

__all__ = [
    "AllocatedState",
    "DEVICE_CLASS_RESOURCE_PREFIX",
    "EXTENDED_RESOURCE_CLAIM_ANNOTATION",
    "DeviceID",
    "DeviceState",
    "InFlightAllocation",
    "SharedDeviceID",
    "SliceChange",
]

DEVICE_CLASS_RESOURCE_PREFIX = "deviceclass.resource.kubernetes.io/"
"""resourceapi.ResourceDeviceClassPrefix: every DeviceClass serves the extended resource
`deviceclass.resource.kubernetes.io/<class name>`, besides its `spec.extendedResourceName`."""

EXTENDED_RESOURCE_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
"""resourceapi.ExtendedResourceClaimAnnotation: marks the claim kube-scheduler creates for a pod's
DRA-backed extended resources."""

DeviceID = tuple[str, str, str]
"""(driver, pool, device): one device across the cluster."""

SharedDeviceID = tuple[str, str, str, str]
"""(driver, pool, device, shareID): one share of a device that allows multiple allocations."""


@dataclass(slots=True)
class AllocatedState:
    """structured.AllocatedState: devices held whole, shares of devices, and the capacity those
    shares consume (exact decimals per capacity name)."""

    devices: set[DeviceID]
    shared: set[SharedDeviceID]
    capacity: dict[DeviceID, dict[str, Decimal]]


@dataclass(slots=True)
class InFlightAllocation:
    """A claim allocated in Reserve whose status write has not been observed yet."""

    claim_key: str  # namespace/name
    claim: dict[str, Any]  # the claim as allocated (status.allocation set)
    pods: set[str]  # uids of the pods holding it (Unreserve of the last one drops it)
    # When set, an observed allocation ends the hold only once settled(claim) is true (e.g. its
    # devices' binding conditions are met); until then only Unreserve (release) drops it.
    settled: Callable[[dict[str, Any]], bool] | None = None
    # A claim the API server has yet to create under a generated name (DynamicResources' claim for
    # DRA-backed extended resources): the uid of the pod it is created for, whose annotated claim
    # ends the hold when observed allocated.
    created_for: str = ""


def _results(claim: dict[str, Any]) -> list[dict[str, Any]]:
    allocation = (claim.get("status") or {}).get("allocation") or {}
    return list(((allocation.get("devices") or {}).get("results")) or ())


def exclusive_devices(claim: dict[str, Any]) -> list[DeviceID]:
    """Devices a claim's allocation holds exclusively (admin access shares, so it does not count)."""
    return [
        (str(r.get("driver", "")), str(r.get("pool", "")), str(r.get("device", "")))
        for r in _results(claim)
        if not r.get("adminAccess")
    ]


def _created_us(obj: dict[str, Any]) -> int:
    """metadata.creationTimestamp in microseconds since the epoch (0 when unset or unreadable)."""
    value = (obj.get("metadata") or {}).get("creationTimestamp")
    if not value:
        return 0
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return 0
    return int(moment.timestamp()) * 1_000_000 + moment.microsecond


def _explicit_name(device_class: dict[str, Any]) -> str | None:
    name = (device_class.get("spec") or {}).get("extendedResourceName")
    return str(name) if name is not None else None


def shared_usage(claim: dict[str, Any]) -> list[tuple[SharedDeviceID, dict[str, Decimal] | None]]:
    """foreachAllocatedDevice's shared callbacks (DRAConsumableCapacity): each result with a
    shareID, with the capacity it consumes (None when it names none)."""
    out: list[tuple[SharedDeviceID, dict[str, Decimal] | None]] = []
    for r in _results(claim):
        if r.get("adminAccess") or r.get("shareID") is None:
            continue
        consumed = r.get("consumedCapacity")
        capacity = None
        if consumed is not None:
            capacity = {}
            for name, value in consumed.items():
                try:
                    capacity[str(name)] = parse_quantity(str(value))
                except QuantityError:
                    continue  # the API server validates quantities; skip what cannot be read
        out.append(((str(r.get("driver", "")), str(r.get("pool", "")), str(r.get("device", "")), str(r["shareID"])), capacity))
    return out


def _add_capacity(total: dict[DeviceID, dict[str, Decimal]], device: DeviceID, consumed: dict[str, Decimal]) -> None:
    entry = total.setdefault(device, {})
    for name, value in consumed.items():
        entry[name] = entry.get(name, Decimal(0)) + value


def _key(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    ns = meta.get("namespace")
    return f"{ns}/{meta.get('name')}" if ns else str(meta.get("name"))


class DeviceState:
    """ResourceSlices by node and devices in use, maintained from informer events."""

    def __init__(self) -> None:
        self.slices: dict[str, dict[str, Any]] = {}  # with DeviceTaintRules' taints (see upsert_slice)
        self.published: dict[str, dict[str, Any]] = {}  # as their drivers wrote them
        self.taint_rules: dict[str, dict[str, Any]] = {}  # DeviceTaintRules by name
        self.by_node: dict[str, dict[str, dict[str, Any]]] = {}  # spec.nodeName -> slices
        self.node_independent: dict[str, dict[str, Any]] = {}  # allNodes / nodeSelector / per-device
        self.allocated: Counter[DeviceID] = Counter()  # from claims in the cache
        self._claim_devices: dict[str, list[DeviceID]] = {}
        # Shares of devices that allow multiple allocations (results with a shareID), per claim,
        # and what they add up to; read only when DRAConsumableCapacity is on.
        self._claim_shares: dict[str, list[tuple[SharedDeviceID, dict[str, Decimal] | None]]] = {}
        self.shared: Counter[SharedDeviceID] = Counter()
        self.capacity: dict[DeviceID, dict[str, Decimal]] = {}
        self._claim_uids: dict[str, str] = {}  # claim key -> uid
        self.in_flight: dict[str, InFlightAllocation] = {}  # claim uid -> allocation
        self._created_for: dict[str, str] = {}  # pod uid -> in-flight uid of a claim to be created
        self.version = 0  # bumped on every change; per-cycle caches compare it
        # DRA-backed extended resources (DRAExtendedResource): resource name -> the DeviceClass
        # serving it, and class name -> its explicit extendedResourceName.
        self._resource_classes: dict[str, dict[str, Any]] = {}
        self._class_resources: dict[str, str] = {}
        self.classes_version = 0  # bumped when a DeviceClass changes

    # ---- ResourceSlices ----------------------------------------------------------------
    # `slices`, `by_node` and `node_independent` hold the slices as the allocator sees them: with the
    # taints of the DeviceTaintRules that select their devices (device_taint_rules.py); `published`
    # holds them as their drivers wrote them.
    def upsert_slice(self, obj: dict[str, Any]) -> SliceChange:
        """A slice added or updated: (before, after), as the allocator sees it."""
        key = _key(obj)
        before = self._unstore(key)
        self.published[key] = obj
        after = patch_slice(obj, self._rules()) if self.taint_rules else obj
        self._store(key, after)
        return before, after

    def remove_slice(self, obj: dict[str, Any]) -> SliceChange:
        """A slice deleted: (before, None); before is None when it was not known."""
        key = _key(obj)
        self.published.pop(key, None)
        return self._unstore(key), None

    def _store(self, key: str, obj: dict[str, Any]) -> None:
        self.slices[key] = obj
        node = (obj.get("spec") or {}).get("nodeName")
        if node:
            self.by_node.setdefault(str(node), {})[key] = obj
        else:
            self.node_independent[key] = obj
        self.version += 1

    def _unstore(self, key: str) -> dict[str, Any] | None:
        old = self.slices.pop(key, None)
        if old is None:
            return None
        node = (old.get("spec") or {}).get("nodeName")
        if node:
            bucket = self.by_node.get(str(node))
            if bucket is not None:
                bucket.pop(key, None)
                if not bucket:
                    del self.by_node[str(node)]
        else:
            self.node_independent.pop(key, None)
        self.version += 1
        return old

    # ---- DeviceTaintRules ----------------------------------------------------------------
    def upsert_taint_rule(self, rule: dict[str, Any]) -> list[SliceChange]:
        """A DeviceTaintRule added or updated: the slices whose device taints it changed, each as
        (before, after) (the tracker's deviceTaintAdd/deviceTaintUpdate)."""
        name = str((rule.get("metadata") or {}).get("name") or "")
        before = self.taint_rules.get(name)
        self.taint_rules[name] = rule
        return self._repatch((before, rule))

    def remove_taint_rule(self, rule: dict[str, Any]) -> list[SliceChange]:
        """A DeviceTaintRule deleted: the slices whose device taints lost it (deviceTaintDelete);
        the rule as last seen here decides which, whatever the deletion event carries."""
        name = str((rule.get("metadata") or {}).get("name") or "")
        known = self.taint_rules.pop(name, None)
        return self._repatch((known if known is not None else rule,))

    def _rules(self) -> list[dict[str, Any]]:
        return [self.taint_rules[name] for name in sorted(self.taint_rules)]

    def _repatch(self, touched: tuple[dict[str, Any] | None, ...]) -> list[SliceChange]:
        """Patch again the slices the given rule versions select; report those whose taints moved."""
        rules = self._rules()
        changes: list[SliceChange] = []
        for key, published in list(self.published.items()):
            if not any(r is not None and rule_selects_slice(r, published) for r in touched):
                continue
            before = self.slices.get(key)
            after = patch_slice(published, rules)
            if not taints_changed(before, after):
                continue
            self._unstore(key)
            self._store(key, after)
            changes.append((before, after))
        return changes

    def slices_for(self, node_name: str) -> list[dict[str, Any]]:
        """Slices that may serve `node_name`: its own, then every node-independent one (the
        allocator still matches their node selectors)."""
        own = self.by_node.get(node_name)
        if not own:
            return list(self.node_independent.values())
        return [*own.values(), *self.node_independent.values()]

    def all_slices(self) -> Iterable[dict[str, Any]]:
        return self.slices.values()

    # ---- DeviceClasses: DRA-backed extended resources -----------------------------------
    def device_class_for(self, resource_name: str) -> dict[str, Any] | None:
        """The DeviceClass serving extended resource `resource_name` (kube-scheduler's
        DeviceClassResolver.GetDeviceClass): the class whose `spec.extendedResourceName` it is, or
        class `<name>` for `deviceclass.resource.kubernetes.io/<name>`; None when none does."""
        return self._resource_classes.get(resource_name)

    def extended_resource_of(self, class_name: str) -> str:
        """The explicit `spec.extendedResourceName` of DeviceClass `class_name`, or ""."""
        return self._class_resources.get(class_name, "")

    def has_extended_resource_classes(self) -> bool:
        """Whether any DeviceClass exists (every class serves its implicit extended resource):
        False lets pods skip every DRA-backed extended resource check at no cost."""
        return bool(self._resource_classes)

    def upsert_device_class(self, obj: dict[str, Any], old: dict[str, Any] | None = None) -> None:
        """A DeviceClass added or updated (`old`: the version it replaces). As upstream's
        extendedresourcecache: of two classes naming the same extendedResourceName the most recently
        created one serves it (equal times: the lower name); a class that loses that contest keeps
        no mapping at all, not even its implicit one, until it is updated."""
        explicit = _explicit_name(obj)
        name = str((obj.get("metadata") or {}).get("name") or "")
        contender = self._resource_classes.get(explicit) if explicit is not None else None
        wins = True
        if contender is not None:
            mine, theirs = _created_us(obj), _created_us(contender)
            if mine < theirs or (mine == theirs and name >= str((contender.get("metadata") or {}).get("name") or "")):
                wins = False
        if wins:
            if old is not None:
                old_name = str((old.get("metadata") or {}).get("name") or "")
                self._resource_classes.pop(DEVICE_CLASS_RESOURCE_PREFIX + old_name, None)
                old_explicit = _explicit_name(old)
                if old_explicit is not None:
                    self._resource_classes.pop(old_explicit, None)
            if explicit is not None:
                self._resource_classes[explicit] = obj
            self._resource_classes[DEVICE_CLASS_RESOURCE_PREFIX + name] = obj
        if explicit is None:
            self._class_resources.pop(name, None)
        else:
            self._class_resources[name] = explicit
        self.classes_version += 1

    def remove_device_class(self, obj: dict[str, Any]) -> None:
        """A DeviceClass deleted: its implicit and explicit mappings go, whichever class held them."""
        name = str((obj.get("metadata") or {}).get("name") or "")
        self._resource_classes.pop(DEVICE_CLASS_RESOURCE_PREFIX + name, None)
        explicit = _explicit_name(obj)
        if explicit is not None:
            self._resource_classes.pop(explicit, None)
        self._class_resources.pop(name, None)
        self.classes_version += 1

    # ---- ResourceClaims ----------------------------------------------------------------
    def upsert_claim(self, obj: dict[str, Any]) -> None:
        key = _key(obj)
        self._drop_claim(key)
        devices = exclusive_devices(obj)
        if devices:
            self._claim_devices[key] = devices
            self.allocated.update(devices)
            shares = shared_usage(obj)
            if shares:
                self._claim_shares[key] = shares
                for share, consumed in shares:
                    self.shared[share] += 1
                    if consumed is not None:
                        _add_capacity(self.capacity, share[:3], consumed)
        uid = str((obj.get("metadata") or {}).get("uid") or "")
        self._claim_uids[key] = uid
        held_uid = uid
        if uid not in self.in_flight and self._created_for:
            held_uid = self._stand_in_for(obj) or uid
        held = self.in_flight.get(held_uid)
        observed = bool(devices or (obj.get("status") or {}).get("allocation"))
        if held is not None and observed and (held.settled is None or held.settled(obj)):
            self._drop_in_flight(held_uid)  # the cache caught up with our own write
        self.version += 1

    def _stand_in_for(self, obj: dict[str, Any]) -> str:
        """The in-flight uid standing in for `obj`, when it is the extended-resource claim created
        for a pod whose allocation is held under the in-memory claim's uid."""
        meta = obj.get("metadata") or {}
        if (meta.get("annotations") or {}).get(EXTENDED_RESOURCE_CLAIM_ANNOTATION) != "true":
            return ""
        for ref in meta.get("ownerReferences") or ():
            if ref.get("controller"):
                return self._created_for.get(str(ref.get("uid") or ""), "")
        return ""

    def _drop_in_flight(self, uid: str) -> None:
        found = self.in_flight.pop(uid, None)
        if found is not None and found.created_for and self._created_for.get(found.created_for) == uid:
            del self._created_for[found.created_for]

    def remove_claim(self, obj: dict[str, Any]) -> None:
        key = _key(obj)
        self._drop_claim(key)
        uid = self._claim_uids.pop(key, "")
        self._drop_in_flight(uid)
        self.version += 1

    def _drop_claim(self, key: str) -> None:
        old = self._claim_devices.pop(key, None)
        if old:
            self.allocated.subtract(old)
            for device in old:
                if self.allocated[device] <= 0:
                    del self.allocated[device]
        for share, consumed in self._claim_shares.pop(key, ()):
            self.shared[share] -= 1
            if self.shared[share] <= 0:
                del self.shared[share]
            entry = self.capacity.get(share[:3])
            if consumed is not None and entry is not None:
                for name, value in consumed.items():
                    if name in entry:
                        entry[name] -= value
                if all(v == 0 for v in entry.values()):
                    del self.capacity[share[:3]]

    # ---- in-flight allocations (Reserve .. informer echo) ------------------------------
    def assume_allocation(self, claim_uid: str, claim_key: str, claim: dict[str, Any], pod_uid: str,
                          settled: Callable[[dict[str, Any]], bool] | None = None, created_for: str = "") -> None:
        """Hold a claim allocated in Reserve, so no other pod takes its devices meanwhile. The hold
        ends when the claim's allocation is observed (and, with `settled`, once settled(observed
        claim) is true: binding still in progress keeps it) or when every pod releases it.
        `created_for` (a pod uid) marks a claim that does not exist yet: the claim annotated
        `resource.kubernetes.io/extended-resource-claim` that this pod controls stands for it."""
        found = self.in_flight.get(claim_uid)
        if found is None:
            self.in_flight[claim_uid] = InFlightAllocation(claim_key, claim, {pod_uid}, settled, created_for)
            if created_for:
                self._created_for[created_for] = claim_uid
        else:
            found.pods.add(pod_uid)
        self.version += 1

    def release(self, claim_uid: str, pod_uid: str) -> bool:
        """Drop the pod's hold on an in-flight allocation; True when the allocation went away."""
        found = self.in_flight.get(claim_uid)
        if found is None:
            return False
        found.pods.discard(pod_uid)
        if found.pods:
            return False
        self._drop_in_flight(claim_uid)
        self.version += 1
        return True

    def pending_allocation(self, claim_uid: str) -> dict[str, Any] | None:
        """The claim as allocated in Reserve by a cycle whose binding is in flight, if any."""
        found = self.in_flight.get(claim_uid)
        return found.claim if found is not None else None

    def allocated_devices(self) -> set[DeviceID]:
        """Every device held exclusively: by claims in the cache and by in-flight allocations."""
        taken = set(self.allocated)
        for item in self.in_flight.values():
            taken.update(exclusive_devices(item.claim))
        return taken

    def allocated_state(self, consumable_capacity: bool) -> AllocatedState:
        """GatherAllocatedState: with DRAConsumableCapacity, shares and their consumed capacity
        apart from whole devices (in-flight allocations included); without it every allocated
        device counts as taken whole, as ListAllAllocatedDevices."""
        if not consumable_capacity:
            return AllocatedState(self.allocated_devices(), set(), {})
        shared_count: Counter[DeviceID] = Counter(share[:3] for share in self.shared.elements())
        devices = {d for d, n in self.allocated.items() if n > shared_count[d]}
        shared = set(self.shared)
        capacity = {d: dict(c) for d, c in self.capacity.items()}
        for item in self.in_flight.values():
            for r in _results(item.claim):
                if not r.get("adminAccess") and r.get("shareID") is None:
                    devices.add((str(r.get("driver", "")), str(r.get("pool", "")), str(r.get("device", ""))))
            for share, consumed in shared_usage(item.claim):
                shared.add(share)
                if consumed is not None:
                    _add_capacity(capacity, share[:3], consumed)
        return AllocatedState(devices, shared, capacity)
