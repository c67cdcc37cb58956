"""Undo history as a list: every step by its label; click one to go back or forward.

The toolbar's Undo and Redo stay short; the full text of each step is here
(wrapped, never cut) and in each row's tooltip.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from designer.core.document import Document
from designer.core.events import Event

_STEP_ROLE = Qt.ItemDataRole.UserRole


class HistoryPanel(QWidget):
    """Lists the document's history; the current state is the selected row."""

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.origin = "New design"  # the first row: where the design came from
        self.list = QListWidget()
        self.list.setObjectName("history")
        self.list.setWordWrap(True)  # long labels wrap instead of being cut
        self.list.setTextElideMode(Qt.TextElideMode.ElideNone)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.list)
        self.list.itemClicked.connect(self._on_clicked)
        #: (label, undone) of each row shown
        self._rows: list[tuple[str, bool]] = []
        document.subscribe(self._on_changes)
        self.refresh()

    def _on_changes(self, events: list[Event]) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Show the opened state, done steps, then undone steps.

        Row by row: an edit adds a row or greys one, and the rows before it
        stay as they are (clearing and refilling a long word-wrapped list on
        every edit costs more the longer the history).
        """
        history = self.document.history
        done = len(history.done)
        rows: list[tuple[str, bool]] = [(self.origin, False)]
        rows += [(command.label, False) for command in history.done]
        rows += [(command.label, True) for command in reversed(history.undone)]
        self.list.blockSignals(True)
        for k, row in enumerate(rows):
            if k < len(self._rows) and self._rows[k] == row:
                continue
            if k < self.list.count():
                self.list.takeItem(k)
            self.list.insertItem(k, _row_item(k, *row))
        while self.list.count() > len(rows):
            self.list.takeItem(len(rows))
        self._rows = rows
        self.list.setCurrentRow(done)
        self.list.blockSignals(False)

    def go_to(self, step: int) -> None:
        """Undo or redo until ``step`` commands are done."""
        history = self.document.history
        while len(history.done) > step and history.can_undo:
            self.document.undo()
        while len(history.done) < step and history.can_redo:
            self.document.redo()

    def _on_clicked(self, item: QListWidgetItem) -> None:
        self.go_to(int(item.data(_STEP_ROLE)))


def _row_item(step: int, label: str, undone: bool) -> QListWidgetItem:
    """Row ``step`` of the list: the opened state (step 0), a done or an
    undone step."""
    item = QListWidgetItem(label)
    item.setData(_STEP_ROLE, step)
    if step == 0:
        item.setToolTip(label)
    elif undone:
        item.setForeground(QBrush(QColor("#8a949e")))
        item.setToolTip(f"{label}\nUndone; click to redo up to this step")
    else:
        item.setToolTip(f"{label}\nClick to go back to after this step")
    return item
