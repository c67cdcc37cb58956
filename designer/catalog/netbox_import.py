"""NetBox device-type file -> catalog entry, saying what was guessed and missing.

A NetBox device type (netbox-community/devicetype-library) has the physical
facts (U, depth, airflow, weight, power inlets, one interface per port) but
nothing the analysis needs beyond them. :func:`import_device_type` keeps the
NetBox fields as given and adds an ``x-designer`` block filled where it can be
inferred:

- port groups: interfaces of the same NetBox type and name pattern
  (``P0.0 .. P31.1``, ``sw1p1 .. sw72p2``, ``swp1 .. swp48``); twin-port
  cages from two-level names with two ports per cage (and a twin module in
  the optics table); native speed and link layer from the NetBox type
  (``400gbase-x-osfp`` 400G Ethernet, ``infiniband-xdr`` 800G InfiniBand);
- category, group names and roles: GUESSED (from a catalog entry of the same
  model when there is one, else from the ports and the model name), every
  guess listed in ``x-designer.estimates`` as ``import-netbox:``;
- ``max_power_w`` from the power ports' ``maximum_draw`` (assuming N+N
  redundancy: half the supplies carry the load), a guess too;
- price: not in NetBox; written as ``usd: 0`` with the source "not set", so
  the entry loads and the bill of materials shows the gap.

What the analysis still needs (GPUs of a compute entry, throughput of a
storage entry, the power when no inlet gives ``maximum_draw``) is left out of
the file, so the loader refuses the entry until it is filled in;
:class:`ImportResult` lists it (``needs``), with what the file itself lacks
(``gaps``: ports missing from a numbered sequence, e.g. the library's QM9700
lists 62 of its 64 ports; no ``maximum_draw``; no airflow).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml
from pydantic import ValidationError

from designer.catalog.netbox import NetboxDeviceType, expand_names
from designer.catalog.optics import Optics
from designer.catalog.schema import CatalogEntry, Category, Media

IMPORT_TAG = "import-netbox"
"""How the importer's lines in ``x-designer.estimates`` start their derivation."""

_SPEED = re.compile(r"^(\d+(?:\.\d+)?)(g?)base-")
_IB = {
    "infiniband-sdr": 10,
    "infiniband-ddr": 20,
    "infiniband-qdr": 40,
    "infiniband-fdr10": 40,
    "infiniband-fdr": 56,
    "infiniband-edr": 100,
    "infiniband-hdr": 200,
    "infiniband-ndr": 400,
    "infiniband-xdr": 800,
}
_MGMT = re.compile(r"(mgmt|eth0|eth1|bmc|ipmi|oob|fnm|console)", re.IGNORECASE)
_COMPUTE_HINT = re.compile(r"(dgx|hgx|nvl|gpu|gb200|gb300|h100|h200|b200|b300)", re.I)
_STORAGE_HINT = re.compile(r"(storage|nas|filer|lustre|weka|vast|gpfs|exascaler)", re.I)
_TWO = re.compile(r"^(\D*?)(\d+)(\D+)(\d+)$")
_ONE = re.compile(r"^(\D*?)(\d+)$")


@dataclass
class ImportResult:
    """One imported file: the entry to write and what the user must know."""

    source: str
    slug: str
    category: Category
    data: dict[str, Any]
    """The catalog entry (NetBox fields as given, then ``x-designer``)."""
    guessed: list[str] = field(default_factory=list)
    needs: list[str] = field(default_factory=list)
    """What the analysis needs that the file cannot give (left out)."""
    gaps: list[str] = field(default_factory=list)
    """What the NetBox file lacks or gets wrong."""
    cleaned: list[str] = field(default_factory=list)
    """What :func:`normalize_netbox` did: fields dropped, the manufacturer mapped
    (or not)."""

    @property
    def loadable(self) -> bool:
        """Whether the entry loads as written (nothing required is missing)."""
        return not self.needs

    @property
    def path(self) -> str:
        """Where it goes in a catalog folder: ``<category>/<slug>.yaml``."""
        return f"{self.category.value}/{self.slug}.yaml"

    def text(self) -> str:
        """The YAML file, with the needs and gaps as a comment on top."""
        lines = [f"# Imported by cluster-designer import-netbox from {self.source}."]
        if self.needs:
            lines.append("# STILL NEEDED before the designer loads this entry:")
            lines += [f"#   - {n}" for n in self.needs]
        if self.gaps:
            lines.append("# The NetBox file lacks:")
            lines += [f"#   - {g}" for g in self.gaps]
        if self.cleaned:
            lines.append("# Read from NetBox's file:")
            lines += [f"#   - {c}" for c in self.cleaned]
        if self.guessed:
            lines.append("# Guessed (check them; also in x-designer.estimates):")
            lines += [f"#   - {g}" for g in self.guessed]
        body = str(
            yaml.safe_dump(self.data, sort_keys=False, allow_unicode=True, width=100)
        )
        return "\n".join(lines) + "\n---\n" + body


