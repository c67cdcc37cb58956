"""The compute-fabric graph as arrays: local node ids, edges, BFS levels, blocks.

Nodes are the compute nodes (the bisection endpoints) plus every device touched
by a compute-fabric link. Non-endpoint devices that hang off the fabric by one
neighbour only (a UFM appliance on a leaf) are pruned: they never lie on a path
between two compute nodes, and putting them on their neighbour's side costs
nothing, so the bisection does not change.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from designer.analysis.index import (
    KIND_COMPUTE,
    KIND_SWITCH,
    BoolArray,
    DesignIndex,
    FloatArray,
    IntArray,
)
from designer.core.link_arrays import rows_run
from designer.core.model import FABRIC_CODE, Fabric

PENDANT_MAX_LINKS = 16

PATCH_MAX_ROWS = 4096
"""Most link rows an edit may change (of the two states together) for a
stage to be patched for them rather than made again (the end table, the
sums over the links, the graph's capacities)."""


@dataclass
class ComputeGraph:
    """Compute fabric with local node ids ``0..n-1`` (``dev`` maps back)."""

    dev: IntArray
    endpoint: BoolArray
    switch: BoolArray
    u: IntArray
    v: IntArray
    c: IntArray
    link: IntArray
    injection: FloatArray
    weight: IntArray
    pruned: list[tuple[IntArray, IntArray]]
    all_u: IntArray
    all_v: IntArray
    all_link: IntArray
    all_c: IntArray
    memo: dict[str, Any] = field(default_factory=dict)
    """What checks derive from the topology alone (:attr:`Topology.memo`)."""

    def place_pruned(self, side: BoolArray) -> None:
        """Put each pruned device on the side of the neighbour it hung from."""
        for nodes, anchors in reversed(self.pruned):
            side[nodes] = side[anchors]

    @property
    def n(self) -> int:
        """Number of local nodes."""
        return len(self.dev)

    @property
    def endpoints(self) -> IntArray:
        """Local ids of the compute nodes."""
        return np.flatnonzero(self.endpoint)


@dataclass(frozen=True)
class Topology:
    """Which devices and compute-fabric links the graph has (no capacities)."""

    dev: IntArray
    endpoint: BoolArray
    local_u: IntArray
    local_v: IntArray
    link: IntArray
    alive: BoolArray
    pruned: list[tuple[IntArray, IntArray]]
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """What is derived from these arrays and the devices' kinds alone, by the
    stage that derived it (a later state with the same topology reads it)."""


@dataclass(frozen=True)
class EarlierEdges:
    """How a topology's links line up with those of the topology before it
    (the same devices and kinds; :func:`changed_run` of their serials and
    ends): the first ``head`` and last ``tail`` links are the same, and what
    the checks derived from the earlier one (its ``memo`` entries, copied: no
    chain of states is kept), so a check can patch rather than start over."""

    head: int
    tail: int
    u: IntArray
    v: IntArray
    """The earlier topology's links (``local_u``, ``local_v``)."""
    memo: dict[str, Any]


@dataclass(frozen=True)
class FabricEnds:
    """What :func:`topology` reads of an index: the compute links, their end
    devices, and the devices in the fabric (linked, or compute nodes)."""

    link: IntArray
    ga: IntArray
    gb: IntArray
    active: IntArray
    kind: IntArray
    """Per active device: its kind (compute node, switch...: what the graph and
    its levels read)."""

    def same_as(self, other: FabricEnds) -> bool:
        """Equal arrays: the topology of one is the topology of the other."""
        return all(
            x.shape == y.shape and bool(np.array_equal(x, y))
            for x, y in zip(self._arrays(), other._arrays(), strict=True)
        )

    def _arrays(self) -> tuple[np.ndarray, ...]:
        return (self.link, self.ga, self.gb, self.active, self.kind)


def fabric_ends(index: DesignIndex) -> FabricEnds:
    """The compute links and fabric devices of ``index`` (see :class:`FabricEnds`)."""
    link = np.flatnonzero(index.fabric == FABRIC_CODE[Fabric.COMPUTE])
    ga, gb = index.a[link], index.b[link]
    is_ep = index.kind == KIND_COMPUTE
    touched = np.zeros(index.n_devices, dtype=np.bool_)
    touched[ga] = True
    touched[gb] = True
    active = np.flatnonzero(touched | is_ep)
    return FabricEnds(link, ga, gb, active, index.kind[active])


def topology(index: DesignIndex, ends: FabricEnds | None = None) -> Topology:
    """Local ids of the fabric's devices and links, pendant devices pruned."""
    f = fabric_ends(index) if ends is None else ends
    link, ga, gb, active = f.link, f.ga, f.gb, f.active
    ep = f.kind == KIND_COMPUTE
    # local id = position among the active devices (both ends are active)
    n = len(active)
    local = np.zeros(int(active[-1]) + 1 if n else 0, dtype=np.int64)
    local[active] = np.arange(n)  # a gather, not a search per link
    u, v = local[ga], local[gb]
    alive = np.ones(len(u), dtype=np.bool_)
    pruned: list[tuple[IntArray, IntArray]] = []
    while True:
        # only devices with few links can hang off one neighbour (UFM, storage)
        deg = np.bincount(u[alive], minlength=n) + np.bincount(v[alive], minlength=n)
        cand = ~ep & (deg > 0) & (deg <= PENDANT_MAX_LINKS)
        if not cand.any():
            break
        sel = alive & (cand[u] | cand[v])
        uu, vv = u[sel], v[sel]
        lo = np.full(n, n, dtype=np.int64)
        hi = np.full(n, -1, dtype=np.int64)
        np.minimum.at(lo, uu, vv)
        np.minimum.at(lo, vv, uu)
        np.maximum.at(hi, uu, vv)
        np.maximum.at(hi, vv, uu)
        pendant = cand & (lo == hi)
        if not pendant.any():
            break
        gone = np.flatnonzero(pendant)
        pruned.append((gone, lo[gone]))
        alive &= ~(pendant[u] | pendant[v])
    return Topology(
        dev=active,
        endpoint=ep,
        local_u=u,
        local_v=v,
        link=link,
        alive=alive,
        pruned=pruned,
    )


def compute_graph(index: DesignIndex, top: Topology | None = None) -> ComputeGraph:
    """Build the compute-fabric graph, pruning pendant non-endpoint devices.

    ``top``: the index's :func:`topology` when already known (an earlier state
    of the design with the same devices and links, other capacities).
    """
    if top is None:
        top = topology(index)
    active, ep, alive = top.dev, top.endpoint, top.alive
    n = len(active)
    all_c = index.cap[top.link]
    u, v = top.local_u[alive], top.local_v[alive]
    c, link = all_c[alive], top.link[alive]
    inj = (
        np.bincount(u, weights=c, minlength=n) + np.bincount(v, weights=c, minlength=n)
    ).astype(np.float64, copy=False)
    w = index.gpus[active].copy()
    if not w[ep].any():
        w[ep] = 1
    for array in (u, v, c, link, inj, w, all_c):
        array.flags.writeable = False  # a later graph may share them
    return ComputeGraph(
        dev=active,
        endpoint=ep,
        switch=index.kind[active] == KIND_SWITCH,
        u=u,
        v=v,
        c=c,
        link=link,
        injection=inj,
        weight=w,
        pruned=top.pruned,
        all_u=top.local_u,
        all_v=top.local_v,
        all_link=top.link,
        all_c=all_c,
        memo=top.memo,
    )


def recapacitated(
    last: ComputeGraph, last_index: DesignIndex, index: DesignIndex, top: Topology
) -> ComputeGraph | None:
    """:func:`compute_graph` of ``index`` on ``top``, from ``last`` (the graph
    of ``last_index`` on the same topology) when the link rows an edit
    changed are known (:func:`~designer.core.link_arrays.rows_run`): only the
    capacities of the compute links among them are read again, and the
    injection moves by their change (whole Gb/s: the same sums). None when the
    lineage does not tell, or the devices' GPUs differ."""
    if index.n_links != last_index.n_links or not (
        index.gpus is last_index.gpus
        or bool(np.array_equal(index.gpus[last.dev], last_index.gpus[last.dev]))
    ):
        return None
    run = rows_run(last_index.links, index.links)
    if run is None:
        return None
    head, tail = run
    lo = int(np.searchsorted(top.link, head))
    hi = int(np.searchsorted(top.link, index.n_links - tail))
    if hi - lo > PATCH_MAX_ROWS:
        return None
    k = np.arange(lo, hi)
    cap = index.cap[top.link[k]]
    if np.array_equal(cap, last.all_c[k]):
        all_c, c, inj = last.all_c, last.c, last.injection
    else:
        all_c = last.all_c.copy()
        all_c[k] = cap
        live = top.alive[k]
        pos = _alive_rank(top)[k[live]]
        c = last.c.copy()
        change = (cap[live] - last.all_c[k][live]).astype(np.float64)
        c[pos] = cap[live]
        inj = last.injection.copy()
        np.add.at(inj, last.u[pos], change)
        np.add.at(inj, last.v[pos], change)
        for array in (all_c, c, inj):
            array.flags.writeable = False
    # the rest is the last graph's (read-only arrays of the same topology)
    return replace(last, c=c, injection=inj, all_c=all_c, memo=top.memo)


def _alive_rank(top: Topology) -> IntArray:
    """Position of each compute link among the topology's live (unpruned)
    links (kept with the topology)."""
    rank: IntArray | None = top.memo.get("alive rank")
    if rank is None:
        rank = np.cumsum(top.alive) - 1
        top.memo["alive rank"] = rank
    return rank


def bfs_levels(n: int, start: BoolArray, u: IntArray, v: IntArray) -> IntArray:
    """Hop distance from the ``start`` nodes (-1: unreachable), on edge arrays."""
    level = np.full(n, -1, dtype=np.int64)
    level[start] = 0
    k = 0
    while True:
        lu, lv = level[u], level[v]
        nxt = np.concatenate((v[(lu == k) & (lv < 0)], u[(lv == k) & (lu < 0)]))
        if len(nxt) == 0:
            return level
        k += 1
        level[nxt] = k
        # edges with both ends placed can never place anything again
        open_ = (level[u] < 0) | (level[v] < 0)
        u, v = u[open_], v[open_]


def components(n: int, u: IntArray, v: IntArray) -> tuple[int, IntArray]:
    """Connected components of an undirected graph given as edge arrays."""
    if n == 0:
        return 0, np.zeros(0, dtype=np.int64)
    m = csr_matrix((np.ones(len(u), dtype=np.int8), (u, v)), shape=(n, n))
    count, labels = connected_components(m, directed=False)
    return int(count), labels.astype(np.int64)


def articulation_points(n: int, u: IntArray, v: IntArray) -> list[int]:
    """The nodes whose removal splits their component, ascending (Hopcroft and
    Tarjan's depth-first search, iterative; parallel links and self-loops
    change nothing of it). Plain lists instead of a networkx graph: building
    one cost as much as the search."""
    keep = u != v
    ends = np.concatenate((u[keep], v[keep]))
    order = np.argsort(ends, kind="stable")
    nbr: list[int] = np.concatenate((v[keep], u[keep]))[order].tolist()
    start: list[int] = np.concatenate(
        ([0], np.cumsum(np.bincount(ends, minlength=n)))
    ).tolist()
    nxt = start[:-1]  # the next neighbour each node's search looks at
    disc = [-1] * n
    low = [0] * n
    parent = [-1] * n
    cut = [False] * n
    clock = 0
    for root in range(n):
        if disc[root] >= 0:
            continue
        disc[root] = low[root] = clock
        clock += 1
        children = 0
        stack = [root]
        while stack:
            x = stack[-1]
            i = nxt[x]
            if i < start[x + 1]:
                nxt[x] = i + 1
                w = nbr[i]
                if disc[w] < 0:
                    parent[w] = x
                    disc[w] = low[w] = clock
                    clock += 1
                    stack.append(w)
                    children += x == root
                elif disc[w] < low[x]:  # (the parent too: a cut at it stays one)
                    low[x] = disc[w]
                continue
            stack.pop()
            p = parent[x]
            if p >= 0:
                if low[x] < low[p]:
                    low[p] = low[x]
                if p != root and low[x] >= disc[p]:
                    cut[p] = True
        if children > 1:
            cut[root] = True
    return [x for x in range(n) if cut[x]]


def rank_within(groups: IntArray, n_groups: int) -> tuple[IntArray, IntArray]:
    """Position of each item inside its group, and the size of each group."""
    order = np.argsort(groups, kind="stable")
    sizes = np.bincount(groups, minlength=n_groups)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    rank = np.empty(len(groups), dtype=np.int64)
    rank[order] = np.arange(len(groups)) - np.repeat(starts, sizes)
    return rank, sizes


def changed_run(
    old: tuple[IntArray, ...], new: tuple[IntArray, ...], limit: int
) -> tuple[int, int] | None:
    """(head, tail) of two states of the same columns (a link's serial and
    ends, say): their first ``head`` rows and last ``tail`` rows are equal in
    every column, so what differs is one run between them; None when that run
    holds more than ``limit`` rows of the two together."""
    n0, n1 = len(old[0]), len(new[0])
    short = min(n0, n1)
    differ = np.zeros(short, dtype=np.bool_)
    for x, y in zip(old, new, strict=True):
        differ |= x[:short] != y[:short]
    at = np.flatnonzero(differ)
    head = int(at[0]) if len(at) else short
    differ[:] = False
    for x, y in zip(old, new, strict=True):
        differ |= x[n0 - short :] != y[n1 - short :]
    at = np.flatnonzero(differ)
    tail = min(short - 1 - int(at[-1]) if len(at) else short, short - head)
    if (n0 - head - tail) + (n1 - head - tail) > limit:
        return None
    return head, tail


def switch_planes(g: ComputeGraph) -> IntArray:
    """Component of the switch-only graph per node (-1 for non-switches): planes."""
    both = g.switch[g.u] & g.switch[g.v]
    _, lab = components(g.n, g.u[both], g.v[both])
    return np.where(g.switch, lab, -1)
