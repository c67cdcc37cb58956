"""Exact bisection by an integer program over the cut (HiGHS through scipy).

Model: every node of the compute fabric is on side A (1) or B (0); a link
crosses when its ends differ; minimise the crossing capacity subject to the
compute nodes on A weighing exactly ``light`` GPUs (the lighter side of a
balanced split, see :mod:`designer.analysis.balance`). Switches and other
devices are free. Two symmetry reductions keep it small, both exact:

* **twin devices** (not compute nodes) with identical neighbours and
  capacities are merged into one node carrying their summed links: with the
  rest of the cut fixed each twin pays the same function of its side, so an
  optimal cut with all twins on one side exists. Merging repeats until no
  twins remain (merged spines make leaves twins, and so on);
* **twin compute nodes** (identical neighbours and capacities, same GPUs, no
  compute neighbour) become one integer count ``k`` of members on side A; a
  link of capacity c from each of the m members to a binary node x then
  crosses ``|k - m x|`` times, written as two linear inequalities.

If the solve stops at its time limit the incumbent is still a real cut (its
crossing capacity, recomputed on the full graph, is an upper bound) and the
solver's dual bound is a sound lower bound: every integer solution costs at
least it. Capacities are divided by their common divisor, so every cut value
is an integer and the dual bound may be rounded up.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from math import gcd

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix

from designer.analysis.balance import Balance
from designer.analysis.graph import ComputeGraph
from designer.analysis.index import BoolArray, IntArray

MAX_NODES = 600
"""Largest reduced model (integer variables) handed to the solver."""
MAX_EDGES = 6000


@dataclass
class Reduced:
    """The fabric after twin merging: groups of original nodes per model node."""

    group: IntArray  # model node of each local node
    mult: IntArray  # members per model node (>1 only for compute twin classes)
    weight: IntArray  # GPUs of ONE member (0 for non-compute)
    endpoint: BoolArray
    u: IntArray
    v: IntArray
    c: IntArray  # capacity per member link

    @property
    def n(self) -> int:
        """Model nodes."""
        return len(self.mult)


@dataclass
class ExactResult:
    """The solver's incumbent cut and its proven lower bound."""

    upper: float
    lower: float
    side: BoolArray | None
    optimal: bool
    seconds: float
    size: str


def _aggregate(n: int, u: IntArray, v: IntArray, c: IntArray) -> tuple[IntArray, ...]:
    """Parallel links summed, self-loops dropped; returns (lo, hi, cap)."""
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    keep = lo != hi
    key = lo[keep] * n + hi[keep]
    uk, inv = np.unique(key, return_inverse=True)
    cap = np.bincount(inv, weights=c[keep]).astype(np.int64)
    a, b = np.divmod(uk, n)
    return a, b, cap


