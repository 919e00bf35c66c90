"""Which live replica owns a pending pod (active-active scale out, docs/scale-out.md).

Rendezvous (highest random weight) hashing of the pod's key over the live member set: every
replica computes the same owner from the same set, and a member joining or leaving moves only the
pods it wins or held (~1/N). The key is the pod group ("namespace/podGroup"), so a gang has one
owner, or else the pod UID.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

from ..cache.podinfo import PodInfo


def ownership_key(pod: PodInfo) -> str:
    """What ownership hashes: the gang for a pod group member, else the pod."""
    return f"{pod.namespace}/{pod.pod_group}" if pod.pod_group else pod.uid


def _weight(member: str, key: str) -> int:
    return int.from_bytes(hashlib.blake2b(f"{member}\x00{key}".encode(), digest_size=8).digest(), "big")


@dataclass(frozen=True)
class ClaimFilter:
    """Whose in-flight claims still count (docs/scale-out.md, "Claims").

    Not a departed member's (seen live, then gone: its claims ended with it). Not a replica's that
    holds no unexpired member Lease in the last observation (`alive`) either, if the claim was
    made before `dead_before` (the observation's time less a lease duration: a replica that has
    just joined writes its member Lease before its first claim, and one whose Lease this replica
    has not seen for a lease duration is dead to every member). So the claims a replica left
    behind before this one started, which it never saw live, do not hold room for their TTL.
    Until membership has been observed (`alive` None), every claim counts."""

    departed: frozenset[str] = frozenset()
    alive: frozenset[str] | None = None
    dead_before: float = 0.0  # epoch seconds
    ttl: float = 120.0  # a claim's expiry is its making plus this

    def counts(self, replica: str, expiry: float) -> bool:
        if replica in self.departed:
            return False
        if self.alive is None or replica in self.alive:
            return True
        return expiry - self.ttl > self.dead_before


class Ownership:
    """The live member set as this replica last saw it, and who owns what under it."""

    def __init__(self, me: str, ttl: float = 120.0) -> None:
        self.me = me
        self.members: tuple[str, ...] = ()  # sorted; empty until membership has been observed
        self.claims = ClaimFilter(ttl=ttl)  # replaced whole (binding workers read it)

    @property
    def departed(self) -> frozenset[str]:
        """Members seen live that have left since."""
        return self.claims.departed

    def set_members(self, members: tuple[str, ...] | list[str]) -> bool:
        """Adopt a new live set; returns whether it changed."""
        new = tuple(sorted(set(members)))
        if new == self.members:
            return False
        departed = (self.departed | (set(self.members) - set(new))) - set(new)
        self.claims = replace(self.claims, departed=frozenset(departed))
        self.members = new
        return True

    def set_alive(self, alive: frozenset[str], dead_before: float) -> bool:
        """The replicas holding an unexpired member Lease (a membership round's raw observation,
        adopted or not), and before when a claim of any other replica is dead; returns whether
        the live set changed."""
        before = self.claims.alive
        self.claims = replace(self.claims, alive=alive | {self.me}, dead_before=dead_before)
        return before != self.claims.alive

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
