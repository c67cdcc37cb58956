"""The canvas's context menu: right-click selects, then offers what applies.

Which entries a click offers is decided without Qt
(:func:`designer.view.canvas.context_actions.menu_actions`); this module selects what
the click landed on (unless it is already selected, so a multi-selection
survives), builds the QMenu and runs each entry through the view's own edits
(``view.edits``): the same commands, rules and refusal messages as the toolbar
and the Design menu. Entries the window shows (Properties, the validator, the export
dialog) are signals of the view.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol, assert_never

from PySide6.QtCore import QPointF, QRectF, SignalInstance
from PySide6.QtWidgets import QInputDialog, QMenu, QWidget

from designer.catalog.schema import CatalogEntry
from designer.core.document import Document
from designer.qt.canvas.hits import (
    BlockHit,
    DeviceHit,
    FrameHit,
    Hit,
    LinkHit,
    TrunkHit,
)
from designer.view.canvas.context_actions import (
    Action,
    Target,
    TargetKind,
    menu_actions,
)

if TYPE_CHECKING:
    from designer.qt.canvas.edits import CanvasEdits
    from designer.qt.canvas.scene import DesignScene


class MenuHost(Protocol):
    """What the context menu asks of the view (the canvas view provides it)."""

    document: Document
    catalog: Mapping[str, CatalogEntry]
    design_scene: DesignScene
    edits: CanvasEdits
    properties_requested: SignalInstance
    validator_requested: SignalInstance
    export_selection_requested: SignalInstance

    def dialog_parent(self) -> QWidget | None:
        """The widget a dialog opens over."""
        ...

    def pick_tolerance(self) -> float:
        """Pick radius in scene units at the current zoom."""
        ...

    def group_members(self, group_id: str) -> list[str]:
        """Device ids in a group and its subgroups."""
        ...

    def select_ids(self, ids: list[str], center: bool = True) -> None:
        """Select by id."""
        ...

    def fit_all(self) -> None:
        """Show the whole design."""
        ...

    def begin_connect(self, device_id: str, pos: QPointF) -> None:
        """Start a click-click connection from a device."""
        ...

    def zoom_to_rect(self, rect: QRectF, max_scale: float = ...) -> None:
        """Show a scene rect."""
        ...

    def zoom_to_selection(self) -> None:
        """Show the selection."""
        ...

    def select_connected(self) -> None:
        """Add the devices linked to the selection."""
        ...


def select_for_menu(view: MenuHost, hit: Hit | None) -> Target:
    """Select what ``hit`` names unless it is part of the selection; its target."""
    scene = view.design_scene
    if hit is None:
        return Target(TargetKind.CANVAS)
    ids: list[str]
    group: str | None = None
    trunk: int | None = None
    match hit:
        case DeviceHit(id=device):
            ids = [device]
            group = view.document.design.device_map()[device].group
        case LinkHit(id=link):
            ids = [link]
        case BlockHit(id=key):
            ids = scene.block_members(key)
            block = next((b for b in scene.block_items() if b.key == key), None)
            group = block.group_id if block is not None else None
        case FrameHit(id=frame):
            ids = view.group_members(frame)
            group = frame
        case TrunkHit(index=trunk):
            ids = scene.trunk_links(trunk)
        case _:
            assert_never(hit)
    if not set(ids) <= set(scene.selected_ids()):
        scene.select(ids)
    groups = view.document.design.group_map()
    name = ""
    if group is not None and group in groups:
        name = groups[group].label or group
    return Target(TargetKind(hit.kind), hit.id, group, name, trunk)


def context_menu(view: MenuHost, pos: QPointF) -> QMenu:
    """The menu for a right-click at scene point ``pos`` (after selecting)."""
    scene = view.design_scene
    target = select_for_menu(view, scene.hit(pos, view.pick_tolerance()))
    devices = scene.selected_device_ids()
    links = [i for i in scene.selected_ids() if i not in set(devices)]
    entries = menu_actions(
        target,
        view.document.design,
        view.catalog,
        devices,
        links,
        can_paste=view.edits.can_paste(),
        overview=scene.overview,
    )
    menu = QMenu(view.dialog_parent())
    menu.setObjectName("canvasContextMenu")
    menu.setToolTipsVisible(True)
    handlers = _handlers(view, target, devices, pos)
    for entry in entries:
        if entry is None:
            menu.addSeparator()
            continue
        action = menu.addAction(entry.text)
        action.setObjectName(entry.key)
        action.setToolTip(entry.tip or entry.text)
        action.setEnabled(entry.enabled)
        run = handlers[entry.key]
        action.triggered.connect(lambda _=False, run=run: run())
    return menu


def _handlers(
    view: MenuHost, target: Target, devices: list[str], pos: QPointF
) -> dict[str, Callable[[], object]]:
    """What each entry's key runs (the view's own edits)."""
    scene = view.design_scene
    edits = view.edits

    def all_to_all() -> None:
        cables, ok = QInputDialog.getInt(
            view.dialog_parent(),
            "Connect all to all",
            "Cables between each lower and each upper device:",
            1,
            1,
            64,
        )
        if ok:
            edits.connect_all_to_all(cables)

    def zoom_group() -> None:
        if target.kind is TargetKind.BLOCK:
            view.zoom_to_rect(scene.members_rect(target.id))
        else:
            frame = next(
                (f for f in scene.frame_items() if f.group_id == target.group_id), None
            )
            if frame is not None:
                view.zoom_to_rect(frame.rect)

    def zoom_trunk() -> None:
        if target.trunk is not None:
            view.zoom_to_rect(scene.trunk_ends_rect(target.trunk))

    def design_properties() -> None:
        view.select_ids([], center=False)
        view.properties_requested.emit()

    group = target.group_id or ""
    return {
        "paste": edits.paste,
        "select_all": lambda: view.select_ids(
            [d.id for d in view.document.design.devices], center=False
        ),
        "fit": view.fit_all,
        "auto_layout": edits.auto_layout,
        "design_properties": design_properties,
        "connect": lambda: edits.connect_devices(devices[0], devices[1]),
        "connect_oob": edits.connect_selected_out_of_band,
        "connect_from": lambda: view.begin_connect(target.id, pos),
        "wire_rails": edits.wire_rail_optimized,
        "all_to_all": all_to_all,
        "group_su": lambda: edits.group_selection("su"),
        "group_pod": lambda: edits.group_selection("pod"),
        "collapse": lambda: edits.toggle_group_collapsed(group),
        "ungroup": lambda: edits.ungroup(group),
        "expand": lambda: edits.toggle_group_collapsed(group),
        "zoom_group": zoom_group,
        "zoom_trunk": zoom_trunk,
        "zoom_selection": view.zoom_to_selection,
        "select_connected": view.select_connected,
        "validator": lambda: view.validator_requested.emit(scene.selected_ids()),
        "properties": view.properties_requested.emit,
        "export_selection": view.export_selection_requested.emit,
        "delete": edits.delete_selection,
    }


__all__ = ["Action", "context_menu", "select_for_menu"]
