"""Which splits of the compute nodes count as bisection halves.

Definition: a split (A, B) of the compute nodes, both sides non-empty, is
*balanced* when |GPUs(A) - GPUs(B)| is the smallest value any split achieves
(``delta``). With equal GPUs per node that means node counts differing by at
most one; with mixed nodes (8-GPU servers next to 72-GPU racks) it is a
subset-sum over the GPU counts. Every candidate split, the exact solvers and
every lower bound use this one definition, so the light side of a balanced
split always weighs ``light = (W - delta) / 2`` GPUs and the heavy side
``heavy = (W + delta) / 2``.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd

import numpy as np

from designer.analysis.index import BoolArray, FloatArray, IntArray

DP_MAX_WORK = 20_000_000
"""Cells of the exact knapsack table ``choose`` may fill (about 0.1 s)."""


@dataclass(frozen=True)
class Balance:
    """The balance every bisection split must meet (GPU weights, see module doc)."""

    total: int
    delta: int
    homogeneous: bool

    @property
    def light(self) -> int:
        """GPUs on the lighter side of every balanced split."""
        return (self.total - self.delta) // 2

    @property
    def heavy(self) -> int:
        """GPUs on the heavier side of every balanced split."""
        return (self.total + self.delta) // 2

    def ok(self, weight_a: int) -> bool:
        """Whether a side of ``weight_a`` GPUs makes a balanced split."""
        return weight_a in (self.light, self.heavy)


def _sums(weights: IntArray) -> int:
    """Every subset sum of ``weights`` as the set bits of a Python int."""
    vals, counts = np.unique(weights, return_counts=True)
    reach = 1
    for w, k in zip(vals.tolist(), counts.tolist(), strict=True):
        # binary splitting: k copies of w as items w, 2w, 4w, ... (bounded knapsack)
        step = 1
        while k > 0:
            take = min(step, k)
            reach |= reach << (w * take)
            k -= take
            step *= 2
    return reach


def balance(w: IntArray) -> Balance:
    """Smallest achievable |GPUs(A) - GPUs(B)| over splits of nodes weighing ``w``."""
    n = len(w)
    total = int(w.sum()) if n else 0
    if n < 2:
        return Balance(total, total, True)
    homogeneous = bool((w == w[0]).all())
    if homogeneous:
        return Balance(total, int(w[0]) if n % 2 else 0, True)
    pos = w[w > 0]
    g = 0
    for x in np.unique(pos).tolist():
        g = gcd(g, int(x))
    reach = _sums(pos // g)
    half = total // g // 2
    # the achievable sum closest to half from below; proper subsets only matter
    # when everything is in one node (then delta = total, A = the zero-GPU nodes)
    low = reach & ((1 << (half + 1)) - 1)
    best = low.bit_length() - 1
    if best == 0 and len(pos) == n:
        best = int(pos.min()) // g  # n >= 2 positive nodes: one node alone
    return Balance(total, total - 2 * best * g, False)


def min_side_injection(inj: FloatArray, w: IntArray, bal: Balance) -> float:
    """Lower bound on min over balanced splits of the smaller side's injection.

    Each side of a balanced split weighs at least ``bal.light`` GPUs, so its
    injection is at least the fractional-knapsack minimum of injection subject
    to weight >= light (nodes taken in order of injection per GPU, the last one
    in part). With equal weights that is exactly the n // 2 smallest injections.
    """
    n = len(inj)
    if n < 2:
        return 0.0
    if bal.homogeneous:
        return float(np.sort(inj)[: n // 2].sum())
    target = float(bal.light)
    heavy = w > 0
    order = np.argsort(inj[heavy] / w[heavy], kind="stable")
    wi, ii = w[heavy][order], inj[heavy][order]
    cum_w = np.cumsum(wi)
    k = int(np.searchsorted(cum_w, target))
    before = float(ii[:k].sum())
    if k >= len(wi):
        return before
    rest = target - (float(cum_w[k - 1]) if k else 0.0)
    return before + float(ii[k]) * rest / float(wi[k])


def min_side_count(w: IntArray, bal: Balance) -> int:
    """Fewest compute nodes a side of a balanced split can have."""
    if bal.homogeneous:
        return len(w) // 2
    cum = np.cumsum(np.sort(w)[::-1])
    return max(1, int(np.searchsorted(cum, bal.light)) + 1)


def _best_counts(
    prefix: list[FloatArray], weights: list[int], target: int
) -> list[int] | None:
    """Counts k_j (0 <= k_j < len(prefix[j])) with sum k_j w_j = target and the
    least sum of prefix[j][k_j], or None when no counts reach ``target``."""
    d = len(weights)
    if d == 1:
        k, r = divmod(target, weights[0])
        return [k] if r == 0 and k < len(prefix[0]) else None
    if d == 2:
        w1, w2 = weights
        k1 = np.arange(len(prefix[0]))
        rest = target - k1 * w1
        k2, rem = np.divmod(rest, w2)
        ok = (rest >= 0) & (rem == 0) & (k2 < len(prefix[1]))
        if not ok.any():
            return None
        cost = np.where(ok, prefix[0][k1] + prefix[1][np.where(ok, k2, 0)], np.inf)
        i = int(cost.argmin())
        return [i, int(k2[i])]
    size = target + 1
    exact = size * sum(len(p) for p in prefix) <= DP_MAX_WORK
    val = np.full(size, np.inf)
    val[0] = 0.0
    arg: list[IntArray] = []
    for p, w in zip(prefix, weights, strict=True):
        if exact:
            new = np.full(size, np.inf)
            pick = np.zeros(size, dtype=np.int64)
            for k in range(min(len(p), (size - 1) // w + 1)):
                cand = np.full(size, np.inf)
                cand[k * w :] = val[: size - k * w] + p[k]
                better = cand < new
                new[better] = cand[better]
                pick[better] = k
        else:
            # too large to weigh every count: any feasible counts will do
            new, pick = _bounded_reach(val, w, len(p) - 1)
        val = new
        arg.append(pick)
    if not np.isfinite(val[target]):
        return None
    out = [0] * d
    s = target
    for j in range(d - 1, -1, -1):
        out[j] = int(arg[j][s])
        s -= out[j] * weights[j]
    return out


def _bounded_reach(val: FloatArray, w: int, m: int) -> tuple[FloatArray, IntArray]:
    """Reachable sums using up to m more items of weight w, and the count used."""
    size = len(val)
    reach = np.isfinite(val)
    used = np.where(reach, 0, -1).astype(np.int64)
    for s in range(w, size):
        if used[s] < 0 and 0 <= used[s - w] < m:
            used[s] = used[s - w] + 1
    new = np.where(used >= 0, 0.0, np.inf)
    return new, np.maximum(used, 0)


def choose(cost: FloatArray, w: IntArray, bal: Balance) -> BoolArray | None:
    """A side of ``bal.light`` GPUs with the least total ``cost`` (True = in it).

    Within one GPU count the cheapest nodes come first, so the search runs over
    how many nodes of each GPU count to take: one count direct, two enumerated,
    more by a knapsack table (exact while small; past :data:`DP_MAX_WORK`
    cells any feasible counts). None only when no side weighs ``light``.
    """
    vals = np.unique(w)
    prefix: list[FloatArray] = []
    members: list[IntArray] = []
    for x in vals.tolist():
        idx = np.flatnonzero(w == x)
        idx = idx[np.argsort(cost[idx], kind="stable")]
        members.append(idx)
        prefix.append(np.concatenate(([0.0], np.cumsum(cost[idx]))))
    zero = [j for j, x in enumerate(vals.tolist()) if x == 0]
    weights = [int(x) for x in vals.tolist()]
    if zero:
        # zero-GPU nodes never change the balance: take those that lower the cost
        j = zero[0]
        keep = [i for i in range(len(weights)) if i != j]
        counts = _best_counts(
            [prefix[i] for i in keep], [weights[i] for i in keep], bal.light
        )
        if counts is None:
            return None
        side = np.zeros(len(w), dtype=np.bool_)
        for i, k in zip(keep, counts, strict=True):
            side[members[i][:k]] = True
        z = members[j]
        side[z[cost[z] < 0]] = True
        return side
    counts = _best_counts(prefix, weights, bal.light)
    if counts is None:
        return None
    side = np.zeros(len(w), dtype=np.bool_)
    for idx, k in zip(members, counts, strict=True):
        side[idx[:k]] = True
    return side


def pick_parts(weights: IntArray, target: int) -> BoolArray | None:
    """A subset of items of ``weights`` summing to exactly ``target``, or None."""
    if target == 0:
        return np.zeros(len(weights), dtype=np.bool_)
    side = choose(np.zeros(len(weights)), weights, Balance(2 * target, 0, False))
    if side is None or int(weights[side].sum()) != target:
        return None
    return side


__all__ = [
    "Balance",
    "balance",
    "choose",
    "min_side_count",
    "min_side_injection",
    "pick_parts",
]
