"""DesignScene: mirrors a Document's design as thin items and answers hit tests.

The scene subscribes to the document's Change events and updates only what they
touch. It owns no design state: positions, groups and collapse flags are read
from the model; selection, the cut overlay and the overview flag are view state.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import repeat

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QPainter, QPen, QTransform
from PySide6.QtWidgets import QGraphicsItem, QGraphicsLineItem, QGraphicsScene

from designer.catalog.schema import CatalogEntry
from designer.core.commands import Change, Document
from designer.qt.canvas import style as st
from designer.qt.canvas.geometry import Geometry
from designer.qt.canvas.items import (
    BlockItem,
    DeviceItem,
    FrameItem,
    LabelItem,
    LinkLayerItem,
)
from designer.qt.canvas.quotient import BLOCK_PAD, Quotient, moved, quotient, relinked


@dataclass(frozen=True)
class Hit:
    """What is under a scene point: kind is device, block, link or frame."""

    kind: str
    id: str


class DesignScene(QGraphicsScene):
    """The design as a graphics scene (devices, links, groups, trunks, cut)."""

    selection_changed_ids = Signal(list)

    def __init__(
        self,
        document: Document,
        catalog: Mapping[str, CatalogEntry],
        parent: object | None = None,
    ) -> None:
        super().__init__(parent)  # type: ignore[arg-type]
        self.catalog = catalog
        self.document = document
        self._geom = Geometry()
        self.overview = False
        self.link_state = 0
        self._items: dict[str, DeviceItem] = {}
        self._quotient = Quotient(rep=np.zeros(0, np.int64))
        self._quotients: dict[bool, Quotient] = {}
        self._block_items: list[BlockItem] = []
        self._frame_items: list[FrameItem] = []
        self._trunk_items: list[tuple[QGraphicsLineItem, LabelItem]] = []
        self._sel_devices: set[str] = set()
        self._sel_links: set[str] = set()
        self._cut: tuple[set[str], set[str]] | None = None
        self._only_rows: np.ndarray | None = None
        self._highlights: list[tuple[QColor, float, np.ndarray]] | None = None
        self._drag_rows = np.zeros(0, np.int64)
        self._drag_origin = np.zeros((0, 2))
        self._label_transform = QTransform()
        self._hidden = np.zeros(0, bool)
        self._pending: list[Change] = []
        self._isolated: list[QGraphicsItem] = []
        #: set by render_to while it draws (see items.render_options)
        self.text_scale = 1.0
        self.device_labels: bool | None = None
        self._frame_members = (np.zeros(0, np.int64),) * 3
        self._frame_of: dict[int, FrameItem] = {}
        self._kinds: dict[str, tuple[str | None, str, str | None]] = {}
        self.setBackgroundBrush(QBrush(st.BACKGROUND))
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self._make_layers()
        document.subscribe(self._on_changes)
        self._rebuild_all()

    # --- document -----------------------------------------------------------

    @property
    def geometry(self) -> Geometry:
        """The design's arrays, brought up to date with pending edits first."""
        self.flush()
        return self._geom

    def set_document(self, document: Document) -> None:
        """Mirror another document."""
        self.document.unsubscribe(self._on_changes)
        self.document = document
        document.subscribe(self._on_changes)
        self._pending = []
        self._sel_devices.clear()
        self._sel_links.clear()
        self._cut = None
        self._rebuild_all()
        self.selection_changed_ids.emit([])

    def detach(self) -> None:
        """Stop listening to the document."""
        self.document.unsubscribe(self._on_changes)
        self._pending = []

    def _make_layers(self) -> None:
        self._links = LinkLayerItem(self)
        self.addItem(self._links)

    def _on_changes(self, changes: list[Change]) -> None:
        # Edits arriving in one event loop turn (a History jump, a script) are
        # applied in one pass; anything that reads the scene flushes first.
        # Posted before any item update, so it runs before the repaint.
        if not self._pending:
            QTimer.singleShot(0, self, self.flush)
        self._pending.extend(changes)

    def has_pending(self) -> bool:
        """Whether edits were received that the scene has not applied yet."""
        return bool(self._pending)

    def flush(self) -> None:
        """Apply the edits received since the last update, in one pass."""
        if not self._pending:
            return
        changes, self._pending = self._pending, []
        self._apply(changes)

    def _apply(self, changes: list[Change]) -> None:
        kinds = {c.kind for c in changes}
        if "reset" in kinds:
            self._rebuild_all()
            return

        def ids(kind: str) -> set[str]:
            return {i for c in changes if c.kind == kind for i in c.ids}

        design = self.document.design
        g = self._geom
        dev_added, dev_removed = ids("devices_added"), ids("devices_removed")
        dev_touched = dev_added | dev_removed
        changed = ids("devices_changed")
        links = {k: ids(k) for k in ("links_added", "links_removed", "links_changed")}
        g.sync(
            design,
            devices_added=dev_added,
            devices_removed=dev_removed,
            links_added=links["links_added"],
            links_removed=links["links_removed"],
            links_changed=links["links_changed"],
            moved=changed,
        )
        gone = {i for i in dev_touched if i not in g.row_of}
        for did in gone:
            item = self._items.pop(did, None)
            if item is not None:
                self.removeItem(item)
            self._kinds.pop(did, None)
        self._sel_devices -= gone
        restyle = (dev_touched - gone) | (changed & g.row_of.keys())
        regrouped = bool(dev_touched) or "groups_changed" in kinds
        for did in restyle:
            before = self._kinds.get(did)
            item = self._items.get(did)
            if item is None:
                self._add_item(did)
            else:
                self._style_item(item)
            regrouped = regrouped or before != self._kinds.get(did)
        self._sel_links -= links["links_removed"] - links["links_added"]
        if regrouped:
            self._quotients.clear()
            self._refresh_structure(
                devices=None if "groups_changed" in kinds else restyle
            )
        elif any(links.values()) or changed:
            q = self._quotient
            if any(links.values()):
                q = relinked(q, g)
            if changed:
                q = moved(q, g)
            self._quotients = {self.overview: q}
            self._refresh_structure(frames=False, devices=restyle)
            if changed and not self.overview:
                self._refit_frames(changed)
        if kinds & {"devices_removed", "links_removed"}:
            self.selection_changed_ids.emit(self.selected_ids())

    def _rebuild_all(self) -> None:
        design = self.document.design
        for item in self._items.values():
            self.removeItem(item)
        self._items = {}
        self._kinds = {}
        self._hidden = np.zeros(0, bool)
        self._geom.rebuild(design)
        for d in design.devices:
            self._add_item(d.id)
        self._quotients.clear()
        self._refresh_structure()

    def _add_item(self, device_id: str) -> None:
        item = DeviceItem(device_id, st.BACKGROUND, "", "")
        self._items[device_id] = item
        self._style_item(item)
        self.addItem(item)

    def _style_item(self, item: DeviceItem) -> None:
        design = self.document.design
        r = self._geom.row_of[item.device_id]
        d = design.devices[r]
        entry = self.catalog.get(d.catalog_id)
        category = str(entry.category) if entry is not None else "other"
        tier = str(d.tier) if d.tier is not None else None
        self._kinds[d.id] = (d.group, d.catalog_id, tier)
        item.fill = st.device_fill(category, tier)
        item.title = d.label or d.id
        model = entry.model if entry is not None else d.catalog_id
        item.subtitle = f"{model} · {tier}" if tier else model
        item.selected = d.id in self._sel_devices
        item.setPos(d.x, d.y)
        item.update()

    # --- structure: quotient, blocks, frames, trunks -------------------------

    def current_quotient(self) -> Quotient:
        """The quotient in use (blocks for collapsed groups, or the overview)."""
        self.flush()
        return self._quotient

    def _refresh_structure(
        self, *, frames: bool = True, devices: set[str] | None = None
    ) -> None:
        """Rebuild blocks, trunks (and frames) from the quotient in use.

        ``devices`` limits the cut/selection restyle to those device items
        (None: all of them); ``frames`` False keeps the group frames as they are.
        """
        design = self.document.design
        q = self._quotients.get(self.overview)
        if q is None:
            q = quotient(design, self._geom, self.catalog, self.overview)
            self._quotients[self.overview] = q
        self._quotient = q
        for block_item in self._block_items:
            self.removeItem(block_item)
        for line, label in self._trunk_items:
            self.removeItem(line)
            self.removeItem(label)
        self._block_items = [
            BlockItem(
                b.key,
                b.group_id,
                QRectF(QPointF(b.rect[0], b.rect[1]), QPointF(b.rect[2], b.rect[3])),
                b.title,
                b.summary,
            )
            for b in q.blocks
        ]
        for item in self._block_items:
            if item.group_id is not None:
                item.hint = (
                    "double-click to zoom in"
                    if self.overview
                    else "double-click to expand"
                )
            self.addItem(item)
        if frames:
            # frames are re-fitted in place: an edit re-creates none of them
            reuse = {f.group_id: f for f in self._frame_items}
            self._frame_of = {}
            new_frames = [] if self.overview else self._make_frames(reuse)
            for frame in reuse.values():
                self.removeItem(frame)
            for frame in new_frames:
                if frame.scene() is None:
                    self.addItem(frame)
            self._frame_items = new_frames
        self._trunk_items = []
        top = max((t.capacity_gbps for t in q.trunks), default=1.0)
        for k, t in enumerate(q.trunks):
            line = QGraphicsLineItem(t.p0[0], t.p0[1], t.p1[0], t.p1[1])
            pen = QPen(
                QColor(74, 90, 117, 200), 1.5 + 8.0 * (t.capacity_gbps / top) ** 0.5
            )
            pen.setCosmetic(True)
            pen.setCapStyle(Qt.PenCapStyle.FlatCap)
            line.setPen(pen)
            line.setZValue(st.Z_TRUNK)
            f = (
                0.35 if k % 2 else 0.65
            )  # staggered, so neighbours' labels do not collide
            label = LabelItem(
                t.label,
                QPointF(
                    t.p0[0] + f * (t.p1[0] - t.p0[0]), t.p0[1] + f * (t.p1[1] - t.p0[1])
                ),
            )
            self.addItem(line)
            self.addItem(label)
            self._trunk_items.append((line, label))
        self.declutter_labels(self._label_transform)
        # devices are top-level items (a hidden parent layer would make
        # QGraphicsView.render() paint every child): flip only what changed
        hidden = np.ones(len(self._geom.ids), bool) if self.overview else q.rep >= 0
        prev = self._hidden
        if prev.shape != hidden.shape:
            prev = self._geom.carry_over(prev, ~hidden)
        ids = self._geom.ids
        for r in np.nonzero(hidden != prev)[0].tolist():
            self._items[ids[r]].setVisible(not hidden[r])
        self._hidden = hidden
        self._update_scene_rect()
        self._apply_cut_and_selection(devices)

    def _make_frames(self, reuse: dict[str, FrameItem]) -> list[FrameItem]:
        """Frames of expanded groups around their members (numpy bounds per group).

        Items in ``reuse`` (by group id) are updated and taken out of it.
        """
        design = self.document.design
        if not design.groups:
            return []
        gids = [g.id for g in design.groups]
        gi = {g: i for i, g in enumerate(gids)}
        par = np.array(
            [gi.get(g.parent, -1) if g.parent else -1 for g in design.groups]
        )
        ng = len(gids)
        lo = np.full((ng, 2), np.inf)
        hi = np.full((ng, 2), -np.inf)
        xy = self._geom.xy
        n = len(self._geom.groups)
        cur = np.fromiter(map(gi.get, self._geom.groups, repeat(-1, n)), np.int64, n)
        height = np.zeros(ng, np.int64)
        level = 0
        all_rows = np.arange(n)
        pairs_g: list[np.ndarray] = []
        pairs_r: list[np.ndarray] = []
        while level < 50:
            m = cur >= 0
            if not m.any():
                break
            pairs_g.append(cur[m])
            pairs_r.append(all_rows[m])
            np.minimum.at(lo, cur[m], xy[m])
            np.maximum.at(hi, cur[m], xy[m])
            np.maximum.at(height, cur[m], level)
            cur = np.where(m, par[np.maximum(cur, 0)], -1)
            level += 1
        # a group's depth above its deepest member group, for nested padding
        depth = np.zeros(ng, np.int64)
        for i in range(ng):
            p, h = par[i], 0
            while p >= 0 and h < 50:
                h += 1
                depth[p] = max(depth[p], h)
                p = par[p]
        collapsed = np.array([g.collapsed for g in design.groups])
        hidden = collapsed.copy()
        for i in range(ng):
            p, n = par[i], 0
            while p >= 0 and n < 50 and not hidden[i]:
                hidden[i] = collapsed[p]
                p, n = par[p], n + 1
        # (group, member row) pairs sorted by group: a move re-fits only the
        # frames around the moved devices
        pg = np.concatenate(pairs_g) if pairs_g else np.zeros(0, np.int64)
        pr = np.concatenate(pairs_r) if pairs_r else np.zeros(0, np.int64)
        order = np.argsort(pg, kind="stable")
        pg, pr = pg[order], pr[order]
        self._frame_members = (pg, pr, np.searchsorted(pg, np.arange(ng + 1)))
        self._frame_of = {}
        frames = []
        hw, hh = st.DEVICE_W / 2, st.DEVICE_H / 2
        for i, g in enumerate(design.groups):
            if hidden[i] or not np.isfinite(lo[i, 0]):
                continue
            pad = BLOCK_PAD + 14.0 * depth[i]
            rect = QRectF(
                QPointF(lo[i, 0] - hw - pad, lo[i, 1] - hh - pad - FrameItem.HEADER),
                QPointF(hi[i, 0] + hw + pad, hi[i, 1] + hh + pad),
            )
            frame = reuse.pop(g.id, None)
            if frame is None:
                frame = FrameItem(g.id, rect, g.label or g.id, int(depth[i]))
            else:
                frame.restyle(rect, g.label or g.id, int(depth[i]))
            self._frame_of[i] = frame
            frames.append(frame)
        return frames

    def _refit_frames(self, device_ids: set[str]) -> None:
        """Re-fit the frames of the groups holding these (moved) devices."""
        pg, pr, starts = self._frame_members
        moved_rows = [
            self._geom.row_of[d] for d in device_ids if d in self._geom.row_of
        ]
        if not moved_rows or not self._frame_of:
            return
        hit = np.unique(pg[np.isin(pr, moved_rows)])
        for i in hit.tolist():
            frame = self._frame_of.get(i)
            if frame is None:
                continue
            x0, y0, x1, y1 = self._geom.bounds(pr[starts[i] : starts[i + 1]])
            pad = BLOCK_PAD + 14.0 * frame.depth
            frame.set_rect(
                QRectF(
                    QPointF(x0 - pad, y0 - pad - FrameItem.HEADER),
                    QPointF(x1 + pad, y1 + pad),
                )
            )

    def _update_scene_rect(self) -> None:
        x0, y0, x1, y1 = self._geom.bounds()
        for f in self._frame_items:
            r = f.rect
            x0, y0 = min(x0, r.left()), min(y0, r.top())
            x1, y1 = max(x1, r.right()), max(y1, r.bottom())
        margin = max(400.0, 0.15 * max(x1 - x0, y1 - y0))
        rect = QRectF(
            x0 - margin, y0 - margin, x1 - x0 + 2 * margin, y1 - y0 + 2 * margin
        )
        self.setSceneRect(rect)
        self._links.set_bounds(rect)
        self._bump()

    def declutter_labels(self, transform: QTransform) -> None:
        """Show trunk labels that do not overlap on screen, biggest trunks first."""
        self.flush()
        self._label_transform = QTransform(transform)
        q = self._quotient
        order = sorted(
            range(len(self._trunk_items)), key=lambda k: -q.trunks[k].capacity_gbps
        )
        taken: list[QRectF] = []
        for k in order:
            label = self._trunk_items[k][1]
            rect = label.boundingRect().translated(transform.map(label.pos()))
            free = not any(rect.intersects(r) for r in taken)
            label.setVisible(free)
            if free:
                taken.append(rect.adjusted(-4, -2, 4, 2))

    def design_rect(self) -> QRectF:
        """Bounding rect of what is drawn (devices, frames, blocks), no margin."""
        self.flush()
        x0, y0, x1, y1 = self._geom.bounds()
        rect = QRectF(QPointF(x0, y0), QPointF(x1, y1))
        for f in self._frame_items:
            rect = rect.united(f.rect)
        for b in self._block_items:
            rect = rect.united(b.rect)
        return rect.adjusted(-20, -20, 20, 20)

    def set_overview(self, on: bool) -> bool:
        """Show the quotient of the whole design (True) or devices; True if changed."""
        self.flush()
        if on == self.overview:
            return False
        self.overview = on
        self._refresh_structure()
        return True

    def wants_overview(self, rect: QRectF, px_per_unit: float | None = None) -> bool:
        """Whether a view of ``rect`` should use the quotient (semantic zoom).

        Yes when too many devices are in view, or (``px_per_unit`` given) when
        they would be specks a few pixels wide.
        """
        self.flush()
        n = len(self._geom.ids)
        if n < st.OVERVIEW_MIN_DEVICES or (
            not self.document.design.groups and n < 3 * st.OVERVIEW_VISIBLE_DEVICES
        ):
            return False
        shown = self._geom.count_in_rect(
            rect.left(), rect.top(), rect.right(), rect.bottom()
        )
        limit = st.OVERVIEW_VISIBLE_DEVICES
        # hysteresis, so a view at the threshold does not flicker between modes
        slack = 0.8 if self.overview else 1.0
        if shown > limit * slack:
            return True
        if px_per_unit is None or not self.document.design.groups or shown < 2:
            return False
        return px_per_unit * st.DEVICE_W < st.OVERVIEW_DEVICE_PX / slack

    # --- links ---------------------------------------------------------------

    def link_mask(self) -> np.ndarray:
        """Which links are drawn as single lines."""
        self.flush()
        return self._link_mask()

    def drawn_links(
        self,
    ) -> tuple[Geometry, np.ndarray, list[tuple[QColor, float, np.ndarray]]]:
        """Geometry, single-link mask and highlight layers for painting.

        As of the last update: never applies pending edits (safe inside paint).
        """
        return self._geom, self._link_mask(), self.link_highlights()

    def _link_mask(self) -> np.ndarray:
        mask = self._quotient.direct
        if mask.size != self._geom.la.size:
            return np.zeros(self._geom.la.size, bool)
        if self._only_rows is not None:
            keep = self._only_rows
            mask = mask & keep[self._geom.la] & keep[self._geom.lb]
        return mask

    def link_highlights(self) -> list[tuple[QColor, float, np.ndarray]]:
        """(colour, width, mask) layers drawn over the plain links."""
        if self._highlights is None:
            g = self._geom
            out: list[tuple[QColor, float, np.ndarray]] = []
            if self._cut is not None and self._cut[1]:
                cut = np.fromiter(
                    (i in self._cut[1] for i in g.link_ids), bool, len(g.link_ids)
                )
                out.append((st.CUT_LINK, 1.0, cut))
            if self._sel_links:
                sel = np.fromiter(
                    (i in self._sel_links for i in g.link_ids), bool, len(g.link_ids)
                )
                out.append((st.SELECTED, 3.0, sel))
            self._highlights = out
        return self._highlights

    def _bump(self) -> None:
        self.link_state += 1
        self._highlights = None
        self._links.invalidate()

    def invalidate_links(self) -> None:
        """Rebuild the link paths at the next paint (after a view-state change)."""
        self._bump()

    def label_transform(self) -> QTransform:
        """The device transform trunk labels were last decluttered for."""
        return QTransform(self._label_transform)

    def isolate(self, ids: set[str] | None) -> np.ndarray:
        """Show only devices ``ids`` and the links among them (None: all again).

        Groups, blocks and trunks are hidden meanwhile; returns the per-row mask
        of the devices kept (all True after ``isolate(None)``).
        """
        self.flush()
        g = self._geom
        if ids is None:
            for item in self._isolated:
                item.setVisible(True)
            self._isolated = []
            self._only_rows = None
            self._bump()
            return np.ones(len(g.ids), bool)
        self.set_overview(False)
        keep = np.fromiter((i in ids for i in g.ids), bool, len(g.ids))
        self._only_rows = keep
        hide: list[QGraphicsItem] = [
            item
            for did, item in self._items.items()
            if did not in ids and item.isVisible()
        ]
        hide += [f for f in self._frame_items if f.isVisible()]
        hide += [b for b in self._block_items if b.isVisible()]
        for line, label in self._trunk_items:
            hide += [x for x in (line, label) if x.isVisible()]
        for item in hide:
            item.setVisible(False)
        self._isolated += hide
        self._bump()
        return keep

    # --- selection and cut ---------------------------------------------------

    def selected_ids(self) -> list[str]:
        """Selected device ids (model order) then selected link ids."""
        self.flush()
        links = (
            [i for i in self._geom.link_ids if i in self._sel_links]
            if self._sel_links
            else []
        )
        return self._selected_devices() + links

    def _selected_devices(self) -> list[str]:
        row_of = self._geom.row_of
        return sorted((i for i in self._sel_devices if i in row_of), key=row_of.get)

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
        link_index = (
            set(self._geom.link_ids)
            if any(i not in self._geom.row_of for i in ids)
            else set()
        )
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
        for block, block_item in zip(q.blocks, self._block_items, strict=True):
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
            for k, lid in enumerate(self._geom.link_ids):
                if lid in cut[1] and q.link_trunk[k] >= 0:
                    cut_trunks.add(int(q.link_trunk[k]))
        for t, (line, label) in enumerate(self._trunk_items):
            on = t in cut_trunks
            pen = line.pen()
            pen.setColor(st.CUT_LINK if on else QColor(74, 90, 117, 200))
            line.setPen(pen)
            label.highlight = on
            label.update()

    # --- hit tests -------------------------------------------------------------

    def hit(self, pos: QPointF, tol: float) -> Hit | None:
        """The device, block, link or frame header under a scene point."""
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
        k = g.link_at(x, y, tol, self.link_mask())
        if k >= 0:
            return Hit("link", g.link_ids[k])
        for frame in sorted(self._frame_items, key=lambda f: f.zValue(), reverse=True):
            if frame.header_rect().contains(pos):
                return Hit("frame", frame.group_id)
        return None

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
        """Remember where the dragged devices start."""
        self.flush()
        rows = [self._geom.row_of[i] for i in ids if i in self._geom.row_of]
        self._drag_rows = np.asarray(rows, np.int64)
        self._drag_origin = self._geom.xy[self._drag_rows].copy()

    def drag_by(self, dx: float, dy: float) -> None:
        """Show the dragged devices moved by (dx, dy) (no model change yet)."""
        g = self._geom
        g.xy[self._drag_rows] = self._drag_origin + np.array([dx, dy])
        g.rows_moved(self._drag_rows)
        for r in self._drag_rows.tolist():
            item = self._items[g.ids[r]]
            item.setPos(g.xy[r, 0], g.xy[r, 1])
        moving = set(self._drag_rows.tolist())
        for block, block_item in zip(
            self._quotient.blocks, self._block_items, strict=True
        ):
            if moving.issuperset(block.rows.tolist()):
                block_item.setPos(dx, dy)
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
        self._drag_rows = np.zeros(0, np.int64)
        self._drag_origin = np.zeros((0, 2))
        self._bump()

    # --- rendering -------------------------------------------------------------

    def render_to(
        self,
        painter: QPainter,
        target: QRectF,
        *,
        selection_only: bool = False,
        ids: set[str] | None = None,
        labels: bool | None = None,
    ) -> None:
        """Draw the design (as shown, groups collapsed or not) into any painter.

        Works without a view: the level of detail follows the painter's scale,
        and a whole design too big to show device by device is drawn as its
        quotient (group blocks and trunks), as on screen. The output does not
        depend on the device's dpi (labels are sized in scene units, screen-
        sized text keeps its physical size). ``labels`` True always draws
        device labels (print), False never, None by the zoom rule.
        """
        from designer.qt.canvas.render import render_design

        render_design(
            self,
            painter,
            target,
            selection_only=selection_only,
            ids=ids,
            labels=labels,
        )
