"""The rack elevation: racks front view, U by U; drag a device to another rack or U.

A drop is one undoable step (:meth:`LiveRacks.place_command`, a
:class:`~designer.core.physical_commands.PlaceDevices`); a drop the rules
refuse says why (the same text the pure rules give) and changes nothing.
A click selects the device on the canvas. Items are thin: one
:class:`RackItem` per rack shown, painted by :func:`paint.paint_rack`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPen,
    QResizeEvent,
    QShortcut,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QGraphicsItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QStyleOptionGraphicsItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from designer.core.formatting import plural
from designer.physical.views import DeviceSlot, RackView
from designer.qt.canvas import style as st
from designer.qt.physical.paint import RackFonts, paint_rack
from designer.view.physical.elevation import ElevationLayout, ElevationStyle, limit_text

if TYPE_CHECKING:
    from designer.physical.live import LiveRacks

SELECTION = "selection"
"""Combo entry: the racks that hold the selected devices."""
MAX_SHOWN = 32
"""Most racks drawn side by side (the selection may span more)."""
DEVICE_PX = 12
"""Device labels in scene px: 12 px in a 14 px unit (one line per 1U box)."""
READABLE_PX = 9.0
"""Smallest device label on screen the fitted view allows (9 px): below it
the view scrolls instead of shrinking the text."""
ZOOM_STEP = 1.25
MIN_SCALE, MAX_SCALE = 0.3, 4.0
SNAP_UNITS = 8
"""A drop that does not fit where it is released goes to the nearest U where
it does, at most this many units (or the device's height) away."""


def screen_fonts() -> RackFonts:
    """Fonts in scene pixels (the view scales them with the zoom)."""

    def f(px: int, bold: bool = False) -> QFont:
        font = QFont()
        font.setPixelSize(px)
        font.setBold(bold)
        return font

    return RackFonts(name=f(14, True), load=f(11), device=f(DEVICE_PX), rail=f(9))


class RackItem(QGraphicsItem):
    """One rack of the elevation: an index into the layout and its view."""

    def __init__(self, owner: ElevationPanel, i: int, rack: RackView) -> None:
        super().__init__()
        self.owner = owner
        self.i = i
        self.rack = rack
        self._tip()

    def _tip(self) -> None:
        rack = self.rack
        kind = self.owner.live.rack_type(rack.id)
        mark = " (estimate)" if kind.estimate else ""
        self.setToolTip(
            f"{rack.label} ({kind.label or rack.type}, {rack.u}U, row {rack.row})\n"
            f"{rack.kw:,.1f} kW: catalog maximum power of its devices\n"
            f"limit: {limit_text(rack)}{mark}\n"
            f"feeds: {kind.source or 'no source given'}\n"
            "cooling: the design's facility kW per cooling class"
        )

    def set_rack(self, rack: RackView) -> None:
        """Show the rack's new state (same place in the layout)."""
        self.rack = rack
        self._tip()
        self.update()

    def boundingRect(self) -> QRectF:
        """The rack with its header and footer."""
        return QRectF(*self.owner.layout_.rack_rect(self.i)).adjusted(-3, -3, 3, 3)

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionGraphicsItem,
        widget: QWidget | None = None,
    ) -> None:
        """Draw the rack (shared with the PDF)."""
        paint_rack(
            painter,
            self.owner.layout_,
            self.i,
            self.rack,
            self.owner.fonts,
            selected=self.owner.selected,
            tier_of=self.owner.tier_of,
        )


@dataclass
class _Drag:
    """A device held by the mouse: where it came from, where it would land."""

    device: str
    rack: str
    u: int
    height: int
    grab: int
    press: QPointF
    moving: bool = False
    target: tuple[str, int] | None = None
    why: str | None = None


