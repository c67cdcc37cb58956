"""Detail pages of the PDF report: one landscape page per scalable unit.

Page 1 shows the whole design, too small to name a device. Each detail page
draws one unit (its devices and the links among them) as large as the page
allows: a long unit is cut between device columns into strips stacked down the
page (:mod:`designer.view.pages.strips`). Device labels are never smaller than 6 pt
(:data:`designer.view.canvas.device_labels.PRINT_MIN_LABEL_PX`); a box too small for a
device's whole name shows a shorter form, and the key under the drawing lists
the names of the unit's devices by model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPainter, QPen

from designer.catalog.schema import CatalogEntry
from designer.core.model import Design
from designer.core.names import device_name
from designer.qt.export.drawing import legend
from designer.qt.export.layout import MUTED, RULE, Flow, font, text_layout
from designer.view.canvas.device_labels import label_range
from designer.view.pages.strips import plan_strips

#: draw(painter, target, ids, source): the unit's devices, ``source`` scene rect.
DrawStrip = Callable[..., None]
#: Share of the page width the device key takes beside strips that the page's
#: height limits (else the key runs under them).
SIDE_KEY = 0.2

#: Vertical gap (pt) between two strips of one unit.
STRIP_GAP = 16.0
#: Height (pt) of the legend under the key.
_LEGEND = 16.0


def unit_key(
    design: Design, ids: set[str], catalog: Mapping[str, CatalogEntry] | None
) -> str:
    """The unit's devices by model, in model order: "32x DGX H100: DGX H100 #1 –
    #32 · 8x Quantum-2 QM9700: Leaf SU1 rail 0 – 7"."""
    runs: dict[str, list[str]] = {}
    for d in design.devices:
        if d.id in ids:
            entry = catalog.get(d.catalog_id) if catalog is not None else None
            model = entry.model if entry is not None else d.catalog_id
            runs.setdefault(model, []).append(device_name(d.label, d.id, model))
    return " · ".join(
        f"{len(names):,}x {model}: {label_range(names)}"
        for model, names in runs.items()
    )


def _note(devices: int, name: str, strips: int, n: int, of: int) -> str:
    """The line under a detail page's title."""
    more = f"; the first {n} of {of} units have a page" if of > n else ""
    how = (
        f"drawn in {strips} strips, left to right from the top"
        if strips > 1
        else "drawn whole"
    )
    return (
        f"The {devices:,} devices of {name}, {how}; links to devices outside it "
        f"are left out{more}. Device labels are 6 pt or larger: a box too small "
        "for a whole name shows a shorter form (its number); the names are listed "
        "under the drawing."
    )


def _centres(design: Design, ids: set[str]) -> np.ndarray:
    return np.array([(d.x, d.y) for d in design.devices if d.id in ids], float).reshape(
        -1, 2
    )


def su_detail_pages(
    flow: Flow,
    design: Design,
    draw: DrawStrip,
    details: Sequence[tuple[str, set[str], float]],
    of: int,
    catalog: Mapping[str, CatalogEntry] | None = None,
) -> None:
    """One landscape page per unit of ``details`` (name, device ids, aspect);
    ``of``: how many units the design has (some may be left out)."""
    if catalog is None:
        from designer.catalog.loader import default_catalog

        catalog = default_catalog()
    n = len(details)
    for k, (name, ids, _) in enumerate(details):
        page = flow.new_page(landscape=True)
        r = page.rect
        y = r.top()
        y += flow.text_at(
            f"Detail {k + 1} of {n}: {name}", font(13, bold=True), QRectF(r)
        )
        key = f"Devices: {unit_key(design, ids, catalog)}"
        _, key_h = text_layout(key, font(7.5), r.width(), flow.device)
        bottom = r.bottom() - flow.footer_height - _LEGEND - key_h - 6
        # the plan needs the header's height, the header names the strips: plan
        # with the longest header, which is the one with strips
        note = _note(len(ids), name, 2, n, of)
        _, note_h = text_layout(note, font(7.5), r.width(), flow.device)
        plan_room = QRectF(r.left(), y + note_h + 14, r.width(), 0)
        plan_room.setBottom(bottom)
        centres = _centres(design, ids)
        plan = plan_strips(centres, plan_room.width(), plan_room.height(), STRIP_GAP)
        # strips limited by the page's height leave its right side empty: the
        # key goes there, and the strips take the height the key left
        side = r.width() * SIDE_KEY
        widest = max((x1 - x0) * plan.scale for x0, _, x1, _ in plan.rects)
        key_beside = False
        if r.width() - widest >= side:
            tall = QRectF(plan_room)
            tall.setBottom(r.bottom() - flow.footer_height)
            tall.setWidth(r.width() - side)
            other = plan_strips(centres, tall.width(), tall.height(), STRIP_GAP)
            if other.scale >= plan.scale:
                plan, plan_room, key_beside = other, tall, True
        strips = len(plan.rects)
        flow.text_at(
            _note(len(ids), name, strips, n, of),
            font(7.5),
            QRectF(r.left(), y + 2, r.width(), note_h),
            MUTED,
        )
        top = plan_room.top()
        for j, (x0, y0, x1, y1) in enumerate(plan.rects):
            w, h = (x1 - x0) * plan.scale, (y1 - y0) * plan.scale
            slot = QRectF(plan_room.left(), top, w, h)
            top += h + STRIP_GAP
            source = QRectF(QPointF(x0, y0), QPointF(x1, y1))

            def frame(p: QPainter, rect: QRectF = slot) -> None:
                p.setPen(QPen(RULE, 0.6))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRect(rect)

            def strip(
                p: QPainter,
                rect: QRectF = slot,
                src: QRectF = source,
                only: set[str] = ids,
            ) -> None:
                draw(p, rect, only, src)

            flow.add(frame)
            flow.add(strip)
            if strips > 1:
                flow.text_at(
                    f"{j + 1}/{strips}",
                    font(6.5),
                    QRectF(slot.right() - 40, slot.top() - 9, 40, 9),
                    MUTED,
                    Qt.AlignmentFlag.AlignRight,
                )
        if key_beside:
            used = max((x1 - x0) * plan.scale for x0, _, x1, _ in plan.rects)
            column = QRectF(
                r.left() + used + 14, plan_room.top(), r.width() - used - 14, 0
            )
            _, side_h = text_layout(key, font(7.5), column.width(), flow.device)
            column.setHeight(side_h)
            flow.text_at(key, font(7.5), column)
            legend_at = QPointF(column.left(), column.bottom() + 10)
            legend_width: float | None = column.width()
        else:
            legend_width = None
            key_top = max(top - STRIP_GAP + 6, plan_room.top())
            flow.text_at(key, font(7.5), QRectF(r.left(), key_top, r.width(), key_h))
            legend_at = QPointF(r.left(), key_top + key_h + 10)

        def key_legend(
            p: QPainter, at: QPointF = legend_at, wide: float | None = legend_width
        ) -> None:
            legend(p, at, width=wide)

        flow.add(key_legend)
        flow.y = r.bottom()
