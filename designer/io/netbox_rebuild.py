"""A design rebuilt from a NetBox site read by :mod:`designer.io.netbox_site`.

:func:`design_from_site` turns a :class:`~designer.io.netbox_site.Site` into a
design the analysis can open:

- devices: their NetBox type is matched to the catalog by manufacturer
  (library spellings mapped, :func:`designer.catalog.netbox_clean.map_manufacturer`)
  and model; a type the catalog lacks is an error naming the devices (import
  the type with ``import-netbox`` first). A device's NetBox name is its id;
  rack and position are its placement.
- racks: their location is the hall, the row and slot are read from the rack's
  description where our export wrote them (``row R, slot N``), else one row
  per hall in name order; the rack type is the standard one of the rack's
  height (``nvl72`` for a rack holding an NVL72 system). Row positions are
  not in NetBox: rows are laid out 2.4 m apart.
- cables: every termination pair is one lane between two port groups (the
  interface's group in the catalog entry); a breakout cable (one port on side
  A, several on side B) gives one lane per leg at the speed that port splits
  into, any other cable one lane at the highest speed both groups run (or the
  lanes its description gives, ``N lanes ...`` as our export writes it, at the
  speed both ports split N ways). Lanes
  between the same two devices' port groups make one link (``cables`` = lanes);
  the fabric is the port groups' role.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from designer.catalog.netbox_clean import map_manufacturer
from designer.catalog.schema import CatalogEntry, Category, Interface, Role
from designer.core.link_model import Fabric, Link
from designer.core.links import LinkTable
from designer.core.model import Design, Device, Placement, Settings
from designer.core.physical import (
    Hall,
    Physical,
    Rack,
    Row,
    standard_rack_type,
)
from designer.io.netbox_site import NetboxSiteError, Site, SiteDevice

__all__ = ["Rebuilt", "design_from_site"]

ROW_PITCH_M = 2.4
"""Distance between rows laid out by the import (NetBox has no rows)."""


def _norm(text: str) -> str:
    """A name compared loosely: lower case, letters and digits only."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _id(text: str, used: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9_.:\-/]+", "-", text).strip("-")[:190] or "device"
    out, n = base, 1
    while out in used:
        n += 1
        out = f"{base}-{n}"
    used.add(out)
    return out


@dataclass
class Rebuilt:
    """The design and what the import could not carry over."""

    design: Design
    lanes: int
    netbox_cables: int
    skipped: list[str] = field(default_factory=list)


def _entry(dev: SiteDevice, catalog: Mapping[str, CatalogEntry]) -> CatalogEntry | None:
    maker = map_manufacturer(dev.manufacturer, catalog) or dev.manufacturer
    for e in catalog.values():
        if _norm(e.manufacturer) == _norm(maker) and _norm(e.model) == _norm(dev.model):
            return e
    for e in catalog.values():  # a type exported by slug (the import columns)
        if _norm(e.slug) == _norm(dev.model):
            return e
    return None


def _group_of(entry: CatalogEntry) -> dict[str, Interface]:
    return {name: g for g in entry.port_groups for name in g.ports}


def _speed(a: Interface, b: Interface, breakout: bool, lanes: int = 1) -> int | None:
    common = [s for s in a.speeds_gbps if s in b.speeds_gbps]
    if lanes > 1:  # lanes of split ports between the same two ports
        split = [s for s in common if lanes in (a.split(s), b.split(s))]
        common = split or common
    if breakout:
        split = [s for s in common if a.split(s) > 1 or b.split(s) > 1]
        common = split or common
    return max(common) if common else None


def _lane(port: str, split: int, lane: int) -> str:
    """The pin of 0-based ``lane`` on ``port`` split ``split`` ways."""
    return f"{port}:{lane + 1}" if split > 1 else port


def _fabric(a: Interface, b: Interface) -> Fabric | None:
    """The fabric the port groups' roles name (None: two switch groups)."""
    for role in (a.role, b.role):
        if role is not Role.ANY:
            return Fabric(role.value)
    return None


