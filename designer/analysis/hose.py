"""Lower bounds on the bisection from hose-routing certificates, solved as LPs.

The argument (performance.md §1.4c, generalised). Give every compute node i a
*hose* h_i = theta x base_i (base_i: its capacity towards the switches). Suppose
each node i has a flow phi_i that carries h_i from i to a set of *hub* devices
and delivers the SAME fraction q(s) of it to every hub s, and that on every
link the flows of all nodes together use at most its capacity counting both
directions: sum_i phi_i(x->y) + phi_i(y->x) <= c(x, y). Then every traffic
matrix T in which node i sends and receives at most h_i is routable: send
t_ij along t_ij / h_i x phi_i up to the hubs and along the reverse of
t_ij / h_j x phi_j down to j (at a hub s, t_ij q(s) arrives and leaves). A
direction x->y carries at most sum_i phi_i(x->y) + sum_j phi_j(y->x) <= c.
For any balanced split (A, B) route a matrix from A to B with row and column
sums within the hoses and total min(h(A), h(B)): all of it crosses the cut, so
cut(A, B) >= min(h(A), h(B)) >= theta x min_side_injection(base) (see
:func:`designer.analysis.balance.min_side_injection`). Every LP below only
builds such flows (a restriction of the general one), so its optimal theta -
indeed any feasible theta - gives a sound bound; HiGHS's optimum is used with
a relative safety margin of 1e-7.

Two LPs:

* :func:`class_bound` - one commodity per class of compute nodes with the
  same neighbours (members split their hose alike), flows on every
  switch-to-switch link in both directions, hubs anywhere. General (detours,
  any topology); its size is classes x links, so it runs on small fabrics.
* :func:`tree_bound` - for tree-like fabrics (leaf/spine/core levels): the
  flow of a block at one level (the devices joined below it) reaches the next
  level's devices of its parent block in a common proportion P, so that the
  nodes of every block share one distribution at every level and all of them
  the same one at the top (by induction up the levels). One variable per
  up-link: it scales to 100K GPUs. Links that would break the levels (a
  compute node wired to a spine, a stray link between pods) are left out: a
  bound on a sub-fabric is a bound on the fabric, since removing capacity
  never raises any cut.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix

from designer.analysis.balance import Balance, min_side_injection
from designer.analysis.graph import ComputeGraph
from designer.analysis.index import FloatArray, IntArray
from designer.analysis.levels import Hierarchy, hierarchy

CLASS_LP_MAX_VARS = 60_000
TREE_LP_MAX_VARS = 400_000
LEAF_SHARE = 0.25
"""A switch is a leaf when at least this share of its capacity goes to compute
nodes; compute links to other switches are left out of the tree bound."""
WEAK_LINK = 0.5
"""An up-link from a block to a device carrying less than this fraction of
the block's median capacity to a device is left out of the tree bound."""
_SAFETY = 1e-7
_METHOD = "highs"


@dataclass
class HoseBound:
    """A certified lower bound and how it was found."""

    value: float
    theta: float
    how: str
    seconds: float


def _pairs(
    n: int, u: IntArray, v: IntArray, c: IntArray
) -> tuple[IntArray, IntArray, FloatArray]:
    """Links summed per unordered pair: (lo, hi, capacity)."""
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    keep = lo != hi
    key = lo[keep] * n + hi[keep]
    uk, inv = np.unique(key, return_inverse=True)
    cap = np.bincount(inv, weights=c[keep].astype(np.float64)).astype(np.float64)
    a, b = np.divmod(uk, n)
    return a, b, cap


def _solve(
    cost: FloatArray,
    a_eq: object,
    a_ub: object | None,
    b_ub: FloatArray | None,
    bounds: FloatArray,
    deadline: float | None,
) -> float | None:
    """Max theta (variable 0) of the LP, or None when it did not solve in time."""
    opts: dict[str, float] = {}
    if deadline is not None:
        left = deadline - time.perf_counter()
        if left <= 0.01:
            return None
        opts["time_limit"] = left
    res = linprog(
        cost,
        A_ub=a_ub,
        b_ub=b_ub,
        A_eq=a_eq,
        b_eq=np.zeros(a_eq.shape[0]),  # type: ignore[attr-defined]
        bounds=bounds,
        method=_METHOD,
        options=opts,
    )
    if res.status != 0 or res.x is None:
        return None
    return max(0.0, float(res.x[0]) * (1 - _SAFETY))


