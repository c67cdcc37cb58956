"""Cable-count badges ("×8") on bundled links, drawn by the link layer at screen size.

Which links get one is decided without Qt (:mod:`designer.view.canvas.cable_labels`):
only when zoomed in, only bundles of more than one cable, at most a few
hundred, none overlapping. Here they are measured and painted: all badges as
one call, then one cached static text per distinct count.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QStaticText

from designer.qt.canvas import style as st
from designer.view.canvas.cable_labels import cable_label_rows, cable_text

if TYPE_CHECKING:
    from PySide6.QtGui import QFont

    from designer.view.canvas.geometry import Geometry

_PAD_X, _PAD_Y = 3.0, 1.0
_FILL = QColor(255, 255, 255, 235)

CableLabel = tuple[str, float, float]
"""(text, scene x, scene y) of one badge: the link's midpoint."""


class CableBadges:
    """Lays out and paints the cable counts of the single links in view."""

    def __init__(self, font: QFont) -> None:
        self.font = font
        self._metrics = QFontMetricsF(font)
        self._texts: dict[str, tuple[QStaticText, float]] = {}

    def _text(self, text: str) -> tuple[QStaticText, float]:
        hit = self._texts.get(text)
        if hit is None:
            static = QStaticText(text)
            static.prepare(font=self.font)
            hit = self._texts[text] = (static, self._metrics.horizontalAdvance(text))
        return hit

    def layout(
        self,
        g: Geometry,
        mask: np.ndarray,
        rect: tuple[float, float, float, float],
        px_per_unit: float,
    ) -> list[CableLabel]:
        """Badges for the links ``mask`` draws in ``rect`` at this zoom."""
        if mask.size == 0:
            return []
        widest = int(g.cables[mask].max(initial=0))
        if widest < 2:
            return []
        box = (
            self._metrics.horizontalAdvance(cable_text(widest)) + 2 * _PAD_X + 4,
            self._metrics.height() + 2 * _PAD_Y + 2,
        )
        rows = cable_label_rows(g, mask, rect, px_per_unit, box)
        if rows.size == 0:
            return []
        mid = (g.xy[g.la[rows]] + g.xy[g.lb[rows]]) / 2
        counts = g.cables[rows].tolist()
        return [
            (cable_text(n), float(x), float(y))
            for n, (x, y) in zip(counts, mid.tolist(), strict=True)
        ]

    def paint(
        self, painter: QPainter, labels: list[CableLabel], scale: float = 1.0
    ) -> None:
        """Draw ``labels`` at screen size (``scale``: device px per reference px)."""
        if not labels:
            return
        to_device = painter.worldTransform()
        h = self._metrics.height()
        box_h = round(h + 2 * _PAD_Y)
        placed: list[tuple[QStaticText, QPointF]] = []
        boxes: list[QRectF] = []
        for text, x, y in labels:
            static, w = self._text(text)
            c = to_device.map(QPointF(x, y)) / scale
            # whole pixels, no antialiasing: crisp edges, and one cheap call
            left, top = round(c.x() - w / 2 - _PAD_X), round(c.y() - h / 2 - _PAD_Y)
            boxes.append(QRectF(left, top, round(w + 2 * _PAD_X), box_h))
            placed.append((static, QPointF(left + _PAD_X, top + _PAD_Y)))
        painter.save()
        painter.resetTransform()
        if scale != 1.0:
            painter.scale(scale, scale)  # reference px: the same physical size
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        pen = painter.pen()
        pen.setColor(st.FRAME)
        pen.setWidthF(0.0)
        pen.setCosmetic(True)
        painter.setPen(pen)
        painter.setBrush(_FILL)
        painter.drawRects(boxes)
        painter.setFont(self.font)
        painter.setPen(st.TEXT)
        for static, at in placed:
            painter.drawStaticText(at, static)
        painter.restore()
