"""Link edits in Properties pass the connection rules, bounded and explained."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt

from designer.core.checks import check_link_update
from designer.core.device_commands import AddDevices
from designer.core.errors import ConnectionRefused
from designer.core.link_commands import AddLinks
from designer.core.model import Device, Link


def _wired(window: Any, cables: int = 8) -> str:
    """A DGX H100 with ``cables`` compute cables to a QM9700 leaf; the link id."""
    window.document.execute(
        AddDevices(
            [
                Device(id="dgx-0", catalog_id="dgx-h100", y=300.0),
                Device(id="leaf", catalog_id="qm9700"),
            ]
        )
    )
    window.document.execute(
        AddLinks(
            [
                Link(
                    id="l1",
                    a="dgx-0",
                    a_port="compute",
                    b="leaf",
                    b_port="ports",
                    cables=cables,
                    speed_gbps=400,
                )
            ]
        )
    )
    return "l1"


def _reason(window: Any, link_id: str, fields: dict[str, object]) -> str:
    with pytest.raises(ConnectionRefused) as exc:
        check_link_update(window.document.design, link_id, fields, window.catalog)
    return str(exc.value)


@pytest.mark.slow
def test_cables_spin_box_stops_at_the_free_ports(main_window: Any) -> None:
    window = main_window()
    link_id = _wired(window, cables=3)
    window.canvas.select_ids([link_id], center=False)
    panel = window.properties_panel
    assert panel.cables_spin.maximum() == 8  # the DGX's 8 compute ports
    assert "Up to 8 at 400G" in panel.link_editor.cables_hint.text()


@pytest.mark.slow
def test_ninth_cable_is_refused_with_the_canvas_text(
    qtbot: Any, main_window: Any
) -> None:
    window = main_window()
    link_id = _wired(window)
    window.canvas.select_ids([link_id], center=False)
    panel = window.properties_panel
    editor = panel.link_editor
    before = window.document.design.model_dump()
    steps = len(window.document.history.done)
    expected = _reason(window, link_id, {"cables": 9})
    with qtbot.waitSignal(panel.edit_refused) as sig:
        qtbot.keyClick(panel.cables_spin, Qt.Key.Key_Up)
    assert sig.args[0] == expected
    assert "9 would be in use" in expected
    assert window.document.design.model_dump() == before
    assert len(window.document.history.done) == steps
    assert panel.cables_spin.value() == 8  # the widget shows the model again
    assert editor.refusal() == expected
    assert window.statusBar().currentMessage() == expected
    # the canvas gives the same text for a ninth cable on the same ends
    assert not window.canvas.edits.connect_devices("dgx-0", "leaf", cables=1)
    assert window.canvas.canvas_message() == expected
    assert window.document.design.model_dump() == before


@pytest.mark.slow
def test_typed_cables_above_the_limit_are_refused(qtbot: Any, main_window: Any) -> None:
    window = main_window()
    link_id = _wired(window)
    window.canvas.select_ids([link_id], center=False)
    panel = window.properties_panel
    before = window.document.design.model_dump()
    spin = panel.cables_spin
    spin.setFocus()
    spin.selectAll()
    with qtbot.waitSignal(panel.edit_refused) as sig:
        qtbot.keyClicks(spin, "12")
        qtbot.keyClick(spin, Qt.Key.Key_Return)
    assert sig.args[0] == _reason(window, link_id, {"cables": 12})
    assert "12 would be in use (4 too many)" in sig.args[0]
    assert window.document.design.model_dump() == before
    assert spin.value() == 8


@pytest.mark.slow
def test_refused_port_change_puts_the_combo_back(qtbot: Any, main_window: Any) -> None:
    window = main_window()
    link_id = _wired(window, cables=2)
    window.canvas.select_ids([link_id], center=False)
    editor = window.properties_panel.link_editor
    combo = editor.a_port_combo
    offered = [combo.itemData(i) for i in range(combo.count())]
    assert offered == ["compute", "storage", "inband", "bmc"]
    before = window.document.design.model_dump()
    expected = _reason(window, link_id, {"a_port": "bmc"})
    with qtbot.waitSignal(editor.edit_refused) as sig:
        combo.setCurrentIndex(combo.findData("bmc"))
        combo.activated.emit(combo.currentIndex())
    assert sig.args[0] == expected
    assert window.document.design.model_dump() == before
    assert combo.currentData() == "compute"
    assert editor.refusal() == expected
    # an accepted edit clears the note and is one undo step
    panel = window.properties_panel
    panel.cables_spin.setValue(6)
    assert window.document.design.links.get(link_id).cables == 6
    assert editor.refusal() == ""
    window.document.undo()
    assert window.document.design.model_dump() == before


@pytest.mark.slow
def test_a_link_over_its_ports_as_loaded_can_be_lowered(main_window: Any) -> None:
    window = main_window()
    link_id = _wired(window, cables=10)  # a file as drawn elsewhere: 2 too many
    window.canvas.select_ids([link_id], center=False)
    panel = window.properties_panel
    assert panel.cables_spin.value() == 10
    assert panel.cables_spin.maximum() == 10
    panel.cables_spin.setValue(8)
    assert window.document.design.links.get(link_id).cables == 8
    assert panel.link_editor.refusal() == ""
