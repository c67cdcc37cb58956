"""Bisection bandwidth of the compute fabric: an explicit cut (upper bound) and a
sound lower bound, ``exact`` when they meet.

Definition (issue 2 §4): the minimum, over splits of the compute nodes into two
halves of equal GPU count (node counts differing by at most one when all nodes
carry the same GPUs; GPU counts differing by at most one node's GPUs
otherwise), of the capacity of the links crossing, every switch placed on
whichever side makes it smallest. Minimum bisection is NP-hard, so:

* **Upper bound** - candidate splits (halves of the group hierarchy - pods, SUs
  -, of the fabric's own block hierarchy, of the device order), each solved
  exactly for the switch placement by max-flow with a super-source and sink
  (scipy Dinic, integer Gb/s), on an equitable quotient when colour refinement
  finds one (performance.md §1.4-1.5). The best cut is returned with its sides.
* **Lower bound** - one of, in order:

  1. exhaustive search over every balanced split (up to 16 compute nodes),
     which makes the value exact;
  2. a hose-routing certificate for tree-like (Clos / fat-tree / rail-optimized)
     fabrics (performance.md §1.4c), with its premises checked in code: BFS
     levels from the compute nodes; each level's blocks (components through
     up-links) nest; every node below the first level that joins all compute
     nodes has up-links; and *uniform reach*: the capacity-proportional
     up-walk from any compute node of a block reaches every node of the next
     level of its block with the same probability. Then every traffic matrix
     in which each node sends and receives at most theta x its injection is
     routable (up along its own walk, down along the reversed walk of the
     receiver), with theta = min(1, min over nodes x of up(x) / M(x)), M the
     injection mass the walks carry through x. Routing a matching from the
     smaller half gives ``cut >= theta x min-side injection`` for EVERY split;
  3. otherwise the k-th smallest max-flow from one compute node to each other
     (every balanced cut separates it from at least k = half the nodes), for
     designs of up to 256 compute nodes (and 2M node x link pairs), else 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from designer.analysis.flow import quotient_cut, refine, st_cut
from designer.analysis.graph import (
    ComputeGraph,
    bfs_levels,
    components,
    rank_within,
)
from designer.analysis.index import BoolArray, FloatArray, IntArray

EXHAUSTIVE_MAX_NODES = 16
PAIR_BOUND_MAX_NODES = 256
PAIR_BOUND_MAX_WORK = 2_000_000  # compute nodes x links: about 0.3 s of max-flows
MAX_QUOTIENT_CLASSES = 4096
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


@dataclass
class BisectionResult:
    """Bounds, the best cut and how they were found."""

    upper: float
    lower: float
    full: float
    exact: bool
    method: str
    side: BoolArray | None = None
    crossing: BoolArray | None = None
    candidates: list[tuple[str, float]] = field(default_factory=list)


# -- balance ---------------------------------------------------------------------


def _balance(w: IntArray) -> tuple[int, bool]:
    """Allowed |W(A) - W(B)| and whether all nodes weigh the same."""
    homogeneous = bool(len(w) == 0 or (w == w[0]).all())
    if homogeneous:
        return (int(w[0]) if len(w) % 2 else 0) if len(w) else 0, True
    return int(w.max()), False


def min_side_injection(inj: FloatArray, w: IntArray) -> float:
    """Lower bound on min over balanced splits of the smaller side's injection."""
    n = len(inj)
    if n < 2:
        return 0.0
    delta, homogeneous = _balance(w)
    if homogeneous:
        return float(np.sort(inj)[: n // 2].sum())
    target = (w.sum() - delta) / 2.0
    order = np.argsort(inj / np.maximum(w, 1), kind="stable")
    cum_w = np.cumsum(w[order])
    k = int(np.searchsorted(cum_w, target))
    before = float(inj[order[:k]].sum())
    rest = target - (cum_w[k - 1] if k else 0)
    j = order[min(k, n - 1)]
    return before + float(inj[j]) * float(rest) / max(int(w[j]), 1)


def _min_side_count(w: IntArray) -> int:
    """Fewest compute nodes a side of a balanced split can have."""
    delta, homogeneous = _balance(w)
    if homogeneous:
        return len(w) // 2
    target = (w.sum() - delta) / 2.0
    cum = np.cumsum(np.sort(w)[::-1])
    return int(np.searchsorted(cum, target)) + 1


def _prefix_split(order: IntArray, w_of: IntArray, total: int, delta: int) -> IntArray:
    """The shortest prefix of ``order`` that makes a balanced half."""
    cum = np.cumsum(w_of[order])
    ok = np.flatnonzero(np.abs(2 * cum - total) <= delta)
    k = int(ok[0]) + 1 if len(ok) else len(order) // 2
    return order[:k]


# -- hierarchy and certificate ------------------------------------------------------


def hierarchy(g: ComputeGraph) -> Hierarchy:
    """Levels from the compute nodes and the blocks of each level."""
    routing = g.endpoint | g.switch
    keep = routing[g.u] & routing[g.v]
    u, v, c = g.u[keep], g.v[keep], g.c[keep]
    level = bfs_levels(g.n, g.endpoint, u, v)
    level[~routing] = -1
    lu, lv = level[u], level[v]
    up = lv == lu + 1
    down = lu == lv + 1
    up_x = np.concatenate((u[up], v[down]))
    up_y = np.concatenate((v[up], u[down]))
    up_c = np.concatenate((c[up], c[down]))
    h = Hierarchy(level=level, up_x=up_x, up_y=up_y, up_c=up_c)
    n_ep = int(g.endpoint.sum())
    block = np.full(g.n, -1, dtype=np.int64)
    block[g.endpoint] = np.arange(n_ep)
    h.blocks.append(block)
    h.n_blocks.append(n_ep)
    if n_ep == 1:
        h.top = 0
        return h
    lx = level[up_x]
    i = 0
    while True:
        sel = lx == i
        if not sel.any():
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
    lx = h.level[h.up_x]
    for i in range(h.top):
        sel = lx == i
        x, y, c = h.up_x[sel], h.up_y[sel], h.up_c[sel].astype(np.float64)
        at_level = np.flatnonzero(h.level == i)
        up = np.bincount(x, weights=c, minlength=n)
        if (up[at_level] <= 0).any():
            bad = at_level[up[at_level] <= 0]
            return None, f"{len(bad)} device(s) at level {i} have no up-links"
        theta = min(theta, float((up[at_level] / mass[at_level]).min()))
        share = c / up[x]
        w = p[x] * share
        lower, upper = h.blocks[i], h.blocks[i + 1]
        nb_low, nb_up = h.n_blocks[i], h.n_blocks[i + 1]
        parent = np.full(nb_low, -1, dtype=np.int64)
        parent[lower[x]] = upper[x]
        if (parent < 0).any():
            return None, f"a level-{i} block has no up-links"
        rb, nb = rank_within(parent, nb_up)
        ys = np.flatnonzero(h.level == i + 1)
        ry_nodes, ny = rank_within(upper[ys], nb_up)
        ry = np.full(n, -1, dtype=np.int64)
        ry[ys] = ry_nodes
        sizes = nb * ny
        total = int(sizes.sum())
        if total > len(x):
            return None, f"uneven reach from level {i} to level {i + 1}"
        off = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        pair = off[upper[y]] + rb[lower[x]] * ny[upper[y]] + ry[y]
        q = np.bincount(pair, weights=w, minlength=total)
        owner = np.repeat(np.arange(nb_up), sizes)
        ref = q[off[owner] + (np.arange(total) - off[owner]) % np.maximum(ny[owner], 1)]
        if (q <= 0).any() or not np.allclose(q, ref, rtol=_REL, atol=0.0):
            return None, f"uneven reach from level {i} to level {i + 1}"
        p[ys] = q[off[upper[ys]] + ry[ys]]
        mass += np.bincount(y, weights=mass[x] * share, minlength=n)
    return theta, ""


def levelled_bound(g: ComputeGraph, h: Hierarchy) -> tuple[float, str] | None:
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
    if (lo == hi)[np.unique(cls[is_up])].all():
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
        value = theta * min_side_injection(inj[ep], w) - excess
        if best is None or value > best[0]:
            best = (
                value,
                f"hose certificate on the fabric with capacities {name} to a "
                f"uniform value per level (theta = {theta:.4g}"
                + (f", minus {excess:,.0f} Gb/s added" if excess else "")
                + ")",
            )
    return best


# -- upper bound: candidate splits -----------------------------------------------


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
    g: ComputeGraph, in_a: BoolArray, h: Hierarchy | None
) -> tuple[float, BoolArray, bool]:
    """Cheapest cut with ``in_a`` compute nodes on side A: (value, side, quotient)."""
    src = np.where(in_a & g.endpoint, np.rint(g.injection), 0).astype(np.int64)
    snk = np.where(~in_a & g.endpoint, np.rint(g.injection), 0).astype(np.int64)
    seed = _status_seed(g, h, in_a)
    classes = refine(g.n, g.u, g.v, g.c, seed, max_classes=MAX_QUOTIENT_CLASSES)
    if classes is not None:
        side = quotient_cut(g.n, g.u, g.v, g.c, classes, src, snk)
    else:
        _, side = st_cut(g.n, g.u, g.v, g.c, src, snk)
    side = side.copy()
    side[g.endpoint] = in_a[g.endpoint]
    value = float(g.c[side[g.u] != side[g.v]].sum())
    return value, side, classes is not None


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


# -- exhaustive ------------------------------------------------------------------------


def exhaustive(g: ComputeGraph) -> tuple[float, BoolArray] | None:
    """Exact minimum over every balanced split (small designs), or None."""
    ep = g.endpoints
    ne = len(ep)
    if ne < 2 or ne > EXHAUSTIVE_MAX_NODES:
        return None
    w = g.weight[ep]
    delta, _ = _balance(w)
    total = int(w.sum())
    bits = (np.arange(1 << (ne - 1))[:, None] >> np.arange(ne - 1)[None, :]) & 1
    xs = np.concatenate((np.ones((len(bits), 1), dtype=np.int64), bits), axis=1)
    wa = xs @ w
    xs = xs[np.abs(2 * wa - total) <= delta]
    deg = np.bincount(g.u, minlength=g.n) + np.bincount(g.v, minlength=g.n)
    others = np.flatnonzero(~g.endpoint & (deg > 0))
    s = len(others)
    if len(xs) * (1 << s) > 20_000_000:
        if len(xs) > 800:
            return None
        best_v, best_side = np.inf, np.zeros(g.n, dtype=np.bool_)
        for row in xs:
            in_a = np.zeros(g.n, dtype=np.bool_)
            in_a[ep[row.astype(bool)]] = True
            value, side, _ = split_cut(g, in_a, None)
            if value < best_v:
                best_v, best_side = value, side
        return float(best_v), best_side
    nodes = np.concatenate((ep, others))
    pos = np.full(g.n, -1, dtype=np.int64)
    pos[nodes] = np.arange(len(nodes))
    keep = (pos[g.u] >= 0) & (pos[g.v] >= 0)
    size = len(nodes)
    wm = np.zeros((size, size))
    np.add.at(wm, (pos[g.u[keep]], pos[g.v[keep]]), g.c[keep])
    wm = wm + wm.T
    d = wm.sum(axis=1)
    x = xs.astype(np.float64)
    wxx, wxy, wyy = wm[:ne, :ne], wm[:ne, ne:], wm[ne:, ne:]
    f = x @ d[:ne] - np.einsum("ij,jk,ik->i", x, wxx, x)
    y = ((np.arange(1 << s)[:, None] >> np.arange(s)[None, :]) & 1).astype(np.float64)
    gy = y @ d[ne:] - np.einsum("ij,jk,ik->i", y, wyy, y)
    hx = x @ wxy
    best = np.empty(len(x))
    arg = np.empty(len(x), dtype=np.int64)
    chunk = max(1, 2_000_000 // max(len(y), 1))
    for start in range(0, len(x), chunk):
        cut = f[start : start + chunk, None] + gy[None, :]
        cut -= 2.0 * hx[start : start + chunk] @ y.T
        arg[start : start + chunk] = cut.argmin(axis=1)
        best[start : start + chunk] = cut[
            np.arange(len(cut)), arg[start : start + chunk]
        ]
    i = int(best.argmin())
    side = np.zeros(g.n, dtype=np.bool_)
    side[ep] = xs[i].astype(bool)
    side[others] = y[arg[i]].astype(bool)
    return float(round(best[i])), side


def pair_bound(g: ComputeGraph) -> float | None:
    """k-th smallest max-flow from the first compute node to each other one."""
    ep = g.endpoints
    if len(ep) < 2 or len(ep) > PAIR_BOUND_MAX_NODES:
        return None
    if len(ep) * len(g.u) > PAIR_BOUND_MAX_WORK:
        return None
    k = _min_side_count(g.weight[ep])
    flows = []
    for t in ep[1:]:
        src = np.zeros(g.n, dtype=np.int64)
        snk = np.zeros(g.n, dtype=np.int64)
        src[ep[0]] = round(float(g.injection[ep[0]])) or 1
        snk[t] = round(float(g.injection[t])) or 1
        value, _ = st_cut(g.n, g.u, g.v, g.c, src, snk)
        flows.append(value)
    flows.sort()
    return float(flows[max(k, 1) - 1])


_CARRIED = (
    "carried across edits: the last certified lower bound minus the compute "
    "capacity removed since (adding capacity never lowers it)"
)


# -- driver ------------------------------------------------------------------------


def bisect(
    g: ComputeGraph,
    h: Hierarchy,
    nominal: FloatArray,
    dev_orders: dict[str, IntArray],
    known_lower: float | None = None,
) -> BisectionResult:
    """Bounds and best cut of the compute fabric (see module doc).

    ``known_lower`` is a lower bound the caller has proven for this very graph
    (:mod:`designer.analysis.incremental` carries one across edits); it is
    trusted as is, and spares the pair max-flows when it meets the upper bound.
    """
    ep = g.endpoints
    w = g.weight[ep]
    full = min_side_injection(nominal, w)

    def smaller_half(side: BoolArray) -> float:
        """Nominal injection of the smaller half of a split (the ratio's base)."""
        in_a = side[ep]
        if homogeneous:
            return full
        return float(min(nominal[in_a].sum(), nominal[~in_a].sum()))

    _, homogeneous = _balance(w)
    if len(ep) < 2:
        return BisectionResult(
            0.0, 0.0, 0.0, True, "fewer than two compute nodes: no bisection"
        )
    small = exhaustive(g)
    if small is not None:
        value, side = small
        g.place_pruned(side)
        return BisectionResult(
            value,
            value,
            smaller_half(side),
            True,
            f"exact: every balanced split of the {len(ep)} compute nodes, "
            "switches placed optimally for each",
            side,
            side[g.u] != side[g.v],
        )
    delta, _ = _balance(w)
    total = int(w.sum())
    w_local = np.zeros(g.n, dtype=np.int64)
    w_local[ep] = w
    best: tuple[float, BoolArray] | None = None
    tried: list[tuple[str, float]] = []
    seen: set[bytes] = set()
    used_quotient = True
    for name, order in _candidate_orders(g, h, dev_orders):
        half = _prefix_split(order, w_local, total, delta)
        in_a = np.zeros(g.n, dtype=np.bool_)
        in_a[half] = True
        key = np.packbits(in_a[ep]).tobytes()
        if key in seen or np.packbits(~in_a[ep]).tobytes() in seen:
            continue
        seen.add(key)
        value, side, quotient = split_cut(g, in_a, h)
        used_quotient &= quotient
        tried.append((name, value))
        if best is None or value < best[0]:
            best = (value, side)
    assert best is not None
    upper, side = best
    g.place_pruned(side)
    how = "; ".join(f"{n}: {v:,.0f}" for n, v in tried)
    solver = "max-flow on an equitable quotient" if used_quotient else "max-flow"

    def short(value: float) -> bool:
        return value < upper * (1 - _REL)

    theta: float | None = None
    why = "not checked"
    lower = 0.0
    basis = ""
    if known_lower is not None and not short(known_lower):
        lower, basis = known_lower, _CARRIED  # already meets the cut: no more proof
    else:
        theta, why = certificate(g, h)
        basis = f"no lower bound for this size ({why})"
        if theta is not None:
            lower = theta * min_side_injection(g.injection[ep], w)
            basis = (
                f"hose-routing certificate (theta = {theta:.4g}, uniform Clos checked)"
            )
    if short(lower) and known_lower is not None and known_lower > lower:
        lower, basis = known_lower, _CARRIED
    if short(lower):
        lb = levelled_bound(g, h)
        if lb is not None and lb[0] > lower:
            lower, basis = lb
    if short(lower) and theta is None:
        pb = pair_bound(g)
        if pb is not None and pb >= lower:
            lower, basis = pb, f"pair max-flow bound ({why})"
    lower = min(lower, upper)
    exact = upper - lower <= _REL * max(upper, 1.0)
    if exact:
        lower = upper
    method = (
        f"upper bound: best of candidate splits by {solver} ({how}); "
        f"lower bound: {basis}" + ("; bounds meet: exact" if exact else "")
    )
    return BisectionResult(
        upper,
        lower,
        smaller_half(side),
        exact,
        method,
        side,
        side[g.u] != side[g.v],
        tried,
    )


__all__ = [
    "BisectionResult",
    "bisect",
    "certificate",
    "exhaustive",
    "hierarchy",
    "min_side_injection",
]
