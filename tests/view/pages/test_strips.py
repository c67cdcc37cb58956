"""Cutting a wide drawing into stacked strips (no Qt)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from designer.view.canvas.sizes import DEVICE_W
from designer.view.pages.strips import plan_strips


def _row(n: int, pitch: float = 80.0, y: float = 0.0) -> np.ndarray:
    return np.array([(k * pitch, y) for k in range(n)], float)


def test_a_long_flat_unit_is_cut_into_strips_that_draw_it_larger() -> None:
    xy = np.vstack([_row(32, y=830.0), _row(8, pitch=320.0, y=400.0)])
    one = plan_strips(xy, 770, 480, 16, max_strips=1)
    plan = plan_strips(xy, 770, 480, 16)
    assert len(one.rects) == 1
    assert len(plan.rects) == 2
    assert plan.scale > 1.5 * one.scale
    # the strips' stack fits the area at the plan's scale
    heights = [(y1 - y0) * plan.scale for _, y0, _, y1 in plan.rects]
    assert sum(heights) + 16 * (len(heights) - 1) <= 480 + 1e-6
    for x0, _, x1, _ in plan.rects:
        assert (x1 - x0) * plan.scale <= 770 + 1e-6


def test_a_square_unit_stays_whole() -> None:
    xy = np.array([(x, y) for x in range(0, 800, 80) for y in range(0, 800, 80)], float)
    assert len(plan_strips(xy, 770, 480, 16).rects) == 1


@given(
    xs=st.lists(st.integers(-50, 50), min_size=1, max_size=60),
    width=st.floats(100, 1000),
    height=st.floats(100, 1000),
)
def test_no_device_box_is_cut_and_every_device_is_in_one_strip(
    xs: list[int], width: float, height: float
) -> None:
    xy = np.array([(x * 40.0, 0.0) for x in xs], float)
    plan = plan_strips(xy, width, height, 10)
    for x, _ in xy:
        left, right = x - DEVICE_W / 2, x + DEVICE_W / 2
        inside = [r for r in plan.rects if r[0] <= left and right <= r[2]]
        assert len(inside) == 1
    edges = [r[0] for r in plan.rects] + [plan.rects[-1][2]]
    assert edges == sorted(set(edges))