def _switch_fabrics(
    keys: list[tuple[str, str, str, str, int, Fabric | None]],
) -> list[Fabric]:
    """A fabric for every lane: a switch-to-switch lane takes its switches'.

    A switch's fabric is the most common one of its lanes whose fabric is
    known, spreading from the edge (a storage leaf's storage lanes make its
    uplinks to a storage spine storage too); COMPUTE when nothing says.
    """
    known: dict[str, Counter[Fabric]] = {}
    out: list[Fabric | None] = [k[5] for k in keys]
    for _ in range(4):
        for (a, _, b, _, _, _f), got in zip(keys, out, strict=True):
            if got is not None:
                known.setdefault(a, Counter())[got] += 1
                known.setdefault(b, Counter())[got] += 1
        for i, (a, _, b, _, _, _f) in enumerate(keys):
            if out[i] is None:
                for dev in (a, b):
                    if known.get(dev):
                        out[i] = known[dev].most_common(1)[0][0]
                        break
    return [f or Fabric.COMPUTE for f in out]


def design_from_site(site: Site, catalog: Mapping[str, CatalogEntry]) -> Rebuilt:
    """The design of a site (see module doc); NetboxSiteError on unknown types."""
    unknown: dict[str, list[str]] = {}
    entries: dict[str, CatalogEntry] = {}
    for d in site.devices:
        e = _entry(d, catalog)
        if e is None:
            unknown.setdefault(f"{d.manufacturer} {d.model}".strip(), []).append(d.name)
        else:
            entries[d.key] = e
    if unknown:
        parts = [
            f"{t!r} ({', '.join(names[:3])}{' ...' if len(names) > 3 else ''})"
            for t, names in sorted(unknown.items())
        ]
        raise NetboxSiteError(
            f"site {site.name!r}: device types not in the catalog: "
            + "; ".join(parts)
            + " (import them with cluster-designer import-netbox first)"
        )
    used: set[str] = set()
    ids = {d.key: _id(d.name, used) for d in site.devices}
    skipped: list[str] = []
    physical, rack_ids = _physical(site, entries, skipped)
    devices = []
    counts: dict[str, int] = {}
    for d in site.devices:
        e = entries[d.key]
        row = counts.get(e.category.value, 0)
        counts[e.category.value] = row + 1
        level = {"compute": 0, "storage": 1, "management": 1, "switch": 2}
        placement = None
        if d.rack and d.rack in rack_ids:
            placement = Placement(rack=rack_ids[d.rack], u=d.position)
        devices.append(
            Device(
                id=ids[d.key],
                catalog_id=e.slug,
                label=d.label[:200],
                x=float(row % 64) * 120.0,
                y=float(level.get(e.category.value, 1) * 400 + (row // 64) * 120),
                placement=placement,
            )
        )
    groups = {k: _group_of(e) for k, e in entries.items()}
    lanes: dict[tuple[str, str, str, str, int, Fabric | None], int] = {}
    pins: dict[
        tuple[str, str, str, str, int, Fabric | None], tuple[list[str], ...]
    ] = {}
    for c in site.cables:
        breakout = (len(c.a) == 1 and len(c.b) > 1) or (len(c.b) == 1 and len(c.a) > 1)
        pairs = (
            [(c.a[0], b) for b in c.b]
            if len(c.a) == 1
            else [(a, c.b[0]) for a in c.a]
            if len(c.b) == 1
            else list(zip(c.a, c.b, strict=False))
        )
        for leg, ((ka, pa), (kb, pb)) in enumerate(pairs):
            ga, gb = groups[ka].get(pa), groups[kb].get(pb)
            if ga is None or gb is None:
                missing = pa if ga is None else pb
                skipped.append(f"cable end {missing!r}: not in a port group")
                continue
            speed = _speed(ga, gb, breakout, c.lanes if len(pairs) == 1 else 1)
            if speed is None:
                skipped.append(
                    f"cable {pa} - {pb}: the port groups share no speed "
                    f"({ga.speeds_gbps} / {gb.speeds_gbps})"
                )
                continue
            n = c.lanes if len(pairs) == 1 else 1
            # the ports (lanes of a split port) the cable's lanes use
            first_a = leg if len(c.a) == 1 and len(c.b) > 1 else 0
            first_b = leg if len(c.b) == 1 and len(c.a) > 1 else 0
            pa_pins = [_lane(pa, ga.split(speed), first_a + k) for k in range(n)]
            pb_pins = [_lane(pb, gb.split(speed), first_b + k) for k in range(n)]
            key = (ids[ka], ga.name, ids[kb], gb.name, speed, _fabric(ga, gb))
            back = (key[2], key[3], key[0], key[1], speed, key[5])
            if back in lanes:  # the same two port groups, cabled the other way
                key, pa_pins, pb_pins = back, pb_pins, pa_pins
            lanes[key] = lanes.get(key, 0) + n
            got = pins.setdefault(key, ([], []))
            got[0].extend(pa_pins)
            got[1].extend(pb_pins)
    fabrics = _switch_fabrics(list(lanes))
    links = []
    link_ids: set[str] = set()
    for ((a, ap, b, bp, speed, f), n), fabric in zip(
        lanes.items(), fabrics, strict=True
    ):
        a_pins, b_pins = pins[(a, ap, b, bp, speed, f)]
        links.append(
            Link(
                id=_id(f"{a}.{ap}/{b}.{bp}", link_ids),
                a=a,
                a_port=ap,
                b=b,
                b_port=bp,
                cables=n,
                speed_gbps=speed,
                fabric=fabric,
                a_pins=tuple(a_pins),
                b_pins=tuple(b_pins),
            )
        )
    design = Design(
        settings=Settings(
            name=site.name[:200],
            notes=f"Rebuilt from NetBox site {site.name!r} by cluster-designer "
            "import-netbox --site.",
        ),
        physical=physical,
        devices=devices,
        links=LinkTable.from_links(links),
    )
    return Rebuilt(design, sum(lanes.values()), len(site.cables), skipped)


_ROW_SLOT = re.compile(r"row (?P<row>[^,;]+), slot (?P<slot>\d+)")
_HALL_SIZE = re.compile(r"(?P<w>\d+(?:\.\d+)?) x (?P<d>\d+(?:\.\d+)?) m")


def _physical(
    site: Site, entries: dict[str, CatalogEntry], skipped: list[str]
) -> tuple[Physical | None, dict[str, str]]:
    if not site.racks:
        return None, {}
    nvl = {
        d.rack: e
        for d in site.devices
        if (e := entries.get(d.key)) is not None
        and e.category is Category.COMPUTE
        and e.u_height >= 40
    }
    used: set[str] = set()
    halls: dict[str, Hall] = {}
    rows: dict[tuple[str, str], Row] = {}
    racks: list[Rack] = []
    types: dict[str, Any] = {}
    rack_ids: dict[str, str] = {}
    per_row: dict[tuple[str, str], int] = {}
    for r in sorted(site.racks, key=lambda r: r.name):
        hall_name = r.location or "hall"
        if hall_name not in halls:
            desc = site.locations.get(hall_name, "")
            m = _HALL_SIZE.search(desc)
            halls[hall_name] = Hall(
                id=_id(hall_name, used),
                label=hall_name,
                width_m=float(m.group("w")) if m else 40.0,
                depth_m=float(m.group("d")) if m else 40.0,
            )
        m = _ROW_SLOT.search(r.description)
        row_name = m.group("row").strip() if m else "row-1"
        key = (hall_name, row_name)
        if key not in rows:
            n = sum(1 for k in rows if k[0] == hall_name)
            rows[key] = Row(
                id=_id(f"{halls[hall_name].id}-{row_name}", used),
                label=row_name,
                hall=halls[hall_name].id,
                x_m=1.0,
                y_m=1.0 + n * ROW_PITCH_M,
            )
        slot = int(m.group("slot")) if m else per_row.get(key, 0)
        per_row[key] = max(per_row.get(key, 0), slot + 1)
        e = nvl.get(r.name)
        if e is not None:
            tid = (
                "nvl72-vr" if "vr" in e.slug or "rubin" in e.model.lower() else "nvl72"
            )
        else:
            tid = {42: "rack-42u", 48: "rack-48u", 52: "rack-52u"}.get(
                r.u_height, "rack-48u"
            )
            if r.u_height not in (42, 48, 52):
                skipped.append(
                    f"rack {r.name}: {r.u_height}U has no standard rack type; 48U used"
                )
        types[tid] = standard_rack_type(tid)
        rid = _id(r.name, used)
        rack_ids[r.name] = rid
        racks.append(Rack(id=rid, label=r.name, type=tid, row=rows[key].id, slot=slot))
    hall_list = list(halls.values())
    for h in hall_list:  # the rows must fit the hall
        deepest = max(
            (row.y_m + ROW_PITCH_M for row in rows.values() if row.hall == h.id),
            default=0.0,
        )
        if deepest > h.depth_m:
            hall_list[hall_list.index(h)] = h.model_copy(
                update={"depth_m": deepest + 1}
            )
    return (
        Physical(
            rack_types=list(types.values()),
            halls=hall_list,
            rows=list(rows.values()),
            racks=racks,
        ),
        rack_ids,
    )
