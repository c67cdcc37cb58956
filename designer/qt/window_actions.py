"""Menus, toolbar and keyboard shortcuts of the main window."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QInputDialog, QMainWindow, QMenu, QStyle, QToolBar

if TYPE_CHECKING:
    from PySide6.QtWidgets import QDockWidget

    from designer.core.document import Document
    from designer.qt.canvas import CanvasView
    from designer.qt.canvas.edits import CanvasEdits
    from designer.qt.properties import PropertiesPanel
    from designer.qt.window_files import WindowFiles

Key = QKeySequence.StandardKey


class ActionHost(Protocol):
    """What the actions act on: the main window's panels, docks and files."""

    canvas: CanvasView
    document: Document
    properties_panel: PropertiesPanel
    palette_dock: QDockWidget
    properties_dock: QDockWidget
    history_dock: QDockWidget
    validator_dock: QDockWidget
    workload_dock: QDockWidget
    charts_dock: QDockWidget

    files: WindowFiles

    def show_status(self, text: str) -> None: ...
    def export(self, selection_only: bool = False) -> None: ...
    def set_show_cut(self, on: bool) -> None: ...
    def compare_with(self) -> None: ...


@dataclass(frozen=True)
class WindowMenus:
    """The menus of the window's menu bar, by what they hold (others add
    entries through these handles, never by looking a menu up by its text)."""

    file: QMenu
    recent: QMenu
    edit: QMenu
    view: QMenu
    tools: QMenu
    design: QMenu


