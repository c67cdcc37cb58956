"""Properties shows a link's pinned ports and moves a cable to another port;
a port another link holds is refused with the rules' words (issue 18)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QComboBox

from designer.core.checks import check_link_update
from designer.core.device_commands import AddDevices
from designer.core.errors import ConnectionRefused
from designer.core.link_commands import AddLinks
from designer.core.model import Device, Link


def _two_links(window: Any) -> None:
    doc = window.document
    doc.execute(
        AddDevices(
            [
                Device(id="dgx-0", catalog_id="dgx-h100", y=300.0),
                Device(id="dgx-1", catalog_id="dgx-h100", x=200.0, y=300.0),
                Device(id="leaf", catalog_id="qm9700"),
            ]
        )
    )
    for lid, node, cables in (("l0", "dgx-0", 2), ("l1", "dgx-1", 2)):
        doc.execute(
            AddLinks(
                [
                    Link(id=lid, a=node, a_port="compute", b="leaf",
                         b_port="ports", cables=cables, speed_gbps=400)
                ],
                lookup=window.catalog,
            )
        )  # fmt: skip


def _combo(window: Any, row: int, col: int) -> QComboBox:
    widget = window.properties_panel.link_editor.pins_table.cellWidget(row, col)
    assert isinstance(widget, QComboBox)
    return widget


def test_ports_table_shows_the_pins_and_moves_one_cable(
    qtbot: Any, main_window: Any
) -> None:
    window = main_window()
    _two_links(window)
    links = window.document.design.links
    assert links.b_pins == [("osfp1/1", "osfp1/2"), ("osfp2/1", "osfp2/2")]
    window.canvas.select_ids(["l1"], center=False)
    combo = _combo(window, 0, 1)
    assert combo.currentData() == "osfp2/1"
    # another link's port is offered with its holder's name
    assert combo.itemText(combo.findData("osfp1/1")) == "osfp1/1  (link l0)"
    at = combo.findData("osfp5/1")
    combo.setCurrentIndex(at)
    combo.activated.emit(at)
    assert links.b_pins == [("osfp1/1", "osfp1/2"), ("osfp5/1", "osfp2/2")]
    assert window.document.history.undo_label == "Pin cable 1 of l1 to leaf osfp5/1"
    assert _combo(window, 0, 1).currentData() == "osfp5/1"  # shown again
    window.document.undo()
    assert links.b_pins == [("osfp1/1", "osfp1/2"), ("osfp2/1", "osfp2/2")]


def test_a_taken_port_is_refused_with_the_rules_words(
    qtbot: Any, main_window: Any
) -> None:
    window = main_window()
    _two_links(window)
    design = window.document.design
    with pytest.raises(ConnectionRefused) as exc:
        check_link_update(
            design, "l1", {"b_pins": ("osfp1/2", "osfp2/2")}, window.catalog
        )
    expected = str(exc.value)
    assert expected == "leaf port osfp1/2 is taken by link 'l0' (to dgx-0)"
    before = design.model_dump()
    steps = len(window.document.history.done)
    window.canvas.select_ids(["l1"], center=False)
    panel = window.properties_panel
    combo = _combo(window, 0, 1)
    at = combo.findData("osfp1/2")
    with qtbot.waitSignal(panel.edit_refused) as sig:
        combo.setCurrentIndex(at)
        combo.activated.emit(at)
    assert sig.args[0] == expected
    assert panel.link_editor.refusal() == expected
    assert design.model_dump() == before
    assert len(window.document.history.done) == steps
    assert _combo(window, 0, 1).currentData() == "osfp2/1"  # the model again


def test_ports_table_reads_whole_in_a_1280x800_window(
    qtbot: Any, main_window: Any
) -> None:
    """The columns are headed by the ends' names alone and each cable's port
    reads whole in the combo (at 1280x800 "Port at dgx-0001" and "osfp1/1"
    were cut to ": at dgx-0" and "osfp1")."""
    window = main_window()
    window.resize(1280, 800)
    _two_links(window)
    window.canvas.select_ids(["l0"], center=False)
    qtbot.wait(50)
    table = window.properties_panel.link_editor.pins_table
    heads = [table.horizontalHeaderItem(c).text() for c in range(2)]  # type: ignore[union-attr]
    assert heads == ["dgx-0", "leaf"]
    assert table.verticalHeaderItem(0).text() == "1"  # type: ignore[union-attr]
    combo = _combo(window, 0, 1)
    text = combo.currentText()
    assert text == "osfp1/1"
    assert combo.width() >= combo.fontMetrics().horizontalAdvance(text) + 16
