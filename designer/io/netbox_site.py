"""A design rebuilt from NetBox: one site's devices, racks and cables.

``read_site(source, site)`` reads what NetBox exports of a site and
:func:`design_from_site` turns it into a design the analysis can open:

- ``source`` is a folder of NetBox exports, or a NetBox URL read through its
  REST API (``read_rest``, an API token). A folder holds ``devices``,
  ``racks`` (optional), ``locations`` (optional) and ``cables`` as CSV or JSON:
  NetBox's list Export (CSV, all data: ``Name``, ``Site``, ``Type``,
  ``Device A``, ``Termination A`` ...), its bulk-import columns (``name``,
  ``device_type``, ``side_a_device``, ``side_a_name`` ..., as our own NetBox
  export writes them), or the REST API's JSON (a list, or a page with
  ``results``). Rows of other sites are skipped.
- devices: their NetBox type is matched to the catalog by manufacturer
  (library spellings mapped, :func:`designer.catalog.netbox_import.map_manufacturer`)
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

import csv
import json
import re
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from designer.catalog.netbox_import import map_manufacturer
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

ROW_PITCH_M = 2.4
"""Distance between rows laid out by the import (NetBox has no rows)."""


class NetboxSiteError(ValueError):
    """The site cannot be read or rebuilt; the message says where and why."""


@dataclass
class SiteDevice:
    name: str
    manufacturer: str
    model: str
    rack: str = ""
    position: int | None = None
    location: str = ""
    label: str = ""
    key: str = ""
    """NetBox's id when known (names may repeat across sites), else the name."""


@dataclass
class SiteRack:
    name: str
    location: str = ""
    u_height: int = 42
    description: str = ""


@dataclass
class SiteCable:
    a: list[tuple[str, str]]
    """(device key, interface name) per termination of side A."""
    b: list[tuple[str, str]]
    description: str = ""

    @property
    def lanes(self) -> int:
        """Lanes between two ports our export wrote (``N lanes ...``), else 1."""
        m = _LANES.match(self.description)
        return int(m.group(1)) if m else 1


_LANES = re.compile(r"^(\d+) lanes\b")


@dataclass
class Site:
    """What NetBox has of one site."""

    name: str
    devices: list[SiteDevice] = field(default_factory=list)
    racks: list[SiteRack] = field(default_factory=list)
    cables: list[SiteCable] = field(default_factory=list)
    locations: dict[str, str] = field(default_factory=dict)
    """Location name -> its description."""


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


_HEADERS = {
    "name": ("name",),
    "site": ("site",),
    "manufacturer": ("manufacturer",),
    "model": ("device_type", "type", "devicetype", "model"),
    "rack": ("rack",),
    "position": ("position", "positionu"),
    "location": ("location",),
    "description": ("description",),
    "u_height": ("u_height", "heightu", "height", "uheight"),
    "a_device": ("side_a_device", "devicea"),
    "a_name": ("side_a_name", "terminationa"),
    "a_site": ("side_a_site", "sitea"),
    "b_device": ("side_b_device", "deviceb"),
    "b_name": ("side_b_name", "terminationb"),
    "b_site": ("side_b_site", "siteb"),
}


def _csv_rows(path: Path) -> list[dict[str, str]]:
    """A CSV's rows keyed by our names (NetBox's export or import headers)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise NetboxSiteError(f"{path}: cannot read ({exc})") from None
    reader = csv.DictReader(text.splitlines())
    fields = reader.fieldnames or []
    key_of: dict[str, str] = {}
    for header in fields:
        n = _norm(header)
        for ours, names in _HEADERS.items():
            if n in {_norm(x) for x in names} and ours not in key_of.values():
                key_of[header] = ours
                break
    return [
        {key_of[k]: (v or "").strip() for k, v in row.items() if k in key_of}
        for row in reader
    ]


def _json_rows(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise NetboxSiteError(f"{path}: cannot read as JSON ({exc})") from None
    if isinstance(data, dict) and isinstance(data.get("results"), list):
        data = data["results"]
    if not isinstance(data, list):
        raise NetboxSiteError(f"{path}: expected a list of NetBox objects")
    return [d for d in data if isinstance(d, dict)]


def _name(value: Any) -> str:
    """A REST reference's name (``{"name": ...}``), or the value as text."""
    if isinstance(value, dict):
        return str(value.get("name") or value.get("display") or "")
    return "" if value is None else str(value)


