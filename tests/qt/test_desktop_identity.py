"""The running app names itself the way the installed desktop entry expects."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QGuiApplication

ENTRY = Path(__file__).resolve().parents[2] / "packaging" / "cluster-designer.desktop"


def _keys() -> dict[str, str]:
    lines = ENTRY.read_text(encoding="utf-8").splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


@pytest.mark.slow
def test_the_window_matches_the_menu_entry() -> None:
    """Wayland: desktop file name; X11: WM_CLASS (the application name)."""
    assert QGuiApplication.desktopFileName() == ENTRY.stem
    assert QCoreApplication.applicationName() == _keys()["StartupWMClass"]
