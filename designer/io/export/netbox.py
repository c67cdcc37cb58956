"""NetBox import folder: everything NetBox needs for a design, in import order.

``write_netbox_csvs(design, DIR)`` writes, in the order NetBox must import them
(the folder's ``README.md`` lists the same steps with NetBox's menu paths):

1. ``manufacturers.csv``: the manufacturers of the design's device types;
2. ``device-roles.csv``: ``compute``, ``switch``, ``storage``, ``management``
   with the canvas's colours;
3. ``device-types.yaml``: the design's device types as NetBox YAML, one
   document per type (each starting with ``---``), components included: the
   catalog file without its ``x-designer`` block. No module types: the
   catalog's device types have no module bays (the modules a design plugs in
   are the cabling plan's and the BOM's transceivers);
4. ``sites.csv``: one site for the design (its name);
5. ``locations.csv``: one location per data hall;
6. ``racks.csv``: every rack with its site, location, height and a
   description naming its row and floor slot (NetBox has no rows);
7. ``devices.csv``: every device with its device type (manufacturer and model
   as the catalog's NetBox file has them), role, site, location, rack,
   ``position`` (lowest U) and ``face``; a compute device is named by its
   hostname (:mod:`designer.catalog.hosts`, as Slurm and the cabling plan name
   it; a rack of trays by the rack's name its trays build on), any other
   device by its id;
8. ``cables.csv``: one row per PHYSICAL cable (:func:`netbox_cables`), every
   end with its site (``side_a_site``, ``side_b_site``) so designs whose
   device names repeat import side by side in one NetBox.

Cables and lanes: the cabling plan (and the design's, the report's and the
BOM's cable counts) has one row per lane: a link of ``cables=4`` is four, and
a breakout splitter is one row per leg. NetBox has one cable per physical
cable: the lanes between the same two ports are one cable, and a splitter is
one cable with the split port on side A and its legs' ports on side B
(NetBox 4.x multi-termination cables, ``profile`` ``breakout-1c2p-2c1p`` ...
for the 2/4/6/8-way splits NetBox has). Port names are the cabling plan's
(``from_port``/``to_port``: the ports each link holds, its pins,
:mod:`designer.core.pins`).

Manufacturers, roles and device types are shared by designs made from one
catalog: NetBox refuses a name it already has, so a second design imports
only the rows NetBox lacks (the README says so). Unplaced devices get no rack
or position; cables without a length get an empty length.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from designer.catalog.hosts import device_hostnames
from designer.catalog.schema import CatalogEntry
from designer.core.model import Design
from designer.io.export._common import Catalog, open_text, resolve_catalog
from designer.io.export.cabling import CABLING_COLUMNS, LANE_SEPARATOR, cabling_rows

MANUFACTURER_COLUMNS = ("name", "slug", "description")
ROLE_COLUMNS = ("name", "slug", "color", "vm_role", "description")
SITE_COLUMNS = ("name", "slug", "status", "description")
LOCATION_COLUMNS = ("site", "name", "slug", "status", "description")
RACK_COLUMNS = (
    "site",
    "location",
    "name",
    "status",
    "width",
    "u_height",
    "facility_id",
    "description",
)
DEVICE_COLUMNS = (
    "name",
    "role",
    "manufacturer",
    "device_type",
    "site",
    "location",
    "rack",
    "position",
    "face",
    "status",
    "description",
)
CABLE_COLUMNS = (
    "side_a_site",
    "side_a_device",
    "side_a_type",
    "side_a_name",
    "side_b_site",
    "side_b_device",
    "side_b_type",
    "side_b_name",
    "type",
    "profile",
    "status",
    "label",
    "length",
    "length_unit",
    "description",
)

NETBOX_CABLE_TYPE = {
    "dac": "dac-passive",
    "acc": "dac-active",
    "aoc": "aoc",
    "multimode": "mmf",
    "singlemode": "smf",
    "copper": "cat6",
}
"""NetBox cable ``type`` of each medium (NetBox's cable type choices)."""

ROLE_COLORS = {
    "compute": "76b900",
    "switch": "5d6d7e",
    "storage": "8e44ad",
    "management": "b9770e",
}
"""Device role colours (NetBox hex, no ``#``): the canvas's category fills."""

BREAKOUT_PROFILES = {
    2: "breakout-1c2p-2c1p",
    4: "breakout-1c4p-4c1p",
    6: "breakout-1c6p-6c1p",
    8: "breakout-1c8p-8c1p",
}
"""NetBox 4.x cable profile of a 1-to-N splitter (NetBox's CableProfileChoices)."""

IMPORT_STEPS: tuple[tuple[str, str, str], ...] = (
    ("manufacturers.csv", "Devices > Manufacturers > Import", "dcim/manufacturers"),
    ("device-roles.csv", "Devices > Device Roles > Import", "dcim/device-roles"),
    ("device-types.yaml", "Devices > Device Types > Import", "dcim/device-types"),
    ("sites.csv", "Organization > Sites > Import", "dcim/sites"),
    ("locations.csv", "Organization > Locations > Import", "dcim/locations"),
    ("racks.csv", "Racks > Racks > Import", "dcim/racks"),
    ("devices.csv", "Devices > Devices > Import", "dcim/devices"),
    ("cables.csv", "Connections > Cables > Import", "dcim/cables"),
)
"""(file, NetBox menu path, URL path before ``/import/``) in import order."""

SHARED_FILES = ("manufacturers.csv", "device-roles.csv", "device-types.yaml")
"""Files whose rows designs from one catalog share (import only what NetBox lacks)."""


def _slug(text: str, default: str = "site") -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:100] or default


