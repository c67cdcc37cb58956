"""Reference and catalog checks of a design file's parsed data: duplicate ids,
dangling references, unknown catalog ids and port groups, each with its place."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from designer.catalog.schema import CatalogEntry
from designer.core.model import SCHEMA_VERSION, Design
from designer.core.physical import Physical, PlacementRef, physical_problems
from designer.io.errors import DesignFileError, Problem
from designer.io.migrate import COLUMN_LINKS_SINCE

MAX_PROBLEMS = 5
"""How many problems one error message lists before "... and N more"."""


MAX_SUGGEST_FROM = 5_000
"""Suggest close ids only among this many (difflib compares with each)."""


class Problems(list[Problem]):
    """Problems in file order: the first :data:`MAX_PROBLEMS` kept, later ones
    only counted (``more``), so a file with a million broken references costs
    a count, not a million messages with suggestions."""

    def __init__(self) -> None:
        super().__init__()
        self.more = 0

    @property
    def full(self) -> bool:
        """Whether further problems are only counted."""
        return len(self) >= MAX_PROBLEMS

    def add(self, problem: Problem) -> None:
        """Keep ``problem``, or count it once enough are kept."""
        if self.full:
            self.more += 1
        else:
            self.append(problem)


def _close(word: str, choices: Iterable[str], problems: Problems) -> str:
    if problems.full:
        return ""  # not shown: spare the comparisons
    pool = list(choices)
    if len(pool) > MAX_SUGGEST_FROM:
        return ""
    matches = difflib.get_close_matches(word, pool, n=3, cutoff=0.6)
    return (
        " (did you mean " + " or ".join(repr(m) for m in matches) + "?)"
        if matches
        else ""
    )


def reference_problems(data: dict[str, Any], *, row_links: bool = False) -> Problems:
    """Duplicate ids and dangling references in well-typed parsed design data."""
    problems = Problems()
    groups: list[dict[str, Any]] = data.get("groups", [])
    devices: list[dict[str, Any]] = data.get("devices", [])
    first_group: dict[str, int] = {}
    for i, g in enumerate(groups):
        if g["id"] in first_group:
            problems.add(
                Problem(
                    f"groups[{i}].id",
                    f"duplicate group id {g['id']!r} (first at groups"
                    f"[{first_group[g['id']]}]); expected unique ids",
                )
            )
        first_group.setdefault(g["id"], i)
    for i, g in enumerate(groups):
        parent = g.get("parent")
        if parent is not None and parent not in first_group:
            problems.add(
                Problem(
                    f"groups[{i}].parent",
                    f"unknown group {parent!r}; expected the id of a group in "
                    f"'groups'{_close(parent, first_group, problems)}",
                )
            )
    parents = {g["id"]: g.get("parent") for g in groups}
    for gid in parents:
        seen, p = {gid}, parents[gid]
        while p is not None and p in parents:
            if p in seen:
                problems.add(
                    Problem(
                        f"groups[{first_group[gid]}].parent",
                        f"group {gid!r} is its own ancestor; expected groups "
                        f"to nest without cycles",
                    )
                )
                break
            seen.add(p)
            p = parents[p]
    first_device: dict[str, int] = {}
    for i, d in enumerate(devices):
        if d["id"] in first_device:
            problems.add(
                Problem(
                    f"devices[{i}].id",
                    f"duplicate device id {d['id']!r} (first at devices"
                    f"[{first_device[d['id']]}]); expected unique ids",
                )
            )
        first_device.setdefault(d["id"], i)
        group = d.get("group")
        if group is not None and group not in first_group:
            problems.add(
                Problem(
                    f"devices[{i}].group",
                    f"unknown group {group!r}; expected the id of a group in "
                    f"'groups'{_close(group, first_group, problems)}",
                )
            )
    links: dict[str, list[Any]] = data.get("links", {})

    def place(column: str, i: int) -> str:
        return f"links[{i}].{column}" if row_links else f"links.{column}[{i}]"

    first_link: dict[str, int] = {}
    for i, lid in enumerate(links.get("id", [])):
        if lid in first_link:
            problems.add(
                Problem(
                    place("id", i),
                    f"duplicate link id {lid!r} (first at "
                    f"{place('id', first_link[lid])}); expected unique ids",
                )
            )
        first_link.setdefault(lid, i)
    for end in ("a", "b"):
        for i, did in enumerate(links.get(end, [])):
            if did not in first_device:
                problems.add(
                    Problem(
                        place(end, i),
                        f"unknown device {did!r}; expected the id of a device "
                        f"in 'devices'{_close(did, first_device, problems)}",
                    )
                )
    for i, (a, b) in enumerate(
        zip(links.get("a", []), links.get("b", []), strict=False)
    ):
        if a == b:
            problems.add(
                Problem(
                    place("b", i),
                    f"link joins {a!r} to itself; expected two different devices",
                )
            )
    for problem in _physical_problems(data, devices, first_group):
        problems.add(problem)
    return problems


def _physical_problems(
    data: dict[str, Any], devices: list[dict[str, Any]], groups: Iterable[str]
) -> list[Problem]:
    """Problems of the ``physical`` block and of the placements naming its racks."""
    block = data.get("physical")
    if not isinstance(block, dict):
        return []
    try:
        physical = Physical.model_validate(block)
    except ValidationError:  # a type error: translate() reports it
        return []
    refs = []
    for i, d in enumerate(devices):
        p = d.get("placement")
        if isinstance(p, dict):
            refs.append(
                PlacementRef(i, d["id"], p.get("row"), p.get("rack"), p.get("u"))
            )
    return [
        Problem(place, msg) for place, msg in physical_problems(physical, refs, groups)
    ]


def check_catalog(
    design: Design,
    source: str,
    catalog: Mapping[str, CatalogEntry],
    version: int = SCHEMA_VERSION,
) -> None:
    """Every device names a catalog entry, and ports name its port groups."""
    problems = Problems()
    ports_of: dict[str, frozenset[str]] = {}
    device_ports: dict[str, frozenset[str]] = {}
    for i, d in enumerate(design.devices):
        entry = catalog.get(d.catalog_id)
        if entry is None:
            problems.add(
                Problem(
                    f"devices[{i}].catalog_id",
                    f"unknown catalog id {d.catalog_id!r}; expected an id from the "
                    f"hardware catalog{_close(d.catalog_id, catalog, problems)}",
                )
            )
            continue
        names = ports_of.get(d.catalog_id)
        if names is None:
            names = ports_of[d.catalog_id] = frozenset(i.name for i in entry.interfaces)
        device_ports[d.id] = names
        for key in d.ports or {}:
            if key not in names:
                problems.add(
                    Problem(
                        f"devices[{i}].ports.{key}",
                        f"{d.catalog_id!r} has no port group {key!r}; expected one "
                        f"of: {', '.join(sorted(names))}",
                    )
                )
    if not problems:
        table = design.links
        for end in ("a", "b"):
            ids, ports = getattr(table, end), getattr(table, f"{end}_port")
            # C-level pass first (no Python frame per link); the loop below,
            # which names each place, runs only when some port is wrong
            ports_of_ends = map(device_ports.__getitem__, ids)
            if all(map(frozenset.__contains__, ports_of_ends, ports)):
                continue
            for i, (did, port) in enumerate(zip(ids, ports, strict=True)):
                if port not in device_ports[did]:
                    problems.add(
                        Problem(
                            f"links[{i}].{end}_port"
                            if version < COLUMN_LINKS_SINCE
                            else f"links.{end}_port[{i}]",
                            f"device {did!r} ({_catalog_of(design, did)}) has no "
                            f"port group {port!r}; "
                            f"expected one of: {', '.join(sorted(device_ports[did]))}",
                        )
                    )
                    if problems.more:
                        break
    if problems:
        raise DesignFileError(source, list(problems), problems.more)


def _catalog_of(design: Design, device_id: str) -> str:
    for d in design.devices:
        if d.id == device_id:
            return d.catalog_id
    return "?"
