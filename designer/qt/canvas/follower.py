"""The scene's follower: collects a document's events and applies them in one pass.

Events arriving in one event-loop turn (a History jump, a script) are kept and
applied together, before the next repaint; anything that reads the scene
flushes them first. Applying them follows the device rows
(:class:`designer.view.canvas.geometry.Geometry`), carries the quotient over and brings
the items, frames, trunks, labels and the marks of the selection up to date,
touching only what the events name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QTimer
from PySide6.QtGui import QTransform
from PySide6.QtWidgets import QGraphicsScene

from designer.catalog.schema import CatalogEntry
from designer.core.document import Document, Stage
from designer.core.events import (
    DesignReplaced,
    DevicesAdded,
    DevicesChanged,
    DevicesRemoved,
    Event,
    GroupsChanged,
    LinksAdded,
    LinksChanged,
    LinksRemoved,
    PhysicalChanged,
    Reads,
    SettingsChanged,
    WorkloadChanged,
    ignore,
)
from designer.core.names import device_name
from designer.qt.canvas import style as st
from designer.qt.canvas.items import BlockItem, DeviceItem
from designer.qt.canvas.labels import LabelInputs, TitleItem, place_labels
from designer.qt.canvas.marks import mark_items
from designer.qt.canvas.state import SceneState
from designer.qt.canvas.trunks import sync_trunks
from designer.view.canvas.geometry import same_ends
from designer.view.canvas.quotient import Quotient, quotient
from designer.view.canvas.quotient_edits import (
    moved,
    recounted,
    rekinded,
    relinked,
    with_devices,
)


@dataclass
class _Step:
    """What a batch of events asks of the scene, by kind."""

    replaced: bool = False
    groups: bool = False
    added: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)
    changed: set[str] = field(default_factory=set)
    links_added: set[str] = field(default_factory=set)
    links_removed: set[str] = field(default_factory=set)
    links_changed: set[str] = field(default_factory=set)


def _reads(step: Callable[[], _Step]) -> Reads:
    """The scene's table: device and link rows by id, the group list; it
    shows neither the settings, the workload nor the racks."""

    def ids(pick: Callable[[_Step], set[str]]) -> Callable[[Event], None]:
        def handler(event: Event) -> None:
            assert isinstance(event, DevicesAdded | DevicesRemoved | DevicesChanged)
            pick(step()).update(event.ids)

        return handler

    def link_ids(pick: Callable[[_Step], set[str]]) -> Callable[[Event], None]:
        def handler(event: Event) -> None:
            assert isinstance(event, LinksAdded | LinksRemoved | LinksChanged)
            pick(step()).update(event.ids)

        return handler

    def groups(_event: Event) -> None:
        step().groups = True

    def replaced(_event: Event) -> None:
        step().replaced = True

    return Reads(
        "SceneFollower",
        {
            DevicesAdded: ids(lambda s: s.added),
            DevicesRemoved: ids(lambda s: s.removed),
            DevicesChanged: ids(lambda s: s.changed),
            LinksAdded: link_ids(lambda s: s.links_added),
            LinksRemoved: link_ids(lambda s: s.links_removed),
            LinksChanged: link_ids(lambda s: s.links_changed),
            GroupsChanged: groups,
            DesignReplaced: replaced,
            SettingsChanged: ignore,
            WorkloadChanged: ignore,
            PhysicalChanged: ignore,
        },
    )


class SceneFollower:
    """Mirrors a document into a scene's state and items (a VIEWS follower).

    ``pruned`` is called when an edit removed selected devices or links (the
    scene then says which remain selected).
    """

    def __init__(
        self,
        scene: QGraphicsScene,
        state: SceneState,
        document: Document,
        catalog: Mapping[str, CatalogEntry],
        pruned: Callable[[], None],
    ) -> None:
        self.scene = scene
        self.state = state
        self.document = document
        self.catalog = catalog
        self._pruned = pruned
        self._pending: list[Event] = []
        self._step = _Step()
        self.reads = _reads(lambda: self._step)
        document.subscribe(self._on_changes, Stage.VIEWS)

    # --- the document ---------------------------------------------------------

    def set_document(self, document: Document) -> None:
        """Follow another document and rebuild everything from it."""
        self.document.unsubscribe(self._on_changes)
        self.document = document
        document.subscribe(self._on_changes, Stage.VIEWS)
        self._pending = []
        self.rebuild()

    def detach(self) -> None:
        """Stop listening to the document."""
        self.document.unsubscribe(self._on_changes)
        self._pending = []

    def _on_changes(self, changes: list[Event]) -> None:
        # Posted before any item update, so it runs before the repaint.
        if not self._pending:
            # the scene is the context: a flush posted for a deleted scene is dropped
            QTimer.singleShot(0, self.scene, self.flush)
        self._pending.extend(changes)

    def has_pending(self) -> bool:
        """Whether edits were received that are not applied yet."""
        return bool(self._pending)

    def flush(self) -> None:
        """Apply the edits received since the last update, in one pass."""
        if not self._pending:
            return
        changes, self._pending = self._pending, []
        self._apply(changes)

    def _apply(self, events: list[Event]) -> None:
        self._step = step = _Step()
        self.reads(events)
        if step.replaced:
            self.rebuild()
            return
        s = self.state
        design = self.document.design
        g = s.geom
        g.apply(design, events)
        lines = self._dirty_lines()
        dev_removed = step.removed
        dev_touched = step.added | dev_removed
        changed = step.changed
        links = {
            "links_added": step.links_added,
            "links_removed": step.links_removed,
            "links_changed": step.links_changed,
        }
        groups_changed = step.groups
        gone = {i for i in dev_touched if i not in g.row_of}
        # a device in a group came or went: the group frames change
        framed = any(s.kinds.get(did, (None,))[0] is not None for did in gone)
        for did in gone:
            item = s.items.pop(did, None)
            if item is not None:
                self.scene.removeItem(item)
            s.kinds.pop(did, None)
        s.selection.forget(gone, ())
        restyle = (dev_touched - gone) | (changed & g.row_of.keys())
        regrouped = groups_changed
        rekinds: list[int] = []  # devices of another model or tier
        for did in restyle:
            before = s.kinds.get(did)
            item = s.items.get(did)
            if item is None:
                self._add_item(did)
            else:
                self._style_item(item)
            after = s.kinds.get(did)
            if before is None or before == after:
                continue
            if after is None or before[0] != after[0]:
                regrouped = True  # another group: its frames and blocks change
            else:
                rekinds.append(g.row_of[did])
        s.selection.forget((), links["links_removed"] - links["links_added"])
        if rekinds and not regrouped:
            # a device of another model or tier may move between blocks (with
            # devices also added or removed: made afresh, as with_devices
            # keeps the blocks of the devices it does not add)
            old = None if dev_touched else s.quotients.get(s.overview)
            kept = rekinded(old, design, g, self.catalog, rekinds) if old else None
            regrouped = kept is None
            if kept is not None:
                s.quotients = {s.overview: kept}
        if regrouped:
            earlier = s.quotient
            s.quotients.clear()
            self.refresh_structure(
                devices=None if groups_changed else restyle,
                lines=lines,
                lines_kept=g.lines_kept,
                since=earlier,
            )
        elif dev_touched:
            # devices joined or left: carry the blocks over (None: build afresh)
            old = s.quotients.get(s.overview)
            q = with_devices(old, design, g, self.catalog, g.splices) if old else None
            s.quotients = {s.overview: q} if q is not None else {}
            # frames stay when only ungrouped devices came or went
            framed = framed or any(
                s.kinds[did][0] is not None for did in step.added if did in s.kinds
            )
            remap = g.last_remap()
            frames = framed or remap is None or not s.frames.renumbered(remap)
            # blocks carried over: only the devices' own links change how they
            # are drawn; a quotient made afresh may draw any link otherwise
            self.refresh_structure(
                frames=frames, devices=restyle, lines=lines if q is not None else None
            )
        elif any(links.values()) or changed:
            earlier = s.quotient
            q = s.quotients.get(s.overview, earlier)  # (the summaries recounted)
            if links["links_added"] or links["links_removed"] or not same_ends(events):
                q = relinked(q, g, g.splices)
            elif links["links_changed"]:
                q = recounted(q, g, g.restyled)  # cables, speed...: lines stay
            if changed:
                q = moved(q, g)
            s.quotients = {s.overview: q}
            if changed and not s.overview:
                # before the scene rect is fitted around the frames
                s.frames.refit(g, changed)
            self.refresh_structure(
                frames=False,
                devices=restyle,
                lines=lines,
                lines_kept=g.lines_kept,
                since=earlier,
            )
        if dev_removed or links["links_removed"]:
            self._pruned()

    def rebuild(self) -> None:
        """Re-create every device item and the structure from the design."""
        s = self.state
        design = self.document.design
        for item in s.items.values():
            self.scene.removeItem(item)
        s.items = {}
        s.kinds = {}
        s.hidden = np.zeros(0, bool)
        s.geom.rebuild(design)
        for d in design.devices:
            self._add_item(d.id)
        s.quotients.clear()
        self.refresh_structure()

    def _add_item(self, device_id: str) -> None:
        item = DeviceItem(device_id, st.BACKGROUND, "", "")
        self.state.items[device_id] = item
        self._style_item(item)
        self.scene.addItem(item)

    def _style_item(self, item: DeviceItem) -> None:
        design = self.document.design
        r = self.state.geom.row_of[item.device_id]
        d = design.devices[r]
        entry = self.catalog.get(d.catalog_id)
        category = str(entry.category) if entry is not None else "other"
        tier = str(d.tier) if d.tier is not None else None
        self.state.kinds[d.id] = (d.group, d.catalog_id, tier)
        item.fill = st.device_fill(category, tier)
        model = entry.model if entry is not None else d.catalog_id
        sub = f"{model} · {tier}" if tier else model
        item.set_text(
            device_name(d.label, d.id, model), sub, model, d.group is not None
        )
        item.selected = d.id in self.state.selection.devices
        item.setPos(d.x, d.y)
        item.update()

    # --- structure: quotient, blocks, frames, trunks -------------------------

    def refresh_structure(
        self,
        *,
        frames: bool = True,
        devices: set[str] | None = None,
        lines: QRectF | None = None,
        lines_kept: bool = False,
        since: Quotient | None = None,
    ) -> None:
        """Rebuild blocks, trunks (and frames) from the quotient in use.

        ``devices`` limits the cut/selection restyle to those device items
        (None: all of them); ``frames`` False keeps the group frames as they are;
        ``lines`` is the scene area whose link lines changed (an empty rect:
        none; None: any may have, the whole link layer is repainted);
        ``lines_kept``: they are drawn as before, only their badges may change
        (the layer keeps its paths), provided the devices are in the same
        blocks as in ``since``, the quotient before (None: not known, so
        ``lines`` is taken as is).
        """
        s = self.state
        design = self.document.design
        q = s.quotients.get(s.overview)
        if q is None:
            q = quotient(design, s.geom, self.catalog, s.overview)
            s.quotients[s.overview] = q
        if since is not None and not (
            since.rep is q.rep or np.array_equal(since.rep, q.rep)
        ):
            # devices in other blocks (a block collapsed, a device regrouped):
            # other links may be drawn singly; with the same blocks a link that
            # stayed is drawn singly or not as before, and one that came or
            # went is among the changed lines
            lines, lines_kept = None, False
        s.quotient = q
        self._sync_blocks(q)
        if frames:
            # frames are re-fitted in place: an edit re-creates none of them
            reuse = {f.group_id: f for f in s.frame_items}
            if s.overview:
                s.frames.clear()
                new_frames = []
            else:
                new_frames = s.frames.build(design, s.geom, reuse)
            for frame in reuse.values():
                self.scene.removeItem(frame)
            for frame in new_frames:
                if frame.scene() is None:
                    self.scene.addItem(frame)
            s.frame_items = new_frames
        drawn = sync_trunks(self.scene, s.trunk_items, q.trunks, s.trunks_shown)
        s.trunks_shown = list(q.trunks)
        scale = _px_per_unit(s.label_transform)
        for box, width in drawn:  # see sync_trunks: the pens' width on screen
            if not scale > 0:
                self.scene.update()
                break
            pad = (width / 2 + 2) / scale
            self.scene.update(box.adjusted(-pad, -pad, pad, pad))
        # devices are top-level items (a hidden parent layer would make
        # QGraphicsView.render() paint every child): flip only what changed
        hidden = np.ones(len(s.geom.ids), bool) if s.overview else q.rep >= 0
        prev = s.hidden
        if prev.shape != hidden.shape:
            prev = s.geom.carry_over(prev, ~hidden)
        ids = s.geom.ids
        for r in np.nonzero(hidden != prev)[0].tolist():
            s.items[ids[r]].setVisible(not hidden[r])
        s.hidden = hidden
        # after the devices' visibility: frame titles avoid the devices shown
        self.place_labels(s.label_transform, s.label_bounds)
        self._update_scene_rect(lines, lines_kept)
        self.mark(devices)

    def _sync_blocks(self, q: Quotient) -> None:
        """Block items for ``q``: the same blocks in the same order are updated in
        place (an edit); any other change re-creates them in the quotient's order,
        as a fresh scene stacks them."""
        s = self.state
        hint = "double-click to zoom in" if s.overview else "double-click to expand"
        old = s.block_items
        if [b.key for b in q.blocks] == [item.key for item in old]:
            shown = s.blocks_shown if len(s.blocks_shown) == len(old) else []
            for k, (item, b) in enumerate(zip(old, q.blocks, strict=True)):
                if not (shown and shown[k] is b):  # the same block: as it is
                    item.set_block(b.group_id, _rect(b.rect), b.title, b.summary)
                item.hint = hint if b.group_id is not None else ""
            s.blocks_shown = list(q.blocks)
            return
        for block_item in old:
            self.scene.removeItem(block_item)
        s.block_items = [
            BlockItem(b.key, b.group_id, _rect(b.rect), b.title, b.summary)
            for b in q.blocks
        ]
        s.blocks_shown = list(q.blocks)
        for item in s.block_items:
            if item.group_id is not None:
                item.hint = hint
            self.scene.addItem(item)

    def _dirty_lines(self) -> QRectF | None:
        """The scene area of the link lines the geometry's last step changed,
        widened by what is drawn around a line at the current zoom (its pen,
        a cable-count badge); None when not known."""
        g = self.state.geom
        if g.dirty is None:
            return None
        box = g.dirty_bounds()
        if box is None:
            return QRectF()
        scale = _px_per_unit(self.state.label_transform)
        if not scale > 0:
            return None
        pad = _LINE_PAD_PX / scale
        x0, y0, x1, y1 = box
        return QRectF(x0 - pad, y0 - pad, x1 - x0 + 2 * pad, y1 - y0 + 2 * pad)

    def _update_scene_rect(
        self, lines: QRectF | None = None, lines_kept: bool = False
    ) -> None:
        """Fit the scene rect around what is drawn; repaint the link lines of
        ``lines`` (see :meth:`refresh_structure`), all of them when the rect
        changed."""
        s = self.state
        x0, y0, x1, y1 = s.geom.bounds()
        for f in s.frame_items:
            r = f.rect
            x0, y0 = min(x0, r.left()), min(y0, r.top())
            x1, y1 = max(x1, r.right()), max(y1, r.bottom())
        margin = max(400.0, 0.15 * max(x1 - x0, y1 - y0))
        rect = QRectF(
            x0 - margin, y0 - margin, x1 - x0 + 2 * margin, y1 - y0 + 2 * margin
        )
        if rect != self.scene.sceneRect() or rect != s.links.boundingRect():
            self.scene.setSceneRect(rect)
            s.links.set_bounds(rect)
            lines, lines_kept = None, False
        if lines_kept and lines is not None:
            s.links.relabel(lines)
        else:
            s.bump(lines)

    # --- labels and marks ------------------------------------------------------

    def place_labels(self, transform: QTransform, bounds: QRectF | None) -> None:
        """Place titles and trunk labels for ``transform`` (see the scene's
        ``declutter_labels``), and remember both for the next edit."""
        s = self.state
        s.label_transform = QTransform(transform)
        s.label_bounds = QRectF(bounds) if bounds is not None else None
        inputs = LabelInputs(
            blocks=[b for b in s.block_items if b.isVisible()],
            frames=[f for f in s.frame_items if f.isVisible()],
            trunks=s.quotient.trunks,
            trunk_items=s.trunk_items,
            xy=s.geom.xy,
            hidden=s.hidden,
            isolated=s.only_rows is not None,
            titles=s.titles,
            title_item=self._title_item,
        )
        place_labels(inputs, s.label_memo, transform, bounds)

    def _title_item(self, key: tuple[str, str]) -> TitleItem:
        """The title item for ``("block", key)`` or ``("frame", group id)``."""
        item = self.state.titles.get(key)
        if item is None:
            item = TitleItem()
            item.setVisible(False)
            self.scene.addItem(item)
            self.state.titles[key] = item
        return item

    def mark(self, devices: set[str] | None = None) -> None:
        """Colour the cut and the selection on the items (``devices``: only
        those device items; None: all)."""
        s = self.state
        mark_items(
            s.selection,
            s.geom,
            s.quotient,
            s.items,
            s.block_items,
            s.trunk_items,
            devices,
        )


_LINE_PAD_PX = 48.0
"""Screen pixels around a changed line that are repainted with it: its pen
(at most a few pixels) and a cable-count badge centred on it ("×128" is
~40 px wide at the small font)."""


def _px_per_unit(transform: QTransform) -> float:
    """Screen pixels per scene unit along the view's less magnified axis (a
    stretched overview magnifies y more): a pad of n pixels is n / this."""
    return min(abs(transform.m11()), abs(transform.m22()))


def _rect(r: tuple[float, float, float, float]) -> QRectF:
    return QRectF(QPointF(r[0], r[1]), QPointF(r[2], r[3]))
