"""Levels of a tree-like compute fabric and the uniform hose certificate.

:func:`hierarchy` finds BFS levels from the compute nodes and the blocks of
each level (components through up-links). :func:`certificate` checks the
premises of the hose-routing certificate of performance.md §1.4c in code:
each level's blocks nest; every node below the top has up-links; and
*uniform reach*: the capacity-proportional up-walk from any compute node of a
block reaches every node of the next level of its block with the same
probability. Then every traffic matrix in which each node sends and receives
at most theta x its injection is routable (up along its own walk, down along
the reversed walk of the receiver), with theta = min(1, min over nodes x of
up(x) / M(x)), M the injection mass the walks carry through x. Routing a
matching from the smaller half gives ``cut >= theta x min-side injection`` for
EVERY balanced split. :func:`levelled_bound` applies it to uniform neighbours
of an uneven tree (monotonicity, see its docstring).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from designer.analysis.balance import Balance, min_side_injection
from designer.analysis.graph import (
    ComputeGraph,
    bfs_levels,
    changed_run,
    components,
    rank_within,
)
from designer.analysis.index import BoolArray, IntArray
from designer.core.formatting import plural, verb
from designer.core.rows import with_rows

_REL = 1e-9


@dataclass
class Hierarchy:
    """BFS levels and per-level blocks of the routing graph (nodes + switches)."""

    level: IntArray
    up_x: IntArray
    up_y: IntArray
    up_c: IntArray
    blocks: list[IntArray] = field(default_factory=list)
    n_blocks: list[int] = field(default_factory=list)
    top: int | None = None
    plane: IntArray | None = None
    up_start: IntArray | None = None
    """Up-links are sorted by the level of their lower end; level i's are
    ``up_start[i]:up_start[i + 1]`` (None: not sorted, select by level)."""
    up_edge: IntArray | None = None
    """The graph edge of each up-link (None: not tracked)."""
    cert_plan: list[Any] | None = field(default=None, compare=False, repr=False)
    """The certificate's per-level plan, once made (edges only)."""

    def with_capacities(self, g: ComputeGraph) -> Hierarchy:
        """The same levels and blocks on a graph with the same edges, other
        capacities (levels and blocks depend on the edges only)."""
        if self.up_edge is None:
            raise ValueError("the up-links' edges are not tracked")
        return replace(self, up_c=g.c[self.up_edge], plane=self.plane)

    def up_slice(self, i: int) -> slice | BoolArray:
        """The up-links whose lower end is at level ``i``."""
        if self.up_start is not None and i + 1 < len(self.up_start):
            return slice(int(self.up_start[i]), int(self.up_start[i + 1]))
        return np.asarray(self.level[self.up_x] == i)


def hierarchy(g: ComputeGraph) -> Hierarchy:
    """Levels from the compute nodes and the blocks of each level."""
    routing = g.endpoint | g.switch
    keep = np.flatnonzero(routing[g.u] & routing[g.v])
    u, v = g.u[keep], g.v[keep]
    level = bfs_levels(g.n, g.endpoint, u, v)
    level[~routing] = -1
    lu, lv = level[u], level[v]
    up = np.flatnonzero(lv == lu + 1)
    down = np.flatnonzero(lu == lv + 1)
    up_x = np.concatenate((u[up], v[down]))
    up_y = np.concatenate((v[up], u[down]))
    edge = keep[np.concatenate((up, down))]
    # up-links sorted by the level of their lower end: each level is a slice
    lx = level[up_x]
    order = np.argsort(lx, kind="stable")
    up_x, up_y, edge = up_x[order], up_y[order], edge[order]
    deepest = int(level.max()) if len(level) else -1
    starts = np.searchsorted(lx[order], np.arange(deepest + 2))
    h = Hierarchy(
        level=level,
        up_x=up_x,
        up_y=up_y,
        up_c=g.c[edge],
        up_start=starts,
        up_edge=edge,
    )
    n_ep = int(g.endpoint.sum())
    block = np.full(g.n, -1, dtype=np.int64)
    block[g.endpoint] = np.arange(n_ep)
    h.blocks.append(block)
    h.n_blocks.append(n_ep)
    if n_ep == 1:
        h.top = 0
        return h
    i = 0
    while True:
        sel = h.up_slice(i)
        if not len(up_x[sel]):
            return h
        ys = np.flatnonzero(level == i + 1)
        ypos = np.full(g.n, -1, dtype=np.int64)
        ypos[ys] = np.arange(len(ys))
        nb = h.n_blocks[-1]
        count, lab = components(nb + len(ys), block[up_x[sel]], nb + ypos[up_y[sel]])
        # every component holds a lower block or a level-(i+1) node: labels are dense
        new = np.full(g.n, -1, dtype=np.int64)
        low = block >= 0
        new[low] = lab[block[low]]
        new[ys] = lab[nb + np.arange(len(ys))]
        block = new
        h.blocks.append(block)
        h.n_blocks.append(count)
        i += 1
        if h.n_blocks[-1] == 1:
            h.top = i
            return h


