"""What a DesignScene shows right now: the arrays, the quotient and the items.

One object shared by the scene's two collaborators: the follower
(:mod:`designer.qt.canvas.follower`) writes it when it applies the document's
events, the queries (:mod:`designer.qt.canvas.queries`) read it. It holds no
design state the model lacks: positions, groups and collapse flags come from
the model (through the geometry and the quotient); the selection, the cut, the
overview flag and the isolation are view state.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QTransform
from PySide6.QtWidgets import QGraphicsItem

from designer.qt.canvas.frames import FrameLayout
from designer.qt.canvas.items import BlockItem, DeviceItem, FrameItem
from designer.qt.canvas.labels import LabelMemo, TitleItem
from designer.qt.canvas.links import LinkLayerItem, LinkSource
from designer.qt.canvas.marks import link_layers
from designer.qt.canvas.trunks import TrunkItems
from designer.view.canvas.geometry import Geometry
from designer.view.canvas.quotient import Block, Quotient, Trunk
from designer.view.canvas.selection import Selection


class SceneState:
    """The scene's arrays and items, as of the last applied edit."""

    def __init__(self, links: LinkSource) -> None:
        self.geom = Geometry()
        #: the quotient of the whole design is drawn (semantic zoom)
        self.overview = False
        #: bumped whenever the links drawn or their highlights change
        self.link_state = 0
        self.items: dict[str, DeviceItem] = {}
        #: (group, catalog id, tier) per device: a change moves it between blocks
        self.kinds: dict[str, tuple[str | None, str, str | None]] = {}
        self.quotient = Quotient(rep=np.zeros(0, np.int64))
        self.quotients: dict[bool, Quotient] = {}
        self.block_items: list[BlockItem] = []
        self.frame_items: list[FrameItem] = []
        self.trunk_items: TrunkItems = []
        #: the blocks and trunks the block and trunk items show now (an edit
        #: that keeps one, the very same object, leaves its item alone)
        self.blocks_shown: list[Block] = []
        self.trunks_shown: list[Trunk] = []
        self.titles: dict[tuple[str, str], TitleItem] = {}
        self.frames = FrameLayout()
        self.selection = Selection()
        #: per-row mask of the devices an isolation keeps (None: all shown)
        self.only_rows: np.ndarray | None = None
        self.isolated: list[QGraphicsItem] = []
        self.hidden = np.zeros(0, bool)
        self.highlights: list[tuple[QColor, float, np.ndarray]] | None = None
        self.label_transform = QTransform()
        self.label_bounds: QRectF | None = None
        self.label_memo = LabelMemo()
        self.links = LinkLayerItem(links)

    def link_mask(self) -> np.ndarray:
        """Which links are drawn as single lines (never applies pending edits)."""
        mask = self.quotient.direct
        if mask.size != self.geom.la.size:
            return np.zeros(self.geom.la.size, bool)
        if self.only_rows is not None:
            keep = self.only_rows
            mask = mask & keep[self.geom.la] & keep[self.geom.lb]
        return mask

    def link_highlights(self) -> list[tuple[QColor, float, np.ndarray]]:
        """(colour, width, mask) layers drawn over the plain links."""
        if self.highlights is None:
            self.highlights = link_layers(self.selection, self.geom)
        return self.highlights

    def bump(self, lines: QRectF | None = None) -> None:
        """The links or their marks changed: rebuild the paths at the next paint.

        ``lines``: the scene area where lines changed (repainted; an empty rect:
        none did), None: anywhere (the whole layer is repainted)."""
        self.link_state += 1
        self.highlights = None
        self.links.invalidate(lines)
