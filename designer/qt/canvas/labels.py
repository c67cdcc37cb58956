"""Placing screen-sized text without collisions: block and frame titles, trunk labels.

Text on the canvas keeps its size on screen while blocks and frames scale with
the zoom, so where text goes is decided per zoom (and per export) by
:func:`place_labels`: group titles first (inside their block when they fit,
otherwise just above or beside it), then the labels of the biggest trunks, each
slid along its trunk to the first spot free of blocks and text already placed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QTransform
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from designer.qt.canvas import style as st
from designer.qt.canvas.items import fits_inside, font, render_options

if TYPE_CHECKING:
    from designer.qt.canvas.scene import DesignScene

#: Widest an outside title may be (reference pixels); longer lines are elided.
TITLE_MAX_PX = 300.0
#: Header bands at least this tall (reference pixels) carry the frame's name.
HEADER_TEXT_PX = 10.0
#: Where along its trunk a label may sit, in order of preference after its own.
TRUNK_SLOTS = (0.5, 0.2, 0.8, 0.1, 0.9)


_WRAP = int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap)


def trunk_fraction(k: int) -> float:
    """Preferred place of trunk ``k``'s label along it (neighbours staggered)."""
    return 0.35 if k % 2 else 0.65


class TitleItem(QGraphicsItem):
    """A group's name (and counts) at screen size, beside its block or frame."""

    def __init__(self) -> None:
        super().__init__()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setZValue(st.Z_DEVICE + 1)
        self.lines: list[tuple[str, QFont]] = []
        self._heights: list[float] = []
        self.size = (0.0, 0.0)
        self._rect = QRectF()

    def set_lines(self, lines: list[tuple[str, QFont]], wrap: float = 0.0) -> None:
        """Set the text, wrapped at ``wrap`` reference px (0: TITLE_MAX_PX)."""
        width = min(wrap or TITLE_MAX_PX, TITLE_MAX_PX)
        out = []
        w = h = 0.0
        for text, f in lines:
            fm = QFontMetricsF(f)
            box = fm.boundingRect(QRectF(0, 0, width, 1000), _WRAP, text)
            out.append((text, f, box.height()))
            w = max(w, box.width())
            h += box.height()
        self.lines = [(text, f) for text, f, _ in out]
        self._heights = [bh for _, _, bh in out]
        self.size = (w + 8, h + 4)

    def place(self, anchor: QPointF, offset: QRectF) -> None:
        """Put the text at ``offset`` (reference pixels) from the scene ``anchor``."""
        if offset != self._rect:
            self.prepareGeometryChange()
            self._rect = QRectF(offset)
        self.setPos(anchor)

    def boundingRect(self) -> QRectF:
        """Text rect in reference pixels around the anchor."""
        return self._rect

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionGraphicsItem,
        widget: QWidget | None = None,
    ) -> None:
        """Light badge with the title in bold and the counts below."""
        scale = render_options(self)[0]
        if scale != 1.0:
            painter.scale(scale, scale)  # device pixels: keep the physical size
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(255, 255, 255, 215))
        painter.drawRoundedRect(self._rect, 3, 3)
        y = self._rect.top() + 2
        for k, ((text, f), bh) in enumerate(
            zip(self.lines, self._heights, strict=True)
        ):
            painter.setFont(f)
            painter.setPen(st.TEXT if k == 0 else st.TEXT_MUTED)
            box = QRectF(self._rect.left() + 4, y, self._rect.width() - 8, bh)
            painter.drawText(box, _WRAP, text)
            y += bh


class _Devices:
    """Visible device boxes, sorted by x for fast rectangle tests."""

    def __init__(self, xy: np.ndarray, hidden: np.ndarray) -> None:
        pts = xy[~hidden] if hidden.shape[0] == xy.shape[0] else xy
        order = np.argsort(pts[:, 0], kind="stable") if pts.size else np.zeros(0, int)
        self.x = pts[order, 0] if pts.size else np.zeros(0)
        self.y = pts[order, 1] if pts.size else np.zeros(0)

    def hit(self, r: QRectF) -> bool:
        """True when a device box meets the scene rect ``r``."""
        hw, hh = st.DEVICE_W / 2, st.DEVICE_H / 2
        i0 = int(np.searchsorted(self.x, r.left() - hw, "left"))
        i1 = int(np.searchsorted(self.x, r.right() + hw, "right"))
        ys = self.y[i0:i1]
        return bool(((ys > r.top() - hh) & (ys < r.bottom() + hh)).any())


def _free(rect: QRectF, taken: list[QRectF]) -> bool:
    return not any(rect.intersects(t) for t in taken)


