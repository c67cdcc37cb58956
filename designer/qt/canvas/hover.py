"""Hover tooltips of the canvas: the text for whatever a hit test found, shown.

The texts come from :mod:`designer.view.canvas.tooltips`; this module gathers what
they need (the device, its group, the links it has) from the scene's arrays, so
a hover over a device of a 100,000-GPU design counts its links in one pass over
two integer columns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, assert_never

import numpy as np
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QToolTip, QWidget

from designer.catalog.schema import CatalogEntry
from designer.qt.canvas.hits import (
    BlockHit,
    DeviceHit,
    FrameHit,
    Hit,
    LinkHit,
    TrunkHit,
)
from designer.view.canvas.quotient import block_summary
from designer.view.canvas.tooltips import device_tooltip, group_tooltip, link_tooltip

if TYPE_CHECKING:
    from designer.core.model import Design
    from designer.qt.canvas.scene import DesignScene


def show_tooltip(
    event: QHelpEvent,
    viewport: QWidget,
    scene: DesignScene,
    design: Design,
    catalog: Mapping[str, CatalogEntry],
    hit: Hit | None,
) -> None:
    """Show the text for ``hit`` at the event's place, or hide the tooltip."""
    text = tooltip_text(scene, design, catalog, hit) if hit is not None else ""
    if text:
        QToolTip.showText(event.globalPos(), text, viewport)
    else:
        QToolTip.hideText()
        event.ignore()


def tooltip_text(
    scene: DesignScene,
    design: Design,
    catalog: Mapping[str, CatalogEntry],
    hit: Hit,
) -> str:
    """The hover text for ``hit`` ('' when there is nothing to say)."""
    g = scene.geometry
    groups = design.group_map()
    match hit:
        case DeviceHit(id=device):
            r = g.row_of.get(device)
            if r is None:
                return ""
            d = design.devices[r]
            touching = (g.la == r) | (g.lb == r)
            cables = int(g.cables[touching].sum()) if touching.any() else 0
            group = groups.get(d.group) if d.group is not None else None
            return device_tooltip(
                d,
                catalog.get(d.catalog_id),
                group,
                int(np.count_nonzero(touching)),
                cables,
            )
        case LinkHit(id=link_id):
            link = design.links.get(link_id)
            if link is None:
                return ""
            names = {
                i: (design.devices[g.row_of[i]].label or i) if i in g.row_of else i
                for i in (link.a, link.b)
            }
            return link_tooltip(link, names[link.a], names[link.b])
        case TrunkHit(index=k):
            summary = scene.trunk_summary(k)
            return f"Trunk: {summary}\ndouble-click to zoom to its ends"
        case BlockHit(id=key):
            block = next((b for b in scene.block_items() if b.key == key), None)
            if block is None:
                return ""
            members = len(scene.block_members(key))
            group = groups.get(block.group_id) if block.group_id is not None else None
            if group is None:
                return f"{block.title}\n{members:,} devices: {block.summary}"
            return group_tooltip(group, members, block.summary, True)
        case FrameHit(id=group_id):
            group = groups.get(group_id)
            if group is None:
                return ""
            rows = _member_rows(design, group_id)
            cat_ids = [d.catalog_id for d in design.devices]
            summary = block_summary(rows, cat_ids, catalog)
            return group_tooltip(group, int(rows.size), summary, False)
        case _:
            assert_never(hit)


def _member_rows(design: Design, group_id: str) -> np.ndarray:
    """Rows of the devices in a group or its sub-groups."""
    parent = {g.id: g.parent for g in design.groups}
    known: dict[str, bool] = {group_id: True}

    def within(gid: str | None) -> bool:
        chain: list[str] = []
        while gid is not None and gid not in known and gid not in chain:
            chain.append(gid)
            gid = parent.get(gid)
        answer = known.get(gid, False) if gid is not None else False
        known.update(dict.fromkeys(chain, answer))
        return answer

    return np.array(
        [r for r, d in enumerate(design.devices) if within(d.group)], np.int64
    )
