"""Floor plan: racks to scale, coloured by kW; only edited racks are redrawn."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from designer.core.physical import Facility
from designer.core.physical_commands import EditRacks, SetFacility
from designer.view.physical.floor import EMPTY_COLOUR, kw_bands, kw_colour
from tests.qt.physical.helpers import open_window


def _floor(window: Any) -> Any:
    docks = window.physical_docks
    docks.floor_dock.raise_()
    QApplication.processEvents()
    return docks.floor


def _colour(floor: Any, rack: str) -> str:
    pic = floor.picture
    return str(pic.colour[pic.ids.index(rack)])


@pytest.mark.slow
def test_colours_follow_kw_through_a_move_and_undo(
    qtbot: Any, main_window: Any
) -> None:
    window = open_window(main_window, qtbot)
    floor = _floor(window)
    bands = kw_bands(Facility())
    assert floor.bands == bands
    assert _colour(floor, "a01") == kw_colour(20.4, bands)  # 2 DGX H100: air band
    assert _colour(floor, "a03") == EMPTY_COLOUR
    assert _colour(floor, "n01") == kw_colour(120.0, bands)  # an NVL72 (liquid)
    live = window.physical_docks.live
    rebuilt: list[int] = []
    floor.rebuild = lambda: rebuilt.append(1)  # type: ignore[method-assign]
    window.document.execute(live.place_command("dgx-2", "a03", 1))
    QApplication.processEvents()
    assert _colour(floor, "a01") == kw_colour(10.2, bands)  # 0-10 kW band edge
    assert _colour(floor, "a03") == kw_colour(10.2, bands)
    assert rebuilt == []  # recoloured in place, not read again
    assert "IT load 142.1 kW" in floor.summary.text()  # 20.4 + 1.72 + 120, moved
    window.document.undo()
    QApplication.processEvents()
    assert _colour(floor, "a01") == kw_colour(20.4, bands)
    assert _colour(floor, "a03") == EMPTY_COLOUR


@pytest.mark.slow
def test_racks_are_drawn_to_scale_and_follow_a_rack_move(
    qtbot: Any, main_window: Any
) -> None:
    window = open_window(main_window, qtbot)
    floor = _floor(window)
    pic = floor.picture
    k = pic.ids.index("a02")
    # row r1 starts at x=2 m, a02 in slot 1 (0.6 m), 800 mm wide, 1.2 m deep
    assert (pic.x[k], pic.y[k], pic.w[k], pic.d[k]) == pytest.approx(
        (2.6, 3.0, 0.8, 1.2)
    )
    rebuild = floor.rebuild
    rebuilt: list[int] = []
    floor.rebuild = lambda: rebuilt.append(1)  # type: ignore[method-assign]
    window.document.execute(EditRacks({"a02": {"slot": 5}}))
    QApplication.processEvents()
    pic = floor.picture
    assert pic.x[pic.ids.index("a02")] == pytest.approx(2.0 + 5 * 0.6)
    assert pic.rects[pic.ids.index("a02")].x() == pytest.approx(5.0)
    assert rebuilt == []  # one rack moved: the others stay as they are
    floor.rebuild = rebuild  # type: ignore[method-assign]
    window.document.undo()
    QApplication.processEvents()
    assert floor.picture.x[floor.picture.ids.index("a02")] == pytest.approx(2.6)


@pytest.mark.slow
def test_facility_limits_move_the_colour_bands(qtbot: Any, main_window: Any) -> None:
    window = open_window(main_window, qtbot)
    floor = _floor(window)
    window.document.execute(SetFacility(Facility(air_kw=15.0)))
    QApplication.processEvents()
    bands = kw_bands(Facility(air_kw=15.0))
    assert floor.bands == bands
    assert _colour(floor, "a01") == kw_colour(20.4, bands)  # now past air: orange
    assert _colour(floor, "a01") != kw_colour(20.4, kw_bands(Facility()))
    assert floor.picture.over[floor.picture.ids.index("a01")]  # 20.4 > 15 kW air


@pytest.mark.slow
def test_a_hidden_floor_plan_catches_up_when_shown(
    qtbot: Any, main_window: Any
) -> None:
    window = open_window(main_window, qtbot)
    docks = window.physical_docks
    floor = _floor(window)
    docks.floor_dock.hide()  # closed (View menu): not on screen
    QApplication.processEvents()
    assert not floor.isVisible()
    window.document.execute(docks.live.place_command("dgx-2", "a03", 1))
    QApplication.processEvents()
    assert _colour(floor, "a03") == EMPTY_COLOUR  # not on screen: owed
    docks.floor_dock.show()
    QApplication.processEvents()
    assert _colour(floor, "a03") == kw_colour(10.2, floor.bands)


@pytest.mark.slow
def test_labels_stay_whole_and_inside_the_window_at_1280x800(
    qtbot: Any, main_window: Any
) -> None:
    """The 4-SU sample in a 1280x800 window: a long row name wraps beside its row
    instead of running off the dock's left edge, and a cable label near the
    right edge is moved inside the window."""
    from pathlib import Path

    samples = Path(__file__).resolve().parents[3] / "samples"
    window = main_window()
    window.resize(1280, 800)
    assert window.open_path(samples / "dgx-h100-superpod-4su.json")
    floor = _floor(window)
    view = floor.view
    window.canvas.select_ids(["dgx-0013"], center=False)  # a node at su01's end
    qtbot.waitUntil(lambda: bool(floor.cable_labels), timeout=10_000)
    QApplication.processEvents()
    inside = view.viewport().rect().toRectF()
    spots = view.row_label_spots()
    assert {text for text, _, _ in spots} >= {"su01", "storage and management"}
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QFontMetricsF

    fm = QFontMetricsF(view.label_font)
    walls = [
        view.mapFromScene(QPointF(r.left(), r.top())).x() for r in floor.halls.rects
    ]
    for text, spot, flags in spots:
        assert "…" not in text
        assert inside.contains(spot), (text, spot, inside)
        # issue 16 item 12: the hall's outline never runs through a row name
        ink = fm.boundingRect(spot, flags, text)
        for wall in walls:
            assert not (ink.left() < wall < ink.right()), (text, ink, wall)
    boxes = view.cable_label_boxes()
    assert boxes
    for text, box in boxes:
        assert inside.contains(box), (text, box, inside)