def _twin_classes(
    n: int, u: IntArray, v: IntArray, c: IntArray, cand: BoolArray
) -> IntArray:
    """Class id per node: candidates with identical (neighbour, capacity) lists
    share one; every other node is alone. Hash first, then compared exactly."""
    x = np.concatenate((u, v))
    y = np.concatenate((v, u))
    cc = np.concatenate((c, c))
    order = np.lexsort((cc, y, x))
    x, y, cc = x[order], y[order], cc[order]
    rng = np.random.default_rng(20260603)  # fixed: the same model every call
    r1 = rng.integers(1, 2**61, size=n)
    r2 = rng.integers(1, 2**61, size=n)
    h1 = np.zeros(n, dtype=np.int64)
    h2 = np.zeros(n, dtype=np.int64)
    np.add.at(h1, x, r1[y] * (cc % 1_000_003 + 1))
    np.add.at(h2, x, r2[y] ^ cc)
    deg = np.bincount(x, minlength=n)
    key = np.where(cand, 0, np.arange(n) + 1)
    _, cls = np.unique(np.stack((key, h1, h2, deg)), axis=1, return_inverse=True)
    cls = cls.ravel().astype(np.int64)
    # exact check: each member's sorted list equals its class representative's
    start = np.concatenate(([0], np.cumsum(deg)[:-1]))
    rep = np.full(int(cls.max()) + 1, -1, dtype=np.int64)
    rep[cls[::-1]] = np.arange(n)[::-1]
    r = rep[cls]
    test = np.flatnonzero((r != np.arange(n)) & (deg > 0))
    if len(test):
        lens = deg[test]
        off = np.repeat(start[test], lens) + (
            np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens, lens)
        )
        roff = np.repeat(start[r[test]], lens) + (
            np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens, lens)
        )
        bad_pos = (y[off] != y[roff]) | (cc[off] != cc[roff])
        bad = np.zeros(n, dtype=np.bool_)
        bad[np.repeat(test, lens)[bad_pos]] = True
        if bad.any():  # a hash collision: those nodes stay alone
            cls = np.where(bad, int(cls.max()) + 1 + np.arange(n), cls)
            _, cls = np.unique(cls, return_inverse=True)
    return cls.astype(np.int64)


def reduce(g: ComputeGraph, max_rounds: int = 8) -> Reduced:
    """Merge twin devices until none are left, then group twin compute nodes."""
    n = g.n
    group = np.arange(n, dtype=np.int64)
    a, b, cap = _aggregate(n, g.u, g.v, g.c)
    endpoint = g.endpoint.copy()
    k = n
    for _ in range(max_rounds):
        cls = _twin_classes(k, a, b, cap, ~endpoint)
        k_new = int(cls.max()) + 1 if k else 0
        if k_new == k:
            break
        first = np.full(k_new, -1, dtype=np.int64)
        first[cls[::-1]] = np.arange(k)[::-1]
        endpoint = endpoint[first]
        group = cls[group]
        a, b, cap = _aggregate(k_new, cls[a], cls[b], cap)
        k = k_new
    # compute twins: identical lists, same GPUs, no compute neighbour
    w_model = np.zeros(k, dtype=np.int64)
    w_model[group[g.endpoint]] = g.weight[g.endpoint]
    ep_nbr = np.zeros(k, dtype=np.bool_)
    ep_nbr[a[endpoint[b]]] = True
    ep_nbr[b[endpoint[a]]] = True
    cand = endpoint & ~ep_nbr
    cls = _twin_classes(k, a, b, cap, cand)
    # the weight must match too: refine the class key by it
    _, cls = np.unique(
        np.stack((cls, np.where(cand, w_model, -1))), axis=1, return_inverse=True
    )
    cls = cls.ravel().astype(np.int64)
    k2 = int(cls.max()) + 1 if k else 0
    mult = np.bincount(cls, minlength=k2)
    first = np.full(k2, -1, dtype=np.int64)
    first[cls[::-1]] = np.arange(k)[::-1]
    # twins are never adjacent and share their lists: keep the first member's
    keep = (first[cls[a]] == a) & (first[cls[b]] == b)
    return Reduced(
        group=cls[group],
        mult=mult,
        weight=w_model[first],
        endpoint=endpoint[first],
        u=cls[a[keep]],
        v=cls[b[keep]],
        c=cap[keep],
    )


def lift(g: ComputeGraph, r: Reduced, counts: IntArray) -> BoolArray:
    """A side per local node from model counts (first members of a class on A)."""
    side = counts[r.group] > 0  # merged devices follow their model node
    ep = np.flatnonzero(g.endpoint)
    grp = r.group[ep]
    order = np.argsort(grp, kind="stable")
    sorted_grp = grp[order]
    starts = np.searchsorted(sorted_grp, sorted_grp)
    rank = np.empty(len(ep), dtype=np.int64)
    rank[order] = np.arange(len(ep)) - starts
    side[ep] = rank < counts[grp]
    return side


