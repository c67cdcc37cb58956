"""Hover texts of canvas items: a device's full name and key specs, a link, a
group, a trunk (plain text, one fact a line; no Qt).

Specs are the catalog's (:func:`designer.view.catalog.specs.entry_specs`, the same line
the palette and Properties show).
"""

from __future__ import annotations

from designer.catalog.schema import CatalogEntry
from designer.core.formatting import gbps, plural
from designer.core.model import Device, Group, Link
from designer.view.canvas.quotient import Trunk
from designer.view.catalog.specs import entry_specs


def device_tooltip(
    device: Device,
    entry: CatalogEntry | None,
    group: Group | None,
    links: int,
    cables: int,
) -> str:
    """Name, id and model, specs, tier and group, and what is cabled to it."""
    name = device.label or device.id
    if entry is not None:
        model = f"{entry.manufacturer} {entry.model}"
        kind = str(entry.category)
    else:
        model, kind = f"{device.catalog_id} (not in the catalog)", ""
    lines = [name, f"{device.id} · {model}"]
    if entry is not None:
        lines.append(entry_specs(entry) + " (catalog)")
    role = [kind] if kind else []
    if device.tier is not None:
        role.append(f"{device.tier} tier")
    if group is not None:
        role.append(f"in {group.label or group.id}")
    if role:
        text = ", ".join(role)
        lines.append(text[:1].upper() + text[1:])
    lines.append(f"{plural(links, 'link')}, {plural(cables, 'cable')}")
    p = device.placement
    if p is not None and p.rack is not None:
        lines.append(f"Rack {p.rack}" + (f", U{p.u}" if p.u is not None else ""))
    return "\n".join(lines)


def link_tooltip(link: Link, a_name: str, b_name: str) -> str:
    """Both ends with their port groups, cables, speed, fabric, rail and the
    pinned port of every cable (the first :data:`PIN_LINES`)."""
    lines = [
        f"{a_name} {link.a_port} — {b_name} {link.b_port}",
        f"{plural(link.cables, 'cable')} x {link.speed_gbps}G = "
        f"{gbps(link.cables * link.speed_gbps)}, {link.fabric} fabric",
    ]
    if link.rail is not None:
        lines.append(f"Rail {link.rail}")
    if link.a_pins is not None and link.b_pins is not None:
        # the pinned ports, cable by cable (the cabling plan's from/to ports)
        pairs = [
            f"{pa or 'no port'} — {pb or 'no port'}"
            for pa, pb in zip(link.a_pins, link.b_pins, strict=False)
        ]
        shown = pairs[:PIN_LINES]
        if len(pairs) > PIN_LINES:
            shown.append(f"... {len(pairs) - PIN_LINES} more cables")
        lines.append("Ports: " + shown[0] if len(shown) == 1 else "Ports:")
        if len(shown) > 1:
            lines += [f"  {x}" for x in shown]
    lines.append(link.id)
    return "\n".join(lines)


PIN_LINES = 8
"""Cables whose pinned ports a link's tooltip lists."""


def group_tooltip(group: Group, members: int, summary: str, collapsed: bool) -> str:
    """Name, kind, counts, and what a double click does."""
    kind = str(group.kind)
    head = f"{group.label or group.id} ({kind.upper() if kind == 'su' else kind})"
    action = "double-click to expand" if collapsed else "double-click the name bar"
    if not collapsed:
        action += " to collapse"
    return "\n".join([head, f"{plural(members, 'device')}: {summary}", action])


def trunk_text(t: Trunk) -> str:
    """What a trunk carries: "256 links, 256 cables, 102.4 Tb/s"."""
    return (
        f"{plural(t.links, 'link')}, {plural(t.cables, 'cable')}, "
        f"{t.capacity_gbps / 1000:,.1f} Tb/s"
    )
