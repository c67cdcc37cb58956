"""File handling of the main window: open, save, save as, close, recent files.

The dialogs start where the user works: the last folder used (QSettings
``files/last_folder``) and a clean file name from the design's name
(:mod:`designer.io.filenames`).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QSettings, QStandardPaths
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from designer.core import formatting as fmt
from designer.core.model import Design
from designer.io import DesignFileError, load_design, save_design
from designer.io.export.cables import pinned_design
from designer.io.filenames import open_dialog_folder, save_dialog_path
from designer.qt import heap

if TYPE_CHECKING:
    from designer.analysis.report import Report
    from designer.catalog.loader import Catalog
    from designer.core.document import Document
    from designer.io.recovery import RecoveryEntry
    from designer.qt.autosave import Autosaver
    from designer.qt.canvas.view import CanvasView
    from designer.qt.history_panel import HistoryPanel

MAX_RECENT = 10
FILE_FILTER = "Cluster designs (*.json);;All files (*)"
LAST_FOLDER_KEY = "files/last_folder"


class FilesHost(Protocol):
    """What the file handling asks of the window it acts for (the main window
    provides it): the state every panel reads, and how to tell the user."""

    document: Document
    catalog: Catalog
    path: Path | None
    latest_report: Report | None
    headless: bool
    autosave: Autosaver
    canvas: CanvasView
    history_panel: HistoryPanel

    def display_name(self) -> str:
        """The design's name as the title bar shows it."""
        ...

    def update_title(self) -> None:
        """Show the file's name and whether it has unsaved changes."""
        ...

    def show_status(self, text: str) -> None:
        """A message in the status bar."""
        ...

    def set_show_cut(self, on: bool) -> None:
        """Show or hide the bisection cut on the canvas."""
        ...

    def dialog_parent(self) -> QWidget:
        """The widget dialogs are shown over."""
        ...


