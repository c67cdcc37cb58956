"""An independent check of the collective model: the collective's flows routed
on the design's own links (ECMP over shortest paths, split by capacity) and
given max-min fair rates by progressive filling (water-filling).

Nothing here uses :mod:`designer.workload.collectives`: only the design's link
table (through the analysis index) and the flows a collective sends.
"""

from __future__ import annotations

import math
from collections import defaultdict, deque
from dataclasses import dataclass

import numpy as np

from designer.analysis.index import KIND_COMPUTE
from designer.core.model import FABRIC_CODE, Fabric
from designer.workload.fabric import DesignFacts

Edge = tuple[int, int]  # (link row, direction 0: a->b, 1: b->a)


@dataclass
class Flow:
    """Bytes from a source GPU's NIC link to a destination node's NIC link."""

    src_link: int
    src_node: int
    dst_link: int
    dst_node: int
    size: float


class LinkGraph:
    """The compute fabric's links, full duplex, bytes/s per direction."""

    def __init__(self, facts: DesignFacts, efficiency: float) -> None:
        index = facts._index
        cf = np.flatnonzero(index.fabric == FABRIC_CODE[Fabric.COMPUTE])
        self.rows = cf
        self.a = index.a
        self.b = index.b
        self.cap = index.cap.astype(np.float64) * 1e9 / 8.0 * efficiency
        self.rail = index.rail
        compute = index.kind == KIND_COMPUTE
        self.compute = compute
        self.gpus = index.gpus
        self.adj: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
        self.nic: dict[int, list[int]] = defaultdict(list)
        for row in cf.tolist():
            u, v = int(index.a[row]), int(index.b[row])
            if compute[u]:
                self.nic[u].append(row)
            if compute[v]:
                self.nic[v].append(row)
            if not compute[u] and not compute[v]:
                self.adj[u].append((v, row, 0))
                self.adj[v].append((u, row, 1))
        for node in self.nic:
            self.nic[node].sort(key=lambda r: (int(self.rail[r]), r))
        self._routes: dict[tuple[int, int], dict[Edge, float]] = {}

    def other(self, row: int, node: int) -> int:
        """The end of ``row`` that is not ``node``."""
        u, v = int(self.a[row]), int(self.b[row])
        return v if u == node else u

    def nic_of(self, node: int, local: int) -> int:
        """The link GPU ``local`` of ``node`` sends on (its rail, else shared)."""
        links = self.nic[node]
        return links[local % len(links)]

    def _route(self, src: int, dst: int) -> dict[Edge, float]:
        """Share of a unit flow on each switch-to-switch edge, src -> dst switch."""
        key = (src, dst)
        if key in self._routes:
            return self._routes[key]
        dist = {dst: 0}
        queue = deque([dst])
        while queue:
            x = queue.popleft()
            for y, _, _ in self.adj[x]:
                if y not in dist:
                    dist[y] = dist[x] + 1
                    queue.append(y)
        share: dict[Edge, float] = defaultdict(float)
        if src not in dist:
            raise ValueError("no path")
        mass = {src: 1.0}
        frontier = [src]
        while frontier:
            nxt: dict[int, float] = defaultdict(float)
            for x in frontier:
                if x == dst:
                    continue
                hops = [
                    (y, row, d)
                    for y, row, d in self.adj[x]
                    if dist.get(y, math.inf) == dist[x] - 1
                ]
                total = sum(self.cap[row] for _, row, _ in hops)
                for y, row, d in hops:
                    part = mass[x] * self.cap[row] / total
                    share[(row, d)] += part
                    nxt[y] += part
            mass = dict(nxt)
            frontier = list(nxt)
        self._routes[key] = dict(share)
        return self._routes[key]

    def edges(self, flow: Flow) -> dict[Edge, float]:
        """Every directed edge of ``flow`` with the share of the flow on it."""
        up = (flow.src_link, 0 if int(self.a[flow.src_link]) == flow.src_node else 1)
        down = (
            flow.dst_link,
            1 if int(self.a[flow.dst_link]) == flow.dst_node else 0,
        )
        s_sw = self.other(flow.src_link, flow.src_node)
        d_sw = self.other(flow.dst_link, flow.dst_node)
        out: dict[Edge, float] = {up: 1.0, down: 1.0}
        if s_sw != d_sw:
            for edge, part in self._route(s_sw, d_sw).items():
                out[edge] = out.get(edge, 0.0) + part
        return out


def max_min_rates(graph: LinkGraph, flows: list[Flow]) -> list[float]:
    """Max-min fair rates (bytes/s) by progressive filling."""
    paths = [graph.edges(f) for f in flows]
    users: dict[Edge, list[int]] = defaultdict(list)
    for i, p in enumerate(paths):
        for e in p:
            users[e].append(i)
    rate = [0.0] * len(flows)
    frozen = [False] * len(flows)
    left = {e: graph.cap[e[0]] for e in users}
    while not all(frozen):
        best, tight = math.inf, None
        for e, who in users.items():
            weight = sum(paths[i][e] for i in who if not frozen[i])
            if weight <= 0:
                continue
            inc = left[e] / weight
            if inc < best:
                best, tight = inc, e
        if tight is None:
            break
        for e, who in users.items():
            weight = sum(paths[i][e] for i in who if not frozen[i])
            left[e] -= best * weight
        for i in range(len(flows)):
            if not frozen[i]:
                rate[i] += best
        for e, who in users.items():
            if left[e] <= 1e-6 * graph.cap[e[0]]:
                for i in who:
                    frozen[i] = True
    return rate


def flow_time(graph: LinkGraph, flows: list[Flow]) -> float:
    """Time until the slowest flow is done at its max-min fair rate."""
    rates = max_min_rates(graph, flows)
    return max(f.size / r for f, r in zip(flows, rates, strict=True))


def nodes(graph: LinkGraph) -> list[int]:
    """Wired compute nodes in device order (the order ranks are laid over)."""
    return sorted(graph.nic)


def ring_flows(graph: LinkGraph, size: float, count: int) -> list[Flow]:
    """A hierarchical ring all-reduce of ``size`` bytes over the first ``count``
    nodes, all GPUs: one channel per local GPU, node k -> k + 1 on that GPU's
    link, 2 (m-1)/m x size / g bytes each."""
    ring = nodes(graph)[:count]
    g = int(graph.gpus[ring[0]])
    m = len(ring)
    per = 2.0 * (m - 1) / m * size / g
    out = []
    for c in range(g):
        for k, node in enumerate(ring):
            nxt = ring[(k + 1) % m]
            out.append(
                Flow(graph.nic_of(node, c), node, graph.nic_of(nxt, c), nxt, per)
            )
    return out


def all_to_all_flows(graph: LinkGraph, size: float, count: int) -> list[Flow]:
    """An all-to-all of ``size`` bytes per GPU over all GPUs of the first
    ``count`` nodes; PXN: what GPU i sends to GPU j of another node leaves on
    the link of j's local rank, so node A sends node B, on each rail r, the
    bytes of its g GPUs for B's GPU r: g x size / n."""
    group = nodes(graph)[:count]
    g = int(graph.gpus[group[0]])
    n = g * len(group)
    per = g * size / n
    out = []
    for src in group:
        for dst in group:
            if src == dst:
                continue
            for r in range(g):
                out.append(
                    Flow(graph.nic_of(src, r), src, graph.nic_of(dst, r), dst, per)
                )
    return out
