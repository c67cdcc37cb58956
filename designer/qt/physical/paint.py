"""Painting of rack elevations and floor plans, shared by the editor and the PDF.

One drawing for screen and print: the editor's items and the report's pages
call these functions with the geometry of :mod:`designer.view.physical.elevation` /
:mod:`designer.view.physical.floor` and fonts of their own (pixels in the scene,
points on the page).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen

from designer.physical.views import RackView
from designer.qt.canvas import style as st
from designer.view.physical.elevation import (
    ElevationLayout,
    load_text,
    over_limit,
    short_name,
)
from designer.view.physical.floor import EMPTY_COLOUR, KwBand, kw_colour

OVER = QColor("#c0392b")
RACK_FRAME = QColor("#3d4654")
EMPTY_UNIT = QColor("#f3f4f6")
UNIT_LINE = QColor("#d5d9e0")


@dataclass(frozen=True)
class RackFonts:
    """Fonts of a rack drawing: name, load line, device labels, U numbers."""

    name: QFont
    load: QFont
    device: QFont
    rail: QFont


def _r(rect: tuple[float, float, float, float]) -> QRectF:
    return QRectF(*rect)


def _text(
    p: QPainter,
    rect: QRectF,
    text: str,
    font: QFont,
    colour: QColor,
    align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignLeft,
    fm: QFontMetricsF | None = None,
) -> None:
    p.setFont(font)
    p.setPen(colour)
    fm = fm or QFontMetricsF(font, p.device())
    width = max(rect.width(), 1.0)
    shown = text
    if fm.horizontalAdvance(text) > width:
        shown = fm.elidedText(text, Qt.TextElideMode.ElideRight, width)
    p.drawText(rect, int(align | Qt.AlignmentFlag.AlignVCenter), shown)


def paint_rack(
    p: QPainter,
    lay: ElevationLayout,
    i: int,
    rack: RackView,
    fonts: RackFonts,
    *,
    selected: Collection[str] = (),
    tier_of: Callable[[str], str | None] = lambda _: None,
    caption: str | None = None,
    line: float = 1.0,
) -> None:
    """Rack ``i`` of ``lay``: name and load, U numbers, empty units, devices
    (selected ones outlined), and a caption (default: devices without a U)."""
    head = _r(lay.header_rect(i))
    body = _r(lay.body_rect(i))
    unit = lay.style.unit
    over = over_limit(rack)
    half = head.height() / 2
    _text(
        p,
        QRectF(head.left(), head.top(), head.width(), half),
        rack.label,
        fonts.name,
        st.TEXT,
    )
    _text(
        p,
        QRectF(head.left(), head.top() + half, head.width(), half),
        f"{load_text(rack)} · {rack.cooling.value}" + (" · over" if over else ""),
        fonts.load,
        OVER if over else st.TEXT_MUTED,
    )
    # empty units: a light band per unit, so free room reads U by U
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QBrush(EMPTY_UNIT))
    p.drawRect(body)
    p.setPen(QPen(UNIT_LINE, 0.5 * line))
    for u in range(1, rack.u):
        y = body.bottom() - u * unit
        p.drawLine(QPointF(body.left(), y), QPointF(body.right(), y))
    every = 1 if unit >= 9 else 5
    p.setFont(fonts.rail)
    p.setPen(st.TEXT_MUTED)
    right = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    for u in range(1, rack.u + 1):
        if every == 1 or u == 1 or u % every == 0 or u == rack.u:
            cell = _r(lay.rail_rect(i, u)).adjusted(0, 0, -2 * line, 0)
            p.drawText(cell, right, str(u))  # numbers fit the rail: no eliding
    device_fm = QFontMetricsF(fonts.device, p.device())
    top_seen = 0
    for slot in rack.devices:
        box = _r(lay.device_rect(i, slot)).intersected(body)
        bad = slot.u <= top_seen or slot.top > rack.u
        top_seen = max(top_seen, slot.top)
        fill = st.device_fill(slot.category, tier_of(slot.device))
        p.setBrush(QBrush(fill))
        p.setPen(QPen(OVER if bad else RACK_FRAME, (1.6 if bad else 0.6) * line))
        p.drawRect(box.adjusted(0.5 * line, 0.4 * line, -0.5 * line, -0.4 * line))
        if box.height() >= device_fm.height() * 0.9:
            label = short_name(slot)
            if slot.height >= 2:
                label += f"  {slot.kw:,.1f} kW"
            _text(
                p,
                box.adjusted(3 * line, 0, -2 * line, 0),
                label,
                fonts.device,
                st.text_on(fill),
                fm=device_fm,
            )
        if slot.device in selected:
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.setPen(QPen(st.SELECTED, 2.4 * line))
            p.drawRect(box.adjusted(line, line, -line, -line))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.setPen(QPen(OVER if over else RACK_FRAME, (1.6 if over else 1.0) * line))
    p.drawRect(body)
    text = caption
    if text is None and rack.unracked:
        text = f"+{len(rack.unracked)} in the rack without a U"
    if text:
        _text(p, _r(lay.footer_rect(i)), text, fonts.load, st.TEXT_MUTED)


# --- floor plan -------------------------------------------------------------------


@dataclass
class FloorPicture:
    """The racks of a floor plan as arrays (site metres), ready to paint."""

    ids: list[str]
    x: npt.NDArray[np.float64]
    y: npt.NDArray[np.float64]
    w: npt.NDArray[np.float64]
    d: npt.NDArray[np.float64]
    colour: list[str]
    over: npt.NDArray[np.bool_]
    selected: npt.NDArray[np.bool_]
    _rects: list[QRectF] | None = None

    @property
    def rects(self) -> list[QRectF]:
        """Each rack's footprint (made once: the geometry only changes with a
        new picture)."""
        if self._rects is None:
            self._rects = [
                QRectF(x, y, w, d)
                for x, y, w, d in zip(
                    self.x.tolist(),
                    self.y.tolist(),
                    self.w.tolist(),
                    self.d.tolist(),
                    strict=True,
                )
            ]
        return self._rects

    def forget_rects(self) -> None:
        """The footprints changed: make the rectangles again on next paint."""
        self._rects = None

    @classmethod
    def empty(cls) -> FloorPicture:
        """No racks."""
        z = np.zeros(0)
        b = np.zeros(0, dtype=np.bool_)
        return cls([], z, z.copy(), z.copy(), z.copy(), [], b, b.copy())

    def bounds(self) -> QRectF:
        """The racks' extent in metres (empty rect without racks)."""
        if not self.ids:
            return QRectF()
        x0, y0 = float(self.x.min()), float(self.y.min())
        x1 = float((self.x + self.w).max())
        y1 = float((self.y + self.d).max())
        return QRectF(x0, y0, x1 - x0, y1 - y0)

    def at(self, x: float, y: float) -> int | None:
        """Index of the rack whose footprint holds (x, y), or None."""
        if not self.ids:
            return None
        hit = np.flatnonzero(
            (self.x <= x)
            & (x <= self.x + self.w)
            & (self.y <= y)
            & (y <= self.y + self.d)
        )
        return int(hit[0]) if len(hit) else None


