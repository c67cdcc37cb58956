"""Candidate splits of the compute nodes and the cheapest cut for each.

A candidate split (halves of the fabric's block hierarchy, of the group
hierarchy, of the device order) is an upper bound once its switches are
placed: :func:`split_cut` places them optimally by max-flow on an equitable
quotient (performance.md §1.4-1.5), or, in the live first result of a large
fabric without symmetry, keeps a coarse quotient's classes whole. Every cut
returned is a real cut of the graph. :func:`pair_bound` is a lower bound from
max-flows between compute nodes.
"""

from __future__ import annotations

import numpy as np

from designer.analysis.balance import Balance, choose, min_side_count
from designer.analysis.flow import flows_from, quotient_cut, refine, st_cut
from designer.analysis.graph import ComputeGraph
from designer.analysis.index import BoolArray, IntArray
from designer.analysis.levels import Hierarchy

LIVE_MAXFLOW_LINKS = 20_000
"""Links above which the first result does not run a max-flow on the whole
graph (no symmetry): the seed quotient's cut is shown and refined later."""
PAIR_BOUND_MAX_NODES = 256
PAIR_BOUND_MAX_WORK = 2_000_000  # compute nodes x links: about 0.3 s of max-flows
MAX_QUOTIENT_CLASSES = 4096
_REL = 1e-9


def _status_seed(g: ComputeGraph, h: Hierarchy | None, in_a: BoolArray) -> IntArray:
    """Seed classes: level, kind, injection, and for every level of the hierarchy
    whether the node's block there holds only A, only B or both halves' nodes.

    A seed this fine is usually equitable already, so refinement confirms it in
    one round. Digits are combined by hashing; a collision only coarsens the
    seed, and refinement splits it again.
    """
    level = h.level if h is not None else np.zeros(g.n, dtype=np.int64)
    inj = np.rint(g.injection).astype(np.int64)
    kind = np.where(g.endpoint, 0, np.where(g.switch, 1, 2))
    side = np.where(g.endpoint, np.where(in_a, 1, 2), 0)
    seed = ((inj * 1024 + np.clip(level + 1, 0, 1023)) * 4 + kind) * 4 + side
    if h is not None:
        a_ep = in_a & g.endpoint
        mult = np.int64(0x9E3779B97F4A7C15 - (1 << 64))
        for i in range(1, len(h.blocks)):
            blk = h.blocks[i]
            tot = np.bincount(blk[g.endpoint], minlength=h.n_blocks[i])
            cnt_a = np.bincount(blk[a_ep], minlength=h.n_blocks[i])
            b_of = np.maximum(blk, 0)
            st = np.where(cnt_a[b_of] == tot[b_of], 0, np.where(cnt_a[b_of] == 0, 1, 2))
            st = np.where(blk >= 0, st, 3)
            seed = seed * mult + st
        if h.plane is not None:
            seed = seed * mult + h.plane + 1
    return seed


def split_cut(
    g: ComputeGraph,
    in_a: BoolArray,
    h: Hierarchy | None,
    floor: float | None = None,
    *,
    live: bool = False,
) -> tuple[float, BoolArray, str]:
    """A cut with ``in_a`` compute nodes on side A: (value, side, how placed).

    ``how`` is "equitable quotient" or "max-flow" when the switches are placed
    optimally for this split (performance.md §1.5), "seed quotient" when the
    cut only keeps each seed class on one side. The seed classes are tried as
    a quotient first when ``floor`` (a proven lower bound on the bisection) is
    given: that cut, lifted, is a real cut of the graph, so when it reaches
    ``floor`` it is the cheapest there is and refinement is skipped. With
    ``live`` a large fabric without symmetry keeps the seed quotient's cut
    instead of a max-flow on the whole graph (the refinement places it).
    """
    src = np.where(in_a & g.endpoint, np.rint(g.injection), 0).astype(np.int64)
    snk = np.where(~in_a & g.endpoint, np.rint(g.injection), 0).astype(np.int64)
    seed = _status_seed(g, h, in_a)

    def lifted(side: BoolArray) -> tuple[float, BoolArray]:
        side = side.copy()
        side[g.endpoint] = in_a[g.endpoint]
        return float(g.c[side[g.u] != side[g.v]].sum()), side

    seed_cut: tuple[float, BoolArray] | None = None
    if (floor is not None and floor > 0) or (live and len(g.u) > LIVE_MAXFLOW_LINKS):
        _, dense = np.unique(seed, return_inverse=True)
        dense = dense.astype(np.int64)
        if int(dense.max()) < MAX_QUOTIENT_CLASSES:
            seed_cut = lifted(quotient_cut(g.n, g.u, g.v, g.c, dense, src, snk))
            if floor is not None and seed_cut[0] <= floor + _REL * max(floor, 1.0):
                return seed_cut[0], seed_cut[1], "equitable quotient"
    classes = refine(g.n, g.u, g.v, g.c, seed, max_classes=MAX_QUOTIENT_CLASSES)
    if classes is not None:
        value, side = lifted(quotient_cut(g.n, g.u, g.v, g.c, classes, src, snk))
        return value, side, "equitable quotient"
    if live and seed_cut is not None and len(g.u) > LIVE_MAXFLOW_LINKS:
        return seed_cut[0], seed_cut[1], "seed quotient"
    _, side = st_cut(g.n, g.u, g.v, g.c, src, snk)
    value, side = lifted(side)
    return value, side, "max-flow"