class NetboxImportError(ValueError):
    """A file that is not a NetBox device type; the message names file and field."""


MANUFACTURER_ALIASES = {
    "nvidia": "NVIDIA",
    "nvidiacorporation": "NVIDIA",
    "nvidianetworking": "NVIDIA",
    "mellanox": "NVIDIA",
    "mellanoxtechnologies": "NVIDIA",
}
"""Library manufacturer names and slugs (normalised) -> the catalog's name.

Mellanox is NVIDIA's networking business since 2020; the library files its
older switches under ``Mellanox`` and newer ones under ``Nvidia``."""

_COMPONENT_LISTS = (
    "interfaces",
    "power-ports",
    "console-ports",
    "console-server-ports",
    "power-outlets",
    "front-ports",
    "rear-ports",
    "module-bays",
    "device-bays",
    "inventory-items",
)
NEWER_NETBOX_FIELDS = {
    "": frozenset(
        (
            "default_platform",
            "cooling_method",
            "end_of_life",
            "exclude_from_utilization",
            "cooling-intakes",
            "cooling-outflows",
            "port-mappings",
        )
    ),
    "interfaces": frozenset(("channels", "channel_id", "parent", "rf_role")),
}
"""Fields NetBox 4.7's Export > YAML writes that the device-type library's schema
has not: dropped on import (named when they hold a value). Any other unknown
field is refused, as the library's schema refuses it."""


def _given(value: Any) -> bool:
    """NetBox's exports write a field it has no value for as null or ''."""
    return value is not None and value != ""


def normalize_netbox(
    raw: Mapping[str, Any], catalog: Mapping[str, CatalogEntry] | None = None
) -> tuple[dict[str, Any], list[str]]:
    """A device type as NetBox's Export > YAML or the library writes it, cleaned.

    Nulls and empty strings mean "not given" and are dropped (top level and in
    components); fields of newer NetBox versions the library schema lacks
    (``default_platform``, ``cooling_method``, ``end_of_life``, an interface's
    ``rf_role`` ...) are dropped and named when they hold a value; the
    manufacturer (a name, a slug, or NetBox's ``{name, slug}``) is mapped to
    the catalog's spelling (:data:`MANUFACTURER_ALIASES`, then the catalog's
    own names) and left as given, said so, when nothing maps. Returns the
    cleaned mapping and the notes.
    """
    notes: list[str] = []
    out: dict[str, Any] = {}
    dropped: list[str] = []
    for key, value in raw.items():
        if not _given(value) or value == [] or key == "x-designer":
            if key == "x-designer":
                out[key] = value
            continue
        if key in NEWER_NETBOX_FIELDS[""]:
            dropped.append(key)
            continue
        if key in _COMPONENT_LISTS and isinstance(value, list):
            newer = NEWER_NETBOX_FIELDS.get(key, frozenset())
            items = []
            for item in value:
                if not isinstance(item, Mapping):
                    items.append(item)
                    continue
                clean = {}
                for k, v in item.items():
                    if not _given(v):
                        continue
                    if k in newer:
                        dropped.append(f"{key}[].{k}")
                        continue
                    clean[k] = v
                items.append(clean)
            value = items
        out[key] = value
    if dropped:
        notes.append(
            "NetBox fields the device-type library has not, dropped: "
            + ", ".join(sorted(set(dropped)))
        )
    maker = out.get("manufacturer")
    if isinstance(maker, Mapping):
        maker = maker.get("name") or maker.get("slug")
    if isinstance(maker, str):
        mapped = map_manufacturer(maker, catalog)
        if mapped is None:
            known = sorted({e.manufacturer for e in (catalog or {}).values()})
            notes.append(
                f"manufacturer {maker!r} is not one of the catalog's"
                + (f" ({', '.join(known)})" if known else "")
                + ": kept as given"
            )
        elif mapped != maker:
            notes.append(f"manufacturer {maker!r} mapped to the catalog's {mapped!r}")
            maker = mapped
        out["manufacturer"] = maker
    if isinstance(out.get("u_height"), float) and out["u_height"].is_integer():
        out["u_height"] = int(out["u_height"])
    return out, notes


