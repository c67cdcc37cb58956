"""A drag of selected devices: transient positions on screen until the Move command.

The select tool owns a :class:`DragSession` while the mouse button is down. It
moves the dragged devices' items, the blocks all of whose members are dragged,
their titles and the trunk ends attached to them, through the scene's public
interface (:class:`DragTarget`); the model changes only once, when the tool
turns the final positions into one Move command.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np
from PySide6.QtCore import QLineF, QPointF

if TYPE_CHECKING:
    from PySide6.QtWidgets import QGraphicsLineItem

    from designer.qt.canvas.items import BlockItem, DeviceItem, LabelItem
    from designer.qt.canvas.labels import TitleItem
    from designer.view.canvas.geometry import Geometry
    from designer.view.canvas.quotient import Quotient


class DragTarget(Protocol):
    """What a drag moves on the canvas (the scene provides it)."""

    @property
    def geometry(self) -> Geometry:
        """Device rows and positions (positions are moved in place meanwhile)."""
        ...

    def current_quotient(self) -> Quotient:
        """Blocks and trunks shown."""
        ...

    def item_for(self, device_id: str) -> DeviceItem | None:
        """A device's item."""
        ...

    def block_items(self) -> list[BlockItem]:
        """Block items, in the quotient's order."""
        ...

    def titles(self) -> dict[tuple[str, str], TitleItem]:
        """Title items beside blocks and frames."""
        ...

    def trunk_items(self) -> Sequence[tuple[QGraphicsLineItem, LabelItem]]:
        """(line, label) per trunk, in the quotient's order."""
        ...

    def invalidate_links(self) -> None:
        """Redraw the single links (their ends moved)."""
        ...


class DragSession:
    """Where the dragged devices, blocks, titles and trunk ends started."""

    def __init__(self, target: DragTarget, ids: Iterable[str]) -> None:
        self.target = target
        g = target.geometry
        self._geom = g
        rows = [g.row_of[i] for i in ids if i in g.row_of]
        self._rows = np.asarray(rows, np.int64)
        self._origin = g.xy[self._rows].copy()
        self._items = [target.item_for(g.ids[r]) for r in rows]
        moving = np.zeros(len(g.ids), bool)
        moving[self._rows] = True
        q = target.current_quotient()
        nb = len(q.blocks)
        carried = np.array(
            [bool(b.rows.size) and bool(moving[b.rows].all()) for b in q.blocks], bool
        )
        blocks = target.block_items()
        self._blocks = [blocks[k] for k in np.nonzero(carried)[0].tolist()]
        titles = target.titles()
        self._titles: list[tuple[TitleItem, QPointF]] = []
        for k in np.nonzero(carried)[0].tolist():
            title = titles.get(("block", q.blocks[k].key))
            if title is not None:
                self._titles.append((title, QPointF(title.pos())))
        # a trunk end follows the drag when its block or device is carried
        trunk_items = target.trunk_items()
        self._trunks: list[
            tuple[QGraphicsLineItem, LabelItem, QLineF, QPointF, float, float, float]
        ] = []
        for k, t in enumerate(q.trunks[: len(trunk_items)]):
            ma, mb = (
                float(carried[c]) if c < nb else float(moving[c - nb]) for c in t.ends
            )
            if not (ma or mb):
                continue
            line, label = trunk_items[k]
            p0, p1 = t.p0, t.p1
            d2 = (p1[0] - p0[0]) ** 2 + (p1[1] - p0[1]) ** 2
            lp = label.pos()
            f = (
                (
                    (lp.x() - p0[0]) * (p1[0] - p0[0])
                    + (lp.y() - p0[1]) * (p1[1] - p0[1])
                )
                / d2
                if d2 > 0
                else 0.5
            )
            self._trunks.append(
                (line, label, line.line(), QPointF(lp), ma, mb, (1 - f) * ma + f * mb)
            )

    @property
    def empty(self) -> bool:
        """True when nothing is dragged."""
        return not self._rows.size

    def move_by(self, dx: float, dy: float) -> None:
        """Show the dragged devices moved by (dx, dy) (no model change yet)."""
        g = self._geom
        g.xy[self._rows] = self._origin + np.array([dx, dy])
        g.rows_moved(self._rows)
        self._place_items()
        for block in self._blocks:
            block.setPos(dx, dy)
        for title, origin in self._titles:
            title.setPos(origin + QPointF(dx, dy))
        for line, label, seg, origin, ma, mb, mid in self._trunks:
            line.setLine(
                QLineF(
                    seg.p1() + QPointF(ma * dx, ma * dy),
                    seg.p2() + QPointF(mb * dx, mb * dy),
                )
            )
            label.setPos(origin + QPointF(mid * dx, mid * dy))
        self.target.invalidate_links()

    def finish(self) -> dict[str, tuple[float, float]]:
        """Final positions of the dragged devices; the canvas goes back to the
        model until the tool's Move command moves them for good."""
        g = self._geom
        out = {
            g.ids[r]: (float(g.xy[r, 0]), float(g.xy[r, 1]))
            for r in self._rows.tolist()
        }
        self.cancel()
        return out

    def cancel(self) -> None:
        """Put everything back where the model has it."""
        g = self._geom
        if self._rows.size:
            g.xy[self._rows] = self._origin
            g.rows_moved(self._rows)
            self._place_items()
            for block in self._blocks:
                block.setPos(0, 0)
            for title, origin in self._titles:
                title.setPos(origin)
            for line, label, seg, origin, *_ in self._trunks:
                line.setLine(seg)
                label.setPos(origin)
        self._rows = np.zeros(0, np.int64)
        self._blocks, self._titles, self._trunks = [], [], []
        self.target.invalidate_links()

    def _place_items(self) -> None:
        g = self._geom
        for r, item in zip(self._rows.tolist(), self._items, strict=True):
            if item is not None:
                item.setPos(g.xy[r, 0], g.xy[r, 1])
