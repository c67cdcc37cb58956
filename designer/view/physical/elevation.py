"""Rack elevations without Qt: where racks, units and devices go, and back.

Front views of racks side by side, U 1 at the bottom, bottoms aligned (a
shorter rack starts lower). The same geometry draws the editor's elevation
(pixels) and the PDF's (points); only :class:`ElevationStyle` differs. It also
answers the way back, from a point to a rack and a U, for a drop.

``print_pages`` cuts many racks into pages of bands at a unit height that keeps
the device labels at least 6 pt, and :func:`alike_racks` folds racks of the
same layout (same entries at the same units) into one drawing with a list of
the racks it stands for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import floor

from designer.physical.views import DeviceSlot, RackView

Rect = tuple[float, float, float, float]
"""(x, y, width, height), y down."""


@dataclass(frozen=True, slots=True)
class ElevationStyle:
    """Sizes of an elevation drawing (pixels on screen, points in print)."""

    unit: float = 14.0
    """Height of one rack unit."""
    rack_width: float = 150.0
    """Width of a rack's unit area."""
    rail: float = 20.0
    """Column left of the units for the U numbers."""
    header: float = 36.0
    """Above a rack: its name and load."""
    footer: float = 16.0
    """Below a rack: devices in it without a U."""
    gap: float = 18.0
    """Between two racks."""
    margin: float = 8.0

    @property
    def pitch(self) -> float:
        """From one rack's left edge to the next one's."""
        return self.rail + self.rack_width + self.gap


class ElevationLayout:
    """Racks ``(id, units)`` side by side, left to right (see module doc)."""

    def __init__(
        self, racks: Sequence[tuple[str, int]], style: ElevationStyle | None = None
    ) -> None:
        self.style = style or ElevationStyle()
        self.racks = list(racks)
        self.index = {rid: i for i, (rid, _) in enumerate(self.racks)}
        self.tallest = max((u for _, u in self.racks), default=42)

    @property
    def size(self) -> tuple[float, float]:
        """Width and height of the whole drawing."""
        s = self.style
        n = len(self.racks)
        w = 2 * s.margin + n * s.pitch - (s.gap if n else 0)
        h = 2 * s.margin + s.header + self.tallest * s.unit + s.footer
        return max(w, 0.0), h

    @property
    def floor_y(self) -> float:
        """y of the racks' bottoms."""
        s = self.style
        return s.margin + s.header + self.tallest * s.unit

    def _left(self, i: int) -> float:
        s = self.style
        return s.margin + i * s.pitch

    def rack_rect(self, i: int) -> Rect:
        """Header, rail, units and footer of rack ``i``."""
        s = self.style
        _, u = self.racks[i]
        top = self.floor_y - u * s.unit - s.header
        return (
            self._left(i),
            top,
            s.rail + s.rack_width,
            s.header + u * s.unit + s.footer,
        )

    def header_rect(self, i: int) -> Rect:
        """Where rack ``i``'s name and load go."""
        x, y, w, _ = self.rack_rect(i)
        return (x, y, w, self.style.header)

    def body_rect(self, i: int) -> Rect:
        """The unit area of rack ``i`` (right of the rail)."""
        s = self.style
        _, u = self.racks[i]
        return (
            self._left(i) + s.rail,
            self.floor_y - u * s.unit,
            s.rack_width,
            u * s.unit,
        )

    def footer_rect(self, i: int) -> Rect:
        """Below rack ``i``."""
        s = self.style
        return (self._left(i), self.floor_y, s.rail + s.rack_width, s.footer)

    def unit_rect(self, i: int, u: int, height: int = 1) -> Rect:
        """Units ``u`` .. ``u + height - 1`` of rack ``i``."""
        s = self.style
        bx, _, bw, _ = self.body_rect(i)
        top = self.floor_y - (u - 1 + height) * s.unit
        return (bx, top, bw, height * s.unit)

    def rail_rect(self, i: int, u: int) -> Rect:
        """The U number cell of unit ``u`` of rack ``i``."""
        s = self.style
        _, top, _, h = self.unit_rect(i, u)
        return (self._left(i), top, s.rail, h)

    def device_rect(self, i: int, slot: DeviceSlot) -> Rect:
        """The box of a device of rack ``i``."""
        return self.unit_rect(i, slot.u, slot.height)

    def rack_at(self, x: float) -> int | None:
        """The rack whose column (rail and units) holds ``x``, or None."""
        s = self.style
        if not self.racks:
            return None
        k = floor((x - s.margin) / s.pitch)
        if k < 0 or k >= len(self.racks):
            return None
        inside = x - self._left(k)
        return k if inside <= s.rail + s.rack_width else None

    def unit_at(self, i: int, y: float) -> int:
        """The unit of rack ``i`` at height ``y`` (may lie outside 1..U)."""
        return floor((self.floor_y - y) / self.style.unit) + 1

    def drop_at(self, x: float, y: float, grab: int) -> tuple[str, int] | None:
        """Rack and lowest U for a device held ``grab`` units above its bottom
        and released at (x, y); None away from every rack."""
        i = self.rack_at(x)
        if i is None:
            return None
        return self.racks[i][0], self.unit_at(i, y) - grab