def map_manufacturer(
    name: str, catalog: Mapping[str, CatalogEntry] | None = None
) -> str | None:
    """The catalog's spelling of a manufacturer name or slug (None: no match)."""
    key = re.sub(r"[^a-z0-9]", "", name.lower())
    for e in (catalog or {}).values():
        if re.sub(r"[^a-z0-9]", "", e.manufacturer.lower()) == key:
            return e.manufacturer
    return MANUFACTURER_ALIASES.get(key)


def speed_of(netbox_type: str) -> tuple[int, Media] | None:
    """(native Gb/s, link layer) of a NetBox interface type (None: not a data port)."""
    if netbox_type in _IB:
        return _IB[netbox_type], Media.INFINIBAND
    m = _SPEED.match(netbox_type)
    if m is None:
        return None
    value = float(m.group(1))
    gbps = value if m.group(2) else value / 1000
    if gbps < 1 or gbps != int(gbps):
        return None
    return int(gbps), Media.ETHERNET


def _stem(name: str) -> str:
    return re.sub(r"\d+", "#", name)


def _compress(names: list[str]) -> str | list[str]:
    """A pattern such as ``P[0-31].[0-1]`` when it expands to exactly ``names``."""
    if len(names) == 1:
        return names[0]
    two = [_TWO.match(n) for n in names]
    if names and all(two):
        parts = [m.groups() for m in two if m]
        heads = {(p[0], p[2]) for p in parts}
        if len(heads) == 1:
            ((head, sep),) = heads
            a = sorted({int(p[1]) for p in parts})
            b = sorted({int(p[3]) for p in parts})
            pattern = f"{head}[{a[0]}-{a[-1]}]{sep}[{b[0]}-{b[-1]}]"
            if _expands(pattern, names):
                return pattern
    one = [_ONE.match(n) for n in names]
    if names and all(one):
        parts1 = [m.groups() for m in one if m]
        if len({p[0] for p in parts1}) == 1:
            nums = [int(p[1]) for p in parts1]
            pattern = f"{parts1[0][0]}[{min(nums)}-{max(nums)}]"
            if _expands(pattern, names):
                return pattern
    return names[0] if len(names) == 1 else names


def _expands(pattern: str, names: list[str]) -> bool:
    try:
        return expand_names(pattern) == names
    except ValueError:
        return False


def _missing_in_sequence(names: list[str]) -> list[str]:
    """Names a complete numbered grid of these names would have but they lack."""
    two = [_TWO.match(n) for n in names]
    if len(names) >= 4 and all(two):
        parts = [m.groups() for m in two if m]
        if len({(p[0], p[2]) for p in parts}) == 1:
            head, sep = parts[0][0], parts[0][2]
            a = sorted({int(p[1]) for p in parts})
            b = sorted({int(p[3]) for p in parts})
            have = set(names)
            return [
                f"{head}{x}{sep}{y}"
                for x in range(a[0], a[-1] + 1)
                for y in range(b[0], b[-1] + 1)
                if f"{head}{x}{sep}{y}" not in have
            ]
    one = [_ONE.match(n) for n in names]
    if len(names) >= 4 and all(one):
        parts1 = [m.groups() for m in one if m]
        if len({p[0] for p in parts1}) == 1:
            nums = {int(p[1]) for p in parts1}
            head = parts1[0][0]
            return [
                f"{head}{x}" for x in range(min(nums), max(nums) + 1) if x not in nums
            ]
    return []


def _twin(names: list[str]) -> bool:
    """Two-level names with exactly two ports in every cage."""
    two = [_TWO.match(n) for n in names]
    if len(names) < 4 or not all(two):
        return False
    per: dict[int, int] = {}
    for m in two:
        assert m is not None
        per[int(m.group(2))] = per.get(int(m.group(2)), 0) + 1
    return set(per.values()) == {2}