def _class_ids(
    n: int, x: IntArray, y: IntArray, c: FloatArray, nodes: IntArray
) -> IntArray:
    """Class per node of ``nodes`` by its (neighbour, capacity) multiset (hashed;
    a collision only merges two classes, which the LP handles soundly)."""
    rng = np.random.default_rng(20260604)
    r = rng.integers(1, 2**40, size=n)
    h = np.zeros(n, dtype=np.int64)
    np.add.at(h, x, r[y] * np.rint(c).astype(np.int64))
    _, cls = np.unique(h[nodes], return_inverse=True)
    return cls.astype(np.int64)


def class_bound(
    g: ComputeGraph, bal: Balance, *, deadline: float | None = None
) -> HoseBound | None:
    """Hose bound with one commodity per class of alike compute nodes (module doc)."""
    t0 = time.perf_counter()
    n, ep = g.n, g.endpoint
    lo, hi, cap = _pairs(n, g.u, g.v, g.c)
    node_edge = ep[lo] ^ ep[hi]
    nd = np.where(ep[lo], lo, hi)[node_edge]
    sw = np.where(ep[lo], hi, lo)[node_edge]
    nc = cap[node_edge]
    base = np.bincount(nd, weights=nc, minlength=n).astype(np.float64)
    epi = np.flatnonzero(ep & (base > 0))
    if len(epi) < 2:
        return None
    cls_of = _class_ids(n, nd, sw, nc, epi)
    k = int(cls_of.max()) + 1
    cls = np.full(n, -1, dtype=np.int64)
    cls[epi] = cls_of
    mass = np.bincount(cls_of, weights=base[epi], minlength=k)
    size_k = np.bincount(cls_of, minlength=k)
    # attach (class, switch): every member linked; share <= c_il / base_i
    ok = cls[nd] >= 0
    pk, pl, ratio = cls[nd[ok]], sw[ok], nc[ok] / base[nd[ok]]
    ukey, pinv = np.unique(pk * n + pl, return_inverse=True)
    cnt = np.bincount(pinv, minlength=len(ukey))
    ub = np.full(len(ukey), np.inf)
    np.minimum.at(ub, pinv, ratio)
    ak, al = np.divmod(ukey, n)
    full = cnt == size_k[ak]
    ak, al, ub = ak[full], al[full], ub[full]
    swn = np.flatnonzero(~ep)
    spos = np.full(n, -1, dtype=np.int64)
    spos[swn] = np.arange(len(swn))
    s = len(swn)
    sw_edge = ~ep[lo] & ~ep[hi]
    ea, eb, ec = spos[lo[sw_edge]], spos[hi[sw_edge]], cap[sw_edge]
    m = len(ea)
    n_a, n_f = len(ak), k * 2 * m
    if 1 + n_a + s + n_f > CLASS_LP_MAX_VARS:
        return None
    i_a, i_q, i_f = 1, 1 + n_a, 1 + n_a + s
    nv = i_f + n_f
    rows, cols, vals = [], [], []
    # conservation of class kk at switch j (row kk*s + j): out - in = supply - demand
    rows.append(ak * s + spos[al])
    cols.append(i_a + np.arange(n_a))
    vals.append(-mass[ak])
    kk, jj = np.repeat(np.arange(k), s), np.tile(np.arange(s), k)
    rows.append(kk * s + jj)
    cols.append(i_q + jj)
    vals.append(mass[kk])
    tail, head = np.concatenate((ea, eb)), np.concatenate((eb, ea))
    kf, jf = np.repeat(np.arange(k), 2 * m), np.tile(np.arange(2 * m), k)
    fcol = i_f + kf * 2 * m + jf
    rows += [kf * s + tail[jf], kf * s + head[jf]]
    cols += [fcol, fcol]
    vals += [np.ones(n_f), -np.ones(n_f)]
    r0 = k * s
    # each class splits theta over its attach switches; hubs take theta in all
    rows += [r0 + ak, r0 + np.arange(k), np.full(s, r0 + k), np.array([r0 + k])]
    cols += [
        i_a + np.arange(n_a),
        np.zeros(k, dtype=np.int64),
        i_q + np.arange(s),
        np.array([0]),
    ]
    vals += [np.ones(n_a), -np.ones(k), np.ones(s), np.array([-1.0])]
    n_rows = r0 + k + 1
    a_eq = coo_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
        shape=(n_rows, nv),
    ).tocsr()
    urow = np.tile(np.concatenate((np.arange(m), np.arange(m))), k)
    a_ub = coo_matrix((np.ones(n_f), (urow, fcol)), shape=(m, nv)).tocsr()
    bounds = np.zeros((nv, 2))
    bounds[:, 1] = np.inf
    bounds[i_a : i_a + n_a, 1] = ub
    cost = np.zeros(nv)
    cost[0] = -1.0
    theta = _solve(cost, a_eq, a_ub, ec, bounds, deadline)
    if theta is None:
        return None
    w = g.weight[g.endpoint]
    value = theta * min_side_injection(base[g.endpoint], w, bal)
    return HoseBound(
        value,
        theta,
        f"hose-routing LP ({k} classes of compute nodes, {m} switch links, "
        f"theta = {theta:.4g})",
        time.perf_counter() - t0,
    )


