"""The AllocationResult of one claim once the allocator's search succeeded (structured/internal's
allocator.go: the results, the configuration from class and claim, createNodeSelector)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .pools import AllocationError, kobj
from .requests import DeviceResult, Request, RequestData

RequestKey = tuple[int, int, int]  # (claim, request, subrequest)


def _request_of(claim: dict[str, Any], res: DeviceResult) -> Request | None:
    name = res.parent or res.request
    for request in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
        if request.get("name") != name:
            continue
        if not res.parent:
            return Request.of(request.get("exactly") or {}, name, True)
        for sub in request.get("firstAvailable") or ():
            if sub.get("name") == res.request:
                return Request.of(sub, res.request, False)
    return None


def _device_results(claim: dict[str, Any], chosen: list[DeviceResult], binding_conditions: bool) -> list[dict[str, Any]]:
    """One DeviceRequestAllocationResult per chosen device."""
    results = []
    for res in chosen:
        entry: dict[str, Any] = {"request": res.request_name, "driver": res.id[0], "pool": res.id[1], "device": res.id[2]}
        if res.admin_access is not None:
            entry["adminAccess"] = res.admin_access
        request = _request_of(claim, res)
        if request is not None and request.tolerations:
            entry["tolerations"] = request.tolerations
        if res.share_id is not None:
            entry["shareID"] = res.share_id
        if res.consumed:
            entry["consumedCapacity"] = {name: str(q) for name, q in res.consumed.items()}
        if binding_conditions:
            for key in ("bindingConditions", "bindingFailureConditions"):
                if res.device.get(key):
                    entry[key] = list(res.device[key])
        results.append(entry)
    return results


def _selected(ci: int, ri: int, request: dict[str, Any], request_data: dict[RequestKey, RequestData], wanted: list[str]) -> bool:
    """The request, or its chosen subrequest, is among `wanted`."""
    if request.get("name") in wanted:
        return True
    data = request_data[(ci, ri, 0)]
    if data.parent is None:
        return False
    sub = (request.get("firstAvailable") or ())[data.selected_sub]
    return f"{request.get('name')}/{sub.get('name')}" in wanted


def _class_config(ci: int, requests: list[dict[str, Any]], request_data: dict[RequestKey, RequestData]) -> list[dict[str, Any]]:
    """The device classes' configuration, one entry per class config naming the requests using it."""
    config: list[dict[str, Any]] = []
    ranges: dict[str, tuple[int, int]] = {}
    for ri in range(len(requests)):
        data = request_data[(ci, ri, 0)]
        if data.parent is not None:
            data = request_data[(ci, ri, data.selected_sub)]
        cls = data.cls
        if cls is None:
            continue
        cname = kobj(cls)
        if cname in ranges:
            start, end = ranges[cname]
            for i in range(start, end):
                config[i]["requests"].append(data.request_name)
            continue
        start = len(config)
        for c in (cls.get("spec") or {}).get("config") or ():
            config.append({"source": "FromClass", "requests": [data.request_name], **{k: v for k, v in c.items()}})
        ranges[cname] = (start, len(config))
    return config


def _config(ci: int, devices: dict[str, Any], request_data: dict[RequestKey, RequestData]) -> list[dict[str, Any]]:
    """Class then claim configuration; `requests` dropped where it names every request of the claim."""
    requests = list(devices.get("requests") or ())
    config = _class_config(ci, requests, request_data)
    for c in devices.get("config") or ():
        wanted = list(c.get("requests") or ())
        body = {k: v for k, v in c.items() if k != "requests"}
        if not wanted:
            config.append({"source": "FromClaim", **body})
            continue
        if any(_selected(ci, ri, request, request_data, wanted) for ri, request in enumerate(requests)):
            config.append({"source": "FromClaim", "requests": wanted, **body})
    for c in config:
        named = c.get("requests")
        if named and all(_selected(ci, ri, request, request_data, named) for ri, request in enumerate(requests)):
            c.pop("requests", None)
    return config


def allocation_result(
    ci: int,
    claim: dict[str, Any],
    chosen: list[DeviceResult],
    request_data: dict[RequestKey, RequestData],
    binding_conditions: bool,
    per_device_selection: bool,
    node_name: str,
) -> dict[str, Any]:
    """The claim's AllocationResult: device results, configuration and node selector."""
    devices = ((claim.get("spec") or {}).get("devices")) or {}
    allocation: dict[str, Any] = {"devices": {"results": _device_results(claim, chosen, binding_conditions)}}
    config = _config(ci, devices, request_data)
    if config:
        allocation["devices"]["config"] = config
    selector = node_selector(claim, chosen, binding_conditions, per_device_selection, node_name)
    if selector is not None:
        allocation["nodeSelector"] = selector
    return allocation


def node_selector(
    claim: dict[str, Any], chosen: list[DeviceResult], binding_conditions: bool, per_device_selection: bool,
    node_name: str,
) -> dict[str, Any] | None:
    """createNodeSelector: the nodes the allocation is available on (None: every node)."""
    fields: list[dict[str, Any]] = []
    exprs: list[dict[str, Any]] = []
    for res in chosen:
        spec = res.slice.get("spec") or {}
        source = res.device if per_device_selection and spec.get("perDeviceNodeSelection") else spec
        name = source.get("nodeName")
        selector = source.get("nodeSelector")
        if name or (binding_conditions and res.device.get("bindsToNode")):
            # Local to one node, or binds to the node it is allocated for.
            return {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [name or node_name]}]}]}
        if selector is not None:
            terms = selector.get("nodeSelectorTerms") or []
            if len(terms) > 1:
                raise AllocationError(f"create NodeSelector for claim {(claim.get('metadata') or {}).get('name', '')}: unsupported ResourceSlice.NodeSelector with {len(terms)} terms")
            if terms:
                _add_requirements(terms[0].get("matchFields") or (), fields)
                _add_requirements(terms[0].get("matchExpressions") or (), exprs)
    if fields or exprs:
        term: dict[str, Any] = {}
        if exprs:
            term["matchExpressions"] = exprs
        if fields:
            term["matchFields"] = fields
        return {"nodeSelectorTerms": [term]}
    return None


def _add_requirements(source: Iterable[dict[str, Any]], target: list[dict[str, Any]]) -> None:
    for req in source:
        values = set(req.get("values") or ())
        if not any(
            r.get("key") == req.get("key") and r.get("operator") == req.get("operator") and set(r.get("values") or ()) == values
            for r in target
        ):
            target.append(req)
