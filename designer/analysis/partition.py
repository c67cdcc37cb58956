"""Candidate bisection splits from a graph partitioner, improved by local moves.

Every split returned here is a real balanced split (see
:mod:`designer.analysis.balance`), so its cut is an upper bound on the
bisection whatever the heuristics did:

1. METIS (``pymetis``) bisects the fabric with GPUs as vertex weights (0 for
   switches) and capacities as edge weights, from several seeds;
2. the compute nodes of its first part are rebalanced to exactly ``light``
   GPUs, moving as few as possible (:func:`designer.analysis.balance.choose`);
3. then, alternately, the switches are re-placed optimally for the compute
   split (max-flow, exact for that split) and the compute nodes are moved as
   a whole to the cheapest balanced split given where their neighbours are
   (a best-response move, computed exactly for independent nodes and then
   evaluated on the real cut); a move is kept only when the cut drops.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from math import gcd

import numpy as np

from designer.analysis.balance import Balance, choose
from designer.analysis.graph import ComputeGraph
from designer.analysis.index import BoolArray

MAX_ROUNDS = 8


def cut_value(g: ComputeGraph, side: BoolArray) -> float:
    """Capacity crossing ``side`` (True = side A)."""
    return float(g.c[side[g.u] != side[g.v]].sum())


def balanced_from(g: ComputeGraph, bal: Balance, prefer_a: BoolArray) -> BoolArray:
    """A balanced compute split as close to ``prefer_a`` as the balance allows
    (local ids; compute nodes only are set)."""
    ep = g.endpoints
    w = g.weight[ep]
    best: BoolArray | None = None
    best_moved = len(ep) + 1
    for flip in (False, True):
        want = prefer_a[ep] ^ flip
        pick = choose(np.where(want, 0.0, 1.0), w, bal)
        if pick is None:
            continue
        moved = int((pick != want).sum())
        side = pick ^ flip
        if moved < best_moved:
            best, best_moved = side, moved
    out = np.zeros(g.n, dtype=np.bool_)
    if best is not None:
        out[ep] = best
    return out


def best_response(g: ComputeGraph, bal: Balance, side: BoolArray) -> BoolArray:
    """The cheapest balanced compute split with every other device kept where
    it is (exact when compute nodes have no compute neighbours)."""
    ep = g.endpoints
    other_a = side.astype(np.float64)
    # capacity from each node to side-A and side-B devices (compute nodes count
    # with their current side: a best-response, evaluated exactly afterwards)
    to_a = np.bincount(g.u, weights=g.c * other_a[g.v], minlength=g.n) + np.bincount(
        g.v, weights=g.c * other_a[g.u], minlength=g.n
    )
    tot = np.bincount(g.u, weights=g.c, minlength=g.n) + np.bincount(
        g.v, weights=g.c, minlength=g.n
    )
    to_b = tot - to_a
    w = g.weight[ep]
    best_side = side
    best_v = cut_value(g, side)
    for light_on_a in (True, False):
        # node on A pays to_b, on B pays to_a; choose the light side
        diff = (to_b - to_a)[ep] if light_on_a else (to_a - to_b)[ep]
        pick = choose(np.asarray(diff, dtype=np.float64), w, bal)
        if pick is None:
            continue
        trial = side.copy()
        trial[ep] = pick if light_on_a else ~pick
        value = cut_value(g, trial)
        if value < best_v:
            best_v, best_side = value, trial
    return best_side


def improve(
    g: ComputeGraph,
    bal: Balance,
    side: BoolArray,
    place: Callable[[BoolArray], tuple[float, BoolArray]],
    *,
    deadline: float | None = None,
) -> tuple[float, BoolArray]:
    """Alternate optimal switch placement and compute best-response moves."""
    value, side = place(side)
    for _ in range(MAX_ROUNDS):
        if deadline is not None and time.perf_counter() > deadline:
            break
        moved = best_response(g, bal, side)
        if cut_value(g, moved) >= value:
            break
        new_value, new_side = place(moved)
        if new_value >= value:
            break
        value, side = new_value, new_side
    return value, side


def metis_sides(g: ComputeGraph, seeds: int = 4) -> list[BoolArray]:
    """METIS bisections of the fabric (True = part 0), one per seed."""
    import pymetis

    n = g.n
    lo, hi = np.minimum(g.u, g.v), np.maximum(g.u, g.v)
    keep = lo != hi
    key = lo[keep] * n + hi[keep]
    uk, inv = np.unique(key, return_inverse=True)
    cap = np.bincount(inv, weights=g.c[keep]).astype(np.int64)
    a, b = np.divmod(uk, n)
    if not len(a):
        return []
    div = 0
    for x in np.unique(cap).tolist():
        div = gcd(div, int(x))
    cap = np.maximum(cap // max(div, 1), 1)
    cap = np.minimum(cap, 1 << 20)
    x = np.concatenate((a, b))
    y = np.concatenate((b, a))
    cc = np.concatenate((cap, cap))
    order = np.lexsort((y, x))
    x, y, cc = x[order], y[order], cc[order]
    xadj = np.concatenate(([0], np.cumsum(np.bincount(x, minlength=n)))).astype(
        np.int64
    )
    vw = np.where(g.endpoint, g.weight, 0).astype(np.int64)
    adjacency = pymetis.CSRAdjacency(xadj, y.astype(np.int64))
    out: list[BoolArray] = []
    for seed in range(seeds):
        opts = pymetis.Options(seed=seed)
        res = pymetis.part_graph(
            2, adjacency, vweights=vw, eweights=cc.astype(np.int64), options=opts
        )
        out.append(np.asarray(res.vertex_part, dtype=np.int64) == 0)
    return out


def spectral_side(g: ComputeGraph) -> BoolArray | None:
    """Sign of the Fiedler vector of the capacity Laplacian (small fabrics)."""
    if g.n < 3 or g.n > 3000:
        return None
    lap = np.zeros((g.n, g.n))
    np.add.at(lap, (g.u, g.v), -g.c)
    np.add.at(lap, (g.v, g.u), -g.c)
    lap[np.diag_indices(g.n)] = -lap.sum(axis=1)
    _, vecs = np.linalg.eigh(lap)
    f = vecs[:, 1]
    return np.asarray(f <= np.median(f[g.endpoint]), dtype=np.bool_)


def candidate_sides(
    g: ComputeGraph, bal: Balance, *, seeds: int = 4
) -> list[tuple[str, BoolArray]]:
    """Balanced starting splits from METIS and the spectral order."""
    out: list[tuple[str, BoolArray]] = []
    for i, s in enumerate(metis_sides(g, seeds)):
        out.append((f"METIS seed {i}", balanced_from(g, bal, s)))
    sp = spectral_side(g)
    if sp is not None:
        out.append(("spectral", balanced_from(g, bal, sp)))
    return out


__all__ = [
    "balanced_from",
    "best_response",
    "candidate_sides",
    "cut_value",
    "improve",
    "metis_sides",
]
