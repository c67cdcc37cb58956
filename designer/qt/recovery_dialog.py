"""After a crash: list the recovery copies left behind; recover or discard them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QPainter
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from designer.io.recovery import RecoveryEntry, local_time
from designer.qt import autosave

if TYPE_CHECKING:
    from designer.qt.main_window import MainWindow

COLUMNS = (
    "Design",
    "Changes since last save",
    "Copy taken",
    "Last saved",
    "Original file",
)
DESIGN, CHANGES, COPIED, SAVED, ORIGINAL = range(len(COLUMNS))


class Choice(Enum):
    """What the user chose in the dialog."""

    RECOVER = "recover"
    DISCARD = "discard"
    LATER = "later"


def describe_changes(entry: RecoveryEntry) -> str:
    """ "3 changes: Move, Add DGX H100, Rename" (or why the copy cannot be used)."""
    m = entry.manifest
    if m is None:
        return "unknown"
    head = f"{m.steps:,} change" + ("" if m.steps == 1 else "s")
    if m.saved_at is None:
        head += " (never saved)"
    return head + (": " + ", ".join(m.labels) if m.labels else "")


def _intro(entries: Sequence[RecoveryEntry]) -> str:
    good = sum(1 for e in entries if e.recoverable)
    bad = len(entries) - good
    text = "GPU Cluster Designer did not close normally. "
    if good:
        text += f"{good:,} design" + (" has" if good == 1 else "s have")
        text += " unsaved changes that can be recovered (as unsaved documents). "
    if bad:
        text += f"{bad:,} recovery cop" + ("y" if bad == 1 else "ies")
        text += " cannot be read; tick and discard to delete."
    return text.strip()


class _ElideMiddle(QStyledItemDelegate):
    """Elides in the middle (``/home/…/design.json``)."""

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: Any
    ) -> None:
        """Paint as Qt does, with middle elision."""
        middle = QStyleOptionViewItem(option)
        middle.textElideMode = Qt.TextElideMode.ElideMiddle
        super().paint(painter, middle, index)


class RecoveryDialog(QDialog):
    """Lists the copies; Recover restores the checked ones, Discard deletes them,
    Later keeps them all for the next start."""

    def __init__(
        self, entries: Sequence[RecoveryEntry], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Recover unsaved designs")
        self.entries = list(entries)
        self.choice = Choice.LATER
        intro = QLabel(_intro(self.entries))
        intro.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setObjectName("recoveryList")
        self.tree.setColumnCount(len(COLUMNS))
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.items: list[QTreeWidgetItem] = []
        for entry in self.entries:
            self.items.append(self._add(entry))
        # Long names, labels and paths are elided (in full in the tool tips),
        # so every column stays on screen; a path keeps its both ends.
        self._elide = _ElideMiddle(self.tree)
        self.tree.setItemDelegateForColumn(ORIGINAL, self._elide)
        header = self.tree.header()
        header.setStretchLastSection(True)
        for column in (COPIED, SAVED):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.resizeSection(DESIGN, 220)
        header.resizeSection(CHANGES, 300)
        buttons = QDialogButtonBox()
        self.recover_button = QPushButton("&Recover Checked")
        self.discard_button = QPushButton("&Discard Checked")
        self.later_button = QPushButton("Decide &Later")
        buttons.addButton(self.recover_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(
            self.discard_button, QDialogButtonBox.ButtonRole.DestructiveRole
        )
        buttons.addButton(self.later_button, QDialogButtonBox.ButtonRole.RejectRole)
        self.recover_button.clicked.connect(lambda: self._done(Choice.RECOVER))
        self.discard_button.clicked.connect(lambda: self._done(Choice.DISCARD))
        self.later_button.clicked.connect(lambda: self._done(Choice.LATER))
        self.recover_button.setDefault(True)
        self.tree.itemChanged.connect(lambda *_: self._update_buttons())
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.tree)
        layout.addWidget(buttons)
        self.resize(1040, 360)
        self._update_buttons()

    def _add(self, entry: RecoveryEntry) -> QTreeWidgetItem:
        m = entry.manifest
        # Plain-text items only: a hostile name or path is shown, never interpreted.
        texts = [""] * len(COLUMNS)
        texts[DESIGN] = entry.name
        texts[CHANGES] = describe_changes(entry)
        texts[COPIED] = local_time(m.copied_at if m is not None else entry.modified)
        texts[SAVED] = local_time(m.saved_at) if m is not None and m.saved_at else "–"
        texts[ORIGINAL] = (
            (m.original_path or "never saved") if m is not None else "unknown"
        )
        item = QTreeWidgetItem(texts)
        for column, text in enumerate(texts):
            item.setToolTip(column, text)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(
            0, Qt.CheckState.Checked if entry.recoverable else Qt.CheckState.Unchecked
        )
        self.tree.addTopLevelItem(item)
        if entry.problems:
            text = "\n".join(entry.problems)
            if not entry.recoverable:
                text = "Cannot be recovered (Discard deletes it):\n" + text
            note = QTreeWidgetItem([text])
            note.setFlags(Qt.ItemFlag.ItemIsEnabled)
            note.setForeground(0, QBrush(QColor("#b3261e")))
            item.addChild(note)
            note.setFirstColumnSpanned(True)
            item.setExpanded(True)
            item.setToolTip(DESIGN, text)
        return item

    def checked(self) -> list[RecoveryEntry]:
        """The entries whose box is ticked."""
        return [
            e
            for e, item in zip(self.entries, self.items, strict=True)
            if item.checkState(0) == Qt.CheckState.Checked
        ]

    def set_checked(self, entry: RecoveryEntry, on: bool) -> None:
        """Tick or clear the box of ``entry``."""
        item = self.items[self.entries.index(entry)]
        item.setCheckState(0, Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    def _update_buttons(self) -> None:
        checked = self.checked()
        self.recover_button.setEnabled(any(e.recoverable for e in checked))
        self.discard_button.setEnabled(bool(checked))

    def _done(self, choice: Choice) -> None:
        self.choice = choice
        if choice is Choice.LATER:
            self.reject()
        else:
            self.accept()


def find_recoverable(window: MainWindow) -> list[RecoveryEntry]:
    """Copies left by editors that are no longer running, each loaded."""
    QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
    try:
        return autosave.store().entries(window.catalog)
    except OSError:  # no application-data folder: nothing was ever written
        return []
    finally:
        QGuiApplication.restoreOverrideCursor()


def offer_recovery(
    window: MainWindow, new_window: Callable[[], MainWindow]
) -> list[MainWindow]:
    """Ask what to do with copies left by a crash; return the windows restored into.

    The first copy goes into ``window`` when it holds nothing yet (no file, no
    edits, no devices); every other one into a window from ``new_window()``.
    """
    entries = find_recoverable(window)
    if not entries:
        return []
    dialog = RecoveryDialog(entries, window)
    dialog.exec()
    target = autosave.store()
    if dialog.choice is Choice.DISCARD:
        failed = []
        for entry in dialog.checked():
            try:
                target.discard(entry)
            except OSError as exc:
                failed.append(f"{entry.name}: {exc}")
        if failed:
            QMessageBox.warning(
                window,
                "Recovery copies not deleted",
                "These copies could not be deleted and will be offered again:\n\n"
                + "\n".join(failed),
            )
        return []
    if dialog.choice is not Choice.RECOVER:
        return []
    restored: list[MainWindow] = []
    for entry in dialog.checked():
        if not entry.recoverable:
            continue
        pristine = (
            window.path is None
            and window.document.history.is_clean
            and not window.document.history.done
            and not window.document.design.devices
            and window not in restored
        )
        into = window if pristine else new_window()
        into.restore_recovered(entry)
        restored.append(into)
    return restored
