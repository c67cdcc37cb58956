"""One NetBox site read: its devices, racks, locations and cables (no Qt).

``read_folder(folder, site)`` and ``read_rest(url, token, site)`` read what
NetBox exports of a site into a :class:`Site`;
:func:`designer.io.netbox_rebuild.design_from_site` turns it into a design the
analysis can open.

``source`` is a folder of NetBox exports, or a NetBox URL read through its
REST API (``read_rest``, an API token). A folder holds ``devices``, ``racks``
(optional), ``locations`` (optional) and ``cables`` as CSV or JSON: NetBox's
list Export (CSV, all data: ``Name``, ``Site``, ``Type``, ``Device A``,
``Termination A`` ...), its bulk-import columns (``name``, ``device_type``,
``side_a_device``, ``side_a_name`` ..., as our own NetBox export writes
them), or the REST API's JSON (a list, or a page with ``results``). Rows of
other sites are skipped.
"""

from __future__ import annotations

import csv
import json
import re
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "NetboxSiteError",
    "Site",
    "read_folder",
    "read_rest",
]


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


def _from_csv(site: str, files: dict[str, Path]) -> Site:
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
        got = _from_csv(site, files)
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