@dataclass
class NetboxCable:
    """One physical cable as NetBox models it."""

    a: list[tuple[str, str]]
    """Side A ends: (device id, NetBox interface name)."""
    b: list[tuple[str, str]]
    media: str
    length: str
    plan_cables: list[int] = field(default_factory=list)
    """The cabling plan's cable numbers (lanes) this cable carries."""
    profile: str = ""
    split: int = 1
    """Lanes the split port (side A) is broken into (1: not a splitter)."""

    @property
    def lanes(self) -> int:
        """Lanes (cabling plan rows) the cable carries."""
        return len(self.plan_cables)

    @property
    def is_breakout(self) -> bool:
        """Whether it is a splitter (one split port to its legs)."""
        return self.split > 1 and len(self.a) == 1


def _split_of(cat: Catalog, design: Design) -> dict[tuple[str, str, int], int]:
    """(device id, port group, speed) -> lanes a port of the group splits into."""
    out: dict[tuple[str, str, int], int] = {}
    devices = design.device_map()
    t = design.links
    for i in range(len(t.id)):
        for dev, group in ((t.a[i], t.a_port[i]), (t.b[i], t.b_port[i])):
            key = (dev, group, t.speed_gbps[i])
            if key in out:
                continue
            entry = cat.get(devices[dev].catalog_id)
            iface = entry.interface(group) if entry is not None else None
            out[key] = max(1, iface.split(t.speed_gbps[i])) if iface else 1
    return out


