"""Cutting a wide drawing into strips stacked on one page, so it is drawn larger.

A scalable unit is a long row of nodes under a row of leaves: fitted whole to a
landscape page it fills a third of the height at a third of the scale it could
have. Cut between two device columns into k strips stacked top to bottom, the
same page shows it up to k times larger, until the strips' height runs out.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from designer.view.canvas.sizes import DEVICE_H, DEVICE_W

#: Most strips one drawing is cut into.
MAX_STRIPS = 3
#: Scene units kept around the devices of a strip (room for the outline).
STRIP_MARGIN = 20.0
#: A drawing with fewer strips is kept when its scale is within this share of
#: the best: one strip less is one cut less through the links.
KEEP_FEWER = 0.97


@dataclass(frozen=True)
class StripPlan:
    """Where to cut a drawing and the scale (page units per scene unit) it gets."""

    rects: list[tuple[float, float, float, float]]
    """Scene rect (x0, y0, x1, y1) of each strip, left to right."""
    scale: float


def _cuts(xs: np.ndarray, targets: list[float]) -> list[float]:
    """Cut positions in gaps between device boxes, the nearest to each target
    (fewer cuts when there are fewer gaps: a box is never cut)."""
    lo = np.sort(xs) - DEVICE_W / 2
    hi = lo + DEVICE_W  # boxes are equally wide: the ends are in order too
    # a gap lies between one box's end and the next box's start
    open_ = lo[1:] > hi[:-1]
    gaps = (hi[:-1][open_] + lo[1:][open_]) / 2
    out: list[float] = []
    for t in targets:
        later = gaps[gaps > out[-1]] if out else gaps
        if not later.size:
            break
        out.append(float(later[np.argmin(np.abs(later - t))]))
    return out


def plan_strips(
    xy: np.ndarray,
    width: float,
    height: float,
    gap: float,
    max_strips: int = MAX_STRIPS,
) -> StripPlan:
    """Strips of the devices at centres ``xy`` for an area ``width`` x ``height``
    (page units), ``gap`` between strips: the plan drawing them largest."""
    if xy.shape[0] == 0:
        return StripPlan([(0.0, 0.0, 1.0, 1.0)], 1.0)
    x0 = float(xy[:, 0].min()) - DEVICE_W / 2 - STRIP_MARGIN
    x1 = float(xy[:, 0].max()) + DEVICE_W / 2 + STRIP_MARGIN
    y0 = float(xy[:, 1].min()) - DEVICE_H / 2 - STRIP_MARGIN
    y1 = float(xy[:, 1].max()) + DEVICE_H / 2 + STRIP_MARGIN
    h = y1 - y0
    best: StripPlan | None = None
    for k in range(1, max(1, max_strips) + 1):
        span = (x1 - x0) / k
        inner = _cuts(xy[:, 0], [x0 + j * span for j in range(1, k)])
        edges = [x0, *inner, x1]
        rects = [(a, y0, b, y1) for a, b in itertools.pairwise(edges)]
        widest = max(b - a for a, _, b, _ in rects)
        n = len(rects)
        scale = min(width / widest, (height - (n - 1) * gap) / (n * h))
        if best is None or scale > best.scale / KEEP_FEWER:
            best = StripPlan(rects, scale)
    assert best is not None
    return best
