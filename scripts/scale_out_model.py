#!/usr/bin/env python3
"""A model of active-active scale out (docs/scale-out.md, "The model"): conflict rate against
utilisation and the number of replicas, and throughput against replicas and cores.

Conflicts (a discrete-event simulation of the protocol, Omega's experiment in miniature):
M nodes of S one-pod slots, pre-filled to `--from` of their room; a backlog (or a stream) of
one-slot pods fills them to each target utilisation. N replicas each own a share of the pods (as
rendezvous hashing splits them) and schedule one pod per `--cycle-ms`. A replica decides on its
view: its own commits at once, another replica's once `--propagation-ms` has passed (claim write
plus watch delivery). It picks the node with the most free slots in its view (LeastAllocated;
random among ties). At the commit the node's real claims are checked as the protocol does: the
placement stands if the node still has a slot; otherwise it is a conflict, the replica gets the
node's real state (the protocol hands the Lease it read to the loop) and decides again.
Conflict rate = conflicts / (commits + conflicts), as docs/scale-out.md measures it.

Throughput (a CPU model): a replica is one Python process (≤ 1 core); per pod it spends
`--replica-cpu-ms` (its cycle, the costly plugin, the client) plus the cycles it repeats after
conflicts, and the API server and etcd spend `--server-cpu-ms`. With C cores,
pods/s = min(N / replica CPU per pod, C / (replica + server CPU per pod)). The per-pod figures
come from scripts/scale_out_bench.py on the same machine.

    python scripts/scale_out_model.py [--nodes 100 --slots 32] [--calibrate]
"""

from __future__ import annotations

import argparse
import heapq
import random
import statistics
import sys
from collections import deque
from dataclasses import dataclass

UTILISATION = (0.5, 0.8, 0.9, 0.94, 0.98, 1.0)
REPLICAS = (1, 2, 3, 4, 8, 16)


@dataclass(frozen=True)
class Setup:
    nodes: int
    slots: int
    start: float  # share of the room filled before the run
    cycle: float  # seconds per scheduling cycle of one replica
    propagation: float  # seconds until another replica's commit is in a replica's view
    arrival: float  # pods per second of a stream (0: a backlog present from the start)


@dataclass
class Result:
    commits: int
    conflicts: int
    unplaced: int

    @property
    def rate(self) -> float:
        total = self.commits + self.conflicts
        return self.conflicts / total if total else 0.0


def simulate(setup: Setup, replicas: int, utilisation: float, seed: int) -> Result:
    """Fill the nodes from `setup.start` to `utilisation` with N replicas; count conflicts."""
    rng = random.Random(seed)
    used = [round(setup.slots * setup.start)] * setup.nodes
    pods = max(0, round(setup.nodes * setup.slots * utilisation) - sum(used))
    queues: list[deque[float]] = [deque() for _ in range(replicas)]
    for i in range(pods):  # ownership: a uniform hash over the members
        queues[rng.randrange(replicas)].append(i / setup.arrival if setup.arrival else 0.0)
    recent: deque[tuple[float, int, int]] = deque()  # (commit time, node, replica) within the propagation delay
    corrections: list[dict[int, int]] = [{} for _ in range(replicas)]  # node -> real count handed over on a conflict
    events = [(queue[0], r) for r, queue in enumerate(queues) if queue]
    heapq.heapify(events)
    result = Result(0, 0, 0)
    while events:
        now, r = heapq.heappop(events)
        while recent and recent[0][0] + setup.propagation <= now:
            recent.popleft()
        view = used.copy()
        for _, node, who in recent:  # another replica's commits not yet seen
            if who != r:
                view[node] -= 1
        for node, real in corrections[r].items():
            view[node] = max(view[node], real)
        free = [setup.slots - v for v in view]
        best = max(free)
        if best <= 0:
            queues[r].popleft()
            result.unplaced += 1
        else:
            choices = [n for n, f in enumerate(free) if f == best]
            node = rng.choice(choices)
            decided = now + setup.cycle
            if used[node] < setup.slots:  # the commit's check on the node's real claims
                used[node] += 1
                recent.append((decided, node, r))
                corrections[r].pop(node, None)
                queues[r].popleft()
                result.commits += 1
            else:
                corrections[r][node] = used[node]
                result.conflicts += 1
            now = decided
        if queues[r]:
            heapq.heappush(events, (max(now, queues[r][0]), r))
    return result


def conflict_rate(setup: Setup, replicas: int, utilisation: float, seeds: int) -> float:
    return statistics.mean(simulate(setup, replicas, utilisation, s).rate for s in range(seeds))


