"""Paths to the shipped icons and style sheet, and cached icon lookup."""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

from PySide6.QtGui import QIcon


def resources_dir() -> Path:
    """``resources/`` beside the ``designer`` package (or inside a frozen bundle)."""
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen) / "resources"
    return Path(__file__).resolve().parents[2] / "resources"


@cache
def icon(name: str) -> QIcon:
    """The icon ``resources/icons/<name>.svg`` (an empty icon when missing)."""
    path = resources_dir() / "icons" / f"{name}.svg"
    return QIcon(str(path)) if path.exists() else QIcon()


def style_sheet() -> str:
    """The application style sheet (empty when the file is missing)."""
    path = resources_dir() / "style.qss"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""
