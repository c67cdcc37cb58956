"""The history list follows the document row by row: an edit adds a row, an
undo greys one, and the rows before stay the very same items."""

from __future__ import annotations

from designer.core.device_commands import AddDevices
from designer.core.document import Document
from designer.core.model import Device
from designer.qt.history_panel import _STEP_ROLE, HistoryPanel


def _add(k: int) -> AddDevices:
    return AddDevices([Device(id=f"d{k}", catalog_id="dgx-h100", x=k * 100.0, y=0)])


def _rows(panel: HistoryPanel) -> list[tuple[str, int, bool]]:
    out = []
    for k in range(panel.list.count()):
        item = panel.list.item(k)
        grey = item.foreground().color().name() == "#8a949e"
        out.append((item.text(), item.data(_STEP_ROLE), grey))
    return out


def test_rows_follow_edits_undo_and_redo(qtbot: object) -> None:
    doc = Document()
    panel = HistoryPanel(doc)
    qtbot.addWidget(panel)  # type: ignore[attr-defined]
    for k in range(3):
        doc.execute(_add(k))
    assert [r[:2] for r in _rows(panel)] == [
        ("New design", 0),
        ("Add d0", 1),
        ("Add d1", 2),
        ("Add d2", 3),
    ]
    first = [panel.list.item(k) for k in range(3)]
    doc.undo()
    doc.undo()
    assert [r[2] for r in _rows(panel)] == [False, False, True, True]
    assert panel.list.currentRow() == 1
    assert [panel.list.item(k) for k in range(2)] == first[:2]  # kept, not rebuilt
    doc.redo()
    assert [r[2] for r in _rows(panel)] == [False, False, False, True]
    assert panel.list.currentRow() == 2
    doc.execute(_add(9))  # a new step drops the undone one
    assert [r[1:] for r in _rows(panel)] == [(k, False) for k in range(4)]
    assert panel.list.item(3).toolTip().startswith("Add d9\nClick to go back")
    panel.origin = "Opened pod.json"
    panel.refresh()
    assert _rows(panel)[0] == ("Opened pod.json", 0, False)
    panel.go_to(0)
    assert panel.list.currentRow() == 0 and len(doc.design.devices) == 0
    assert [r[2] for r in _rows(panel)] == [False, True, True, True]
