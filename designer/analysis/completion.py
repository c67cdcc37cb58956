"""A lower bound by comparison with a regular fabric near this one.

The argument (sound whatever the heuristics below choose):

1. take G_sub, the tree-like sub-fabric the tree hose LP routes on
   (:func:`designer.analysis.hose.tree_fabric`, every link at most its
   capacity in G). Removing capacity never raises a cut, so B(G) >= B(G_sub);
2. change G_sub's switch-to-switch up-links into G_reg: some capacities
   lowered (free, as in 1) and some raised or links added, D Gb/s in all.
   Lowering capacities by D in total lowers every cut by at most D, so
   B(G_sub) >= B(G_reg) - D;
3. if the hose-routing certificate holds on G_reg
   (:func:`designer.analysis.levels.certificate`, its premises checked on
   G_reg's own levels and blocks), B(G_reg) >= theta x the least injection a
   balanced side can have (compute links are never changed, so injections are
   G_sub's).

So B(G) >= theta x min-side injection - D. The heuristic only decides which
G_reg to try: per parent block and level, the regular value T of the capacity
from each child block to each device of the next level is the most common
one; pairs below T get capacity on the child device that seems to have lost
the link (it lacks that device, its other up-neighbours are shared with the
devices that do link it in sibling blocks, and it has the least up-capacity),
pairs above T give it back on their child device with the most up-capacity.
A fabric edited by hand from a generated one (a few percent of its uplinks
removed, some cables changed) is regular again after D of about the capacity
removed, which is the whole cost of the bound.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy.sparse import csr_matrix

from designer.analysis.balance import Balance, min_side_injection
from designer.analysis.graph import ComputeGraph
from designer.analysis.index import FloatArray, IntArray
from designer.analysis.levels import Hierarchy, certificate, hierarchy

OUTLIERS = (0.5, 0.6)
"""Up-links from a block to a device carrying less than this fraction of the
block's median capacity to a device are left out first (a stray link between
pods would otherwise merge them into one irregular block); each is tried in
turn and the best bound kept."""
ROUNDS = 8
MAX_GRID = 4_000_000
"""(child block, next-level device) pairs a level may have."""
"""Rounds of assignment per level (a child block that lost several links to
the same device takes one per round)."""


def _mode_per(n: int, key: IntArray, values: FloatArray) -> FloatArray:
    """Most common value per key in 0..n-1 (the largest on a tie; 0 if absent).

    Values are capacities in Gb/s (whole numbers)."""
    out = np.zeros(n)
    if not len(key):
        return out
    v = np.rint(values).astype(np.int64)
    span = int(v.max()) + 1
    uk, cnt = np.unique(key * span + v, return_counts=True)
    k, val = np.divmod(uk, span)
    order = np.lexsort((val, cnt, k))  # per key: count, then value, rising
    k, val = k[order], val[order]
    last = np.r_[k[1:] != k[:-1], True]
    out[k[last]] = val[last]
    return out


def _grid(
    n: int, h: Hierarchy, i: int
) -> tuple[IntArray, IntArray, IntArray, IntArray] | None:
    """Every (child block, next-level device of its parent) pair at level i:
    sorted keys b * n + y, and b, y and the parent block of each."""
    low, up_blk, level = h.blocks[i], h.blocks[i + 1], h.level
    xs = np.flatnonzero(level == i)
    ys = np.flatnonzero(level == i + 1)
    kids = np.unique(low[xs])
    parent_of = np.full(int(low.max()) + 1, -1, dtype=np.int64)
    parent_of[low[xs]] = up_blk[xs]
    y_par = up_blk[ys]
    order = np.argsort(y_par, kind="stable")
    n_par = int(up_blk.max()) + 1
    ystart = np.searchsorted(y_par[order], np.arange(n_par))
    cnt = np.bincount(y_par, minlength=n_par)[parent_of[kids]]
    if int(cnt.sum()) > MAX_GRID:
        return None
    g_b = np.repeat(kids, cnt)
    k_in = np.arange(int(cnt.sum())) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    g_y = ys[order][np.repeat(ystart[parent_of[kids]], cnt) + k_in]
    key = g_b * n + g_y
    srt = np.argsort(key)
    return key[srt], g_b[srt], g_y[srt], parent_of[g_b[srt]]


def _first_per(group: IntArray, *keys: FloatArray) -> IntArray:
    """Index of the first row of each group, rows ordered by ``keys`` (the
    first key most significant), groups in rising order."""
    order = np.lexsort((*reversed(keys), group))
    g = group[order]
    first = np.r_[True, g[1:] != g[:-1]]
    return order[first]


def _level(
    n: int, h: Hierarchy, i: int, keys: IntArray, caps: FloatArray
) -> tuple[IntArray, FloatArray, float] | None:
    """Level i -> i+1 made regular: new (sorted keys x * n + y, capacities) and
    the capacity lowered, or None when no regular value exists."""
    grid = _grid(n, h, i)
    if grid is None or not len(keys):
        return None
    grid_key, g_b, g_y, g_par = grid
    low, level = h.blocks[i], h.level
    x, y = np.divmod(keys, n)
    # links above the typical capacity into their device are lowered (free)
    typical = _mode_per(n, y, caps)
    lowered = float(np.maximum(caps - typical[y], 0).sum())
    caps = np.minimum(caps, typical[y])
    inc = csr_matrix((np.ones(len(x)), (x, y)), shape=(n, n))
    score_m = (inc @ inc.T @ inc).tocsr()  # next-level neighbours shared
    deg = np.maximum(np.asarray(inc.sum(axis=1)).ravel(), 1.0)
    members = np.flatnonzero(level == i)
    morder = np.argsort(low[members], kind="stable")
    members = members[morder]
    n_low = int(low.max()) + 1
    mstart = np.searchsorted(low[members], np.arange(n_low))
    mcount = np.bincount(low[members], minlength=n_low)
    for _ in range(ROUNDS):
        x, y = np.divmod(keys, n)
        pos = np.minimum(np.searchsorted(grid_key, low[x] * n + y), len(grid_key) - 1)
        if not (grid_key[pos] == low[x] * n + y).all():
            return None  # an up-link leaving its parent block: not a tree
        c_by = np.bincount(pos, weights=caps, minlength=len(grid_key)).astype(float)
        upx = np.bincount(x, weights=caps, minlength=n).astype(np.float64)
        want = _mode_per(int(g_par.max()) + 1, g_par, c_by)[g_par]
        if (want <= 0).any():
            return None
        over = c_by > want + 1e-9
        short = np.flatnonzero(c_by < want - 1e-9)
        if not over.any() and not len(short):
            return keys, caps, lowered
        if over.any():
            # give back the excess on the child device with the most up-capacity
            rows = np.flatnonzero(over[pos])
            pick = rows[_first_per(pos[rows], -upx[x[rows]])]
            cut = np.minimum(c_by[pos[pick]] - want[pos[pick]], caps[pick])
            caps = caps.copy()
            caps[pick] -= cut
            lowered += float(cut.sum())
        if len(short):
            # add the missing capacity on the child device that seems to have
            # lost the link: it lacks that device, shares its other next-level
            # neighbours with the devices that do link it, has least up-capacity
            b, yy = g_b[short], g_y[short]
            cnt = mcount[b]
            ent = np.repeat(np.arange(len(short)), cnt)
            k_in = np.arange(int(cnt.sum())) - np.repeat(np.cumsum(cnt) - cnt, cnt)
            cx = members[np.repeat(mstart[b], cnt) + k_in]
            cy = yy[ent]
            ckey = cx * n + cy
            at = np.minimum(np.searchsorted(keys, ckey), len(keys) - 1)
            have = np.where(keys[at] == ckey, caps[at], 0.0)
            lack = have < typical[cy] - 1e-9
            any_lack = np.bincount(ent, weights=lack, minlength=len(short)) > 0
            eligible = lack | ~any_lack[ent]
            sc = np.asarray(score_m[cx, cy]).ravel() / deg[cx]
            rows = np.flatnonzero(eligible)
            pick = rows[_first_per(ent[rows], -sc[rows], upx[cx[rows]])]
            gap = (want - c_by)[short]
            room = np.maximum(typical[cy[pick]] - have[pick], 0.0)
            add = np.where(room > 0, np.minimum(gap, room), gap)
            keys = np.concatenate((keys, ckey[pick]))
            caps = np.concatenate((caps, add))
            keys, inv = np.unique(keys, return_inverse=True)
            caps = np.bincount(inv, weights=caps).astype(np.float64)
    return None


def regular_bound(g: ComputeGraph, bal: Balance) -> tuple[float, str] | None:
    """theta(G_reg) x min-side injection - D (module doc), or None."""
    from designer.analysis.hose import tree_fabric

    best: tuple[float, str] | None = None
    for weak in OUTLIERS:
        out = _bound_on(*tree_fabric(g, weak), bal)
        if out is not None and (best is None or out[0] > best[0]):
            best = out
    return best


def _bound_on(
    g1: ComputeGraph, h1: Hierarchy, bal: Balance
) -> tuple[float, str] | None:
    """The bound of :func:`regular_bound` for one sub-fabric and its levels."""
    if h1.top is None or h1.top < 2:
        return None
    n = g1.n
    sw = ~g1.endpoint
    lu, lv = h1.level[g1.u], h1.level[g1.v]
    upl = sw[g1.u] & sw[g1.v] & (np.abs(lu - lv) == 1) & (lu >= 1) & (lv >= 1)
    x = np.where(lu < lv, g1.u, g1.v)[upl]
    y = np.where(lu < lv, g1.v, g1.u)[upl]
    uk, inv = np.unique(x * n + y, return_inverse=True)
    cap = np.bincount(inv, weights=g1.c[upl].astype(np.float64))
    lowered = 0.0
    new_keys: list[IntArray] = []
    new_caps: list[FloatArray] = []
    lev = h1.level[uk // n]
    for i in range(1, h1.top):
        sel = lev == i
        out = _level(n, h1, i, uk[sel], cap[sel])
        if out is None:
            return None
        new_keys.append(out[0])
        new_caps.append(out[1])
        lowered += out[2]
    keys = np.concatenate(new_keys)
    caps = np.concatenate(new_caps)
    if (caps < -1e-9).any() or (np.abs(caps - np.rint(caps)) > 1e-6).any():
        return None
    caps = np.rint(caps).astype(np.int64)
    # D: capacity G_reg has beyond G_sub, pair by pair (lowerings are free)
    at = np.minimum(np.searchsorted(uk, keys), len(uk) - 1)
    before = np.where(uk[at] == keys, cap[at], 0.0)
    d = float(np.maximum(caps - before, 0.0).sum())
    nz = caps > 0
    ax, ay = np.divmod(keys[nz], n)
    g_reg = replace(
        g1,
        u=np.concatenate((g1.u[~upl], ax)),
        v=np.concatenate((g1.v[~upl], ay)),
        c=np.concatenate((g1.c[~upl], caps[nz])),
    )
    theta, _ = certificate(g_reg, hierarchy(g_reg))
    if theta is None:
        return None
    ep = g_reg.endpoint
    inj = (
        np.bincount(g_reg.u, weights=g_reg.c, minlength=n)
        + np.bincount(g_reg.v, weights=g_reg.c, minlength=n)
    ).astype(np.float64)
    value = theta * min_side_injection(inj[ep], g_reg.weight[ep], bal) - d
    if value <= 0:
        return None
    return (
        value,
        f"hose certificate on a regular fabric near this one (theta = {theta:.4g}) "
        f"minus the {d:,.0f} Gb/s it adds ({lowered:,.0f} Gb/s lowered for free)",
    )


__all__ = ["regular_bound"]
