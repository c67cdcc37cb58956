"""What a right-click on the canvas offers: the actions that apply to the item
under the mouse and to the selection (no Qt).

The menu only lists actions; each one runs the same command or gesture as the
toolbar, the Design menu and Properties, so a refusal reads the same wherever
it comes from (the rules' reason, not a greyed-out entry).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from designer.catalog.schema import CatalogEntry, Category
from designer.core.formatting import plural
from designer.core.model import Design


class TargetKind(StrEnum):
    """What a right-click can land on (the canvas' hit types, and the canvas)."""

    CANVAS = "canvas"
    DEVICE = "device"
    LINK = "link"
    BLOCK = "block"
    FRAME = "frame"
    TRUNK = "trunk"


@dataclass(frozen=True)
class Target:
    """What was right-clicked: a device, link, block, frame (group), trunk or
    the empty canvas."""

    kind: TargetKind
    id: str = ""
    group_id: str | None = None
    """The group a block or frame stands for, or the clicked device's group."""
    group_name: str = ""
    trunk: int | None = None
    """The trunk's index in the current quotient (a trunk target)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", TargetKind(self.kind))  # a name is checked


@dataclass(frozen=True)
class Action:
    """One menu entry: its key (what the canvas runs), text and tooltip."""

    key: str
    text: str
    tip: str = ""
    enabled: bool = True


Entry = Action | None
"""An action, or None for a separator."""


def _kinds(
    design: Design, catalog: Mapping[str, CatalogEntry], devices: Sequence[str]
) -> tuple[int, int]:
    """How many selected devices are GPU nodes and how many are switches."""
    chosen = set(devices)
    nodes = switches = 0
    for d in design.devices:
        if d.id not in chosen:
            continue
        entry = catalog.get(d.catalog_id)
        if entry is None:
            continue
        if entry.gpus:
            nodes += 1
        elif entry.category is Category.SWITCH:
            switches += 1
    return nodes, switches


def _what(devices: int, links: int) -> str:
    parts = [plural(devices, "device")] if devices else []
    if links:
        parts.append(plural(links, "link"))
    return " and ".join(parts)


def menu_actions(
    target: Target,
    design: Design,
    catalog: Mapping[str, CatalogEntry],
    devices: Sequence[str],
    links: Sequence[str],
    *,
    can_paste: bool = False,
    overview: bool = False,
) -> list[Entry]:
    """The entries of the context menu for ``target`` with this selection.

    ``devices`` and ``links`` are the selection after the right-click selected
    what it landed on; ``overview``: blocks stand for groups at low zoom (a
    block then zooms in instead of expanding).
    """
    if target.kind is TargetKind.CANVAS:
        return [
            Action("paste", "Paste", "Paste the copied devices", can_paste),
            Action("select_all", "Select All"),
            None,
            Action("fit", "Fit to View", "Show the whole design (F)"),
            Action("auto_layout", "Auto-Layout by Tier"),
            None,
            Action("design_properties", "Design Properties", "Name, purpose, notes"),
        ]
    out: list[Entry] = []
    n_dev, n_link = len(devices), len(links)
    nodes, switches = _kinds(design, catalog, devices) if n_dev else (0, 0)
    if n_dev == 2:
        out.append(Action("connect", "Connect", "Join the two as the rules plan it"))
        out.append(
            Action("connect_oob", "Connect Out-of-Band", "Join their management ports")
        )
    elif n_dev == 1 and target.kind is TargetKind.DEVICE:
        out.append(
            Action(
                "connect_from",
                "Connect From Here…",
                "Then click the device to connect it to (Esc cancels)",
            )
        )
    if nodes and switches:
        out.append(
            Action(
                "wire_rails",
                "Wire Rail-Optimized",
                "Wire the selected nodes to the selected rail leaves",
            )
        )
    if switches >= 2:
        out.append(
            Action(
                "all_to_all",
                "Connect All to All…",
                "Every selected lower-tier switch to every upper-tier one",
            )
        )
    if out:
        out.append(None)
    if n_dev:
        out.append(Action("group_su", "Group as Scalable Unit"))
        out.append(Action("group_pod", "Group as Pod"))
    name = target.group_name or target.group_id or ""
    if target.group_id is not None:
        if target.kind is TargetKind.BLOCK and overview:
            out.append(Action("zoom_group", f"Zoom In to {name}"))
        elif target.kind is TargetKind.BLOCK:
            out.append(Action("expand", f"Expand {name}"))
        else:
            out.append(Action("collapse", f"Collapse {name}"))
        if target.kind in (TargetKind.FRAME, TargetKind.BLOCK):
            out.append(
                Action(
                    "ungroup",
                    f"Ungroup {name}",
                    "Dissolve the group: its devices, sub-groups and racks move "
                    "to its parent group",
                )
            )
    if out and out[-1] is not None:
        out.append(None)
    if (
        target.kind in (TargetKind.FRAME, TargetKind.BLOCK)
        and target.group_id is not None
    ):
        if not (target.kind is TargetKind.BLOCK and overview):
            out.append(Action("zoom_group", f"Zoom to {name}"))
    elif target.kind is TargetKind.TRUNK:
        out.append(Action("zoom_trunk", "Zoom to Its Ends"))
    if n_dev or n_link:
        out.append(Action("zoom_selection", "Zoom to Selection"))
        out.append(
            Action(
                "select_connected",
                "Select Connected",
                "Add the devices linked to the selected ones"
                if n_dev
                else "Select the devices at both ends",
            )
        )
        out.append(None)
        out.append(
            Action("validator", "Show in Validator", "Findings that name the selection")
        )
        out.append(Action("properties", "Properties"))
        if n_dev:
            out.append(
                Action(
                    "export_selection",
                    "Export Selection…",
                    "PDF, SVG or PNG of the selected devices",
                )
            )
        out.append(None)
        out.append(Action("delete", f"Delete {_what(n_dev, n_link)}"))
    while out and out[-1] is None:
        out.pop()
    return out


def connected_rows(la: np.ndarray, lb: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Device rows linked to any of ``rows``, ``rows`` included (sorted)."""
    if not rows.size:
        return rows
    n = int(max(la.max(initial=-1), lb.max(initial=-1), rows.max())) + 1
    mark = np.zeros(n, bool)
    mark[rows] = True
    hit_a, hit_b = mark[la], mark[lb]
    out = mark.copy()
    out[lb[hit_a]] = True
    out[la[hit_b]] = True
    return np.nonzero(out)[0]


def findings_naming(items: Sequence[Sequence[str]], ids: Sequence[str]) -> list[int]:
    """Indices of the findings (their item lists) that name any of ``ids``."""
    wanted = set(ids)
    return [k for k, named in enumerate(items) if wanted.intersection(named)]