def solve(
    g: ComputeGraph, bal: Balance, *, time_limit: float, reduced: Reduced | None = None
) -> ExactResult | None:
    """Minimum bisection by MILP (module doc); None when the model is too big."""
    t0 = time.perf_counter()
    r = reduced if reduced is not None else reduce(g)
    nv, ne = r.n, len(r.u)
    if nv > MAX_NODES or ne > MAX_EDGES or nv == 0:
        return None
    scale = 0
    for x in np.unique(r.c).tolist():
        scale = gcd(scale, int(x))
    scale = max(scale, 1)
    cap = r.c // scale
    # variables: n_r (0..mult) per model node, then y_e >= 0 per link
    m_v = r.mult[r.v]
    # a link joins two model nodes of which at most one has mult > 1: with
    # mult(u) = m, mult(v) = 1, y >= |n_u - m n_v| (members of u across from v)
    swap = m_v > 1
    p = np.where(swap, r.v, r.u)  # the side that may have mult > 1
    q = np.where(swap, r.u, r.v)
    mp = r.mult[p]
    if (r.mult[q] > 1).any():
        raise AssertionError("a link between two compute twin classes")
    e = np.arange(ne)
    y = nv + e
    rows = np.concatenate((e, e, e, ne + e, ne + e, ne + e))
    cols = np.concatenate((y, p, q, y, p, q))
    vals = np.concatenate(
        (np.ones(ne), -np.ones(ne), mp, np.ones(ne), np.ones(ne), -mp)
    ).astype(np.float64)
    ep = np.flatnonzero(r.endpoint)
    bal_row = 2 * ne
    rows = np.concatenate((rows, np.full(len(ep), bal_row)))
    cols = np.concatenate((cols, ep))
    vals = np.concatenate((vals, r.weight[ep].astype(np.float64)))
    lo_b = np.concatenate((np.zeros(2 * ne), [bal.light]))
    hi_b = np.concatenate((np.full(2 * ne, np.inf), [bal.light]))
    a_mat = coo_matrix((vals, (rows, cols)), shape=(2 * ne + 1, nv + ne)).tocsr()
    lb = np.zeros(nv + ne)
    ub = np.concatenate((r.mult.astype(np.float64), np.full(ne, np.inf)))
    if bal.light == bal.heavy and len(ep):
        # a split and its mirror cost the same: keep the one with the first
        # compute class at least half on side A
        j = ep[0]
        lb[j] = float(-(-int(r.mult[j]) // 2))
    cost = np.concatenate((np.zeros(nv), cap.astype(np.float64)))
    integrality = np.concatenate((np.ones(nv), np.zeros(ne)))
    res = milp(
        cost,
        integrality=integrality,
        bounds=Bounds(lb, ub),
        constraints=LinearConstraint(a_mat, lo_b, hi_b),
        options={"time_limit": max(time_limit, 0.01), "mip_rel_gap": 0.0},
    )
    seconds = time.perf_counter() - t0
    size = (
        f"{nv} integer variables ({int((r.mult > 1).sum())} twin classes), {ne} links"
    )
    dual = getattr(res, "mip_dual_bound", None)
    lower = 0.0
    if dual is not None and np.isfinite(dual):
        lower = float(max(0, int(np.ceil(dual - 1e-6)))) * scale
    if res.x is None:
        return ExactResult(np.inf, lower, None, False, seconds, size)
    counts = np.rint(res.x[:nv]).astype(np.int64)
    side = lift(g, r, counts)
    upper = float(g.c[side[g.u] != side[g.v]].sum())
    if res.status == 0:  # proven optimal (gap 0): the incumbent is the minimum
        lower = max(lower, float(round(res.fun)) * scale)
    lower = min(lower, upper)
    return ExactResult(upper, lower, side, lower >= upper, seconds, size)


__all__ = ["ExactResult", "Reduced", "lift", "reduce", "solve"]
