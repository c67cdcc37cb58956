"""Edit operations of the canvas view: each builds a core command and runs it.

:class:`CanvasEdits` is owned by :class:`~designer.qt.canvas.view.CanvasView`
(``view.edits``): the view holds gestures, zoom and tools, this object the
edits they lead to, and the tools, the context menu and the window's actions
call it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QMimeData, QPointF, SignalInstance
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton, QWidget

from designer.catalog.schema import CatalogEntry
from designer.core.commands import Command, Macro
from designer.core.connect import Connection, plan_connection
from designer.core.device_commands import RemoveDevices, move_devices
from designer.core.document import Document
from designer.core.edits import (
    copy_selection,
    duplicate,
    paste,
    remove_group,
    set_group_collapsed,
)
from designer.core.errors import ConnectionRefused, NothingToWire, RailsTaken
from designer.core.formatting import plural
from designer.core.link_commands import AddLinks, RemoveLinks
from designer.core.model import Fabric
from designer.core.wiring import connect_all_to_all, wire_rail_optimized
from designer.view.canvas import editing
from designer.view.canvas import sizes as sz

if TYPE_CHECKING:
    from designer.qt.canvas.scene import DesignScene

CATALOG_MIME = "application/x-gcd-catalog-item"
FRAGMENT_MIME = "application/x-gcd-design-fragment"


def release_clipboard() -> None:
    """Drop our fragment from the clipboard.

    PySide6 crashes at interpreter exit (segfault on the offscreen platform) when
    the clipboard still holds a QMimeData made in Python, so the app lets go of it
    before the QApplication is torn down.
    """
    app = QApplication.instance()
    if app is None:
        return
    clipboard = QApplication.clipboard()
    mime = clipboard.mimeData()
    if mime is not None and mime.hasFormat(FRAGMENT_MIME):
        clipboard.clear()


_release_hooked = False


def _release_clipboard_on_quit() -> None:
    global _release_hooked
    app = QApplication.instance()
    if app is not None and not _release_hooked:
        app.aboutToQuit.connect(release_clipboard)
        _release_hooked = True


class RailReplaceBox(QMessageBox):
    """The question asked when rail wiring would need a node's other links;
    ``replace`` is its Replace button."""

    replace: QPushButton


def rail_replace_box(parent: QWidget | None, reason: str) -> RailReplaceBox:
    """The question asked when rail wiring would need a node's other links."""
    box = RailReplaceBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("Wire rail-optimized")
    box.setText("Compute ports of the selected nodes are cabled elsewhere.")
    box.setInformativeText(
        f"{reason}.\n\nReplace removes the selected "
        "nodes' compute links and wires every rail afresh, in one undo step."
    )
    replace = box.addButton("Replace", QMessageBox.ButtonRole.DestructiveRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    replace.setObjectName("replaceButton")
    box.replace = replace
    return box


def ask_replace_rails(parent: QWidget | None, reason: str) -> bool:
    """Ask Replace / Cancel; True to replace the nodes' compute links."""
    box = rail_replace_box(parent, reason)
    box.exec()
    return box.clickedButton() is box.replace


class EditsHost(Protocol):
    """What the edits ask of the view they act for (the canvas view provides it)."""

    document: Document
    catalog: Mapping[str, CatalogEntry]
    design_scene: DesignScene
    grid_snap: bool
    status_message: SignalInstance

    def refuse(self, message: str) -> None:
        """Tell the user why an action did not happen."""
        ...

    def reveal(self, ids: list[str]) -> None:
        """Bring new devices wholly on screen."""
        ...

    def fit_all(self) -> None:
        """Show the whole design."""
        ...

    def dialog_parent(self) -> QWidget | None:
        """The widget dialogs are shown over."""
        ...


class CanvasEdits:
    """Edits on the document from the canvas's selection (refusals are shown).

    Owned by the canvas view (``view.edits``); it keeps what only edits need:
    the devices copied last and how many times they were pasted.
    """

    def __init__(self, view: EditsHost) -> None:
        self.view = view
        self._clip: dict[str, object] | None = None
        self._paste_count = 0

    @property
    def document(self) -> Document:
        """The document the view shows (read at each edit: it can be replaced)."""
        return self.view.document

    @property
    def catalog(self) -> Mapping[str, CatalogEntry]:
        """The catalog the rules read."""
        return self.view.catalog

    def refuse(self, message: str) -> None:
        """Show why an action did not happen (status bar and canvas)."""
        self.view.refuse(message)

    def selected_ids(self) -> list[str]:
        """Selected device ids, then link ids."""
        return self.view.design_scene.selected_ids()

    def can_paste(self) -> bool:
        """Whether Paste has devices to paste (ours or on the clipboard)."""
        mime = QApplication.clipboard().mimeData()
        return bool(self._clip) or (mime is not None and mime.hasFormat(FRAGMENT_MIME))

    def reset_paste_offset(self) -> None:
        """The next paste lands one offset from the originals again (a new design)."""
        self._paste_count = 0

    def _run(self, build: Callable[[], Command]) -> bool:
        """Build a command and execute it; show the reason when refused."""
        try:
            command = build()
            self.document.execute(command)
        except (
            ConnectionRefused,
            editing.EditRefused,
            ValueError,
            KeyError,
        ) as exc:
            self.refuse(str(exc).strip("'\"") or type(exc).__name__)
            return False
        return True

    def drop_catalog_item(self, mime: QMimeData, pos: QPointF) -> bool:
        """Handle palette MIME data dropped at scene point ``pos``."""
        try:
            data = json.loads(bytes(mime.data(CATALOG_MIME).data()).decode("utf-8"))
            catalog_id = str(data["catalog_id"])
            count = int(data.get("count", 1))
        except (ValueError, KeyError, TypeError, AttributeError):
            self.refuse("The dropped item is not a catalog entry.")
            return False
        before = len(self.document.design.devices)
        ok = self._run(
            lambda: editing.place_devices(
                self.document.design,
                self.catalog,
                catalog_id,
                count,
                pos.x(),
                pos.y(),
                self.view.grid_snap,
            )
        )
        if ok:
            new = [d.id for d in self.document.design.devices[before:]]
            self.view.design_scene.select(new)
            self.view.reveal(new)
            self.view.status_message.emit(f"Placed {len(new)} x {catalog_id}")
        return ok

    # --- edits -------------------------------------------------------------------

    def commit_move(self, positions: dict[str, tuple[float, float]]) -> None:
        """One "Move" history step for a finished drag."""
        devs = self.document.design.device_map()
        moved = {
            i: p
            for i, p in positions.items()
            if i in devs and (devs[i].x, devs[i].y) != p
        }
        if moved:
            self._run(lambda: move_devices(moved))

    def connect_devices(
        self,
        a_id: str,
        b_id: str,
        *,
        cables: int | None = None,
        fabric: Fabric | None = None,
    ) -> bool:
        """Connect two devices as the rules plan it; say what was made, or why not.

        By default every free port of the matched port group, up to the other
        end's free ports; ``cables=1`` makes one cable; ``fabric=Fabric.OOB``
        asks for an out-of-band (management port) link explicitly, the only way
        two management ports are joined.
        """
        design = self.document.design
        made: list[Connection] = []

        def build() -> Command:
            plan = plan_connection(
                design, a_id, b_id, self.catalog, fabric=fabric, cables=cables
            )
            made.append(plan)
            n = plan.link.cables
            return AddLinks(
                [plan.link],
                label=f"Connect {a_id} to {b_id} ({n} cable{'' if n == 1 else 's'})",
                lookup=self.catalog,
            )

        if not self._run(build):
            return False
        plan = made[0]
        self.view.design_scene.select([plan.link.id])
        self.view.status_message.emit(f"Connected {plan.description}")
        return True

    def connect_selected_out_of_band(self) -> bool:
        """Join the two selected devices by their management (OOB) ports."""
        ids = self.view.design_scene.selected_device_ids()
        if len(ids) != 2:
            self.refuse(
                "Select exactly two devices to connect out-of-band "
                f"({len(ids)} selected)."
            )
            return False
        return self.connect_devices(ids[0], ids[1], fabric=Fabric.OOB)

    def delete_selection(self) -> None:
        """Delete selected devices (with their links) and selected links, one step."""
        scene = self.view.design_scene
        devices = set(scene.selected_device_ids())
        links = [i for i in scene.selected_ids() if i not in devices]
        if not devices and not links:
            self.refuse("Nothing selected to delete.")
            return
        t = self.document.design.links
        ends = {lid: t.row(i) for lid, i in t.positions(links).items()}
        loose = [
            lid
            for lid in links
            if lid in ends and ends[lid].a not in devices and ends[lid].b not in devices
        ]
        commands: list[Command] = []
        if loose:
            commands.append(RemoveLinks(loose))
        if devices:
            commands.append(RemoveDevices(devices))
        if len(commands) == 1:
            self._run(lambda: commands[0])
        else:
            self._run(
                lambda: Macro(
                    f"Delete {plural(len(devices), 'device')} and "
                    f"{plural(len(loose), 'link')}",
                    commands,
                )
            )

    def copy_selection(self) -> None:
        """Copy selected devices and the links between them."""
        ids = self.view.design_scene.selected_device_ids()
        if not ids:
            self.refuse("Select devices to copy.")
            return
        self._clip = copy_selection(self.document.design, ids)
        self._paste_count = 0
        mime = QMimeData()
        mime.setData(FRAGMENT_MIME, json.dumps(self._clip).encode("utf-8"))
        mime.setText(f"{plural(len(ids), 'device')} from GPU Cluster Designer")
        QApplication.clipboard().setMimeData(mime)
        _release_clipboard_on_quit()
        self.view.status_message.emit(f"Copied {plural(len(ids), 'device')}")

    def paste(self) -> None:
        """Paste copied devices with fresh ids, offset from the originals."""
        data = self._clip
        mime = QApplication.clipboard().mimeData()
        if mime is not None and mime.hasFormat(FRAGMENT_MIME):
            try:
                data = json.loads(
                    bytes(mime.data(FRAGMENT_MIME).data()).decode("utf-8")
                )
            except ValueError:
                data = self._clip
        if not data:
            self.refuse("Nothing to paste: copy devices first.")
            return
        self._paste_count += 1
        self._paste(data, self._paste_count * sz.PASTE_OFFSET, "Paste")

    def duplicate_selection(self) -> None:
        """Copy and paste the selection in one go."""
        ids = self.view.design_scene.selected_device_ids()
        if not ids:
            self.refuse("Select devices to duplicate.")
            return
        before = len(self.document.design.devices)
        offset = (sz.PASTE_OFFSET, sz.PASTE_OFFSET)
        if self._run(
            lambda: duplicate(self.document.design, ids, offset, lookup=self.catalog)
        ):
            self.view.design_scene.select(
                [d.id for d in self.document.design.devices[before:]]
            )

    def _paste(self, data: Mapping[str, object], offset: float, label: str) -> None:
        before = len(self.document.design.devices)
        if self._run(
            lambda: paste(
                self.document.design,
                data,
                (offset, offset),
                label=label,
                lookup=self.catalog,
            )
        ):
            self.view.design_scene.select(
                [d.id for d in self.document.design.devices[before:]]
            )

    def connect_all_to_all(self, cables_each: int) -> bool:
        """Wire every selected lower-tier switch to every selected upper-tier one."""
        design = self.document.design
        if cables_each < 1:
            self.refuse("Cables per pair must be at least 1.")
            return False

        def build() -> Command:
            lower, upper = editing.split_tiers(
                design, self.catalog, self.selected_ids()
            )
            return connect_all_to_all(design, lower, upper, cables_each, self.catalog)

        return self._run(build)

    def wire_rail_optimized(self) -> bool:
        """Wire selected compute nodes to selected rail leaves (port i to rail i).

        Nodes with some rails already get only the rails they miss. When a
        node's compute ports are cabled elsewhere, a dialog offers to replace
        its compute links (one undo step) or cancel; when every rail is there,
        the status bar says so.
        """
        design = self.document.design
        try:
            nodes, leaves = self._rail_selection()
        except editing.EditRefused as exc:
            self.refuse(str(exc))
            return False

        def build(replace: bool) -> Command:
            return wire_rail_optimized(
                design, nodes, leaves, self.catalog, replace=replace
            )

        try:
            command = build(False)
        except NothingToWire as exc:
            text = str(exc)
            self.refuse(f"{text[:1].upper()}{text[1:]}.")
            return False
        except RailsTaken as exc:
            if not ask_replace_rails(self.view.dialog_parent(), str(exc)):
                self.view.status_message.emit("Rail wiring cancelled; nothing changed.")
                return False
            return self._run_and_report(lambda: build(True))
        except (ConnectionRefused, ValueError) as exc:
            self.refuse(str(exc))
            return False
        return self._run_and_report(lambda: command)

    def _rail_selection(self) -> tuple[list[str], list[str]]:
        """Selected compute nodes, and the lowest-tier selected switches by x."""
        design = self.document.design
        devs = design.device_map()
        ranks = editing.tier_ranks(design, self.catalog)
        chosen = [i for i in self.selected_ids() if i in devs]
        nodes = [
            i
            for i in chosen
            if ranks[i] == 0 and _gpus(self.catalog, devs[i].catalog_id)
        ]
        switches = [i for i in chosen if ranks[i] > 0]
        if not nodes or not switches:
            raise editing.EditRefused(
                "Select compute nodes and their rail leaves to wire rail-optimized."
            )
        low = min(ranks[i] for i in switches)
        leaves = sorted(
            (i for i in switches if ranks[i] == low), key=lambda i: devs[i].x
        )
        return nodes, leaves

    def _run_and_report(self, build: Callable[[], Command]) -> bool:
        """Run a command and put its history label in the status bar."""
        made: list[Command] = []

        def keep() -> Command:
            command = build()
            made.append(command)
            return command

        if not self._run(keep):
            return False
        self.view.status_message.emit(made[0].label)
        return True

    def group_selection(self, kind: str) -> bool:
        """Put the selected devices into a new group (su, pod, row, rack, custom)."""
        ids = self.view.design_scene.selected_device_ids()
        return self._run(lambda: editing.group_devices(self.document.design, ids, kind))

    def toggle_group_collapsed(self, group_id: str) -> bool:
        """Collapse or expand a group (stored in the model, undoable)."""
        group = self.document.design.group_map().get(group_id)
        if group is None:
            self.refuse(f"No group {group_id!r}.")
            return False
        return self._run(
            lambda: set_group_collapsed(
                self.document.design, group_id, not group.collapsed
            )
        )

    def ungroup(self, group_id: str) -> bool:
        """Dissolve a group in one step: its devices, sub-groups and the racks
        that serve it move to its parent (the design stays one that reopens)."""
        return self._run_and_report(
            lambda: remove_group(self.document.design, group_id)
        )

    def auto_layout(self) -> bool:
        """Arrange devices in rows by tier, compute at the bottom (one step)."""
        ok = self._run(lambda: editing.auto_layout(self.document.design, self.catalog))
        if ok:
            self.view.fit_all()
        return ok


def _gpus(catalog: Mapping[str, CatalogEntry], catalog_id: str) -> int:
    entry = catalog.get(catalog_id)
    return entry.gpus if entry is not None else 0
