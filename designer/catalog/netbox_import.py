"""NetBox device-type file -> catalog entry, saying what was guessed and missing.

A NetBox device type (netbox-community/devicetype-library) has the physical
facts (U, depth, airflow, weight, power inlets, one interface per port) but
nothing the analysis needs beyond them. :func:`import_device_type` keeps the
NetBox fields as given (cleaned by :mod:`designer.catalog.netbox_clean`) and
adds an ``x-designer`` block filled where it can be inferred (interfaces
grouped by :mod:`designer.catalog.netbox_ports`):

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
from designer.catalog.netbox_clean import normalize_netbox
from designer.catalog.netbox_ports import (
    InterfaceGroup,
    compress,
    group_interfaces,
    missing_in_sequence,
    stem,
    twin_cages,
    twin_module,
)
from designer.catalog.optics import Optics
from designer.catalog.schema import CatalogEntry, Category

IMPORT_TAG = "import-netbox"
"""How the importer's lines in ``x-designer.estimates`` start their derivation."""

_COMPUTE_HINT = re.compile(r"(dgx|hgx|nvl|gpu|gb200|gb300|h100|h200|b200|b300)", re.I)
_STORAGE_HINT = re.compile(r"(storage|nas|filer|lustre|weka|vast|gpfs|exascaler)", re.I)


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
    """What :func:`~designer.catalog.netbox_clean.normalize_netbox` did: fields
    dropped, the manufacturer mapped (or not)."""

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


def _category(
    nb: NetboxDeviceType, groups: list[InterfaceGroup], known: CatalogEntry | None
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
    groups, skipped = group_interfaces(nb)
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
            "ports": compress(g.names),
            "speeds_gbps": speeds,
            "media": media.value,
            "role": role,
        }
        missing = missing_in_sequence(g.names)
        if twin_cages(g.names + missing) and missing:
            gaps.append(
                f"port group {name!r}: cages of two ports, but {len(missing)} "
                "port(s) missing, so the cages are not set (each listed port "
                "counts as its own cage)"
            )
        elif twin_cages(g.names):
            module = twin_module(optics, g.speed, media)
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
            name = f"{name}-{stem(g.names[0]).replace('#', '')}".rstrip("-")
        names_used.add(name)
        role = "oob" if g.speed <= 10 else "inband"
        port_groups.append(
            {
                "name": name,
                "ports": compress(g.names),
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
    cat: Category,
    rank: int,
    g: InterfaceGroup,
    groups: list[InterfaceGroup],
    used: set[str],
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
]
