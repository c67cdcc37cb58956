"""Window layout at laptop and desktop sizes: nothing cut, the canvas keeps room."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QRect, QSettings, Qt
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


@pytest.mark.slow
@pytest.mark.parametrize(("width", "height"), [(1280, 800), (1920, 1080)])
def test_canvas_keeps_half_the_width(
    sized_window: Any, width: int, height: int
) -> None:
    window = sized_window(width, height)
    assert window.canvas.width() >= 0.5 * width
    # The docks were narrowed to fit, not left at their old fixed widths.
    assert window.palette_dock.width() <= 0.25 * width
    assert window.validator_dock.width() <= 0.3 * width


@pytest.mark.slow
def test_properties_panel_fits_a_narrow_column(sized_window: Any) -> None:
    window = sized_window(1280, 800)
    panel = window.properties_panel
    assert panel.minimumSizeHint().width() <= 280
    assert panel.width() >= panel.minimumSizeHint().width()


@pytest.mark.slow
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


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (1920, 1080)])
def test_the_validator_fits_its_dock_while_refining_or_failed(
    qtbot: Any, sized_window: Any, width: int, height: int
) -> None:
    """The state line above the metrics (long while the bounds are refined,
    or when the analysis failed) wraps: the metrics keep the dock's width,
    with no side scroll."""
    window = sized_window(width, height)
    settle(qtbot, window)
    add_dgx(window, 4)
    settle(qtbot, window)
    panel = window.validator_panel
    for show in (
        lambda: panel.set_refining(True),
        lambda: panel.set_failed("KeyError: no catalog entry 'a-very-long-model-id'"),
    ):
        show()
        QApplication.processEvents()
        area = panel.metrics_area
        assert area.horizontalScrollBar().maximum() == 0
        assert area.widget().width() <= area.viewport().width()
        assert panel.state.width() <= area.viewport().width()


@pytest.mark.slow
def test_empty_design_shows_no_bisection_ratio(qtbot: Any, sized_window: Any) -> None:
    window = sized_window(1400, 900)
    report = settle(qtbot, window)
    assert report.compute_nodes == 0
    assert window.bisection_label.text() == "Bisection: –"
    assert window.validator_panel.values["bisection"].text() == "– (no compute nodes)"
    add_dgx(window, 2)
    settle(qtbot, window)
    assert window.bisection_label.text().startswith("Bisection: 0 Gb/s (0.00")


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.parametrize(
    ("screen", "size"),
    [((1280, 800), None), ((1920, 1080), (1600, 1000)), ((1366, 768), None)],
)
def test_first_window_fits_the_screen_it_opens_on(
    qtbot: Any, monkeypatch: Any, screen: tuple[int, int], size: Any
) -> None:
    """Issue 16 item 7: the first window is sized to the screen's free area
    (a 1280x800 laptop: the validator's values and the status bar on screen)."""
    import designer.qt.main_window as main_window_module

    free = QRect(0, 0, screen[0], screen[1] - 30)  # a 30 px panel at the bottom
    monkeypatch.setattr(main_window_module, "_available_geometry", lambda _w: free)
    window = MainWindow(persist=False, autosave=False)
    window.show()
    qtbot.waitExposed(window)
    QApplication.processEvents()
    try:
        frame = window.geometry().adjusted(
            -main_window_module.FRAME_SIDE,
            -main_window_module.FRAME_TITLE,
            main_window_module.FRAME_SIDE,
            main_window_module.FRAME_SIDE,
        )
        assert free.contains(frame), (frame, free)
        if size is not None:
            assert (window.width(), window.height()) == size
        else:  # a small screen is used whole, not left half empty
            assert window.width() >= free.width() - 16
            assert window.height() >= free.height() - 48
        on_screen = window.rect()
        bar = window.statusBar()
        for widget in (bar, window.cost_label, window.bisection_label):
            assert widget.isVisible()
            top_left = widget.mapTo(window, widget.rect().topLeft())
            bottom_right = widget.mapTo(window, widget.rect().bottomRight())
            assert on_screen.contains(top_left) and on_screen.contains(bottom_right)
        values = window.validator_panel.values
        for key in ("gpus", "bisection", "cost"):
            label = values[key]
            corner = label.mapTo(window, label.rect().topRight())
            assert on_screen.contains(corner), key
    finally:
        window.document.mark_clean()
        window.close()
        window.deleteLater()


def test_first_window_geometry_keeps_the_frame_on_screen() -> None:
    from designer.qt.main_window import first_window_geometry

    small = first_window_geometry(QRect(0, 0, 1280, 770))
    assert small.top() >= 32 and small.bottom() <= 770 - 4
    assert small.width() == 1280 - 8
    big = first_window_geometry(QRect(1920, 0, 2560, 1410))  # a second screen
    assert big.size().toTuple() == (1600, 1000)
    assert QRect(1920, 0, 2560, 1410).contains(big)
