"""The main window: palette, canvas, properties, validator, charts; undo.

Opening, saving and closing files is the window's ``files``
(:class:`designer.qt.window_files.WindowFiles`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QByteArray,
    QPointF,
    QRect,
    QSettings,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QGuiApplication,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QMainWindow,
    QWidget,
)

from designer.analysis.report import Report
from designer.catalog.loader import Catalog, default_catalog
from designer.core import formatting as fmt
from designer.core.document import Document, Stage
from designer.core.events import Event
from designer.io.filenames import export_folder
from designer.qt.analysis_runner import AnalysisRunner
from designer.qt.autosave import Autosaver
from designer.qt.canvas import CanvasView
from designer.qt.charts import ChartsPanel
from designer.qt.history_panel import HistoryPanel
from designer.qt.palette import PalettePanel, catalog_mime
from designer.qt.physical import add_physical_docks
from designer.qt.properties import PropertiesPanel
from designer.qt.resources import icon
from designer.qt.status import one_line, show_message
from designer.qt.validator import ValidatorPanel
from designer.qt.window_actions import WindowActions
from designer.qt.window_files import WindowFiles
from designer.qt.workload import EstimateRunner, WorkloadPanel
from designer.view.canvas.sizes import PLACE_STEP_X

if TYPE_CHECKING:
    from designer.core.model import Design
    from designer.io.recovery import RecoveryEntry
    from designer.qt.compare import CompareDialog

APP_NAME = "GPU Cluster Designer"
#: Version of the dock arrangement. A saved window state from another version
#: is not restored (its docks may be too wide for the canvas, or missing); bump
#: it when the default arrangement changes.
LAYOUT_VERSION = 2
#: Share of the window width the canvas keeps at least when the window opens.
CANVAS_SHARE = 0.5
#: The first window's size on a screen with room for it; a smaller screen gets
#: its available area less the window manager's frame, so nothing opens off-screen.
PREFERRED_SIZE = QSize(1600, 1000)
#: The window manager's frame: sides and bottom, and the title bar on top.
FRAME_SIDE = 4
FRAME_TITLE = 32
#: What the status bar says while an analysis runs, and when one failed.
ANALYSING = "Analysing…"
ANALYSIS_FAILED = "Analysis failed"
#: An analysis says it runs once it has run this long: most edits are analysed
#: sooner, and "Analysing…" flashing in the status bar and the validator on
#: every keystroke would say nothing but make both lay out and repaint.
BUSY_DELAY_MS = 150


def first_window_geometry(available: QRect) -> QRect:
    """Where the first window opens on a screen whose free area is ``available``:
    1600x1000 centred when that fits, else the whole free area less the frame."""
    room = QSize(
        available.width() - 2 * FRAME_SIDE,
        available.height() - FRAME_TITLE - FRAME_SIDE,
    )
    size = PREFERRED_SIZE.boundedTo(room.expandedTo(QSize(640, 480)))
    left = available.left() + max(FRAME_SIDE, (available.width() - size.width()) // 2)
    top = available.top() + max(FRAME_TITLE, (available.height() - size.height()) // 2)
    return QRect(left, top, size.width(), size.height())


def _documents() -> Path:
    """The user's documents folder (home when the platform names none)."""
    from PySide6.QtCore import QStandardPaths

    where = QStandardPaths.writableLocation(
        QStandardPaths.StandardLocation.DocumentsLocation
    )
    return Path(where) if where and Path(where).is_dir() else Path.home()


def _available_geometry(widget: QWidget) -> QRect:
    """The free area (without panels and docks) of the screen ``widget`` opens on."""
    screen = widget.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else QRect(0, 0, 1600, 1000)


