"""An exact bisection kept apart from the product: every placement of the
switches, and for each the best balanced compute split by a knapsack table.

With the devices that are not compute nodes fixed on a side, a compute node
with no compute neighbour pays the capacity it has to the other side, whatever
the other compute nodes do; so the best split of those nodes is a 0/1 knapsack
on GPUs (exact weight), solved by a table over all placements at once. Compute
nodes that do have compute neighbours are enumerated with the switches. The
balance is computed here by brute force, not by the product's subset-sum.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from designer.core.model import Design, Fabric
from tests.analysis.builders import gpus_of

MAX_ENUMERATED = 16


def _balance_targets(w: list[int]) -> set[int]:
    """GPU weights a side of a most-balanced split may have."""
    total = sum(w)
    sums = {0}
    for x in w:
        sums |= {s + x for s in sums}
    n = len(w)
    best = min(
        abs(2 * s - total)
        for s in sums
        if (s != 0 or 0 in w or n == 1) and (s != total or 0 in w)
    )
    return {(total - best) // 2, (total + best) // 2}


def oracle_by_placement(design: Design) -> float:
    """Exact bisection (Gb/s) of the compute fabric, or raises if too big."""
    gpus = gpus_of(design)
    cap: dict[tuple[str, str], int] = {}
    nodes = set(gpus)
    for link in design.links:
        if link.fabric is not Fabric.COMPUTE or link.a == link.b:
            continue
        key = (min(link.a, link.b), max(link.a, link.b))
        cap[key] = cap.get(key, 0) + link.cables * link.speed_gbps
        nodes |= {link.a, link.b}
    compute = sorted(gpus)
    touching = {x for (a, b) in cap for x in (a, b) if a in gpus and b in gpus}
    fixed = sorted((nodes - set(gpus)) | touching)
    free = [x for x in compute if x not in touching]
    if len(fixed) > MAX_ENUMERATED:
        raise ValueError(f"{len(fixed)} devices to enumerate")
    pos = {x: i for i, x in enumerate(fixed)}
    p = 1 << len(fixed)
    bits = (np.arange(p)[:, None] >> np.arange(len(fixed))[None, :]) & 1  # 1 = side A
    base = np.zeros(p)
    cost_a = np.zeros((len(free), p))  # free node i on A pays links to B
    cost_b = np.zeros((len(free), p))
    fpos = {x: i for i, x in enumerate(free)}
    for (a, b), c in cap.items():
        if a in pos and b in pos:
            base += c * (bits[:, pos[a]] != bits[:, pos[b]])
        elif a in fpos and b in fpos:
            raise AssertionError("free compute nodes are never adjacent")
        else:
            f, s = (a, b) if a in fpos else (b, a)
            cost_a[fpos[f]] += c * (1 - bits[:, pos[s]])
            cost_b[fpos[f]] += c * bits[:, pos[s]]
    targets = _balance_targets([gpus[x] for x in compute])
    w_fixed = np.array([gpus.get(x, 0) for x in fixed])
    wa_fixed = bits @ w_fixed
    total = sum(gpus.values())
    dp = np.full((p, total + 1), np.inf)
    dp[np.arange(p), wa_fixed] = base
    for i, x in enumerate(free):
        w = gpus[x]
        stay = dp + cost_b[i][:, None]
        move = np.full_like(dp, np.inf)
        move[:, w:] = dp[:, : total + 1 - w] + cost_a[i][:, None]
        dp = np.minimum(stay, move)
    # both sides must hold a compute node: a side of weight 0 or total is only
    # possible with zero-GPU nodes, which the designs here never have
    return float(min(dp[:, t].min() for t in targets))


def every_split(gpus: dict[str, int]) -> list[set[str]]:
    """Side A of every most-balanced split (small designs; for tests)."""
    targets = _balance_targets(list(gpus.values()))
    names = sorted(gpus)
    out = []
    for r in range(1, len(names)):
        for combo in combinations(names, r):
            if sum(gpus[x] for x in combo) in targets:
                out.append(set(combo))
    return out
