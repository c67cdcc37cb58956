"""Drawing a DesignScene into any painter (screenshots, PDF/SVG/PNG exports)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPainter, QTransform

from designer.qt.canvas import style as st

if TYPE_CHECKING:
    from designer.qt.canvas.items import DeviceItem
    from designer.qt.canvas.scene import DesignScene


def render_design(
    scene: DesignScene,
    painter: QPainter,
    target: QRectF,
    *,
    selection_only: bool = False,
    ids: set[str] | None = None,
) -> None:
    """Draw ``scene``'s design into ``painter``'s ``target`` rect (see render_to)."""
    wanted: set[str] | None = set(ids) if ids is not None else None
    if selection_only:
        chosen = set(scene.selected_ids())
        wanted = chosen if wanted is None else wanted & chosen
    g = scene.geometry
    saved_overview = scene.overview
    hidden_items: list[DeviceItem] = []
    try:
        if wanted is not None:
            keep = np.fromiter((i in wanted for i in g.ids), bool, len(g.ids))
            scene._only_rows = keep
            rows = np.nonzero(keep)[0]
            x0, y0, x1, y1 = g.bounds(rows)
            source = QRectF(QPointF(x0, y0), QPointF(x1, y1)).adjusted(-20, -20, 20, 20)
            for did, item in scene._items.items():
                if did not in wanted and item.isVisible():
                    item.setVisible(False)
                    hidden_items.append(item)
            scene.set_overview(False)
            for frame in scene._frame_items:
                frame.setVisible(False)
            for block in scene._block_items:
                block.setVisible(False)
            for line, label in scene._trunk_items:
                line.setVisible(False)
                label.setVisible(False)
        else:
            source = scene.design_rect()
            iso = min(
                target.width() / max(source.width(), 1e-9),
                target.height() / max(source.height(), 1e-9),
            )
            scene.set_overview(scene.wants_overview(source, iso))
        mode = Qt.AspectRatioMode.KeepAspectRatio
        if scene.overview and source.width() > 0 and target.width() > 0:
            # the quotient of a long flat fabric is stretched vertically
            iso_h = source.width() * target.height() / target.width()
            new_h = max(
                source.height() / st.OVERVIEW_FILL,
                iso_h / st.OVERVIEW_MAX_STRETCH,
            )
            if new_h < iso_h:
                c = source.center()
                source = QRectF(source.left(), c.y() - new_h / 2, source.width(), new_h)
                mode = Qt.AspectRatioMode.IgnoreAspectRatio
        sx = target.width() / max(source.width(), 1e-9)
        sy = target.height() / max(source.height(), 1e-9)
        if mode == Qt.AspectRatioMode.KeepAspectRatio:
            sx = sy = min(sx, sy)
        saved_transform = scene._label_transform
        scene.declutter_labels(QTransform.fromScale(sx, sy))
        scene._bump()
        scene.render(painter, target, source, mode)
        scene.declutter_labels(saved_transform)
    finally:
        scene._only_rows = None
        for item in hidden_items:
            item.setVisible(True)
        if wanted is not None or scene.overview != saved_overview:
            scene.overview = not saved_overview
            scene.set_overview(saved_overview)
        scene._bump()