def _candidate_orders(
    g: ComputeGraph, h: Hierarchy | None, dev_orders: dict[str, IntArray]
) -> list[tuple[str, IntArray]]:
    """Orders of the local endpoints whose first half is a candidate side."""
    local = np.full(int(g.dev.max()) + 1 if g.n else 0, -1, dtype=np.int64)
    local[g.dev] = np.arange(g.n)
    out: list[tuple[str, IntArray]] = []
    for name, order in dev_orders.items():
        loc = local[order[order < len(local)]]
        loc = loc[loc >= 0]
        if len(loc) == int(g.endpoint.sum()):
            out.append((name, loc))
    if h is not None and len(h.blocks) > 2:
        ep = g.endpoints
        keys = [h.blocks[i][ep] for i in range(1, len(h.blocks) - 1)]
        out.insert(0, ("fabric hierarchy (block halves)", ep[np.lexsort(keys)]))
    return out


def pair_bound(g: ComputeGraph, bal: Balance) -> float | None:
    """k-th smallest max-flow from the first compute node to each other one.

    Sound: every balanced split puts at least k = (fewest nodes a side can
    have) compute nodes on the side away from node 0, and the cut separates
    node 0 from each of them, so it is at least each of their max-flows.
    """
    ep = g.endpoints
    if len(ep) < 2 or len(ep) > PAIR_BOUND_MAX_NODES:
        return None
    if len(ep) * len(g.u) > PAIR_BOUND_MAX_WORK:
        return None
    k = min_side_count(g.weight[ep], bal)
    # Each flow is from a super-source feeding node 0 with its injection to a
    # super-sink fed by node t with its: its value is the least of the two
    # injections and the flow between the two nodes themselves (a cut either
    # keeps node 0 from the source, keeps t from the sink, or is a cut of the
    # fabric between them). The fabric's capacity matrix is made once.
    inj = np.minimum(np.rint(g.injection[ep]), np.iinfo(np.int32).max).astype(np.int64)
    inj[inj == 0] = 1
    # Twins (the same links to the same neighbours) are swapped by a symmetry
    # of the fabric that keeps node 0 in place, so their flows from node 0 are
    # equal: one flow per group of twins (the nodes of a scalable unit, say).
    group, first = twin_groups(g, ep[1:])
    between = flows_from(g.n, g.u, g.v, g.c, int(ep[0]), ep[1:][first])[group]
    flows = np.minimum(np.minimum(between, inj[1:]), inj[0])
    flows.sort()
    return float(flows[max(k, 1) - 1])


def twin_groups(g: ComputeGraph, nodes: IntArray) -> tuple[IntArray, IntArray]:
    """(group of each of ``nodes``, the position in ``nodes`` of each group's
    first member): nodes are in one group when they have the same links, by
    neighbour and summed capacity (no link to each other, which would name
    each other). Swapping two of them maps the fabric onto itself, fixing
    every other node."""
    u = np.concatenate((g.u, g.v))
    v = np.concatenate((g.v, g.u))
    c = np.concatenate((g.c, g.c)).astype(np.int64)
    live = u != v
    u, v, c = u[live], v[live], c[live]
    # capacity per (node, neighbour), parallel links summed, in node order
    pair = u * g.n + v
    keys, inverse = np.unique(pair, return_inverse=True)
    cap = np.bincount(inverse, weights=c).astype(np.int64)
    owner, neighbour = np.divmod(keys, g.n)
    starts = np.searchsorted(owner, nodes)
    stops = np.searchsorted(owner, nodes, side="right")
    seen: dict[bytes, int] = {}
    group = np.empty(len(nodes), dtype=np.int64)
    first: list[int] = []
    for i, (a, b) in enumerate(zip(starts.tolist(), stops.tolist(), strict=True)):
        key = neighbour[a:b].tobytes() + b"|" + cap[a:b].tobytes()
        if key not in seen:
            seen[key] = len(first)
            first.append(i)
        group[i] = seen[key]
    return group, np.asarray(first, dtype=np.int64)


def candidate_splits(
    g: ComputeGraph, h: Hierarchy | None, dev_orders: dict[str, IntArray], bal: Balance
) -> list[tuple[str, BoolArray]]:
    """Balanced splits taking the earliest compute nodes of each candidate order."""
    ep = g.endpoints
    w = g.weight[ep]
    rank = np.empty(g.n, dtype=np.float64)
    out: list[tuple[str, BoolArray]] = []
    for name, order in _candidate_orders(g, h, dev_orders):
        rank[order] = np.arange(len(order))
        pick = choose(rank[ep], w, bal)
        if pick is None:
            continue
        in_a = np.zeros(g.n, dtype=np.bool_)
        in_a[ep[pick]] = True
        out.append((name, in_a))
    return out


__all__ = [
    "LIVE_MAXFLOW_LINKS",
    "candidate_splits",
    "pair_bound",
    "split_cut",
]
