"""Placing screen-sized text without collisions: block and frame titles, trunk labels.

Text on the canvas keeps its size on screen while blocks and frames scale with
the zoom, so where text goes is decided per zoom (and per export) by
:func:`place_labels`: group titles first (inside their block when they fit,
otherwise just above or beside it), then the labels of the biggest trunks, each
slid along its trunk to the first spot free of blocks and text already placed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QTransform
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from designer.qt.canvas import style as st
from designer.qt.canvas.items import font, render_options
from designer.view.canvas import sizes as sz
from designer.view.canvas.trunk_overlap import own_ends

if TYPE_CHECKING:
    from PySide6.QtWidgets import QGraphicsLineItem

    from designer.qt.canvas.items import BlockItem, FrameItem, LabelItem
    from designer.view.canvas.quotient import Trunk

#: Widest an outside title may be (reference pixels); longer lines are elided.
TITLE_MAX_PX = 300.0
#: Header bands at least this tall (reference pixels) carry the frame's name.
HEADER_TEXT_PX = 10.0
#: Where along its trunk a label may sit, in order of preference after its own.
TRUNK_SLOTS = (0.5, 0.2, 0.8, 0.1, 0.9)
#: Step (reference px) and most places tried walking from a trunk's own end.
TRUNK_WALK_PX = 6.0
TRUNK_WALK_MAX = 120


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
        hw, hh = sz.DEVICE_W / 2, sz.DEVICE_H / 2
        i0 = int(np.searchsorted(self.x, r.left() - hw, "left"))
        i1 = int(np.searchsorted(self.x, r.right() + hw, "right"))
        ys = self.y[i0:i1]
        return bool(((ys > r.top() - hh) & (ys < r.bottom() + hh)).any())


class _Taken(list[QRectF]):
    """Rects already used, with a numpy copy for C-speed collision tests."""

    def __init__(self, rects: list[QRectF]) -> None:
        super().__init__(rects)
        self._box = np.full((max(64, 2 * len(rects)), 4), np.nan)
        self._n = 0
        for r in rects:
            self._store(r)

    def _store(self, r: QRectF) -> None:
        if self._n == self._box.shape[0]:
            self._box = np.concatenate((self._box, np.full_like(self._box, np.nan)))
        x0, x1 = sorted((r.left(), r.left() + r.width()))
        y0, y1 = sorted((r.top(), r.top() + r.height()))
        # a null rect meets nothing (QRectF.intersects): NaN compares false
        if x0 != x1 and y0 != y1:
            self._box[self._n] = (x0, x1, y0, y1)
        self._n += 1

    def append(self, r: QRectF) -> None:
        """Take one more rect."""
        super().append(r)
        self._store(r)

    def extend(self, rects: Iterable[QRectF]) -> None:
        """Take several rects."""
        for r in rects:
            self.append(r)

    def meets(self, r: QRectF) -> bool:
        """``any(r.intersects(t) for t in self)``, vectorised."""
        x0, x1 = sorted((r.left(), r.left() + r.width()))
        y0, y1 = sorted((r.top(), r.top() + r.height()))
        if x0 == x1 or y0 == y1 or self._n == 0:
            return False
        b = self._box[: self._n]
        return bool(
            ((x0 < b[:, 1]) & (b[:, 0] < x1) & (y0 < b[:, 3]) & (b[:, 2] < y1)).any()
        )


def _free(rect: QRectF, taken: list[QRectF]) -> bool:
    if isinstance(taken, _Taken) and len(taken) > 12:
        return not taken.meets(rect)
    return not any(rect.intersects(t) for t in taken)


def _coords(r: QRectF) -> tuple[float, float, float, float]:
    return (r.x(), r.y(), r.width(), r.height())


def _transform_key(t: QTransform) -> tuple[float, ...]:
    return (
        t.m11(), t.m12(), t.m13(), t.m21(), t.m22(), t.m23(), t.m31(), t.m32(), t.m33()
    )  # fmt: skip


class LabelMemo:
    """What the last placement read and decided, phase by phase.

    An edit usually leaves blocks, frames and most trunks as they were: a phase
    whose inputs equal the last run's is not redone (its items still hold the
    result), which keeps an edit at 100,000 GPUs from re-placing every title.
    """

    def __init__(self) -> None:
        self.blocks: tuple[object, ...] | None = None
        self.block_out: tuple[list[QRectF], set[tuple[str, str]], set[str]] = (
            [],
            set(),
            set(),
        )
        self.frames: tuple[object, ...] | None = None
        self.frame_out: tuple[list[QRectF], set[tuple[str, str]]] = ([], set())
        #: visible device centres the frame phase saw, and the scene rects it
        #: asked about (a device change elsewhere cannot alter its answers)
        self.devices = np.zeros(0, complex)
        self.device_queries: list[tuple[float, float, float, float]] = []
        self.trunks: tuple[object, ...] | None = None

    def clear(self) -> None:
        """Forget everything: the next placement redoes every phase."""
        self.blocks = self.frames = self.trunks = None


TitleKey = tuple[str, str]
"""``("block", block key)`` or ``("frame", group id)``."""


@dataclass
class LabelInputs:
    """Everything the layout reads; the scene gathers it (nothing else is read)."""

    blocks: list[BlockItem]
    """Block items shown (none while a selection is isolated)."""
    frames: list[FrameItem]
    """Frame items shown."""
    trunks: list[Trunk]
    trunk_items: list[tuple[QGraphicsLineItem, LabelItem]]
    """One (line, label) per trunk, in the quotient's order."""
    xy: np.ndarray
    """Device centres, one row per device."""
    hidden: np.ndarray
    """Devices not drawn (in blocks, or the overview)."""
    isolated: bool
    """Only a selection is drawn (an export of it): no titles, no trunks."""
    titles: dict[TitleKey, TitleItem]
    """Title items made so far (``title_item`` adds to it)."""
    title_item: Callable[[TitleKey], TitleItem]
    """The title item for a key, made on first use."""


