"""Claims in the Kubernetes API: one Lease per node (docs/scale-out.md, the default store).

Node N's claims live in the Lease `<group>-claims-<N>` (a hash of N when the name would be too
long), annotation `kubeberth.io/claims` (backends/claims_store.py's claim map), annotation
`kubeberth.io/node` naming the node. A topology domain's record (claims_store.domain_record) is the
Lease `<group>-domain-<hash of its name>`, role `domain`, its name in the same annotation; the loop
is not told of it (it is no node). Reads come from the group's LeaseWatch, writes are a POST
(new) or a PUT under the Lease's resourceVersion; a 409 re-reads the Lease. The commit itself,
its capacity check and its metrics are the store-neutral ClaimStore's.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..claims_store import (
    Claims,
    ClaimsListener,
    ClaimStore,
    PreconditionFailed,
    Record,
    StoreError,
    _refused,
    decode_claim_map,
    encode_claim_map,
    is_domain_record,
)
from .client import ApiError, RawClient
from .lease_watch import GROUP_LABEL, ROLE_LABEL, LeaseWatch

__all__ = ["ClaimStore", "LeaseClaimRecords", "_refused", "claims_lease_name", "decode_claims", "node_of"]

CLAIMS_ANNOTATION = "kubeberth.io/claims"
NODE_ANNOTATION = "kubeberth.io/node"  # an annotation: a node name can be longer than a label value
MAX_NAME = 253


def claims_lease_name(group: str, node: str) -> str:
    """The Lease of a node's claims, or of a domain record (whose name is no valid object name)."""
    if is_domain_record(node):
        return f"{group}-domain-{hashlib.sha256(node.encode()).hexdigest()[:32]}"
    name = f"{group}-claims-{node}"
    if len(name) <= MAX_NAME:
        return name
    return f"{group}-claims-{hashlib.sha256(node.encode()).hexdigest()[:32]}"


def decode_claims(obj: dict[str, Any] | None) -> Claims:
    """A claims Lease's claims; a malformed annotation reads as none (and is rewritten)."""
    if not obj:
        return {}
    return decode_claim_map(((obj.get("metadata") or {}).get("annotations") or {}).get(CLAIMS_ANNOTATION))


def node_of(obj: dict[str, Any]) -> str:
    return str(((obj.get("metadata") or {}).get("annotations") or {}).get(NODE_ANNOTATION) or "")


class LeaseClaimRecords:
    """ClaimRecords in claims Leases of the group's namespace. The LeaseWatch is shared with
    membership and started and stopped by its owner (apps/scale_out_run.py)."""

    def __init__(self, raw: RawClient, watch: LeaseWatch) -> None:
        self.raw = raw
        self.watch = watch
        self.listeners: list[ClaimsListener] = []
        watch.listeners.append(self._lease_changed)

    def _lease_changed(self, typ: str, obj: dict[str, Any]) -> None:
        """From the watch thread: a claims Lease's claims go to the listeners."""
        labels = (obj.get("metadata") or {}).get("labels") or {}
        if labels.get(ROLE_LABEL) != "claims":
            return
        node = node_of(obj)
        if node:
            claims = {} if typ == "DELETED" else decode_claims(obj)
            for listener in self.listeners:
                listener(node, claims)

    def read(self, node: str) -> Record:
        obj = self.watch.get(claims_lease_name(self.watch.group, node))
        return Record(decode_claims(obj), obj)

    def write(self, node: str, base: Record, claims: Claims) -> None:
        name = claims_lease_name(self.watch.group, node)
        meta: dict[str, Any] = {
            "name": name, "namespace": self.watch.namespace,
            "labels": {GROUP_LABEL: self.watch.group, ROLE_LABEL: "domain" if is_domain_record(node) else "claims"},
            "annotations": {CLAIMS_ANNOTATION: encode_claim_map(claims), NODE_ANNOTATION: node},
        }
        body: dict[str, Any] = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": meta, "spec": {}}
        try:
            if base.version is None:
                written = self.raw.request("POST", self.watch.path, body=body, timeout=10)
            else:
                meta["resourceVersion"] = (base.version.get("metadata") or {}).get("resourceVersion")
                written = self.raw.request("PUT", f"{self.watch.path}/{name}", body=body, timeout=10)
        except ApiError as exc:
            if exc.status in (404, 409):
                self._refresh(name)
                raise PreconditionFailed(str(exc)) from None
            raise StoreError(str(exc)) from None
        if isinstance(written, dict):
            self.watch.put(written)

    def _refresh(self, name: str) -> None:
        try:
            fresh = self.raw.request("GET", f"{self.watch.path}/{name}", timeout=10)
        except ApiError as exc:
            if exc.status == 404:
                self.watch.forget(name)
            return
        if isinstance(fresh, dict):
            self.watch.put(fresh)

    def start(self) -> None:
        """The shared LeaseWatch is started by its owner."""

    def stop(self) -> None:
        """The shared LeaseWatch is stopped by its owner."""