def _levels_graph(g: ComputeGraph) -> ComputeGraph:
    """``g`` without compute links to switches that are not leaves (LEAF_SHARE)."""
    ep = g.endpoint
    node_edge = ep[g.u] ^ ep[g.v]
    other = np.where(ep[g.u], g.v, g.u)
    tot = np.bincount(g.u, weights=g.c, minlength=g.n) + np.bincount(
        g.v, weights=g.c, minlength=g.n
    )
    to_ep = np.bincount(other[node_edge], weights=g.c[node_edge], minlength=g.n)
    leaf = to_ep >= LEAF_SHARE * np.maximum(tot, 1e-9)
    keep = ~node_edge | leaf[other]
    keep &= ~(ep[g.u] & ep[g.v])
    if not (node_edge & keep).any():
        keep = ~(ep[g.u] & ep[g.v])
    return replace(g, u=g.u[keep], v=g.v[keep], c=g.c[keep])


def _drop_weak(g: ComputeGraph, h: object, weak: float = WEAK_LINK) -> ComputeGraph:
    """``g`` without up-links far below their block's median (``weak``)."""
    level = h.level  # type: ignore[attr-defined]
    lu, lv = level[g.u], level[g.v]
    up = (lu >= 1) & (lv == lu + 1) | (lv >= 1) & (lu == lv + 1)
    x = np.where(lu < lv, g.u, g.v)
    y = np.where(lu < lv, g.v, g.u)
    keep = np.ones(len(g.u), dtype=np.bool_)
    blocks = h.blocks  # type: ignore[attr-defined]
    for i in range(1, len(blocks) - 1):
        sel = np.flatnonzero(up & (level[x] == i))
        if not len(sel):
            continue
        b = blocks[i][x[sel]]
        key = b * g.n + y[sel]
        uk, inv = np.unique(key, return_inverse=True)
        tot = np.bincount(inv, weights=g.c[sel])
        kb = uk // g.n
        order = np.lexsort((tot, kb))
        kb_s, tot_s = kb[order], tot[order]
        starts = np.searchsorted(kb_s, kb_s, side="left")
        ends = np.searchsorted(kb_s, kb_s, side="right")
        med_sorted = tot_s[(starts + ends - 1) // 2]
        med = np.empty_like(tot)
        med[order] = med_sorted
        low = tot < weak * med
        keep[sel[low[inv]]] = False
    return replace(g, u=g.u[keep], v=g.v[keep], c=g.c[keep])


class _Lp:
    """Sparse rows of an LP built piece by piece (variable 0 is theta)."""

    def __init__(self) -> None:
        self.nv = 1
        self.nr = 0
        self.rows: list[IntArray] = []
        self.cols: list[IntArray] = []
        self.vals: list[FloatArray] = []
        self.ub: list[FloatArray] = [np.array([np.inf])]
        self.cap: list[tuple[IntArray, IntArray, IntArray, FloatArray]] = []
        self.n_cap = 0

    def add_vars(self, upper: FloatArray) -> int:
        """Append variables with these upper bounds; returns the first index."""
        first = self.nv
        self.nv += len(upper)
        self.ub.append(np.asarray(upper, dtype=np.float64))
        return first

    def add_rows(self, count: int) -> int:
        """Reserve equality rows; returns the first row index."""
        first = self.nr
        self.nr += count
        return first

    def put(self, rows: IntArray, cols: IntArray, vals: FloatArray | float) -> None:
        """Add coefficients (duplicates are summed)."""
        self.rows.append(np.asarray(rows, dtype=np.int64))
        self.cols.append(np.asarray(cols, dtype=np.int64))
        self.vals.append(np.broadcast_to(np.asarray(vals, dtype=np.float64), len(rows)))


def _transition_direct(
    lp: _Lp,
    h: object,
    i: int,
    x: IntArray,
    y: IntArray,
    c: FloatArray,
    p_of: IntArray,
    mass_of: list[FloatArray],
    n: int,
) -> None:
    """Level i -> i+1 without detours: one flow per up-link, each level-i block
    b sends mass(b) x P(y) to every level-(i+1) device y of its parent."""
    level, blocks = h.level, h.blocks  # type: ignore[attr-defined]
    f0 = lp.add_vars(c)
    at = np.flatnonzero(level == i)
    r = lp.add_rows(len(at))
    row_of = np.full(n, -1, dtype=np.int64)
    row_of[at] = r + np.arange(len(at))
    lp.put(row_of[x], f0 + np.arange(len(x)), 1.0)
    lp.put(row_of[at], p_of[at], -mass_of[i][blocks[i][at]])
    low, up = blocks[i], blocks[i + 1]
    ys = np.flatnonzero(level == i + 1)
    kids, parent = _kids(h, i, mass_of)
    by_block = _by_group(ys, up[ys], int(up.max()) + 1)
    at_kid, y_rep = _members(by_block, parent[kids])
    b_rep = kids[at_kid]
    keys = b_rep * n + y_rep
    r = lp.add_rows(len(keys))
    lp.put(r + np.arange(len(keys)), p_of[y_rep], -mass_of[i][b_rep])
    fkey = low[x] * n + y
    pos = np.minimum(np.searchsorted(keys, fkey), max(len(keys) - 1, 0))
    hit = keys[pos] == fkey
    lp.put(r + pos[hit], f0 + np.flatnonzero(hit), 1.0)


def _kids(h: object, i: int, mass_of: list[FloatArray]) -> tuple[IntArray, IntArray]:
    """Level-i blocks that carry compute traffic, and the parent block of each."""
    level, blocks = h.level, h.blocks  # type: ignore[attr-defined]
    kids = np.flatnonzero(mass_of[i] > 0)
    parent = np.full(len(mass_of[i]), -1, dtype=np.int64)
    lowest = np.flatnonzero((level >= 0) & (level <= i))
    parent[blocks[i][lowest]] = blocks[i + 1][lowest]
    return kids, parent


def _by_group(
    items: IntArray, groups: IntArray, n_groups: int
) -> tuple[IntArray, IntArray, IntArray]:
    """``items`` in the order of their group (stable), the position where each
    group's run starts in that order, and each group's size (``groups[k]`` is
    the group of ``items[k]``)."""
    order = np.argsort(groups, kind="stable")
    start = np.searchsorted(groups[order], np.arange(n_groups))
    return items[order], start, np.bincount(groups, minlength=n_groups)


def _members(
    by_group: tuple[IntArray, IntArray, IntArray], groups: IntArray
) -> tuple[IntArray, IntArray]:
    """Every (k, member of group ``groups[k]``) pair, k ascending, as two arrays."""
    items, start, count = by_group
    cnt = count[groups]
    k_in = np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    at = np.repeat(start[groups], cnt) + k_in
    return np.repeat(np.arange(len(groups)), cnt), items[at]


def _detour_pairs(h: object, i: int, x: IntArray, mass_of: list[FloatArray]) -> int:
    """(child block, link) pairs the detour form of level i -> i+1 needs."""
    kids, parent = _kids(h, i, mass_of)
    up = h.blocks[i + 1]  # type: ignore[attr-defined]
    kcount = np.bincount(parent[kids], minlength=int(up.max()) + 1)
    return int(kcount[up[x]].sum())


def _transition_detour(
    lp: _Lp,
    h: object,
    i: int,
    x: IntArray,
    y: IntArray,
    c: FloatArray,
    p_of: IntArray,
    mass_of: list[FloatArray],
    n: int,
) -> None:
    """Level i -> i+1 with detours: one commodity per level-i block b on the
    links of its parent block, both directions; b puts mass(b) x P(x) in at
    its own level-i devices and takes mass(b) x P(y) out at every level-(i+1)
    device of the parent (the same P for all children: the common proportion)."""
    level, blocks = h.level, h.blocks  # type: ignore[attr-defined]
    low, up = blocks[i], blocks[i + 1]
    kids, parent = _kids(h, i, mass_of)
    by_parent = _by_group(kids, parent[kids], int(up.max()) + 1)
    # (child, link) pairs for links of the child's parent block
    link_rep, kid_rep = _members(by_parent, up[x])
    m = len(link_rep)
    f_up = lp.add_vars(np.full(m, np.inf))
    f_dn = lp.add_vars(np.full(m, np.inf))
    # capacity: sum over children and both directions <= c (rows of A_ub)
    lp.cap.append((lp.n_cap + link_rep, f_up + np.arange(m), f_dn + np.arange(m), c))
    lp.n_cap += len(x)
    # conservation of child b at device z (levels i, i+1 of the parent block)
    zs = np.flatnonzero((level == i) | (level == i + 1))
    at_z, zkid = _members(by_parent, up[zs])
    z_rep = zs[at_z]
    keys = zkid * n + z_rep
    order = np.argsort(keys)
    keys = keys[order]
    z_rep, zkid = z_rep[order], zkid[order]
    r = lp.add_rows(len(keys))

    def row(kid: IntArray, z: IntArray) -> IntArray:
        return r + np.searchsorted(keys, kid * n + z)

    # out - in: up arc x->y, down arc y->x
    lp.put(row(kid_rep, x[link_rep]), f_up + np.arange(m), 1.0)
    lp.put(row(kid_rep, y[link_rep]), f_up + np.arange(m), -1.0)
    lp.put(row(kid_rep, y[link_rep]), f_dn + np.arange(m), 1.0)
    lp.put(row(kid_rep, x[link_rep]), f_dn + np.arange(m), -1.0)
    rr = r + np.arange(len(keys))
    own = (level[z_rep] == i) & (low[z_rep] == zkid)
    lp.put(rr[own], p_of[z_rep[own]], -mass_of[i][zkid[own]])
    top = level[z_rep] == i + 1
    lp.put(rr[top], p_of[z_rep[top]], mass_of[i][zkid[top]])


def tree_fabric(
    g: ComputeGraph, weak: float = WEAK_LINK
) -> tuple[ComputeGraph, Hierarchy]:
    """The sub-fabric the tree bound routes on, and its levels and blocks
    (up-links below ``weak`` x their block's median left out)."""
    g1 = _levels_graph(g)
    h = hierarchy(g1)
    for _ in range(2):
        g2 = _drop_weak(g1, h, weak)
        if len(g2.u) == len(g1.u):
            break
        g1, h = g2, hierarchy(g2)
    return g1, h


def tree_bound(
    g: ComputeGraph,
    bal: Balance,
    *,
    deadline: float | None = None,
    detour_max_vars: int = 60_000,
) -> HoseBound | None:
    """Hose bound routed level by level up a tree-like fabric (module doc).

    Levels whose detour commodities fit in ``detour_max_vars`` variables may
    route down and up again inside their parent block; the others go straight up.
    """
    t0 = time.perf_counter()
    g1, h = tree_fabric(g)
    top = h.top
    if top is None or top < 1:
        return None
    n, ep, level = g1.n, g1.endpoint, h.level
    blocks = h.blocks
    epi = np.flatnonzero(ep)
    lu, lv = level[g1.u], level[g1.v]
    upl = (lu >= 0) & (lv >= 0) & (np.abs(lu - lv) == 1)
    x = np.where(lu < lv, g1.u, g1.v)[upl]
    y = np.where(lu < lv, g1.v, g1.u)[upl]
    uk, inv = np.unique(x * n + y, return_inverse=True)
    c = np.bincount(inv, weights=g1.c[upl].astype(np.float64)).astype(np.float64)
    x, y = np.divmod(uk, n)
    base = np.bincount(x[ep[x]], weights=c[ep[x]], minlength=n).astype(np.float64)
    if len(epi) < 2 or (base[epi] <= 0).any():
        return None
    mass_of = [
        np.bincount(
            blocks[i][epi],
            weights=base[epi],
            minlength=h.n_blocks[i],
        ).astype(np.float64)
        for i in range(top + 1)
    ]
    lp = _Lp()
    pnodes = np.flatnonzero((level >= 1) & (level <= top))
    p_of = np.full(n, -1, dtype=np.int64)
    # level 1: compute node i splits its hose over its level-1 block's devices
    # in the block's common proportion: base_i P(y) <= c(i, y), 0 if not linked
    e0 = ep[x]
    ub_p = np.full(n, np.inf)
    np.minimum.at(ub_p, y[e0], c[e0] / base[x[e0]])
    b1 = blocks[1]
    linked = np.bincount(y[e0], minlength=n)
    members = np.bincount(b1[epi], minlength=h.n_blocks[1])
    lev1 = np.flatnonzero(level == 1)
    ub_p[lev1[linked[lev1] < members[b1[lev1]]]] = 0.0
    p0 = lp.add_vars(ub_p[pnodes])
    p_of[pnodes] = p0 + np.arange(len(pnodes))
    nb1 = h.n_blocks[1]
    r = lp.add_rows(nb1)
    lp.put(r + b1[lev1], p_of[lev1], 1.0)
    lp.put(r + np.arange(nb1), np.zeros(nb1, dtype=np.int64), -1.0)
    used = 0
    detours = 0
    for i in range(1, top):
        sel = level[x] == i
        xi, yi, ci = x[sel], y[sel], c[sel]
        est = 2 * _detour_pairs(h, i, xi, mass_of)
        if used + est <= detour_max_vars:
            _transition_detour(lp, h, i, xi, yi, ci, p_of, mass_of, n)
            used += est
            detours += 1
        else:
            _transition_direct(lp, h, i, xi, yi, ci, p_of, mass_of, n)
    if lp.nv > TREE_LP_MAX_VARS:
        return None
    a_eq = coo_matrix(
        (np.concatenate(lp.vals), (np.concatenate(lp.rows), np.concatenate(lp.cols))),
        shape=(lp.nr, lp.nv),
    ).tocsr()
    a_ub = None
    b_ub = None
    caps = lp.cap
    if caps:
        n_ub = lp.n_cap
        ur = np.concatenate([np.concatenate((rr, rr)) for rr, _, _, _ in caps])
        uc = np.concatenate([np.concatenate((fu, fd)) for _, fu, fd, _ in caps])
        a_ub = coo_matrix((np.ones(len(ur)), (ur, uc)), shape=(n_ub, lp.nv)).tocsr()
        b_ub = np.concatenate([cc for _, _, _, cc in caps])
    bounds = np.zeros((lp.nv, 2))
    bounds[:, 1] = np.concatenate(lp.ub)
    cost = np.zeros(lp.nv)
    cost[0] = -1.0
    theta = _solve(cost, a_eq, a_ub, b_ub, bounds, deadline)
    if theta is None:
        return None
    value = theta * min_side_injection(base[g.endpoint], g.weight[g.endpoint], bal)
    return HoseBound(
        value,
        theta,
        f"hose-routing LP up the fabric's {top} levels (theta = {theta:.4g}; "
        f"detours inside {detours} of {top - 1} upper levels)",
        time.perf_counter() - t0,
    )


__all__ = ["HoseBound", "class_bound", "tree_bound", "tree_fabric"]
