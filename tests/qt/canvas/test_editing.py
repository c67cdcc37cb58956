"""Canvas gestures: drop, connect, refuse, move, select, delete, copy/paste, undo."""

from __future__ import annotations

import json

from PySide6.QtCore import QMimeData, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from designer.core.model import Design, Tier
from designer.qt.canvas import CATALOG_MIME
from designer.view.canvas.sizes import GRID
from tests.qt.canvas.helpers import click, dev, drag, vp


def _drop(view, catalog_id: str, count: int, at: tuple[float, float]) -> None:
    mime = QMimeData()
    mime.setData(
        CATALOG_MIME, json.dumps({"catalog_id": catalog_id, "count": count}).encode()
    )
    pos = QPointF(vp(view, *at))
    enter = QDragEnterEvent(
        pos.toPoint(),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(view.viewport(), enter)
    assert enter.isAccepted()
    drop = QDropEvent(
        pos,
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(view.viewport(), drop)


def test_drop_places_one_device_at_the_drop_point(make_view) -> None:
    view = make_view()
    _drop(view, "dgx-h100", 1, (101.0, -47.0))
    doc = view.document
    assert [c.label for c in doc.history.done] == ["Add DGX H100"]
    (d,) = doc.design.devices
    assert d.catalog_id == "dgx-h100"
    assert (d.x, d.y) == (round(101 / GRID) * GRID, round(-47 / GRID) * GRID)
    item = view.design_scene.item_for(d.id)
    assert item is not None and (item.pos().x(), item.pos().y()) == (d.x, d.y)
    assert view.selected_ids() == [d.id]


def test_drop_with_count_is_one_step(make_view) -> None:
    view = make_view()
    _drop(view, "qm9700", 4, (0.0, 0.0))
    assert len(view.document.history.done) == 1
    assert [d.catalog_id for d in view.document.design.devices] == ["qm9700"] * 4
    assert len({d.x for d in view.document.design.devices}) == 4


def test_drop_of_unknown_item_says_why(make_view, qtbot: QtBot) -> None:
    view = make_view()
    with qtbot.waitSignal(view.status_message) as sig:
        _drop(view, "no-such-box", 1, (0.0, 0.0))
    assert "no-such-box" in sig.args[0]
    assert view.document.design.devices == []


def _pair() -> Design:
    return Design(
        devices=[dev("n1", "dgx-h100", 0, 200), dev("sw1", "qm9700", 0, 0, Tier.LEAF)]
    )


def test_connect_tool_drag_makes_one_link_with_defaults(
    make_view, qtbot: QtBot
) -> None:
    view = make_view(_pair())
    view.set_tool("connect")
    drag(qtbot, view, (0, 200), (0, 0))
    (link,) = list(view.document.design.links)
    assert (link.a, link.a_port, link.b, link.b_port) == (
        "n1",
        "compute",
        "sw1",
        "ports",
    )
    # every free compute port of the DGX (8), the leaf has 64 free
    assert (link.cables, link.speed_gbps, link.fabric.value) == (8, 400, "compute")
    assert [c.label for c in view.document.history.done] == [
        "Connect n1 to sw1 (8 cables)"
    ]
    assert view.selected_ids() == [link.id]


def test_alt_drag_connects_with_select_tool(make_view, qtbot: QtBot) -> None:
    view = make_view(_pair())
    drag(qtbot, view, (0, 0), (0, 200), Qt.KeyboardModifier.AltModifier)
    (link,) = list(view.document.design.links)
    assert {link.a, link.b} == {"n1", "sw1"}
    assert view.document.design.device_map()["sw1"].x == 0  # no move happened


def test_refused_connection_shows_the_reason(make_view, qtbot: QtBot) -> None:
    design = Design(
        devices=[
            dev("n1", "generic-host", 0, 200),
            dev("n2", "lustre-appliance", 200, 200),
        ]
    )
    view = make_view(design)
    view.set_tool("connect")
    with qtbot.waitSignal(view.status_message) as sig:
        drag(qtbot, view, (0, 200), (200, 200))
    assert len(view.document.design.links) == 0
    assert view.document.history.done == []
    assert "storage fabric" in sig.args[0]
    assert view.canvas_message() == sig.args[0]


def test_release_on_empty_space_says_why(make_view, qtbot: QtBot) -> None:
    view = make_view(_pair())
    view.set_tool("connect")
    with qtbot.waitSignal(view.status_message) as sig:
        drag(qtbot, view, (0, 200), (300, 300))
    assert "another device" in sig.args[0]


def test_drag_move_is_one_move_step_snapped_and_undoable(
    make_view, qtbot: QtBot
) -> None:
    view = make_view(_pair())
    before = view.document.design.model_dump()
    drag(qtbot, view, (0, 0), (83, -41), steps=8)
    doc = view.document
    assert [c.label for c in doc.history.done] == ["Move device"]
    sw = doc.design.device_map()["sw1"]
    assert (sw.x, sw.y) == (80.0, -48.0)
    assert view.design_scene.item_for("sw1").pos() == QPointF(80, -48)
    after = doc.design.model_dump()
    doc.undo()
    assert doc.design.model_dump() == before
    assert view.design_scene.item_for("sw1").pos() == QPointF(0, 0)
    doc.redo()
    assert doc.design.model_dump() == after


def test_click_and_rubber_band_select(make_view, qtbot: QtBot) -> None:
    view = make_view(_pair())
    click(qtbot, view, (0, 0))
    assert view.selected_ids() == ["sw1"]
    click(qtbot, view, (0, 200), Qt.KeyboardModifier.ShiftModifier)
    assert view.selected_ids() == ["n1", "sw1"]
    click(qtbot, view, (300, -300))
    assert view.selected_ids() == []
    with qtbot.waitSignal(view.selection_changed) as sig:
        drag(qtbot, view, (-100, -100), (100, 250))
    assert sig.args[0] == ["n1", "sw1"]


def test_delete_removes_device_with_its_links(make_view, qtbot: QtBot) -> None:
    view = make_view(_pair())
    assert view.edits.connect_devices("n1", "sw1")
    before = view.document.design.model_dump()
    click(qtbot, view, (0, 0))
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    design = view.document.design
    assert [d.id for d in design.devices] == ["n1"]
    assert len(design.links) == 0
    assert view.document.history.done[-1].label == "Delete 1 device"
    assert view.design_scene.item_for("sw1") is None
    view.document.undo()
    assert view.document.design.model_dump() == before
    assert view.design_scene.item_for("sw1") is not None


def test_click_on_link_selects_it_and_delete_removes_only_it(
    make_view, qtbot: QtBot
) -> None:
    view = make_view(_pair())
    view.edits.connect_devices("n1", "sw1")
    click(qtbot, view, (300, 300))
    click(qtbot, view, (1, 100))
    (lid,) = view.document.design.links.id
    assert view.selected_ids() == [lid]
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    assert len(view.document.design.links) == 0
    assert len(view.document.design.devices) == 2


def test_copy_paste_and_duplicate_use_fresh_ids_and_offset(
    make_view, qtbot: QtBot
) -> None:
    view = make_view(_pair())
    view.edits.connect_devices("n1", "sw1")
    view.select_ids(["n1", "sw1"], center=False)
    view.edits.copy_selection()
    view.edits.paste()
    design = view.document.design
    assert len(design.devices) == 4 and len(design.links) == 2
    new = design.devices[2:]
    assert {d.id for d in new}.isdisjoint({"n1", "sw1"})
    assert all(d.x != 0 for d in new)
    assert set(view.selected_ids()) == {d.id for d in new}
    new_link = design.links.row(1)
    assert {new_link.a, new_link.b} == {d.id for d in new}
    view.edits.duplicate_selection()
    assert len(view.document.design.devices) == 6
    assert len(view.document.history.done) == 3  # connect, paste, duplicate


def test_undo_everything_restores_identical_model(make_view, qtbot: QtBot) -> None:
    view = make_view(_pair())
    doc = view.document
    start = doc.design.model_dump()
    _drop(view, "qm9700", 2, (200.0, 0.0))
    view.edits.connect_devices("n1", "sw1")
    drag(qtbot, view, (0, 200), (48, 248))
    view.select_ids(["n1", "sw1"], center=False)
    assert view.edits.group_selection("su")
    gid = doc.design.groups[0].id
    assert view.edits.toggle_group_collapsed(gid)
    view.edits.auto_layout()
    end = doc.design.model_dump()
    steps = len(doc.history.done)
    assert steps == 6
    for _ in range(steps):
        doc.undo()
    assert doc.design.model_dump() == start
    scene = view.design_scene
    assert {d.id for d in doc.design.devices} == {i for i in ("n1", "sw1")}
    assert all(
        scene.item_for(d.id).pos() == QPointF(d.x, d.y) for d in doc.design.devices
    )
    assert scene.item_for("qm9700-1") is None
    for _ in range(steps):
        doc.redo()
    assert doc.design.model_dump() == end
    assert all(
        scene.item_for(d.id).pos() == QPointF(d.x, d.y) for d in doc.design.devices
    )


def test_zoom_wheel_keys_and_fit(make_view, qtbot: QtBot) -> None:
    view = make_view(_pair())
    s0 = view.scale_factor()
    with qtbot.waitSignal(view.zoom_changed):
        view.zoom_in()
    assert view.scale_factor() > s0
    qtbot.keyClick(view, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert abs(view.scale_factor() - s0) < 1e-9
    view.fit_all()
    visible = view.mapToScene(view.viewport().rect()).boundingRect()
    assert visible.contains(QPointF(0, 0)) and visible.contains(QPointF(0, 200))
