"""Exact bisection by enumerating where the few non-free devices go.

On the reduced model of :mod:`designer.analysis.exact` (twin devices merged,
twin compute nodes grouped into classes) the devices split in two kinds:

* *free* compute classes: compute nodes with no compute neighbour. Once every
  other device has a side, a member on side A pays the capacity it has to
  side-B devices and a member on B the capacity to side-A devices, whatever
  the other compute nodes do (no compute node is its neighbour);
* *placed* devices: switches and every other device, and compute nodes wired
  to compute nodes. Their 2^F sides are all enumerated.

For one placement the cheapest balanced split of the free members is a
knapsack on GPUs: side A must weigh exactly ``light`` GPUs (the lighter side
of a balanced split, :mod:`designer.analysis.balance`; the mirror split costs
the same). With one GPU count among the free members it is the K cheapest
members; with two it is every count of the first kind with the second kind
filling the rest; zero-GPU members join A exactly when that is cheaper. Taking
the minimum over all placements is the minimum bisection: exact, with the
cut that reaches it. It runs when 2^F x (free classes + placed links) fits
:data:`MAX_WORK`; larger or more varied models are left to the integer program.
When the halves weigh the same, a split and its mirror cost the same, so the
first placed device is kept on side A (half the placements).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from designer.analysis.balance import Balance
from designer.analysis.exact import Reduced, lift, reduce
from designer.analysis.graph import ComputeGraph
from designer.analysis.index import BoolArray, FloatArray, IntArray

MAX_WORK = 6_000_000
"""Placements x (free classes + placed links) the enumeration may touch
(about 0.1 s of numpy)."""
MAX_PLACED = 22
CHUNK = 1 << 14
"""Placements evaluated per numpy batch (bounds the memory)."""


@dataclass
class PlacementResult:
    """The minimum bisection and a cut reaching it."""

    value: float
    side: BoolArray
    placements: int
    seconds: float
    size: str


def _kinds(r: Reduced) -> tuple[IntArray, IntArray]:
    """Model nodes that are placed by enumeration, and the free compute classes."""
    ep = r.endpoint
    nbr_ep = np.zeros(r.n, dtype=np.bool_)
    nbr_ep[r.u[ep[r.v]]] = True
    nbr_ep[r.v[ep[r.u]]] = True
    free = ep & ~nbr_ep
    return np.flatnonzero(~free), np.flatnonzero(free)


def feasible(r: Reduced) -> bool:
    """Whether the enumeration fits its limits on this reduced model."""
    placed, free = _kinds(r)
    f = len(placed)
    if f > MAX_PLACED:
        return False
    weights = np.unique(r.weight[free][r.weight[free] > 0])
    if len(weights) > 2:
        return False
    return (1 << f) * (len(free) + len(r.u) + 1) <= MAX_WORK


def _best_members(
    d: FloatArray, mult: IntArray, w: IntArray, need: IntArray
) -> tuple[FloatArray, IntArray]:
    """Per row: least sum of k_j d_j with sum k_j w_j = need, 0 <= k_j <= mult_j,
    and the counts k (rows x classes); inf where no counts reach ``need``.

    At most two positive weights; zero-weight classes take all their members
    when d < 0 and none otherwise.
    """
    rows, n_cls = d.shape
    counts = np.zeros((rows, n_cls), dtype=np.int64)
    total = np.zeros(rows)
    zero = w == 0
    if zero.any():
        neg = (d[:, zero] < 0) * mult[zero]
        counts[:, zero] = neg
        total += (neg * d[:, zero]).sum(axis=1)
    kinds = [int(x) for x in np.unique(w[~zero]).tolist()]
    if not kinds:
        return np.where(need == 0, total, np.inf), counts
    # within one GPU count the cheapest members come first: per row, that
    # kind's classes in order of d, with cumulative member counts
    sorted_: list[tuple[IntArray, IntArray, FloatArray, IntArray, IntArray]] = []
    for x in kinds:
        cols = np.flatnonzero(w == x)
        order = np.argsort(d[:, cols], axis=1, kind="stable")
        ds = np.take_along_axis(d[:, cols], order, axis=1)
        ms = mult[cols][order]
        sorted_.append((cols, order, ds, ms, np.cumsum(ms, axis=1)))

    def take(i: int, k: IntArray) -> tuple[FloatArray, IntArray]:
        """Cost of the k cheapest members of kind i per row, and how many of
        each class (in the row's sorted order)."""
        _, _, ds, ms, cum = sorted_[i]
        got = np.clip(k[:, None] - (cum - ms), 0, ms)
        return (got * ds).sum(axis=1), got

    def scatter(i: int, got: IntArray, ok: BoolArray) -> None:
        """Counts of kind i back in class order, for the rows that are ok."""
        cols, order, _, _, _ = sorted_[i]
        block = np.zeros(got.shape, dtype=np.int64)
        np.put_along_axis(block, order, np.where(ok[:, None], got, 0), axis=1)
        counts[:, cols] = block

    if len(kinds) == 1:
        k, rem = np.divmod(need, kinds[0])
        ok = (rem == 0) & (k >= 0) & (k <= sorted_[0][4][:, -1])
        cost, got = take(0, np.where(ok, k, 0))
        scatter(0, got, ok)
        return np.where(ok, total + cost, np.inf), counts
    x1, x2 = kinds
    m1 = int(sorted_[0][4][0, -1])
    m2 = int(sorted_[1][4][0, -1])
    best = np.full(rows, np.inf)
    best_k1 = np.zeros(rows, dtype=np.int64)
    for k1 in range(m1 + 1):
        rest = need - k1 * x1
        k2, rem = np.divmod(rest, x2)
        ok = (rest >= 0) & (rem == 0) & (k2 <= m2)
        if not ok.any():
            continue
        c1, _ = take(0, np.full(rows, k1))
        c2, _ = take(1, np.where(ok, k2, 0))
        cost = np.where(ok, c1 + c2, np.inf)
        better = cost < best
        best[better] = cost[better]
        best_k1[better] = k1
    ok = np.isfinite(best)
    _, got1 = take(0, best_k1)
    _, got2 = take(1, np.where(ok, (need - best_k1 * x1) // x2, 0))
    scatter(0, got1, ok)
    scatter(1, got2, ok)
    return np.where(ok, total + best, np.inf), counts


def solve(
    g: ComputeGraph, bal: Balance, *, reduced: Reduced | None = None
) -> PlacementResult | None:
    """Minimum bisection by enumeration (module doc), or None when too big."""
    t0 = time.perf_counter()
    r = reduced if reduced is not None else reduce(g)
    if r.n == 0 or not feasible(r):
        return None
    placed, free = _kinds(r)
    f = len(placed)
    pos = np.full(r.n, -1, dtype=np.int64)
    pos[placed] = np.arange(f)
    fpos = np.full(r.n, -1, dtype=np.int64)
    fpos[free] = np.arange(len(free))
    cap = r.c.astype(np.float64)
    both = (pos[r.u] >= 0) & (pos[r.v] >= 0)
    pu, pv, pc = pos[r.u[both]], pos[r.v[both]], cap[both]
    # capacity from each free class (per member) to each placed device
    half = ~both
    fu = np.where(fpos[r.u] >= 0, r.u, r.v)[half]
    fx = np.where(fpos[r.u] >= 0, r.v, r.u)[half]
    link = np.zeros((len(free), f))
    np.add.at(link, (fpos[fu], pos[fx]), cap[half])
    tot = link.sum(axis=1)
    mult = r.mult[free]
    w_free = r.weight[free]
    w_placed = np.where(r.endpoint[placed], r.weight[placed] * r.mult[placed], 0)
    mirror = bal.light == bal.heavy and f > 0
    n_place = 1 << (f - 1 if mirror else f)
    best_v = np.inf
    best_bits: IntArray | None = None
    best_counts: IntArray | None = None
    bit = np.arange(f, dtype=np.int64)
    for start in range(0, n_place, CHUNK):
        idx = np.arange(start, min(start + CHUNK, n_place), dtype=np.int64)
        if mirror:  # the first placed device on side A
            idx = (idx << 1) | 1
        bits = ((idx[:, None] >> bit[None, :]) & 1).astype(np.float64)
        base = (np.abs(bits[:, pu] - bits[:, pv]) * pc).sum(axis=1)
        to_a = bits @ link.T  # per member of each free class
        # a member on B pays its capacity to A, on A its capacity to B
        cost_b = to_a
        d = (tot[None, :] - to_a) - cost_b
        need = bal.light - (bits @ w_placed).astype(np.int64)
        extra, counts = _best_members(d, mult, w_free, need)
        value = base + (cost_b * mult[None, :]).sum(axis=1) + extra
        i = int(np.argmin(value))
        if value[i] < best_v:
            best_v = float(value[i])
            best_bits = bits[i].astype(np.int64)
            best_counts = counts[i]
    if best_bits is None or best_counts is None or not np.isfinite(best_v):
        return None
    model = np.zeros(r.n, dtype=np.int64)
    model[placed] = best_bits * r.mult[placed]
    model[free] = best_counts
    side = lift(g, r, model)
    value = float(g.c[side[g.u] != side[g.v]].sum())
    if abs(value - best_v) > 1e-6 * max(value, 1.0):
        return None  # the lifted cut must be the one counted; never claim otherwise
    size = f"{f} devices placed, {len(free)} free compute classes"
    return PlacementResult(value, side, n_place, time.perf_counter() - t0, size)


__all__ = ["MAX_WORK", "PlacementResult", "feasible", "solve"]
