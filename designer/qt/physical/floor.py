"""The floor plan: halls and rows of racks to scale, each rack coloured by its kW.

One :class:`TilesItem` paints every rack (grouped by colour, as the PDF
does); an edit recolours only the racks it names. The legend and the scale
bar are drawn over the view in screen pixels. With devices selected, their
longest cables are drawn along their route (seen from above) with the length
and medium (:meth:`PhysicalView.longest_cables`, computed off the GUI thread).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QPointF, QRect, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPen,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsScene,
    QGraphicsSceneHoverEvent,
    QGraphicsView,
    QLabel,
    QStyleOptionGraphicsItem,
    QVBoxLayout,
    QWidget,
)

from designer.physical.views import CableRun
from designer.qt.canvas import style as st
from designer.qt.physical.paint import (
    FloorPicture,
    paint_legend,
    paint_scale_bar,
    paint_tiles,
    row_label,
    row_label_spot,
)
from designer.view.physical.floor import (
    KwBand,
    kw_bands,
    kw_colour,
    label_point,
    label_room,
    plan_path,
    scale_length,
)

if TYPE_CHECKING:
    from designer.physical.live import LiveRacks

CABLE_PEN = QColor("#1a73e8")
HALL_PEN = QColor("#8a94a6")


class TilesItem(QGraphicsItem):
    """Every rack's footprint (scene units: metres)."""

    def __init__(self, owner: FloorPlanPanel) -> None:
        super().__init__()
        self.owner = owner
        self.setZValue(1)
        self.setAcceptHoverEvents(True)

    def hoverMoveEvent(self, event: QGraphicsSceneHoverEvent) -> None:
        """Name the rack under the mouse with its load and limit."""
        p = event.pos()
        k = self.owner.picture.at(p.x(), p.y())
        if k is None:
            self.setToolTip("")
            return
        t = self.owner.live.tile(self.owner.picture.ids[k])
        self.setToolTip(
            f"{t.label} (row {t.row}): {t.kw:,.1f} kW of {t.limit_kw:,.0f} kW "
            f"(feeds {t.max_kw:,.0f} kW, {t.cooling.value} cooling "
            f"{t.cooling_kw:,.0f} kW); catalog maximum power; click to select"
        )

    def boundingRect(self) -> QRectF:
        """The racks' extent."""
        return self.owner.picture.bounds().adjusted(-0.5, -0.5, 0.5, 0.5)

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionGraphicsItem,
        widget: QWidget | None = None,
    ) -> None:
        """Draw the racks (shared with the PDF)."""
        scale = max(painter.worldTransform().m11(), 1e-6)
        pic = self.owner.picture
        narrow = float(pic.w.min()) * scale if len(pic.ids) else 0.0
        paint_tiles(painter, pic, 1.0 / scale, edges=narrow >= 6.0)


class HallsItem(QGraphicsItem):
    """Hall outlines (scene units: metres)."""

    def __init__(self, rects: Sequence[QRectF]) -> None:
        super().__init__()
        self.rects = list(rects)
        self.setZValue(0)

    def boundingRect(self) -> QRectF:
        """Around every hall."""
        out = QRectF()
        for r in self.rects:
            out = out.united(r)
        return out.adjusted(-1, -1, 1, 1)

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionGraphicsItem,
        widget: QWidget | None = None,
    ) -> None:
        """Hall floors."""
        scale = max(painter.worldTransform().m11(), 1e-6)
        painter.setPen(QPen(HALL_PEN, 1.5 / scale))
        painter.setBrush(QBrush(QColor("#ffffff")))
        painter.drawRects(self.rects)