def netbox_cables(design: Design, catalog: Catalog | None = None) -> list[NetboxCable]:
    """The cabling plan's lanes as NetBox's physical cables, in plan order.

    Lanes (plan rows) join into one cable where they share a port: the lanes
    between the same two ports are one cable; a split port's lanes to several
    ports are one splitter cable, the split port on side A (with the NetBox
    breakout profile of its split) and the legs' ports on side B. Rows without
    a port at an end (the cabling plan's note says why) are left out.
    """
    cat = resolve_catalog(catalog)
    col = {name: i for i, name in enumerate(CABLING_COLUMNS)}
    splits = _split_of(cat, design)
    parent: dict[tuple[str, str], tuple[str, str]] = {}

    def find(x: tuple[str, str]) -> tuple[str, str]:
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    rows: list[tuple[tuple[str, str], tuple[str, str], int, str, str]] = []
    lanes_on: dict[tuple[str, str], int] = {}
    split_on: dict[tuple[str, str], int] = {}
    for row in cabling_rows(design, cat):
        a_port, b_port = str(row[col["from_port"]]), str(row[col["to_port"]])
        if not a_port or not b_port:
            continue
        a_dev, b_dev = str(row[col["from_device"]]), str(row[col["to_device"]])
        a = (a_dev, a_port.partition(LANE_SEPARATOR)[0])
        b = (b_dev, b_port.partition(LANE_SEPARATOR)[0])
        speed = int(row[col["speed_gbps"]])
        for end, port, group in (
            (a, a_port, str(row[col["from_port_group"]])),
            (b, b_port, str(row[col["to_port_group"]])),
        ):
            parent.setdefault(end, end)
            if LANE_SEPARATOR in port:
                lanes_on[end] = lanes_on.get(end, 0) + 1
                split_on[end] = splits.get((end[0], group, speed), 1)
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
        rows.append(
            (
                a,
                b,
                int(row[col["cable"]]),
                str(row[col["media"]]),
                str(row[col["length_m"]]),
            )
        )
    members: dict[tuple[str, str], list[int]] = {}
    for i, (a, _, _, _, _) in enumerate(rows):
        members.setdefault(find(a), []).append(i)
    cables: list[NetboxCable] = []
    for idx in members.values():
        ends = {e for i in idx for e in rows[i][:2]}
        first = rows[idx[0]]
        lengths = [float(rows[i][4]) for i in idx if rows[i][4]]
        length = f"{max(lengths):.1f}" if lengths else ""
        numbers = [rows[i][2] for i in idx]
        if len(ends) == 2:
            a, b = first[0], first[1]
            if b in split_on and a not in split_on:
                a, b = b, a  # a split port's leg: the split port on side A
            if a in split_on and b not in split_on:
                split = split_on[a]
                cables.append(
                    NetboxCable(
                        [a], [b], first[3], length, numbers, _profile(split, 1), split
                    )
                )
            else:
                cables.append(NetboxCable([a], [b], first[3], length, numbers))
            continue
        # a star: one port (the split one) meets every other end of the cable
        degree: dict[tuple[str, str], set[tuple[str, str]]] = {e: set() for e in ends}
        for i in idx:
            a, b = rows[i][0], rows[i][1]
            degree[a].add(b)
            degree[b].add(a)
        center = max(ends, key=lambda e: (len(degree[e]), lanes_on.get(e, 0)))
        star = all(center in rows[i][:2] for i in idx)
        if star and len(degree[center]) == len(ends) - 1:
            legs = sorted(degree[center], key=lambda e: _order(rows, idx, e))
            split = split_on.get(center, len(legs))
            cables.append(
                NetboxCable(
                    [center],
                    legs,
                    first[3],
                    length,
                    numbers,
                    _profile(split, len(legs)),
                    split,
                )
            )
            continue
        # lanes of several split ports meshed: both sides by a 2-colouring
        side: dict[tuple[str, str], int] = {center: 0}
        todo = [center]
        while todo:
            e = todo.pop()
            for other in sorted(degree[e]):
                if other not in side:
                    side[other] = 1 - side[e]
                    todo.append(other)
        a_side = sorted((e for e in ends if side[e] == 0), key=str)
        b_side = sorted((e for e in ends if side[e] == 1), key=str)
        cables.append(NetboxCable(a_side, b_side, first[3], length, numbers))
    cables.sort(key=lambda c: c.plan_cables[0])
    return cables


def _order(
    rows: Sequence[tuple[Any, ...]], idx: Iterable[int], end: tuple[str, str]
) -> int:
    """The first plan cable number touching ``end`` (legs in plan order)."""
    return min(int(rows[i][2]) for i in idx if end in rows[i][:2])


def _profile(split: int, legs: int) -> str:
    """NetBox's breakout profile for a port split ``split`` ways ("" if none fits)."""
    for n in sorted(BREAKOUT_PROFILES):
        if n >= max(split, legs):
            return BREAKOUT_PROFILES[n]
    return ""


def _label(numbers: list[int]) -> str:
    """The plan's cable numbers: ``12``, ``12-15`` (a run) or ``12+3`` (more)."""
    if len(numbers) == 1:
        return str(numbers[0])
    lo, hi = min(numbers), max(numbers)
    if hi - lo + 1 == len(numbers):
        return f"{lo}-{hi}"
    return f"{numbers[0]}+{len(numbers) - 1}"


def device_type_document(entry: CatalogEntry) -> dict[str, Any]:
    """The NetBox device type of a catalog entry (the file without x-designer)."""
    data = entry.model_dump(
        mode="json", by_alias=True, exclude_none=True, exclude={"ext"}
    )
    out: dict[str, Any] = {}
    for key, value in data.items():
        if value == [] or key == "x-designer":
            continue
        if key == "u_height" and float(value) == int(value):
            value = int(value)
        out[key] = value
    return out


