"""Paths to the shipped icons and style sheet, and cached icon lookup."""

from __future__ import annotations

from functools import cache

from PySide6.QtGui import QIcon

from designer.catalog.paths import resources_dir


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
