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
        document.subscribe(self._on_changes)
        self.refresh()

    def _on_changes(self, events: list[Event]) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Rebuild the list: the opened state, done steps, then undone steps."""
        history = self.document.history
        self.list.blockSignals(True)
        self.list.clear()
        first = QListWidgetItem(self.origin)
        first.setData(_STEP_ROLE, 0)
        self.list.addItem(first)
        first.setToolTip(self.origin)
        for i, command in enumerate(history.done, start=1):
            item = QListWidgetItem(command.label)
            item.setData(_STEP_ROLE, i)
            item.setToolTip(f"{command.label}\nClick to go back to after this step")
            self.list.addItem(item)
        grey = QBrush(QColor("#8a949e"))
        for j, command in enumerate(reversed(history.undone), start=1):
            item = QListWidgetItem(command.label)
            item.setData(_STEP_ROLE, len(history.done) + j)
            item.setForeground(grey)
            item.setToolTip(f"{command.label}\nUndone; click to redo up to this step")
            self.list.addItem(item)
        self.list.setCurrentRow(len(history.done))
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
