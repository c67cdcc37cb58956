"""Copying to the clipboard must not crash the app when it quits.

PySide6 segfaults at interpreter exit when the clipboard still owns a QMimeData
made in Python; the canvas releases it on ``aboutToQuit``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SCRIPT = textwrap.dedent(
    """
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication
    from designer.catalog import default_catalog
    from designer.core.document import Document
    from designer.core.model import Design, Device
    from designer.qt.canvas import CanvasView

    app = QApplication([])
    design = Design(devices=[Device(id="n1", catalog_id="dgx-h100", y=200),
                             Device(id="n2", catalog_id="dgx-h100", x=200, y=200)])
    view = CanvasView(Document(design), default_catalog())
    view.select_ids(["n1", "n2"], center=False)
    view.edits.copy_selection()
    assert QApplication.clipboard().mimeData().formats()
    QTimer.singleShot(0, app.quit)
    app.exec()
    print("quit cleanly")
    """
)


@pytest.mark.slow
def test_app_exits_cleanly_after_copy() -> None:
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "quit cleanly" in done.stdout