def place_labels(
    inputs: LabelInputs,
    memo: LabelMemo,
    transform: QTransform,
    bounds: QRectF | None = None,
) -> None:
    """Lay out titles and trunk labels for ``transform`` (scene -> reference px).

    ``bounds`` (reference px) is the drawn area (an export's picture, or the
    window's visible part): titles outside blocks must lie within it, or they
    would be cut off at its edge. ``memo`` remembers the last layout's inputs
    and results phase by phase.
    """
    isolated = inputs.isolated
    blocks = [] if isolated else inputs.blocks
    view_key = (
        _transform_key(transform),
        _coords(bounds) if bounds is not None else None,
        isolated,
    )
    block_key = (
        view_key,
        tuple((b.key, _coords(b.rect), b.title, b.summary) for b in blocks),
    )
    if block_key == memo.blocks or _same_fit(memo, block_key, blocks, transform):
        memo.blocks = block_key
        taken_blocks, used_blocks, outside = memo.block_out
        for b in blocks:
            flag = b.key in outside
            if flag != b.title_outside:
                b.title_outside = flag
                b.update()
    else:
        memo.blocks = memo.frames = memo.trunks = None
        taken_blocks, used_blocks = _place_block_titles(
            inputs, transform, blocks, bounds
        )
        outside = {b.key for b in blocks if b.title_outside}
        memo.block_out = (taken_blocks, used_blocks, outside)
        memo.blocks = block_key
    taken = _Taken(taken_blocks)
    used = set(used_blocks)
    if not isolated:
        _frame_phase(inputs, memo, transform, view_key, taken, used, bounds)
    for key, item in inputs.titles.items():
        item.setVisible(key in used)
    trunk_key = (
        view_key,
        tuple(_coords(t) for t in taken),
        tuple(
            (t.p0, t.p1, t.capacity_gbps, label.text, line.isVisible())
            for t, (line, label) in zip(inputs.trunks, inputs.trunk_items, strict=True)
        ),
    )
    if trunk_key != memo.trunks:
        _place_trunk_labels(inputs, transform, taken, isolated)
        memo.trunks = trunk_key


