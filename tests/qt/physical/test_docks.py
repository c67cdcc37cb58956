"""The rack docks in the window: tabbed with the validator, in the View menu;
New from Template comes placed."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from designer.qt.main_window import MainWindow
from designer.qt.template_dialog import KINDS, TemplateDialog
from tests.qt.helpers import settle


@pytest.mark.slow
@pytest.mark.parametrize(("width", "height"), [(1280, 800), (1920, 1080)])
def test_docks_share_the_validator_column_and_leave_the_canvas_half(
    qtbot: Any, width: int, height: int
) -> None:
    window = MainWindow()
    try:
        window.resize(width, height)
        window.show()
        qtbot.waitExposed(window)
        docks = window.physical_docks
        tabbed = window.tabifiedDockWidgets(window.validator_dock)
        assert docks.elevation_dock in tabbed and docks.floor_dock in tabbed
        for dock in (docks.elevation_dock, docks.floor_dock):
            dock.raise_()
            QApplication.processEvents()
            assert dock.widget().isVisible()
            assert window.canvas.width() >= 0.5 * width
    finally:
        window.document.mark_clean()
        window.close()


@pytest.mark.slow
def test_view_menu_toggles_the_docks(qtbot: Any, main_window: Any) -> None:
    window = main_window()
    view = window.actions_.menus.view
    toggles = {a.text(): a for a in view.actions() if a.isCheckable()}
    docks = window.physical_docks
    for title, dock in (
        ("Racks", docks.elevation_dock),
        ("Floor plan", docks.floor_dock),
    ):
        action = toggles[title]
        assert action.isChecked()
        action.trigger()
        assert not dock.isVisible() and not action.isChecked()
        action.trigger()
        assert dock.isVisible()


@pytest.mark.slow
def test_new_from_template_comes_placed(
    qtbot: Any, main_window: Any, monkeypatch: Any
) -> None:
    window = main_window()
    shown: list[TemplateDialog] = []

    def fake_exec(dialog: TemplateDialog) -> int:
        dialog.kind_combo.setCurrentIndex(KINDS.index("superpod"))
        dialog.sp_sus.setValue(1)
        dialog.update_preview()
        shown.append(dialog)
        return 1

    monkeypatch.setattr(TemplateDialog, "exec", fake_exec)
    window.actions_.new_template.trigger()
    design = window.document.design
    assert design.physical is not None
    assert all(d.placement is not None for d in design.devices)
    report = settle(qtbot, window)
    assert report.physical.placed and report.physical.racks == len(
        design.physical.racks
    )
    assert report.physical == shown[0].report.physical  # as previewed
    panel = window.physical_docks.elevation
    rows = [panel.choice.itemData(i) for i in range(panel.choice.count())]
    assert rows[1:] == [r.id for r in design.physical.rows]


@pytest.mark.slow
def test_a_row_of_one_rack_reads_singular(qtbot: Any, main_window: Any) -> None:
    """Issue 16, item 10: the Racks dock's row list said "(1 racks)"."""
    from pathlib import Path

    from designer.core.physical_commands import remove_racks
    from designer.io import load_design

    window = main_window()
    sample = Path(__file__).resolve().parents[3] / "samples"
    window.document.reset(load_design(sample / "minimum-viable-enterprise.json"))
    window.document.execute(remove_racks(window.document.design, ["mgmt-01"]))
    panel = window.physical_docks.elevation

    def texts() -> list[str]:
        return [panel.choice.itemText(i) for i in range(panel.choice.count())]

    qtbot.waitUntil(
        lambda: "storage and management (1 rack)" in texts(), timeout=20_000
    )
    assert "su01 (2 racks)" in texts(), texts()
