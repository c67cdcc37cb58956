"""Stand-in canvas behind the CanvasView API, used only until designer.qt.canvas lands."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Signal
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView, QWidget

from designer.catalog.loader import Catalog
from designer.core.commands import Change, Document, RemoveDevices, RemoveLinks


class DesignScene(QGraphicsScene):
    """Draws devices as boxes; enough for the window to work."""

    def __init__(self, document: Document, catalog: Catalog) -> None:
        super().__init__()
        self.document = document
        self.catalog = catalog
        self.cut: tuple[set[str], set[str]] | None = None

    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:
        painter.fillRect(rect, QColor("#fbfcfd"))
        design = self.document.design
        painter.setPen(QPen(QColor("#5b6670"), 0))
        for d in design.devices:
            color = "#4c9f70" if self.cut and d.id in self.cut[0] else "#4a7fb5"
            painter.setBrush(QBrush(QColor(color)))
            painter.drawRect(QRectF(d.x, d.y, 100, 40))

    def render_to(
        self,
        painter: QPainter,
        target: QRectF,
        *,
        selection_only: bool = False,
        ids: set[str] | None = None,
    ) -> None:
        """Draw the design into ``painter``."""
        self.render(painter, target, self.itemsBoundingRect())


class CanvasView(QGraphicsView):
    """Placeholder view with the canvas API (no editing gestures)."""

    selection_changed = Signal(list)
    status_message = Signal(str)
    zoom_changed = Signal(float)

    def __init__(
        self, document: Document, catalog: Catalog, parent: QWidget | None = None
    ) -> None:
        self.design_scene = DesignScene(document, catalog)
        super().__init__(self.design_scene, parent)
        self._selected: list[str] = []
        self.document = document
        document.subscribe(self._on_changes)
        self._update_rect()

    def set_document(self, document: Document) -> None:
        """Show another document."""
        self.document.unsubscribe(self._on_changes)
        self.document = document
        self.design_scene.document = document
        document.subscribe(self._on_changes)
        self._on_changes([Change("reset")])

    def _on_changes(self, changes: list[Change]) -> None:
        ids = set(self.document.design.device_map()) | set(self.document.design.links.id)
        self._selected = [i for i in self._selected if i in ids]
        self._update_rect()
        self.viewport().update()

    def _update_rect(self) -> None:
        devs = self.document.design.devices
        if devs:
            xs = [d.x for d in devs]
            ys = [d.y for d in devs]
            self.setSceneRect(QRectF(min(xs) - 50, min(ys) - 50, max(xs) - min(xs) + 200, max(ys) - min(ys) + 140))

    def selected_ids(self) -> list[str]:
        """Selected device/link ids."""
        return list(self._selected)

    def select_ids(self, ids: list[str], center: bool = True) -> None:
        """Select ``ids``."""
        self._selected = list(ids)
        self.selection_changed.emit(list(ids))

    def set_cut(self, side_a: set[str] | None, cut_links: set[str] | None) -> None:
        """Colour the cut (None clears)."""
        self.design_scene.cut = None if side_a is None else (side_a, cut_links or set())
        self.viewport().update()

    def fit_all(self) -> None:
        """Fit the design in view."""
        self.fitInView(self.sceneRect())

    def zoom_in(self) -> None:
        """Zoom in."""
        self.scale(1.25, 1.25)

    def zoom_out(self) -> None:
        """Zoom out."""
        self.scale(0.8, 0.8)

    def delete_selection(self) -> None:
        """Delete selected devices and links."""
        devs = set(self.document.design.device_map()) & set(self._selected)
        links = set(self.document.design.links.id) & set(self._selected)
        if devs:
            self.document.execute(RemoveDevices(devs))
        elif links:
            self.document.execute(RemoveLinks(links))

    def copy_selection(self) -> None:
        """Not available in the placeholder."""

    def paste(self) -> None:
        """Not available in the placeholder."""

    def duplicate_selection(self) -> None:
        """Not available in the placeholder."""

    def connect_all_to_all(self, cables_each: int) -> None:
        """Not available in the placeholder."""
        self.status_message.emit("not available yet")

    def wire_rail_optimized(self) -> None:
        """Not available in the placeholder."""
        self.status_message.emit("not available yet")

    def group_selection(self, kind: str) -> None:
        """Not available in the placeholder."""

    def toggle_group_collapsed(self, group_id: str) -> None:
        """Not available in the placeholder."""

    def auto_layout(self) -> None:
        """Not available in the placeholder."""

    def set_grid_snap(self, on: bool) -> None:
        """Not available in the placeholder."""

    def set_tool(self, name: str) -> None:
        """Not available in the placeholder."""