def short_name(slot: DeviceSlot, limit: int = 28) -> str:
    """What a device box says: its label when short enough, else its id."""
    if slot.label and len(slot.label) <= limit:
        return slot.label
    return slot.device


def load_text(rack: RackView) -> str:
    """A rack's load against its lower limit, e.g. ``"40.8 / 60 kW"``."""
    limit = min(rack.max_kw, rack.cooling_kw)
    return f"{rack.kw:,.1f} / {limit:,.0f} kW"


def limit_text(rack: RackView) -> str:
    """What the limit is made of: feeds and cooling class."""
    return (
        f"feeds {rack.max_kw:,.0f} kW ({rack.type}), {rack.cooling.value} "
        f"cooling {rack.cooling_kw:,.0f} kW"
    )


def over_limit(rack: RackView) -> bool:
    """The load is above the feeds or the cooling class."""
    return rack.over_power or rack.over_cooling


def layout_key(rack: RackView) -> tuple[object, ...]:
    """Racks with equal keys look the same in an elevation (but for names)."""
    return (
        rack.type,
        rack.u,
        rack.cooling,
        rack.max_kw,
        rack.cooling_kw,
        tuple((s.catalog_id, s.u, s.height) for s in rack.devices),
        len(rack.unracked),
    )


def alike_racks(racks: Sequence[RackView]) -> list[tuple[RackView, tuple[str, ...]]]:
    """Racks folded by layout: (the first of a layout, every rack of it), in
    the order the layouts first appear."""
    groups: dict[tuple[object, ...], list[RackView]] = {}
    for r in racks:
        groups.setdefault(layout_key(r), []).append(r)
    return [(g[0], tuple(r.id for r in g)) for g in groups.values()]


@dataclass(frozen=True, slots=True)
class PrintPlan:
    """How rack elevations go onto pages."""

    style: ElevationStyle
    per_band: int
    """Racks side by side in one band."""
    bands: int
    """Bands of racks stacked on one page."""
    pages: tuple[tuple[tuple[int, ...], ...], ...]
    """Per page, per band, the indices of the racks drawn."""


MIN_UNIT_PT = 7.0
"""A 1U box 7 pt high holds a 6 pt label (DejaVu Sans: 7 pt line)."""
LABEL_PT = 6.0
"""Smallest text of a printed elevation."""


def print_plan(
    units: Sequence[int],
    width: float,
    height: float,
    *,
    rack_width: float = 96.0,
    max_unit: float = 10.0,
) -> PrintPlan:
    """Cut racks (their heights in U) into bands and pages of ``width`` x
    ``height`` points: as many bands as fit at a unit of at least
    :data:`MIN_UNIT_PT` (ValueError when not even one band fits)."""
    base = ElevationStyle(
        unit=MIN_UNIT_PT,
        rack_width=rack_width,
        rail=14.0,
        header=26.0,
        footer=10.0,
        gap=10.0,
        margin=2.0,
    )
    tallest = max(units, default=42)
    fixed = 2 * base.margin + base.header + base.footer
    room = height - fixed
    if room < tallest * MIN_UNIT_PT:
        raise ValueError(
            f"a {tallest}U rack needs {fixed + tallest * MIN_UNIT_PT:.0f} pt of "
            f"height for {LABEL_PT:g} pt labels; the page gives {height:.0f} pt"
        )
    bands = max(1, floor(height / (fixed + tallest * MIN_UNIT_PT)))
    unit = min(max_unit, (height / bands - fixed) / tallest)
    style = ElevationStyle(
        unit=unit,
        rack_width=base.rack_width,
        rail=base.rail,
        header=base.header,
        footer=base.footer,
        gap=base.gap,
        margin=base.margin,
    )
    per_band = max(1, floor((width - 2 * style.margin + style.gap) / style.pitch))
    per_page = per_band * bands
    n = len(units)
    pages = []
    for start in range(0, n, per_page):
        chunk = list(range(start, min(start + per_page, n)))
        pages.append(
            tuple(
                tuple(chunk[b : b + per_band]) for b in range(0, len(chunk), per_band)
            )
        )
    return PrintPlan(style, per_band, bands, tuple(pages))


__all__ = [
    "LABEL_PT",
    "MIN_UNIT_PT",
    "ElevationLayout",
    "ElevationStyle",
    "PrintPlan",
    "alike_racks",
    "layout_key",
    "limit_text",
    "load_text",
    "over_limit",
    "print_plan",
    "short_name",
]
