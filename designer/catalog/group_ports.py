"""A catalog file's port groups resolved against its NetBox interfaces, before
validation: each group's ``ports`` (names and patterns such as
``osfp[1-32]/[1-2]``) expanded, checked, and its ``count`` and ``type`` taken
from the ports it lists (:class:`designer.catalog.schema.CatalogEntry` calls
this on the raw file).
"""

from __future__ import annotations

from typing import Any

from designer.catalog.netbox import expand_names
from designer.catalog.netbox_types import INTERFACE_TYPES

__all__ = ["interface_types", "resolve_group"]


def interface_types(ports: Any) -> dict[str, str]:
    """NetBox interface name -> type, from a raw ``interfaces`` list."""
    out: dict[str, str] = {}
    dup: list[str] = []
    if isinstance(ports, list):
        for p in ports:
            if isinstance(p, dict) and isinstance(p.get("name"), str):
                if p["name"] in out:
                    dup.append(p["name"])
                out.setdefault(p["name"], str(p.get("type")))
    if dup:
        raise ValueError(f"interfaces: names repeat: {', '.join(dup[:5])}")
    return out


def resolve_group(
    place: str, group: dict[str, Any], types: dict[str, str], owner: dict[str, str]
) -> dict[str, Any]:
    """A raw port group with ``ports`` expanded and ``count``/``type`` filled in."""
    spec = group.get("ports")
    if spec is None:
        raise ValueError(
            f"{place}.ports: missing; list the NetBox interface names of the "
            "group (patterns such as osfp[1-32]/[1-2] allowed)"
        )
    items = [spec] if isinstance(spec, str) else spec
    texts = isinstance(items, list | tuple) and all(isinstance(x, str) for x in items)
    if not texts:
        raise ValueError(
            f"{place}.ports: expected a name, a pattern or a list of them, got {spec!r}"
        )
    names: list[str] = []
    for item in items:
        try:
            names.extend(expand_names(item))
        except ValueError as exc:
            raise ValueError(f"{place}.ports: {exc}") from None
    missing = [n for n in names if n not in types]
    if missing:
        listed = list(types)
        have = f"{listed[0]} ... {listed[-1]}" if listed else "none"
        raise ValueError(
            f"{place}.ports: {', '.join(map(repr, missing[:3]))}"
            f"{' ...' if len(missing) > 3 else ''} not among the file's NetBox "
            f"interfaces ({len(listed)} listed: {have})"
        )
    if not names:
        raise ValueError(f"{place}.ports: the group lists no port")
    for n in names:
        if n in owner:
            raise ValueError(
                f"{place}.ports: {n!r} is also in port group {owner[n]!r}; a "
                "physical port belongs to one group"
            )
        owner[n] = str(group.get("name"))
    kinds = sorted({types[n] for n in names})
    # a type NetBox does not know is reported at its interface, not here
    if len(kinds) > 1 and set(kinds) <= INTERFACE_TYPES:
        raise ValueError(
            f"{place}.ports: the ports have different NetBox types "
            f"({', '.join(kinds)}); a port group is one kind of port"
        )
    derived = {"count": len(names), "type": kinds[0]}
    for key, value in derived.items():
        if key in group and group[key] != value:
            raise ValueError(
                f"{place}.{key}: {group[key]!r}, but the ports listed give "
                f"{value!r} (leave {key} out: it comes from the ports)"
            )
    return {**group, "ports": tuple(names), **derived}
