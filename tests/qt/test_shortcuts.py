"""Keyboard shortcuts reach the window's actions (one step each, no ambiguity)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt

from tests.qt.helpers import add_dgx


def _focus_canvas(qtbot: Any, window: Any) -> None:
    window.activateWindow()
    window.canvas.setFocus()
    qtbot.waitUntil(lambda: window.canvas.hasFocus(), timeout=2000)


@pytest.mark.slow
def test_undo_redo_keys(qtbot: Any, main_window: Any) -> None:
    window = main_window()
    add_dgx(window, 2)
    add_dgx(window, 1, prefix="more")
    _focus_canvas(qtbot, window)
    ctrl = Qt.KeyboardModifier.ControlModifier
    qtbot.keyClick(window.canvas, Qt.Key.Key_Z, ctrl)
    assert len(window.document.design.devices) == 2
    qtbot.keyClick(
        window.canvas, Qt.Key.Key_Z, ctrl | Qt.KeyboardModifier.ShiftModifier
    )
    assert len(window.document.design.devices) == 3
    qtbot.keyClick(window.canvas, Qt.Key.Key_Z, ctrl)
    qtbot.keyClick(window.canvas, Qt.Key.Key_Y, ctrl)
    assert len(window.document.design.devices) == 3


@pytest.mark.slow
def test_delete_key_deletes_the_selection_once(qtbot: Any, main_window: Any) -> None:
    window = main_window()
    ids = add_dgx(window, 3)
    _focus_canvas(qtbot, window)
    window.canvas.select_ids(ids[:1], center=False)
    steps = len(window.document.history.done)
    qtbot.keyClick(window.canvas, Qt.Key.Key_Delete)
    assert [d.id for d in window.document.design.devices] == ids[1:]
    assert len(window.document.history.done) == steps + 1


@pytest.mark.slow
def test_tool_letters_do_not_fire_while_typing_elsewhere(
    qtbot: Any, main_window: Any
) -> None:
    window = main_window()
    tree = window.palette_panel.tree
    window.activateWindow()
    tree.setFocus()
    qtbot.waitUntil(lambda: tree.hasFocus(), timeout=2000)
    qtbot.keyClick(tree, Qt.Key.Key_C)  # type-ahead in the palette
    assert window.canvas.tool_name() == "select"
    _focus_canvas(qtbot, window)
    qtbot.keyClick(window.canvas, Qt.Key.Key_C)
    assert window.canvas.tool_name() == "connect"
    assert window.actions_.tools["connect"].isChecked()
    qtbot.keyClick(window.canvas, Qt.Key.Key_S)
    assert window.canvas.tool_name() == "select"