def place_labels(
    scene: DesignScene, transform: QTransform, bounds: QRectF | None = None
) -> None:
    """Lay out titles and trunk labels for ``transform`` (scene -> reference px).

    ``bounds`` (reference px) is the drawn area (an export's picture, or the
    window's visible part): titles outside blocks must lie within it, or they
    would be cut off at its edge.
    """
    used: set[tuple[str, str]] = set()
    isolated = scene._only_rows is not None
    blocks = [b for b in scene._block_items if b.isVisible()] if not isolated else []
    # blocks are drawn over trunks: a label half under one reads as garbage
    taken: list[QRectF] = [transform.mapRect(b.rect) for b in blocks]
    by_area = sorted(blocks, key=lambda b: -b.rect.width() * b.rect.height())
    for b in by_area:
        r = transform.mapRect(b.rect)
        outside = False
        if not fits_inside(r, b.text_lines(r.width())):
            title = scene.title_item(("block", b.key))
            lines = [(b.title, font("block")), (b.summary, font("normal"))]
            title_w = QFontMetricsF(font("block")).horizontalAdvance(b.title)
            # the natural width first, then wrapped to the block's own width
            for wrap in (0.0, max(r.width() - 8, title_w, 80.0)):
                title.set_lines(lines, wrap)
                w, h = title.size
                tl, tr = b.rect.topLeft(), b.rect.topRight()
                for anchor, offset in (
                    (tl, QRectF(0, -h - 3, w, h)),
                    (b.rect.bottomLeft(), QRectF(0, 3, w, h)),
                    (tr, QRectF(4, 0, w, h)),
                    (b.rect.bottomRight(), QRectF(4, -h, w, h)),
                    (tl, QRectF(-w - 4, 0, w, h)),
                ):
                    spot = offset.translated(transform.map(anchor))
                    if _free(spot, taken) and (bounds is None or bounds.contains(spot)):
                        title.place(anchor, offset)
                        taken.append(spot.adjusted(-2, -2, 2, 2))
                        used.add(("block", b.key))
                        outside = True
                        break
                if outside:
                    break
        if outside != b.title_outside:
            b.title_outside = outside
            b.update()
    if not isolated:
        _place_frame_titles(scene, transform, taken, used, bounds)
    for key, item in scene.titles().items():
        item.setVisible(key in used)
    _place_trunk_labels(scene, transform, taken, isolated)


def _place_frame_titles(
    scene: DesignScene,
    transform: QTransform,
    taken: list[QRectF],
    used: set[tuple[str, str]],
    bounds: QRectF | None,
) -> None:
    """Frame names: in the header band when it is tall enough, else at the corner."""
    frames = [f for f in scene._frame_items if f.isVisible()]
    if not frames:
        return
    rects = [transform.mapRect(f.rect) for f in frames]
    inverse, _ = transform.inverted()
    devices: _Devices | None = None
    for i in sorted(range(len(frames)), key=lambda i: -frames[i].depth):
        f = frames[i]
        header = transform.mapRect(f.header_rect())
        fm = QFontMetricsF(font("small"))
        if header.height() >= HEADER_TEXT_PX:
            text_w = fm.horizontalAdvance(f.title + "  \u25be") + 10
            taken.append(
                QRectF(header.topLeft(), header.bottomLeft()).adjusted(
                    0, 0, min(header.width(), text_w), 0
                )
            )
            continue
        title = scene.title_item(("frame", f.group_id))
        title.set_lines([(f.title, font("title"))])
        w, h = title.size
        if w > rects[i].width():
            continue  # the name would stick out of its frame: leave it out
        tl = f.rect.topLeft()
        for offset in (QRectF(0, -h - 1, w, h), QRectF(2, 2, w, h)):
            spot = offset.translated(transform.map(tl))
            if not _free(spot, taken) or (
                bounds is not None and not bounds.contains(spot)
            ):
                continue
            # inside or outside every other frame: never across a dashed line
            if any(
                j != i and spot.intersects(r) and not r.contains(spot)
                for j, r in enumerate(rects)
            ):
                continue
            if devices is None:
                devices = _Devices(scene._geom.xy, scene._hidden)
            if devices.hit(inverse.mapRect(spot)):
                continue
            title.place(tl, offset)
            taken.append(spot.adjusted(-2, -2, 2, 2))
            used.add(("frame", f.group_id))
            break


def _place_trunk_labels(
    scene: DesignScene, transform: QTransform, taken: list[QRectF], isolated: bool
) -> None:
    """Trunk labels, biggest trunks first, slid along the trunk to a free spot."""
    q = scene._quotient
    items = scene._trunk_items
    order = sorted(range(len(items)), key=lambda k: -q.trunks[k].capacity_gbps)
    for k in order:
        line, label = items[k]
        if isolated or not line.isVisible():
            label.setVisible(False)
            continue
        t = q.trunks[k]
        shown = False
        for f in (trunk_fraction(k), *TRUNK_SLOTS):
            pos = QPointF(
                t.p0[0] + f * (t.p1[0] - t.p0[0]), t.p0[1] + f * (t.p1[1] - t.p0[1])
            )
            rect = label.boundingRect().translated(transform.map(pos))
            if _free(rect, taken):
                label.setPos(pos)
                taken.append(rect.adjusted(-4, -2, 4, 2))
                shown = True
                break
        label.setVisible(shown)