def _split(text: str) -> list[str]:
    return [t.strip() for t in text.split(",")] if text else []


def _pos(text: Any) -> int | None:
    """A U number: ``12``, ``12.0``, NetBox's list export ``48U``."""
    m = re.match(r"^\s*(\d+(?:\.\d+)?)", str(text or ""))
    if m is None:
        return None
    value = float(m.group(1))
    return int(value) if value >= 1 else None


def _from_rest(
    site: str,
    devices: list[dict[str, Any]],
    racks: list[dict[str, Any]],
    cables: list[dict[str, Any]],
    locations: list[dict[str, Any]],
) -> Site:
    out = Site(site)
    for d in devices:
        if _name(d.get("site")) != site:
            continue
        dt = d.get("device_type") or {}
        out.devices.append(
            SiteDevice(
                name=str(d.get("name") or ""),
                manufacturer=_name(dt.get("manufacturer")),
                model=str(dt.get("model") or _name(dt)),
                rack=_name(d.get("rack")),
                position=_pos(d.get("position")),
                location=_name(d.get("location")),
                label=str(d.get("description") or ""),
                key=str(d.get("id", d.get("name"))),
            )
        )
    for r in racks:
        if _name(r.get("site")) == site:
            out.racks.append(
                SiteRack(
                    str(r.get("name")),
                    _name(r.get("location")),
                    int(r.get("u_height") or 42),
                    str(r.get("description") or ""),
                )
            )
    for loc in locations:
        if _name(loc.get("site")) == site:
            out.locations[str(loc.get("name"))] = str(loc.get("description") or "")
    keys = {d.key for d in out.devices}
    for c in cables:
        sides = []
        for side in ("a_terminations", "b_terminations"):
            ends = []
            for t in c.get(side) or []:
                obj = t.get("object") or {}
                dev = obj.get("device") or {}
                key = str(dev.get("id", dev.get("name")))
                if t.get("object_type", "dcim.interface") == "dcim.interface":
                    ends.append((key, str(obj.get("name"))))
            sides.append(ends)
        if sides[0] and sides[1] and all(k in keys for k, _ in sides[0] + sides[1]):
            out.cables.append(
                SiteCable(sides[0], sides[1], str(c.get("description") or ""))
            )
    return out


def _from_csv(site: str, folder: Path, files: dict[str, Path]) -> Site:
    out = Site(site)
    for row in _csv_rows(files["devices"]):
        if row.get("site", site) != site:
            continue
        out.devices.append(
            SiteDevice(
                name=row.get("name", ""),
                manufacturer=row.get("manufacturer", ""),
                model=row.get("model", ""),
                rack=row.get("rack", ""),
                position=_pos(row.get("position")),
                location=row.get("location", ""),
                label=row.get("description", ""),
                key=row.get("name", ""),
            )
        )
    if "racks" in files:
        for row in _csv_rows(files["racks"]):
            if row.get("site", site) == site:
                out.racks.append(
                    SiteRack(
                        row.get("name", ""),
                        row.get("location", ""),
                        _pos(row.get("u_height")) or 42,
                        row.get("description", ""),
                    )
                )
    if "locations" in files:
        for row in _csv_rows(files["locations"]):
            if row.get("site", site) == site:
                out.locations[row.get("name", "")] = row.get("description", "")
    # NetBox's list export names a rack "name (facility id)"
    racks = {r.name for r in out.racks}
    for d in out.devices:
        if d.rack and d.rack not in racks:
            d.rack = re.sub(r" \([^()]*\)$", "", d.rack)
    names = {d.name for d in out.devices}
    for n, row in enumerate(_csv_rows(files["cables"]), 2):
        sides = []
        for s in "ab":
            if not _is_site(row.get(f"{s}_site", ""), site):
                break
            devs, ports = (
                _split(row.get(f"{s}_device", "")),
                _split(row.get(f"{s}_name", "")),
            )
            if len(devs) == 1:
                devs = devs * len(ports)
            if len(devs) != len(ports):
                raise NetboxSiteError(
                    f"{files['cables']}: row {n}: side {s.upper()} names "
                    f"{len(devs)} devices for {len(ports)} terminations"
                )
            sides.append(list(zip(devs, ports, strict=True)))
        if (
            len(sides) == 2
            and sides[0]
            and sides[1]
            and all(d in names for d, _ in sides[0] + sides[1])
        ):
            out.cables.append(SiteCable(sides[0], sides[1], row.get("description", "")))
    return out


