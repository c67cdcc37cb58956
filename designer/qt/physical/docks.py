"""The rack elevation and floor plan docks, and what keeps them in step.

:class:`PhysicalDocks` follows the document (``Stage.PANELS``) through one
:class:`~designer.physical.live.LiveRacks`: every step's events touch only the
racks they name, the docks are brought up to date once per event-loop turn,
and a dock that is not on screen only remembers what it owes. The canvas
selection is mirrored both ways: selected devices are outlined in the
elevation and their racks in the floor plan (with their longest cables); a
click in the elevation or on a rack selects on the canvas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu, QWidget

from designer.core.commands import Command
from designer.core.document import Stage
from designer.core.events import Event, Reads
from designer.physical.live import LiveRacks, RackChanges
from designer.qt.physical.cables import CableRunner
from designer.qt.physical.elevation import ElevationPanel
from designer.qt.physical.floor import FloorPlanPanel

if TYPE_CHECKING:
    from designer.catalog.loader import Catalog
    from designer.core.document import Document
    from designer.qt.analysis_runner import AnalysisRunner
    from designer.qt.canvas import CanvasView

MESSAGE_MS = 8000


class PhysicalDocks(QObject):
    """The "Racks" and "Floor plan" docks of a main window."""

    def __init__(
        self,
        window: QMainWindow,
        document: Document,
        catalog: Catalog,
        canvas: CanvasView,
        analysis: AnalysisRunner | None = None,
    ) -> None:
        super().__init__(window)
        self.window = window
        self.canvas = canvas
        self.document = document
        self.live = LiveRacks(catalog)
        self.live.reset(self.document.design)
        self.rebuild_always = False
        """Rebuild both docks from scratch on every edit (the benchmark's naive
        baseline: no incremental state)."""
        self.selected: set[str] = set()
        self.elevation = ElevationPanel(self.live, self._execute, self._tier_of)
        self.floor = FloorPlanPanel(self.live)
        self.cables = CableRunner(self.document, catalog, self, analysis=analysis)
        self.elevation_dock = _dock(
            window, "Racks", "rackElevationDock", self.elevation
        )
        self.floor_dock = _dock(window, "Floor plan", "floorPlanDock", self.floor)
        self._owed = {"elevation": RackChanges(), "floor": RackChanges()}
        self._cables_owed = False
        self._own_click = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.flush)
        self.document.subscribe(self._on_changes, Stage.PANELS)
        canvas.selection_changed.connect(self._on_canvas_selection)
        self.elevation.device_clicked.connect(self._on_device_clicked)
        self.elevation.message.connect(self._message)
        self.floor.rack_clicked.connect(self._on_rack_clicked)
        self.cables.ready.connect(self.floor.set_cables)
        self.elevation_dock.visibilityChanged.connect(lambda _: self.flush())
        self.floor_dock.visibilityChanged.connect(lambda _: self.flush())

    @property
    def reads(self) -> Reads:
        """What each kind of event does to the docks: the live racks' table."""
        return self.live.reads

    # -- the model -------------------------------------------------------------------

    def _execute(self, command: object) -> object:
        assert isinstance(command, Command)
        return self.document.execute(command)

    def _tier_of(self, device_id: str) -> str | None:
        d = self.live.device(device_id)
        return d.tier.value if d is not None and d.tier is not None else None

    def _on_changes(self, events: list[Event]) -> None:
        if self.rebuild_always:
            self.live.reset(self.document.design)
            every = frozenset(self.live.rack_ids)
            changes = RackChanges(every, every, layout=True, cables=True, reset=True)
        else:
            changes = self.live.apply(self.document.design, events)
        if not changes:
            return
        if changes.cables:
            self.cables.invalidate()
        for key in self._owed:
            self._owed[key] |= changes
        self._cables_owed |= changes.cables
        self._timer.start()

    def flush(self) -> None:
        """Bring the docks on screen up to date (the others wait until shown)."""
        self._timer.stop()
        owed = self._owed["elevation"]
        if owed and self.elevation.isVisible():
            self._owed["elevation"] = RackChanges()
            self.elevation.apply(owed.racks, owed.moved, owed.reset)
        owed = self._owed["floor"]
        if owed and self.floor.isVisible():
            self._owed["floor"] = RackChanges()
            self.floor.apply(owed.racks, owed.moved, owed.layout, owed.reset)
            self.floor.set_selection(self._racks_of(self.selected))
        if self._cables_owed and self.floor.isVisible():
            self._cables_owed = False
            self.cables.request(sorted(self.selected))

    # -- selection -------------------------------------------------------------------

    def _racks_of(self, devices: set[str]) -> set[str]:
        out = set()
        for d in devices:
            r = self.live.rack_of(d)
            if r is not None:
                out.add(r)
        return out

    def _on_canvas_selection(self, ids: list[str]) -> None:
        racked = {i for i in ids if self.live.rack_of(i) is not None}
        self.selected = racked
        self.elevation.set_selection(racked, follow=not self._own_click)
        self.floor.set_selection(self._racks_of(racked))
        if self.floor.isVisible():
            self.cables.request(sorted(racked))
        else:
            self._cables_owed = True

    def _on_device_clicked(self, device: str, toggle: bool) -> None:
        self._own_click = True
        try:
            canvas = self.canvas
            if toggle:
                canvas.design_scene.select([device], toggle=True)
            else:
                canvas.select_ids([device], center=True)
        finally:
            self._own_click = False

    def _on_rack_clicked(self, rack_id: str) -> None:
        view = self.live.rack(rack_id)
        devices = [s.device for s in view.devices] + list(view.unracked)
        self.elevation.show_row_of(rack_id)
        self._own_click = True
        try:
            self.canvas.select_ids(devices, center=True)
        finally:
            self._own_click = False
        self._message(
            f"{view.label}: {len(devices):,} devices, {view.kw:,.1f} kW"
            if devices
            else f"{view.label}: empty"
        )

    def _message(self, text: str) -> None:
        self.window.statusBar().showMessage(text, MESSAGE_MS)

    def shutdown(self) -> None:
        """Stop following the document and wait for a cable computation."""
        self.document.unsubscribe(self._on_changes)
        self.cables.shutdown()


def _dock(window: QMainWindow, title: str, name: str, widget: QWidget) -> QDockWidget:
    dock = QDockWidget(title, window)
    dock.setObjectName(name)
    dock.setWidget(widget)
    dock.setFeatures(
        QDockWidget.DockWidgetFeature.DockWidgetMovable
        | QDockWidget.DockWidgetFeature.DockWidgetClosable
        | QDockWidget.DockWidgetFeature.DockWidgetFloatable
    )
    return dock


def add_physical_docks(
    window: QMainWindow,
    document: Document,
    catalog: Catalog,
    canvas: CanvasView,
    analysis: AnalysisRunner | None = None,
    *,
    view_menu: QMenu,
) -> PhysicalDocks:
    """Add the "Racks" and "Floor plan" docks to the right of ``window`` (which
    tabs them, with the validator by default), with their toggles in
    ``view_menu`` (the window's View menu); ``analysis``: the validator's
    worker, whose index of each state the cable lengths read."""
    docks = PhysicalDocks(window, document, catalog, canvas, analysis)
    right = Qt.DockWidgetArea.RightDockWidgetArea
    for dock in (docks.elevation_dock, docks.floor_dock):
        window.addDockWidget(right, dock)
    view_menu.addSeparator()
    view_menu.addAction(docks.elevation_dock.toggleViewAction())
    view_menu.addAction(docks.floor_dock.toggleViewAction())
    return docks


__all__ = ["PhysicalDocks", "add_physical_docks"]
