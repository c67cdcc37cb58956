"""Rendered exports: the PDF report, SVG and PNG drawings, and the Export dialog."""

from __future__ import annotations

import os
import sys

from PySide6.QtWidgets import QApplication

from designer.qt.export.drawing import make_renderer, render_design
from designer.qt.export.images import render_image, write_png, write_svg
from designer.qt.export.pdf import SECTIONS, write_pdf

__all__ = [
    "SECTIONS",
    "ensure_app",
    "make_renderer",
    "render_design",
    "render_image",
    "write_pdf",
    "write_png",
    "write_svg",
]


def ensure_app() -> QApplication:
    """The running QApplication, or a new one (offscreen when there is no display)."""
    app = QApplication.instance()
    if isinstance(app, QApplication):
        return app
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    return QApplication(sys.argv[:1])
