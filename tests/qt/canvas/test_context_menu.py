"""The canvas's context menu: right-click selects, and every entry does what it
says through the same commands (and refusals) as the toolbar and Design menu."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QAction, QContextMenuEvent
from PySide6.QtWidgets import QApplication, QInputDialog, QMenu
from pytestqt.qtbot import QtBot

from designer.catalog import Catalog
from designer.core.connect import plan_connection
from designer.core.errors import ConnectionRefused
from designer.core.model import (
    Design,
    Fabric,
    Group,
    GroupKind,
    Link,
    LinkTable,
    Tier,
)
from designer.qt.canvas import CanvasView
from tests.qt.canvas.helpers import click, dev, vp


def _unit() -> Design:
    """An SU of two DGX H100 and eight rail leaves, a spine and a filer outside."""
    devices = [
        dev(f"dgx-{n}", "dgx-h100", 200.0 * n, 300, group="su01") for n in (0, 1)
    ]
    devices += [
        dev(f"rail-{r}", "qm9700", 100.0 * r, 0, Tier.LEAF, group="su01")
        for r in range(8)
    ]
    devices += [
        dev("spine", "qm9700", 400, -300, Tier.SPINE),
        dev("filer", "nfs-filer", 1200, 300),
    ]
    link = Link(
        id="dgx-0--rail-0",
        a="dgx-0",
        a_port="compute",
        b="rail-0",
        b_port="ports",
        cables=1,
        speed_gbps=400,
        rail=0,
    )
    return Design(
        groups=[Group(id="su01", label="SU 1", kind=GroupKind.SU)],
        devices=devices,
        links=LinkTable.from_links([link]),
    )


def _action(menu: QMenu, key: str) -> QAction:
    found = [a for a in menu.actions() if a.objectName() == key]
    assert found, [a.objectName() for a in menu.actions() if a.objectName()]
    return found[0]


def _run(view: CanvasView, at: tuple[float, float], key: str) -> QMenu:
    menu = view.context_menu_at(QPointF(*at))
    _action(menu, key).trigger()
    return menu


def _frame_header(view: CanvasView, group: str) -> tuple[float, float]:
    frame = next(f for f in view.design_scene.frame_items() if f.group_id == group)
    c = frame.header_rect().center()
    return c.x(), c.y()


def _right_click(view: CanvasView, at: tuple[float, float]) -> QMenu:
    pos = vp(view, *at)
    event = QContextMenuEvent(
        QContextMenuEvent.Reason.Mouse, pos, view.viewport().mapToGlobal(pos)
    )
    QApplication.sendEvent(view.viewport(), event)
    menu = QApplication.activePopupWidget()
    assert isinstance(menu, QMenu) and menu.objectName() == "canvasContextMenu"
    return menu


# a popup on the offscreen platform warns that it cannot raise or grab the keyboard
@pytest.mark.slow
@pytest.mark.qt_log_ignore("This plugin does not support")
def test_right_click_selects_what_it_lands_on_unless_already_selected(
    make_view, qtbot: QtBot
) -> None:
    view = make_view(_unit())
    view.select_ids(["filer"], center=False)
    menu = _right_click(view, (0, 300))
    assert view.design_scene.selected_ids() == ["dgx-0"]
    assert menu.isVisible()
    assert _action(menu, "connect_from").text() == "Connect From Here…"
    menu.close()
    view.select_ids(["dgx-0", "dgx-1"], center=False)
    menu = _right_click(view, (200, 300))
    assert view.design_scene.selected_ids() == ["dgx-0", "dgx-1"]  # kept
    assert _action(menu, "connect").isEnabled()
    menu.close()
    # the empty canvas keeps the selection and offers the canvas's actions
    menu = _right_click(view, (-400, -300))
    assert view.design_scene.selected_ids() == ["dgx-0", "dgx-1"]
    assert [a.objectName() for a in menu.actions() if a.objectName()] == [
        "paste",
        "select_all",
        "fit",
        "auto_layout",
        "design_properties",
    ]
    menu.close()
    # a link: it alone
    _right_click(view, (0, 150)).close()
    assert view.design_scene.selected_ids() == ["dgx-0--rail-0"]


@pytest.mark.slow
def test_connect_makes_the_planned_link_or_gives_the_rules_reason(
    make_view, qtbot: QtBot, catalog: Catalog
) -> None:
    view = make_view(_unit())
    view.select_ids(["dgx-1", "rail-3"], center=False)
    with qtbot.waitSignal(view.status_message) as sig:
        _run(view, (200, 300), "connect")
    plan = plan_connection(_unit(), "dgx-1", "rail-3", catalog)
    made = view.document.design.links.get(plan.link.id)
    assert made is not None and made.cables == plan.link.cables == 8
    assert sig.args[0] == f"Connected {plan.description}"
    assert len(view.document.history.done) == 1
    # the filer has no InfiniBand port: the rules' own words
    view.select_ids(["filer", "rail-3"], center=False)
    with pytest.raises(ConnectionRefused) as expected:
        plan_connection(view.document.design, "rail-3", "filer", catalog)
    _run(view, (1200, 300), "connect")
    assert view.canvas_message() == str(expected.value)
    assert len(view.document.history.done) == 1
    # out-of-band: a BMC and a leaf's mgmt port are both management ports
    with pytest.raises(ConnectionRefused) as oob_refused:
        plan_connection(
            view.document.design, "rail-3", "filer", catalog, fabric=Fabric.OOB
        )
    _run(view, (1200, 300), "connect_oob")
    assert view.canvas_message() == str(oob_refused.value)
    assert "are both management ports" in view.canvas_message()
    assert not [x for x in view.document.design.links if x.fabric.value == "oob"]


@pytest.mark.slow
def test_connect_from_here_then_click_the_other_device(make_view, qtbot: QtBot) -> None:
    view = make_view(_unit())
    with qtbot.waitSignal(view.status_message) as sig:
        _run(view, (200, 300), "connect_from")
    assert "Click the device to connect dgx-1 to" in sig.args[0]
    click(qtbot, view, (100, 0))
    made = [x for x in view.document.design.links if x.a == "dgx-1"]
    assert [(x.b, x.cables) for x in made] == [("rail-1", 8)]


@pytest.mark.slow
def test_wire_rail_optimized_on_the_unit(make_view, qtbot: QtBot) -> None:
    view = make_view(_unit())
    menu = _run(view, _frame_header(view, "su01"), "wire_rails")
    assert _action(menu, "collapse").text() == "Collapse SU 1"
    rails = {(x.a, x.b, x.rail) for x in view.document.design.links}
    assert rails == {(f"dgx-{n}", f"rail-{r}", r) for n in (0, 1) for r in range(8)}
    assert len(view.document.history.done) == 1


@pytest.mark.slow
def test_connect_all_to_all_asks_the_cable_count(
    make_view, monkeypatch: pytest.MonkeyPatch
) -> None:
    view = make_view(_unit())
    monkeypatch.setattr(QInputDialog, "getInt", staticmethod(lambda *a: (2, True)))
    view.select_ids(["rail-5", "spine"], center=False)
    _run(view, (400, -300), "all_to_all")
    (link,) = [x for x in view.document.design.links if "spine" in (x.a, x.b)]
    assert {link.a, link.b} == {"rail-5", "spine"} and link.cables == 2


@pytest.mark.slow
def test_group_collapse_expand_and_delete_are_one_step_each(make_view) -> None:
    view = make_view(_unit())
    doc = view.document
    view.select_ids(["spine", "filer"], center=False)
    _run(view, (400, -300), "group_su")
    (new,) = [g for g in doc.design.groups if g.id != "su01"]
    assert new.kind is GroupKind.SU
    assert {d.group for d in doc.design.devices if d.id in ("spine", "filer")} == {
        new.id
    }
    _run(view, _frame_header(view, "su01"), "collapse")
    assert doc.design.group_map()["su01"].collapsed
    QApplication.processEvents()
    block = next(b for b in view.design_scene.block_items() if b.group_id == "su01")
    menu = _run(view, (block.rect.center().x(), block.rect.center().y()), "expand")
    assert _action(menu, "zoom_group").text() == "Zoom to SU 1"
    assert not doc.design.group_map()["su01"].collapsed
    steps = len(doc.history.done)
    view.select_ids([], center=False)
    _run(view, (0, 300), "delete")
    assert "dgx-0" not in doc.design.device_map()
    assert not doc.design.links.has("dgx-0--rail-0")  # its link went with it
    assert len(doc.history.done) == steps + 1
    doc.undo()
    assert "dgx-0" in doc.design.device_map()


@pytest.mark.slow
def test_zoom_entries_show_what_they_name(make_view) -> None:
    view = make_view(_unit())
    view.resetTransform()
    view.scale(0.05, 0.05)
    view.centerOn(5000, 5000)

    def shown() -> QRectF:
        return view.mapToScene(view.viewport().rect()).boundingRect()

    _run(view, (1200, 300), "zoom_selection")
    assert shown().contains(QPointF(1200, 300)) and view.scale_factor() > 0.5
    view.centerOn(5000, 5000)
    _run(view, _frame_header(view, "su01"), "zoom_group")
    frame = next(f for f in view.design_scene.frame_items() if f.group_id == "su01")
    assert shown().contains(frame.rect)


@pytest.mark.slow
def test_select_connected_adds_the_linked_devices(make_view) -> None:
    view = make_view(_unit())
    _run(view, (0, 300), "select_connected")
    assert view.design_scene.selected_ids() == ["dgx-0", "rail-0"]
    _run(view, (0, 150), "select_connected")  # a link: its two ends
    assert view.design_scene.selected_ids() == ["dgx-0", "rail-0"]


@pytest.mark.slow
def test_canvas_entries(make_view, qtbot: QtBot) -> None:
    view = make_view(_unit())
    QApplication.clipboard().clear()  # nothing copied by an earlier test
    menu = view.context_menu_at(QPointF(-400, -300))
    assert not _action(menu, "paste").isEnabled()
    view.select_ids(["filer"], center=False)
    view.edits.copy_selection()
    menu = view.context_menu_at(QPointF(-400, -300))
    _action(menu, "paste").trigger()
    assert len(view.document.design.devices) == 13
    _run(view, (-400, -300), "select_all")
    assert len(view.design_scene.selected_device_ids()) == 13
    view.scale(4, 4)
    _run(view, (-400, -300), "fit")
    assert view.scale_factor() <= 1.0
    with qtbot.waitSignal(view.properties_requested):
        _run(view, (-400, -300), "design_properties")
    assert view.design_scene.selected_ids() == []


@pytest.mark.slow
def test_window_entries_are_signals(make_view, qtbot: QtBot) -> None:
    view = make_view(_unit())
    with qtbot.waitSignal(view.properties_requested):
        _run(view, (0, 300), "properties")
    with qtbot.waitSignal(view.validator_requested) as sig:
        _run(view, (0, 300), "validator")
    assert sig.args[0] == ["dgx-0"]
    with qtbot.waitSignal(view.export_selection_requested):
        _run(view, (0, 300), "export_selection")


@pytest.mark.slow
def test_in_the_window_they_show_properties_findings_and_the_export_dialog(
    main_window, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    from designer.qt.app import wait_for_report
    from designer.qt.export import dialog as export_dialog

    window = main_window()
    window.document.reset(_unit())
    QApplication.processEvents()
    assert wait_for_report(window)
    view = window.canvas
    window.history_dock.raise_()
    _run(view, (0, 300), "properties")
    assert window.properties_dock.isVisible()
    assert not window.properties_dock.visibleRegion().isEmpty()
    # the filer is cabled to nothing: a finding names it
    report = window.latest_report
    assert report is not None
    naming = [f.message for f in report.findings if "filer" in f.items]
    assert naming
    window.workload_dock.raise_()
    _run(view, (1200, 300), "validator")
    panel = window.validator_panel
    assert not window.validator_dock.visibleRegion().isEmpty()
    assert sorted(i.text() for i in panel.findings.selectedItems()) == sorted(naming)
    shown: list[bool] = []

    def fake_exec(dialog: export_dialog.ExportDialog) -> int:
        shown.append(dialog.only_selection.isChecked())
        return 0

    monkeypatch.setattr(export_dialog.ExportDialog, "exec", fake_exec)
    _run(view, (1200, 300), "export_selection")
    assert shown == [True]
    window.actions_.export.trigger()  # File > Export starts on the whole design
    assert shown == [True, False]


def test_ungroup_from_the_frame_keeps_the_design_one_that_reopens(
    make_view, tmp_path
) -> None:
    """Issue 16, item 0: removing su01 on the enterprise sample made a file the
    loader refused ("physical.racks[0].group: unknown group 'su01'")."""
    from pathlib import Path

    from designer.io import load_design, save_design

    sample = Path(__file__).resolve().parents[3] / "samples"
    view = make_view(load_design(sample / "minimum-viable-enterprise.json"))
    doc = view.document
    QApplication.processEvents()
    menu = _run(view, _frame_header(view, "su01"), "ungroup")
    assert _action(menu, "ungroup").text() == "Ungroup SU 1"
    assert "su01" not in doc.design.group_map()
    assert {r.group for r in doc.design.physical.racks} == {None}
    assert len(doc.history.done) == 1  # one step
    path = tmp_path / "ungrouped.json"
    save_design(doc.design, path)
    assert load_design(path).model_dump() == doc.design.model_dump()
    doc.undo()
    assert "su01" in doc.design.group_map()
    assert [r.group for r in doc.design.physical.racks][:2] == ["su01", "su01"]