class ElevationView(QGraphicsView):
    """Shows the racks' scene; turns a press-drag-release into one drop."""

    def __init__(self, owner: ElevationPanel) -> None:
        super().__init__(owner.scene_)
        self.owner = owner
        self.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        self.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setBackgroundBrush(QBrush(st.BACKGROUND))
        self.setMouseTracking(True)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.drag: _Drag | None = None
        self.ghost = QGraphicsRectItem()
        self.ghost.setZValue(10)
        self.ghost.hide()
        owner.scene_.addItem(self.ghost)

    def _scene(self, event: QMouseEvent) -> QPointF:
        return self.mapToScene(event.position().toPoint())

    def mousePressEvent(self, event: QMouseEvent) -> None:
        """Pick the device under the mouse (a press on nothing does nothing)."""
        if event.button() != Qt.MouseButton.LeftButton:
            super().mousePressEvent(event)
            return
        pos = self._scene(event)
        hit = self.owner.device_at(pos)
        if hit is None:
            self.drag = None
            return
        rack, slot = hit
        i = self.owner.layout_.index[rack.id]
        grab = self.owner.layout_.unit_at(i, pos.y()) - slot.u
        self.drag = _Drag(slot.device, rack.id, slot.u, slot.height, grab, pos)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        """Move the ghost of the held device to the unit under the mouse."""
        drag = self.drag
        if drag is None or not (event.buttons() & Qt.MouseButton.LeftButton):
            super().mouseMoveEvent(event)
            return
        if not drag.moving:
            moved = event.position() - self.mapFromScene(drag.press).toPointF()
            if moved.manhattanLength() < QApplication.startDragDistance():
                return
            drag.moving = True
        self._edge_scroll(event.position())
        self.owner.preview(drag, self._scene(event))

    def _edge_scroll(self, at: QPointF) -> None:
        """Scroll when a held device nears the view's edge (racks beyond it)."""
        vp = self.viewport().rect()
        edge = 24
        bar = self.horizontalScrollBar()
        if at.x() < edge:
            bar.setValue(bar.value() - 12)
        elif at.x() > vp.width() - edge:
            bar.setValue(bar.value() + 12)
        bar = self.verticalScrollBar()
        if at.y() < edge:
            bar.setValue(bar.value() - 12)
        elif at.y() > vp.height() - edge:
            bar.setValue(bar.value() + 12)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        """Drop the held device (one command), or select it after a click."""
        drag, self.drag = self.drag, None
        if drag is None or event.button() != Qt.MouseButton.LeftButton:
            super().mouseReleaseEvent(event)
            return
        if not drag.moving:
            toggle = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
            self.owner.device_clicked.emit(drag.device, toggle)
            return
        self.owner.preview(drag, self._scene(event))
        self.ghost.hide()
        self.owner.drop(drag)

    def wheelEvent(self, event: QWheelEvent) -> None:
        """Ctrl + wheel zooms; the wheel alone scrolls."""
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.owner.zoom_by(1.15 if event.angleDelta().y() > 0 else 1 / 1.15)
            return
        super().wheelEvent(event)


