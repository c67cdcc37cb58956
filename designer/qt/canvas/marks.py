"""The selection and the bisection cut drawn on the canvas's items.

Device items are outlined when selected and filled by cut side; a block is
selected when all its members are, and tinted by the share of its members on
side A; trunks all of whose links are selected (or any on the cut) are coloured.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtGui import QColor

from designer.qt.canvas import style as st

if TYPE_CHECKING:
    from PySide6.QtWidgets import QGraphicsLineItem

    from designer.qt.canvas.items import BlockItem, DeviceItem, LabelItem
    from designer.view.canvas.geometry import Geometry
    from designer.view.canvas.quotient import Quotient
    from designer.view.canvas.selection import Selection

TRUNK_PEN = QColor(74, 90, 117, 200)
MIXED_BLOCK = QColor("#b9a6d6")


def mark_items(
    sel: Selection,
    geom: Geometry,
    quotient: Quotient,
    items: Mapping[str, DeviceItem],
    blocks: Sequence[BlockItem],
    trunk_items: Sequence[tuple[QGraphicsLineItem, LabelItem]],
    devices: Iterable[str] | None = None,
) -> None:
    """Restyle items for ``sel`` (only ``devices``' items when given)."""
    cut = sel.cut
    chosen = (
        items.items()
        if devices is None
        else [(d, items[d]) for d in devices if d in items]
    )
    for did, item in chosen:
        on = did in sel.devices
        fill = None if cut is None else (st.CUT_A if did in cut.side_a else st.CUT_B)
        if on != item.selected or fill != item.cut_fill:
            item.selected = on
            item.cut_fill = fill
            item.update()
    ids = geom.ids
    if cut is None and not sel.devices:
        # nothing to show on blocks: no member lists (20,000 ids at 100K GPUs)
        for block_item in blocks:
            if block_item.selected or block_item.cut_fill is not None:
                block_item.selected = False
                block_item.cut_fill = None
                block_item.update()
    else:
        for block, block_item in zip(quotient.blocks, blocks, strict=False):
            members = [ids[r] for r in block.rows.tolist()]
            block_item.selected = bool(members) and all(
                m in sel.devices for m in members
            )
            if cut is None:
                block_item.cut_fill = None
            else:
                share = sum(m in cut.side_a for m in members) / max(1, len(members))
                block_item.cut_fill = (
                    st.CUT_A if share == 1 else st.CUT_B if share == 0 else MIXED_BLOCK
                )
            block_item.update()
    cut_trunks: set[int] = set()
    if cut is not None and quotient.link_trunk.size == len(geom.link_ids):
        trunks = quotient.link_trunk[geom.link_rows(list(cut.links))]
        cut_trunks = set(trunks[trunks >= 0].tolist())
    chosen_trunks = selected_trunks(sel, geom, quotient, len(trunk_items))
    for t, (line, label) in enumerate(trunk_items):
        on = t in cut_trunks
        pen = line.pen()
        pen.setColor(
            st.CUT_LINK if on else st.SELECTED if t in chosen_trunks else TRUNK_PEN
        )
        line.setPen(pen)
        label.highlight = on
        label.update()


def selected_trunks(
    sel: Selection, geom: Geometry, quotient: Quotient, n_trunks: int
) -> set[int]:
    """Trunks all of whose links are selected."""
    lt = quotient.link_trunk
    ids = geom.link_ids
    if not sel.links or lt.size != len(ids) or not n_trunks:
        return set()
    chosen = np.zeros(len(ids), bool)
    chosen[geom.link_rows(list(sel.links))] = True
    bundled = lt >= 0
    total = np.bincount(lt[bundled], minlength=n_trunks)
    picked = np.bincount(lt[bundled & chosen], minlength=n_trunks)
    return set(np.nonzero((total > 0) & (picked == total))[0].tolist())


def link_layers(
    sel: Selection, geom: Geometry
) -> list[tuple[QColor, float, np.ndarray]]:
    """(colour, width, per-link mask) layers drawn over the plain links."""
    out: list[tuple[QColor, float, np.ndarray]] = []
    if sel.cut is not None and sel.cut.links:
        cut = np.zeros(len(geom.link_ids), bool)
        cut[geom.link_rows(list(sel.cut.links))] = True
        out.append((st.CUT_LINK, 1.0, cut))
    if sel.links:
        mask = np.zeros(len(geom.link_ids), bool)
        mask[geom.link_rows(list(sel.links))] = True
        out.append((st.SELECTED, 3.0, mask))
    return out