def device_types_yaml(entries: Iterable[CatalogEntry]) -> str:
    """NetBox YAML of device types: one document per type, each opened by ``---``."""
    parts = []
    for e in entries:
        body = yaml.safe_dump(
            device_type_document(e), sort_keys=False, allow_unicode=True, width=100
        )
        parts.append("---\n" + body)
    return "".join(parts)


def write_netbox_csvs(
    design: Design, directory: str | Path, catalog: Catalog | None = None
) -> dict[str, int]:
    """Write the import folder into ``directory``; return rows written per file.

    The keys are the files' stems in import order, then ``cable_lanes`` (the
    cabling plan's lanes the cables carry) and ``breakouts`` (splitter cables).
    """
    cat = resolve_catalog(catalog)
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    site = design.settings.name or "GPU cluster"
    counts: dict[str, int] = {Path(f).stem: 0 for f, _, _ in IMPORT_STEPS}
    physical = design.physical
    names = {d.id: d.id for d in design.devices}
    names.update(device_hostnames(design, cat))  # unique: hosts avoid other ids
    used: dict[str, CatalogEntry] = {}
    for d in design.devices:
        entry = cat.get(d.catalog_id)
        if entry is not None:
            used.setdefault(entry.slug, entry)
    entries = sorted(used.values(), key=lambda e: (e.manufacturer, e.model))
    with open_text(out / "manufacturers.csv") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(MANUFACTURER_COLUMNS)
        for m in sorted({e.manufacturer for e in entries}):
            w.writerow((m, _slug(m, "manufacturer"), ""))
            counts["manufacturers"] += 1
    roles = sorted({e.category.value for e in entries}, key=list(ROLE_COLORS).index)
    with open_text(out / "device-roles.csv") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(ROLE_COLUMNS)
        for role in roles:
            w.writerow((role, role, ROLE_COLORS[role], "false", f"{role} devices"))
            counts["device-roles"] += 1
    with open_text(out / "device-types.yaml") as fh:
        fh.write(device_types_yaml(entries))
        counts["device-types"] = len(entries)
    hall_of_row: dict[str, str] = {}
    rack_hall: dict[str, str] = {}
    with open_text(out / "sites.csv") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(SITE_COLUMNS)
        w.writerow((site, _slug(site), "planned", "GPU Cluster Designer design"))
        counts["sites"] = 1
    with open_text(out / "locations.csv") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(LOCATION_COLUMNS)
        for h in physical.halls if physical else []:
            w.writerow(
                (
                    site,
                    h.label or h.id,
                    _slug(h.id, "hall"),
                    "planned",
                    f"{h.width_m:g} x {h.depth_m:g} m"
                    + (
                        f", budget {h.power_budget_kw:g} kW"
                        if h.power_budget_kw
                        else ""
                    ),
                )
            )
            counts["locations"] += 1
    with open_text(out / "racks.csv") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(RACK_COLUMNS)
        if physical is not None:
            halls = {h.id: h.label or h.id for h in physical.halls}
            hall_of_row = {r.id: halls[r.hall] for r in physical.rows}
            rows = {r.id: r.label or r.id for r in physical.rows}
            types = physical.rack_type_map()
            for r in physical.racks:
                kind = types[r.type]
                rack_hall[r.id] = hall_of_row[r.row]
                w.writerow(
                    (
                        site,
                        hall_of_row[r.row],
                        r.id,
                        "planned",
                        19,
                        kind.u,
                        r.id,
                        f"{kind.label or kind.id}; row {rows[r.row]}, slot {r.slot}; "
                        f"{physical.cooling_of(r, types).value} cooling",
                    )
                )
                counts["racks"] += 1
    with open_text(out / "devices.csv") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(DEVICE_COLUMNS)
        for d in design.devices:
            entry = cat.get(d.catalog_id)
            p = d.placement
            rack = p.rack if p is not None and p.rack in rack_hall else None
            racked = rack is not None
            rack = rack or ""
            w.writerow(
                (
                    names[d.id],
                    entry.category.value if entry else "",
                    entry.manufacturer if entry else "",
                    entry.model if entry else d.catalog_id,
                    site,
                    rack_hall.get(rack, ""),
                    rack,
                    p.u if racked and p is not None and p.u else "",
                    "front" if racked and p is not None and p.u else "",
                    "planned",
                    d.label,
                )
            )
            counts["devices"] += 1
    cables = netbox_cables(design, cat)
    with open_text(out / "cables.csv") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(CABLE_COLUMNS)
        for c in cables:
            w.writerow(
                (
                    site,
                    _devices(c.a, names),
                    "dcim.interface",
                    ",".join(n for _, n in c.a),
                    site,
                    _devices(c.b, names),
                    "dcim.interface",
                    ",".join(n for _, n in c.b),
                    NETBOX_CABLE_TYPE.get(c.media, ""),
                    c.profile,
                    "planned",
                    _label(c.plan_cables),
                    c.length,
                    "m" if c.length else "",
                    _description(c),
                )
            )
    counts["cables"] = len(cables)
    counts["cable_lanes"] = sum(c.lanes for c in cables)
    counts["breakouts"] = sum(1 for c in cables if c.is_breakout)
    (out / "README.md").write_text(readme(design, counts), encoding="utf-8")
    return counts