PATCH_MAX_EDGES = 16
"""Most edges an edit may remove and add for the levels to be patched (each
removed up-link is checked with a pass over the up-links: past a few, the
levels afresh cost less)."""

PLANES_MAX_REMOVED = 4
"""Most switch-to-switch links an edit may remove for the planes to be kept
(each is checked with a pass over the switch links)."""


def patched_hierarchy(
    h0: Hierarchy,
    old: tuple[IntArray, IntArray, IntArray],
    g: ComputeGraph,
    serial: IntArray,
) -> Hierarchy | None:
    """:func:`hierarchy` of ``g`` from ``h0``, the hierarchy of an earlier
    state of the same nodes (same compute nodes and switches, same local ids)
    whose edges were ``old`` = (serial, u, v), when the edges that differ (in
    one run of at most :data:`PATCH_MAX_EDGES`) provably leave every level and
    block as it was; None when they may not (the caller computes afresh).

    Why it is exact: BFS levels only rise when edges go and only fall when
    they come. A removed up-link x-y (y one level above x) leaves y's level
    when another up-link still reaches y from a node of x's block, and then,
    by induction on the level, every level; the blocks of level i+1 are the
    components of the pairs (block of x, y) over level i's up-links, so they
    stay when every pair that loses a link keeps another. An added edge
    leaves the levels when its ends are at most one level apart (or both
    unreached), and the blocks when, as an up-link, its ends are already in
    one block of the upper level. The up-links keep the order
    :func:`hierarchy` gives them: by the level of the lower end, then those
    whose lower end is the edge's first end, then by edge.
    """
    u, v = g.u, g.v
    run = changed_run(old, (serial, u, v), PATCH_MAX_EDGES)
    if run is None:
        return None
    head, tail = run
    _, u0, v0 = old
    n0, n1 = len(u0), len(u)
    gone0 = np.arange(head, n0 - tail)
    come1 = np.arange(head, n1 - tail)
    routing = g.endpoint | g.switch
    level = h0.level
    ue = h0.up_edge
    if ue is None:
        return None
    kept = (ue < head) | (ue >= n0 - tail)
    top = h0.top
    blocks = h0.blocks

    def block_of(i: int) -> IntArray | None:
        """The blocks of level ``i`` (None: not computed, above the top)."""
        return blocks[i] if i < len(blocks) else None

    for k in gone0.tolist():
        a, b = int(u0[k]), int(v0[k])
        if not (routing[a] and routing[b]) or abs(level[a] - level[b]) != 1:
            continue  # not an up-link: no path from the compute nodes used it
        x, y = (a, b) if level[a] < level[b] else (b, a)
        i = int(level[x])
        into = np.flatnonzero((h0.up_y == y) & kept)
        if not len(into):
            return None  # y loses its last link down: its level rises
        low = block_of(i)
        if low is None or (top is not None and i >= top):
            continue  # above the top block: the blocks do not read it
        if not (low[h0.up_x[into]] == low[x]).any():
            return None  # the pair (block of x, y) is gone: a block may split
    add_x: list[int] = []
    add_y: list[int] = []
    add_key: list[int] = []
    span = n1 + 1
    for k in come1.tolist():
        a, b = int(u[k]), int(v[k])
        if not (routing[a] and routing[b]):
            continue
        la, lb = int(level[a]), int(level[b])
        if la < 0 and lb < 0:
            continue  # between two unreached nodes: they stay unreached
        if la < 0 or lb < 0 or abs(la - lb) > 1:
            return None  # a node is reached, or reached sooner
        if la == lb:
            continue
        x, y, orient = (a, b, 0) if la < lb else (b, a, 1)
        i = min(la, lb)
        if top is None or i < top:
            upper = block_of(i + 1)
            if upper is None or upper[x] != upper[y]:
                return None  # it may join two blocks
        add_x.append(x)
        add_y.append(y)
        add_key.append((i * 2 + orient) * span + k)
    plane = _planes_kept(h0.plane, (u0[gone0], v0[gone0]), (u[come1], v[come1]), g)
    shift = n1 - n0
    edge = np.where(ue >= n0 - tail, ue + shift, ue)[kept]
    up_x, up_y = h0.up_x[kept], h0.up_y[kept]
    if add_x:
        orient = (u[edge] != up_x).astype(np.int64)
        key = (level[up_x] * 2 + orient) * span + edge
        at = np.searchsorted(key, np.asarray(add_key, dtype=np.int64))
        new_edge = np.asarray(add_key, dtype=np.int64) % span
        up_x = with_rows(up_x, at, add_x)
        up_y = with_rows(up_y, at, add_y)
        edge = with_rows(edge, at, new_edge)
    deepest = int(level.max()) if len(level) else -1
    starts = np.searchsorted(level[up_x], np.arange(deepest + 2))
    return Hierarchy(
        level=level,
        up_x=up_x,
        up_y=up_y,
        up_c=g.c[edge],
        blocks=list(blocks),
        n_blocks=list(h0.n_blocks),
        top=top,
        up_start=starts,
        up_edge=edge,
        plane=plane,
    )