class MainWindow(QMainWindow):
    """The editor window around one :class:`Document`.

    Its ``files`` open, save and close the design; ``open_path``, ``save_to``,
    ``new_design``, ``adopt_generated`` and ``restore_recovered`` are the
    entry points the app, crash recovery and scripts call.

    ``report_shown(report)`` fires after a fresh analysis is on screen.
    """

    report_shown = Signal(object)

    def __init__(
        self,
        catalog: Catalog | None = None,
        *,
        persist: bool = True,
        autosave: bool = True,
    ) -> None:
        super().__init__()
        self.persist = persist  # False: neither restore nor save layout (screenshots)
        self.catalog = catalog if catalog is not None else default_catalog()
        self.document = Document()
        self.path: Path | None = None
        self.latest_report: Report | None = None
        self.compare_dialog: CompareDialog | None = None
        self.headless = False  # errors go to stderr instead of dialogs
        self.files = WindowFiles(self)
        self.setWindowIcon(icon("app"))
        self.setAcceptDrops(True)
        self.setDockNestingEnabled(True)

        # Subscribed before the canvas: the worker starts while the scene updates.
        self.runner = AnalysisRunner(self.document, self.catalog, self)
        self.canvas = CanvasView(self.document, self.catalog, self)
        self.setCentralWidget(self.canvas)
        self.palette_panel = PalettePanel(self.catalog)
        self.properties_panel = PropertiesPanel(self.document, self.catalog)
        self.validator_panel = ValidatorPanel()
        self.charts_panel = ChartsPanel()
        self.history_panel = HistoryPanel(self.document)
        self.estimate_runner = EstimateRunner(
            self.document, self.catalog, self, analysis=self.runner
        )
        self.workload_panel = WorkloadPanel(self.document, self.estimate_runner)
        self.palette_dock = self._dock("Catalog", "paletteDock", self.palette_panel)
        self.properties_dock = self._dock(
            "Properties", "propertiesDock", self.properties_panel
        )
        self.validator_dock = self._dock(
            "Validator", "validatorDock", self.validator_panel
        )
        self.charts_dock = self._dock("Charts", "chartsDock", self.charts_panel)
        self.history_dock = self._dock("History", "historyDock", self.history_panel)
        self.workload_dock = self._dock("Workload", "workloadDock", self.workload_panel)
        left = Qt.DockWidgetArea.LeftDockWidgetArea
        right = Qt.DockWidgetArea.RightDockWidgetArea
        # Side columns run full height; the charts sit under the canvas only.
        self.setCorner(Qt.Corner.BottomLeftCorner, left)
        self.setCorner(Qt.Corner.BottomRightCorner, right)
        self.addDockWidget(left, self.palette_dock)
        self.addDockWidget(left, self.properties_dock)
        self.splitDockWidget(
            self.palette_dock, self.properties_dock, Qt.Orientation.Vertical
        )
        self.addDockWidget(right, self.validator_dock)
        self.addDockWidget(right, self.workload_dock)
        self.addDockWidget(left, self.history_dock)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.charts_dock)
        # Tabbed once every dock is added: by a saved layout, else by default.
        self.gpus_label = QLabel("GPUs: –")
        self.bisection_label = QLabel("Bisection: –")
        self.cost_label = QLabel("Cost: –")
        self.busy_label = QLabel("")
        # as wide as its longest text: saying "Analysing…" for a few
        # milliseconds then nothing must not lay the status bar out anew twice
        # (and repaint all of it) on every edit
        self.busy_label.setMinimumWidth(
            max(
                self.busy_label.fontMetrics().horizontalAdvance(text)
                for text in (ANALYSING, ANALYSIS_FAILED)
            )
        )
        self.selection_label = QLabel("")
        self.zoom_label = QLabel("")
        self.last_message = ""
        """The last status-bar message, whole (the bar may show it elided)."""
        self._permanent = (
            self.selection_label,
            self.zoom_label,
            self.busy_label,
            self.gpus_label,
            self.bisection_label,
            self.cost_label,
        )
        for w in self._permanent:
            self.statusBar().addPermanentWidget(w)

        self._busy = QTimer(self)
        self._busy.setSingleShot(True)
        self._busy.setInterval(BUSY_DELAY_MS)
        self._busy.timeout.connect(self._say_busy)
        self.runner.started.connect(self._on_analysis_started)
        self.runner.report_ready.connect(self._on_report)
        self.runner.failed.connect(self._on_analysis_failed)
        self.runner.refining_changed.connect(self.validator_panel.set_refining)
        self.actions_ = WindowActions(self, self)
        self.physical_docks = add_physical_docks(  # racks, floor plan
            self,
            self.document,
            self.catalog,
            self.canvas,
            analysis=self.runner,
            view_menu=self.actions_.menus.view,
        )
        self.document.subscribe(self._on_changes, Stage.WINDOW)
        self.autosave = Autosaver(self.document, self, enabled=autosave)
        self.autosave.failed.connect(self._show_message)

        self.canvas.selection_changed.connect(self._on_selection_changed)
        self.canvas.status_message.connect(self._show_message)
        self.canvas.properties_requested.connect(self.properties_dock.show)
        self.canvas.properties_requested.connect(self.properties_dock.raise_)
        self.canvas.validator_requested.connect(self.validator_dock.show)
        self.canvas.validator_requested.connect(self.validator_dock.raise_)
        self.canvas.validator_requested.connect(self.validator_panel.show_items)
        self.canvas.export_selection_requested.connect(lambda: self.export(True))
        self.properties_panel.edit_refused.connect(self._show_message)
        self.canvas.zoom_changed.connect(
            lambda scale: self.zoom_label.setText(f"Zoom {scale * 100:.0f}%")
        )
        self.palette_panel.item_activated.connect(self.add_catalog_item)
        self.validator_panel.finding_activated.connect(self.select_items)
        self.validator_panel.cut_toggled.connect(self.set_show_cut)
        self.workload_panel.items_activated.connect(self.select_items)
        self.workload_panel.message.connect(self._show_message)

        self.setGeometry(first_window_geometry(_available_geometry(self)))
        self._size_docks_on_show = True  # False once a saved layout is restored
        self._checked_canvas_share = False
        if not (persist and self._restore_settings()):
            self._tab_default_docks()
        self.update_title()
        self.runner.run_now()
        self.estimate_runner.run_now()

    def _dock(self, title: str, name: str, widget: QWidget) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetClosable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
        )
        return dock

    def _tab_default_docks(self) -> None:
        """The default tabs: Workload, Racks and Floor plan behind the
        Validator, History behind Properties."""
        # While the window is hidden, Qt (QMainWindowLayout::getTabBar) lays the
        # window out when a second tab group asks for its tab bar, halfway
        # through building that group: it got two tab bars, and the one the
        # layout dropped stayed on screen where that early pass put it (over
        # Properties' Speed and Fabric rows at 1280x800). A disabled layout is
        # not laid out until every group is built.
        layout = self.layout()
        assert layout is not None  # a QMainWindow always has its own layout
        layout.setEnabled(False)
        try:
            physical = self.physical_docks
            for dock in (
                self.workload_dock,
                physical.elevation_dock,
                physical.floor_dock,
            ):
                self.tabifyDockWidget(self.validator_dock, dock)
            self.tabifyDockWidget(self.properties_dock, self.history_dock)
        finally:
            layout.setEnabled(True)
        self.validator_dock.raise_()
        self.properties_dock.raise_()

    def _default_dock_sizes(self) -> None:
        """Side columns in proportion to the window, so the canvas keeps ~half."""
        horizontal, vertical = Qt.Orientation.Horizontal, Qt.Orientation.Vertical
        width, height = self.width(), self.height()
        palette = max(310, min(340, round(width * 0.2)))
        # the canvas keeps at least half the window (1280 wide included)
        validator = max(300, min(440, round(width * 0.27), width // 2 - palette - 16))
        self.resizeDocks([self.palette_dock], [palette], horizontal)
        self.resizeDocks([self.validator_dock], [validator], horizontal)
        upper = round(height * 0.5)
        self.resizeDocks(
            [self.palette_dock, self.properties_dock],
            [upper, height - upper],
            vertical,
        )
        self.resizeDocks(
            [self.charts_dock], [max(170, min(220, height // 5))], vertical
        )

    def showEvent(self, event: QShowEvent) -> None:
        """Size the docks for the real window size the first time it is shown."""
        super().showEvent(event)
        if self._size_docks_on_show:
            self._size_docks_on_show = False
            self._default_dock_sizes()
        elif not self._checked_canvas_share:
            # a restored layout made on a wider screen: checked once laid out
            QTimer.singleShot(0, self, self._keep_canvas_share)
        self._checked_canvas_share = True

    def _keep_canvas_share(self) -> None:
        """Narrow the side docks when a restored layout leaves the canvas too
        little of the window (a layout saved on a wider screen)."""
        if self.canvas.width() < CANVAS_SHARE * self.width():
            self._default_dock_sizes()

    # --- settings ------------------------------------------------------------

    def _restore_settings(self) -> bool:
        """Window geometry, dock layout and view options as last saved; False
        when the dock layout was not restored (none saved, or another version's).

        Called before any dock is tabbed: restored over tab groups, Qt 6 left
        the previous groups' tab bars on screen, over the canvas and the panels.
        """
        settings = QSettings()
        geometry = settings.value("window/geometry")
        state = settings.value("window/state")
        version = settings.value("window/layout_version")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        # A layout saved by another version (or none) gets the default docks.
        same = str(version) == str(LAYOUT_VERSION)
        restored = same and isinstance(state, QByteArray) and self.restoreState(state)
        if restored:
            self._size_docks_on_show = False
        snap = settings.value("view/grid_snap", True)
        self.actions_.grid_snap.setChecked(snap in (True, "true"))
        return restored

    def save_settings(self) -> None:
        """Persist window geometry, dock layout and view options."""
        settings = QSettings()
        settings.setValue("window/geometry", self.saveGeometry())
        settings.setValue("window/state", self.saveState())
        settings.setValue("window/layout_version", LAYOUT_VERSION)
        settings.setValue("view/grid_snap", self.actions_.grid_snap.isChecked())

    # --- title and undo state ------------------------------------------------

    def dialog_parent(self) -> QWidget:
        """The widget the file dialogs are shown over: this window."""
        return self

    def display_name(self) -> str:
        """File name, or the design's name when it was never saved."""
        return self.path.name if self.path else self.document.design.settings.name

    def update_title(self) -> None:
        """Title (file name, unsaved mark) and the undo actions' state."""
        self.setWindowTitle(f"{self.display_name()}[*] — {APP_NAME}")
        self.setWindowModified(not self.document.history.is_clean)
        self.actions_.update_undo_state()

    def _on_changes(self, events: list[Event]) -> None:
        self.update_title()

    def export(self, selection_only: bool = False) -> None:
        """File > Export (the export dialog lives in designer.qt.export)."""
        try:
            from designer.qt.canvas.offscreen import OffscreenRenderer
            from designer.qt.export import make_renderer
            from designer.qt.export.dialog import ExportDialog
        except ImportError:
            self._show_message("Export is not available in this build")
            return
        design = self.document.design
        selection = self.canvas.selected_ids()
        cut = self.canvas.design_scene.selection.cut

        def renderer() -> OffscreenRenderer:
            return make_renderer(design, self.catalog, selection=selection, cut=cut)

        dialog = ExportDialog(
            self,
            design,
            renderer,
            selection,
            report=self.latest_report,
            catalog=self.catalog,
            # next to the design, else where the user last worked; never a
            # sample's folder inside the installation
            directory=str(
                export_folder(self.path, self.files.last_folder(), _documents())
            ),
            estimate=self.estimate_runner.current(),
            selection_only=selection_only,
        )
        dialog.exec()

    def compare_with(self) -> None:
        """Design > Compare with… (a dialog beside the window, not modal)."""
        from designer.qt.compare import CompareDialog

        if self.compare_dialog is not None and self.compare_dialog.isVisible():
            self.compare_dialog.raise_()
            self.compare_dialog.activateWindow()
            return
        if self.compare_dialog is not None:
            self.compare_dialog.deleteLater()
        dialog = CompareDialog(
            self.document,
            self.catalog,
            name=self.display_name,
            folder=str(self.path.parent) if self.path else self.files.last_folder(),
            parent=self,
        )
        dialog.resize(max(900, self.width() * 4 // 5), max(620, self.height() * 4 // 5))
        dialog.show()
        self.compare_dialog = dialog

    # --- files (the entry points others call; the work is ``files``) ----------

    def open_path(self, path: str | Path) -> bool:
        """Load ``path`` without prompting; on failure explain and keep the design."""
        return self.files.open_path(path)

    def save_to(self, path: str | Path) -> bool:
        """Write the design atomically to ``path``; explain failures."""
        return self.files.save_to(path)

    def new_design(self) -> None:
        """File > New (asks about unsaved changes)."""
        self.files.new_design()

    def adopt_generated(self, design: Design) -> None:
        """Show a generated design as a new, unsaved document."""
        self.files.adopt_generated(design)

    def restore_recovered(self, entry: RecoveryEntry) -> None:
        """Show a design recovered after a crash as an unsaved document."""
        self.files.restore_recovered(entry)

    # --- drag and drop of files ----------------------------------------------

    @staticmethod
    def _json_path(event: QDragEnterEvent | QDropEvent) -> Path | None:
        mime = event.mimeData()
        if not mime.hasUrls():
            return None
        for url in mime.urls():
            if url.isLocalFile() and url.toLocalFile().lower().endswith(".json"):
                return Path(url.toLocalFile())
        return None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        """Accept a .json file dragged onto the window."""
        if self._json_path(event) is not None:
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        """Open a dropped .json file (asking about unsaved changes first)."""
        path = self._json_path(event)
        if path is None:
            super().dropEvent(event)
            return
        event.acceptProposedAction()
        if self.files.maybe_save():
            self.files.open_path(path)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Ask about unsaved changes, then persist the layout and stop the worker."""
        if not self.files.maybe_save():
            event.ignore()
            return
        if self.persist:
            self.save_settings()
        self.autosave.shutdown()  # saved or discarded: no copy to keep
        self.runner.shutdown()
        self.estimate_runner.shutdown()
        if self.compare_dialog is not None:
            self.compare_dialog.shutdown()
        self.physical_docks.shutdown()
        event.accept()

    # --- editing helpers -----------------------------------------------------

    def add_catalog_item(self, catalog_id: str, count: int) -> None:
        """Place ``count`` devices of a catalog entry at the centre of the view."""
        centre = QPointF(self.canvas.mapToScene(self.canvas.viewport().rect().center()))
        # the row of ``count`` is centred on the view, not started there
        centre.setX(centre.x() - (max(count, 1) - 1) * PLACE_STEP_X / 2)
        self.canvas.edits.drop_catalog_item(catalog_mime(catalog_id, count), centre)

    def select_items(self, ids: list[str]) -> None:
        """Select and centre devices/links (e.g. those of a finding)."""
        self.canvas.select_ids(list(ids), center=True)

    def set_show_cut(self, on: bool) -> None:
        """Show or hide the bisection cut on the canvas."""
        for widget in (self.validator_panel.cut_check, self.actions_.show_cut):
            if widget.isChecked() != on:
                widget.blockSignals(True)
                widget.setChecked(on)
                widget.blockSignals(False)
        self._apply_cut()

    def _apply_cut(self) -> None:
        report = self.latest_report
        if self.actions_.show_cut.isChecked() and report is not None:
            b = report.bisection
            self.canvas.set_cut(set(b.side_a), set(b.cut_links))
        else:
            self.canvas.set_cut(None, None)

    def _on_selection_changed(self, ids: list[str]) -> None:
        self.properties_panel.show_selection(list(ids))
        self.selection_label.setText(f"{len(ids):,} selected" if ids else "")

    def show_status(self, text: str) -> None:
        """Say ``text`` in the status bar (undo, redo and other actions)."""
        self._show_message(text)

    def _show_message(self, text: str) -> None:
        """One line in the status bar, elided to fit, the whole in its tooltip."""
        self.last_message = one_line(text)
        show_message(self.statusBar(), text, self._permanent)

    # --- analysis results ----------------------------------------------------

    def _on_analysis_started(self) -> None:
        if not self._busy.isActive():  # a burst of edits: from the first one
            self._busy.start()

    def _say_busy(self) -> None:
        self.busy_label.setText(ANALYSING)
        self.validator_panel.set_busy()

    def _on_analysis_failed(self, message: str) -> None:
        self._busy.stop()
        self.busy_label.setText(ANALYSIS_FAILED)
        self.validator_panel.set_failed(message)

    def _on_report(self, report: Report) -> None:
        self.latest_report = report
        self._busy.stop()
        self.busy_label.setText("")
        self.validator_panel.show_report(report, self.runner.last_seconds)
        self.charts_panel.show_report(report)
        self.gpus_label.setText(f"GPUs: {report.gpus:,}")
        b = report.bisection
        self.bisection_label.setText(
            f"Bisection: {fmt.gbps(b.gbps)} ({b.ratio:.2f}"
            + (")" if b.exact else ", bound)")
            if report.compute_nodes and b.ratio is not None
            else "Bisection: –"
        )
        self.cost_label.setText(f"Cost: {fmt.usd(report.cost_usd.total)}")
        if self.actions_.show_cut.isChecked():
            self._apply_cut()
        self.report_shown.emit(report)