def throughput(replicas: int, cores: float, replica_ms: float, server_ms: float, conflicts: float) -> float:
    """Pods per second: each replica ≤ one core; every repeated cycle costs a replica's CPU again."""
    per_pod_replica = replica_ms / 1000 / (1 - conflicts) if conflicts < 1 else float("inf")
    per_pod_total = per_pod_replica + server_ms / 1000
    return min(replicas / per_pod_replica, cores / per_pod_total)


def render_conflicts(setup: Setup, seeds: int) -> str:
    head = "| replicas | " + " | ".join(f"{u:.0%}" for u in UTILISATION) + " |"
    lines = [f"Conflict rate: {setup.nodes} nodes of {setup.slots} slots from {setup.start:.0%} full, cycle "
             f"{setup.cycle * 1000:g} ms, propagation {setup.propagation * 1000:g} ms, "
             + (f"a stream of {setup.arrival:g} pods/s" if setup.arrival else "a backlog") + f", {seeds} seeds.",
             "", head, "|---|" + "---|" * len(UTILISATION)]
    for n in REPLICAS:
        rates = [conflict_rate(setup, n, u, seeds) for u in UTILISATION]
        lines.append(f"| {n} | " + " | ".join(f"{x:.1%}" for x in rates) + " |")
    return "\n".join(lines)


def render_throughput(setup: Setup, cores: tuple[float, ...], replica_ms: float, server_ms: float, seeds: int) -> str:
    lines = [f"Throughput (pods/s) at 94 % utilisation: replica CPU {replica_ms:g} ms per pod, API server and etcd "
             f"{server_ms:g} ms per pod.", "",
             "| replicas | conflict rate | " + " | ".join(f"{c:g} cores" for c in cores) + " |",
             "|---|---|" + "---|" * len(cores)]
    for n in REPLICAS:
        rate = conflict_rate(setup, n, 0.94, seeds)
        lines.append(f"| {n} | {rate:.1%} | " + " | ".join(
            f"{throughput(n, c, replica_ms, server_ms, rate):.0f}" for c in cores) + " |")
    return "\n".join(lines)


def calibrate(seeds: int) -> str:
    """The measured races of docs/scale-out.md (10 nodes of 16 one-cpu slots, empty, 2 replicas):
    a backlog a quarter larger than the room (measured 18-20 %) and a stream of 160 pods at
    150/s (measured 1.8 %), for a range of cycle times and propagation delays."""
    lines = ["Calibration: 10 nodes x 16 slots from empty, 2 replicas; measured: backlog of 200 pods 18-20 %, "
             "stream of 160 pods at 150/s 1.8 %.", "",
             "| cycle ms | propagation ms | backlog | stream |", "|---|---|---|---|"]
    for cycle in (5, 10, 20):
        for propagation in (50, 200, 500, 1000, 2000):
            backlog = Setup(10, 16, 0.0, cycle / 1000, propagation / 1000, 0.0)
            stream = Setup(10, 16, 0.0, cycle / 1000, propagation / 1000, 150.0)
            lines.append(f"| {cycle} | {propagation} | {conflict_rate(backlog, 2, 1.25, seeds):.1%} "
                         f"| {conflict_rate(stream, 2, 1.0, seeds):.1%} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--slots", type=int, default=32, help="one-pod slots per node")
    parser.add_argument("--from", dest="start", type=float, default=0.5, help="share of the room filled at the start")
    parser.add_argument("--cycle-ms", type=float, default=5.0)
    parser.add_argument("--propagation-ms", type=float, default=50.0)
    parser.add_argument("--arrival", type=float, default=0.0, help="pods per second (0: a backlog)")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--replica-cpu-ms", type=float, default=6.0, help="a replica's CPU per pod (bench)")
    parser.add_argument("--server-cpu-ms", type=float, default=3.0, help="API server + etcd CPU per pod (bench)")
    parser.add_argument("--cores", default="2,8,32")
    parser.add_argument("--calibrate", action="store_true", help="print the calibration against the measured race")
    args = parser.parse_args()
    for name in ("nodes", "slots", "seeds"):
        if getattr(args, name) < 1:
            parser.error(f"--{name}: must be at least 1")
    if not 0 <= args.start < 1:
        parser.error(f"--from={args.start}: a share between 0 and 1")
    setup = Setup(args.nodes, args.slots, args.start, args.cycle_ms / 1000, args.propagation_ms / 1000, args.arrival)
    cores = tuple(float(c) for c in args.cores.split(","))
    if args.calibrate:
        print(calibrate(args.seeds), end="\n\n")
    print(render_conflicts(setup, args.seeds), end="\n\n")
    print(render_throughput(setup, cores, args.replica_cpu_ms, args.server_cpu_ms, args.seeds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