def paint_tiles(
    p: QPainter, pic: FloorPicture, pen_m: float, *, edges: bool = True
) -> None:
    """Every rack's footprint in its kW colour (painter in metres), outlined
    red when over its limit and blue when selected; ``pen_m`` is a thin line;
    ``edges`` False leaves the grey outline out (tiles a few pixels wide would
    show their outline only)."""
    rects = pic.rects
    by_colour: dict[str, list[QRectF]] = {}
    for rect, c in zip(rects, pic.colour, strict=True):
        by_colour.setdefault(c, []).append(rect)
    p.setPen(QPen(QColor("#7b8494"), pen_m) if edges else Qt.PenStyle.NoPen)
    for colour, group in by_colour.items():
        p.setBrush(QBrush(QColor(colour)))
        p.drawRects(group)
    p.setBrush(Qt.BrushStyle.NoBrush)
    for mask, edge, width in (
        (pic.over, OVER, 2.5),
        (pic.selected, st.SELECTED, 3.5),
    ):
        idx = np.flatnonzero(mask)
        if len(idx):
            p.setPen(QPen(edge, width * pen_m))
            p.drawRects([rects[k] for k in idx.tolist()])


def paint_legend(
    p: QPainter,
    origin: QPointF,
    bands: Sequence[KwBand],
    font: QFont,
    *,
    title: str = "IT load per rack",
    background: bool = True,
) -> QRectF:
    """The kW colour legend with its top-left at ``origin``; returns its rect."""
    fm = QFontMetricsF(font, p.device())
    line = fm.height() * 1.15
    sw = fm.height() * 0.9
    rows: list[tuple[str, str]] = [(EMPTY_COLOUR, "empty")]
    rows += [(b.colour, b.label) for b in bands]
    width = max(fm.horizontalAdvance(t) for _, t in rows) + sw + 14
    width = max(width, fm.horizontalAdvance(title) + 10)
    rect = QRectF(
        origin, QPointF(origin.x() + width, origin.y() + line * (len(rows) + 1) + 6)
    )
    if background:
        p.setPen(QPen(QColor("#c5cbd6"), 0.5))
        p.setBrush(QBrush(QColor(255, 255, 255, 230)))
        p.drawRect(rect)
    p.setFont(font)
    p.setPen(st.TEXT)
    x, y = origin.x() + 4, origin.y() + 3
    p.drawText(QRectF(x, y, width, line), int(Qt.AlignmentFlag.AlignVCenter), title)
    for colour, text in rows:
        y += line
        p.setPen(QPen(QColor("#7b8494"), 0.5))
        p.setBrush(QBrush(QColor(colour)))
        p.drawRect(QRectF(x, y + (line - sw) / 2, sw, sw))
        p.setPen(st.TEXT)
        p.drawText(
            QRectF(x + sw + 5, y, width - sw - 8, line),
            int(Qt.AlignmentFlag.AlignVCenter),
            text,
        )
    return rect