class WindowFiles:
    """Opening, saving and closing the design of a main window (``window.files``).

    The window keeps the state every panel reads (the document, the file's
    ``path``); this object is what the File menu does with them.
    """

    def __init__(self, window: FilesHost) -> None:
        self.window = window

    def last_folder(self) -> str | None:
        """The folder a design was last opened from or saved to."""
        value = QSettings().value(LAST_FOLDER_KEY)
        return str(value) if value else None

    def _remember_folder(self, path: Path) -> None:
        QSettings().setValue(LAST_FOLDER_KEY, str(path.resolve().parent))

    def recent_files(self) -> list[str]:
        """Recently opened or saved files, newest first."""
        value = QSettings().value("recent_files", [])
        if isinstance(value, str):
            return [value]
        return [str(v) for v in value] if isinstance(value, list) else []

    def _add_recent(self, path: Path) -> None:
        text = str(path.resolve())
        files = [text] + [f for f in self.recent_files() if f != text]
        QSettings().setValue("recent_files", files[:MAX_RECENT])

    def clear_recent_files(self) -> None:
        """Forget the recent files."""
        QSettings().setValue("recent_files", [])

    def maybe_save(self) -> bool:
        """Ask Save / Discard / Cancel when there are unsaved changes; True to go on."""
        if self.window.document.history.is_clean:
            return True
        answer = QMessageBox.question(
            self.window.dialog_parent(),
            "Unsaved changes",
            f"“{self.window.display_name()}” has unsaved changes. Save them first?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def _replace_design(self, design: Design, path: Path | None, origin: str) -> None:
        self.window.path = path
        self.window.autosave.path = path
        self.window.autosave.saved_at = _modified(path)
        self.window.set_show_cut(False)
        self.window.latest_report = None
        self.window.history_panel.origin = origin  # the reset below refreshes the list
        # every cable's ports chosen now (a generated design, a recovered one),
        # so no later edit of another link decides where they go
        design = pinned_design(design, self.window.catalog)
        self.window.document.reset(design)
        # The scene keeps no selection across designs; the status bar follows.
        self.window.canvas.select_ids([], center=False)
        self.window.canvas.fit_all()
        self.window.update_title()
        heap.settle_soon()  # the old design's objects go, the new one's freeze

    def new_design(self) -> None:
        """File > New (asks about unsaved changes)."""
        if self.maybe_save():
            self._replace_design(Design(), None, "New design")

    def close_design(self) -> bool:
        """File > Close: ask about unsaved changes, then leave an empty design."""
        name = self.window.display_name()
        if not self.maybe_save():
            return False
        self._replace_design(Design(), None, "New design")
        self.window.show_status(f"Closed {name}")
        return True

    def new_from_template(self) -> None:
        """File > New from Template: generate a design from a preset."""
        from designer.qt.template_dialog import TemplateDialog

        if not self.maybe_save():
            return
        dialog = TemplateDialog(self.window.catalog, self.window.dialog_parent())
        if dialog.exec() and dialog.design is not None:
            self.adopt_generated(dialog.design)

    def adopt_generated(self, design: Design) -> None:
        """Show a generated design as a new, unsaved document."""
        self._replace_design(design, None, f"From template: {design.settings.name}")
        self.window.document.mark_unsaved()  # never saved: closing asks
        self.window.autosave.sync()
        self.window.update_title()

    def restore_recovered(self, entry: RecoveryEntry) -> None:
        """Show a design recovered after a crash as an unsaved document."""
        assert entry.design is not None
        found = entry.manifest
        original = found.original_path if found is not None else None
        path = Path(original) if original else None
        self._replace_design(entry.design, path, f"Recovered {entry.name}")
        self.window.autosave.saved_at = found.saved_at if found is not None else None
        self.window.document.mark_unsaved()
        self.window.autosave.adopt(entry)  # the copy stays until saved or discarded
        self.window.update_title()
        self.window.show_status(f"Recovered {entry.name}: not saved yet")

    def open_dialog(self) -> None:
        """File > Open."""
        if not self.maybe_save():
            return
        start = open_dialog_folder(self.window.path, self.last_folder(), _documents())
        name, _ = QFileDialog.getOpenFileName(
            self.window.dialog_parent(), "Open design", str(start), FILE_FILTER
        )
        if name:
            self.open_path(name)

    def open_recent(self, path: str) -> None:
        """File > Open Recent > path."""
        if self.maybe_save():
            self.open_path(path)

    def open_path(self, path: str | Path) -> bool:
        """Load ``path`` without prompting; on failure explain and keep the design."""
        p = Path(path)
        try:
            design = load_design(p, catalog=self.window.catalog)
        except DesignFileError as exc:
            self._show_open_error(p, str(exc))
            return False
        self._replace_design(design, p, f"Opened {p.name}")
        self._add_recent(p)
        self._remember_folder(p)
        self.window.show_status(
            f"Opened {p.name}: {fmt.plural(len(design.devices), 'device')}"
        )
        return True

    def _show_open_error(self, path: Path, detail: str) -> None:
        self.window.show_status(f"Could not open {path.name}")
        if self.window.headless:
            print(f"cluster-designer: {detail}", file=sys.stderr)
            return
        QMessageBox.critical(
            self.window.dialog_parent(),
            "Cannot open design",
            f"“{path.name}” could not be opened; the current design is unchanged."
            f"\n\n{detail}",
        )

    def save(self) -> bool:
        """File > Save (asks for a name the first time)."""
        if self.window.path is None:
            return self.save_as()
        return self.save_to(self.window.path)

    def save_dialog_start(self) -> Path:
        """Where Save As starts: the design's file, else a clean name (from the
        design's name) in the last folder used."""
        return save_dialog_path(
            self.window.document.design.settings.name,
            self.window.path,
            self.last_folder(),
            _documents(),
        )

    def save_as(self) -> bool:
        """File > Save As."""
        start = str(self.save_dialog_start())
        name, _ = QFileDialog.getSaveFileName(
            self.window.dialog_parent(), "Save design", start, FILE_FILTER
        )
        if not name:
            return False
        p = Path(name)
        if not p.suffix:
            p = p.with_suffix(".json")
        return self.save_to(p)

    def save_to(self, path: str | Path) -> bool:
        """Write the design atomically to ``path``; explain failures."""
        p = Path(path)
        try:
            # checked against the catalog the window opens files with
            save_design(self.window.document.design, p, catalog=self.window.catalog)
        except (OSError, DesignFileError) as exc:
            QMessageBox.critical(
                self.window.dialog_parent(),
                "Cannot save design",
                f"“{p}” could not be written:\n\n{exc}",
            )
            return False
        self.window.path = p
        self.window.document.mark_clean()
        self.window.autosave.path, self.window.autosave.saved_at = p, time.time()
        self.window.autosave.sync()  # saved: the recovery copy goes
        self._add_recent(p)
        self._remember_folder(p)
        self.window.update_title()
        self.window.show_status(f"Saved {p.name}")
        return True


def _documents() -> Path:
    """The user's documents folder (home when there is none): the first start."""
    found = QStandardPaths.writableLocation(
        QStandardPaths.StandardLocation.DocumentsLocation
    )
    folder = Path(found) if found else Path.home()
    return folder if folder.is_dir() else Path.home()


def _modified(path: Path | None) -> float | None:
    """When ``path`` was last written (None when it is not there)."""
    try:
        return path.stat().st_mtime if path is not None else None
    except OSError:
        return None
