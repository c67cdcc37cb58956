"""Zoom of the canvas view: anchored under the mouse, fit at 100 % or less.

:class:`ZoomingView` is the base of :class:`~designer.qt.canvas.view.CanvasView`
that holds how the view scales and scrolls: a wheel step keeps the scene point
under the mouse where it is (to within half a pixel, the scroll bars' step),
the view may scroll a window's size beyond the scene so that holds at any zoom,
fitting never zooms in past 100 %, and the semantic zoom (overview or devices)
follows every change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QTransform, QWheelEvent
from PySide6.QtWidgets import QGraphicsView, QWidget

from designer.qt.canvas import style as st
from designer.view.canvas import sizes as sz

if TYPE_CHECKING:
    from designer.qt.canvas.scene import DesignScene

_MIN_SCALE = 1e-5
_MAX_SCALE = 8.0


FIT_MARGIN_PX = 28
"""Screen margin around a fitted rectangle: a frame title sits above its frame."""
FIT_MAX_SCALE = 1.0
"""Fitting never zooms in beyond 100 %: one device is not a window-sized box."""
WHEEL_STEP = 1.15
_ROOM_PX = 32.0
"""Scroll room (viewport px) kept around what is shown, beyond the scene."""
"""Zoom factor of one wheel notch."""


def _near(view: QGraphicsView, fixed: QPointF, at: QPointF) -> bool:
    """Whether ``fixed`` is drawn within a pixel of viewport position ``at``."""
    now = view.viewportTransform().map(fixed)
    return abs(now.x() - at.x()) <= 1.0 and abs(now.y() - at.y()) <= 1.0


def _at_least(rect: QRectF, w: float = 640.0, h: float = 400.0) -> QRectF:
    """``rect`` grown about its centre to at least ``w`` x ``h`` scene units."""
    c = rect.center()
    w, h = max(rect.width(), w), max(rect.height(), h)
    return QRectF(c.x() - w / 2, c.y() - h / 2, w, h)


class ZoomingView(QGraphicsView):
    """A graphics view over a DesignScene that zooms like a drawing tool.

    Signals: ``zoom_changed(scale)`` after every zoom or fit,
    ``refused(message)`` when a zoom cannot happen (nothing selected to zoom
    to; the canvas view shows why). The view owns ``scene`` (made its child).
    """

    zoom_changed = Signal(float)
    refused = Signal(str)

    def __init__(self, scene: DesignScene, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        scene.setParent(self)
        self.design_scene = scene
        self.setScene(scene)
        self._fitted = False
        """The view shows the whole design (fit_all) and has not been moved."""
        self._anchor: tuple[QPointF, QPointF] | None = None
        """(scene point, viewport position) the last zoom step pinned."""
        self._zoom_timer = QTimer(self)
        self._zoom_timer.setSingleShot(True)
        self._zoom_timer.setInterval(0)
        # scrolls, zooms and resizes of one event-loop turn share one update
        self._zoom_timer.timeout.connect(self._on_view_changed)
        self.horizontalScrollBar().valueChanged.connect(self._schedule_zoom_check)
        self.verticalScrollBar().valueChanged.connect(self._schedule_zoom_check)
        scene.sceneRectChanged.connect(lambda _r: self._room_to_scroll())

    def _schedule_zoom_check(self, *_: object) -> None:
        self._zoom_timer.start()

    def _on_view_changed(self) -> None:
        self._update_semantic_zoom()
        self.relabel()

    def relabel(self) -> None:
        """Place titles and trunk labels for the current zoom, inside the window."""
        self._zoom_timer.stop()
        t = self.transform()
        visible = self.mapToScene(self.viewport().rect()).boundingRect()
        bounds = t.mapRect(visible).adjusted(2, 2, -2, -2)
        self.design_scene.declutter_labels(t, bounds)

    # --- zoom and pan ---------------------------------------------------------

    def scale_factor(self) -> float:
        """Pixels per scene unit."""
        return float(self.transform().m11())

    def pick_tolerance(self) -> float:
        """Pick tolerance in scene units."""
        return st.PICK_PX / max(self.scale_factor(), _MIN_SCALE)

    def _zoom(self, factor: float, anchor: QPointF | None = None) -> None:
        """Scale by ``factor``, the scene point under viewport pixel ``anchor``
        (None: the centre) staying under it."""
        current = self.scale_factor()
        factor = max(_MIN_SCALE / current, min(_MAX_SCALE / current, factor))
        at = anchor if anchor is not None else QPointF(self.viewport().rect().center())
        fixed = self._scene_point(at)
        last = self._anchor
        if last is not None and last[1] == at and _near(self, last[0], at):
            # the same spot as the last step, the view not moved since: the
            # point it pinned, not the one half a pixel off that it shows, or
            # the rounding of every step would add up over a run of wheel notches
            fixed = last[0]
        self._anchor = (QPointF(fixed), QPointF(at))
        old = self.transformationAnchor()
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)
        self.scale(factor, factor)
        self.setTransformationAnchor(old)
        self._room_to_scroll(self._shown_with(fixed, at))
        self._pin(fixed, at)
        self._after_zoom((fixed, at))

    def _scene_point(self, at: QPointF) -> QPointF:
        """The scene point under viewport position ``at`` (sub-pixel exact)."""
        inverse, _ = self.viewportTransform().inverted()
        return inverse.map(at)

    def _pin(self, fixed: QPointF, at: QPointF) -> None:
        """Scroll so the scene point ``fixed`` is drawn at viewport position ``at``
        (to within half a pixel: scroll bars move by whole pixels)."""
        h, v = self.horizontalScrollBar(), self.verticalScrollBar()
        for _ in range(2):
            now = self.viewportTransform().map(fixed)
            dx, dy = round(now.x() - at.x()), round(now.y() - at.y())
            if not dx and not dy:
                break
            h.setValue(h.value() + dx)
            v.setValue(v.value() + dy)

    def _room_to_scroll(self, visible: QRectF | None = None) -> None:
        """Let the view scroll over the scene and ``visible`` (scene units; None:
        what is shown now), so a zoom can keep the point under the mouse where
        it is even when the scene is smaller than the window. The room follows
        the view: scrolling never leads further into empty space than that."""
        if visible is None:
            visible = self.mapToScene(self.viewport().rect()).boundingRect()
        # a little more than the window: were the room exactly its size, the
        # scroll bars would go, the window grow and the view shift by half a bar
        t = self.transform()
        mx = _ROOM_PX / max(t.m11(), _MIN_SCALE)
        my = _ROOM_PX / max(t.m22(), _MIN_SCALE)
        rect = self.design_scene.sceneRect().united(visible.adjusted(-mx, -my, mx, my))
        if rect != self.sceneRect():
            self.setSceneRect(rect)

    def _shown_with(self, fixed: QPointF, at: QPointF) -> QRectF:
        """The scene rect in view once ``fixed`` is drawn at viewport ``at``."""
        t = self.transform()
        sx, sy = max(t.m11(), _MIN_SCALE), max(t.m22(), _MIN_SCALE)
        vp = self.viewport().rect()
        return QRectF(
            fixed.x() - at.x() / sx, fixed.y() - at.y() / sy, vp.width() / sx,
            vp.height() / sy,
        )  # fmt: skip

    def _centred_on(self, centre: QPointF) -> None:
        """Scroll room for ``centre`` in the middle of the window, then centre it."""
        vp = self.viewport().rect()
        self._room_to_scroll(
            self._shown_with(centre, QPointF(vp.width() / 2, vp.height() / 2))
        )
        self.centerOn(centre)

    def _after_zoom(self, pinned: tuple[QPointF, QPointF] | None = None) -> None:
        self._update_semantic_zoom(pinned)
        self._zoom_timer.start()
        self.zoom_changed.emit(self.scale_factor())

    def _update_semantic_zoom(
        self, pinned: tuple[QPointF, QPointF] | None = None
    ) -> None:
        """Overview or devices for what is in view; ``pinned`` (scene point,
        viewport position) stays put if the overview's stretch is dropped."""
        rect = self.mapToScene(self.viewport().rect()).boundingRect()
        overview = self.design_scene.wants_overview(rect, self.scale_factor())
        t = self.transform()
        if not overview and abs(t.m22() - t.m11()) > 1e-9 * abs(t.m11()):
            # devices are drawn undistorted: drop the overview's vertical stretch
            centre = rect.center()
            self.setTransform(QTransform.fromScale(t.m11(), t.m11()))
            if pinned is not None:
                self._room_to_scroll(self._shown_with(*pinned))
                self._pin(*pinned)
            else:
                self._centred_on(centre)
            rect = self.mapToScene(self.viewport().rect()).boundingRect()
            overview = self.design_scene.wants_overview(rect, self.scale_factor())
        self.design_scene.set_overview(overview)

    def zoom_in(self) -> None:
        """Zoom in one step around the view centre."""
        self._zoom(1.25)

    def zoom_out(self) -> None:
        """Zoom out one step around the view centre."""
        self._zoom(0.8)

    def fit_all(self) -> None:
        """Show the whole design at 100 % or less (F, Ctrl+0; the overview of a
        long, flat fabric is stretched)."""
        scene = self.design_scene
        rect = scene.design_rect().adjusted(-30, -30, 30, 30)
        self._fitted = True
        if rect.width() <= 0 or rect.height() <= 0:
            self.zoom_to_rect(rect, FIT_MAX_SCALE)
            return
        vp = self.viewport().rect()
        iso = min(vp.width() / rect.width(), vp.height() / rect.height())
        if not scene.wants_overview(rect, iso):
            self.zoom_to_rect(rect, FIT_MAX_SCALE)
            return
        scene.set_overview(True)
        sx = 0.97 * vp.width() / rect.width()
        sy = min(
            sz.OVERVIEW_FILL * vp.height() / rect.height(),
            sx * sz.OVERVIEW_MAX_STRETCH,
        )
        self.setTransform(QTransform.fromScale(sx, max(sx, sy)))
        self._centred_on(rect.center())
        self._zoom_timer.start()
        self.zoom_changed.emit(self.scale_factor())

    def zoom_to_rect(self, rect: QRectF, max_scale: float = _MAX_SCALE) -> None:
        """Fit a scene rectangle into the view, with a margin of
        ``FIT_MARGIN_PX`` screen pixels (room for titles above frames), zooming
        in no further than ``max_scale``."""
        vp = self.viewport().rect()
        pad = FIT_MARGIN_PX
        w, h = vp.width() - 2 * pad, vp.height() - 2 * pad
        if rect.width() > 0 and rect.height() > 0 and w > 40 and h > 40:
            s = min(w / rect.width(), h / rect.height(), max_scale)
            self.setTransform(QTransform.fromScale(s, s))
            self._centred_on(rect.center())
        else:
            self.fitInView(
                rect.adjusted(-30, -30, 30, 30), Qt.AspectRatioMode.KeepAspectRatio
            )
            if self.scale_factor() > max_scale:
                self.setTransform(QTransform.fromScale(max_scale, max_scale))
            self._centred_on(rect.center())
        self._after_zoom()

    def wheelEvent(self, event: QWheelEvent) -> None:
        """Wheel zooms around the mouse: the point under it stays under it."""
        steps = event.angleDelta().y() / 120.0
        if steps:
            self._zoom(WHEEL_STEP**steps, event.position())
        event.accept()

    def zoom_to_ids(self, ids: list[str]) -> None:
        """Centre devices and links (their ends), zooming out until they show
        and in, from the overview, until they are devices."""
        target = self._ids_rect(ids)
        if target is None:
            return
        visible = self.mapToScene(self.viewport().rect()).boundingRect()
        if (
            self.design_scene.overview
            or target.width() > visible.width()
            or target.height() > visible.height()
        ):
            # zoom so the selection is seen as devices, not as a block
            self.zoom_to_rect(_at_least(target))
        else:
            self._centred_on(target.center())

    def zoom_to_selection(self) -> None:
        """Fit the selection into the window (context menu: Zoom to Selection)."""
        target = self._ids_rect(self.design_scene.selected_ids())
        if target is None:
            self.refused.emit("Nothing selected to zoom to.")
            return
        self.zoom_to_rect(_at_least(target))

    def _ids_rect(self, ids: list[str]) -> QRectF | None:
        """Bounds of the devices and link ends named (None: none of them)."""
        g = self.design_scene.geometry
        rows = {g.row_of[i] for i in ids if i in g.row_of}
        for k in g.link_rows(ids).tolist():
            rows.update((int(g.la[k]), int(g.lb[k])))
        if not rows:
            return None
        x0, y0, x1, y1 = g.bounds(np.asarray(sorted(rows), np.int64))
        return QRectF(QPointF(x0, y0), QPointF(x1, y1))
