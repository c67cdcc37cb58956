"""Drawing a design into any painter (PDF/SVG/PNG exports), with a scene of its own.

An :class:`OffscreenRenderer` builds a :class:`DesignScene` for a copy of the
design, made for exports from the start (no screen-only hints), and draws it
fitted to a target rect: the level of detail follows the painter's scale, a
design too big to show device by device is drawn as its quotient (group blocks
and trunks), and screen-sized text keeps its physical size whatever the dpi.
The editor's live scene is never switched into an export mode.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPainter, QTransform

from designer.catalog.schema import CatalogEntry
from designer.core.document import Document
from designer.core.model import Design
from designer.core.snapshot import copy
from designer.qt.canvas.items import REFERENCE_DPI
from designer.qt.canvas.scene import DesignScene
from designer.view.canvas import sizes as sz
from designer.view.canvas.device_labels import MIN_LABEL_PX
from designer.view.canvas.selection import Cut


def text_scale_of(painter: QPainter) -> float:
    """Device pixels per reference (96 dpi) pixel of the painter's device."""
    device = painter.device()
    dpi = device.logicalDpiY() if device is not None else 0
    return dpi / REFERENCE_DPI if dpi > 0 else 1.0


class OffscreenRenderer:
    """Draws one design (as of when it was made) for exports."""

    def __init__(
        self,
        design: Design,
        catalog: Mapping[str, CatalogEntry],
        *,
        selection: Iterable[str] = (),
        cut: Cut | None = None,
    ) -> None:
        self.design = design
        # a copy: the export does not follow later edits
        self.scene = DesignScene(Document(copy(design)), catalog, exporting=True)
        self._selected = list(selection)
        if cut is not None:
            self.scene.set_cut(set(cut.side_a), set(cut.links))

    def selected_ids(self) -> list[str]:
        """The selection the renderer was given (for "selection only")."""
        return list(self._selected)

    def design_rect(self) -> QRectF:
        """Bounding rect of what is drawn (devices, frames, blocks), no margin."""
        return self.scene.design_rect()

    def render(
        self,
        painter: QPainter,
        target: QRectF,
        *,
        selection_only: bool = False,
        ids: set[str] | None = None,
        labels: bool | None = None,
        source: QRectF | None = None,
        min_label_px: float | None = None,
    ) -> None:
        """Draw the design (or only ``ids``, or the selection) into ``target``.

        ``labels`` True always draws device labels (print), False never, None by
        the zoom rule; ``source`` (scene units) draws only that part of it
        (a strip of a wide unit), scaled to fit; ``min_label_px`` is the smallest
        device label in reference px (default: the screen's).
        """
        scene = self.scene
        wanted: set[str] | None = set(ids) if ids is not None else None
        if selection_only:
            chosen = set(self._selected)
            wanted = chosen if wanted is None else wanted & chosen
        g = scene.geometry
        # everything sized in screen pixels is scaled by dpi / 96 and every
        # screen-pixel threshold (level of detail, semantic zoom, label clutter)
        # is judged in 96 dpi pixels: the picture is the same at any resolution
        scale = text_scale_of(painter)
        # device pixels per painter unit (a PDF painter works in points)
        unit = painter.worldTransform().mapRect(QRectF(0, 0, 1, 1))
        per_px = (unit.width() or 1.0) / scale
        scene.text_scale = scale
        scene.device_labels = labels
        scene.min_label_px = min_label_px if min_label_px else MIN_LABEL_PX
        try:
            if wanted is not None:
                keep = scene.isolate(wanted)
                if source is None:
                    x0, y0, x1, y1 = g.bounds(np.nonzero(keep)[0])
                    source = QRectF(QPointF(x0, y0), QPointF(x1, y1)).adjusted(
                        -20, -20, 20, 20
                    )
            else:
                scene.isolate(None)
                source = scene.design_rect() if source is None else source
                iso = min(
                    target.width() / max(source.width(), 1e-9),
                    target.height() / max(source.height(), 1e-9),
                )
                scene.set_overview(scene.wants_overview(source, iso * per_px))
            mode = Qt.AspectRatioMode.KeepAspectRatio
            if scene.overview and source.width() > 0 and target.width() > 0:
                # the quotient of a long flat fabric is stretched vertically
                iso_h = source.width() * target.height() / target.width()
                new_h = max(
                    source.height() / sz.OVERVIEW_FILL,
                    iso_h / sz.OVERVIEW_MAX_STRETCH,
                )
                if new_h < iso_h:
                    c = source.center()
                    source = QRectF(
                        source.left(), c.y() - new_h / 2, source.width(), new_h
                    )
                    mode = Qt.AspectRatioMode.IgnoreAspectRatio
            sx = target.width() / max(source.width(), 1e-9)
            sy = target.height() / max(source.height(), 1e-9)
            if mode == Qt.AspectRatioMode.KeepAspectRatio:
                sx = sy = min(sx, sy)
            to_px = QTransform.fromScale(sx * per_px, sy * per_px)
            scene.declutter_labels(to_px, to_px.mapRect(source))
            scene.invalidate_links()
            scene.render(painter, target, source, mode)
        finally:
            if wanted is not None:
                scene.isolate(None)

    def close(self) -> None:
        """Stop following the copy (the scene is dropped with the renderer)."""
        self.scene.detach()