def _is_site(value: str, site: str) -> bool:
    """The cell names ``site`` (NetBox's list export repeats it per termination,
    joined by commas; a site's name may hold commas itself)."""
    n = value.count(site)
    return value == "" or (n > 0 and value == ",".join([site] * n))


def read_folder(folder: str | Path, site: str) -> Site:
    """A site from a folder of NetBox exports (CSV or JSON; see module doc)."""
    root = Path(folder)
    if not root.is_dir():
        raise NetboxSiteError(f"{root}: not a folder of NetBox exports")
    files: dict[str, Path] = {}
    for kind in ("devices", "racks", "locations", "cables"):
        for suffix in (".json", ".csv"):
            for p in sorted(root.iterdir()):
                stem = p.stem.lower().replace("netbox_", "")
                if p.suffix == suffix and stem == kind and kind not in files:
                    files[kind] = p
    for need in ("devices", "cables"):
        if need not in files:
            raise NetboxSiteError(
                f"{root}: no {need}.csv or {need}.json (NetBox's export of the "
                f"site's {need})"
            )
    if files["devices"].suffix == ".json":

        def rows(kind: str) -> list[dict[str, Any]]:
            return _json_rows(files[kind]) if kind in files else []

        got = _from_rest(
            site, rows("devices"), rows("racks"), rows("cables"), rows("locations")
        )
    else:
        got = _from_csv(site, root, files)
    if not got.devices:
        raise NetboxSiteError(f"{root}: no device of site {site!r}")
    return got


def read_rest(url: str, token: str, site: str, timeout: float = 300) -> Site:
    """A site read from a NetBox's REST API (``Token`` authentication)."""
    base = url.rstrip("/")

    def get(path: str, **params: Any) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        query = urllib.parse.urlencode({"limit": 1000, **params})
        nxt: str | None = f"{base}/api/{path}/?{query}"
        while nxt:
            req = urllib.request.Request(
                nxt,
                headers={
                    "Authorization": f"Token {token}",
                    "Accept": "application/json",
                },
            )
            try:
                with urllib.request.urlopen(req, timeout=timeout) as r:
                    page = json.loads(r.read())
            except OSError as exc:
                raise NetboxSiteError(f"{base}: {path}: {exc}") from None
            out += page.get("results", [])
            nxt = page.get("next")
        return out

    sites = get("dcim/sites", name=site)
    if not sites:
        raise NetboxSiteError(f"{base}: no site named {site!r}")
    sid = sites[0]["id"]
    return _from_rest(
        site,
        get("dcim/devices", site_id=sid),
        get("dcim/racks", site_id=sid),
        get("dcim/cables", site_id=sid),
        get("dcim/locations", site_id=sid),
    )


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


__all__ = [
    "NetboxSiteError",
    "Rebuilt",
    "Site",
    "design_from_site",
    "read_folder",
    "read_rest",
]
