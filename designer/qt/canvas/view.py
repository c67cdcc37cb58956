"""CanvasView: the editor's QGraphicsView (tools, zoom, drops, edit operations).

Every edit becomes a core command run through ``document.execute``; refusals are
shown (status_message signal and a transient message on the canvas), never
swallowed. Connect by dragging with the connect tool, or Alt+drag with select
(Shift at release: one cable; Ctrl/Cmd at release: out-of-band; see
:mod:`designer.qt.canvas.tools`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from PySide6.QtCore import QEvent, QPointF, QRect, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QContextMenuEvent,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QHelpEvent,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPen,
    QResizeEvent,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QGraphicsView,
    QLabel,
    QMenu,
    QWidget,
)

from designer.catalog.schema import CatalogEntry
from designer.core.document import Document, Stage
from designer.core.events import (
    DesignReplaced,
    DevicesAdded,
    DevicesChanged,
    DevicesRemoved,
    Event,
    GroupsChanged,
    LinksAdded,
    LinksChanged,
    LinksRemoved,
    PhysicalChanged,
    Reads,
    SettingsChanged,
    WorkloadChanged,
    each,
    ignore,
)
from designer.qt.canvas import style as st
from designer.qt.canvas.context_menu import context_menu
from designer.qt.canvas.edits import CATALOG_MIME, FRAGMENT_MIME, CanvasEdits
from designer.qt.canvas.hover import show_tooltip
from designer.qt.canvas.scene import DesignScene
from designer.qt.canvas.tools import TOOLS, CanvasTool
from designer.qt.canvas.zoom import FIT_MARGIN_PX, ZoomingView
from designer.view.canvas import sizes as sz
from designer.view.canvas.context_actions import connected_rows

__all__ = ["CATALOG_MIME", "FIT_MARGIN_PX", "FRAGMENT_MIME", "CanvasView"]


class CanvasView(ZoomingView):
    """Shows a DesignScene and turns gestures into commands on the document.

    The edits those gestures lead to are its ``edits`` (:class:`CanvasEdits`).
    """

    selection_changed = Signal(list)
    status_message = Signal(str)
    #: the context menu asks the window to show Properties, the validator's
    #: findings naming these ids, or the export dialog for the selection
    properties_requested = Signal()
    validator_requested = Signal(list)
    export_selection_requested = Signal()

    def __init__(
        self,
        document: Document,
        catalog: Mapping[str, CatalogEntry],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(DesignScene(document, catalog), parent)
        self.document = document
        self.catalog = catalog
        self.design_scene.selection_changed_ids.connect(self.selection_changed)
        self.refused.connect(self.refuse)
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
        self.edits = CanvasEdits(self)
        self._tools: dict[str, CanvasTool] = {n: cls(self) for n, cls in TOOLS.items()}
        self._tool = self._tools["select"]
        self._pan_from: QPointF | None = None
        self._space = False
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
        self._menu: QMenu | None = None
        self.reads = self._reads_table()
        document.subscribe(self._on_changes, Stage.VIEWS)

    # --- document -----------------------------------------------------------

    def set_document(self, document: Document) -> None:
        """Show another document."""
        self.document.unsubscribe(self._on_changes)
        self.document = document
        document.subscribe(self._on_changes, Stage.VIEWS)
        self.design_scene.set_document(document)
        self.edits.reset_paste_offset()
        self.fit_all()

    def _on_changes(self, events: list[Event]) -> None:
        self.reads(events)

    def _reads_table(self) -> Reads:
        """The view fits a newly opened design; its scene follows the rest."""

        def opened(_event: Event) -> None:
            QTimer.singleShot(0, self, self.fit_all)

        return Reads(
            "CanvasView",
            {
                **each(
                    (
                        DevicesAdded,
                        DevicesRemoved,
                        DevicesChanged,
                        LinksAdded,
                        LinksRemoved,
                        LinksChanged,
                        GroupsChanged,
                        SettingsChanged,
                        WorkloadChanged,
                        PhysicalChanged,
                    ),
                    ignore,
                ),
                DesignReplaced: opened,
            },
        )

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

    def dialog_parent(self) -> QWidget | None:
        """The widget dialogs and menus of the canvas are shown over (the view)."""
        return self

    # --- selection ----------------------------------------------------------

    def selected_ids(self) -> list[str]:
        """Selected device ids (model order), then link ids."""
        return self.design_scene.selected_ids()

    def reveal(self, ids: list[str]) -> None:
        """Bring new devices wholly on screen (a row of eight DGX dropped near
        the view's edge ran off it): centred, or zoomed out until they show."""
        self.design_scene.flush()
        target = self._ids_rect(ids)
        if target is None:
            return
        visible = self.mapToScene(self.viewport().rect()).boundingRect()
        if not visible.contains(target):
            self.zoom_to_ids(ids)

    def select_ids(self, ids: list[str], center: bool = True) -> None:
        """Select devices/links by id and optionally centre them."""
        self.design_scene.select(ids)
        if center:
            self.zoom_to_ids(ids)

    def select_connected(self) -> None:
        """Add the devices linked to the selected ones (for links: their ends)."""
        scene = self.design_scene
        g = scene.geometry
        devices = scene.selected_device_ids()
        links = [i for i in scene.selected_ids() if i not in set(devices)]
        rows = np.asarray(sorted(g.row_of[i] for i in devices), np.int64)
        if devices:
            rows = connected_rows(g.la, g.lb, rows)
        else:
            k = g.link_rows(links)
            rows = np.unique(np.concatenate([g.la[k], g.lb[k]]))
        ids = [g.ids[r] for r in rows.tolist()]
        scene.select(ids)
        self.status_message.emit(f"{len(ids):,} connected devices selected")

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
        """Zoom, F to fit, delete, copy/paste/duplicate, Escape, Space to pan."""
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
        ) or (key == Qt.Key.Key_F and not event.modifiers()):
            self.fit_all()
        elif key in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            self.edits.delete_selection()
        elif event.matches(QKeySequence.StandardKey.Copy):
            self.edits.copy_selection()
        elif event.matches(QKeySequence.StandardKey.Paste):
            self.edits.paste()
        elif (
            event.modifiers() & Qt.KeyboardModifier.ControlModifier
            and key == Qt.Key.Key_D
        ):
            self.edits.duplicate_selection()
        elif key == Qt.Key.Key_Escape:
            self.cancel_gesture()
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    def cancel_gesture(self) -> bool:
        """Escape: stop the connect line, drag, rubber band or pan in progress
        (a drag puts the devices back); with none, clear the selection. True
        when a gesture was cancelled."""
        cancelled = self._tool.cancel()
        if self._pan_from is not None:
            self._pan_from = None
            self.viewport().setCursor(self._tool.cursor)
            cancelled = True
        if cancelled:
            self.status_message.emit("Cancelled")
        else:
            self.design_scene.select([])
        return cancelled

    def begin_connect(self, device_id: str, pos: QPointF) -> None:
        """Start a connection from ``device_id``: the next click on a device
        makes it (the context menu's Connect From Here)."""
        if not self._tool.begin_connect(device_id, pos):
            self.refuse("Use the Select or Connect tool to connect devices.")
            return
        self.status_message.emit(
            f"Click the device to connect {device_id} to (Esc cancels)"
        )

    def context_menu_at(self, pos: QPointF) -> QMenu:
        """The context menu for scene point ``pos``, after selecting what is there
        (tests trigger its actions; a right-click pops it up)."""
        self._tool.cancel()
        menu = context_menu(self, pos)
        if self._menu is not None:
            self._menu.deleteLater()
        self._menu = menu
        return menu

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        """Right-click: select what is under the mouse, then show what applies."""
        menu = self.context_menu_at(self.mapToScene(event.pos()))
        menu.popup(event.globalPos())
        event.accept()

    def viewportEvent(self, event: QEvent) -> bool:
        """Hover tooltips: the full name and key specs of what is under the mouse."""
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            hit = self.design_scene.hit(
                self.mapToScene(event.pos()), self.pick_tolerance()
            )
            show_tooltip(
                event, self.viewport(), self.design_scene, self.document.design,
                self.catalog, hit,
            )  # fmt: skip
            return True
        return super().viewportEvent(event)

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
            QTimer.singleShot(0, self, self.fit_all)

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
        self.edits.drop_catalog_item(mime, pos)
