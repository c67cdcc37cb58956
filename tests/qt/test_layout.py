"""Window layout at laptop and desktop sizes: nothing cut, the canvas keeps room."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication

from designer.qt.main_window import MainWindow
from tests.qt.helpers import add_dgx, settle


@pytest.fixture
def sized_window(qtbot: Any) -> Any:
    """Factory: a fresh window (no saved layout) shown at a given size."""
    windows: list[MainWindow] = []

    def make(width: int, height: int) -> MainWindow:
        window = MainWindow()
        window.resize(width, height)
        window.show()
        qtbot.waitExposed(window)
        QApplication.processEvents()
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.document.mark_clean()
        window.close()
        window.deleteLater()


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (1920, 1080)])
def test_canvas_keeps_half_the_width(
    sized_window: Any, width: int, height: int
) -> None:
    window = sized_window(width, height)
    assert window.canvas.width() >= 0.5 * width
    # The docks were narrowed to fit, not left at their old fixed widths.
    assert window.palette_dock.width() <= 0.25 * width
    assert window.validator_dock.width() <= 0.3 * width


def test_properties_panel_fits_a_narrow_column(sized_window: Any) -> None:
    window = sized_window(1280, 800)
    panel = window.properties_panel
    assert panel.minimumSizeHint().width() <= 280
    assert panel.width() >= panel.minimumSizeHint().width()


def test_findings_take_the_room_the_metrics_leave(
    qtbot: Any, sized_window: Any
) -> None:
    window = sized_window(1600, 1000)
    settle(qtbot, window)
    add_dgx(window, 2)
    settle(qtbot, window)
    QApplication.processEvents()
    panel = window.validator_panel
    # Every metric is visible without scrolling at this size...
    assert panel.metrics_area.verticalScrollBar().maximum() == 0
    # ...and no blank band sits between them and the findings list.
    gap = panel.findings_title.y() - (
        panel.metrics_area.y() + panel.metrics_area.height()
    )
    assert gap < 20
    assert panel.findings.height() > 0.3 * panel.height()


def test_empty_design_shows_no_bisection_ratio(qtbot: Any, sized_window: Any) -> None:
    window = sized_window(1400, 900)
    report = settle(qtbot, window)
    assert report.compute_nodes == 0
    assert window.bisection_label.text() == "Bisection: –"
    assert window.validator_panel.values["bisection"].text() == "– (no compute nodes)"
    add_dgx(window, 2)
    settle(qtbot, window)
    assert window.bisection_label.text().startswith("Bisection: 0 Gb/s (0.00")


def test_palette_entries_are_not_cut_at_1280(sized_window: Any) -> None:
    window = sized_window(1280, 800)
    tree = window.palette_panel.tree
    room = tree.viewport().width()
    metrics = tree.fontMetrics()
    for t in range(tree.topLevelItemCount()):
        top = tree.topLevelItem(t)
        for c in range(top.childCount()):
            child = top.child(c)
            left = tree.visualItemRect(child).left() + tree.iconSize().width() + 8
            widest = max(
                metrics.horizontalAdvance(s) for s in child.text(0).split("\n")
            )
            assert left + widest <= room, child.text(0)
    # The power sits beside the name, the GPUs and ports under it.
    item = window.palette_panel.find_item("dgx-h100")
    assert item is not None
    assert item.text(0) == "DGX H100 · 10.2 kW\n8x H100 SXM · 8x400G IB"


def test_chart_titles_fit_at_1280(qtbot: Any, sized_window: Any) -> None:
    window = sized_window(1280, 800)
    add_dgx(window, 4)  # cost in millions: the longer title
    settle(qtbot, window)
    QApplication.processEvents()
    charts = window.charts_panel
    assert charts.cost_unit == "millions"
    for plot in (charts.cost_plot, charts.tier_plot):
        item = plot.getPlotItem()
        # A clipped title is exactly as wide as its label; a whole one is narrower.
        title = item.titleLabel.item.boundingRect().width()
        assert title < item.titleLabel.width() - 4


def _old_wide_layout(qtbot: Any) -> None:
    """Save the layout a 1600 px screen left, with wide side docks, as an older
    version did (no layout version key)."""
    window = MainWindow()
    window.resize(1600, 1000)
    window.show()
    qtbot.waitExposed(window)
    QApplication.processEvents()
    horizontal = Qt.Orientation.Horizontal
    window.resizeDocks([window.palette_dock], [420], horizontal)
    window.resizeDocks([window.validator_dock], [520], horizontal)
    QApplication.processEvents()
    window.save_settings()
    window.close()
    window.deleteLater()


@pytest.mark.parametrize("version", [None, "same"])
def test_a_restored_wide_layout_leaves_the_canvas_half_at_1280(
    qtbot: Any, version: str | None
) -> None:
    from designer.qt.main_window import LAYOUT_VERSION

    _old_wide_layout(qtbot)
    settings = QSettings()
    if version is None:
        settings.remove("window/layout_version")  # saved before the key existed
    else:
        assert settings.value("window/layout_version") == LAYOUT_VERSION
    window = MainWindow()
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.canvas.width() >= 0.5 * 1280, timeout=3000)
    QApplication.processEvents()
    assert window.canvas.width() >= 0.5 * window.width()
    window.document.mark_clean()
    window.close()
    window.deleteLater()
