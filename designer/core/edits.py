"""Edit builders on top of the commands: groups, copy/paste and duplicate.

Each function inspects the design and returns one :class:`Command` (often a
:class:`Macro`) for ``Document.execute``; nothing here mutates the design.
Bad requests raise ``ValueError`` with a message a user can read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from designer.core.checks import check_links
from designer.core.commands import Command, Macro, SetGroups
from designer.core.device_commands import AddDevices, UpdateDevices
from designer.core.formatting import plural
from designer.core.ids import IdAllocator, id_base
from designer.core.limits import LABEL_MAX, clamp_coord, fit_label
from designer.core.link_commands import AddLinks
from designer.core.model import Design, Device, Group, Link, LinkTable, Settings

__all__ = [
    "add_group",
    "copy_selection",
    "duplicate",
    "paste",
    "remove_group",
    "rename_device",
    "rename_group",
    "set_group_collapsed",
]


def _plural(n: int, word: str) -> str:
    return plural(n, word)


# --- groups ---------------------------------------------------------------------


def add_group(
    design: Design,
    group: Group,
    members: Iterable[str] = (),
    *,
    label: str | None = None,
) -> Command:
    """Create ``group`` and move the ``members`` devices into it (one step)."""
    if group.id in design.group_map():
        raise ValueError(f"group id {group.id!r} already exists")
    known = {d.id for d in design.devices}
    wanted = list(dict.fromkeys(members))
    unknown = [m for m in wanted if m not in known]
    if unknown:
        raise ValueError(f"cannot group {unknown[0]!r}: not in the design")
    name = group.label or group.id
    commands: list[Command] = [SetGroups([*design.groups, group])]
    if wanted:
        commands.append(UpdateDevices({m: {"group": group.id} for m in wanted}))
    return Macro(label or f"Group {_plural(len(wanted), 'device')} as {name}", commands)


def remove_group(design: Design, group_id: str) -> Command:
    """Dissolve a group: its devices, sub-groups and racks move up to its parent."""
    groups = design.group_map()
    group = groups.get(group_id)
    if group is None:
        raise ValueError(f"no group {group_id!r} in the design")
    parent = group.parent
    members = [d.id for d in design.devices if d.group == group_id]
    commands: list[Command] = []
    if members:
        commands.append(UpdateDevices({m: {"group": parent} for m in members}))
    racks = design.physical.racks if design.physical is not None else []
    served = {r.id: {"group": parent} for r in racks if r.group == group_id}
    if served:
        from designer.core.physical_commands import EditRacks  # builds on these

        commands.append(EditRacks(served, label="Racks to the parent group"))
    commands.append(
        SetGroups(
            [
                g.model_copy(update={"parent": parent}) if g.parent == group_id else g
                for g in design.groups
                if g.id != group_id
            ]
        )
    )
    return Macro(f"Ungroup {group.label or group.id}", commands)


def set_group_collapsed(design: Design, group_id: str, collapsed: bool) -> Command:
    """Collapse or expand a group on the canvas (an undoable view state)."""
    group = design.group_map().get(group_id)
    if group is None:
        raise ValueError(f"no group {group_id!r} in the design")
    verb = "Collapse" if collapsed else "Expand"
    return SetGroups(
        [
            g.model_copy(update={"collapsed": collapsed}) if g.id == group_id else g
            for g in design.groups
        ],
        label=f"{verb} {group.label or group.id}",
    )


def _check_label(label: str) -> str:
    if len(label) > LABEL_MAX:
        raise ValueError(
            f"a label has at most {LABEL_MAX} characters (this one has {len(label)})"
        )
    return label


def rename_group(design: Design, group_id: str, label: str) -> Command:
    """Give a group a new label (at most :data:`LABEL_MAX` characters)."""
    group = design.group_map().get(group_id)
    if group is None:
        raise ValueError(f"no group {group_id!r} in the design")
    new = _check_label(label.strip())
    return SetGroups(
        [
            g.model_copy(update={"label": new}) if g.id == group_id else g
            for g in design.groups
        ],
        label=f"Rename {group.label or group.id} to {new or group.id}",
    )


def rename_device(design: Design, device_id: str, label: str) -> Command:
    """Give a device a new label (at most :data:`LABEL_MAX` characters)."""
    device = design.device_map().get(device_id)
    if device is None:
        raise ValueError(f"no device {device_id!r} in the design")
    new = _check_label(label.strip())
    return UpdateDevices(
        {device_id: {"label": new}},
        label=f"Rename {device.label or device.id} to {new or device.id}",
    )


# --- copy, paste, duplicate ---------------------------------------------------------


def copy_selection(design: Design, device_ids: Iterable[str]) -> dict[str, Any]:
    """The selected devices, the links among them and the groups they fill, as JSON.

    A group is copied when every device below it is selected (copying a whole SU
    copies the SU). Other group references are kept and resolved at paste time:
    pasted devices stay in that group when it exists in the target design.
    """
    wanted = {d for d in device_ids}
    devices = [d for d in design.devices if d.id in wanted]
    chosen = {d.id for d in devices}
    children: dict[str | None, list[Group]] = {}
    for g in design.groups:
        children.setdefault(g.parent, []).append(g)
    direct: dict[str, list[str]] = {}
    for d in design.devices:
        if d.group is not None:
            direct.setdefault(d.group, []).append(d.id)
    full: dict[str, bool] = {}

    def filled(gid: str, depth: int = 0) -> tuple[bool, int]:
        """(every device below is selected, how many devices are below)."""
        below = direct.get(gid, [])
        ok = all(m in chosen for m in below)
        count = len(below)
        if depth < 64:
            for child in children.get(gid, []):
                child_ok, child_n = filled(child.id, depth + 1)
                ok, count = ok and child_ok, count + child_n
        full[gid] = ok and count > 0
        return ok, count

    for g in design.groups:
        if g.id not in full:
            filled(g.id)
    groups = [g for g in design.groups if full.get(g.id)]
    t = design.links
    links = [
        t.row(i).model_dump(mode="json")
        for i, (a, b) in enumerate(zip(t.a, t.b, strict=True))
        if a in chosen and b in chosen
    ]
    return {
        "groups": [g.model_dump(mode="json") for g in groups],
        "devices": [d.model_dump(mode="json") for d in devices],
        "links": links,
    }


def _parse_clip(
    clip: Mapping[str, Any],
) -> tuple[list[Group], list[Device], list[Link]]:
    try:
        groups = [Group.model_validate(g) for g in clip.get("groups", []) or []]
        devices = [Device.model_validate(d) for d in clip.get("devices", []) or []]
        raw_links = clip.get("links", []) or []
        if isinstance(raw_links, Mapping):  # column-wise, as in a design file
            links = list(LinkTable.model_validate(raw_links))
        else:
            links = [Link.model_validate(x) for x in raw_links]
    except (ValidationError, TypeError, AttributeError) as exc:
        raise ValueError(f"the clipboard does not hold devices: {exc}") from None
    return groups, devices, links


def paste(
    design: Design,
    clip: Mapping[str, Any],
    offset: tuple[float, float] = (40.0, 40.0),
    *,
    label: str = "Paste",
    lookup: Any = None,
) -> Command:
    """Add a copied fragment with fresh ids, moved by ``offset`` (one step).

    Device ids keep their stem (``leaf-3`` becomes the next free ``leaf-<n>``);
    copied groups get fresh ids; links among the pasted devices get fresh ids
    and keep ports, cables, speed, fabric and rail. With a ``lookup`` (the
    catalog) the pasted links pass the connection rules first
    (:func:`designer.core.checks.check_links`), refusing as the canvas would.
    """
    groups, devices, links = _parse_clip(clip)
    if not devices:
        raise ValueError("nothing to paste: the clipboard holds no devices")
    dx, dy = offset
    existing_groups = design.group_map()
    group_ids = IdAllocator(existing_groups)
    new_group: dict[str, str] = {}
    for g in groups:
        new_group[g.id] = group_ids.new(id_base(g.id))

    def group_ref(ref: str | None) -> str | None:
        if ref is None:
            return None
        if ref in new_group:
            return new_group[ref]
        return ref if ref in existing_groups else None

    pasted_groups = [
        g.model_copy(
            update={
                "id": new_group[g.id],
                "parent": group_ref(g.parent),
                "label": fit_label(g.label, " copy") if g.label else "",
            }
        )
        for g in groups
    ]
    device_ids = IdAllocator(d.id for d in design.devices)
    new_device: dict[str, str] = {}
    for d in devices:
        if d.id in new_device:
            raise ValueError(f"the clipboard repeats device {d.id!r}")
        new_device[d.id] = device_ids.new(id_base(d.id))
    pasted_devices = [
        d.model_copy(
            update={
                "id": new_device[d.id],
                "x": clamp_coord(d.x + dx),
                "y": clamp_coord(d.y + dy),
                "group": group_ref(d.group),
                # a copy has no place in a rack yet (its original holds that U)
                "placement": None,
            }
        )
        for d in devices
    ]
    link_ids = IdAllocator(design.links.id)
    pasted_links = [
        link.model_copy(
            update={
                "id": link_ids.new(
                    f"{new_device[link.a]}--{new_device[link.b]}", bare_first=True
                ),
                "a": new_device[link.a],
                "b": new_device[link.b],
            }
        )
        for link in links
        if link.a in new_device and link.b in new_device
    ]
    if lookup is not None and pasted_links:
        check_links(design, pasted_links, lookup, new_devices=pasted_devices)
        pasted_links = _pasted_pins(pasted_links, pasted_devices, lookup)
    commands: list[Command] = []
    if pasted_groups:
        commands.append(SetGroups([*design.groups, *pasted_groups]))
    commands.append(AddDevices(pasted_devices))
    if pasted_links:
        commands.append(AddLinks(pasted_links, lookup=lookup))
    return Macro(f"{label} {_plural(len(pasted_devices), 'device')}", commands)


def _pasted_pins(links: list[Link], devices: list[Device], lookup: Any) -> list[Link]:
    """The pasted links with the ports they had (the pasted devices are new,
    so every one is free); pins that do not fit the pasted devices (a
    clipboard from another design or catalog) wait for ports instead."""
    from designer.core.errors import PortTaken
    from designer.core.pin_checks import check_pins

    probe = Design.model_construct(
        settings=Settings(), groups=[], devices=devices, links=LinkTable()
    )
    out: list[Link] = []
    for link in links:
        try:
            check_pins(probe, link, lookup, None)
            probe.links.append(link)
        except PortTaken:
            link = link.model_copy(update={"a_pins": None, "b_pins": None})
        out.append(link)
    return out


def duplicate(
    design: Design,
    device_ids: Iterable[str],
    offset: tuple[float, float] = (40.0, 40.0),
    *,
    lookup: Any = None,
) -> Command:
    """Copy and paste the selection in one step (devices, their links, full groups)."""
    clip = copy_selection(design, device_ids)
    return paste(design, clip, offset, label="Duplicate", lookup=lookup)