class FloorView(QGraphicsView):
    """The floor scene with the legend, scale bar, row and cable labels on top."""

    def __init__(self, owner: FloorPlanPanel) -> None:
        super().__init__(owner.scene_)
        self.owner = owner
        self.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setBackgroundBrush(QBrush(st.BACKGROUND))
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.FullViewportUpdate)
        font = QFont()
        font.setPixelSize(11)
        self.label_font = font

    def wheelEvent(self, event: QWheelEvent) -> None:
        """The wheel zooms at the mouse."""
        factor = 1.2 if event.angleDelta().y() > 0 else 1 / 1.2
        self.scale(factor, factor)
        self.owner.fitted = False

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        """A click on a rack selects its devices on the canvas."""
        if event.button() == Qt.MouseButton.LeftButton:
            p = self.mapToScene(event.position().toPoint())
            k = self.owner.picture.at(p.x(), p.y())
            if k is not None:
                self.owner.rack_clicked.emit(self.owner.picture.ids[k])
                return
        super().mouseReleaseEvent(event)

    def drawForeground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        """Row labels, cable lengths, legend and scale bar in screen pixels."""
        painter.save()
        painter.resetTransform()
        scale = self.transform().m11()
        painter.setFont(self.label_font)
        panel = self.owner
        vp = self.viewport().rect()
        painter.setPen(st.TEXT_MUTED)
        for text, spot, flags in self.row_label_spots():
            painter.drawText(spot, flags, text)
        for text, box in self.cable_label_boxes():
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QBrush(QColor(255, 255, 255, 225)))
            painter.drawRect(box)
            painter.setPen(CABLE_PEN)
            painter.drawText(box, int(Qt.AlignmentFlag.AlignCenter), text)
        legend = paint_legend(painter, QPointF(8, 8), panel.bands, self.label_font)
        del legend
        metres = scale_length(1.0 / max(scale, 1e-9), 120.0)
        paint_scale_bar(
            painter,
            QPointF(12, vp.height() - 14),
            metres * scale,
            metres,
            self.label_font,
        )
        painter.restore()

    def row_label_spots(self) -> list[tuple[str, QRectF, int]]:
        """Each shown row label: its text, where (viewport pixels) and how.

        A label sits in the aisle left of its row and inside the window; it
        takes two lines when the rows leave room, and only a label with no
        room for its whole text is elided."""
        scale = self.transform().m11()
        fm = QFontMetricsF(self.label_font)
        if scale * 2.4 < fm.height():  # rows 2.4 m apart: the labels would collide
            return []
        vp = self.viewport().rect()
        lines = 2 if scale * 2.4 >= 2 * fm.height() else 1
        out: list[tuple[str, QRectF, int]] = []
        for text, x, y, free in self.owner.row_labels:
            row_at = self.mapFromScene(QPointF(x, y))
            # the aisle to the left, within the window
            w = min(free * scale - 4, 196.0, row_at.x() - vp.left() - 4)
            if w < fm.horizontalAdvance("su0…"):
                continue  # no room in the aisle at this zoom
            # inside the hall when the name fits there, else outside its wall:
            # the outline never runs through a name ("spines and cores")
            wall = self.owner.hall_wall(x, y)
            wall_px = None if wall is None else self.mapFromScene(QPointF(wall, y)).x()
            outside = 196.0 if wall_px is None else min(196.0, wall_px - vp.left() - 4)
            right, width = row_label_spot(
                fm, text, row_at.x() - 2, wall_px, w, outside, lines
            )
            if width < fm.horizontalAdvance("su0…"):
                continue
            out.append(row_label(fm, text, right, row_at.y(), width, lines))
        return out

    def cable_label_boxes(self) -> list[tuple[str, QRectF]]:
        """Each cable label and its box (viewport pixels), kept inside the window."""
        fm = QFontMetricsF(self.label_font)
        vp = self.viewport().rect()
        out: list[tuple[str, QRectF]] = []
        for text, x, y in self.owner.cable_labels:
            at = self.mapFromScene(QPointF(x, y)).toPointF()
            box = QRectF(
                at.x() + 4,
                at.y() - fm.height() - 2,
                fm.horizontalAdvance(text) + 8,
                fm.height() + 2,
            )
            if box.right() > vp.right() - 2:
                box.moveRight(max(vp.right() - 2, box.width() + 2))
            out.append((text, box))
        return out


