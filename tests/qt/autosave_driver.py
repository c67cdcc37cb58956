"""Drives the real editor (``cluster-designer gui``) for the kill -9 test.

Usage (the test runs it; it is no part of the program)::

    python tests/qt/autosave_driver.py edit   REPORT.json FILE
    python tests/qt/autosave_driver.py recover REPORT.json

``edit`` starts the editor on FILE and, once the window is up, makes the edit of
:func:`make_edit` without saving, writes REPORT.json and keeps running (the test
kills it). ``recover`` starts the editor with no file, answers the recovery
dialog with Recover, writes what the dialog listed and what the window then
holds to REPORT.json, and quits without saving.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from designer.core.commands import Macro, SetSettings  # noqa: E402
from designer.core.device_commands import move_devices  # noqa: E402
from designer.core.document import Document  # noqa: E402

EDITED_NAME = "Edited before the kill"


def make_edit(document: Document) -> None:
    """The unsaved edit: move the first device, rename the design (two steps)."""
    design = document.design
    first = design.devices[0]
    document.execute(move_devices({first.id: (first.x + 480.0, first.y - 240.0)}))
    settings = design.settings.model_copy(update={"name": EDITED_NAME})
    document.execute(Macro("Rename design", [SetSettings(settings)]))


def _window() -> Any:
    from designer.qt.main_window import MainWindow

    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, MainWindow) and widget.isVisible():
            return widget
    return None


def _write(report: Path, data: dict[str, Any]) -> None:
    tmp = report.with_suffix(".part")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    tmp.replace(report)


def _edit(report: Path) -> None:
    window = _window()
    if window is None:
        QTimer.singleShot(20, lambda: _edit(report))
        return
    make_edit(window.document)
    _write(report, {"edited": True, "modified": window.isWindowModified()})


def _recover(report: Path) -> None:
    from designer.io import dumps_design
    from designer.qt.recovery_dialog import RecoveryDialog

    dialog = QApplication.activeModalWidget()
    if not isinstance(dialog, RecoveryDialog):
        QTimer.singleShot(20, lambda: _recover(report))
        return
    rows = [[item.text(c) for c in range(5)] for item in dialog.items]
    dialog.recover_button.click()

    def after() -> None:
        window = _window()
        _write(
            report,
            {
                "rows": rows,
                "design": dumps_design(window.document.design),
                "modified": window.isWindowModified(),
                "clean_index": window.document.history.clean_index,
                "origin": window.history_panel.list.item(0).text(),
                "path": str(window.path) if window.path else None,
            },
        )
        for widget in QApplication.topLevelWidgets():
            if hasattr(widget, "document"):
                widget.document.mark_clean()  # quit without the save question
                widget.close()

    QTimer.singleShot(0, after)


def main() -> int:
    """Start the editor with the driver's timers queued."""
    mode, report = sys.argv[1], Path(sys.argv[2])
    from designer.cli.main import main as cli
    from designer.qt.app import ensure_app

    ensure_app()  # run_gui reuses it; the timers below run once its loop starts
    if mode == "edit":
        QTimer.singleShot(0, lambda: _edit(report))
        return cli(["gui", sys.argv[3]])
    QTimer.singleShot(0, lambda: _recover(report))
    return cli(["gui"])


if __name__ == "__main__":
    sys.exit(main())
