"""Trunks drawn along one another, and which end labels them (no Qt)."""

from __future__ import annotations

import random

from designer.view.canvas.quotient import Trunk
from designer.view.canvas.trunk_overlap import overlapped, own_ends


def _t(a: int, b: int, p0: tuple[float, float], p1: tuple[float, float]) -> Trunk:
    return Trunk((a, b), p0, p1, links=1, cables=1, capacity_gbps=400.0, speed_gbps=400)


def test_a_column_of_pods_to_the_core_is_labelled_from_each_pod() -> None:
    core = 9
    # pods 0, 1, 2 stacked under x = 100; the core bar above them at y = 0
    column = [_t(k, core, (100.0, 400.0 * (k + 1)), (100.0, 0.0)) for k in range(3)]
    alone = _t(3, core, (900.0, 400.0), (900.0, 0.0))
    trunks = [*column, alone]
    assert overlapped(trunks).tolist() == [True, True, True, False]
    assert own_ends(trunks) == [0, 0, 0, None]
    # the core is the trunk's first end: the pod, at p1, is still its own end
    flipped = [_t(core, 0, (100.0, 0.0), (100.0, 400.0)), column[1]]
    assert own_ends(flipped) == [1, 0]


def test_touching_or_parallel_trunks_do_not_overlap() -> None:
    up = _t(0, 1, (0.0, 0.0), (0.0, 100.0))
    end_to_end = [up, _t(1, 2, (0.0, 100.0), (0.0, 200.0))]
    parallel = [up, _t(2, 3, (5.0, 0.0), (5.0, 100.0))]
    crossing = [
        _t(0, 1, (0.0, 0.0), (100.0, 100.0)),
        _t(2, 3, (100.0, 0.0), (0.0, 100.0)),
    ]
    for trunks in (end_to_end, parallel, crossing):
        assert not overlapped(trunks).any()


def test_overlap_matches_intervals_on_shared_lines() -> None:
    """On random vertical trunks, "overlapped" agrees with 1-D interval overlap."""
    rng = random.Random(7)
    trunks = []
    for k in range(60):
        x = float(rng.choice([0, 100, 200]))
        y0, y1 = sorted(rng.sample(range(0, 1000, 50), 2))
        trunks.append(_t(k, 100 + k, (x, float(y0)), (x, float(y1))))
    got = overlapped(trunks).tolist()
    for i, t in enumerate(trunks):
        lo, hi = sorted((t.p0[1], t.p1[1]))
        shared = False
        for j, u in enumerate(trunks):
            if j == i or u.p0[0] != t.p0[0]:
                continue
            ulo, uhi = sorted((u.p0[1], u.p1[1]))
            if min(hi, uhi) - max(lo, ulo) > 0.5:
                shared = True
        assert got[i] == shared, i
