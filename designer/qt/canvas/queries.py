"""The scene's answers: hit tests, lookups and geometry questions.

Every answer first applies the edits still pending (``flush``), so it is about
the design as it is now; the state itself is written only by the follower
(:mod:`designer.qt.canvas.follower`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QTransform
from PySide6.QtWidgets import QGraphicsLineItem

from designer.core.model import Design
from designer.qt.canvas.hits import Hit, HitInputs, hit_at, trunk_at
from designer.qt.canvas.items import BlockItem, DeviceItem, FrameItem, LabelItem
from designer.qt.canvas.labels import TitleItem
from designer.qt.canvas.state import SceneState
from designer.view.canvas import sizes as sz
from designer.view.canvas.geometry import Geometry
from designer.view.canvas.quotient import Quotient
from designer.view.canvas.tooltips import trunk_text


class SceneQueries:
    """Read-only questions about what a scene shows (pending edits applied first).

    ``flush`` applies the pending edits; ``design`` is the design shown.
    """

    def __init__(
        self,
        state: SceneState,
        flush: Callable[[], None],
        design: Callable[[], Design],
    ) -> None:
        self.state = state
        self._flush = flush
        self._design = design

    # --- the arrays -----------------------------------------------------------

    def geometry(self) -> Geometry:
        """The design's arrays, up to date."""
        self._flush()
        return self.state.geom

    def current_quotient(self) -> Quotient:
        """The quotient in use (blocks for collapsed groups, or the overview)."""
        self._flush()
        return self.state.quotient

    def design_rect(self) -> QRectF:
        """Bounding rect of what is drawn (devices, frames, blocks), no margin."""
        self._flush()
        s = self.state
        x0, y0, x1, y1 = s.geom.bounds()
        rect = QRectF(QPointF(x0, y0), QPointF(x1, y1))
        for f in s.frame_items:
            rect = rect.united(f.rect)
        for b in s.block_items:
            rect = rect.united(b.rect)
        return rect.adjusted(-20, -20, 20, 20)

    def wants_overview(self, rect: QRectF, px_per_unit: float | None = None) -> bool:
        """Whether a view of ``rect`` should use the quotient (semantic zoom).

        Yes when too many devices are in view, or (``px_per_unit`` given) when
        they would be specks a few pixels wide.
        """
        self._flush()
        g = self.state.geom
        groups = bool(self._design().groups)
        n = len(g.ids)
        if n < sz.OVERVIEW_MIN_DEVICES or (
            not groups and n < 3 * sz.OVERVIEW_VISIBLE_DEVICES
        ):
            return False
        shown = g.count_in_rect(rect.left(), rect.top(), rect.right(), rect.bottom())
        limit = sz.OVERVIEW_VISIBLE_DEVICES
        # hysteresis, so a view at the threshold does not flicker between modes
        slack = 0.8 if self.state.overview else 1.0
        if shown > limit * slack:
            return True
        if px_per_unit is None or not groups or shown < 2:
            return False
        return px_per_unit * sz.DEVICE_W < sz.OVERVIEW_DEVICE_PX / slack

    # --- links ----------------------------------------------------------------

    def link_mask(self) -> np.ndarray:
        """Which links are drawn as single lines."""
        self._flush()
        return self.state.link_mask()

    def cable_labels(self) -> list[tuple[str, float, float]]:
        """Cable counts drawn at the last paint: (text, scene x, scene y) each."""
        return list(self.state.links.cable_labels)

    def label_transform(self) -> QTransform:
        """The device transform trunk labels were last decluttered for."""
        return QTransform(self.state.label_transform)

    def label_bounds(self) -> QRectF | None:
        """The bounds (device px) labels were last kept within (None: none)."""
        bounds = self.state.label_bounds
        return QRectF(bounds) if bounds is not None else None

    # --- the selection --------------------------------------------------------

    def selected_ids(self) -> list[str]:
        """Selected device ids (model order) then selected link ids."""
        self._flush()
        g = self.state.geom
        sel = self.state.selection
        rows = g.link_rows(list(sel.links)).tolist() if sel.links else []
        return self._selected_devices() + [g.link_ids[r] for r in rows]

    def selected_device_ids(self) -> list[str]:
        """Selected device ids in model order."""
        self._flush()
        return self._selected_devices()

    def _selected_devices(self) -> list[str]:
        row_of = self.state.geom.row_of
        return sorted(
            (i for i in self.state.selection.devices if i in row_of),
            key=lambda i: row_of[i],
        )

    # --- hit tests --------------------------------------------------------------

    def hit(self, pos: QPointF, tol: float) -> Hit | None:
        """The device, block, link, trunk or frame header under a scene point."""
        self._flush()
        s = self.state
        return hit_at(
            HitInputs(
                geometry=s.geom,
                quotient=s.quotient,
                overview=s.overview,
                blocks=s.block_items,
                link_mask=s.link_mask(),
                trunk_items=s.trunk_items,
                label_transform=s.label_transform,
                frames=s.frame_items,
            ),
            pos,
            tol,
        )

    def trunk_at(self, pos: QPointF, tol: float) -> int:
        """Index of the shown trunk (line or label) under a scene point, or -1."""
        self._flush()
        return trunk_at(self.state.trunk_items, self.state.label_transform, pos, tol)

    def device_ids_in_rect(self, rect: QRectF) -> list[str]:
        """Shown devices (or members of blocks) whose centre lies in ``rect``."""
        self._flush()
        g = self.state.geom
        rows = g.rows_in_rect(rect.left(), rect.top(), rect.right(), rect.bottom())
        return [g.ids[r] for r in rows.tolist()]

    # --- trunks and blocks ------------------------------------------------------

    def trunk_links(self, k: int) -> list[str]:
        """Ids of the links trunk ``k`` stands for (model order)."""
        self._flush()
        lt = self.state.quotient.link_trunk
        ids = self.state.geom.link_ids
        if lt.size != len(ids):
            return []
        return [ids[i] for i in np.nonzero(lt == k)[0].tolist()]

    def trunk_summary(self, k: int) -> str:
        """What trunk ``k`` carries, e.g. "256 links, 256 cables, 102.4 Tb/s"."""
        self._flush()
        return trunk_text(self.state.quotient.trunks[k])

    def trunk_ends_rect(self, k: int) -> QRectF:
        """Bounds of the devices at both ends of trunk ``k`` (where they really are)."""
        self._flush()
        q = self.state.quotient
        nb = len(q.blocks)
        rows = [
            q.blocks[c].rows if c < nb else np.array([c - nb], np.int64)
            for c in q.trunks[k].ends
        ]
        x0, y0, x1, y1 = self.state.geom.bounds(np.concatenate(rows))
        return QRectF(QPointF(x0, y0), QPointF(x1, y1))

    def block_members(self, key: str) -> list[str]:
        """Device ids drawn inside a block."""
        self._flush()
        for block in self.state.quotient.blocks:
            if block.key == key:
                return [self.state.geom.ids[r] for r in block.rows.tolist()]
        return []

    def members_rect(self, key: str) -> QRectF:
        """Bounds of the devices a block stands for (where they really are)."""
        self._flush()
        for block in self.state.quotient.blocks:
            if block.key == key:
                x0, y0, x1, y1 = self.state.geom.bounds(block.rows)
                return QRectF(QPointF(x0, y0), QPointF(x1, y1))
        return QRectF()

    # --- items ------------------------------------------------------------------

    def item_for(self, device_id: str) -> DeviceItem | None:
        """The device's item (tests and the view use it)."""
        self._flush()
        return self.state.items.get(device_id)

    def block_items(self) -> list[BlockItem]:
        """Current block items."""
        self._flush()
        return list(self.state.block_items)

    def frame_items(self) -> list[FrameItem]:
        """Current frame items."""
        self._flush()
        return list(self.state.frame_items)

    def trunk_items(self) -> list[tuple[QGraphicsLineItem, LabelItem]]:
        """(line, label) per trunk drawn, in the quotient's order."""
        self._flush()
        return list(self.state.trunk_items)

    def trunk_count(self) -> int:
        """Number of trunks drawn."""
        self._flush()
        return len(self.state.trunk_items)

    def titles(self) -> dict[tuple[str, str], TitleItem]:
        """Title items drawn outside blocks and frames (hidden when unused)."""
        return dict(self.state.titles)
