"""DesignScene: mirrors a Document's design as thin items and answers hit tests.

The scene is the face the view, the tools and the exports see; the work is
done by two collaborators over one :class:`~designer.qt.canvas.state.SceneState`:

- :class:`~designer.qt.canvas.follower.SceneFollower` follows the document's
  typed events (:mod:`designer.core.events`), collects them and applies them
  once per event-loop turn, updating only what they touch;
- :class:`~designer.qt.canvas.queries.SceneQueries` answers hit tests, lookups
  and geometry questions (pending edits applied first).

What stays here is the view state the user changes: the selection and the
cut, the overview flag, an isolation, and where labels are placed. The scene
owns no design state: positions, groups and collapse flags are read from the
model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Signal
from PySide6.QtGui import QBrush, QColor, QTransform
from PySide6.QtWidgets import QGraphicsItem, QGraphicsLineItem, QGraphicsScene

from designer.catalog.schema import CatalogEntry
from designer.core.document import Document
from designer.qt.canvas import style as st
from designer.qt.canvas.follower import SceneFollower
from designer.qt.canvas.hits import Hit
from designer.qt.canvas.items import BlockItem, DeviceItem, FrameItem, LabelItem
from designer.qt.canvas.labels import TitleItem
from designer.qt.canvas.queries import SceneQueries
from designer.qt.canvas.state import SceneState
from designer.view.canvas.device_labels import MIN_LABEL_PX
from designer.view.canvas.geometry import Geometry
from designer.view.canvas.quotient import Quotient
from designer.view.canvas.selection import Selection


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
        #: drawn for exports only (no screen-only hints; see offscreen.py)
        self.exporting = exporting
        #: device px per reference px of the painter an export draws into, and
        #: device labels forced on or off (None: by zoom); items.render_options
        self.text_scale = 1.0
        self.device_labels: bool | None = None
        self.min_label_px = MIN_LABEL_PX  # smallest device label (print: 6 pt)
        self.setBackgroundBrush(QBrush(st.BACKGROUND))
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self.state = SceneState(self)
        self.addItem(self.state.links)
        self.follower = SceneFollower(
            self, self.state, document, catalog, self._emit_selection
        )
        self.queries = SceneQueries(
            self.state, self.follower.flush, lambda: self.follower.document.design
        )
        self.follower.rebuild()

    # --- document -----------------------------------------------------------

    @property
    def document(self) -> Document:
        """The document shown."""
        return self.follower.document

    @property
    def geometry(self) -> Geometry:
        """The design's arrays, brought up to date with pending edits first."""
        return self.queries.geometry()

    @property
    def overview(self) -> bool:
        """Whether the quotient of the whole design is drawn (semantic zoom)."""
        return self.state.overview

    @property
    def link_state(self) -> int:
        """Bumped whenever the links drawn or their highlights change."""
        return self.state.link_state

    @property
    def selection(self) -> Selection:
        """The selected devices and links, and the cut shown."""
        return self.state.selection

    def set_document(self, document: Document) -> None:
        """Mirror another document."""
        self.state.selection.clear()
        self.follower.set_document(document)
        self.selection_changed_ids.emit([])

    def detach(self) -> None:
        """Stop listening to the document."""
        self.follower.detach()

    def has_pending(self) -> bool:
        """Whether edits were received that the scene has not applied yet."""
        return self.follower.has_pending()

    def flush(self) -> None:
        """Apply the edits received since the last update, in one pass."""
        self.follower.flush()

    def rebuild(self) -> None:
        """Re-create every item from the design (what opening a design costs)."""
        self.follower.rebuild()

    def _emit_selection(self) -> None:
        self.selection_changed_ids.emit(self.queries.selected_ids())

    # --- view state: overview, labels, isolation ------------------------------

    def set_overview(self, on: bool) -> bool:
        """Show the quotient of the whole design (True) or devices; True if changed."""
        self.flush()
        if on == self.state.overview:
            return False
        self.state.overview = on
        self.follower.refresh_structure()
        return True

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
        self.follower.place_labels(transform, bounds)

    def isolate(self, ids: set[str] | None) -> np.ndarray:
        """Show only devices ``ids`` and the links among them (None: all again).

        Groups, blocks and trunks are hidden meanwhile; returns the per-row mask
        of the devices kept (all True after ``isolate(None)``).
        """
        self.flush()
        s = self.state
        g = s.geom
        if ids is None:
            for item in s.isolated:
                item.setVisible(True)
            s.isolated = []
            s.only_rows = None
            s.bump()
            return np.ones(len(g.ids), bool)
        self.set_overview(False)
        keep = np.fromiter((i in ids for i in g.ids), bool, len(g.ids))
        s.only_rows = keep
        hide: list[QGraphicsItem] = [
            item for did, item in s.items.items() if did not in ids and item.isVisible()
        ]
        hide += [f for f in s.frame_items if f.isVisible()]
        hide += [b for b in s.block_items if b.isVisible()]
        for line, label in s.trunk_items:
            hide += [x for x in (line, label) if x.isVisible()]
        hide += [t for t in s.titles.values() if t.isVisible()]
        for item in hide:
            item.setVisible(False)
        s.isolated += hide
        s.bump()
        return keep

    # --- selection and the cut ------------------------------------------------

    def select(
        self, ids: Iterable[str], add: bool = False, toggle: bool = False
    ) -> None:
        """Select devices and links by id (replacing, adding or toggling)."""
        self.flush()
        g = self.state.geom
        self.state.selection.select(
            list(ids), devices=g.row_of, links=g.link_id_set(), add=add, toggle=toggle
        )
        self.follower.mark()
        self.state.bump()
        self.selection_changed_ids.emit(self.queries.selected_ids())

    def set_cut(self, side_a: set[str] | None, cut_links: set[str] | None) -> None:
        """Colour side A / side B and highlight crossing links (None clears)."""
        self.flush()
        self.state.selection.set_cut(side_a, cut_links)
        self.follower.mark()
        self.state.bump()

    # --- links ----------------------------------------------------------------

    def drawn_links(
        self,
    ) -> tuple[Geometry, np.ndarray, list[tuple[QColor, float, np.ndarray]]]:
        """Geometry, single-link mask and highlight layers for painting.

        As of the last update: never applies pending edits (safe inside paint).
        """
        s = self.state
        return s.geom, s.link_mask(), s.link_highlights()

    def link_highlights(self) -> list[tuple[QColor, float, np.ndarray]]:
        """(colour, width, mask) layers drawn over the plain links."""
        return self.state.link_highlights()

    def invalidate_links(self) -> None:
        """Rebuild the link paths at the next paint (after a view-state change)."""
        self.state.bump()

    # --- questions (answered by the queries) ------------------------------------

    def current_quotient(self) -> Quotient:
        """The quotient in use (blocks for collapsed groups, or the overview)."""
        return self.queries.current_quotient()

    def design_rect(self) -> QRectF:
        """Bounding rect of what is drawn (devices, frames, blocks), no margin."""
        return self.queries.design_rect()

    def wants_overview(self, rect: QRectF, px_per_unit: float | None = None) -> bool:
        """Whether a view of ``rect`` should use the quotient (semantic zoom)."""
        return self.queries.wants_overview(rect, px_per_unit)

    def link_mask(self) -> np.ndarray:
        """Which links are drawn as single lines."""
        return self.queries.link_mask()

    def cable_labels(self) -> list[tuple[str, float, float]]:
        """Cable counts drawn at the last paint: (text, scene x, scene y) each."""
        return self.queries.cable_labels()

    def label_transform(self) -> QTransform:
        """The device transform trunk labels were last decluttered for."""
        return self.queries.label_transform()

    def label_bounds(self) -> QRectF | None:
        """The bounds (device px) labels were last kept within (None: none)."""
        return self.queries.label_bounds()

    def selected_ids(self) -> list[str]:
        """Selected device ids (model order) then selected link ids."""
        return self.queries.selected_ids()

    def selected_device_ids(self) -> list[str]:
        """Selected device ids in model order."""
        return self.queries.selected_device_ids()

    def hit(self, pos: QPointF, tol: float) -> Hit | None:
        """The device, block, link, trunk or frame header under a scene point."""
        return self.queries.hit(pos, tol)

    def trunk_at(self, pos: QPointF, tol: float) -> int:
        """Index of the shown trunk (line or label) under a scene point, or -1."""
        return self.queries.trunk_at(pos, tol)

    def trunk_links(self, k: int) -> list[str]:
        """Ids of the links trunk ``k`` stands for (model order)."""
        return self.queries.trunk_links(k)

    def trunk_summary(self, k: int) -> str:
        """What trunk ``k`` carries, e.g. "256 links, 256 cables, 102.4 Tb/s"."""
        return self.queries.trunk_summary(k)

    def trunk_ends_rect(self, k: int) -> QRectF:
        """Bounds of the devices at both ends of trunk ``k``."""
        return self.queries.trunk_ends_rect(k)

    def block_members(self, key: str) -> list[str]:
        """Device ids drawn inside a block."""
        return self.queries.block_members(key)

    def members_rect(self, key: str) -> QRectF:
        """Bounds of the devices a block stands for (where they really are)."""
        return self.queries.members_rect(key)

    def device_ids_in_rect(self, rect: QRectF) -> list[str]:
        """Shown devices (or members of blocks) whose centre lies in ``rect``."""
        return self.queries.device_ids_in_rect(rect)

    def item_for(self, device_id: str) -> DeviceItem | None:
        """The device's item (tests and the view use it)."""
        return self.queries.item_for(device_id)

    def block_items(self) -> list[BlockItem]:
        """Current block items."""
        return self.queries.block_items()

    def frame_items(self) -> list[FrameItem]:
        """Current frame items."""
        return self.queries.frame_items()

    def trunk_items(self) -> list[tuple[QGraphicsLineItem, LabelItem]]:
        """(line, label) per trunk drawn, in the quotient's order."""
        return self.queries.trunk_items()

    def trunk_count(self) -> int:
        """Number of trunks drawn."""
        return self.queries.trunk_count()

    def titles(self) -> dict[tuple[str, str], TitleItem]:
        """Title items drawn outside blocks and frames (hidden when unused)."""
        return self.queries.titles()
