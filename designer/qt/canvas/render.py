"""Drawing a DesignScene into any painter (screenshots, PDF/SVG/PNG exports)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPainter, QTransform

from designer.qt.canvas.items import REFERENCE_DPI
from designer.view import sizes as sz

if TYPE_CHECKING:
    from designer.qt.canvas.scene import DesignScene


def text_scale_of(painter: QPainter) -> float:
    """Device pixels per reference (96 dpi) pixel of the painter's device."""
    device = painter.device()
    dpi = device.logicalDpiY() if device is not None else 0
    return dpi / REFERENCE_DPI if dpi > 0 else 1.0


def render_design(
    scene: DesignScene,
    painter: QPainter,
    target: QRectF,
    *,
    selection_only: bool = False,
    ids: set[str] | None = None,
    labels: bool | None = None,
) -> None:
    """Draw ``scene``'s design into ``painter``'s ``target`` rect (see render_to)."""
    wanted: set[str] | None = set(ids) if ids is not None else None
    if selection_only:
        chosen = set(scene.selected_ids())
        wanted = chosen if wanted is None else wanted & chosen
    g = scene.geometry
    saved_overview = scene.overview
    saved_transform = scene.label_transform()
    saved_bounds = scene.label_bounds()
    # everything sized in screen pixels is scaled by dpi / 96 and every
    # screen-pixel threshold (level of detail, semantic zoom, label clutter)
    # is judged in 96 dpi pixels: the picture is the same at any resolution
    scale = text_scale_of(painter)
    # device pixels per painter unit (a PDF painter works in points)
    unit = painter.worldTransform().mapRect(QRectF(0, 0, 1, 1))
    per_px = (unit.width() or 1.0) / scale
    scene.text_scale = scale
    scene.device_labels = labels
    scene.exporting = True
    try:
        if wanted is not None:
            keep = scene.isolate(wanted)
            x0, y0, x1, y1 = g.bounds(np.nonzero(keep)[0])
            source = QRectF(QPointF(x0, y0), QPointF(x1, y1)).adjusted(-20, -20, 20, 20)
        else:
            source = scene.design_rect()
            iso = min(
                target.width() / max(source.width(), 1e-9),
                target.height() / max(source.height(), 1e-9),
            )
            scene.set_overview(scene.wants_overview(source, iso * per_px))
        mode = Qt.AspectRatioMode.KeepAspectRatio
        if scene.overview and source.width() > 0 and target.width() > 0:
            # the quotient of a long flat fabric is stretched vertically
            iso_h = source.width() * target.height() / target.width()
            new_h = max(
                source.height() / sz.OVERVIEW_FILL,
                iso_h / sz.OVERVIEW_MAX_STRETCH,
            )
            if new_h < iso_h:
                c = source.center()
                source = QRectF(source.left(), c.y() - new_h / 2, source.width(), new_h)
                mode = Qt.AspectRatioMode.IgnoreAspectRatio
        sx = target.width() / max(source.width(), 1e-9)
        sy = target.height() / max(source.height(), 1e-9)
        if mode == Qt.AspectRatioMode.KeepAspectRatio:
            sx = sy = min(sx, sy)
        to_px = QTransform.fromScale(sx * per_px, sy * per_px)
        scene.declutter_labels(to_px, to_px.mapRect(source))
        scene.invalidate_links()
        scene.render(painter, target, source, mode)
    finally:
        scene.text_scale = 1.0
        scene.device_labels = None
        scene.exporting = False
        if wanted is not None:
            scene.isolate(None)
        scene.set_overview(saved_overview)
        scene.declutter_labels(saved_transform, saved_bounds)
        scene.invalidate_links()