@dataclass
class _Group:
    stem: str
    type: str
    names: list[str]
    speed: int
    media: Media
    mgmt: bool


def _groups(nb: NetboxDeviceType) -> tuple[list[_Group], list[str]]:
    """Interfaces grouped by (type, name pattern); and the types skipped."""
    by: dict[tuple[str, str], _Group] = {}
    skipped: list[str] = []
    for i in nb.netbox_interfaces:
        got = speed_of(i.type)
        if got is None:
            skipped.append(f"{i.name} ({i.type})")
            continue
        mgmt = (
            bool(i.mgmt_only)
            or bool(_MGMT.search(i.name))
            or bool(i.description and _MGMT.search(i.description))
        )
        key = (i.type, "mgmt" if mgmt else _stem(i.name))
        g = by.get(key)
        if g is None:
            g = by[key] = _Group(_stem(i.name), i.type, [], got[0], got[1], mgmt)
        g.names.append(i.name)
    return list(by.values()), skipped


def _category(
    nb: NetboxDeviceType, groups: list[_Group], known: CatalogEntry | None
) -> tuple[Category, str]:
    if known is not None:
        return known.category, f"as the catalog's {known.slug!r} of the same model"
    text = f"{nb.model} {nb.comments or ''} {nb.description or ''}"
    if _COMPUTE_HINT.search(text):
        return Category.COMPUTE, "the model or comments name a GPU system"
    data = [g for g in groups if not g.mgmt]
    biggest = max((len(g.names) for g in data), default=0)
    if biggest >= 16:
        return Category.SWITCH, f"{biggest} data ports of one type"
    if _STORAGE_HINT.search(text):
        return Category.STORAGE, "the model or comments name storage"
    return Category.MANAGEMENT, "few data ports and no GPU or storage named"


def _twin_module(optics: Optics, speed: int, media: Media) -> str | None:
    """A twin-port module for the speed and link layer (multimode first)."""
    like = [
        t
        for t in optics.transceivers
        if t.links == 2 and t.speed_gbps == speed and media in t.media
    ]
    like.sort(key=lambda t: t.medium.value != "multimode")
    return like[0].id if like else None


