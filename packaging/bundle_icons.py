"""Render the app icon (an SVG) into the hicolor theme's PNG sizes with Qt.

Desktops that do not read SVG icons, and the icon theme spec's required 48x48
fallback, need PNGs; they are made at build time from ``resources/icons/app.svg``
so the SVG stays the only drawn source. Usage: ``bundle_icons.py SVG HICOLOR_DIR``.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

NAME = "cluster-designer"
SIZES = (16, 24, 32, 48, 64, 128, 256)


def render(svg: Path, hicolor: Path, sizes: tuple[int, ...] = SIZES) -> list[Path]:
    """Write ``<size>x<size>/apps/NAME.png`` per size and ``scalable/apps/NAME.svg``."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    # Held in a local so the application outlives every painter below.
    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"{svg}: not an SVG that Qt can draw")
    written = []
    for size in sizes:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        dest = hicolor / f"{size}x{size}" / "apps" / f"{NAME}.png"
        dest.parent.mkdir(parents=True, exist_ok=True)
        if not image.save(str(dest), "PNG"):
            raise OSError(f"{dest}: cannot write the icon")
        written.append(dest)
    scalable = hicolor / "scalable" / "apps" / f"{NAME}.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(svg, scalable)
    written.append(scalable)
    return written


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: bundle_icons.py SVG HICOLOR_DIR")
    for path in render(Path(sys.argv[1]), Path(sys.argv[2])):
        print(path)
