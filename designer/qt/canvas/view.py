"""CanvasView: the editor's QGraphicsView (tools, zoom, drops, edit operations).

Every edit becomes a core command run through ``document.execute``; refusals are
shown (status_message signal and a transient message on the canvas), never
swallowed. Connect by dragging with the connect tool, or Alt+drag with select
(Shift at release: one cable; Ctrl/Cmd at release: out-of-band; see
:mod:`designer.qt.canvas.tools`).
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPen,
    QResizeEvent,
    QShowEvent,
    QTransform,
    QWheelEvent,
)
from PySide6.QtWidgets import QGraphicsView, QLabel, QWidget

from designer.catalog.schema import CatalogEntry
from designer.core.commands import Document, Stage
from designer.core.events import Event, replaced
from designer.qt.canvas import style as st
from designer.qt.canvas.edits import CATALOG_MIME, FRAGMENT_MIME, CanvasEditsMixin
from designer.qt.canvas.scene import DesignScene
from designer.qt.canvas.tools import TOOLS, CanvasTool
from designer.view import sizes as sz

__all__ = ["CATALOG_MIME", "FRAGMENT_MIME", "CanvasView"]

_MIN_SCALE = 1e-5
_MAX_SCALE = 8.0


FIT_MARGIN_PX = 28
"""Screen margin around a fitted rectangle: a frame title sits above its frame."""


class CanvasView(CanvasEditsMixin, QGraphicsView):
    """Shows a DesignScene and turns gestures into commands on the document."""

    selection_changed = Signal(list)
    status_message = Signal(str)
    zoom_changed = Signal(float)

    def __init__(
        self,
        document: Document,
        catalog: Mapping[str, CatalogEntry],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.document = document
        self.catalog = catalog
        self.design_scene = DesignScene(document, catalog, self)
        self.setScene(self.design_scene)
        self.design_scene.selection_changed_ids.connect(self.selection_changed)
        self.grid_snap = True
        self.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        self.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        self.setOptimizationFlag(
            QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing
        )
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setDragMode(QGraphicsView.DragMode.NoDrag)
        self.setAcceptDrops(True)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._tools: dict[str, CanvasTool] = {n: cls(self) for n, cls in TOOLS.items()}
        self._tool = self._tools["select"]
        self._pan_from: QPointF | None = None
        self._space = False
        self._clip: dict[str, object] | None = None
        self._paste_count = 0
        self._fitted = False
        self._toast = QLabel(self.viewport())
        self._toast.setObjectName("canvasMessage")
        self._toast.setStyleSheet(
            "QLabel#canvasMessage { background: rgba(40,44,52,235); color: white;"
            " border-radius: 6px; padding: 6px 12px; }"
        )
        self._toast.setWordWrap(True)
        self._toast.hide()
        self._toast_timer = QTimer(self)
        self._toast_timer.setSingleShot(True)
        self._toast_timer.timeout.connect(self._toast.hide)
        self._zoom_timer = QTimer(self)
        self._zoom_timer.setSingleShot(True)
        self._zoom_timer.setInterval(0)
        # scrolls, zooms and resizes of one event-loop turn share one update
        self._zoom_timer.timeout.connect(self._on_view_changed)
        self.horizontalScrollBar().valueChanged.connect(self._schedule_zoom_check)
        self.verticalScrollBar().valueChanged.connect(self._schedule_zoom_check)
        document.subscribe(self._on_changes, Stage.VIEWS)

    def _schedule_zoom_check(self, *_: object) -> None:
        self._zoom_timer.start()

    def _on_view_changed(self) -> None:
        self._update_semantic_zoom()
        self.relabel()

    def relabel(self) -> None:
        """Place titles and trunk labels for the current zoom, inside the window."""
        self._zoom_timer.stop()
        t = self.transform()
        visible = self.mapToScene(self.viewport().rect()).boundingRect()
        bounds = t.mapRect(visible).adjusted(2, 2, -2, -2)
        self.design_scene.declutter_labels(t, bounds)

    # --- document -----------------------------------------------------------

    def set_document(self, document: Document) -> None:
        """Show another document."""
        self.document.unsubscribe(self._on_changes)
        self.document = document
        document.subscribe(self._on_changes, Stage.VIEWS)
        self.design_scene.set_document(document)
        self._paste_count = 0
        self.fit_all()

    def _on_changes(self, events: list[Event]) -> None:
        if replaced(events):
            QTimer.singleShot(0, self.fit_all)

    # --- feedback -----------------------------------------------------------

    def refuse(self, message: str) -> None:
        """Tell the user why an action did not happen (status + on-canvas note)."""
        self.status_message.emit(message)
        self._toast.setText(message)
        self._toast.setMaximumWidth(max(200, self.viewport().width() - 40))
        self._toast.adjustSize()
        vp = self.viewport().rect()
        self._toast.move(
            (vp.width() - self._toast.width()) // 2,
            vp.height() - self._toast.height() - 16,
        )
        self._toast.show()
        self._toast.raise_()
        self._toast_timer.start(4000)

    def canvas_message(self) -> str:
        """The on-canvas message currently shown ('' when none)."""
        return self._toast.text() if self._toast.isVisible() else ""

    # --- selection ----------------------------------------------------------

    def select_ids(self, ids: list[str], center: bool = True) -> None:
        """Select devices/links by id and optionally centre them."""
        self.design_scene.select(ids)
        if center:
            g = self.design_scene.geometry
            rows = {g.row_of[i] for i in ids if i in g.row_of}
            for k in g.link_rows(ids).tolist():
                rows.update((int(g.la[k]), int(g.lb[k])))
            if rows:
                import numpy as np

                x0, y0, x1, y1 = g.bounds(np.asarray(sorted(rows)))
                target = QRectF(QPointF(x0, y0), QPointF(x1, y1))
                visible = self.mapToScene(self.viewport().rect()).boundingRect()
                if (
                    self.design_scene.overview
                    or target.width() > visible.width()
                    or target.height() > visible.height()
                ):
                    # zoom so the selection is seen as devices, not as a block
                    c = target.center()
                    w = max(target.width(), 640.0)
                    h = max(target.height(), 400.0)
                    self.zoom_to_rect(QRectF(c.x() - w / 2, c.y() - h / 2, w, h))
                else:
                    self.centerOn(target.center())

    def set_cut(self, side_a: set[str] | None, cut_links: set[str] | None) -> None:
        """Colour the two halves of a bisection cut and its crossing links."""
        self.design_scene.set_cut(side_a, cut_links)

    def group_members(self, group_id: str) -> list[str]:
        """Devices in a group or its sub-groups."""
        design = self.document.design
        parent = {g.id: g.parent for g in design.groups}
        out = []
        for d in design.devices:
            g = d.group
            while g is not None:
                if g == group_id:
                    out.append(d.id)
                    break
                g = parent.get(g)
        return out

    # --- zoom and pan ---------------------------------------------------------

    def scale_factor(self) -> float:
        """Pixels per scene unit."""
        return float(self.transform().m11())

    def pick_tolerance(self) -> float:
        """Pick tolerance in scene units."""
        return st.PICK_PX / max(self.scale_factor(), _MIN_SCALE)

    def _zoom(self, factor: float, anchor: QGraphicsView.ViewportAnchor) -> None:
        current = self.scale_factor()
        factor = max(_MIN_SCALE / current, min(_MAX_SCALE / current, factor))
        old = self.transformationAnchor()
        self.setTransformationAnchor(anchor)
        self.scale(factor, factor)
        self.setTransformationAnchor(old)
        self._after_zoom()

    def _after_zoom(self) -> None:
        self._update_semantic_zoom()
        self._zoom_timer.start()
        self.zoom_changed.emit(self.scale_factor())

    def _update_semantic_zoom(self) -> None:
        rect = self.mapToScene(self.viewport().rect()).boundingRect()
        overview = self.design_scene.wants_overview(rect, self.scale_factor())
        t = self.transform()
        if not overview and abs(t.m22() - t.m11()) > 1e-9 * abs(t.m11()):
            # devices are drawn undistorted: drop the overview's vertical stretch
            centre = rect.center()
            self.setTransform(QTransform.fromScale(t.m11(), t.m11()))
            self.centerOn(centre)
            rect = self.mapToScene(self.viewport().rect()).boundingRect()
            overview = self.design_scene.wants_overview(rect, self.scale_factor())
        self.design_scene.set_overview(overview)

    def zoom_in(self) -> None:
        """Zoom in one step around the view centre."""
        self._zoom(1.25, QGraphicsView.ViewportAnchor.AnchorViewCenter)

    def zoom_out(self) -> None:
        """Zoom out one step around the view centre."""
        self._zoom(0.8, QGraphicsView.ViewportAnchor.AnchorViewCenter)

    def fit_all(self) -> None:
        """Show the whole design (the overview of a long, flat fabric is stretched)."""
        scene = self.design_scene
        rect = scene.design_rect().adjusted(-30, -30, 30, 30)
        self._fitted = True
        if rect.width() <= 0 or rect.height() <= 0:
            self.zoom_to_rect(rect)
            return
        vp = self.viewport().rect()
        iso = min(vp.width() / rect.width(), vp.height() / rect.height())
        if not scene.wants_overview(rect, iso):
            self.zoom_to_rect(rect)
            return
        scene.set_overview(True)
        sx = 0.97 * vp.width() / rect.width()
        sy = min(
            sz.OVERVIEW_FILL * vp.height() / rect.height(),
            sx * sz.OVERVIEW_MAX_STRETCH,
        )
        self.setTransform(QTransform.fromScale(sx, max(sx, sy)))
        self.centerOn(rect.center())
        self._zoom_timer.start()
        self.zoom_changed.emit(self.scale_factor())

    def zoom_to_rect(self, rect: QRectF) -> None:
        """Fit a scene rectangle into the view, with a margin of
        ``FIT_MARGIN_PX`` screen pixels (room for titles above frames)."""
        vp = self.viewport().rect()
        pad = FIT_MARGIN_PX
        w, h = vp.width() - 2 * pad, vp.height() - 2 * pad
        if rect.width() > 0 and rect.height() > 0 and w > 40 and h > 40:
            s = min(w / rect.width(), h / rect.height())
            self.setTransform(QTransform.fromScale(s, s))
            self.centerOn(rect.center())
        else:
            self.fitInView(
                rect.adjusted(-30, -30, 30, 30), Qt.AspectRatioMode.KeepAspectRatio
            )
        self._after_zoom()

    def wheelEvent(self, event: QWheelEvent) -> None:
        """Wheel zooms around the mouse."""
        steps = event.angleDelta().y() / 120.0
        if steps:
            self._zoom(1.15**steps, QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        event.accept()

    def start_pan(self, event: QMouseEvent) -> None:
        """Begin dragging the canvas."""
        self._pan_from = event.position()
        self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)

    # --- tools and mouse --------------------------------------------------------

    def set_tool(self, name: str) -> None:
        """Switch tool: "select", "connect" or "pan"."""
        if name not in self._tools:
            raise ValueError(f"unknown tool {name!r}; use one of {sorted(self._tools)}")
        self._tool.cancel()
        self._tool = self._tools[name]
        self.viewport().setCursor(self._tool.cursor)

    def tool_name(self) -> str:
        """Name of the active tool."""
        return self._tool.name

    def set_grid_snap(self, on: bool) -> None:
        """Snap moves and drops to the grid."""
        self.grid_snap = on

    def mousePressEvent(self, event: QMouseEvent) -> None:
        """Middle button or Space+left pans; left goes to the tool."""
        button = event.button()
        if button == Qt.MouseButton.MiddleButton or (
            button == Qt.MouseButton.LeftButton and self._space
        ):
            self.start_pan(event)
        elif button == Qt.MouseButton.LeftButton:
            self._tool.press(event, self.mapToScene(event.position().toPoint()))
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        """Pan or forward to the tool."""
        if self._pan_from is not None:
            delta = event.position() - self._pan_from
            self._pan_from = event.position()
            h, v = self.horizontalScrollBar(), self.verticalScrollBar()
            h.setValue(h.value() - round(delta.x()))
            v.setValue(v.value() - round(delta.y()))
        else:
            self._tool.move(event, self.mapToScene(event.position().toPoint()))
        event.accept()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        """End a pan or forward to the tool."""
        if self._pan_from is not None:
            self._pan_from = None
            self.viewport().setCursor(self._tool.cursor)
        elif event.button() == Qt.MouseButton.LeftButton:
            self._tool.release(event, self.mapToScene(event.position().toPoint()))
        event.accept()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        """Double click collapses a frame or expands a block."""
        if event.button() == Qt.MouseButton.LeftButton:
            self._tool.double_click(event, self.mapToScene(event.position().toPoint()))
        event.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Zoom, delete, copy/paste/duplicate, Escape, Space to pan."""
        key = event.key()
        if key == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = True
            self.viewport().setCursor(Qt.CursorShape.OpenHandCursor)
        elif event.matches(QKeySequence.StandardKey.ZoomIn) or (
            event.modifiers() & Qt.KeyboardModifier.ControlModifier
            and key in (Qt.Key.Key_Equal, Qt.Key.Key_Plus)
        ):
            self.zoom_in()
        elif event.matches(QKeySequence.StandardKey.ZoomOut):
            self.zoom_out()
        elif (
            event.modifiers() & Qt.KeyboardModifier.ControlModifier
            and key == Qt.Key.Key_0
        ):
            self.fit_all()
        elif key in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            self.delete_selection()
        elif event.matches(QKeySequence.StandardKey.Copy):
            self.copy_selection()
        elif event.matches(QKeySequence.StandardKey.Paste):
            self.paste()
        elif (
            event.modifiers() & Qt.KeyboardModifier.ControlModifier
            and key == Qt.Key.Key_D
        ):
            self.duplicate_selection()
        elif key == Qt.Key.Key_Escape:
            self._tool.cancel()
            self.design_scene.select([])
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    def keyReleaseEvent(self, event: QKeyEvent) -> None:
        """Releasing Space ends temporary panning."""
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = False
            self.viewport().setCursor(self._tool.cursor)
        super().keyReleaseEvent(event)

    def showEvent(self, event: QShowEvent) -> None:
        """Fit the design the first time the view is shown."""
        super().showEvent(event)
        if not self._fitted:
            QTimer.singleShot(0, self.fit_all)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Re-check the semantic zoom level when the view changes size."""
        super().resizeEvent(event)
        self._zoom_timer.start()

    def drawBackground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        """Plain background with a grid when zoomed in (not in exports)."""
        super().drawBackground(painter, rect)
        rect = QRectF(rect)
        scale = self.scale_factor()
        pitch = sz.GRID if scale >= 0.9 else sz.GRID * 4 if scale >= 0.3 else 0.0
        if not pitch:
            return
        pen = QPen(st.GRID_COLOUR, 0)
        painter.setPen(pen)
        x = (rect.left() // pitch) * pitch
        while x < rect.right():
            painter.drawLine(QPointF(x, rect.top()), QPointF(x, rect.bottom()))
            x += pitch
        y = (rect.top() // pitch) * pitch
        while y < rect.bottom():
            painter.drawLine(QPointF(rect.left(), y), QPointF(rect.right(), y))
            y += pitch

    # --- drag and drop from the palette -------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        """Accept catalog items from the palette."""
        if event.mimeData().hasFormat(CATALOG_MIME):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        """Keep accepting catalog items while they move over the canvas."""
        if event.mimeData().hasFormat(CATALOG_MIME):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        """Place ``count`` devices of the dropped catalog item (one step)."""
        mime = event.mimeData()
        if not mime.hasFormat(CATALOG_MIME):
            event.ignore()
            return
        pos = self.mapToScene(event.position().toPoint())
        event.acceptProposedAction()
        self.drop_catalog_item(mime, pos)

    def viewport_point(self, scene_pos: QPointF) -> QPoint:
        """Viewport pixel of a scene point (tests drive the mouse with it)."""
        return self.mapFromScene(scene_pos)
