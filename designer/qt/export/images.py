"""SVG and PNG images of the canvas drawing: the whole design or a selection."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QRectF, QSize
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator

from designer.core.model import Design
from designer.qt.canvas.offscreen import OffscreenRenderer
from designer.qt.export.drawing import Catalog, make_renderer, render_design

#: Size of the image in pixels (SVG user units) along its longer side.
DEFAULT_LONG_SIDE = 2400
#: Resolution the SVG declares. The drawing is in user units either way; this
#: sets the declared physical size, and pens and screen-sized text keep their
#: physical size, so 96 (the PNG's resolution) makes the SVG look like the PNG.
#: At 300 the same drawing is declared 3x smaller and its lines look 3x bolder.
SVG_DPI = 96


def _frame(design: Design, ids: set[str] | None, long_side: int) -> QSize:
    xs = [d.x for d in design.devices if ids is None or d.id in ids] or [0.0]
    ys = [d.y for d in design.devices if ids is None or d.id in ids] or [0.0]
    w = max(max(xs) - min(xs), 1.0) + 160
    h = max(max(ys) - min(ys), 1.0) + 120
    aspect = min(max(w / h, 0.5), 3.0)
    if aspect >= 1:
        return QSize(long_side, max(int(long_side / aspect), 200))
    return QSize(max(int(long_side * aspect), 200), long_side)


def _scope(
    renderer: OffscreenRenderer, selection_only: bool, ids: set[str] | None
) -> set[str] | None:
    if ids is not None:
        return set(ids)
    if selection_only:
        return set(renderer.selected_ids())
    return None


def _framed(
    design: Design,
    catalog: Catalog | None,
    renderer: OffscreenRenderer | None,
    selection_only: bool,
    ids: set[str] | None,
    long_side: int,
) -> tuple[OffscreenRenderer, set[str] | None, QSize]:
    """The renderer (made when none is given), the devices drawn (None: all) and
    the image size, as every format draws them."""
    if renderer is None:
        renderer = make_renderer(design, catalog)
    scope = _scope(renderer, selection_only, ids)
    return renderer, scope, _frame(design, scope, long_side)


def write_svg(
    path: str | os.PathLike[str],
    design: Design,
    catalog: Catalog | None = None,
    *,
    renderer: OffscreenRenderer | None = None,
    selection_only: bool = False,
    ids: set[str] | None = None,
    long_side: int = DEFAULT_LONG_SIDE,
) -> Path:
    """Write an SVG of the design (or of ``ids``) to ``path``."""
    out = Path(path)
    renderer, scope, size = _framed(
        design, catalog, renderer, selection_only, ids, long_side
    )
    gen = QSvgGenerator()
    gen.setFileName(str(out))
    gen.setSize(size)
    gen.setResolution(SVG_DPI)
    gen.setViewBox(QRectF(0, 0, size.width(), size.height()))
    gen.setTitle(design.settings.name)
    gen.setDescription(f"{design.settings.name}: GPU Cluster Designer drawing")
    _paint(QPainter(gen), size, renderer, scope)
    return out


def _paint(
    painter: QPainter,
    size: QSize,
    renderer: OffscreenRenderer,
    scope: set[str] | None,
) -> None:
    """Draw the design into ``painter`` with an 8-pixel margin, then end it."""
    try:
        render_design(
            painter,
            QRectF(8, 8, size.width() - 16, size.height() - 16),
            renderer,
            ids=scope,
        )
    finally:
        painter.end()


def render_image(
    design: Design,
    catalog: Catalog | None = None,
    *,
    renderer: OffscreenRenderer | None = None,
    selection_only: bool = False,
    ids: set[str] | None = None,
    long_side: int = DEFAULT_LONG_SIDE,
) -> QImage:
    """The drawing as an image on a white background."""
    renderer, scope, size = _framed(
        design, catalog, renderer, selection_only, ids, long_side
    )
    image = QImage(size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
    _paint(painter, size, renderer, scope)
    return image


def write_png(
    path: str | os.PathLike[str],
    design: Design,
    catalog: Catalog | None = None,
    *,
    renderer: OffscreenRenderer | None = None,
    selection_only: bool = False,
    ids: set[str] | None = None,
    long_side: int = DEFAULT_LONG_SIDE,
) -> Path:
    """Write a PNG of the design (or of ``ids``) to ``path``."""
    out = Path(path)
    image = render_image(
        design,
        catalog,
        renderer=renderer,
        selection_only=selection_only,
        ids=ids,
        long_side=long_side,
    )
    if not image.save(str(out), "PNG"):  # type: ignore[call-overload]
        raise OSError(f"{out}: cannot write the PNG file")
    return out
