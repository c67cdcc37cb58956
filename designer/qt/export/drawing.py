"""Draw a design into any QPainter (PDF, SVG, PNG), fitted to a target rectangle.

The drawing is the canvas's own (:class:`~designer.qt.canvas.offscreen.
OffscreenRenderer`: a scene of its own, made for exports), so an export looks
like the editor: devices and links, group frames, collapsed groups and, for a
design too big to draw device by device, its blocks and trunks.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QPainter, QPdfWriter, QPen

from designer.catalog.schema import CatalogEntry
from designer.core.model import Design
from designer.qt.canvas import style as st
from designer.qt.canvas.offscreen import OffscreenRenderer
from designer.view.canvas.device_labels import PRINT_MIN_LABEL_PX
from designer.view.canvas.selection import Cut

Catalog = Mapping[str, CatalogEntry]


def make_renderer(
    design: Design,
    catalog: Catalog | None = None,
    *,
    selection: Iterable[str] = (),
    cut: Cut | None = None,
) -> OffscreenRenderer:
    """A renderer for ``design`` as it is now (the selection and cut it shows)."""
    if catalog is None:
        from designer.catalog.loader import default_catalog

        catalog = default_catalog()
    return OffscreenRenderer(design, catalog, selection=selection, cut=cut)


def drawing_aspect(renderer: OffscreenRenderer, ids: set[str] | None = None) -> float:
    """Width / height of what :func:`render_design` draws (at least 0.05)."""
    if ids is None:
        rect = renderer.design_rect()
        return max(float(rect.width()) / max(float(rect.height()), 1.0), 0.05)
    g = renderer.scene.geometry
    rows = np.asarray([g.row_of[i] for i in ids if i in g.row_of], np.int64)
    x0, y0, x1, y1 = g.bounds(rows)
    return max((x1 - x0 + 40) / max(y1 - y0 + 40, 1.0), 0.05)


def fit_rect(target: QRectF, aspect: float) -> QRectF:
    """The largest rectangle of ``aspect`` (w/h) centred in ``target``."""
    if target.height() <= 0 or target.width() <= 0:
        return QRectF(target)
    if target.width() / target.height() > aspect:
        w = target.height() * aspect
        return QRectF(
            target.x() + (target.width() - w) / 2, target.y(), w, target.height()
        )
    h = target.width() / aspect
    return QRectF(target.x(), target.y() + (target.height() - h) / 2, target.width(), h)


def render_design(
    painter: QPainter,
    target: QRectF,
    renderer: OffscreenRenderer,
    *,
    selection_only: bool = False,
    ids: set[str] | None = None,
    source: QRectF | None = None,
) -> None:
    """Draw the renderer's design (or only ``ids``; ``source``: only that part of
    it, in scene units) fitted into ``target``."""
    if selection_only and ids is None:
        ids = set(renderer.selected_ids())
    aspect = (
        drawing_aspect(renderer, ids)
        if source is None
        else max(source.width() / max(source.height(), 1.0), 0.05)
    )
    fitted = fit_rect(target, aspect)
    # print: device labels whatever their size (the PDF is zoomed, not re-drawn),
    # none smaller than 6 pt
    on_paper = isinstance(painter.device(), QPdfWriter)
    painter.save()
    # links to devices beyond ``source`` (another strip) end at the frame
    painter.setClipRect(fitted, Qt.ClipOperation.IntersectClip)
    try:
        renderer.render(
            painter,
            fitted,
            ids=ids,
            labels=True if on_paper else None,
            source=source,
            min_label_px=PRINT_MIN_LABEL_PX if on_paper else None,
        )
    finally:
        painter.restore()


def legend(
    painter: QPainter, origin: QPointF, size: float = 7.0, width: float | None = None
) -> float:
    """Draw the fabric colour legend from ``origin``; return its width.

    ``size`` is the text height in painter units. Colours are the canvas's.
    ``width``: wrap to a new line before an entry that would pass it.
    """
    painter.save()
    font = QFont("Sans Serif")
    device = painter.device()
    font.setPointSizeF(size * 72.0 / ((device.logicalDpiY() if device else 0) or 72))
    painter.setFont(font)
    fm = QFontMetricsF(font, device)
    x, y, widest = origin.x(), origin.y(), 0.0
    for name in st.FABRICS:
        step = 22 + fm.horizontalAdvance(name) + 10
        if width is not None and x > origin.x() and x + step - 10 > origin.x() + width:
            x, y = origin.x(), y + fm.height() + 3
        painter.setPen(QPen(st.FABRIC_PEN[name], 2.0))
        painter.drawLine(QPointF(x, y), QPointF(x + 14, y))
        painter.setPen(st.TEXT)
        painter.drawText(QPointF(x + 17, y + fm.ascent() / 2 - 1), name)
        x += step
        widest = max(widest, x - origin.x())
    painter.restore()
    return widest


#: Most detail drawings a report adds after the overview (one per top group).
MAX_DETAIL_VIEWS = 16


def detail_views(
    design: Design, limit: int = MAX_DETAIL_VIEWS
) -> tuple[list[tuple[str, set[str]]], int]:
    """One view per scalable unit (else per top-level group) with its devices.

    Returns at most ``limit`` views and how many there are in all.
    """
    groups = design.group_map()
    use_su = any(g.kind.value == "su" for g in groups.values())
    unit_of: dict[str, str | None] = {}

    def unit(gid: str) -> str | None:
        if gid not in unit_of:
            g: str | None = gid
            found: str | None = None
            seen: set[str] = set()
            while g is not None and g in groups and g not in seen:
                seen.add(g)
                if use_su and groups[g].kind.value == "su":
                    found = g
                    break
                if not use_su:
                    found = g
                g = groups[g].parent
            unit_of[gid] = found
        return unit_of[gid]

    members: dict[str, set[str]] = defaultdict(set)
    for d in design.devices:
        if d.group is not None and d.group in groups:
            u = unit(d.group)
            if u is not None:
                members[u].add(d.id)
    order = [g.id for g in design.groups if g.id in members]
    views = [(groups[g].label or g, members[g]) for g in order[:limit]]
    return views, len(order)
