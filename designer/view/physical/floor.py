"""The floor plan without Qt: kW colour bands, the scale bar, cable runs in plan.

Racks are coloured by their IT load in bands whose edges are the design's own
facility limits per cooling class (physical.md §2: air to about 30 kW,
containment or rear-door to about 60 kW, direct liquid above), with a first
band for the typical enterprise rack (below about 10 kW, Uptime 2024 [S]).
So a colour says which cooling a rack needs, and the legend says where each
edge comes from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import floor, hypot, log10

import numpy as np

from designer.core.physical import FACILITY_SOURCES, Facility

ENTERPRISE_KW = 10.0
"""Average enterprise rack density is still below 8-10 kW (Uptime 2024, physical.md
§2) [S]."""

EMPTY_COLOUR = "#eef0f3"
BAND_COLOURS = ("#fff3b0", "#fdc86a", "#f78d3f", "#d9482b", "#8f1d3b")
"""Light to dark: the hotter the rack, the darker (a sequential ramp that reads
in grey print as well)."""


@dataclass(frozen=True, slots=True)
class KwBand:
    """Racks with ``low < kW <= high`` get ``colour``."""

    low: float
    high: float
    colour: str
    label: str
    source: str


def kw_bands(facility: Facility) -> tuple[KwBand, ...]:
    """The colour bands of a design's facility (edges ascending, last open)."""
    edges = [
        (ENTERPRISE_KW, "typical enterprise rack", "Uptime 2024 (physical.md §2) [S]"),
        (facility.air_kw, "air", FACILITY_SOURCES["air_kw"]),
        (facility.containment_kw, "containment", FACILITY_SOURCES["containment_kw"]),
        (facility.liquid_kw, "liquid", FACILITY_SOURCES["liquid_kw"]),
    ]
    edges.sort(key=lambda e: e[0])
    out: list[KwBand] = []
    low = 0.0
    for k, (high, what, source) in enumerate(edges):
        if high <= low:
            continue
        label = f"{_kw(low)}-{_kw(high)} kW ({what})"
        out.append(KwBand(low, high, BAND_COLOURS[k], label, source))
        low = high
    out.append(
        KwBand(
            low,
            float("inf"),
            BAND_COLOURS[-1],
            f"over {_kw(low)} kW (above every cooling class)",
            "facility limits of the design",
        )
    )
    return tuple(out)


def _kw(x: float) -> str:
    return f"{x:,.0f}" if x == round(x) else f"{x:,.1f}"


def kw_colour(kw: float, bands: Sequence[KwBand]) -> str:
    """Fill of a rack drawing ``kw`` (an empty rack: :data:`EMPTY_COLOUR`)."""
    if kw <= 1e-9:
        return EMPTY_COLOUR
    for band in bands:
        if kw <= band.high + 1e-9:
            return band.colour
    return bands[-1].colour


def scale_length(metres_per_unit: float, target_units: float) -> float:
    """A round length (1, 2 or 5 x 10^k m) about ``target_units`` long."""
    want = max(metres_per_unit * target_units, 1e-6)
    k = floor(log10(want))
    best = 10.0**k
    for m in (1.0, 2.0, 5.0, 10.0):
        if m * 10.0**k <= want:
            best = m * 10.0**k
    return best


def plan_path(
    path: Sequence[tuple[float, float, float]],
) -> list[tuple[float, float]]:
    """A cable's route seen from above: (x, y) corners, repeats dropped."""
    out: list[tuple[float, float]] = []
    for x, y, _ in path:
        if not out or (abs(out[-1][0] - x) > 1e-9 or abs(out[-1][1] - y) > 1e-9):
            out.append((x, y))
    return out


def label_room(
    starts: Sequence[tuple[float, float]],
    racks: Sequence[tuple[float, float, float]],
    margin: float,
) -> list[float]:
    """Free floor left of each row start ``(x, y)`` up to the nearest rack end
    on the same line (``racks``: ``(x, y, width)``), for the row's label;
    ``margin`` where no rack stands to the left."""
    if not racks:
        return [margin] * len(starts)
    x = np.array([r[0] for r in racks], dtype=np.float64)
    y = np.array([r[1] for r in racks], dtype=np.float64)
    end = x + np.array([r[2] for r in racks], dtype=np.float64)
    out = []
    for x0, y0 in starts:
        left = end[(np.abs(y - y0) < 1e-6) & (end <= x0 + 1e-6)]
        out.append(float(x0 - left.max()) if len(left) else margin)
    return out


def label_point(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """Where a cable's length label goes: the middle of its longest leg (the
    point itself for a run inside one rack)."""
    if not points:
        raise ValueError("a cable run without points has no label place")
    if len(points) == 1:
        return points[0]
    best = max(
        range(len(points) - 1),
        key=lambda i: hypot(
            points[i + 1][0] - points[i][0], points[i + 1][1] - points[i][1]
        ),
    )
    (x0, y0), (x1, y1) = points[best], points[best + 1]
    return (x0 + x1) / 2, (y0 + y1) / 2


__all__ = [
    "BAND_COLOURS",
    "EMPTY_COLOUR",
    "ENTERPRISE_KW",
    "KwBand",
    "kw_bands",
    "kw_colour",
    "label_point",
    "label_room",
    "plan_path",
    "scale_length",
]