class WindowActions:
    """Creates every QAction of the window and wires it to the window or canvas.

    ``menus`` are the menu bar's menus (:class:`WindowMenus`).
    """

    def __init__(self, window: QMainWindow, host: ActionHost) -> None:
        """``window`` owns the actions, menus and toolbar; ``host`` (the same
        main window, seen through :class:`ActionHost`) is what they act on."""
        self.window = window
        self.host = host
        w, h = window, host
        style = w.style()
        sp = QStyle.StandardPixmap

        def act(
            text: str,
            slot: Callable[[], object] | None = None,
            shortcut: QKeySequence | Key | str | list[QKeySequence] | None = None,
            tip: str = "",
        ) -> QAction:
            action = QAction(text, w)
            if isinstance(shortcut, list):
                action.setShortcuts(shortcut)
            elif shortcut is not None:
                action.setShortcut(QKeySequence(shortcut))
            if tip:
                action.setStatusTip(tip)
                action.setToolTip(tip)
            if slot is not None:
                action.triggered.connect(lambda _=False: slot())
            return action

        def canvas() -> CanvasView:  # read at trigger time
            return h.canvas

        def edits() -> CanvasEdits:
            return h.canvas.edits

        # File
        self.new = act("&New", h.files.new_design, Key.New, "Start an empty design")
        self.new.setIcon(style.standardIcon(sp.SP_FileIcon))
        self.new_template = act(
            "New from &Template…",
            h.files.new_from_template,
            "Ctrl+Shift+N",
            "Generate a SuperPOD, fat tree, k-ary or NVL72 design",
        )
        self.open = act("&Open…", h.files.open_dialog, Key.Open, "Open a design file")
        self.open.setIcon(style.standardIcon(sp.SP_DialogOpenButton))
        self.save = act("&Save", h.files.save, Key.Save, "Save the design")
        self.save.setIcon(style.standardIcon(sp.SP_DialogSaveButton))
        self.save_as = act("Save &As…", h.files.save_as, Key.SaveAs)
        self.export = act(
            "&Export…", h.export, "Ctrl+E", "Export PDF, SVG, PNG, BOM, cabling plan"
        )
        self.export.setEnabled(
            importlib.util.find_spec("designer.qt.export") is not None
        )
        self.verify_asbuilt = act(
            "&Verify As-Built…",
            lambda: _open_verify(w),
            None,
            "Compare ibnetdiscover output of the built fabric with the design",
        )
        self.close = act(
            "&Close",
            h.files.close_design,
            # Ctrl+W everywhere (the platform's Close key is Ctrl+F4 on some)
            [QKeySequence("Ctrl+W"), QKeySequence("Ctrl+F4")],
            "Close the design (asks to save changes) and start an empty one",
        )
        self.quit = act("&Quit", w.close, Key.Quit)
        self.recent_menu = QMenu("Open &Recent", w)
        self.recent_menu.aboutToShow.connect(self._fill_recent)

        # Edit
        self.undo = act("&Undo", self._undo, Key.Undo)
        self.undo.setIcon(style.standardIcon(sp.SP_ArrowBack))
        self.redo = act(
            "&Redo",
            self._redo,
            [QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")],
        )
        self.redo.setIcon(style.standardIcon(sp.SP_ArrowForward))
        self.cut = act("Cu&t", self._cut, Key.Cut)
        self.copy = act("&Copy", lambda: edits().copy_selection(), Key.Copy)
        self.paste = act("&Paste", lambda: edits().paste(), Key.Paste)
        self.duplicate = act(
            "D&uplicate", lambda: edits().duplicate_selection(), "Ctrl+D"
        )
        self.delete = act(
            "&Delete",
            lambda: edits().delete_selection(),
            [QKeySequence(Key.Delete), QKeySequence("Backspace")],
        )
        self.select_all = act("Select &All", self._select_all, Key.SelectAll)

        # View
        self.zoom_in = act("Zoom &In", lambda: canvas().zoom_in(), Key.ZoomIn)
        self.zoom_out = act("Zoom &Out", lambda: canvas().zoom_out(), Key.ZoomOut)
        self.fit = act("&Fit to View", lambda: canvas().fit_all(), "Ctrl+0")
        self.show_cut = act("Show Bisection &Cut", None, "Ctrl+B")
        self.show_cut.setCheckable(True)
        self.show_cut.toggled.connect(h.set_show_cut)
        self.grid_snap = act("&Snap to Grid", None, "Ctrl+G")
        self.grid_snap.setCheckable(True)
        self.grid_snap.setChecked(True)
        self.grid_snap.toggled.connect(lambda on: canvas().set_grid_snap(on))
        canvas().set_grid_snap(True)

        # Tools
        self.tool_group = QActionGroup(w)
        self.tools: dict[str, QAction] = {}
        for name, text, key in (
            ("select", "Select", "S"),
            ("connect", "Connect", "C"),
            ("pan", "Pan", "H"),
        ):
            a = act(text, None, key, f"{text} tool ({key})")
            a.setCheckable(True)
            # A bare letter must not fire while typing in the palette or a list:
            # these keys only work when the canvas has focus.
            a.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            canvas().addAction(a)
            a.triggered.connect(lambda _=False, n=name: canvas().set_tool(n))
            self.tool_group.addAction(a)
            self.tools[name] = a
        self.tools["select"].setChecked(True)

        # Design
        self.all_to_all = act(
            "Connect &All to All…",
            self._connect_all_to_all,
            "Ctrl+Shift+A",
            "Connect every selected lower-tier device to every selected upper one",
        )
        self.connect_oob = act(
            "Connect &Out-of-Band",
            lambda: edits().connect_selected_out_of_band(),
            None,
            "Join the two selected devices by their management ports "
            "(or hold Ctrl/Cmd when releasing a connect drag)",
        )
        self.rail = act(
            "Wire &Rail-Optimized",
            lambda: edits().wire_rail_optimized(),
            "Ctrl+Shift+R",
            "Wire the selected nodes to the selected rail leaves: add the rails "
            "they miss, or offer to rewire them",
        )
        self.group_su = act(
            "Group as Scalable &Unit", lambda: edits().group_selection("su")
        )
        self.group_pod = act("Group as &Pod", lambda: edits().group_selection("pod"))
        self.auto_layout = act(
            "Auto-&Layout by Tier", lambda: edits().auto_layout(), "Ctrl+L"
        )
        self.settings = act("Design &Settings…", self._design_settings)
        self.compare = act(
            "&Compare with…",
            h.compare_with,
            "Ctrl+Shift+K",
            "Compare this design with design files, or with variants of its fabric "
            "(2:1 leaf uplinks, half the spines, ...): days, $ per run, TCO",
        )

        self.menus = self._build_menus()
        self._build_toolbar()

    def _build_menus(self) -> WindowMenus:
        bar = self.window.menuBar()
        file = bar.addMenu("&File")
        file.addActions([self.new, self.new_template, self.open])
        file.addMenu(self.recent_menu)
        file.addSeparator()
        file.addActions([self.save, self.save_as, self.export])
        file.addAction(self.verify_asbuilt)
        file.addSeparator()
        file.addActions([self.close, self.quit])
        edit = bar.addMenu("&Edit")
        edit.addActions([self.undo, self.redo])
        edit.addSeparator()
        edit.addActions([self.cut, self.copy, self.paste, self.duplicate, self.delete])
        edit.addSeparator()
        edit.addAction(self.select_all)
        view = bar.addMenu("&View")
        view.addActions([self.zoom_in, self.zoom_out, self.fit])
        view.addSeparator()
        view.addActions([self.show_cut, self.grid_snap])
        view.addSeparator()
        h = self.host
        for dock in (
            h.palette_dock,
            h.properties_dock,
            h.history_dock,
            h.validator_dock,
            h.workload_dock,
            h.charts_dock,
        ):
            view.addAction(dock.toggleViewAction())
        tools = bar.addMenu("&Tools")
        tools.addActions(list(self.tools.values()))
        design = bar.addMenu("&Design")
        design.addActions([self.connect_oob, self.all_to_all, self.rail])
        design.addSeparator()
        design.addActions([self.group_su, self.group_pod, self.auto_layout])
        design.addSeparator()
        design.addAction(self.compare)
        design.addSeparator()
        design.addAction(self.settings)
        return WindowMenus(file, self.recent_menu, edit, view, tools, design)

    def _build_toolbar(self) -> None:
        bar = QToolBar("Main toolbar", self.window)
        bar.setObjectName("mainToolbar")
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        bar.addActions([self.new, self.open, self.save])
        bar.addSeparator()
        bar.addActions([self.undo, self.redo])
        bar.addSeparator()
        bar.addActions(list(self.tools.values()))
        bar.addSeparator()
        bar.addActions([self.zoom_in, self.zoom_out, self.fit])
        bar.addSeparator()
        bar.addActions([self.new_template, self.show_cut])
        self.window.addToolBar(bar)
        self.toolbar = bar

    # --- handlers -------------------------------------------------------------

    def update_undo_state(self) -> None:
        """Enable Undo/Redo; the step they would undo or redo is in the tooltip
        and the status tip (the text stays short so the toolbar never moves)."""
        history = self.host.document.history
        self.undo.setEnabled(history.can_undo)
        self.redo.setEnabled(history.can_redo)
        for action, verb, can, label in (
            (self.undo, "Undo", history.can_undo, history.undo_label),
            (self.redo, "Redo", history.can_redo, history.redo_label),
        ):
            what = f"{verb} {label}" if can else f"Nothing to {verb.lower()}"
            keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            action.setToolTip(f"{what} ({keys})" if keys else what)
            action.setStatusTip(what)

    def _undo(self) -> None:
        """Undo the last step and say which it was in the status bar."""
        label = self.host.document.history.undo_label
        self.host.document.undo()
        self._say(f"Undid {label}" if label else "Nothing to undo")

    def _redo(self) -> None:
        """Redo the last undone step and say which it was."""
        label = self.host.document.history.redo_label
        self.host.document.redo()
        self._say(f"Redid {label}" if label else "Nothing to redo")

    def _say(self, text: str) -> None:
        self.host.show_status(text)

    def _cut(self) -> None:
        self.host.canvas.edits.copy_selection()
        self.host.canvas.edits.delete_selection()

    def _select_all(self) -> None:
        self.host.canvas.select_ids(
            [d.id for d in self.host.document.design.devices], center=False
        )

    def _connect_all_to_all(self) -> None:
        cables, ok = QInputDialog.getInt(
            self.window,
            "Connect all to all",
            "Cables between each lower and each upper device:",
            1,
            1,
            64,
        )
        if ok:
            self.host.canvas.edits.connect_all_to_all(cables)

    def _design_settings(self) -> None:
        self.host.canvas.select_ids([], center=False)
        self.host.properties_panel.show_selection([])
        self.host.properties_dock.show()
        self.host.properties_dock.raise_()
        self.host.properties_panel.name_edit.setFocus()

    def _fill_recent(self) -> None:
        menu = self.recent_menu
        menu.clear()
        files = self.host.files.recent_files()
        for i, f in enumerate(files, start=1):
            a = menu.addAction(f"&{i % 10} {Path(f).name}")
            a.setToolTip(f)
            a.triggered.connect(lambda _=False, f=f: self.host.files.open_recent(f))
        if not files:
            menu.addAction("(none)").setEnabled(False)
        menu.addSeparator()
        menu.addAction("Clear List").triggered.connect(
            self.host.files.clear_recent_files
        )


def _open_verify(window: QMainWindow) -> None:
    """File > Verify As-Built... (designer.qt.verify_dialog)."""
    from designer.qt.verify_dialog import open_verify_dialog

    open_verify_dialog(window)
