"""Exports draw with a scene of their own: the same picture at any dpi, forced
labels, no leftover state, and the editor's scene is never touched."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QGraphicsScene

from designer.core.document import Document
from designer.core.model import Design, Group, GroupKind, Tier
from designer.qt.canvas import DesignScene
from designer.qt.canvas.follower import SceneFollower
from designer.qt.canvas.offscreen import OffscreenRenderer
from tests.qt.canvas.helpers import dev
from tests.qt.canvas.synthetic import synthetic_fat_tree

W, H = 480, 240


def _design() -> Design:
    return Design(
        groups=[
            Group(id="su-1", label="Scalable unit one", kind=GroupKind.SU),
            Group(id="su-2", label="SU 2", kind=GroupKind.SU, collapsed=True),
        ],
        devices=[
            dev("node-a", "dgx-h100", 0, 120, group="su-1"),
            dev("node-b", "dgx-h100", 96, 120, group="su-1"),
            dev("leaf-1", "qm9700", 48, 0, Tier.LEAF, group="su-1"),
            dev("node-c", "dgx-h100", 300, 120, group="su-2"),
            dev("node-d", "dgx-h100", 380, 120, group="su-2"),
        ],
    )


def _render(
    scene: OffscreenRenderer,
    zoom: int,
    labels: bool | None = None,
    width: int = W,
    scaled_painter: bool = False,
) -> np.ndarray:
    """Render at ``zoom`` x the pixels and dpi, scaled back down to W x H.

    ``scaled_painter``: the target is given in 96 dpi units and the painter
    scales them to the device, as a PDF painter working in points does.
    """
    image = QImage(width * zoom, H * zoom, QImage.Format.Format_RGB32)
    image.setDotsPerMeterX(round(3780 * zoom))  # 96 dpi x zoom
    image.setDotsPerMeterY(round(3780 * zoom))
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    if scaled_painter:
        painter.scale(zoom, zoom)
        scene.render(painter, QRectF(0, 0, width, H), labels=labels)
    else:
        scene.render(painter, QRectF(0, 0, width * zoom, H * zoom), labels=labels)
    painter.end()
    small = image.scaled(
        width,
        H,
        Qt.AspectRatioMode.IgnoreAspectRatio,
        Qt.TransformationMode.SmoothTransformation,
    ).convertToFormat(QImage.Format.Format_Grayscale8)
    bits = small.constBits()
    rows = np.frombuffer(bits, np.uint8).reshape(H, small.bytesPerLine())
    return rows[:, :width].astype(float)


@pytest.fixture
def scene(catalog):
    s = OffscreenRenderer(_design(), catalog)
    yield s
    s.close()


@pytest.mark.slow
def test_render_does_not_depend_on_the_devices_dpi(scene) -> None:
    base = _render(scene, 1)
    # device labels, block text and frame titles are part of the picture
    assert np.abs(base - _render(scene, 1, labels=False)).mean() > 0.3
    for zoom, scaled in ((2, False), (4, False), (3, True)):
        diff = np.abs(_render(scene, zoom, scaled_painter=scaled) - base).mean()
        # what is left is anti-aliasing of outlines and glyphs (~0.7); fonts in
        # points (resolved with the device dpi) gave 2.6-3.4, and screen-sized
        # text not scaled by dpi / 96 gave 2.2
        assert diff < 1.2, (zoom, diff)


def test_labels_true_draws_device_labels_where_the_zoom_rule_would_not(
    scene,
) -> None:
    # a wide target: devices are ~4 px per 10 scene units, below the text level
    tiny = 60
    zoom_rule = _render(scene, 1, width=tiny)
    forced = _render(scene, 1, labels=True, width=tiny)
    never = _render(scene, 1, labels=False, width=tiny)
    assert np.array_equal(zoom_rule, never)
    assert not np.array_equal(forced, never)


def test_a_render_leaves_nothing_behind_for_the_next(scene) -> None:
    first = _render(scene, 1)
    _render(scene, 4, labels=True)
    image = QImage(100, 100, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    scene.render(painter, QRectF(0, 0, 100, 100), ids={"node-a"})
    painter.end()
    assert np.array_equal(_render(scene, 1), first)
    own = scene.scene
    assert own.exporting and own.item_for("node-b").isVisible()


def test_an_export_never_touches_the_editors_scene(catalog, monkeypatch) -> None:
    """The editor's scene is not switched into an export mode, isolated or
    re-laid out; the renderer draws a copy, so later edits do not reach it."""
    doc = Document(_design())
    live = DesignScene(doc, catalog)
    calls: list[str] = []
    for name in ("set_overview", "isolate", "declutter_labels", "render"):
        real = getattr(DesignScene, name)

        def spy(self, *args, _name=name, _real=real, **kwargs):
            if self is live:
                calls.append(_name)
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(DesignScene, name, spy)
    # what the scene's follower does for it (labels placed, structure redone)
    for name in ("place_labels", "refresh_structure", "flush"):
        real = getattr(SceneFollower, name)

        def follower_spy(self, *args, _name=name, _real=real, **kwargs):
            if self is live.follower:
                calls.append(f"follower.{_name}")
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(SceneFollower, name, follower_spy)
    renderer = OffscreenRenderer(doc.design, catalog, selection=["node-a"])
    before = _render(renderer, 1)
    _render(renderer, 2, labels=True)
    image = QImage(100, 100, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    renderer.render(painter, QRectF(0, 0, 100, 100), selection_only=True)
    painter.end()
    assert calls == [] and not live.exporting
    from designer.core.device_commands import RemoveDevices

    doc.execute(RemoveDevices(["node-a", "node-b"]))
    assert np.array_equal(_render(renderer, 1), before)
    live.detach()
    renderer.close()


def test_semantic_zoom_judges_device_pixels_through_the_painter_transform(
    catalog, monkeypatch
) -> None:
    # a long flat fabric: at 6000 device px wide a device is ~9 px (devices
    # drawn); a painter scaled 3x over a 2000-unit target is the same picture
    scene = OffscreenRenderer(synthetic_fat_tree(512, su_size=32, pod_sus=4), catalog)
    seen: list[bool] = []

    def spy(self, painter, target, source, mode):
        seen.append(self.overview)
        return QGraphicsScene.render(self, painter, target, source, mode)

    monkeypatch.setattr(DesignScene, "render", spy)
    for scale in (1, 3):
        image = QImage(6000, 120, QImage.Format.Format_RGB32)
        painter = QPainter(image)
        painter.scale(scale, scale)
        scene.render(painter, QRectF(0, 0, 6000 / scale, 120 / scale))
        painter.end()
    # and the whole fabric on a small picture is the quotient
    image = QImage(600, 120, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    scene.render(painter, QRectF(0, 0, 600, 120))
    painter.end()
    assert seen == [False, False, True]
    scene.close()


def test_link_layer_clips_its_strokes_to_what_the_device_shows(catalog) -> None:
    """Unclipped, the raster engine strokes the parts of long links past the
    device's edge too (twice the zoomed repaint time at 100K GPUs); the layer
    sets a clip when its painter has none, and leaves a given clip alone."""
    from PySide6.QtWidgets import QStyleOptionGraphicsItem

    s = DesignScene(Document(synthetic_fat_tree(64)), catalog)
    try:
        layer = s.state.links
        image = QImage(200, 100, QImage.Format.Format_RGB32)
        option = QStyleOptionGraphicsItem()
        option.exposedRect = layer.boundingRect()
        painter = QPainter(image)
        assert not painter.hasClipping()
        layer.paint(painter, option)
        assert painter.hasClipping()
        assert painter.clipBoundingRect().width() <= 204  # the device, not the scene
        painter.setClipRect(QRectF(0, 0, 50, 50))
        layer.paint(painter, option)
        assert painter.clipBoundingRect() == QRectF(0, 0, 50, 50)
        painter.end()
    finally:
        s.detach()
