"""Editing through the window: palette drop, connect, refusals, bulk wiring, delete."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QDropEvent

from designer.core.device_commands import AddDevices
from designer.core.model import Device, Tier
from designer.qt.palette import catalog_mime
from tests.qt.helpers import add_dgx, settle


@pytest.mark.slow
def test_dropping_a_palette_item_places_count_devices(
    qtbot: Any, main_window: Any
) -> None:
    window = main_window()
    settle(qtbot, window)
    window.palette_panel.count_spin.setValue(4)
    mime = catalog_mime("dgx-b200", window.palette_panel.count())
    event = QDropEvent(
        QPointF(window.canvas.viewport().rect().center()),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.canvas.dropEvent(event)
    devices = window.document.design.devices
    assert [d.catalog_id for d in devices] == ["dgx-b200"] * 4
    assert len(window.document.history.done) == 1
    assert settle(qtbot, window).gpus == 32


@pytest.mark.slow
def test_refused_connection_tells_why_in_the_status_bar(main_window: Any) -> None:
    window = main_window()
    window.document.execute(
        AddDevices(
            [
                Device(id="ufm", catalog_id="ufm-appliance"),
                Device(id="leaf-1", catalog_id="qm9700", y=200.0),
                Device(id="leaf-2", catalog_id="qm9700", x=300.0, y=200.0),
            ]
        )
    )
    assert window.canvas.edits.connect_devices("ufm", "leaf-1")
    steps = len(window.document.history.done)
    assert not window.canvas.edits.connect_devices(
        "ufm", "leaf-2"
    )  # its one port is used
    assert len(window.document.history.done) == steps
    message = window.statusBar().currentMessage()
    assert "ufm" in message and "port" in message


@pytest.mark.slow
def test_connect_and_bulk_wire_change_the_metrics(qtbot: Any, main_window: Any) -> None:
    window = main_window()
    nodes = add_dgx(window, 2)
    window.document.execute(
        AddDevices(
            [
                Device(id="leaf", catalog_id="qm9700", tier=Tier.LEAF, y=200.0),
                Device(id="spine-a", catalog_id="qm9700", tier=Tier.SPINE),
                Device(id="spine-b", catalog_id="qm9700", tier=Tier.SPINE, x=300.0),
            ]
        )
    )
    for node in nodes:
        assert window.canvas.edits.connect_devices(node, "leaf")
    before = settle(qtbot, window)
    window.canvas.select_ids(["leaf", "spine-a", "spine-b"], center=False)
    steps = len(window.document.history.done)
    assert window.canvas.edits.connect_all_to_all(4)
    assert len(window.document.history.done) == steps + 1
    after = settle(qtbot, window)
    assert sum(after.cables.values()) == sum(before.cables.values()) + 8


@pytest.mark.slow
def test_delete_action_removes_device_and_links_in_one_step(
    qtbot: Any, main_window: Any
) -> None:
    window = main_window()
    nodes = add_dgx(window, 2)
    window.document.execute(
        AddDevices([Device(id="leaf", catalog_id="qm9700", tier=Tier.LEAF, y=200.0)])
    )
    for node in nodes:
        assert window.canvas.edits.connect_devices(node, "leaf")
    before = window.document.design.model_dump()
    window.canvas.select_ids(["leaf"], center=False)
    window.actions_.delete.trigger()
    design = window.document.design
    assert "leaf" not in design.device_map()
    assert len(design.links) == 0
    window.actions_.undo.trigger()
    assert window.document.design.model_dump() == before
