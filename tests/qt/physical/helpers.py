"""A small placed design in a window, and mouse gestures on the rack views."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtWidgets import QApplication

from designer.core.model import Design
from designer.qt.physical.elevation import SELECTION
from tests.physical.builders import placed_design


def small_design() -> Design:
    """Two rows: a01 (2 DGX H100), a02 (a leaf), a03 (empty), n01 (liquid)."""
    design = placed_design(
        [
            ("dgx-1", "dgx-h100", "a01", 1),
            ("dgx-2", "dgx-h100", "a01", 9),
            ("leaf", "qm9700", "a02", 40),
            ("nvl", "gb200-nvl72", "n01", 1),
        ],
        [
            ("l1", "dgx-1", "compute", "leaf", "ports", 400, 2),
            ("l2", "dgx-2", "compute", "leaf", "ports", 400, 2),
        ],
        racks=[
            ("a01", "rack-48u", "r1", 0),
            ("a02", "network-48u", "r1", 1),
            ("a03", "rack-48u", "r2", 0),
            ("n01", "nvl72", "r2", 2),
        ],
        rows=[("r1", 2.0, 3.0), ("r2", 2.0, 6.0)],
    )
    for i, d in enumerate(design.devices):
        design.devices[i] = d.model_copy(update={"x": 200.0 * i, "y": 100.0})
    return design


def open_window(main_window: Any, qtbot: Any, design: Design | None = None) -> Any:
    """A shown window with the design, the Racks dock raised."""
    window = main_window()
    window.adopt_generated(design if design is not None else small_design())
    docks = window.physical_docks
    dock = docks.elevation_dock
    # under the canvas, untabbed, in a big window: room for racks side by side
    window.resize(1800, 1150)
    window.charts_dock.hide()
    window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
    window.resizeDocks([dock], [800], Qt.Orientation.Vertical)
    QApplication.processEvents()
    qtbot.waitUntil(lambda: docks.elevation.isVisible())
    return window


def show_racks(window: Any, *racks: str) -> None:
    """Show these racks in the elevation (the selection's racks)."""
    panel = window.physical_docks.elevation
    panel.choice.setCurrentIndex(panel.choice.findData(SELECTION))
    panel.show_racks(list(racks))
    QApplication.processEvents()


def unit_point(window: Any, rack: str, u: int) -> QPoint:
    """Viewport point at the middle of unit ``u`` of a rack in the elevation."""
    panel = window.physical_docks.elevation
    lay = panel.layout_
    x, y, w, h = lay.unit_rect(lay.index[rack], u)
    view = panel.view
    at = view.mapFromScene(QPointF(x + w / 2, y + h / 2))
    assert view.viewport().rect().contains(at), "unit not on screen"
    return at


def drag_units(
    qtbot: Any, window: Any, start: tuple[str, int], end: tuple[str, int]
) -> None:
    """Press on unit ``start``, move in steps, release over unit ``end``."""
    w = window.physical_docks.elevation.view.viewport()
    a, b = unit_point(window, *start), unit_point(window, *end)
    qtbot.mousePress(w, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    for k in range(1, 6):
        qtbot.mouseMove(w, a + (b - a) * (k / 5))
    qtbot.mouseRelease(w, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, b)
    QApplication.processEvents()
