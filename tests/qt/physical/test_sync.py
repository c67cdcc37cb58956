"""The rack views follow the canvas selection, and select on the canvas."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QApplication

from designer.catalog import default_catalog
from designer.physical.views import PhysicalView
from designer.qt.physical.elevation import SELECTION
from tests.qt.physical.helpers import open_window, show_racks, unit_point


def _floor(window: Any) -> Any:
    docks = window.physical_docks
    docks.floor_dock.show()
    docks.floor_dock.raise_()
    QApplication.processEvents()
    return docks.floor


@pytest.mark.slow
def test_canvas_selection_is_outlined_and_brings_its_racks(
    qtbot: Any, main_window: Any
) -> None:
    window = open_window(main_window, qtbot)
    panel = window.physical_docks.elevation
    panel.choice.setCurrentIndex(panel.choice.findData(SELECTION))
    window.canvas.select_ids(["dgx-2", "nvl"], center=False)
    assert panel.shown == ["a01", "n01"]  # the racks of the selection
    assert panel.selected == {"dgx-2", "nvl"}
    window.canvas.select_ids(["leaf"], center=False)
    assert panel.shown == ["a02"] and panel.selected == {"leaf"}
    # following a row: the row of the first selected device comes in
    panel.choice.setCurrentIndex(panel.choice.findData("r1"))
    assert panel.shown == ["a01", "a02"]
    window.canvas.select_ids(["nvl"], center=False)
    assert panel.choice.currentData() == "r2"
    assert panel.shown == ["a03", "n01"] and panel.selected == {"nvl"}


@pytest.mark.slow
def test_floor_plan_outlines_racks_and_draws_the_longest_cables(
    qtbot: Any, main_window: Any
) -> None:
    window = open_window(main_window, qtbot)
    floor = _floor(window)
    window.canvas.select_ids(["leaf"], center=False)
    pic = floor.picture
    assert [pic.ids[k] for k in range(len(pic.ids)) if pic.selected[k]] == ["a02"]
    qtbot.waitUntil(lambda: len(floor.cables) == 2, timeout=20_000)
    want = PhysicalView(window.document.design, default_catalog()).longest_cables(
        ["leaf"]
    )
    assert [(r.link, r.length_m) for r in floor.cables] == [
        (r.link, r.length_m) for r in want
    ]
    # both links run from a01 to a02 by the same route: one line, one label
    (label,) = floor.cable_labels
    assert label[0] == f"{want[0].length_m:,.1f} m {want[0].medium.value} (2 links)"
    window.canvas.select_ids([], center=False)
    qtbot.waitUntil(lambda: floor.cables == [] and floor.cable_labels == [])
    assert not floor.picture.selected.any()


@pytest.mark.slow
def test_cables_follow_an_edit_of_the_selected_devices(
    qtbot: Any, main_window: Any
) -> None:
    window = open_window(main_window, qtbot)
    floor = _floor(window)
    window.canvas.select_ids(["dgx-1"], center=False)
    qtbot.waitUntil(lambda: len(floor.cables) == 1, timeout=20_000)
    first = floor.cables[0].length_m
    live = window.physical_docks.live
    window.document.execute(live.place_command("dgx-1", "a03", 1))  # another row
    qtbot.waitUntil(
        lambda: len(floor.cables) == 1 and floor.cables[0].length_m != first,
        timeout=20_000,
    )
    want = PhysicalView(window.document.design, default_catalog()).longest_cables(
        ["dgx-1"]
    )
    assert floor.cables[0].length_m == pytest.approx(want[0].length_m)
    assert floor.cables[0].length_m > first


@pytest.mark.slow
def test_a_click_in_the_elevation_selects_on_the_canvas(
    qtbot: Any, main_window: Any
) -> None:
    window = open_window(main_window, qtbot)
    show_racks(window, "a01", "a02")
    panel = window.physical_docks.elevation
    viewport = panel.view.viewport()
    qtbot.mouseClick(
        viewport, Qt.MouseButton.LeftButton, pos=unit_point(window, "a01", 3)
    )
    assert window.canvas.selected_ids() == ["dgx-1"]
    assert panel.selected == {"dgx-1"}
    assert panel.shown == ["a01", "a02"]  # a click here keeps the racks shown
    qtbot.mouseClick(
        viewport,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.ControlModifier,
        unit_point(window, "a02", 40),
    )
    assert window.canvas.selected_ids() == ["dgx-1", "leaf"]
    assert window.properties_panel.isEnabled()


@pytest.mark.slow
def test_a_click_on_a_rack_in_the_floor_plan_selects_its_devices(
    qtbot: Any, main_window: Any
) -> None:
    window = open_window(main_window, qtbot)
    floor = _floor(window)
    pic = floor.picture
    k = pic.ids.index("a01")
    centre = QPointF(float(pic.x[k] + pic.w[k] / 2), float(pic.y[k] + pic.d[k] / 2))
    at = floor.view.mapFromScene(centre)
    qtbot.mouseClick(floor.view.viewport(), Qt.MouseButton.LeftButton, pos=at)
    assert window.canvas.selected_ids() == ["dgx-1", "dgx-2"]
    elevation = window.physical_docks.elevation
    assert "a01" in elevation.items
    assert window.statusBar().currentMessage() == "a01: 2 devices, 20.4 kW"