def _planes_kept(
    plane: IntArray | None,
    gone: tuple[IntArray, IntArray],
    come: tuple[IntArray, IntArray],
    g: ComputeGraph,
) -> IntArray | None:
    """The switch planes (:func:`~designer.analysis.graph.switch_planes`) of
    the new graph ``g`` when they are the old ``plane``, else None.

    The planes are the components of the switch-to-switch links, labelled in
    node order, so the same partition gives the same labels. An added link
    within one plane keeps them; a removed link x-y keeps them when x and y
    are still joined, which is checked on the cheapest witness: a path x - y'
    - x' - y of switch links that the edit left (a leaf's other spine and
    that spine's other leaf, in a fat tree)."""
    if plane is None:
        return None
    sw = g.switch
    for a, b in zip(*come, strict=True):
        if sw[a] and sw[b] and plane[a] != plane[b]:
            return None  # two planes join
    removed = [(int(a), int(b)) for a, b in zip(*gone, strict=True) if sw[a] and sw[b]]
    if not removed:
        return plane
    if len(removed) > PLANES_MAX_REMOVED:
        return None
    u, v = g.u, g.v
    both = sw[u] & sw[v]
    su, sv = u[both], v[both]
    for x, y in removed:
        # neighbours of x and of y over the switch links of the new graph
        nx = np.zeros(g.n, dtype=np.bool_)
        ny = np.zeros(g.n, dtype=np.bool_)
        nx[sv[su == x]] = True
        nx[su[sv == x]] = True
        ny[sv[su == y]] = True
        ny[su[sv == y]] = True
        if nx[y]:
            continue  # a parallel link x-y is left
        nx[x] = ny[y] = False
        if not ((nx[su] & ny[sv]) | (ny[su] & nx[sv])).any():
            return None  # no short path left: the planes may split
    return plane


@dataclass(frozen=True)
class _Level:
    """What the certificate needs of one level that depends on the edges only."""

    sel: slice | BoolArray
    at_level: IntArray
    failure: str
    """The structural premise that fails here ("" when none)."""
    total: int = 0
    pair: IntArray | None = None
    ref: IntArray | None = None
    ys: IntArray | None = None
    ys_pair: IntArray | None = None


def _level_plan(h: Hierarchy, i: int, n: int) -> _Level:
    """Blocks, ranks and pair slots of level ``i`` (see :func:`certificate`)."""
    sel = h.up_slice(i)
    x, y = h.up_x[sel], h.up_y[sel]
    at_level = np.flatnonzero(h.level == i)
    lower, upper = h.blocks[i], h.blocks[i + 1]
    nb_low, nb_up = h.n_blocks[i], h.n_blocks[i + 1]
    parent = np.full(nb_low, -1, dtype=np.int64)
    parent[lower[x]] = upper[x]
    if (parent < 0).any():
        return _Level(sel, at_level, f"a level-{i} block has no up-links")
    rb, nb = rank_within(parent, nb_up)
    ys = np.flatnonzero(h.level == i + 1)
    ry_nodes, ny = rank_within(upper[ys], nb_up)
    ry = np.full(n, -1, dtype=np.int64)
    ry[ys] = ry_nodes
    sizes = nb * ny
    total = int(sizes.sum())
    if total > len(x):
        return _Level(sel, at_level, f"uneven reach from level {i} to level {i + 1}")
    off = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    pair = off[upper[y]] + rb[lower[x]] * ny[upper[y]] + ry[y]
    owner = np.repeat(np.arange(nb_up), sizes)
    ref = off[owner] + (np.arange(total) - off[owner]) % np.maximum(ny[owner], 1)
    return _Level(sel, at_level, "", total, pair, ref, ys, off[upper[ys]] + ry[ys])


def _plan(h: Hierarchy, n: int) -> list[_Level]:
    """The per-level plan, made once per hierarchy (and shared by its copies
    with other capacities: it depends on the edges only)."""
    if h.cert_plan is None:
        h.cert_plan = []
        for i in range(h.top or 0):
            h.cert_plan.append(_level_plan(h, i, n))
            if h.cert_plan[-1].failure:
                break
    return h.cert_plan


