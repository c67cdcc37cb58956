"""A NetBox device type as NetBox's Export > YAML or the device-type library
writes it, cleaned for the importer: nulls and empty strings dropped, fields
of newer NetBox versions dropped and named, the manufacturer mapped to the
catalog's spelling.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from designer.catalog.schema import CatalogEntry

__all__ = [
    "MANUFACTURER_ALIASES",
    "NEWER_NETBOX_FIELDS",
    "map_manufacturer",
    "normalize_netbox",
]

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
