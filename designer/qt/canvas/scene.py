"""DesignScene: mirrors a Document's design as thin items and answers hit tests.

The scene follows the document's typed events (:mod:`designer.core.events`)
and updates only what they touch. It owns no design state: positions, groups and
collapse flags are read from the model; selection, the cut overlay and the
overview flag are view state.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QTransform
from PySide6.QtWidgets import QGraphicsItem, QGraphicsLineItem, QGraphicsScene

from designer.catalog.schema import CatalogEntry
from designer.core.document import Document, Stage
from designer.core.events import (
    DevicesAdded,
    DevicesChanged,
    DevicesRemoved,
    Event,
    GroupsChanged,
    LinksAdded,
    LinksChanged,
    LinksRemoved,
    ids_of,
    replaced,
)
from designer.core.names import device_name
from designer.qt.canvas import style as st
from designer.qt.canvas.frames import FrameLayout
from designer.qt.canvas.hits import Hit, HitInputs, hit_at, trunk_at
from designer.qt.canvas.items import (
    BlockItem,
    DeviceItem,
    FrameItem,
    LabelItem,
)
from designer.qt.canvas.labels import (
    LabelInputs,
    LabelMemo,
    TitleItem,
    place_labels,
)
from designer.qt.canvas.links import LinkLayerItem
from designer.qt.canvas.marks import link_layers, mark_items
from designer.qt.canvas.trunks import sync_trunks
from designer.view import sizes as sz
from designer.view.device_labels import MIN_LABEL_PX
from designer.view.geometry import Geometry, same_ends
from designer.view.quotient import (
    Quotient,
    moved,
    quotient,
    recounted,
    relinked,
    with_devices,
)
from designer.view.selection import Selection
from designer.view.tooltips import trunk_text


class DesignScene(QGraphicsScene):
    """The design as a graphics scene (devices, links, groups, trunks, cut)."""

    selection_changed_ids = Signal(list)

    def __init__(
        self,
        document: Document,
        catalog: Mapping[str, CatalogEntry],
        parent: object | None = None,
        *,
        exporting: bool = False,
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
        self.selection = Selection()
        self._only_rows: np.ndarray | None = None
        self._highlights: list[tuple[QColor, float, np.ndarray]] | None = None
        self._label_transform = QTransform()
        self._label_bounds: QRectF | None = None
        self._label_memo = LabelMemo()
        self._hidden = np.zeros(0, bool)
        self._pending: list[Event] = []
        self._isolated: list[QGraphicsItem] = []
        self._titles: dict[tuple[str, str], TitleItem] = {}
        #: drawn for exports only (no screen-only hints; see offscreen.py)
        self.exporting = exporting
        #: device px per reference px of the painter an export draws into, and
        #: device labels forced on or off (None: by zoom); items.render_options
        self.text_scale = 1.0
        self.device_labels: bool | None = None
        self.min_label_px = MIN_LABEL_PX  # smallest device label (print: 6 pt)
        self._frames = FrameLayout()
        self._kinds: dict[str, tuple[str | None, str, str | None]] = {}
        self.setBackgroundBrush(QBrush(st.BACKGROUND))
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self._make_layers()
        document.subscribe(self._on_changes, Stage.VIEWS)
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
        document.subscribe(self._on_changes, Stage.VIEWS)
        self._pending = []
        self.selection.clear()
        self._rebuild_all()
        self.selection_changed_ids.emit([])

    def detach(self) -> None:
        """Stop listening to the document."""
        self.document.unsubscribe(self._on_changes)
        self._pending = []

    def _make_layers(self) -> None:
        self._links = LinkLayerItem(self)
        self.addItem(self._links)

    def _on_changes(self, changes: list[Event]) -> None:
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

    def _apply(self, events: list[Event]) -> None:
        if replaced(events):
            self._rebuild_all()
            return
        design = self.document.design
        g = self._geom
        g.apply(design, events)
        dev_added = ids_of(events, DevicesAdded)
        dev_removed = ids_of(events, DevicesRemoved)
        dev_touched = dev_added | dev_removed
        changed = ids_of(events, DevicesChanged)
        links = {
            "links_added": ids_of(events, LinksAdded),
            "links_removed": ids_of(events, LinksRemoved),
            "links_changed": ids_of(events, LinksChanged),
        }
        groups_changed = any(type(e) is GroupsChanged for e in events)
        gone = {i for i in dev_touched if i not in g.row_of}
        for did in gone:
            item = self._items.pop(did, None)
            if item is not None:
                self.removeItem(item)
            self._kinds.pop(did, None)
        self.selection.forget(gone, ())
        restyle = (dev_touched - gone) | (changed & g.row_of.keys())
        regrouped = groups_changed
        for did in restyle:
            before = self._kinds.get(did)
            item = self._items.get(did)
            if item is None:
                self._add_item(did)
            else:
                self._style_item(item)
            # a device that changed group, model or tier may move between blocks
            regrouped = regrouped or (
                before is not None and before != self._kinds.get(did)
            )
        self.selection.forget((), links["links_removed"] - links["links_added"])
        if regrouped:
            self._quotients.clear()
            self._refresh_structure(devices=None if groups_changed else restyle)
        elif dev_touched:
            # devices joined or left: carry the blocks over (None: build afresh)
            old = self._quotients.get(self.overview)
            q = with_devices(old, design, g, self.catalog) if old else None
            self._quotients = {self.overview: q} if q is not None else {}
            self._refresh_structure(devices=restyle)
        elif any(links.values()) or changed:
            q = self._quotient
            if links["links_added"] or links["links_removed"] or not same_ends(events):
                q = relinked(q, g)
            elif links["links_changed"]:
                q = recounted(q, g)  # cables, speed...: the lines stay
            if changed:
                q = moved(q, g)
            self._quotients = {self.overview: q}
            self._refresh_structure(frames=False, devices=restyle)
            if changed and not self.overview:
                self._frames.refit(self._geom, changed)
        if dev_removed or links["links_removed"]:
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
        model = entry.model if entry is not None else d.catalog_id
        sub = f"{model} · {tier}" if tier else model
        item.set_text(
            device_name(d.label, d.id, model), sub, model, d.group is not None
        )
        item.selected = d.id in self.selection.devices
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
        self._sync_blocks(q)
        if frames:
            # frames are re-fitted in place: an edit re-creates none of them
            reuse = {f.group_id: f for f in self._frame_items}
            if self.overview:
                self._frames.clear()
                new_frames = []
            else:
                new_frames = self._frames.build(design, self._geom, reuse)
            for frame in reuse.values():
                self.removeItem(frame)
            for frame in new_frames:
                if frame.scene() is None:
                    self.addItem(frame)
            self._frame_items = new_frames
        sync_trunks(self, self._trunk_items, q.trunks)
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
        # after the devices' visibility: frame titles avoid the devices shown
        self.declutter_labels(self._label_transform, self._label_bounds)
        self._update_scene_rect()
        self._apply_cut_and_selection(devices)

    def _sync_blocks(self, q: Quotient) -> None:
        """Block items for ``q``: the same blocks in the same order are updated in
        place (an edit); any other change re-creates them in the quotient's order,
        as a fresh scene stacks them."""
        hint = "double-click to zoom in" if self.overview else "double-click to expand"
        old = self._block_items
        if [b.key for b in q.blocks] == [item.key for item in old]:
            for item, b in zip(old, q.blocks, strict=True):
                item.set_block(
                    b.group_id,
                    QRectF(
                        QPointF(b.rect[0], b.rect[1]), QPointF(b.rect[2], b.rect[3])
                    ),
                    b.title,
                    b.summary,
                )
                item.hint = hint if b.group_id is not None else ""
            return
        for block_item in old:
            self.removeItem(block_item)
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
                item.hint = hint
            self.addItem(item)

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

    def declutter_labels(
        self, transform: QTransform, bounds: QRectF | None = None
    ) -> None:
        """Place titles and trunk labels for ``transform`` so no text collides.

        Group titles go inside their block when they fit, else beside it; frame
        names sit at the frame's top-left; trunk labels (biggest trunks first)
        slide along their trunk to a free spot or are left out. ``bounds``
        (device px of ``transform``) keeps titles inside an export's picture.
        """
        self.flush()
        self._label_transform = QTransform(transform)
        self._label_bounds = QRectF(bounds) if bounds is not None else None
        place_labels(self._label_inputs(), self._label_memo, transform, bounds)

    def _label_inputs(self) -> LabelInputs:
        """What the label layout reads, as it stands now."""
        return LabelInputs(
            blocks=[b for b in self._block_items if b.isVisible()],
            frames=[f for f in self._frame_items if f.isVisible()],
            trunks=self._quotient.trunks,
            trunk_items=self._trunk_items,
            xy=self._geom.xy,
            hidden=self._hidden,
            isolated=self._only_rows is not None,
            titles=self._titles,
            title_item=self.title_item,
        )

    def title_item(self, key: tuple[str, str]) -> TitleItem:
        """The title item for ``("block", key)`` or ``("frame", group id)``."""
        item = self._titles.get(key)
        if item is None:
            item = TitleItem()
            item.setVisible(False)
            self.addItem(item)
            self._titles[key] = item
        return item

    def titles(self) -> dict[tuple[str, str], TitleItem]:
        """Title items drawn outside blocks and frames (hidden when unused)."""
        return dict(self._titles)

    def trunk_items(self) -> list[tuple[QGraphicsLineItem, LabelItem]]:
        """(line, label) per trunk drawn, in the quotient's order."""
        self.flush()
        return list(self._trunk_items)

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
        if n < sz.OVERVIEW_MIN_DEVICES or (
            not self.document.design.groups and n < 3 * sz.OVERVIEW_VISIBLE_DEVICES
        ):
            return False
        shown = self._geom.count_in_rect(
            rect.left(), rect.top(), rect.right(), rect.bottom()
        )
        limit = sz.OVERVIEW_VISIBLE_DEVICES
        # hysteresis, so a view at the threshold does not flicker between modes
        slack = 0.8 if self.overview else 1.0
        if shown > limit * slack:
            return True
        if px_per_unit is None or not self.document.design.groups or shown < 2:
            return False
        return px_per_unit * sz.DEVICE_W < sz.OVERVIEW_DEVICE_PX / slack

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
            self._highlights = link_layers(self.selection, self._geom)
        return self._highlights

    def _bump(self) -> None:
        self.link_state += 1
        self._highlights = None
        self._links.invalidate()

    def invalidate_links(self) -> None:
        """Rebuild the link paths at the next paint (after a view-state change)."""
        self._bump()

    def cable_labels(self) -> list[tuple[str, float, float]]:
        """Cable counts drawn at the last paint: (text, scene x, scene y) each."""
        return list(self._links.cable_labels)

    def label_transform(self) -> QTransform:
        """The device transform trunk labels were last decluttered for."""
        return QTransform(self._label_transform)

    def label_bounds(self) -> QRectF | None:
        """The bounds (device px) labels were last kept within (None: none)."""
        return QRectF(self._label_bounds) if self._label_bounds is not None else None

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
        hide += [t for t in self._titles.values() if t.isVisible()]
        for item in hide:
            item.setVisible(False)
        self._isolated += hide
        self._bump()
        return keep

    # --- selection and the cut ------------------------------------------------

    def selected_ids(self) -> list[str]:
        """Selected device ids (model order) then selected link ids."""
        self.flush()
        g = self._geom
        sel = self.selection
        rows = g.link_rows(list(sel.links)).tolist() if sel.links else []
        return self._selected_devices() + [g.link_ids[r] for r in rows]

    def _selected_devices(self) -> list[str]:
        row_of = self._geom.row_of
        return sorted(
            (i for i in self.selection.devices if i in row_of), key=lambda i: row_of[i]
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
        self.selection.select(
            list(ids),
            devices=self._geom.row_of,
            links=self._geom.link_id_set(),
            add=add,
            toggle=toggle,
        )
        self._apply_cut_and_selection()
        self._bump()
        self.selection_changed_ids.emit(self.selected_ids())

    def set_cut(self, side_a: set[str] | None, cut_links: set[str] | None) -> None:
        """Colour side A / side B and highlight crossing links (None clears)."""
        self.flush()
        self.selection.set_cut(side_a, cut_links)
        self._apply_cut_and_selection()
        self._bump()

    def _apply_cut_and_selection(self, devices: set[str] | None = None) -> None:
        mark_items(
            self.selection,
            self._geom,
            self._quotient,
            self._items,
            self._block_items,
            self._trunk_items,
            devices,
        )

    # --- hit tests and queries ----------------------------------------------------

    def hit(self, pos: QPointF, tol: float) -> Hit | None:
        """The device, block, link, trunk or frame header under a scene point."""
        self.flush()
        return hit_at(
            HitInputs(
                geometry=self._geom,
                quotient=self._quotient,
                overview=self.overview,
                blocks=self._block_items,
                link_mask=self._link_mask(),
                trunk_items=self._trunk_items,
                label_transform=self._label_transform,
                frames=self._frame_items,
            ),
            pos,
            tol,
        )

    def trunk_at(self, pos: QPointF, tol: float) -> int:
        """Index of the shown trunk (line or label) under a scene point, or -1."""
        self.flush()
        return trunk_at(self._trunk_items, self._label_transform, pos, tol)

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
        return trunk_text(self._quotient.trunks[k])

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
