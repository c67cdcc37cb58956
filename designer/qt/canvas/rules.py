"""The connection rules and bulk wiring the canvas uses (from ``designer.core``).

``designer.core.rules`` and ``designer.core.wiring`` are the source of truth.
While they are not importable (they were written in parallel with the canvas),
a small stand-in here gives sensible defaults and typed refusals, so the canvas
works and says why it refuses.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from designer.catalog.schema import CatalogEntry, Role
from designer.core.commands import AddLinks, Command
from designer.core.model import Design, Fabric, Link

try:  # pragma: no cover - depends on the core helper's progress
    from designer.core.rules import ConnectionRefused, suggest_link
except ImportError:  # pragma: no cover

    class ConnectionRefused(Exception):  # type: ignore[no-redef]
        """The rules refuse a connection; ``str(exc)`` says why."""

    def suggest_link(  # type: ignore[misc]
        design: Design,
        a_id: str,
        b_id: str,
        lookup: Mapping[str, CatalogEntry],
        fabric: Fabric | None = None,
    ) -> Link:
        """A link with default port groups and speed, or ConnectionRefused."""
        return _fallback_suggest(design, a_id, b_id, lookup, fabric)


try:  # pragma: no cover
    from designer.core.wiring import connect_all_to_all, wire_rail_optimized
except ImportError:  # pragma: no cover

    def connect_all_to_all(  # type: ignore[misc]
        design: Design,
        sources: Sequence[str],
        targets: Sequence[str],
        cables_each: int,
        lookup: Mapping[str, CatalogEntry],
    ) -> Command:
        """Every source to every target with ``cables_each`` cables."""
        links: list[Link] = []
        fresh = _fresh_link_ids(design)
        for s, t in itertools.product(sources, targets):
            base = suggest_link(design, s, t, lookup)
            links.append(
                base.model_copy(update={"id": next(fresh), "cables": cables_each})
            )
        _check_port_budget(design, links, lookup)
        return AddLinks(links, label=f"Connect all to all ({len(links)} links)")

    def wire_rail_optimized(  # type: ignore[misc]
        design: Design,
        nodes: Sequence[str],
        rail_leaves: Sequence[str],
        lookup: Mapping[str, CatalogEntry],
    ) -> Command:
        """Port i of every node to rail leaf i."""
        devs = design.device_map()
        if not nodes or not rail_leaves:
            raise ConnectionRefused("select compute nodes and their rail leaves")
        entry = lookup[devs[nodes[0]].catalog_id]
        ports = entry.interface("compute")
        if ports is None:
            raise ConnectionRefused(f"{entry.model} has no compute ports")
        if len(rail_leaves) != ports.count:
            raise ConnectionRefused(
                f"{entry.model} has {ports.count} compute ports: select "
                f"{ports.count} rail leaves (selected {len(rail_leaves)})"
            )
        fresh = _fresh_link_ids(design)
        links = []
        for node in nodes:
            for rail, leaf in enumerate(rail_leaves):
                base = suggest_link(design, node, leaf, lookup)
                links.append(base.model_copy(update={"id": next(fresh), "rail": rail}))
        _check_port_budget(design, links, lookup)
        return AddLinks(links, label=f"Wire rail-optimized ({len(links)} links)")


def _fresh_link_ids(design: Design) -> Any:
    used = set(design.links.id)
    for n in itertools.count(len(used) + 1):
        lid = f"link-{n}"
        if lid not in used:
            used.add(lid)
            yield lid


def _ports(entry: CatalogEntry, roles: tuple[Role, ...]) -> tuple[str, int, int] | None:
    for i in entry.interfaces:
        if i.role in roles:
            return i.name, i.count, i.speed_gbps
    return None


def _used(design: Design, dev: str, port: str) -> int:
    t = design.links
    return sum(
        c
        for a, ap, b, bp, c in zip(t.a, t.a_port, t.b, t.b_port, t.cables, strict=True)
        if (a == dev and ap == port) or (b == dev and bp == port)
    )


def _check_port_budget(
    design: Design, links: list[Link], lookup: Mapping[str, CatalogEntry]
) -> None:
    devs = design.device_map()
    need: dict[tuple[str, str], int] = {}
    for link in links:
        for dev, port in ((link.a, link.a_port), (link.b, link.b_port)):
            need[(dev, port)] = need.get((dev, port), 0) + link.cables
    for (dev, port), n in need.items():
        entry = lookup[devs[dev].catalog_id]
        iface = entry.interface(port)
        total = iface.count if iface else 0
        free = total - _used(design, dev, port)
        if n > free:
            raise ConnectionRefused(
                f"{devs[dev].label or dev}: needs {n} {port} ports, {free} free "
                f"of {total}"
            )


def _fallback_suggest(
    design: Design,
    a_id: str,
    b_id: str,
    lookup: Mapping[str, CatalogEntry],
    fabric: Fabric | None,
) -> Link:
    if a_id == b_id:
        raise ConnectionRefused("a device cannot be connected to itself")
    devs = design.device_map()
    a, b = devs[a_id], devs[b_id]
    ea, eb = lookup.get(a.catalog_id), lookup.get(b.catalog_id)
    if ea is None or eb is None:
        raise ConnectionRefused("unknown catalog entry")
    a_sw = ea.category == "switch"
    b_sw = eb.category == "switch"
    if not a_sw and not b_sw:
        raise ConnectionRefused(
            f"{ea.model} and {eb.model} are both end points: connect each to a switch"
        )
    end_roles = (Role.COMPUTE, Role.STORAGE)
    pa = _ports(ea, (Role.ANY,) if a_sw else end_roles)
    pb = _ports(eb, (Role.ANY,) if b_sw else end_roles)
    if pa is None or pb is None:
        raise ConnectionRefused("no matching port groups")
    for dev, entry, (port, count, _) in ((a, ea, pa), (b, eb, pb)):
        if _used(design, dev.id, port) >= count:
            raise ConnectionRefused(
                f"{dev.label or dev.id} ({entry.model}): all {count} {port} ports "
                "are in use"
            )
    role = Role.COMPUTE
    for entry in (ea, eb):
        iface = _ports(entry, end_roles)
        if entry.category != "switch" and iface is not None:
            role = Role.STORAGE if iface[0] == "data" else Role.COMPUTE
    return Link(
        id=next(_fresh_link_ids(design)),
        a=a_id,
        a_port=pa[0],
        b=b_id,
        b_port=pb[0],
        cables=1,
        speed_gbps=min(pa[2], pb[2]),
        fabric=fabric or Fabric(role.value),
    )


__all__ = [
    "ConnectionRefused",
    "connect_all_to_all",
    "suggest_link",
    "wire_rail_optimized",
]