class FloorPlanPanel(QWidget):
    """Halls, rows and racks to scale; kW colours; longest cables on selection.

    Signals: ``rack_clicked(rack_id)``.
    """

    rack_clicked = Signal(str)

    def __init__(self, live: LiveRacks, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.live = live
        self.picture = FloorPicture.empty()
        self.bands: tuple[KwBand, ...] = ()
        self.row_labels: list[tuple[str, float, float, float]] = []
        """(text, row start x, y, free metres left of it)."""
        self.cable_labels: list[tuple[str, float, float]] = []
        self.cables: list[CableRun] = []
        self._pos: dict[str, int] = {}
        self.fitted = True
        self.dirty = False
        self.scene_ = QGraphicsScene(self)
        self.tiles = TilesItem(self)
        self.halls = HallsItem([])
        self.scene_.addItem(self.halls)
        self.scene_.addItem(self.tiles)
        self._cable_items: list[QGraphicsPathItem] = []
        self.view = FloorView(self)
        self.summary = QLabel("")
        self.summary.setObjectName("floorSummary")
        self.summary.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.summary)
        self.rebuild()

    # -- following the model ----------------------------------------------------------

    def rebuild(self) -> None:
        """Read every rack, row and hall again (a new design, racks added, moved)."""
        self.dirty = False
        live = self.live
        self.tiles.prepareGeometryChange()
        if not live.placed:
            self.picture = FloorPicture.empty()
            self.bands = ()
            self.row_labels = []
            self.halls.prepareGeometryChange()
            self.halls.rects = []
            self.summary.setText("The design has no racks: place it first.")
            self.set_cables([])
            self.view.viewport().update()
            return
        assert live.phys is not None
        facility = live.phys.physical.facility
        self.bands = kw_bands(facility)
        tiles = live.tiles()
        ids = [t.id for t in tiles]
        self._pos = {r: k for k, r in enumerate(ids)}
        self.picture = FloorPicture(
            ids=ids,
            x=np.array([t.x_m for t in tiles], dtype=np.float64),
            y=np.array([t.y_m for t in tiles], dtype=np.float64),
            w=np.array([t.width_m for t in tiles], dtype=np.float64),
            d=np.array([t.depth_m for t in tiles], dtype=np.float64),
            colour=[kw_colour(t.kw, self.bands) for t in tiles],
            over=np.array([t.kw > t.limit_kw + 1e-9 for t in tiles], dtype=np.bool_),
            selected=np.zeros(len(tiles), dtype=np.bool_),
        )
        self._label_rows()
        halls = live.halls()
        self.halls.prepareGeometryChange()
        self.halls.rects = [QRectF(h.x_m, h.y_m, h.width_m, h.depth_m) for h in halls]
        extent = self.halls.boundingRect().united(self.picture.bounds())
        self.scene_.setSceneRect(extent.adjusted(-4, -4, 4, 4))
        self._summarise()
        self.fit()
        self.view.viewport().update()

    def apply(
        self,
        racks: Collection[str],
        moved: Collection[str],
        layout: bool,
        reset: bool,
    ) -> None:
        """Recolour the racks that changed, move the ones that moved; read
        everything after a change of rows, halls or rack types."""
        if reset or layout or not self.live.placed:
            self.rebuild()
            return
        assert self.live.phys is not None
        if kw_bands(self.live.phys.physical.facility) != self.bands:
            self.rebuild()  # the facility's limits moved the colour bands
            return
        pic = self.picture
        if moved:
            self.tiles.prepareGeometryChange()
            for r in moved:
                k = self._pos.get(r)
                if k is None:
                    continue
                t = self.live.tile(r)
                pic.x[k], pic.y[k] = t.x_m, t.y_m
                pic.w[k], pic.d[k] = t.width_m, t.depth_m
            pic.forget_rects()
            self._label_rows()
        for r in racks:
            k = self._pos.get(r)
            if k is None:
                continue
            t = self.live.tile(r)
            pic.colour[k] = kw_colour(t.kw, self.bands)
            pic.over[k] = t.kw > t.limit_kw + 1e-9
        if racks or moved:
            self._summarise()
            self.tiles.update()
            self.view.viewport().update()

    def _label_rows(self) -> None:
        pic = self.picture
        rows = self.live.rows()
        racks = list(zip(pic.x.tolist(), pic.y.tolist(), pic.w.tolist(), strict=True))
        rooms = label_room([(r.x_m, r.y_m) for r in rows], racks, 1e6)
        self.row_labels = [
            (r.label, r.x_m, r.y_m, free) for r, free in zip(rows, rooms, strict=True)
        ]

    def hall_wall(self, x: float, y: float) -> float | None:
        """The left wall (scene metres) of the hall a row starting at (x, y)
        stands in, or None."""
        for r in self.halls.rects:
            if r.left() - 1e-6 <= x <= r.right() and r.top() - 1e-6 <= y <= r.bottom():
                return float(r.left())
        return None

    def _summarise(self) -> None:
        live = self.live
        halls = live.halls()
        kw = sum(h.kw for h in halls)
        area = sum(h.width_m * h.depth_m for h in halls)
        over = int(self.picture.over.sum())
        text = (
            f"{len(self.picture.ids):,} racks in {len(self.row_labels):,} rows, "
            f"{area:,.0f} m² of hall; IT load {kw:,.1f} kW (catalog maximum power); "
            f"hottest rack {live.max_kw():,.1f} kW"
        )
        if over:
            text += f"; {over:,} over their limit (red)"
        self.summary.setText(text)

    def set_selection(self, racks: set[str]) -> None:
        """Outline the racks that hold selected devices."""
        sel = np.zeros(len(self.picture.ids), dtype=np.bool_)
        for r in racks:
            k = self._pos.get(r)
            if k is not None:
                sel[k] = True
        if not np.array_equal(sel, self.picture.selected):
            self.picture.selected = sel
            self.tiles.update()

    def set_cables(self, runs: list[CableRun]) -> None:
        """Draw these cable runs with their lengths (an empty list clears)."""
        for item in self._cable_items:
            self.scene_.removeItem(item)
        self._cable_items = []
        self.cables = list(runs)
        self.cable_labels = []
        # cables of one bundle share a route: one line and one label for them
        routes: dict[tuple[tuple[float, float], ...], list[CableRun]] = {}
        for run in runs:
            plan = plan_path(run.path)
            if plan:
                key = tuple((round(x, 3), round(y, 3)) for x, y in plan)
                routes.setdefault(key, []).append(run)
        for route, group in routes.items():
            path = QPainterPath(QPointF(*route[0]))
            for x, y in route[1:]:
                path.lineTo(QPointF(x, y))
            item = QGraphicsPathItem(path)
            pen = QPen(CABLE_PEN, 2.0)
            pen.setCosmetic(True)
            item.setPen(pen)
            item.setZValue(5)
            item.setToolTip("\n".join(_run_text(run) for run in group))
            self.scene_.addItem(item)
            self._cable_items.append(item)
            first = group[0]
            medium = first.medium.value if first.medium is not None else "no medium"
            text = f"{first.length_m:,.1f} m {medium}"
            if len(group) > 1:
                text += f" ({len(group)} links)"
            x, y = label_point(route)
            self.cable_labels.append((text, x, y))
        self.view.viewport().update()

    def fit(self) -> None:
        """Show the whole floor."""
        if self.fitted:
            self.view.fitInView(
                self.scene_.sceneRect(), Qt.AspectRatioMode.KeepAspectRatio
            )

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Refit on resize."""
        super().resizeEvent(event)
        self.fit()


def _run_text(run: CableRun) -> str:
    medium = run.medium.value if run.medium is not None else "no medium"
    return (
        f"{run.link}: {run.a} - {run.b}, {run.length_m:,.1f} m per cable, {medium} "
        "(routed up to the tray, along and across the rows, down, plus slack)"
        + (": too long for any medium" if run.too_long else "")
    )


__all__ = ["FloorPlanPanel", "FloorView", "TilesItem"]