def import_device_type(
    raw: Mapping[str, Any],
    source: str,
    *,
    catalog: Mapping[str, CatalogEntry] | None = None,
    optics: Optics | None = None,
    category: Category | None = None,
    today: str | None = None,
) -> ImportResult:
    """A catalog entry from one parsed NetBox device-type file (see module doc).

    ``raw`` may be NetBox's own Export > YAML of a type (nulls, empty strings
    and newer fields are cleaned by :func:`normalize_netbox`, named in the
    result's ``gaps``) or a device-type library file.
    """
    raw, notes = normalize_netbox(raw, catalog)
    try:
        nb = NetboxDeviceType.model_validate(
            {k: v for k, v in raw.items() if k != "x-designer"}
        )
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise NetboxImportError(
            f"{source}: {where}: {first['msg']} (not a valid NetBox device type)"
        ) from None
    if optics is None:
        from designer.catalog.loader import default_optics

        optics = default_optics()
    known = _same_model(nb, catalog or {})
    groups, skipped = _groups(nb)
    guessed: list[str] = []
    needs: list[str] = []
    gaps: list[str] = []
    cat, why = (category, "given") if category else _category(nb, groups, known)
    if category is None:
        guessed.append(f"category: {cat.value} ({why})")
    data_groups = sorted(
        (g for g in groups if not g.mgmt),
        key=lambda g: (-g.speed, -len(g.names)),
    )
    port_groups: list[dict[str, Any]] = []
    estimates: list[str] = []
    names_used: set[str] = set()
    for rank, g in enumerate(data_groups):
        name, role = _name_role(cat, rank, g, data_groups, names_used)
        names_used.add(name)
        media = g.media
        ref = known.interface(name) if known is not None else None
        if ref is not None and ref.speed_gbps == g.speed:
            media, role = ref.media, ref.role.value
            speeds = list(ref.speeds_gbps)
            guessed.append(
                f"port group {name!r}: media, role and speeds as the catalog's "
                f"{known.slug if known else ''!r}"
            )
        else:
            speeds = [g.speed]
            guessed.append(
                f"port group {name!r} ({len(g.names)} x {g.type}): role {role}, "
                f"{media.value}, native speed {g.speed}G only"
            )
        group: dict[str, Any] = {
            "name": name,
            "ports": _compress(g.names),
            "speeds_gbps": speeds,
            "media": media.value,
            "role": role,
        }
        missing = _missing_in_sequence(g.names)
        if _twin(g.names + missing) and missing:
            gaps.append(
                f"port group {name!r}: cages of two ports, but {len(missing)} "
                "port(s) missing, so the cages are not set (each listed port "
                "counts as its own cage)"
            )
        elif _twin(g.names):
            module = _twin_module(optics, g.speed, media)
            if module is not None:
                group["ports_per_cage"] = 2
                group["transceiver"] = module
                guessed.append(f"port group {name!r}: twin-port cages ({module})")
        port_groups.append(group)
        estimates.append(
            f"port_groups.{name}: {IMPORT_TAG}: grouped by NetBox type {g.type}; "
            f"role {role} guessed"
        )
        if missing:
            gaps.append(
                f"{len(g.names)} {g.type} ports listed, but the numbering "
                f"{g.names[0]} .. {g.names[-1]} skips {', '.join(missing[:8])}"
                f"{' ...' if len(missing) > 8 else ''} ({len(missing)} port(s))"
            )
    mgmt = [g for g in groups if g.mgmt]
    for g in mgmt:
        name = "bmc" if cat is not Category.SWITCH else "mgmt"
        if name in names_used:
            name = f"{name}-{_stem(g.names[0]).replace('#', '')}".rstrip("-")
        names_used.add(name)
        role = "oob" if g.speed <= 10 else "inband"
        port_groups.append(
            {
                "name": name,
                "ports": _compress(g.names),
                "speeds_gbps": [g.speed],
                "media": g.media.value,
                "role": role,
            }
        )
        guessed.append(f"port group {name!r} ({', '.join(g.names[:3])}): role {role}")
        estimates.append(f"port_groups.{name}: {IMPORT_TAG}: management port(s)")
    if skipped:
        gaps.append(
            f"{len(skipped)} interface(s) of a type without a speed are left out of "
            f"the port groups: {', '.join(skipped[:5])}"
        )
    if known is not None:
        ours = {i.type for i in known.netbox_interfaces}
        n_ours = sum(1 for i in known.netbox_interfaces if not i.mgmt_only)
        n_file = sum(len(g.names) for g in data_groups)
        if n_file < n_ours:
            gaps.append(
                f"{n_file} data ports; the catalog's {known.slug!r} of the same model "
                f"has {n_ours} ({', '.join(sorted(ours))})"
            )
    ext: dict[str, Any] = {"category": cat.value}
    comment = (nb.comments or "").strip().splitlines()
    ext["description"] = (nb.description or (comment[0] if comment else ""))[:200]
    power = _max_power(nb)
    if power is None and known is not None:
        power = (known.ext.max_power_w, f"as the catalog's {known.slug!r}")
        gaps.append("no power port gives maximum_draw")
    if power is None:
        needs.append("x-designer.max_power_w (W): no power port gives maximum_draw")
        gaps.append("no power port gives maximum_draw")
    else:
        ext["max_power_w"] = power[0]
        estimates.append(f"max_power_w: {IMPORT_TAG}: {power[1]}")
        guessed.append(f"max_power_w {power[0]:g} W ({power[1]})")
    date = today or datetime.date.today().isoformat()[:7]
    if known is not None:
        price = known.ext.price
        ext["price"] = {
            "usd": price.usd,
            "source": f"as the catalog's {known.slug!r}: {price.source}",
            "date": price.date,
            "estimate": True,
        }
        estimates.insert(0, f"price: {IMPORT_TAG}: copied from {known.slug!r}")
        needs_price = f"x-designer.price: copied from the catalog's {known.slug!r}"
        for part in ("gpu", "storage"):
            value = getattr(known.ext, part)
            if value is not None and known.category is cat:
                ext[part] = value.model_dump(mode="json")
                guessed.append(f"x-designer.{part}: copied from {known.slug!r}")
    else:
        ext["price"] = {
            "usd": 0,
            "source": f"not set: NetBox has no price ({IMPORT_TAG} {source})",
            "date": date,
            "estimate": True,
        }
        estimates.insert(0, f"price: {IMPORT_TAG}: not set; give the unit price in USD")
        needs_price = "x-designer.price.usd: written as 0 (NetBox has no price)"
    if cat is Category.COMPUTE and "gpu" not in ext:
        needs.append(
            "x-designer.gpu: model, count, memory_gb, nvlink_gbytes_s, "
            "nvlink_domain (NetBox has no GPUs)"
        )
        if "compute" not in names_used:
            needs.append("a port group named 'compute' (the GPU fabric ports)")
    if cat is Category.STORAGE and "storage" not in ext:
        needs.append(
            "x-designer.storage: kind, read_gbytes_s, write_gbytes_s, capacity_tb"
        )
    if cat is Category.SWITCH:
        ports = next((p for p in port_groups if p["name"] == "ports"), None)
        if ports is None:
            needs.append("a port group named 'ports' (the switch's data ports)")
        else:
            ext["switch_radix"] = (
                len(expand_names(ports["ports"]))
                if isinstance(ports["ports"], str)
                else len(ports["ports"])
            )
    ext["sources"] = [
        {
            "text": f"NetBox device type {nb.manufacturer} {nb.model} "
            f"(netbox-community/devicetype-library), imported from {source}",
            "quality": "S",
        }
    ]
    ext["estimates"] = estimates
    ext["port_groups"] = port_groups
    if not nb.airflow:
        gaps.append("no airflow")
    if nb.weight is None:
        gaps.append("no weight")
    out = {k: v for k, v in raw.items() if k != "x-designer"}
    out["slug"] = _slug(nb.slug)
    if out["slug"] != nb.slug:
        guessed.append(f"slug {out['slug']!r} (NetBox's {nb.slug!r} made a file name)")
    out["x-designer"] = ext
    result = ImportResult(source, out["slug"], cat, out, guessed, needs, gaps, notes)
    result.guessed.append(needs_price)
    return result