def paint_scale_bar(
    p: QPainter, origin: QPointF, length: float, metres: float, font: QFont
) -> None:
    """A scale bar ``length`` long (painter units) for ``metres``, from its
    bottom-left ``origin``."""
    x, y = origin.x(), origin.y()
    fm = QFontMetricsF(font, p.device())
    tick = fm.height() * 0.35
    p.setPen(QPen(st.TEXT, max(fm.height() * 0.08, 0.5)))
    p.drawLine(QPointF(x, y), QPointF(x + length, y))
    for k in range(3):
        xx = x + length * k / 2
        p.drawLine(QPointF(xx, y), QPointF(xx, y - tick * (2 if k != 1 else 1)))
    p.setFont(font)
    label = f"{metres:g} m"
    p.drawText(QPointF(x + length + 4, y + fm.ascent() / 2 - 1), label)


def row_label(
    fm: QFontMetricsF, text: str, right: float, top: float, width: float, lines: int
) -> tuple[str, QRectF, int]:
    """A row name set right-aligned left of ``right``: the whole text on up to
    ``lines`` lines when it fits ``width``, else one line elided. Returns what
    to draw, where and with which flags (screen and print use the same rule)."""
    align = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop
    wrap = int(align | Qt.TextFlag.TextWordWrap)
    spot = QRectF(right - width, top, width, lines * fm.height())
    if fm.boundingRect(spot, wrap, text).height() <= spot.height() + 0.5:
        return text, spot, wrap
    spot.setHeight(fm.height())
    return fm.elidedText(text, Qt.TextElideMode.ElideRight, width), spot, int(align)


def row_label_spot(
    fm: QFontMetricsF,
    text: str,
    right: float,
    wall: float | None,
    free: float,
    outside: float,
    lines: int,
) -> tuple[float, float]:
    """Where a row's name goes (its right edge and width): left of the row
    inside the hall when it fits between the row and the hall's wall (on up
    to ``lines`` lines), else outside the wall, right-aligned to it, so the
    outline never runs through the name ("spines and cores")."""
    if wall is None or wall >= right:
        return right, free
    inside = min(free, right - wall - 3)
    wrap = int(
        Qt.AlignmentFlag.AlignRight
        | Qt.AlignmentFlag.AlignTop
        | Qt.TextFlag.TextWordWrap
    )
    if inside > 0:
        spot = QRectF(right - inside, 0, inside, lines * fm.height())
        need = fm.boundingRect(spot, wrap, text)
        if need.height() <= spot.height() + 0.5 and need.width() <= inside + 0.5:
            return right, inside
    return wall - 3, outside


def tile_colours(kws: Sequence[float], bands: Sequence[KwBand]) -> list[str]:
    """The fill of each rack."""
    return [kw_colour(kw, bands) for kw in kws]


__all__ = [
    "FloorPicture",
    "RackFonts",
    "paint_legend",
    "paint_rack",
    "paint_scale_bar",
    "paint_tiles",
    "row_label",
    "row_label_spot",
    "tile_colours",
]
