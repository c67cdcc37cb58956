"""Desktop habits of the window: a toolbar that never moves, file dialogs that
start where the user works, File > Close, and a status bar that follows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from designer.core.device_commands import AddDevices
from designer.core.model import Device
from designer.generate import fat_tree as make_fat_tree
from tests.qt.helpers import add_dgx

Button = QMessageBox.StandardButton
LONG = "Add x86 management / head node (BCM, Slurm controller)"


def _add_head_node(window: Any) -> None:
    """One step whose label is as long as the catalog makes it."""
    device = Device(id="head-1", catalog_id="head-node", label="head", y=300.0)
    command = AddDevices([device])
    command.label = LONG
    window.document.execute(command)


def _toolbar_texts(window: Any) -> list[str]:
    bar = window.actions_.toolbar
    return [a.iconText() for a in bar.actions() if not a.isSeparator()]


@pytest.mark.slow
def test_undo_and_redo_stay_short_and_tooltips_carry_the_step(
    main_window: Any,
) -> None:
    window = main_window()
    before = _toolbar_texts(window)
    _add_head_node(window)
    QApplication.processEvents()
    undo, redo = window.actions_.undo, window.actions_.redo
    assert _toolbar_texts(window) == before
    assert undo.text() == "&Undo" and undo.iconText() == "Undo"
    assert undo.toolTip() == f"Undo {LONG} (Ctrl+Z)"
    assert undo.statusTip() == f"Undo {LONG}"
    assert redo.toolTip().startswith("Nothing to redo")
    undo.trigger()
    assert redo.text() == "&Redo"
    assert redo.toolTip().startswith(f"Redo {LONG} (")
    assert undo.toolTip().startswith("Nothing to undo")
    # The History tab names the step in full, wrapped, with a tooltip.
    rows = window.history_panel.list
    assert rows.wordWrap()
    assert rows.item(1).text() == LONG
    assert rows.item(1).toolTip().startswith(LONG)


@pytest.mark.slow
def test_show_bisection_cut_stays_on_the_toolbar_at_1280(
    qtbot: Any, main_window: Any
) -> None:
    window = main_window()
    window.resize(1280, 800)
    _add_head_node(window)
    qtbot.waitUntil(lambda: window.width() == 1280)
    QApplication.processEvents()
    bar = window.actions_.toolbar
    button = bar.widgetForAction(window.actions_.show_cut)
    assert button is not None and button.isVisible()
    assert button.geometry().right() <= bar.width()
    undo_button = bar.widgetForAction(window.actions_.undo)
    assert undo_button.width() < 120  # "Undo", not the whole step


@pytest.mark.slow
def test_save_as_starts_in_the_last_folder_with_a_clean_name(
    main_window: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    window = main_window()
    folder = tmp_path / "designs"
    folder.mkdir()
    assert window.save_to(folder / "first.json")
    assert QSettings().value("files/last_folder") == str(folder.resolve())
    design = make_fat_tree("dgx-h100", 64, "qm9700", catalog=window.catalog)
    window.adopt_generated(design)
    assert design.settings.name.startswith("Fat tree: 64 x DGX H100")
    asked: list[str] = []
    target = folder / "chosen.json"

    def fake_save(parent: Any, title: str, start: str, filt: str) -> Any:
        asked.append(start)
        return str(target), filt

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(fake_save))
    assert window.files.save_as()
    assert asked == [
        str(folder.resolve() / "fat-tree-64x-dgx-h100-on-quantum-2-qm9700.json")
    ]
    assert target.exists() and window.path == target
    # Save As of a saved design starts at its file.
    assert window.files.save_dialog_start() == target


@pytest.mark.slow
def test_open_starts_in_the_last_folder(
    main_window: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    window = main_window()
    folder = tmp_path / "kept"
    folder.mkdir()
    assert window.save_to(folder / "a.json")
    second = main_window()  # a new window, no file of its own
    asked: list[str] = []

    def fake_open(parent: Any, title: str, start: str, filt: str) -> Any:
        asked.append(start)
        return "", filt

    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(fake_open))
    second.files.open_dialog()
    assert asked == [str(folder.resolve())]


@pytest.mark.slow
def test_file_close_asks_and_leaves_an_empty_design(
    main_window: Any, monkeypatch: Any, tmp_path: Path
) -> None:
    window = main_window()
    assert window.save_to(tmp_path / "pod.json")
    add_dgx(window, 2)
    answers = [Button.Cancel]
    monkeypatch.setattr(
        QMessageBox, "question", staticmethod(lambda *a, **k: answers[0])
    )
    close = window.actions_.close
    assert "Close" in close.text() and close.shortcut().toString() == "Ctrl+W"
    assert close in window.actions_.menus.file.actions()
    close.trigger()
    assert len(window.document.design.devices) == 2  # cancelled: kept
    assert window.path == tmp_path / "pod.json"
    answers[0] = Button.Discard
    close.trigger()
    assert window.document.design.devices == []
    assert window.path is None
    assert not window.isWindowModified()
    assert window.windowTitle().startswith("Untitled design[*]")
    assert window.history_panel.list.count() == 1


@pytest.mark.slow
@pytest.mark.parametrize("how", ["template", "open", "close"])
def test_status_bar_forgets_the_selection_when_the_design_changes(
    main_window: Any, tmp_path: Path, monkeypatch: Any, how: str
) -> None:
    window = main_window()
    ids = add_dgx(window, 2)
    saved = tmp_path / "two.json"
    assert window.save_to(saved)
    window.canvas.select_ids(ids[:1], center=False)
    assert window.selection_label.text() == "1 selected"
    if how == "template":
        window.adopt_generated(
            make_fat_tree("dgx-h100", 8, "qm9700", catalog=window.catalog)
        )
    elif how == "open":
        assert window.open_path(saved)  # the same ids come back: still none selected
    else:
        assert window.files.close_design()
    assert window.selection_label.text() == ""
    assert window.canvas.selected_ids() == []