def _slug(slug: str) -> str:
    return re.sub(r"[^a-z0-9\-]+", "-", slug.lower()).strip("-") or "imported"


def _same_model(
    nb: NetboxDeviceType, catalog: Mapping[str, CatalogEntry]
) -> CatalogEntry | None:
    want = _norm(nb.model)
    for e in catalog.values():
        slug = _norm(e.slug)
        if (
            _norm(e.model) == want
            or want == slug
            or (len(slug) >= 4 and want.startswith(slug) and len(want) - len(slug) <= 3)
            or (nb.part_number is not None and nb.part_number == e.part_number)
        ):
            return e
    return None


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _name_role(
    cat: Category, rank: int, g: _Group, groups: list[_Group], used: set[str]
) -> tuple[str, str]:
    """Group name and role by the catalog's conventions (README), guessed."""
    if cat is Category.SWITCH:
        first = max(groups, key=lambda x: (len(x.names), x.speed))
        name = "ports" if g is first else ("uplinks" if "uplinks" not in used else "")
        return name or f"ports-{rank + 1}", "any"
    if cat is Category.COMPUTE:
        order = [("compute", "compute"), ("storage", "storage"), ("inband", "inband")]
    elif cat is Category.STORAGE:
        order = [("data", "storage"), ("inband", "inband")]
    else:
        order = [("inband", "inband"), ("storage", "storage")]
    for name, role in order[rank:]:
        if name not in used:
            return name, role
    return f"ports-{rank + 1}", "any"


def _max_power(nb: NetboxDeviceType) -> tuple[float, str] | None:
    """Maximum power from the inlets' maximum_draw, assuming N+N redundancy."""
    draws = [p.maximum_draw for p in nb.power_ports if p.maximum_draw is not None]
    if not draws:
        return None
    n = len(nb.power_ports)
    carrying = max(1, n // 2) if n > 1 else 1
    total = max(draws) * carrying
    return float(total), (
        f"{max(draws)} W maximum_draw x {carrying} of {n} supplies carrying the load "
        "(N+N redundancy assumed)"
    )


def check_entry(result: ImportResult) -> str | None:
    """None when the written entry loads; else the loader's reason."""
    try:
        CatalogEntry.model_validate(result.data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(entry)"
        return f"{where}: {first['msg']}"
    return None


__all__ = [
    "IMPORT_TAG",
    "ImportResult",
    "NetboxImportError",
    "check_entry",
    "import_device_type",
    "speed_of",
]
