"""N-1: the compute-fabric bisection after the worst single switch failure.

Naively that is one bisection per switch. Here every switch first gets two
cheap, sound bounds on B(G - s), the bisection without it:

* lower: B(G - s) >= B(G) - cap(s)/2. Any balanced cut of G - s becomes a cut
  of G when s is put back on the side holding more of its capacity, which adds
  at most half of s's link capacity; so the live lower bound minus cap(s)/2
  holds for G - s.
* upper: the live best cut with s's links taken out is a cut of G - s.

Then, branch and bound: the switch with the smallest lower bound is analysed in
full (its own bisection bounds), until no switch left unanalysed can beat the
worst one found (the minimum is then proven) or the work budget runs out (the
figure is then a bound, and says so). Interchangeable switches share one
analysis only when that is proven: *twins* (same attributes and the same
neighbours with the same capacities) are swapped by an automorphism of the
fabric, so their failures give the same bisection. Colour-refinement classes
(equitable partitions, which do not prove interchangeability) only choose
which switch to analyse next: one per class first, and no more of a class
whose analysed switch the analysis could not prove (its bounds stand).

Also per switch, exactly: the GPUs whose NIC is cabled to it (they lose that
rail) and the GPUs cut off from the main fabric if it fails (articulation
points with the GPU weight of each separated piece, one depth-first search).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

_REL = 1e-9


@dataclass
class FabricGraph:
    """The compute fabric as link arrays over device numbers ``0..n-1``."""

    n: int
    u: IntArray
    v: IntArray
    cap: FloatArray
    cables: IntArray
    compute: BoolArray
    gpus: IntArray
    ports: IntArray
    rank: IntArray
    """Switch tier per device: 1 leaf, 2 spine, 3 core, ...; 0 not a switch."""
    seed: IntArray
    """Attributes an automorphism must keep (catalog entry, declared tier, ...)."""
    live_lower: float
    live_upper: float
    cut: BoolArray
    """Per link: it crosses the live best cut."""


@dataclass
class TierWorst:
    """Worst single failure among some switches."""

    device: int | None
    upper: float
    lower: float
    exact: bool
    switches: int


@dataclass
class FailureResult:
    """Bounds per switch and the worst failures overall and per tier."""

    lower: FloatArray
    upper: FloatArray
    overall: TierWorst
    by_rank: dict[int, TierWorst]
    rail_gpus: IntArray
    cut_off_gpus: IntArray
    evaluated: list[int] = field(default_factory=list)
    twins_proven: int = 0
    budget_hit: bool = False


Evaluate = Callable[[int], tuple[float, float]]
Classes = Callable[[IntArray], IntArray]


def cheap_bounds(g: FabricGraph) -> tuple[FloatArray, FloatArray]:
    """Sound (lower, upper) bounds on B(G - s) for every device s."""
    cap = np.bincount(g.u, weights=g.cap, minlength=g.n) + np.bincount(
        g.v, weights=g.cap, minlength=g.n
    )
    cut = g.cut
    cross = np.bincount(g.u[cut], weights=g.cap[cut], minlength=g.n) + np.bincount(
        g.v[cut], weights=g.cap[cut], minlength=g.n
    )
    lower = np.maximum(g.live_lower - cap / 2.0, 0.0)
    upper = np.maximum(g.live_upper - cross, 0.0)
    return lower, np.maximum(upper, lower)


def twin_classes(g: FabricGraph, members: IntArray) -> IntArray:
    """Class id per member: members with the same seed and exactly the same
    neighbours (with the same capacity to each) share a class."""
    key_u = np.concatenate((g.u, g.v))
    key_v = np.concatenate((g.v, g.u))
    w = np.concatenate((g.cap, g.cap))
    order = np.lexsort((key_v, key_u))
    ku, kv, kw = key_u[order], key_v[order], w[order]
    # merge parallel links: one (device, neighbour) pair with the summed capacity
    first = np.ones(len(ku), dtype=np.bool_)
    first[1:] = (ku[1:] != ku[:-1]) | (kv[1:] != kv[:-1])
    starts = np.flatnonzero(first)
    pu, pv = ku[starts], kv[starts]
    pw = np.add.reduceat(kw, starts) if len(starts) else kw[:0]
    bounds = np.searchsorted(pu, np.arange(g.n + 1))
    rng = np.random.default_rng(7)
    h1 = rng.integers(1, 2**62, size=g.n, dtype=np.int64)
    h2 = rng.integers(1, 2**62, size=g.n, dtype=np.int64)
    capcode = np.unique(pw, return_inverse=True)[1].astype(np.int64) + 1
    mix = (h1[pv] * capcode) ^ h2[pv]
    hashed = np.zeros(g.n, dtype=np.int64)
    np.add.at(hashed, pu, mix)
    label = np.full(len(members), -1, dtype=np.int64)
    groups: dict[tuple[int, int], list[int]] = {}
    for i, s in enumerate(members.tolist()):
        groups.setdefault((int(g.seed[s]), int(hashed[s])), []).append(i)
    next_id = 0
    for idx in groups.values():
        # a hash only proposes; the neighbour lists are compared exactly
        reps: list[tuple[int, int]] = []  # (member position, class id)
        for i in idx:
            s = int(members[i])
            a, b = bounds[s], bounds[s + 1]
            for j, cls in reps:
                t = int(members[j])
                c, d = bounds[t], bounds[t + 1]
                if (
                    b - a == d - c
                    and np.array_equal(pv[a:b], pv[c:d])
                    and np.array_equal(pw[a:b], pw[c:d])
                ):
                    label[i] = cls
                    break
            else:
                label[i] = next_id
                reps.append((i, next_id))
                next_id += 1
    return label


def rail_gpus(g: FabricGraph) -> IntArray:
    """Per device: GPUs whose NIC is cabled to it (they lose that rail)."""
    out = np.zeros(g.n, dtype=np.int64)
    for node_end, sw_end in ((g.u, g.v), (g.v, g.u)):
        sel = g.compute[node_end] & ~g.compute[sw_end]
        x, s, cables = node_end[sel], sw_end[sel], g.cables[sel]
        if not len(x):
            continue
        per_cable = np.maximum(1.0, g.gpus[x] / np.maximum(g.ports[x], 1))
        pair = x * g.n + s
        uniq, inv = np.unique(pair, return_inverse=True)
        served = np.bincount(inv, weights=cables * per_cable)
        px = uniq // g.n
        served = np.minimum(served, g.gpus[px])
        np.add.at(out, uniq % g.n, np.rint(served).astype(np.int64))
    return out


def cut_off_gpus(g: FabricGraph) -> IntArray:
    """Per device: GPUs of the main fabric that lose every path to it when the
    device fails (main: the largest component, by GPUs, with two or more
    compute nodes; a compute node left alone has no fabric)."""
    n = g.n
    out = np.zeros(n, dtype=np.int64)
    if not len(g.u):
        return out
    a = np.concatenate((g.u, g.v))
    b = np.concatenate((g.v, g.u))
    keep = a != b
    a, b = a[keep], b[keep]
    pair = np.unique(a * n + b)
    a, b = pair // n, pair % n
    start = np.searchsorted(a, np.arange(n + 1)).tolist()
    nbr = b.tolist()
    gpus = g.gpus.tolist()
    comp = g.compute.astype(np.int64).tolist()
    # components, then the main one
    label = [-1] * n
    sizes: list[tuple[int, int, int]] = []  # (gpus, compute nodes, root)
    for r in range(n):
        if label[r] >= 0 or start[r] == start[r + 1]:
            continue
        cid = len(sizes)
        label[r] = cid
        stack, wg, wc = [r], 0, 0
        while stack:
            x = stack.pop()
            wg += gpus[x]
            wc += comp[x]
            for y in nbr[start[x] : start[x + 1]]:
                if label[y] < 0:
                    label[y] = cid
                    stack.append(y)
        sizes.append((wg, wc, r))
    mains = [s for s in sizes if s[1] >= 2]
    if not mains:
        return out
    total_g, total_c, root = max(mains)
    disc = [-1] * n
    low = [0] * n
    sub_g = [0] * n
    sub_c = [0] * n
    sep_g = [0] * n
    sep_c = [0] * n
    best = [0] * n  # largest separated piece (GPUs) with >= 2 compute nodes
    t = 0
    disc[root] = low[root] = t
    sub_g[root], sub_c[root] = gpus[root], comp[root]
    stack2 = [(root, -1, start[root])]
    while stack2:
        x, parent, i = stack2[-1]
        if i < start[x + 1]:
            stack2[-1] = (x, parent, i + 1)
            y = nbr[i]
            if y == parent:
                continue
            if disc[y] < 0:
                t += 1
                disc[y] = low[y] = t
                sub_g[y], sub_c[y] = gpus[y], comp[y]
                stack2.append((y, x, start[y]))
            elif disc[y] < low[x]:
                low[x] = disc[y]
            continue
        stack2.pop()
        if parent < 0:
            continue
        if low[x] < low[parent]:
            low[parent] = low[x]
        sub_g[parent] += sub_g[x]
        sub_c[parent] += sub_c[x]
        if low[x] >= disc[parent]:
            sep_g[parent] += sub_g[x]
            sep_c[parent] += sub_c[x]
            if sub_c[x] >= 2 and sub_g[x] > best[parent]:
                best[parent] = sub_g[x]
    for x in range(n):
        if disc[x] < 0:
            continue
        own = gpus[x]
        keep_g = best[x]
        if x != root:
            rest_g = total_g - own - sep_g[x]
            rest_c = total_c - comp[x] - sep_c[x]
            if rest_c >= 2 and rest_g > keep_g:
                keep_g = rest_g
        out[x] = total_g - own - keep_g
    return out


def worst_failures(
    g: FabricGraph,
    switches: IntArray,
    evaluate: Evaluate,
    classes: Classes,
    budget: int,
) -> FailureResult:
    """Bounds on B(G - s) for each switch, refined by full analyses (at most
    ``budget``) until the worst failure overall and per tier is proven."""
    lower, upper = cheap_bounds(g)
    twins = twin_classes(g, switches)
    twin_of: dict[int, list[int]] = {}
    for s, cls in zip(switches.tolist(), twins.tolist(), strict=True):
        twin_of.setdefault(cls, []).append(s)
    twin_id = dict(zip(switches.tolist(), twins.tolist(), strict=True))
    colour = classes(g.seed)
    settled = np.zeros(g.n, dtype=np.bool_)
    colours_done: set[int] = set()
    result = FailureResult(
        lower=lower,
        upper=upper,
        overall=TierWorst(None, 0.0, 0.0, True, 0),
        by_rank={},
        rail_gpus=rail_gpus(g),
        cut_off_gpus=cut_off_gpus(g),
        twins_proven=int(len(switches) - len(twin_of)),
    )

    unproven: set[int] = set()  # colours whose analysis did not prove its switch

    def run(s: int) -> None:
        lo, up = evaluate(s)
        result.evaluated.append(s)
        colours_done.add(int(colour[s]))
        for t in twin_of[twin_id[s]]:
            lower[t] = max(lower[t], lo)
            upper[t] = max(min(upper[t], up), lower[t])
            settled[t] = True
        if lower[s] < upper[s] * (1 - _REL):
            unproven.add(int(colour[s]))

    def settle(members: IntArray) -> TierWorst:
        while len(members):
            best = float(upper[members].min())
            open_ = members[~settled[members] & (lower[members] < best * (1 - _REL))]
            # a class whose analysed switch stayed unproven is left at its bounds:
            # its other members would most likely stay unproven as well
            open_ = open_[[int(colour[x]) not in unproven for x in open_.tolist()]]
            if not len(open_):
                break
            if len(result.evaluated) >= budget:
                result.budget_hit = True
                break
            fresh = np.array([int(colour[s]) not in colours_done for s in open_])
            pick = open_[np.lexsort((lower[open_], ~fresh))[0]]
            run(int(pick))
        if not len(members):
            return TierWorst(None, 0.0, 0.0, True, 0)
        i = int(np.argmin(upper[members]))
        lo = float(lower[members].min())
        up = float(upper[members][i])
        exact = lo >= up * (1 - _REL)
        return TierWorst(int(members[i]), up, up if exact else lo, exact, len(members))

    result.overall = settle(switches)
    for r in sorted(set(g.rank[switches].tolist())):
        result.by_rank[r] = settle(switches[g.rank[switches] == r])
    # a tier settled later may have tightened the overall figure
    result.overall = settle(switches)
    return result
