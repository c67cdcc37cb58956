"""Rack elevation: drag a device to another rack or U as one undoable step."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from designer.catalog import default_catalog
from designer.physical.views import PhysicalView
from tests.qt.physical.helpers import (
    drag_units,
    open_window,
    show_racks,
    small_design,
)


def _placement(window: Any, device: str) -> tuple[str | None, int | None]:
    d = next(x for x in window.document.design.devices if x.id == device)
    return (d.placement.rack, d.placement.u) if d.placement else (None, None)


def _history(window: Any) -> list[str]:
    rows = window.history_panel.list
    return [rows.item(i).text() for i in range(rows.count())]


@pytest.mark.slow
def test_drag_to_another_rack_is_one_step_and_undo_restores(
    qtbot: Any, main_window: Any
) -> None:
    window = open_window(main_window, qtbot)
    show_racks(window, "a01", "a02", "a03")
    doc = window.document
    before = doc.design.model_dump()
    steps = len(doc.history.done)
    # hold dgx-2 (U9-16) at its U12, release over a03's U20: it lands at U17
    drag_units(qtbot, window, ("a01", 12), ("a03", 20))
    assert _placement(window, "dgx-2") == ("a03", 17)
    assert len(doc.history.done) == steps + 1
    assert _history(window)[-1] == "Move dgx-2 to a03 U17"
    panel = window.physical_docks.elevation
    assert [s.device for s in panel.items["a03"].rack.devices] == ["dgx-2"]
    assert [s.device for s in panel.items["a01"].rack.devices] == ["dgx-1"]
    assert panel.status.text() == "Moved dgx-2 to a03 U17"
    tip = panel.items["a03"].toolTip()
    assert tip.startswith("a03 (48U rack, 48U, row r2)\n10.2 kW")
    assert "air cooling 30 kW (estimate)" in tip and "many [sites]" in tip
    window.actions_.undo.trigger()
    QApplication.processEvents()
    assert doc.design.model_dump() == before
    assert [s.device for s in panel.items["a01"].rack.devices] == ["dgx-1", "dgx-2"]
    assert panel.items["a03"].rack.devices == ()
    window.actions_.redo.trigger()
    QApplication.processEvents()
    assert _placement(window, "dgx-2") == ("a03", 17)


@pytest.mark.slow
def test_drag_within_a_rack_moves_the_unit(qtbot: Any, main_window: Any) -> None:
    window = open_window(main_window, qtbot)
    show_racks(window, "a01", "a02")
    drag_units(qtbot, window, ("a02", 40), ("a02", 44))
    assert _placement(window, "leaf") == ("a02", 44)
    assert window.document.history.done[-1].label == "Move leaf to U44"


@pytest.mark.slow
def test_refused_drop_says_the_rules_reason_and_changes_nothing(
    qtbot: Any, main_window: Any
) -> None:
    window = open_window(main_window, qtbot)
    show_racks(window, "a01", "a02", "a03", "n01")
    doc = window.document
    before = doc.design.model_dump()
    steps = len(doc.history.done)
    oracle = PhysicalView(doc.design, default_catalog())
    panel = window.physical_docks.elevation
    cases = [
        (("a01", 12), ("a01", 4), ("dgx-2", "a01", 1)),  # onto dgx-1
        (("n01", 10), ("a03", 10), ("nvl", "a03", 1)),  # liquid into an air rack
    ]
    for start, end, (device, rack, u) in cases:
        drag_units(qtbot, window, start, end)
        why = oracle.can_place(device, rack, u)
        assert why is not None
        assert panel.status.text() == f"Cannot drop: {why}"
        assert window.statusBar().currentMessage() == f"Cannot drop: {why}"
        assert doc.design.model_dump() == before
        assert len(doc.history.done) == steps
        assert not panel.view.ghost.isVisible()


@pytest.mark.slow
def test_a_drop_over_the_power_limit_is_made_and_says_so(
    qtbot: Any, main_window: Any
) -> None:
    """The rules make rack power a finding, not a refusal: the drop happens and
    the message names the limit."""
    window = open_window(main_window, qtbot)
    doc = window.document
    from designer.core.device_commands import AddDevices
    from designer.core.model import Device, Placement

    doc.execute(
        AddDevices(
            [
                Device(
                    id=f"x{i}",
                    catalog_id="dgx-h100",
                    placement=Placement(rack="a03", u=1 + 8 * i),
                )
                for i in range(2)
            ]
        )
    )
    show_racks(window, "a01", "a03")
    drag_units(qtbot, window, ("a01", 12), ("a03", 20))
    assert _placement(window, "dgx-2") == ("a03", 17)
    text = window.physical_docks.elevation.status.text()
    assert "now draws 30.6 kW, above its limit" in text
    assert "air cooling 30 kW" in text


@pytest.mark.slow
def test_a_click_on_empty_units_does_nothing(qtbot: Any, main_window: Any) -> None:
    window = open_window(main_window, qtbot)
    show_racks(window, "a01", "a03")
    steps = len(window.document.history.done)
    drag_units(qtbot, window, ("a03", 30), ("a03", 30))
    assert len(window.document.history.done) == steps
    assert window.canvas.selected_ids() == []


@pytest.mark.slow
def test_a_rack_moved_to_another_row_leaves_the_row_shown(
    qtbot: Any, main_window: Any
) -> None:
    from designer.core.physical_commands import EditRacks

    window = open_window(main_window, qtbot)
    panel = window.physical_docks.elevation
    panel.choice.setCurrentIndex(panel.choice.findData("r1"))
    assert panel.shown == ["a01", "a02"]
    window.document.execute(EditRacks({"a02": {"row": "r2", "slot": 8}}))
    QApplication.processEvents()
    assert panel.shown == ["a01"]
    window.document.undo()
    QApplication.processEvents()
    assert panel.shown == ["a01", "a02"]


def test_a_drop_one_u_off_snaps_to_the_nearest_u_where_it_fits(
    qtbot: Any, main_window: Any
) -> None:
    """Issue 16 item 8: an 8U DGX released a few U too high (it would stick
    out of the rack) lands at the highest U where it fits, in one step."""
    window = open_window(main_window, qtbot)
    show_racks(window, "a01", "a02", "a03")
    doc = window.document
    oracle = PhysicalView(doc.design, default_catalog())
    assert oracle.can_place("dgx-2", "a03", 44) is not None  # sticks out
    steps = len(doc.history.done)
    # hold dgx-2 at its U12 (4 above its bottom), release over a03's U47
    drag_units(qtbot, window, ("a01", 12), ("a03", 47))
    assert _placement(window, "dgx-2") == ("a03", 41)  # 41-48: the top fits
    assert len(doc.history.done) == steps + 1
    panel = window.physical_docks.elevation
    assert panel.status.text() == "Moved dgx-2 to a03 U41"


def test_racks_dock_zooms_and_keeps_labels_readable_at_1280x800(
    qtbot: Any, main_window: Any
) -> None:
    """Issue 16 item 8: fitted at 1280x800 the device labels are at least
    9 px on screen; the dock zooms in and out and back to the fit."""
    from designer.qt.physical.elevation import READABLE_PX

    window = main_window()
    window.adopt_generated(small_design())
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280)
    window._default_dock_sizes()
    dock = window.physical_docks.elevation_dock
    dock.show()
    dock.raise_()
    qtbot.waitUntil(lambda: window.physical_docks.elevation.isVisible())
    show_racks(window, "a01", "a02", "a03")
    panel = window.physical_docks.elevation
    panel.refit()
    fitted = panel.scale
    assert panel.label_px() >= READABLE_PX - 1e-9
    assert panel.layout_.style.unit * fitted >= 10  # a U is a band to aim at
    panel.zoom_buttons["in"].click()
    assert panel.scale > fitted * 1.2
    panel.zoom_buttons["out"].click()
    panel.zoom_buttons["out"].click()
    assert panel.scale < fitted
    panel.zoom_buttons["fit"].click()
    assert panel.scale == fitted
