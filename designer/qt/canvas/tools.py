"""Interaction modes of the canvas as tool objects (select, connect, pan).

The view forwards left-button mouse events to the active tool; panning with the
middle button or while Space is held is handled by the view for every tool.
Alt+drag from a device with the select tool connects, like the connect tool.

A connect gesture (drag from one device and release over another, or click
one device then the other; Escape cancels) makes the link the rules plan
(:func:`designer.core.connect.plan_connection`): data ports before management
ports, and every free port of the matched port group up to the other end's
free ports. Keys held when the button is *released* (the second click's):

- Shift: one cable instead of all free ports;
- Ctrl (Cmd on macOS): out-of-band, joining the devices' management ports
  (BMC, switch management port). Two management ports are joined only this
  way (or with *Design > Connect Out-of-Band*), never picked silently.

The status bar says what was made ("8 cables, compute, 400G: ..."); a refusal
shows the rules' reason, the same text every other entry point gives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, assert_never

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt, SignalInstance
from PySide6.QtGui import QColor, QMouseEvent, QPen
from PySide6.QtWidgets import QGraphicsLineItem, QGraphicsRectItem

from designer.core.model import Fabric
from designer.qt.canvas import style as st
from designer.qt.canvas.drag import DragSession
from designer.qt.canvas.hits import BlockHit, DeviceHit, FrameHit, LinkHit, TrunkHit
from designer.view.canvas import sizes as sz

if TYPE_CHECKING:
    from designer.qt.canvas.edits import CanvasEdits
    from designer.qt.canvas.scene import DesignScene

_DRAG_START_PX = 4.0
SINGLE_CABLE_KEY = Qt.KeyboardModifier.ShiftModifier
"""Held at release: the connect gesture makes one cable."""
OUT_OF_BAND_KEY = Qt.KeyboardModifier.ControlModifier
"""Held at release: the connect gesture joins management ports (Cmd on macOS)."""


class ToolHost(Protocol):
    """What a tool asks of the view it works in (the canvas view provides it)."""

    design_scene: DesignScene
    edits: CanvasEdits
    grid_snap: bool
    status_message: SignalInstance

    def pick_tolerance(self) -> float:
        """Pick radius in scene units at the current zoom."""
        ...

    def refuse(self, message: str) -> None:
        """Tell the user why a gesture did nothing."""
        ...

    def group_members(self, group_id: str) -> list[str]:
        """Device ids in a group and its subgroups."""
        ...

    def zoom_to_rect(self, rect: QRectF) -> None:
        """Show ``rect`` (scene units)."""
        ...

    def start_pan(self, event: QMouseEvent) -> None:
        """Begin panning with the mouse."""
        ...


class CanvasTool:
    """Base tool: gets scene positions of left-button presses, moves, releases."""

    name = "tool"
    cursor = Qt.CursorShape.ArrowCursor

    def __init__(self, view: ToolHost) -> None:
        self.view = view

    def press(self, event: QMouseEvent, pos: QPointF) -> None:
        """Left button pressed at scene point ``pos``."""

    def move(self, event: QMouseEvent, pos: QPointF) -> None:
        """Mouse moved (button held or not)."""

    def release(self, event: QMouseEvent, pos: QPointF) -> None:
        """Left button released."""

    def double_click(self, event: QMouseEvent, pos: QPointF) -> None:
        """Double click: collapse a frame or expand a block."""
        hit = self.view.design_scene.hit(pos, self.view.pick_tolerance())
        if hit is None:
            return
        scene = self.view.design_scene
        match hit:
            case FrameHit(id=group):
                self.view.edits.toggle_group_collapsed(group)
            case TrunkHit(index=k):
                self.view.zoom_to_rect(scene.trunk_ends_rect(k))
            case BlockHit(id=key):
                block = next((b for b in scene.block_items() if b.key == key), None)
                if block is not None and block.group_id is not None:
                    if scene.overview:
                        # where the members are (the overview may have moved it)
                        self.view.zoom_to_rect(scene.members_rect(key))
                    else:
                        self.view.edits.toggle_group_collapsed(block.group_id)
            case DeviceHit() | LinkHit():
                pass
            case _:
                assert_never(hit)

    def cancel(self) -> bool:
        """Abort any gesture in progress (Escape, tool switch); True if one was."""
        return False

    def begin_connect(self, device_id: str, pos: QPointF) -> bool:
        """Start connecting from a device, finished by a click on another one
        (False: this tool does not connect)."""
        return False


class ConnectGesture:
    """Rubber line from a device to the cursor; connects on release over another.

    Released over its own device without moving, the line stays (click-click):
    it follows the mouse until a click on another device connects, a click
    elsewhere or Escape cancels.
    """

    def __init__(self, view: ToolHost) -> None:
        self.view = view
        self.source: str | None = None
        self.line: QGraphicsLineItem | None = None
        #: waiting for the second click (the first one did not drag)
        self.armed = False
        self._press_screen = QPointF()
        self._dragged = False

    def start(
        self, device_id: str, pos: QPointF, screen: QPointF | None = None
    ) -> None:
        """Begin at a device; ``screen``: where a press began (None: a menu
        started it, the next click finishes it)."""
        scene = self.view.design_scene
        self.source = device_id
        self.armed = screen is None
        self._press_screen = QPointF(screen) if screen is not None else QPointF()
        self._dragged = False
        self.line = QGraphicsLineItem(QLineF(pos, pos))
        pen = QPen(st.SELECTED, 2.0, Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        self.line.setPen(pen)
        self.line.setZValue(st.Z_OVERLAY)
        scene.addItem(self.line)
        g = scene.geometry
        r = g.row_of[device_id]
        self.origin = QPointF(float(g.xy[r, 0]), float(g.xy[r, 1]))
        self.line.setLine(QLineF(self.origin, pos))

    @property
    def active(self) -> bool:
        return self.source is not None

    def move(self, pos: QPointF, screen: QPointF | None = None) -> None:
        """Follow the mouse; ``screen``: its viewport position (a press that
        travels the drag distance is a drag, not the first of two clicks)."""
        if self.line is not None:
            self.line.setLine(QLineF(self.origin, pos))
        if (
            screen is not None
            and not self.armed
            and (screen - self._press_screen).manhattanLength() >= _DRAG_START_PX
        ):
            self._dragged = True

    def release(self, event: QMouseEvent, pos: QPointF) -> None:
        """The button went up: connect, cancel, or (a click on the source
        device without dragging) wait for the click on the other device."""
        if self.source is None:
            return
        keys = event.modifiers()
        hit = self.view.design_scene.hit(pos, self.view.pick_tolerance())
        on_source = isinstance(hit, DeviceHit) and hit.id == self.source
        if not self.armed:
            self.move(pos, event.position())
            if on_source and not self._dragged:
                self.armed = True
                self.view.status_message.emit(
                    f"Click the device to connect {self.source} to (Esc cancels)"
                )
                return
            self.finish(pos, keys)
            return
        if on_source or not isinstance(hit, DeviceHit):
            self.cancel()
            self.view.status_message.emit("Connect cancelled")
            return
        self.finish(pos, keys)

    def finish(self, pos: QPointF, keys: Qt.KeyboardModifier) -> None:
        """Connect to the device under ``pos``; ``keys``: modifiers at release."""
        source = self.source
        self.cancel()
        if source is None:
            return
        hit = self.view.design_scene.hit(pos, self.view.pick_tolerance())
        match hit:
            case DeviceHit(id=target) if target != source:
                self.view.edits.connect_devices(
                    source,
                    target,
                    cables=1 if keys & SINGLE_CABLE_KEY else None,
                    fabric=Fabric.OOB if keys & OUT_OF_BAND_KEY else None,
                )
            case DeviceHit():
                self.view.refuse("A device cannot be connected to itself.")
            case BlockHit():
                self.view.refuse(
                    "Drop on a single device: expand the group or zoom in to connect."
                )
            case LinkHit() | TrunkHit() | FrameHit() | None:
                self.view.refuse("Release over another device to connect.")
            case _:
                assert_never(hit)

    def cancel(self) -> bool:
        """Remove the line; True when a connection was in progress."""
        active = self.source is not None
        if self.line is not None:
            self.view.design_scene.removeItem(self.line)
        self.line = None
        self.source = None
        self.armed = False
        return active


class SelectTool(CanvasTool):
    """Click/rubber-band selection, drag to move (one Move step), Alt+drag connects."""

    name = "select"

    def __init__(self, view: ToolHost) -> None:
        super().__init__(view)
        self._press: QPointF | None = None
        self._press_screen = QPointF()
        self._drag: DragSession | None = None
        self._band: QGraphicsRectItem | None = None
        self._band_add = False
        self._connect = ConnectGesture(view)

    def press(self, event: QMouseEvent, pos: QPointF) -> None:
        scene = self.view.design_scene
        if self._connect.armed:
            return  # the second click of a connection: its release connects
        hit = scene.hit(pos, self.view.pick_tolerance())
        mods = event.modifiers()
        add = bool(
            mods
            & (Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.ControlModifier)
        )
        if mods & Qt.KeyboardModifier.AltModifier and isinstance(hit, DeviceHit):
            self._connect.start(hit.id, pos, event.position())
            return
        self._press = pos
        self._press_screen = event.position()
        self._drag = None
        if hit is None:
            self._band_add = add
            self._band = QGraphicsRectItem(QRectF(pos, pos))
            pen = QPen(st.SELECTED, 1.0, Qt.PenStyle.DashLine)
            pen.setCosmetic(True)
            self._band.setPen(pen)
            self._band.setBrush(QColor(26, 115, 232, 30))
            self._band.setZValue(st.Z_OVERLAY)
            scene.addItem(self._band)
            return
        ids: list[str]
        match hit:
            case LinkHit(id=link):
                scene.select([link], toggle=add)
                self._press = None
                return
            case TrunkHit(index=k):
                scene.select(scene.trunk_links(k), add=add)
                self.view.status_message.emit(scene.trunk_summary(k))
                self._press = None
                return
            case DeviceHit(id=device):
                ids = [device]
            case BlockHit(id=key):
                ids = scene.block_members(key)
            case FrameHit(id=group):
                ids = self.view.group_members(group)
            case _:
                assert_never(hit)
        selected = set(scene.selected_device_ids())
        if add:
            scene.select(ids, toggle=True)
        elif not set(ids) <= selected:
            scene.select(ids)

    def move(self, event: QMouseEvent, pos: QPointF) -> None:
        if self._connect.active:
            self._connect.move(pos, event.position())
            return
        if self._press is None:
            return
        if self._band is not None:
            self._band.setRect(QRectF(self._press, pos).normalized())
            return
        if self._drag is None:
            if (
                event.position() - self._press_screen
            ).manhattanLength() < _DRAG_START_PX:
                return
            scene = self.view.design_scene
            ids = scene.selected_device_ids()
            if not ids:
                return
            self._drag = DragSession(scene, ids)
        snap_on = self.view.grid_snap
        dx = sz.snap(pos.x() - self._press.x(), snap_on)
        dy = sz.snap(pos.y() - self._press.y(), snap_on)
        self._drag.move_by(dx, dy)

    def release(self, event: QMouseEvent, pos: QPointF) -> None:
        scene = self.view.design_scene
        if self._connect.active:
            self._connect.release(event, pos)
            return
        if self._band is not None:
            rect = self._band.rect()
            scene.removeItem(self._band)
            self._band = None
            self._press = None
            scene.select(scene.device_ids_in_rect(rect), add=self._band_add)
            return
        if self._drag is not None:
            positions = self._drag.finish()
            self._drag = None
            self.view.edits.commit_move(positions)
        self._press = None

    def cancel(self) -> bool:
        cancelled = self._connect.cancel()
        if self._band is not None:
            self.view.design_scene.removeItem(self._band)
            self._band = None
            cancelled = True
        if self._drag is not None:
            self._drag.cancel()
            self._drag = None
            cancelled = True
        self._press = None
        return cancelled

    def begin_connect(self, device_id: str, pos: QPointF) -> bool:
        self.cancel()
        self._connect.start(device_id, pos)
        return True


class ConnectTool(CanvasTool):
    """Drag from one device to another, or click one then the other, to connect
    them (Shift at release: one cable; Ctrl/Cmd at release: out-of-band; see
    the module doc)."""

    name = "connect"
    cursor = Qt.CursorShape.CrossCursor

    def __init__(self, view: ToolHost) -> None:
        super().__init__(view)
        self._gesture = ConnectGesture(view)

    def press(self, event: QMouseEvent, pos: QPointF) -> None:
        if self._gesture.armed:
            return  # the second click: its release connects
        hit = self.view.design_scene.hit(pos, self.view.pick_tolerance())
        match hit:
            case DeviceHit(id=device):
                self._gesture.start(device, pos, event.position())
            case BlockHit():
                self.view.refuse(
                    "Expand the group or zoom in to connect single devices."
                )
            case LinkHit() | TrunkHit() | FrameHit() | None:
                pass
            case _:
                assert_never(hit)

    def move(self, event: QMouseEvent, pos: QPointF) -> None:
        self._gesture.move(pos, event.position())

    def release(self, event: QMouseEvent, pos: QPointF) -> None:
        if self._gesture.active:
            self._gesture.release(event, pos)

    def cancel(self) -> bool:
        return self._gesture.cancel()

    def begin_connect(self, device_id: str, pos: QPointF) -> bool:
        self._gesture.cancel()
        self._gesture.start(device_id, pos)
        return True


class PanTool(CanvasTool):
    """Drag the canvas around with the left button."""

    name = "pan"
    cursor = Qt.CursorShape.OpenHandCursor

    def press(self, event: QMouseEvent, pos: QPointF) -> None:
        self.view.start_pan(event)


TOOLS: dict[str, type[CanvasTool]] = {
    t.name: t for t in (SelectTool, ConnectTool, PanTool)
}