class ElevationPanel(QWidget):
    """Rack elevations of one row, or of the racks of the selection.

    Signals: ``device_clicked(device_id, toggle)``; ``message(text)`` for the
    status bar (a refused drop says why).
    """

    device_clicked = Signal(str, bool)
    message = Signal(str)

    def __init__(
        self,
        live: LiveRacks,
        execute: Callable[[object], object],
        tier_of: Callable[[str], str | None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.live = live
        self.execute = execute
        self.tier_of = tier_of
        self.fonts = screen_fonts()
        self.selected: set[str] = set()
        self.shown: list[str] = []
        self.layout_ = ElevationLayout([], ElevationStyle())
        self.items: dict[str, RackItem] = {}
        self.fitted = True
        self.dirty = False  # changed while hidden: rebuilt when shown
        self.scene_ = QGraphicsScene(self)
        self.view = ElevationView(self)
        self.choice = QComboBox()
        self.choice.setObjectName("elevationRacks")
        self.choice.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.choice.setMinimumContentsLength(12)
        self.choice.currentIndexChanged.connect(self._on_choice)
        self.status = QLabel("")
        self.status.setObjectName("elevationStatus")
        self.status.setWordWrap(True)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(QLabel("Show"))
        top.addWidget(self.choice, 1)
        self.zoom_buttons: dict[str, QToolButton] = {}
        for key, text, tip, slot in (
            ("out", "−", "Zoom out (Ctrl+−, Ctrl+wheel)", self.zoom_out),
            ("in", "+", "Zoom in (Ctrl++, Ctrl+wheel)", self.zoom_in),
            ("fit", "Fit", "Fit the racks, labels kept readable (Ctrl+0)", self.refit),
        ):
            button = QToolButton()
            button.setText(text)
            button.setToolTip(tip)
            button.setAutoRaise(True)
            button.clicked.connect(slot)
            top.addWidget(button)
            self.zoom_buttons[key] = button
        for keys, slot in (
            (QKeySequence.StandardKey.ZoomIn, self.zoom_in),
            (QKeySequence.StandardKey.ZoomOut, self.zoom_out),
            (QKeySequence("Ctrl+0"), self.refit),
        ):
            shortcut = QShortcut(QKeySequence(keys), self.view)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.status)
        self.refill_choices()

    # -- what is shown -------------------------------------------------------------

    def refill_choices(self) -> None:
        """Rows of the design in the combo (after a new design or new rows)."""
        current = self.choice.currentData()
        self.choice.blockSignals(True)
        self.choice.clear()
        self.choice.addItem("Racks of the selection", SELECTION)
        for row in self.live.rows():
            self.choice.addItem(
                f"{row.label} ({plural(len(row.racks), 'rack')})", row.id
            )
        at = self.choice.findData(current) if current is not None else -1
        self.choice.setCurrentIndex(at if at >= 0 else min(1, self.choice.count() - 1))
        self.choice.blockSignals(False)

    def _on_choice(self, _: int) -> None:
        self.show_racks(self._wanted())

    def _wanted(self) -> list[str]:
        key = self.choice.currentData()
        if key == SELECTION:
            racks: dict[str, None] = {}
            for d in sorted(self.selected):
                r = self.live.rack_of(d)
                if r is not None:
                    racks[r] = None
            order = {r: k for k, r in enumerate(self.live.rack_ids)}
            return sorted(racks, key=order.__getitem__)[:MAX_SHOWN]
        for row in self.live.rows():
            if row.id == key:
                return list(row.racks)[:MAX_SHOWN]
        return []

    def show_row_of(self, rack_id: str) -> None:
        """Show the row a rack stands in (unless the racks shown hold it)."""
        if rack_id in self.items:
            return
        for row in self.live.rows():
            if rack_id in row.racks:
                at = self.choice.findData(row.id)
                if at >= 0:
                    self.choice.setCurrentIndex(at)
                return

    def show_racks(self, rack_ids: list[str]) -> None:
        """Draw these racks side by side (a new scene)."""
        self.dirty = False
        for item in self.items.values():
            self.scene_.removeItem(item)
        self.items.clear()
        ids = [r for r in rack_ids if self.live.has_rack(r)]
        self.shown = ids
        views = [self.live.rack(r) for r in ids]
        self.layout_ = ElevationLayout([(v.id, v.u) for v in views], ElevationStyle())
        for i, v in enumerate(views):
            item = RackItem(self, i, v)
            self.items[v.id] = item
            self.scene_.addItem(item)
        w, h = self.layout_.size
        self.scene_.setSceneRect(QRectF(0, 0, max(w, 10), h))
        if not ids:
            self.status.setText(
                "Select devices on the canvas, or pick a row."
                if self.live.placed
                else "The design has no racks: place it first (cluster-designer place)."
            )
        else:
            self.status.setText(
                "Drag a device to another rack or U; click to select it on the canvas."
            )
        self.fit()

    def fit(self) -> None:
        """Fit the racks into the view: all of them when their labels stay
        readable (at least 9 px), else their height, else 9 px labels (the
        view then scrolls sideways, or down a tall rack)."""
        if not self.fitted or not self.shown:
            return
        w, h = self.layout_.size
        vp = self.view.viewport()
        tall = max(vp.height() - 4, 50) / h
        wide = max(vp.width() - 4, 50) / w
        readable = READABLE_PX / DEVICE_PX
        scale = min(max(min(tall, wide), readable), 2.0)
        if scale > tall >= readable:
            scale = tall  # the whole rack height when that is readable
        self.view.resetTransform()
        self.view.scale(scale, scale)
        bar = self.view.horizontalScrollBar()
        bar.setValue(bar.minimum())  # the first rack at the left edge
        self.view.verticalScrollBar().setValue(
            self.view.verticalScrollBar().maximum()  # the racks' lower units
        )

    @property
    def scale(self) -> float:
        """The view's zoom (screen px per scene px)."""
        return float(self.view.transform().m11())

    def label_px(self) -> float:
        """Device labels' size on screen."""
        return DEVICE_PX * self.scale

    def zoom_by(self, factor: float) -> None:
        """Zoom by ``factor`` within bounds (the view stays where it is)."""
        target = min(max(self.scale * factor, MIN_SCALE), MAX_SCALE)
        if target != self.scale:
            f = target / self.scale
            self.view.scale(f, f)
        self.fitted = False

    def zoom_in(self) -> None:
        """One zoom step in."""
        self.zoom_by(ZOOM_STEP)

    def zoom_out(self) -> None:
        """One zoom step out."""
        self.zoom_by(1 / ZOOM_STEP)

    def refit(self) -> None:
        """Back to the fitted view."""
        self.fitted = True
        self.fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Refit on resize."""
        super().resizeEvent(event)
        self.fit()

    # -- following the model ----------------------------------------------------------

    def apply(
        self, racks: Collection[str], moved: Collection[str], reset: bool
    ) -> None:
        """Redraw the racks that changed (all after a reset); a rack that moved
        may leave or join the row shown."""
        if reset:
            self.refill_choices()
            self.show_racks(self._wanted())
            return
        if moved:
            self.refill_choices()  # rows' rack counts
        if moved and self.choice.currentData() != SELECTION:
            wanted = self._wanted()
            if wanted != self.shown:
                self.show_racks(wanted)
                return
        for r in racks:
            item = self.items.get(r)
            if item is not None:
                if item.rack.u != self.live.rack(r).u:
                    self.show_racks(self.shown)  # a taller or shorter rack type
                    return
                item.set_rack(self.live.rack(r))

    def set_selection(self, devices: set[str], follow: bool) -> None:
        """Outline the selected devices; ``follow``: bring their racks in."""
        before = self.selected
        self.selected = devices
        if follow:
            if self.choice.currentData() == SELECTION:
                wanted = self._wanted()
                if wanted != self.shown:
                    self.show_racks(wanted)
                    return
            else:
                first = next(
                    (r for d in sorted(devices) if (r := self.live.rack_of(d))), None
                )
                if first is not None and first not in self.items:
                    self.show_row_of(first)
                    return
        for d in before ^ devices:
            r = self.live.rack_of(d)
            item = self.items.get(r) if r is not None else None
            if item is not None:
                item.update()

    # -- drag and drop ---------------------------------------------------------------

    def device_at(self, pos: QPointF) -> tuple[RackView, DeviceSlot] | None:
        """The rack and device under a scene point."""
        i = self.layout_.rack_at(pos.x())
        if i is None:
            return None
        rack = self.items[self.shown[i]].rack
        u = self.layout_.unit_at(i, pos.y())
        for slot in rack.devices:
            if slot.u <= u <= slot.top:
                return rack, slot
        return None

    def preview(self, drag: _Drag, pos: QPointF) -> None:
        """Show where the held device would land, green or red with the reason."""
        target = self.layout_.drop_at(pos.x(), pos.y(), drag.grab)
        drag.target = target
        ghost = self.view.ghost
        if target is None:
            drag.why = "not over a rack: drop it on a rack's units"
            ghost.hide()
            self.status.setText(drag.why)
            return
        rack, u = target
        drag.why = self.live.can_place(drag.device, rack, u)
        snapped = None
        if drag.why is not None:
            snapped = self.nearest_fit(drag, rack, u)
            if snapped is not None:
                u, drag.why = snapped, None
                drag.target = (rack, u)
        i = self.layout_.index[rack]
        top = min(max(u, 1), max(self.layout_.racks[i][1] - drag.height + 1, 1))
        ghost.setRect(QRectF(*self.layout_.unit_rect(i, top, drag.height)))
        ok = drag.why is None
        colour = QColor("#27ae60") if ok else QColor("#c0392b")
        ghost.setPen(QPen(colour, 2.0))
        fill = QColor(colour)
        fill.setAlpha(60)
        ghost.setBrush(QBrush(fill))
        ghost.show()
        where = f"{drag.device} to {rack} U{u}"
        if snapped is not None:
            where += " (the nearest U where it fits)"
        self.status.setText(where if ok else f"Cannot drop: {drag.why}")

    def nearest_fit(self, drag: _Drag, rack: str, u: int) -> int | None:
        """The U nearest ``u`` where the held device fits in ``rack`` (a drop
        one U off sticks out of the rack or into a neighbour); None when none
        lies within reach (the drop is then refused, with the reason)."""
        i = self.layout_.index[rack]
        rack_u = self.layout_.racks[i][1]
        reach = max(SNAP_UNITS, drag.height)
        for d in range(1, reach + 1):
            for cand in (u - d, u + d):
                if 1 <= cand <= rack_u - drag.height + 1:
                    if (rack, cand) == (drag.rack, drag.u):
                        return None  # back where it was: say why it cannot go
                    if self.live.can_place(drag.device, rack, cand) is None:
                        return cand
        return None

    def drop(self, drag: _Drag) -> None:
        """Execute the drop as one command, or say why it is refused."""
        if drag.target is None:
            self.refuse(drag.why or "not over a rack")
            return
        rack, u = drag.target
        if (rack, u) == (drag.rack, drag.u):
            self.status.setText("")
            return
        try:
            command = self.live.place_command(drag.device, rack, u)
            self.execute(command)
        except ValueError as exc:
            self.refuse(str(exc))
            return
        view = self.live.rack(rack)
        if view.over_power or view.over_cooling:
            text = (
                f"Moved {drag.device} to {rack} U{u}; {rack} now draws "
                f"{view.kw:,.1f} kW, above its limit ({limit_text(view)}): see "
                "the findings"
            )
        else:
            text = f"Moved {drag.device} to {rack} U{u}"
        self.status.setText(text)
        self.message.emit(text)

    def refuse(self, why: str) -> None:
        """Say why a drop did not happen."""
        text = f"Cannot drop: {why}"
        self.status.setText(text)
        self.message.emit(text)


__all__ = ["ElevationPanel", "ElevationView", "RackItem", "screen_fonts"]
