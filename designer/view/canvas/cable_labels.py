"""Which links carry a cable-count label ("×8") at the current zoom (no Qt).

A bundle of more than one cable drawn as a single link gets a small label at
its midpoint, only when zoomed in far enough to read it
(:data:`~designer.view.canvas.sizes.LOD_CABLE_LABELS`), when the midpoint and at least
one end are in view, and at most :data:`~designer.view.canvas.sizes.MAX_CABLE_LABELS`
of them: links seen whole first, then nearest the view's centre, none
overlapping another on screen. Overview blocks and trunks
carry their own counts; this is for single links only.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from designer.view.canvas.sizes import LOD_CABLE_LABELS, MAX_CABLE_LABELS

if TYPE_CHECKING:
    from designer.view.canvas.geometry import Geometry

_EMPTY = np.zeros(0, np.int64)
#: candidates looked at per label kept: labels left out for overlapping are
#: few at the zooms where labels show, and this bounds the Python loop
_CANDIDATES_PER_LABEL = 8


def cable_label_rows(
    g: Geometry,
    mask: np.ndarray,
    rect: tuple[float, float, float, float],
    px_per_unit: float,
    box_px: tuple[float, float],
    limit: int = MAX_CABLE_LABELS,
) -> np.ndarray:
    """Link rows to label in the scene ``rect`` (x0, y0, x1, y1), in drawing order.

    ``mask`` marks the links drawn as single lines; ``px_per_unit`` is the
    zoom in reference (96 dpi) pixels per scene unit; ``box_px`` is the size
    of the widest label in reference pixels. Empty below the zoom threshold.
    """
    if px_per_unit < LOD_CABLE_LABELS or mask.size == 0 or limit <= 0:
        return _EMPTY
    idx = g.segments_in_rect(mask, rect)
    idx = idx[g.cables[idx] > 1]
    if idx.size == 0:
        return _EMPTY
    pa, pb = g.xy[g.la[idx]], g.xy[g.lb[idx]]
    mid = (pa + pb) / 2
    in_a, in_b, in_mid = _inside(pa, rect), _inside(pb, rect), _inside(mid, rect)
    # a label whose link has neither end in view says little about which link
    # it counts (a mesh passing through): those are left out
    keep = in_mid & (in_a | in_b)
    idx, mid, both = idx[keep], mid[keep], (in_a & in_b)[keep]
    if idx.size == 0:
        return _EMPTY
    x0, y0, x1, y1 = rect
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    d2 = (mid[:, 0] - cx) ** 2 + (mid[:, 1] - cy) ** 2
    take = min(idx.size, limit * _CANDIDATES_PER_LABEL)
    # links seen whole first, then by distance from the centre of the view
    order = np.lexsort((d2, ~both))[:take]
    w, h = max(box_px[0], 1.0), max(box_px[1], 1.0)
    sx = mid[order, 0] * px_per_unit / w
    sy = mid[order, 1] * px_per_unit / h
    # in units of one label: two labels overlap when both offsets are below 1,
    # so only the 3 x 3 cells around a label can hold one it would overlap
    cells: dict[tuple[int, int], list[tuple[float, float]]] = {}
    kept: list[int] = []
    for k, (x, y) in enumerate(zip(sx.tolist(), sy.tolist(), strict=True)):
        if _clashes(cells, x, y):
            continue
        cells.setdefault((math.floor(x), math.floor(y)), []).append((x, y))
        kept.append(k)
        if len(kept) == limit:
            break
    rows: np.ndarray = idx[order[np.asarray(kept, np.int64)]]
    return rows


def _clashes(
    cells: dict[tuple[int, int], list[tuple[float, float]]], x: float, y: float
) -> bool:
    """Whether a label at (x, y), in label units, overlaps one already kept."""
    i, j = math.floor(x), math.floor(y)
    return any(
        abs(px - x) < 1.0 and abs(py - y) < 1.0
        for di in (-1, 0, 1)
        for dj in (-1, 0, 1)
        for px, py in cells.get((i + di, j + dj), ())
    )


def _inside(p: np.ndarray, rect: tuple[float, float, float, float]) -> np.ndarray:
    x0, y0, x1, y1 = rect
    return (p[:, 0] >= x0) & (p[:, 0] <= x1) & (p[:, 1] >= y0) & (p[:, 1] <= y1)


def cable_text(cables: int) -> str:
    """The label of a bundle of ``cables`` cables."""
    return f"×{cables}"
