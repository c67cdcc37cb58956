"""The main window: panels, menus, live metrics, undo/redo, selection wiring."""

from __future__ import annotations

from typing import Any

import pytest

from designer.analysis.report import Finding, Severity
from designer.core.device_commands import AddDevices, UpdateDevices
from designer.core.model import Device
from tests.qt.helpers import add_dgx, settle


@pytest.mark.slow
def test_window_has_every_panel_menu_and_status_field(main_window: Any) -> None:
    window = main_window()
    menus = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert menus == ["File", "Edit", "View", "Tools", "Design"]
    handles = window.actions_.menus
    assert [a.menu() for a in window.menuBar().actions()] == [
        handles.file,
        handles.edit,
        handles.view,
        handles.tools,
        handles.design,
    ]
    assert handles.recent in [a.menu() for a in handles.file.actions()]
    for dock in (
        window.palette_dock,
        window.properties_dock,
        window.validator_dock,
        window.charts_dock,
    ):
        assert dock.isVisible()
    redo_keys = {s.toString() for s in window.actions_.redo.shortcuts()}
    assert redo_keys == {"Ctrl+Shift+Z", "Ctrl+Y"}
    assert window.actions_.undo.shortcut().toString() == "Ctrl+Z"


@pytest.mark.slow
def test_metrics_change_after_an_edit(qtbot: Any, main_window: Any) -> None:
    window = main_window()
    first = settle(qtbot, window)
    assert first.gpus == 0
    add_dgx(window, 4)
    report = settle(qtbot, window)
    assert report.gpus == 32
    assert window.validator_panel.values["gpus"].text().startswith("32 in 4 nodes")
    assert window.gpus_label.text() == "GPUs: 32"
    charts = window.charts_panel
    assert charts.cost_unit == "millions"  # 4 DGX H100 at ~$270K each
    assert charts.cost_values[0] == report.cost_usd.compute / 1e6
    assert set(charts.tier_values) == set(report.tiers)


@pytest.mark.slow
def test_undo_redo_return_to_identical_models(qtbot: Any, main_window: Any) -> None:
    window = main_window()
    doc = window.document
    states = [doc.design.model_dump()]
    add_dgx(window, 3)
    states.append(doc.design.model_dump())
    doc.execute(UpdateDevices({"dgx-1": {"label": "renamed", "x": 7.0}}))
    states.append(doc.design.model_dump())
    doc.execute(
        AddDevices([Device(id="leaf-1", catalog_id="qm9700", label="leaf", y=100.0)])
    )
    states.append(doc.design.model_dump())
    undo, redo = window.actions_.undo, window.actions_.redo
    assert undo.text() == "&Undo"  # short: the toolbar never moves
    assert undo.toolTip() == "Undo Add leaf (Ctrl+Z)"
    for expected in reversed(states[:-1]):
        undo.trigger()
        assert doc.design.model_dump() == expected
    assert not undo.isEnabled()
    for expected in states[1:]:
        redo.trigger()
        assert doc.design.model_dump() == expected
    assert not redo.isEnabled()