def _devices(ends: list[tuple[str, str]], names: dict[str, str]) -> str:
    """One device name for all ends, else one per end (NetBox's two forms)."""
    devs = [names[d] for d, _ in ends]
    return devs[0] if len(set(devs)) == 1 else ",".join(devs)


def _description(c: NetboxCable) -> str:
    if c.is_breakout:
        return (
            f"breakout: {c.a[0][1]} split {c.split} ways, "
            f"{c.lanes} lane(s) used; cabling plan cables {_label(c.plan_cables)}"
        )
    if c.lanes > 1:
        return f"{c.lanes} lanes (cabling plan cables {_label(c.plan_cables)})"
    return ""


def readme(design: Design, counts: dict[str, int]) -> str:
    """The folder's README: what each file is and the import order."""
    site = design.settings.name or "GPU cluster"
    lines = [
        f"# NetBox import: {site}",
        "",
        "Written by GPU Cluster Designer for NetBox 4.x (tested with 4.7.3).",
        "Import the files in this order, each on its NetBox Import page",
        "(paste the file or upload it; the format is detected: CSV, or YAML",
        "for device types). NetBox imports a file all or nothing.",
        "",
        "| Step | File | Rows | NetBox |",
        "|---|---|---|---|",
    ]
    for i, (name, menu, url) in enumerate(IMPORT_STEPS, 1):
        n = counts.get(Path(name).stem, 0)
        lines.append(f"| {i} | `{name}` | {n:,} | {menu} (`/{url}/import/`) |")
    lines += [
        "",
        "Steps 1-3 are shared by every design made from the same catalog:",
        "NetBox refuses a manufacturer, role or device type it already has, so",
        "for a second design import only the rows (or YAML documents) NetBox",
        f"lacks. Steps 4-8 belong to this design's site, `{site}`: every rack,",
        "device and cable end names it, so designs whose device names repeat",
        "import side by side. The site's name must be new to NetBox.",
        "",
        f"Cables: {counts.get('cables', 0):,} physical cables carrying "
        f"{counts.get('cable_lanes', 0):,} lanes",
        "(the cabling plan's rows). The lanes between the same two ports are one",
        "cable; a breakout splitter is one cable with the split port on side A",
        "and its legs on side B, with NetBox's breakout `profile` "
        f"({counts.get('breakouts', 0):,} such cables).",
        "The label is the cabling plan's cable number (a run `12-15` for",
        "several lanes).",
        "",
        "No module types or modules: the catalog's device types have no module",
        "bays; the pluggable modules are listed in the cabling plan and the BOM.",
        "",
    ]
    return "\n".join(lines)


__all__ = [
    "BREAKOUT_PROFILES",
    "CABLE_COLUMNS",
    "DEVICE_COLUMNS",
    "IMPORT_STEPS",
    "LOCATION_COLUMNS",
    "MANUFACTURER_COLUMNS",
    "NETBOX_CABLE_TYPE",
    "RACK_COLUMNS",
    "ROLE_COLORS",
    "ROLE_COLUMNS",
    "SHARED_FILES",
    "SITE_COLUMNS",
    "NetboxCable",
    "device_type_document",
    "device_types_yaml",
    "netbox_cables",
    "readme",
    "write_netbox_csvs",
]
