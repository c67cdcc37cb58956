"""What lies under a scene point: device, block, link, trunk or frame header.

Numpy queries over the geometry (devices, single links) and the few block,
trunk and frame items; Qt's own item index is never asked (it would test the
link layer and hundreds of thousands of link ends).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from PySide6.QtCore import QPointF
from PySide6.QtGui import QTransform

from designer.qt.canvas import style as st

if TYPE_CHECKING:
    from PySide6.QtWidgets import QGraphicsLineItem

    from designer.qt.canvas.items import BlockItem, FrameItem, LabelItem
    from designer.view.canvas.geometry import Geometry
    from designer.view.canvas.quotient import Quotient


@dataclass(frozen=True)
class DeviceHit:
    """A device (drawn one by one)."""

    id: str
    kind: ClassVar[str] = "device"


@dataclass(frozen=True)
class BlockHit:
    """A block of the quotient (a collapsed group, or a group in the overview)."""

    id: str
    """The block's key."""
    kind: ClassVar[str] = "block"


@dataclass(frozen=True)
class LinkHit:
    """A single link."""

    id: str
    kind: ClassVar[str] = "link"


@dataclass(frozen=True)
class TrunkHit:
    """A trunk (a bundle of links between blocks)."""

    index: int
    """Its index in the current quotient (valid until the next edit)."""
    kind: ClassVar[str] = "trunk"

    @property
    def id(self) -> str:
        """The index as text (what a menu target names)."""
        return str(self.index)


@dataclass(frozen=True)
class FrameHit:
    """The header of a group's frame."""

    id: str
    """The group's id."""
    kind: ClassVar[str] = "frame"


Hit = DeviceHit | BlockHit | LinkHit | TrunkHit | FrameHit
"""What is under a scene point; ``kind`` names it for menus and tests.

The tools, the context menu and the hover text dispatch on the type with
``match`` and end in ``typing.assert_never``, so a type added here fails mypy
wherever it is not handled (tests/qt/canvas/test_hit_dispatch.py runs each
dispatcher with each type)."""


@dataclass
class HitInputs:
    """What the hit test reads (the scene gathers it)."""

    geometry: Geometry
    quotient: Quotient
    overview: bool
    blocks: Sequence[BlockItem]
    link_mask: np.ndarray
    trunk_items: Sequence[tuple[QGraphicsLineItem, LabelItem]]
    label_transform: QTransform
    frames: Sequence[FrameItem]


def hit_at(inputs: HitInputs, pos: QPointF, tol: float) -> Hit | None:
    """The device, block, link, trunk or frame header under ``pos``."""
    x, y = pos.x(), pos.y()
    q, g = inputs.quotient, inputs.geometry
    if not inputs.overview:
        hidden = q.rep >= 0 if q.rep.size == len(g.ids) else None
        r = g.device_at(x, y, tol, hidden)
        if r >= 0:
            return DeviceHit(g.ids[r])
    for item in reversed(inputs.blocks):
        if item.rect.contains(pos):
            return BlockHit(item.key)
    k = g.link_at(x, y, tol, inputs.link_mask)
    if k >= 0:
        return LinkHit(g.link_ids[k])
    t = trunk_at(inputs.trunk_items, inputs.label_transform, pos, tol)
    if t >= 0:
        return TrunkHit(t)
    for frame in sorted(inputs.frames, key=lambda f: f.zValue(), reverse=True):
        if frame.header_rect().contains(pos):
            return FrameHit(frame.group_id)
    return None


def trunk_at(
    trunk_items: Sequence[tuple[QGraphicsLineItem, LabelItem]],
    label_transform: QTransform,
    pos: QPointF,
    tol: float,
) -> int:
    """Index of the shown trunk (line or label) under a scene point, or -1."""
    shown = [
        (k, line, label)
        for k, (line, label) in enumerate(trunk_items)
        if line.isVisible()
    ]
    if not shown:
        return -1
    tr = label_transform
    at = tr.map(pos)
    for k, _, label in shown:
        if label.isVisible() and label.boundingRect().translated(
            tr.map(label.pos())
        ).contains(at):
            return k
    ends = np.array(
        [
            (ln.line().x1(), ln.line().y1(), ln.line().x2(), ln.line().y2())
            for _, ln, _ in shown
        ]
    )
    # the pen is cosmetic: its half width (px) widens the pick tolerance
    reach = tol * (
        1.0 + np.array([ln.pen().widthF() for _, ln, _ in shown]) / (2 * st.PICK_PX)
    )
    p0, d = ends[:, :2], ends[:, 2:] - ends[:, :2]
    length2 = np.maximum((d**2).sum(axis=1), 1e-12)
    u = np.clip(
        ((pos.x() - p0[:, 0]) * d[:, 0] + (pos.y() - p0[:, 1]) * d[:, 1]) / length2,
        0.0,
        1.0,
    )
    dist = np.hypot(p0[:, 0] + u * d[:, 0] - pos.x(), p0[:, 1] + u * d[:, 1] - pos.y())
    near = np.nonzero(dist <= reach)[0]
    if not near.size:
        return -1
    return shown[int(near[np.argmin(dist[near])])][0]