@pytest.mark.slow
def test_finding_click_selects_its_items(qtbot: Any, main_window: Any) -> None:
    window = main_window()
    ids = add_dgx(window, 3)
    report = settle(qtbot, window)
    finding = Finding(
        code="TEST", severity=Severity.WARNING, message="two nodes", items=ids[:2]
    )
    window._on_report(report.model_copy(update={"findings": [finding]}))
    lst = window.validator_panel.findings
    assert lst.count() == 1
    rect = lst.visualItemRect(lst.item(0))
    from PySide6.QtCore import Qt

    qtbot.mouseClick(lst.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert sorted(window.canvas.selected_ids()) == ids[:2]


@pytest.mark.slow
def test_show_cut_toggle_colours_the_canvas(
    qtbot: Any, main_window: Any, monkeypatch: Any
) -> None:
    window = main_window()
    add_dgx(window, 2)
    report = settle(qtbot, window)
    calls: list[tuple[object, object]] = []
    monkeypatch.setattr(window.canvas, "set_cut", lambda a, b: calls.append((a, b)))
    window.validator_panel.cut_check.setChecked(True)
    assert window.actions_.show_cut.isChecked()
    assert calls[-1] == (set(report.bisection.side_a), set(report.bisection.cut_links))
    window.actions_.show_cut.setChecked(False)
    assert not window.validator_panel.cut_check.isChecked()
    assert calls[-1] == (None, None)


@pytest.mark.slow
def test_stale_results_are_dropped(qtbot: Any, main_window: Any) -> None:
    window = main_window()
    settle(qtbot, window)
    seen: list[int] = []
    window.runner.report_ready.connect(lambda r: seen.append(r.gpus))
    for i in range(5):
        add_dgx(window, 1, prefix=f"burst{i}")
        window.runner.run_now()  # start a job at once; the next edit makes it stale
    report = settle(qtbot, window)
    assert report.gpus == 40
    assert seen and all(g == 40 for g in seen)


@pytest.mark.slow
def test_palette_search_and_double_click_add(qtbot: Any, main_window: Any) -> None:
    window = main_window()
    palette = window.palette_panel
    palette.search.setText("qm9700")
    assert palette.visible_ids() == ["qm9700"]
    palette.search.setText("")
    assert "dgx-h100" in palette.visible_ids()
    palette.count_spin.setValue(3)
    palette.item_activated.emit("dgx-h100", palette.count())
    devices = window.document.design.devices
    assert [d.catalog_id for d in devices] == ["dgx-h100"] * 3
    assert len({d.id for d in devices}) == 3
    assert len(window.document.history.done) == 1


@pytest.mark.slow
def test_palette_drag_carries_catalog_mime(main_window: Any) -> None:
    import json

    from designer.qt.palette import CATALOG_MIME

    window = main_window()
    palette = window.palette_panel
    palette.count_spin.setValue(4)
    item = palette.find_item("qm9700")
    assert item is not None
    assert "64x400G IB" in item.text(0)
    mime = palette.tree.mimeData([item])
    payload = json.loads(bytes(mime.data(CATALOG_MIME).data()).decode("utf-8"))
    assert payload == {"catalog_id": "qm9700", "count": 4}


@pytest.mark.slow
def test_design_menu_actions_reach_the_canvas(
    main_window: Any, monkeypatch: Any
) -> None:
    from PySide6.QtWidgets import QInputDialog

    window = main_window()
    calls: list[tuple[str, object]] = []
    edits = window.canvas.edits
    for name in ("auto_layout", "wire_rail_optimized", "group_selection"):
        monkeypatch.setattr(
            edits, name, lambda *a, n=name: calls.append((n, a[0] if a else None))
        )
    monkeypatch.setattr(edits, "connect_all_to_all", lambda k: calls.append(("a2a", k)))
    monkeypatch.setattr(QInputDialog, "getInt", staticmethod(lambda *a, **k: (3, True)))
    actions = window.actions_
    actions.auto_layout.trigger()
    actions.rail.trigger()
    actions.group_su.trigger()
    actions.group_pod.trigger()
    actions.all_to_all.trigger()
    assert calls == [
        ("auto_layout", None),
        ("wire_rail_optimized", None),
        ("group_selection", "su"),
        ("group_selection", "pod"),
        ("a2a", 3),
    ]


@pytest.mark.slow
def test_select_all_and_tools(main_window: Any) -> None:
    window = main_window()
    ids = add_dgx(window, 3)
    window.actions_.select_all.trigger()
    assert sorted(window.canvas.selected_ids()) == ids
    assert window.selection_label.text() == "3 selected"
    window.actions_.tools["pan"].trigger()
    assert window.canvas.tool_name() == "pan"


@pytest.mark.slow
def test_export_opens_the_export_dialog_with_the_design(
    qtbot: Any, main_window: Any, monkeypatch: Any
) -> None:
    from designer.qt.export.dialog import ExportDialog

    window = main_window()
    ids = add_dgx(window, 2)
    report = settle(qtbot, window)
    window.canvas.select_ids(ids[:1], center=False)
    seen: list[ExportDialog] = []
    monkeypatch.setattr(ExportDialog, "exec", lambda self: seen.append(self) or 0)
    assert window.actions_.export.isEnabled()
    window.actions_.export.trigger()
    assert len(seen) == 1
    dialog = seen[0]
    assert dialog.design is window.document.design
    drawing = dialog.renderer()  # a scene of its own: the canvas's is never used
    assert drawing.scene is not window.canvas.design_scene
    assert drawing.selected_ids() == ids[:1] == dialog.selection
    assert dialog.report is report


@pytest.mark.slow
def test_history_panel_lists_steps_and_jumps(main_window: Any) -> None:
    window = main_window()
    doc = window.document
    start = doc.design.model_dump()
    add_dgx(window, 2)
    after_add = doc.design.model_dump()
    doc.execute(UpdateDevices({"dgx-0": {"label": "x"}}, label="Rename device"))
    panel = window.history_panel
    rows = [panel.list.item(i).text() for i in range(panel.list.count())]
    assert rows == ["New design", "Add 2 devices", "Rename device"]
    assert panel.list.currentRow() == 2
    panel.go_to(0)
    assert doc.design.model_dump() == start
    assert panel.list.currentRow() == 0
    panel.go_to(1)
    assert doc.design.model_dump() == after_add
    assert panel.list.count() == 3  # the undone step stays listed (greyed)


@pytest.mark.slow
def test_history_first_row_says_where_the_design_came_from(
    main_window: Any, tmp_path: Any
) -> None:
    from designer.generate import k_ary

    window = main_window()
    panel = window.history_panel
    assert panel.list.item(0).text() == "New design"
    path = tmp_path / "pod.json"
    assert window.save_to(path)
    assert window.open_path(path)
    assert panel.list.item(0).text() == "Opened pod.json"
    design = k_ary(4, catalog=window.catalog)
    window.adopt_generated(design)
    assert panel.list.item(0).text() == f"From template: {design.settings.name}"
    window.document.mark_clean()  # New would ask about the unsaved template
    window.new_design()
    assert panel.list.item(0).text() == "New design"