def certificate(g: ComputeGraph, h: Hierarchy) -> tuple[float | None, str]:
    """Hose-routing theta (see module doc), or None and the premise that failed."""
    if h.top is None:
        return None, "the compute nodes are not all joined through the upper tiers"
    n = g.n
    inj = g.injection
    if (inj[g.endpoint] <= 0).any():
        return None, "a compute node has no compute links"
    p = np.zeros(n)
    p[g.endpoint] = 1.0
    mass = np.zeros(n)
    mass[g.endpoint] = inj[g.endpoint]
    theta = 1.0
    for i, lv in enumerate(_plan(h, n)):
        x, y = h.up_x[lv.sel], h.up_y[lv.sel]
        c = h.up_c[lv.sel].astype(np.float64)
        at_level = lv.at_level
        up = np.bincount(x, weights=c, minlength=n)
        if (up[at_level] <= 0).any():
            bad = at_level[up[at_level] <= 0]
            return None, (
                f"{plural(len(bad), 'device')} at level {i} "
                f"{verb(len(bad), 'has', 'have')} no up-links"
            )
        theta = min(theta, float((up[at_level] / mass[at_level]).min()))
        if lv.failure:
            return None, lv.failure
        assert lv.pair is not None and lv.ref is not None and lv.ys is not None
        share = c / up[x]
        q = np.bincount(lv.pair, weights=p[x] * share, minlength=lv.total)
        if (q <= 0).any() or not np.allclose(q, q[lv.ref], rtol=_REL, atol=0.0):
            return None, f"uneven reach from level {i} to level {i + 1}"
        p[lv.ys] = q[lv.ys_pair]
        mass += np.bincount(y, weights=mass[x] * share, minlength=n)
    return theta, ""


def levelled_bound(
    g: ComputeGraph, h: Hierarchy, bal: Balance
) -> tuple[float, str] | None:
    """Hose certificate on uniform-capacity neighbours of an uneven tree.

    Sound because a cut's value is monotone in edge capacities. Class the
    up-links by the level of their lower end. G_low: each up-link at its class
    minimum, every other edge at 0 - edgewise <= G, so B(G) >= B(G_low) >=
    cert(G_low). G_high: each up-link at its class maximum, other edges as they
    are - edgewise >= G with total excess D, so B(G) >= B(G_high) - D (lowering
    capacities by D in total lowers every cut by at most D) >= cert(G_high) - D.
    Levels and blocks depend on the edges only, not their capacities, so the
    hierarchy of G serves both. Returns (bound, which) or None.
    """
    if h.top is None or not len(h.up_x):
        return None
    lev = h.level
    lu, lv = lev[g.u], lev[g.v]
    is_up = (lu >= 0) & (lv >= 0) & (np.abs(lu - lv) == 1)
    cls = np.where(is_up, np.minimum(lu, lv), -1)
    n_cls = int(lev.max()) + 1
    lo = np.full(n_cls, np.iinfo(np.int64).max, dtype=np.int64)
    hi = np.zeros(n_cls, dtype=np.int64)
    np.minimum.at(lo, cls[is_up], g.c[is_up])
    np.maximum.at(hi, cls[is_up], g.c[is_up])
    present = np.bincount(cls[is_up], minlength=n_cls) > 0
    if (lo == hi)[present].all():
        return None  # already uniform per level: nothing new to certify
    best: tuple[float, str] | None = None
    ep = g.endpoints
    w = g.weight[ep]
    up_cls = lev[h.up_x]
    for name, per, other in (
        ("lowered", lo, np.zeros_like(g.c)),
        ("raised", hi, g.c),
    ):
        c = np.where(is_up, per[np.maximum(cls, 0)], other)
        inj = (
            np.bincount(g.u, weights=c, minlength=g.n)
            + np.bincount(g.v, weights=c, minlength=g.n)
        ).astype(np.float64)
        g2 = replace(g, c=c, injection=inj)
        h2 = replace(h, up_c=per[up_cls])
        theta, _ = certificate(g2, h2)
        if theta is None:
            continue
        excess = float((c - g.c).sum()) if name == "raised" else 0.0
        value = theta * min_side_injection(inj[ep], w, bal) - excess
        if best is None or value > best[0]:
            best = (
                value,
                f"hose certificate on the fabric with capacities {name} to a "
                f"uniform value per level (theta = {theta:.4g}"
                + (f", minus {excess:,.0f} Gb/s added" if excess else "")
                + ")",
            )
    return best


__all__ = [
    "PATCH_MAX_EDGES",
    "PLANES_MAX_REMOVED",
    "Hierarchy",
    "certificate",
    "hierarchy",
    "levelled_bound",
    "patched_hierarchy",
]
