"""Selection, the cut overlay, hit tests and drags of the DesignScene.

A mixin of :class:`designer.qt.canvas.scene.DesignScene`: it reads the scene's
geometry, quotient and items and never changes the model.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QLineF, QPointF, QRectF
from PySide6.QtGui import QColor, QTransform

from designer.qt.canvas import style as st
from designer.qt.canvas.items import BlockItem, DeviceItem, FrameItem

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance
    from PySide6.QtWidgets import QGraphicsLineItem

    from designer.qt.canvas.items import LabelItem
    from designer.qt.canvas.labels import TitleItem
    from designer.view.geometry import Geometry
    from designer.view.quotient import Quotient


@dataclass(frozen=True)
class Hit:
    """What is under a scene point: device, block, link, trunk or frame.

    A trunk's id is its index in the current quotient (valid until the next edit).
    """

    kind: str
    id: str


class SelectionMixin:
    """Selected devices and links, the cut overlay, hit tests and dragging."""

    _geom: Geometry
    _quotient: Quotient
    _items: dict[str, DeviceItem]
    _block_items: list[BlockItem]
    _frame_items: list[FrameItem]
    _trunk_items: list[tuple[QGraphicsLineItem, LabelItem]]
    _sel_devices: set[str]
    _sel_links: set[str]
    _cut: tuple[set[str], set[str]] | None
    _highlights: list[tuple[QColor, float, np.ndarray]] | None
    _drag_rows: np.ndarray
    _drag_origin: np.ndarray
    _label_transform: QTransform
    _drag_blocks: list[int]
    _drag_titles: list[tuple[TitleItem, QPointF]]
    _drag_trunks: list[
        tuple[QGraphicsLineItem, LabelItem, QLineF, QPointF, float, float, float]
    ]
    _titles: dict[tuple[str, str], TitleItem]
    overview: bool
    selection_changed_ids: SignalInstance

    def flush(self) -> None:  # pragma: no cover - DesignScene.flush
        """Apply pending edits (the scene's)."""
        raise NotImplementedError

    def _bump(self) -> None:  # pragma: no cover - DesignScene._bump
        raise NotImplementedError

    def _link_mask(self) -> np.ndarray:  # pragma: no cover - DesignScene._link_mask
        raise NotImplementedError

    # --- selection and cut ---------------------------------------------------

    def selected_ids(self) -> list[str]:
        """Selected device ids (model order) then selected link ids."""
        self.flush()
        g = self._geom
        rows = g.link_rows(list(self._sel_links)).tolist() if self._sel_links else []
        return self._selected_devices() + [g.link_ids[r] for r in rows]

    def _selected_devices(self) -> list[str]:
        row_of = self._geom.row_of
        return sorted(
            (i for i in self._sel_devices if i in row_of), key=lambda i: row_of[i]
        )

    def selected_device_ids(self) -> list[str]:
        """Selected device ids in model order."""
        self.flush()
        return self._selected_devices()

    def select(
        self, ids: Iterable[str], add: bool = False, toggle: bool = False
    ) -> None:
        """Select devices and links by id (replacing, adding or toggling)."""
        self.flush()
        ids = list(ids)
        if not add and not toggle:
            self._sel_devices.clear()
            self._sel_links.clear()
        link_index = self._geom.link_id_set()
        for i in ids:
            target = (
                self._sel_devices
                if i in self._geom.row_of
                else (self._sel_links if i in link_index else None)
            )
            if target is None:
                continue
            if toggle and i in target:
                target.discard(i)
            else:
                target.add(i)
        self._apply_cut_and_selection()
        self._bump()
        self.selection_changed_ids.emit(self.selected_ids())

    def set_cut(self, side_a: set[str] | None, cut_links: set[str] | None) -> None:
        """Colour side A / side B and highlight crossing links (None clears)."""
        self.flush()
        self._cut = None if side_a is None else (set(side_a), set(cut_links or ()))
        self._apply_cut_and_selection()
        self._bump()

    def _apply_cut_and_selection(self, devices: set[str] | None = None) -> None:
        cut = self._cut
        items = (
            self._items.items()
            if devices is None
            else [(d, self._items[d]) for d in devices if d in self._items]
        )
        for did, item in items:
            sel = did in self._sel_devices
            fill = None if cut is None else (st.CUT_A if did in cut[0] else st.CUT_B)
            if sel != item.selected or fill != item.cut_fill:
                item.selected = sel
                item.cut_fill = fill
                item.update()
        q = self._quotient
        ids = self._geom.ids
        if cut is None and not self._sel_devices:
            # nothing to show on blocks: no member lists (20,000 ids at 100K GPUs)
            for block_item in self._block_items:
                if block_item.selected or block_item.cut_fill is not None:
                    block_item.selected = False
                    block_item.cut_fill = None
                    block_item.update()
        for block, block_item in zip(
            q.blocks if cut is not None or self._sel_devices else (),
            self._block_items,
            strict=False,
        ):
            members = [ids[r] for r in block.rows.tolist()]
            block_item.selected = bool(members) and all(
                m in self._sel_devices for m in members
            )
            if cut is None:
                block_item.cut_fill = None
            else:
                share = sum(m in cut[0] for m in members) / max(1, len(members))
                block_item.cut_fill = (
                    st.CUT_A
                    if share == 1
                    else st.CUT_B
                    if share == 0
                    else QColor("#b9a6d6")
                )
            block_item.update()
        cut_trunks: set[int] = set()
        if cut is not None and q.link_trunk.size == len(self._geom.link_ids):
            trunks = q.link_trunk[self._geom.link_rows(list(cut[1]))]
            cut_trunks = set(trunks[trunks >= 0].tolist())
        sel_trunks = self._selected_trunks()
        for t, (line, label) in enumerate(self._trunk_items):
            on = t in cut_trunks
            pen = line.pen()
            pen.setColor(
                st.CUT_LINK
                if on
                else st.SELECTED
                if t in sel_trunks
                else QColor(74, 90, 117, 200)
            )
            line.setPen(pen)
            label.highlight = on
            label.update()

    def _selected_trunks(self) -> set[int]:
        """Trunks all of whose links are selected."""
        lt = self._quotient.link_trunk
        ids = self._geom.link_ids
        if not self._sel_links or lt.size != len(ids) or not self._trunk_items:
            return set()
        sel = np.zeros(len(ids), bool)
        sel[self._geom.link_rows(list(self._sel_links))] = True
        m = len(self._trunk_items)
        bundled = lt >= 0
        total = np.bincount(lt[bundled], minlength=m)
        chosen = np.bincount(lt[bundled & sel], minlength=m)
        return set(np.nonzero((total > 0) & (chosen == total))[0].tolist())

    # --- hit tests -------------------------------------------------------------

    def hit(self, pos: QPointF, tol: float) -> Hit | None:
        """The device, block, link, trunk or frame header under a scene point."""
        self.flush()
        x, y = pos.x(), pos.y()
        q = self._quotient
        g = self._geom
        if not self.overview:
            hidden = q.rep >= 0 if q.rep.size == len(g.ids) else None
            r = g.device_at(x, y, tol, hidden)
            if r >= 0:
                return Hit("device", g.ids[r])
        for item in reversed(self._block_items):
            if item.rect.contains(pos):
                return Hit("block", item.key)
        k = g.link_at(x, y, tol, self._link_mask())
        if k >= 0:
            return Hit("link", g.link_ids[k])
        t = self.trunk_at(pos, tol)
        if t >= 0:
            return Hit("trunk", str(t))
        for frame in sorted(self._frame_items, key=lambda f: f.zValue(), reverse=True):
            if frame.header_rect().contains(pos):
                return Hit("frame", frame.group_id)
        return None

    def trunk_at(self, pos: QPointF, tol: float) -> int:
        """Index of the shown trunk (line or label) under a scene point, or -1."""
        self.flush()
        shown = [
            (k, line, label)
            for k, (line, label) in enumerate(self._trunk_items)
            if line.isVisible()
        ]
        if not shown:
            return -1
        tr = self._label_transform
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
        dist = np.hypot(
            p0[:, 0] + u * d[:, 0] - pos.x(), p0[:, 1] + u * d[:, 1] - pos.y()
        )
        near = np.nonzero(dist <= reach)[0]
        if not near.size:
            return -1
        return shown[int(near[np.argmin(dist[near])])][0]

    def trunk_links(self, k: int) -> list[str]:
        """Ids of the links trunk ``k`` stands for (model order)."""
        self.flush()
        lt = self._quotient.link_trunk
        if lt.size != len(self._geom.link_ids):
            return []
        ids = self._geom.link_ids
        return [ids[i] for i in np.nonzero(lt == k)[0].tolist()]

    def trunk_summary(self, k: int) -> str:
        """What trunk ``k`` carries, e.g. "256 links, 256 cables, 102.4 Tb/s"."""
        self.flush()
        t = self._quotient.trunks[k]

        def n(count: int, word: str) -> str:
            return f"{count:,} {word}{'' if count == 1 else 's'}"

        return (
            f"{n(t.links, 'link')}, {n(t.cables, 'cable')}, "
            f"{t.capacity_gbps / 1000:,.1f} Tb/s"
        )

    def trunk_ends_rect(self, k: int) -> QRectF:
        """Bounds of the devices at both ends of trunk ``k`` (where they really are)."""
        self.flush()
        q = self._quotient
        nb = len(q.blocks)
        rows = [
            q.blocks[c].rows if c < nb else np.array([c - nb], np.int64)
            for c in q.trunks[k].ends
        ]
        x0, y0, x1, y1 = self._geom.bounds(np.concatenate(rows))
        return QRectF(QPointF(x0, y0), QPointF(x1, y1))

    def block_members(self, key: str) -> list[str]:
        """Device ids drawn inside a block."""
        self.flush()
        for block in self._quotient.blocks:
            if block.key == key:
                return [self._geom.ids[r] for r in block.rows.tolist()]
        return []

    def members_rect(self, key: str) -> QRectF:
        """Bounds of the devices a block stands for (where they really are)."""
        self.flush()
        for block in self._quotient.blocks:
            if block.key == key:
                x0, y0, x1, y1 = self._geom.bounds(block.rows)
                return QRectF(QPointF(x0, y0), QPointF(x1, y1))
        return QRectF()

    def device_ids_in_rect(self, rect: QRectF) -> list[str]:
        """Shown devices (or members of blocks) whose centre lies in ``rect``."""
        self.flush()
        rows = self._geom.rows_in_rect(
            rect.left(), rect.top(), rect.right(), rect.bottom()
        )
        return [self._geom.ids[r] for r in rows.tolist()]

    def item_for(self, device_id: str) -> DeviceItem | None:
        """The device's item (tests and the view use it)."""
        self.flush()
        return self._items.get(device_id)

    def block_items(self) -> list[BlockItem]:
        """Current block items."""
        self.flush()
        return list(self._block_items)

    def frame_items(self) -> list[FrameItem]:
        """Current frame items."""
        self.flush()
        return list(self._frame_items)

    def trunk_count(self) -> int:
        """Number of trunks drawn."""
        self.flush()
        return len(self._trunk_items)

    # --- dragging (transient positions until the Move command) -------------------

    def begin_drag(self, ids: Iterable[str]) -> None:
        """Remember where the dragged devices, their blocks and trunks start."""
        self.flush()
        g = self._geom
        rows = [g.row_of[i] for i in ids if i in g.row_of]
        self._drag_rows = np.asarray(rows, np.int64)
        self._drag_origin = g.xy[self._drag_rows].copy()
        moving = np.zeros(len(g.ids), bool)
        moving[self._drag_rows] = True
        q = self._quotient
        nb = len(q.blocks)
        carried = np.array(
            [bool(b.rows.size) and bool(moving[b.rows].all()) for b in q.blocks], bool
        )
        self._drag_blocks = np.nonzero(carried)[0].tolist()
        self._drag_titles = []
        for k in self._drag_blocks:
            title = self._titles.get(("block", q.blocks[k].key))
            if title is not None:
                self._drag_titles.append((title, QPointF(title.pos())))
        # a trunk end follows the drag when its block or device is carried
        self._drag_trunks = []
        for k, t in enumerate(q.trunks[: len(self._trunk_items)]):
            ma, mb = (
                float(carried[c]) if c < nb else float(moving[c - nb]) for c in t.ends
            )
            if ma or mb:
                line, label = self._trunk_items[k]
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
                self._drag_trunks.append(
                    (
                        line,
                        label,
                        line.line(),
                        QPointF(lp),
                        ma,
                        mb,
                        (1 - f) * ma + f * mb,
                    )
                )

    def drag_by(self, dx: float, dy: float) -> None:
        """Show the dragged devices moved by (dx, dy) (no model change yet)."""
        g = self._geom
        g.xy[self._drag_rows] = self._drag_origin + np.array([dx, dy])
        g.rows_moved(self._drag_rows)
        for r in self._drag_rows.tolist():
            item = self._items[g.ids[r]]
            item.setPos(g.xy[r, 0], g.xy[r, 1])
        for k in self._drag_blocks:
            self._block_items[k].setPos(dx, dy)
        for title, origin in self._drag_titles:
            title.setPos(origin + QPointF(dx, dy))
        for line, label, seg, origin, ma, mb, mid in self._drag_trunks:
            line.setLine(
                QLineF(
                    seg.p1() + QPointF(ma * dx, ma * dy),
                    seg.p2() + QPointF(mb * dx, mb * dy),
                )
            )
            label.setPos(origin + QPointF(mid * dx, mid * dy))
        self._bump()

    def end_drag(self) -> dict[str, tuple[float, float]]:
        """Final positions of the dragged devices (the view makes the command)."""
        g = self._geom
        out = {
            g.ids[r]: (float(g.xy[r, 0]), float(g.xy[r, 1]))
            for r in self._drag_rows.tolist()
        }
        self.cancel_drag()
        return out

    def cancel_drag(self) -> None:
        """Put the dragged devices back where the model has them."""
        g = self._geom
        if self._drag_rows.size:
            g.xy[self._drag_rows] = self._drag_origin
            g.rows_moved(self._drag_rows)
            for r in self._drag_rows.tolist():
                self._items[g.ids[r]].setPos(g.xy[r, 0], g.xy[r, 1])
            for item in self._block_items:
                item.setPos(0, 0)
            for title, origin in self._drag_titles:
                title.setPos(origin)
            for line, label, seg, origin, *_ in self._drag_trunks:
                line.setLine(seg)
                label.setPos(origin)
        self._drag_blocks = []
        self._drag_titles = []
        self._drag_trunks = []
        self._drag_rows = np.zeros(0, np.int64)
        self._drag_origin = np.zeros((0, 2))
        self._bump()