def _same_fit(
    memo: LabelMemo,
    key: tuple[object, ...],
    blocks: list[BlockItem],
    transform: QTransform,
) -> bool:
    """True when only the text of blocks changed, each had its title inside and
    the new text fits inside too (an edit's new counts): every title then goes
    where the last placement put it, so that placement stands."""
    last = memo.blocks
    if last is None or last[0] != key[0]:
        return False
    old_rows, new_rows = last[1], key[1]
    assert isinstance(old_rows, tuple) and isinstance(new_rows, tuple)
    if len(old_rows) != len(new_rows):
        return False
    outside = memo.block_out[2]
    for b, old, new in zip(blocks, old_rows, new_rows, strict=True):
        if old == new:
            continue
        if old[:2] != new[:2] or b.key in outside:
            return False
        r = transform.mapRect(b.rect)
        if not b.shown_lines(r):  # the same rule as the placement's
            return False
    return True


def _place_block_titles(
    inputs: LabelInputs,
    transform: QTransform,
    blocks: list[BlockItem],
    bounds: QRectF | None,
) -> tuple[list[QRectF], set[tuple[str, str]]]:
    """Block titles: inside the block when they fit, else beside it."""
    used: set[tuple[str, str]] = set()
    # blocks are drawn over trunks: a label half under one reads as garbage
    taken = _Taken([transform.mapRect(b.rect) for b in blocks])
    by_area = sorted(blocks, key=lambda b: -b.rect.width() * b.rect.height())
    for b in by_area:
        r = transform.mapRect(b.rect)
        outside = False
        # inside whenever the title shows there, with what of the counts fits
        # ("Pod 43 · 2,048 GPUs"): a title set outside a block of a grid lands
        # past the grid's edge, far from the box it names
        if not b.shown_lines(r):  # r: reference px, as shown_lines takes it
            title = inputs.title_item(("block", b.key))
            full = [(b.title, font("block")), (b.summary, font("normal"))]
            title_w = QFontMetricsF(font("block")).horizontalAdvance(b.title)
            # the natural width first, then wrapped to the block's own width;
            # then the title alone (a thin bar between a page's edge and the
            # blocks under it has room for one line)
            for lines, wrap in (
                (full, 0.0),
                (full, max(r.width() - 8, title_w, 80.0)),
                (full[:1], 0.0),
            ):
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
    return taken, used


def _frame_phase(
    inputs: LabelInputs,
    memo: LabelMemo,
    transform: QTransform,
    view_key: tuple[object, ...],
    taken: list[QRectF],
    used: set[tuple[str, str]],
    bounds: QRectF | None,
) -> None:
    """Frame titles, or the last run's when frames, text and devices allow."""
    frames = inputs.frames
    key = (
        view_key,
        tuple(_coords(t) for t in taken),
        tuple((f.group_id, _coords(f.rect), f.title, f.depth) for f in frames),
    )
    xy, hidden = inputs.xy, inputs.hidden
    pts = xy[~hidden] if hidden.shape[0] == xy.shape[0] else xy
    centres = pts[:, 0] + 1j * pts[:, 1]
    if key == memo.frames and _same_answers(memo, centres):
        memo.devices = centres
        more_taken, more_used = memo.frame_out
        taken.extend(more_taken)
        used.update(more_used)
        return
    before_taken, before_used = len(taken), set(used)
    queries: list[tuple[float, float, float, float]] = []
    _place_frame_titles(inputs, transform, taken, used, bounds, frames, queries)
    memo.frame_out = (taken[before_taken:], used - before_used)
    memo.frames = key
    memo.devices = centres
    memo.device_queries = queries
    memo.trunks = None


