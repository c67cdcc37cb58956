"""The link layer: every single (non-bundled) link as one item, built from numpy.

Hundreds of thousands of links never become QGraphicsItems: the layer culls
them per paint with the geometry's vectorised queries, draws them as one path
per pen, and, zoomed in, adds the cable count of bundles
(:mod:`designer.qt.canvas.cables`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import numpy as np
import pyqtgraph.functions as pgf
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from designer.qt.canvas import style as st
from designer.qt.canvas.cables import CableBadges, CableLabel
from designer.qt.canvas.items import cosmetic, font
from designer.view.canvas import sizes as sz

if TYPE_CHECKING:
    from designer.view.canvas.geometry import Geometry


def _blend(colour: QColor, keep: float) -> QColor:
    """``colour`` mixed with the background (``keep`` = 1 is the colour itself)."""
    bg = st.BACKGROUND
    return QColor(
        round(colour.red() * keep + bg.red() * (1 - keep)),
        round(colour.green() * keep + bg.green() * (1 - keep)),
        round(colour.blue() * keep + bg.blue() * (1 - keep)),
    )


class LinkSource(Protocol):
    """What the link layer draws from: the links shown, and when they change."""

    @property
    def link_state(self) -> int:
        """Bumped whenever the links drawn or their highlights change."""
        ...

    @property
    def text_scale(self) -> float:
        """Device px per reference px of the painter (exports)."""
        ...

    @property
    def overview(self) -> bool:
        """Whether the quotient of the whole design is drawn."""
        ...

    def drawn_links(
        self,
    ) -> tuple[Geometry, np.ndarray, list[tuple[QColor, float, np.ndarray]]]:
        """Geometry, single-link mask and highlight layers (never flushes)."""
        ...


class LinkLayerItem(QGraphicsItem):
    """Every single (non-bundled) link, culled and built from numpy at paint time.

    One item, so Qt's index and hit tests never see hundreds of thousands of
    links; ``shape()`` is empty, picking is the scene's numpy query.
    """

    def __init__(self, source: LinkSource) -> None:
        super().__init__()
        self._scene = source
        self._bounds = QRectF()
        self._cache: dict[tuple[object, ...], list[tuple[QPen, QPainterPath]]] = {}
        self._badges = CableBadges(font("small"))
        self._labels: dict[tuple[object, ...], list[CableLabel]] = {}
        #: cable-count badges of the last paint (text, scene x, scene y)
        self.cable_labels: list[CableLabel] = []
        self.hidden_through = 0
        # What the last build drew alike everywhere (the pens, the sampling):
        # repainting only the changed lines is right while it stays the same.
        self._look: tuple[object, ...] = ()
        #: a repaint of the whole layer is asked for and not painted yet
        self._whole = True
        #: the scene area repainted for changed lines since the last paint
        self._partial: QRectF | None = None
        self.setZValue(st.Z_LINKS)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def set_bounds(self, rect: QRectF) -> None:
        """Cover the whole scene rect."""
        self.prepareGeometryChange()
        self._bounds = QRectF(rect)
        self._cache.clear()
        self._labels.clear()

    def invalidate(self, lines: QRectF | None = None) -> None:
        """Links or positions changed: rebuild paths at the next paint.

        ``lines``: the scene area where lines changed, the only part repainted
        (an empty rect: none changed); None: repaint the whole layer. Should
        the paint find that the change reached further (the pens of dense
        bundles lighten with their number, a sampled view draws other lines,
        the badges lay out anew), it repaints the whole layer after all.
        """
        self._cache.clear()
        self._labels.clear()
        if lines is None:
            self._whole = True
            self.update()
            return
        self._repaint(lines)

    def relabel(self, lines: QRectF) -> None:
        """The lines of ``lines`` are drawn as before but their cable counts
        changed: lay the badges out again and repaint that area (the paths
        stay; a badge elsewhere that changes repaints the whole layer)."""
        self._labels.clear()
        self._repaint(lines)

    def _repaint(self, lines: QRectF) -> None:
        """Repaint the area ``lines`` at the next paint, and note it."""
        self._partial = lines if self._partial is None else self._partial.united(lines)
        scene = self.scene()
        if not lines.isEmpty() and scene is not None:
            # the scene's area, not this item's: an item's update(rect) repaints
            # all of its bounding rect (the whole scene) all the same
            scene.update(self.mapRectToScene(lines))

    def _reaches_further(self, look: tuple[object, ...]) -> None:
        """Repaint the whole layer when a repaint of only the changed lines
        would leave other lines as they were drawn with another ``look``."""
        if look != self._look and not self._whole and self._partial is not None:
            self._whole = True
            self.update()
        self._look = look

    def boundingRect(self) -> QRectF:
        """The scene rect."""
        return self._bounds

    def shape(self) -> QPainterPath:
        """Empty: Qt must never hit-test this layer."""
        return QPainterPath()

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionGraphicsItem,
        widget: QWidget | None = None,
    ) -> None:
        """Draw the links meeting the exposed rect, one path per pen."""
        r = option.exposedRect
        # Build for everything the painter's device shows, not just the exposed
        # part: a small repaint (one moved device) then reuses the cached paths,
        # and QGraphicsView.render(), which exposes the whole item, is culled.
        inverse, ok = painter.worldTransform().inverted()
        device = painter.device()
        if ok and device is not None:
            shown = inverse.mapRect(QRectF(0, 0, device.width(), device.height()))
            r = shown.intersected(self._bounds) if not self._bounds.isNull() else shown
        rect = (r.left(), r.top(), r.right(), r.bottom())
        sc = self._scene
        key = (sc.link_state, tuple(round(v, 1) for v in rect), sc.text_scale)
        paths = self._cache.get(key)
        if paths is None:
            if len(self._cache) >= 4 or any(k[0] != sc.link_state for k in self._cache):
                self._cache.clear()
            paths, look = self._build(rect, sc.text_scale)
            self._cache[key] = paths
            self._reaches_further(look)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        if ok and device is not None and not painter.hasClipping():
            # lines run on past the device's edge; with no clip the raster
            # engine strokes those parts too (twice the time when zoomed in)
            painter.setClipRect(r.adjusted(-2, -2, 2, 2))
        for pen, path in paths:
            painter.setPen(pen)
            painter.drawPath(path)
        # zoomed in far enough to read them: bundles say how many cables they are
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        lod /= sc.text_scale
        if lod < sz.LOD_CABLE_LABELS or sc.overview:
            self._badges_moved([])
            self.cable_labels = []
            self._painted()
            return
        label_key = (*key, round(lod, 4))
        labels = self._labels.get(label_key)
        if labels is None:
            if len(self._labels) >= 4:
                self._labels.clear()
            g, mask, _ = sc.drawn_links()
            labels = self._badges.layout(g, mask, rect, lod)
            self._labels[label_key] = labels
        self._badges_moved(labels)
        self.cable_labels = labels
        self._badges.paint(painter, labels, sc.text_scale)
        self._painted()

    def _badges_moved(self, labels: list[CableLabel]) -> None:
        """Repaint the whole layer when a badge outside the changed lines' area
        came, went or changed (a wider count lays them all out anew)."""
        if self._whole or self._partial is None:
            return
        area = self._partial
        changed = set(labels).symmetric_difference(self.cable_labels)
        if any(not area.contains(x, y) for _, x, y in changed):
            self._whole = True
            self.update()

    def _painted(self) -> None:
        self._whole = False
        self._partial = None

    def _build(
        self, rect: tuple[float, float, float, float], scale: float
    ) -> tuple[list[tuple[QPen, QPainterPath]], tuple[object, ...]]:
        """The paths of the lines in ``rect``, one per pen, and their look
        (what is alike for every line: the pens, how the lines are sampled)."""
        g, mask, highlights = self._scene.drawn_links()
        if mask.size == 0:
            return [], ("none",)
        idx = g.segments_in_rect(mask, rect)
        pa = g.xy[g.la[idx]]
        pb = g.xy[g.lb[idx]]
        self.hidden_through = 0
        through = idx.size > sz.THROUGH_LINK_BUDGET  # the far lines left out
        if through:
            x0, y0, x1, y1 = rect
            in_a = _inside(pa, rect)
            in_b = _inside(pb, rect)
            # links that only pass through the view (both ends outside) are noise
            # at this zoom and cost a full-width line each: leave them out
            keep = in_a | in_b
            self.hidden_through = int((~keep).sum())
            idx, pa, pb, in_a, in_b = (
                idx[keep],
                pa[keep],
                pb[keep],
                in_a[keep],
                in_b[keep],
            )
            # links leaving the view are drawn as stubs pointing at their far end
            reach = 0.15 * float(np.hypot(x1 - x0, y1 - y0))
            pa = _stub(pa, pb, ~in_a & in_b, reach)
            pb = _stub(pb, pa, in_a & ~in_b, reach)
        sampled: object = False
        if idx.size > sz.MAX_DRAWN_LINKS:
            step = int(np.ceil(idx.size / sz.MAX_DRAWN_LINKS))
            idx, pa, pb = idx[::step], pa[::step], pb[::step]
            sampled = self._scene.link_state  # other lines each time: all anew
        pos = np.arange(idx.size)
        layers: list[tuple[QPen, np.ndarray]] = []
        fab = g.fabric[idx]
        # dense bundles get lighter (pre-blended, opaque: translucent pens make
        # the raster engine stroke a path ten times slower)
        shade = float(np.clip(10 / np.sqrt(max(idx.size, 1)), 0.2, 1.0))
        for code, name in enumerate(st.FABRICS):
            pen = cosmetic(_blend(st.FABRIC_PEN[name], shade), 1.0, scale)
            layers.append((pen, pos[fab == code]))
        for colour, width, chosen in highlights:
            sel = pos[chosen[idx]] if chosen.size else pos[:0]
            layers.append((cosmetic(colour, width, scale), sel))
        out: list[tuple[QPen, QPainterPath]] = []
        for pen, sel in layers:
            if sel.size == 0:
                continue
            x = np.empty(sel.size * 2)
            y = np.empty(sel.size * 2)
            x[0::2], x[1::2] = pa[sel, 0], pb[sel, 0]
            y[0::2], y[1::2] = pa[sel, 1], pb[sel, 1]
            out.append((pen, pgf.arrayToQPath(x, y, connect="pairs")))
        pens = tuple((pen.color().rgba(), pen.widthF()) for pen, _ in layers)
        return out, (pens, through, sampled)


def _inside(p: np.ndarray, rect: tuple[float, float, float, float]) -> np.ndarray:
    x0, y0, x1, y1 = rect
    return (p[:, 0] >= x0) & (p[:, 0] <= x1) & (p[:, 1] >= y0) & (p[:, 1] <= y1)


def _stub(
    far: np.ndarray, near: np.ndarray, which: np.ndarray, reach: float
) -> np.ndarray:
    """Pull the ``far`` ends of the ``which`` rows to within ``reach`` of ``near``."""
    if not which.any():
        return far
    out = far.copy()
    d = far[which] - near[which]
    length = np.hypot(d[:, 0], d[:, 1])
    scale = np.minimum(1.0, reach / np.maximum(length, 1e-9))
    out[which] = near[which] + d * scale[:, None]
    return out
