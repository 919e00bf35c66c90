"""Which live replica owns a pending pod (active-active scale out, docs/scale-out.md).

Rendezvous (highest random weight) hashing of the pod's key over the live member set: every
replica computes the same owner from the same set, and a member joining or leaving moves only the
pods it wins or held (~1/N). The key is the pod group ("namespace/podGroup"), so a gang has one
owner, or else the pod UID.
"""

from __future__ import annotations

import hashlib

from ..cache.podinfo import PodInfo


def ownership_key(pod: PodInfo) -> str:
    """What ownership hashes: the gang for a pod group member, else the pod."""
    return f"{pod.namespace}/{pod.pod_group}" if pod.pod_group else pod.uid


def _weight(member: str, key: str) -> int:
    return int.from_bytes(hashlib.blake2b(f"{member}\x00{key}".encode(), digest_size=8).digest(), "big")


class Ownership:
    """The live member set as this replica last saw it, and who owns what under it."""

    def __init__(self, me: str) -> None:
        self.me = me
        self.members: tuple[str, ...] = ()  # sorted; empty until membership has been observed
        self.departed: frozenset[str] = frozenset()  # members seen live that have left since

    def set_members(self, members: tuple[str, ...] | list[str]) -> bool:
        """Adopt a new live set; returns whether it changed."""
        new = tuple(sorted(set(members)))
        if new == self.members:
            return False
        self.departed = (self.departed | (set(self.members) - set(new))) - set(new)
        self.members = new
        return True

    def owner_of(self, key: str) -> str:
        """The member owning `key` ("" while no member is live)."""
        best, owner = -1, ""
        for member in self.members:
            w = _weight(member, key)
            if w > best:
                best, owner = w, member
        return owner

    def owns(self, pod: PodInfo) -> bool:
        """Whether this replica schedules `pod`: it is live itself and wins the pod's key. A single
        live member (this one) owns everything without hashing."""
        members = self.members
        if len(members) == 1:
            return members[0] == self.me
        if self.me not in members:
            return False
        return self.owner_of(ownership_key(pod)) == self.me