def _same_answers(memo: LabelMemo, centres: np.ndarray) -> bool:
    """Whether every device query of the last frame phase answers as before.

    Only devices added, removed or moved since can change an answer: each
    query rect is tested against those few centres.
    """
    old = memo.devices
    if old.shape == centres.shape and np.array_equal(old, centres):
        return True
    if not memo.device_queries:
        return True
    changed = np.setxor1d(old, centres)
    if changed.size > 4096:
        return False
    hw, hh = sz.DEVICE_W / 2, sz.DEVICE_H / 2
    q = np.asarray(memo.device_queries)
    x, y = changed.real[None, :], changed.imag[None, :]
    hit = (
        (x >= q[:, 0:1] - hw)
        & (x <= q[:, 2:3] + hw)
        & (y > q[:, 1:2] - hh)
        & (y < q[:, 3:4] + hh)
    )
    return not bool(hit.any())


def _place_frame_titles(
    inputs: LabelInputs,
    transform: QTransform,
    taken: list[QRectF],
    used: set[tuple[str, str]],
    bounds: QRectF | None,
    frames: list[FrameItem],
    queries: list[tuple[float, float, float, float]],
) -> None:
    """Frame names: in the header band when it is tall enough, else at the corner.

    The scene rects tested against devices are appended to ``queries``.
    """
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
        title = inputs.title_item(("frame", f.group_id))
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
                devices = _Devices(inputs.xy, inputs.hidden)
            probe = inverse.mapRect(spot)
            queries.append((probe.left(), probe.top(), probe.right(), probe.bottom()))
            if devices.hit(probe):
                continue
            title.place(tl, offset)
            taken.append(spot.adjusted(-2, -2, 2, 2))
            used.add(("frame", f.group_id))
            break


def _place_trunk_labels(
    inputs: LabelInputs, transform: QTransform, taken: list[QRectF], isolated: bool
) -> None:
    """Trunk labels, biggest trunks first, slid along the trunk to a free spot."""
    trunks, items = inputs.trunks, inputs.trunk_items
    order = sorted(range(len(items)), key=lambda k: -trunks[k].capacity_gbps)
    ends = own_ends(trunks) if not isolated else [None] * len(trunks)
    shared = any(e is not None for e in ends)
    blocks = [transform.mapRect(b.rect) for b in inputs.blocks] if shared else []
    for k in order:
        line, label = items[k]
        if isolated or not line.isVisible():
            label.setVisible(False)
            continue
        t = trunks[k]
        shown = False
        own = ends[k]
        slots = (
            (trunk_fraction(k), *TRUNK_SLOTS)
            if own is None
            else _from_end(transform, t, label.boundingRect(), own)
        )
        for f in slots:
            pos = QPointF(
                t.p0[0] + f * (t.p1[0] - t.p0[0]), t.p0[1] + f * (t.p1[1] - t.p0[1])
            )
            at = transform.map(pos)
            if own is not None and any(r.contains(at) for r in blocks):
                break  # behind another block: beyond it, it would label that one
            rect = label.boundingRect().translated(at)
            if _free(rect, taken):
                label.setPos(pos)
                taken.append(rect.adjusted(-4, -2, 4, 2))
                shown = True
                break
        label.setVisible(shown)


def _from_end(transform: QTransform, t: Trunk, badge: QRectF, own: int) -> list[float]:
    """Places along a trunk that shares its line, from its own end outwards:
    a label next to the pod it belongs to, not among those of the trunks
    running on with it (fractions of the trunk from ``p0``)."""
    a = transform.map(QPointF(*t.p0))
    b = transform.map(QPointF(*t.p1))
    dx, dy = b.x() - a.x(), b.y() - a.y()
    length = math.hypot(dx, dy)
    if length <= 0:
        return [0.5]
    # clear of the end by the badge's half extent along the trunk: a block end
    # is taken space anyway, so the gap just past it is tried first
    start = (abs(dx) * badge.width() + abs(dy) * badge.height()) / (2 * length) + 3
    steps = int((length - start) // TRUNK_WALK_PX) + 1
    out = []
    for i in range(min(max(steps, 0), TRUNK_WALK_MAX)):
        f = (start + i * TRUNK_WALK_PX) / length
        out.append(f if own == 0 else 1.0 - f)
    return out or [0.5]
