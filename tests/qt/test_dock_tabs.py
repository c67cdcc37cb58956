"""The docks' tab bars: one per tab group, each clear of every panel.

Built while hidden, the window got a second "Properties | History" bar, left
where an early layout pass put it: over the Speed and Fabric rows of Properties
at 1280x800. A layout restored over tab groups left the old groups' bars on
screen too, one over the canvas.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QApplication, QDockWidget, QTabBar

from designer.qt.main_window import MainWindow
from tests.qt.helpers import settle

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "dgx-h100-superpod-4su.json"
GROUPS = [
    ("Properties", "History"),
    ("Validator", "Workload", "Racks", "Floor plan"),
]


@pytest.fixture
def window_at(qtbot: Any) -> Iterator[Callable[[int, int], MainWindow]]:
    """Factory: a window shown at a size (with the saved layout, if any)."""
    windows: list[MainWindow] = []

    def make(width: int, height: int) -> MainWindow:
        window = MainWindow(autosave=False)
        window.resize(width, height)
        window.show()
        qtbot.waitExposed(window)
        QApplication.processEvents()
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.document.mark_clean()
        window.persist = False
        window.close()
        window.deleteLater()


def _in_window(window: MainWindow, widget: Any) -> QRect:
    return QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())


def _check_with_a_link_selected(qtbot: Any, window: MainWindow) -> None:
    """Check the bars as shown, with a link selected, and once analysed (a later
    layout pass dropped the stray bar: the check must not wait for it)."""
    _assert_tab_bars_in_place(window, with_link=False)
    assert window.open_path(SAMPLE)
    link = str(window.document.design.links.arrays.ids[0])
    window.canvas.select_ids([link], center=False)
    QApplication.processEvents()
    assert window.properties_panel.link_editor.isVisible()
    _assert_tab_bars_in_place(window)
    settle(qtbot, window)
    _assert_tab_bars_in_place(window)


def _assert_tab_bars_in_place(window: MainWindow, with_link: bool = True) -> None:
    bars = [
        bar
        for bar in window.findChildren(QTabBar)
        if bar.parent() is window and bar.isVisible()
    ]
    groups = sorted(tuple(bar.tabText(i) for i in range(bar.count())) for bar in bars)
    assert groups == GROUPS  # one bar per group, no second copy
    panels = [
        (dock.windowTitle(), _in_window(window, dock.widget()))
        for dock in window.findChildren(QDockWidget)
        if dock.isVisible() and dock.widget() is not None
    ]
    assert len(panels) >= 4  # catalog, properties, validator, charts
    if with_link:
        editor = window.properties_panel.link_editor
        panels.append(("Properties form", _in_window(window, editor)))
    panels.append(("canvas", _in_window(window, window.canvas)))
    for bar in bars:
        place = _in_window(window, bar)
        assert window.rect().contains(place)
        covered = [title for title, rect in panels if rect.intersects(place)]
        assert covered == [], (bar.tabText(0), place, covered)


@pytest.mark.slow
@pytest.mark.parametrize(("width", "height"), [(1280, 800), (1920, 1080)])
def test_tab_bars_clear_of_the_panels(
    qtbot: Any, window_at: Any, width: int, height: int
) -> None:
    _check_with_a_link_selected(qtbot, window_at(width, height))


@pytest.mark.slow
def test_tab_bars_clear_of_the_panels_with_a_restored_layout(
    qtbot: Any, window_at: Any
) -> None:
    first = window_at(1280, 800)
    first.save_settings()
    window = window_at(1280, 800)
    assert window._size_docks_on_show is False  # the saved layout was restored
    _check_with_a_link_selected(qtbot, window)
