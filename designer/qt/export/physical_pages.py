"""The report's physical pages: the floor plan, then the rack elevations.

Only for a placed design (one with a ``physical`` block). The floor plan
draws every hall, row and rack to scale, each rack in its kW colour
(:func:`designer.view.physical.floor.kw_bands`), with a legend and a scale bar. The
elevations fold racks of one layout (same entries at the same units) into one
drawing, lay them out at a unit height that keeps every label at least 6 pt
(:func:`designer.view.physical.elevation.print_plan`), several per page and as many
pages as needed, then list which racks each drawing stands for. The drawing
is the editor's own (:mod:`designer.qt.physical.paint`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import ceil
from typing import Any

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QPainter, QPen

from designer.catalog.schema import CatalogEntry
from designer.core.model import Design
from designer.core.physical import FACILITY_SOURCES
from designer.physical.views import PhysicalView, RackView
from designer.qt.export.layout import MUTED, Column, Flow, font
from designer.qt.physical.paint import (
    FloorPicture,
    RackFonts,
    paint_legend,
    paint_rack,
    paint_scale_bar,
    paint_tiles,
    row_label,
    row_label_spot,
)
from designer.view.physical.elevation import (
    LABEL_PT,
    ElevationLayout,
    alike_racks,
    load_text,
    print_plan,
)
from designer.view.physical.floor import kw_bands, kw_colour, label_room, scale_length

MAX_LAYOUTS = 48
"""Most rack layouts drawn (the table after them lists every rack)."""
FLOOR_TITLE = "Floor plan"
ELEVATION_TITLE = "Rack elevations"
_HEAD = 34.0  # title and one line under it


def physical_pages(
    flow: Flow, design: Design, catalog: Mapping[str, CatalogEntry] | None
) -> None:
    """Lay the floor plan and rack elevation pages out (nothing when unplaced)."""
    if design.physical is None or not design.physical.racks:
        return
    from designer.catalog.loader import Catalog

    loaded = catalog if isinstance(catalog, Catalog) else None
    view = PhysicalView(design, loaded)
    tiers = {d.id: d.tier.value for d in design.devices if d.tier is not None}
    _floor_page(flow, view)
    _elevation_pages(flow, view, tiers)


def _title(flow: Flow, title: str, note: str) -> float:
    r = flow.page.rect
    y = r.top() + flow.text_at(title, font(13, bold=True), QRectF(r))
    y += flow.text_at(note, font(7.5), QRectF(r.left(), y + 2, r.width(), 40), MUTED)
    return y + 8


def _floor_page(flow: Flow, view: PhysicalView) -> None:
    plan = view.floor()
    flow.new_page(landscape=True)
    facility = view.phys.physical.facility
    bands = kw_bands(facility)
    it_kw = sum(h.kw for h in plan.halls)
    over = sum(1 for r in plan.racks if r.over_power or r.over_cooling)
    area = sum(h.width_m * h.depth_m for h in plan.halls)
    note = (
        f"{len(plan.racks):,} racks in {len(plan.rows):,} rows, {area:,.0f} m² of "
        f"hall; IT load {it_kw:,.1f} kW (catalog maximum power per device); "
        f"hottest rack {plan.max_rack_kw:,.1f} kW"
        + (f"; {over:,} rack(s) over their limit, outlined red" if over else "")
        + ". Colour bands by IT load; their edges are the facility's kW per "
        f"cooling class: air {facility.air_kw:g} kW ({FACILITY_SOURCES['air_kw']}), "
        f"containment {facility.containment_kw:g} kW "
        f"({FACILITY_SOURCES['containment_kw']}), liquid {facility.liquid_kw:g} kW "
        f"({FACILITY_SOURCES['liquid_kw']})."
    )
    top = _title(flow, FLOOR_TITLE, note)
    r = flow.page.rect
    box = QRectF(r.left(), top, r.width(), r.bottom() - flow.footer_height - top - 4)
    label_w = 70.0  # row labels left of the rows
    x0 = min([h.x_m for h in plan.halls] + [t.x_m for t in plan.racks])
    y0 = min([h.y_m for h in plan.halls] + [t.y_m for t in plan.racks])
    x1 = max(
        [h.x_m + h.width_m for h in plan.halls]
        + [t.x_m + t.width_m for t in plan.racks]
    )
    y1 = max(
        [h.y_m + h.depth_m for h in plan.halls]
        + [t.y_m + t.depth_m for t in plan.racks]
    )
    legend_w = 150.0
    room = box.adjusted(label_w, 0, -legend_w - 8, -22)
    s = min(room.width() / max(x1 - x0, 1e-6), room.height() / max(y1 - y0, 1e-6))
    ox = room.left() - x0 * s
    oy = room.top() - y0 * s
    pic = FloorPicture(
        ids=[t.id for t in plan.racks],
        x=np.array([t.x_m for t in plan.racks]),
        y=np.array([t.y_m for t in plan.racks]),
        w=np.array([t.width_m for t in plan.racks]),
        d=np.array([t.depth_m for t in plan.racks]),
        colour=[kw_colour(t.kw, bands) for t in plan.racks],
        over=np.array([t.over_power or t.over_cooling for t in plan.racks]),
        selected=np.zeros(len(plan.racks), dtype=np.bool_),
    )
    halls = [QRectF(h.x_m, h.y_m, h.width_m, h.depth_m) for h in plan.halls]

    def drawing(p: QPainter) -> None:
        p.save()
        p.translate(ox, oy)
        p.scale(s, s)
        p.setPen(QPen(QColor("#8a94a6"), 0.8 / s))
        p.setBrush(QBrush(QColor("#ffffff")))
        p.drawRects(halls)
        paint_tiles(p, pic, 0.25 / s)
        p.restore()

    flow.add(drawing)
    small = font(LABEL_PT)
    fm = QFontMetricsF(small, flow.device)
    # rows stand ~2.4 m apart: label every k-th so labels never overlap
    pitch = min(
        (
            abs(a.y_m - b.y_m)
            for a, b in zip(plan.rows, plan.rows[1:], strict=False)
            if abs(a.y_m - b.y_m) > 1e-6
        ),
        default=10.0,
    )
    step = max(1, ceil(fm.height() / max(pitch * s, 1e-6)))
    rooms = label_room(
        [(row.x_m, row.y_m) for row in plan.rows],
        [(t.x_m, t.y_m, t.width_m) for t in plan.racks],
        label_w / s,
    )
    lines = 2 if pitch * s * step >= 2 * fm.height() else 1
    labels = []
    for k, (row, free) in enumerate(zip(plan.rows, rooms, strict=True)):
        if k % step or free * s - 3 < fm.horizontalAdvance("su0…"):
            continue
        at = QPointF(ox + row.x_m * s, oy + row.y_m * s)
        edge = _hall_left(plan.halls, row.x_m, row.y_m)
        right, width = row_label_spot(
            fm,
            row.label,
            at.x() - 2,
            None if edge is None else ox + edge * s,
            min(free * s - 3, label_w - 3),
            label_w - 3,
            lines,
        )
        labels.append((row.label, QPointF(right, at.y()), width))
    # rack names inside their footprint, turned when the rack is deeper than wide
    tile_labels: list[tuple[str, QRectF, bool]] = []
    for t in plan.racks:
        w, h = t.width_m * s, t.depth_m * s
        need = fm.horizontalAdvance(t.label) + 2
        rect = QRectF(ox + t.x_m * s, oy + t.y_m * s, w, h)
        if h >= fm.height() and w >= need:
            tile_labels.append((t.label, rect, False))
        elif w >= fm.height() and h >= need:
            tile_labels.append((t.label, rect, True))

    def texts(p: QPainter) -> None:
        p.setFont(small)
        p.setPen(MUTED)
        for text, at, w in labels:
            # a long row name takes two lines when the next labelled row leaves room
            shown, spot, flags = row_label(fm, text, at.x(), at.y(), w, lines)
            p.drawText(spot, flags, shown)
        p.setPen(QColor("#1d2430"))
        centre = int(Qt.AlignmentFlag.AlignCenter)
        for text, rect, turned in tile_labels:
            if not turned:
                p.drawText(rect, centre, text)
                continue
            p.save()
            p.translate(rect.center())
            p.rotate(-90)
            p.drawText(
                QRectF(
                    -rect.height() / 2, -rect.width() / 2, rect.height(), rect.width()
                ),
                centre,
                text,
            )
            p.restore()
        paint_legend(p, QPointF(box.right() - legend_w, box.top()), bands, font(6.5))
        metres = scale_length(1.0 / s, 110.0)
        paint_scale_bar(
            p, QPointF(room.left(), box.bottom() - 4), metres * s, metres, font(6.5)
        )

    flow.add(texts)
    if step > 1:
        flow.text_at(
            f"Every {step}th row is labelled (rows are too close at this scale).",
            font(6.5),
            QRectF(room.left() + 160, box.bottom() - 12, 300, 12),
            MUTED,
        )
    flow.y = r.bottom()


def _print_fonts() -> RackFonts:
    return RackFonts(
        name=font(7, bold=True),
        load=font(LABEL_PT),
        device=font(LABEL_PT),
        rail=font(LABEL_PT),
    )


def _elevation_pages(flow: Flow, view: PhysicalView, tiers: dict[str, str]) -> None:
    folded = alike_racks(view.racks())
    drawn = folded[:MAX_LAYOUTS]
    rect = flow.rects[True]
    title_room = _HEAD + 20
    height = rect.height() - flow.footer_height - title_room - 6
    plan = print_plan([r.u for r, _ in drawn], rect.width(), height)
    fonts = _print_fonts()
    n_racks = sum(len(ids) for _, ids in folded)
    more = (
        f" The first {MAX_LAYOUTS} of {len(folded):,} layouts are drawn; the table "
        "lists every rack."
        if len(folded) > MAX_LAYOUTS
        else ""
    )
    note = (
        f"{n_racks:,} racks in {len(folded):,} layouts: racks holding the same "
        "entries at the same units are drawn once, captioned with how many share "
        "the layout. Front view, U 1 at the bottom. kW: catalog maximum power; "
        "the limit is the lower of the rack type's feeds and the facility's kW "
        "for the rack's cooling class." + more
    )
    for page_no, page in enumerate(plan.pages):
        flow.new_page(landscape=True)
        suffix = f" ({page_no + 1} of {len(plan.pages)})" if len(plan.pages) > 1 else ""
        top = _title(flow, ELEVATION_TITLE + suffix, note if page_no == 0 else "")
        band_h = (flow.page.rect.bottom() - flow.footer_height - top) / plan.bands
        for b, band in enumerate(page):
            racks = [drawn[i] for i in band]
            lay = ElevationLayout([(r.id, r.u) for r, _ in racks], plan.style)
            ox, oy = flow.page.rect.left(), top + b * band_h

            def op(
                p: QPainter,
                lay: ElevationLayout = lay,
                racks: list[tuple[RackView, tuple[str, ...]]] = racks,
                ox: float = ox,
                oy: float = oy,
            ) -> None:
                p.translate(ox, oy)
                for i, (rack, ids) in enumerate(racks):
                    caption = f"× {len(ids):,} racks alike" if len(ids) > 1 else None
                    paint_rack(
                        p,
                        lay,
                        i,
                        rack,
                        fonts,
                        tier_of=tiers.get,
                        caption=caption,
                        line=0.5,
                    )

            flow.add(op)
        flow.y = flow.page.rect.bottom()
    flow.new_page(landscape=False)
    flow.heading("Racks by layout")
    rows = []
    for rack, ids in folded:
        shown = ", ".join(ids[:24]) + (
            f", and {len(ids) - 24:,} more" if len(ids) > 24 else ""
        )
        rows.append(
            [
                rack.label,
                f"{len(ids):,}",
                f"{rack.type}, {rack.u}U",
                load_text(rack),
                shown,
            ]
        )
    flow.table(
        [
            Column("Drawn as", 1.2),
            Column("Racks", 0.6, right=True),
            Column("Rack type", 1.2),
            Column("kW / limit", 1.1, right=True),
            Column("Racks of this layout", 4.5),
        ],
        rows,
    )
    kinds = view.phys.physical.rack_type_map()
    used = dict.fromkeys(r.type for r, _ in folded)
    flow.heading("Rack types", 11)
    flow.table(
        [
            Column("Rack type", 1.4),
            Column("U", 0.4, right=True),
            Column("Feeds", 0.7, right=True),
            Column("Estimate", 0.8),
            Column("Source", 5.5),
        ],
        [
            [
                kinds[k].label or k,
                str(kinds[k].u),
                f"{kinds[k].max_kw:,.0f} kW",
                "estimate" if kinds[k].estimate else "",
                kinds[k].source,
            ]
            for k in used
            if k in kinds
        ],
    )


__all__ = ["ELEVATION_TITLE", "FLOOR_TITLE", "MAX_LAYOUTS", "physical_pages"]


def _hall_left(halls: Sequence[Any], x: float, y: float) -> float | None:
    """The left wall of the hall a row starting at (x, y) stands in."""
    for h in halls:
        if h.x_m - 1e-6 <= x <= h.x_m + h.width_m and h.y_m - 1e-6 <= y <= (
            h.y_m + h.depth_m
        ):
            return float(h.x_m)
    return None
