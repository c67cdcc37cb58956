"""The design model: devices, groups, links and settings, as pydantic v2 models.

The model is the single source of truth. It round-trips through JSON exactly
(``Design.model_validate_json(d.model_dump_json()) == d``). Links name their
endpoints by device id and port group, never by object.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from designer.core.hostnames import (
    DEFAULT_TRAY_RULE,
    TRAY_RULE_MAX,
    tray_rule_problem,
)
from designer.core.ids import Id
from designer.core.limits import (
    COORD_LIMIT,
    LABEL_MAX,
    MAX_DEVICES,
    MAX_GROUPS,
    MAX_MONITORING,
    MAX_PORT_GROUPS,
    MAX_PRICE_OVERRIDES,
    MAX_PRICE_USD,
    NOTES_MAX,
)
from designer.core.link_arrays import LinkArrays
from designer.core.link_model import (
    FABRIC_CODE,
    FABRICS,
    LINK_COLUMNS,
    Fabric,
    Link,
    LinkColumns,
)
from designer.core.links import LinkTable
from designer.core.physical import Physical, PlacementRef, physical_problems
from designer.core.workload import Workload

SCHEMA_VERSION: Literal[5] = 5


class Purpose(StrEnum):
    """What the cluster is for (product brief, "Cluster types")."""

    TRAINING = "training"
    INFERENCE = "inference"
    MIXED = "mixed"
    DEVELOPMENT = "development"


class Tier(StrEnum):
    """Declared switch tier; inferred from the graph when absent.

    The members are declared bottom up: that order (leaf, spine, core) is the
    one tier order of the program (:attr:`rank`, :meth:`order_key`).
    """

    LEAF = "leaf"
    SPINE = "spine"
    CORE = "core"

    @property
    def rank(self) -> int:
        """1 leaf, 2 spine, 3 core (the analysis' switch level)."""
        return _TIER_RANKS[self]

    @classmethod
    def of_rank(cls, rank: int) -> Tier | None:
        """The tier at switch level ``rank`` (None: not one of the named tiers)."""
        members = list(cls)
        return members[rank - 1] if 1 <= rank <= len(members) else None

    @classmethod
    def order_key(cls, name: str) -> int:
        """Sort key of a tier name: leaf, spine, core, then any other name."""
        try:
            return cls(name).rank
        except ValueError:
            return len(cls) + 1


_TIER_RANKS: dict[Tier, int] = {t: r for r, t in enumerate(Tier, start=1)}


class GroupKind(StrEnum):
    """What a group stands for."""

    SU = "su"
    POD = "pod"
    ROW = "row"
    RACK = "rack"
    CUSTOM = "custom"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False)


__all__ = [
    "FABRICS",
    "FABRIC_CODE",
    "LINK_COLUMNS",
    "SCHEMA_VERSION",
    "Design",
    "Device",
    "Fabric",
    "Group",
    "GroupKind",
    "Id",
    "Link",
    "LinkArrays",
    "LinkColumns",
    "LinkTable",
    "Physical",
    "Placement",
    "Purpose",
    "Settings",
    "Tier",
    "placement_refs",
    "reference_problems",
]


class Placement(_Strict):
    """Physical placement of a device: row, rack and lowest rack unit.

    With a ``physical`` block in the design, ``rack`` names one of its racks
    (``row``, if given, must be that rack's row); without one, both are free
    labels (files before schema version 3).
    """

    row: str | None = None
    rack: str | None = None
    u: int | None = Field(default=None, ge=1, le=60)


class Device(_Strict):
    """One piece of hardware from the catalog placed in the design."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    """Replaced by commands, never changed: a snapshot or an event that holds
    one reads the state it was taken in (frozen: assignment raises)."""

    id: Id
    catalog_id: Id
    label: str = Field(default="", max_length=LABEL_MAX)
    x: float = Field(default=0.0, ge=-COORD_LIMIT, le=COORD_LIMIT)
    y: float = Field(default=0.0, ge=-COORD_LIMIT, le=COORD_LIMIT)
    group: Id | None = None
    tier: Tier | None = None
    placement: Placement | None = None
    ports: dict[str, Annotated[int, Field(ge=1, le=4096)]] | None = Field(
        default=None,
        max_length=MAX_PORT_GROUPS,
        description="port count per port group, only for configurable (generic) "
        "catalog entries such as generic-switch",
    )


class Group(_Strict):
    """A set of devices: scalable unit, pod, row, rack; groups nest via ``parent``."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    """Replaced by commands, never changed: a snapshot or an event that holds
    one reads the state it was taken in (frozen: assignment raises)."""

    id: Id
    label: str = Field(default="", max_length=LABEL_MAX)
    kind: GroupKind = GroupKind.CUSTOM
    parent: Id | None = None
    collapsed: bool = False


_Price = Annotated[float, Field(ge=0, le=MAX_PRICE_USD)]


class Settings(_Strict):
    """Design-wide settings: name, purpose, software stack, price overrides and
    the rule that names the compute trays of a rack (``tray_hostnames``)."""

    name: str = Field(default="Untitled design", max_length=LABEL_MAX)
    purpose: Purpose = Purpose.TRAINING
    scheduler: str | None = Field(default=None, max_length=64)
    monitoring: list[Annotated[str, Field(max_length=64)]] = Field(
        default_factory=list, max_length=MAX_MONITORING
    )
    price_overrides: dict[Id, _Price] = Field(
        default_factory=dict, max_length=MAX_PRICE_OVERRIDES
    )
    notes: str = Field(default="", max_length=NOTES_MAX)
    tray_hostnames: str = Field(
        default=DEFAULT_TRAY_RULE,
        max_length=TRAY_RULE_MAX,
        description="how the compute trays of a rack (NVL72) are named: {rack} "
        "and {tray} (or {tray:02}), e.g. {rack}-t{tray:02} gives nvl72-0001-t01; "
        "see designer.core.hostnames",
    )

    @field_validator("tray_hostnames")
    @classmethod
    def _tray_rule(cls, value: str) -> str:
        problem = tray_rule_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value


class Design(_Strict):
    """A whole cluster design: the thing saved to and loaded from a file."""

    schema_version: Literal[5] = SCHEMA_VERSION
    settings: Settings = Field(default_factory=Settings)
    workload: Workload | None = Field(
        default=None, description="what the cluster should run (estimate inputs)"
    )
    physical: Physical | None = Field(
        default=None,
        description="racks, rows, halls and facility (designer.core.physical)",
    )
    groups: list[Group] = Field(default_factory=list, max_length=MAX_GROUPS)
    devices: list[Device] = Field(default_factory=list, max_length=MAX_DEVICES)
    links: LinkTable = Field(default_factory=LinkTable)

    @model_validator(mode="after")
    def _check_references(self) -> Design:
        """Ids are unique and every reference resolves."""
        problems = reference_problems(self)
        if problems:
            raise ValueError("; ".join(problems[:10]))
        return self

    def device_map(self) -> dict[str, Device]:
        """Devices by id."""
        return {d.id: d for d in self.devices}

    def group_map(self) -> dict[str, Group]:
        """Groups by id."""
        return {g.id: g for g in self.groups}


def reference_problems(design: Design) -> list[str]:
    """Return human-readable problems with ids and references (empty when fine)."""
    problems: list[str] = []
    group_ids: set[str] = set()
    for i, g in enumerate(design.groups):
        if g.id in group_ids:
            problems.append(f"groups[{i}]: duplicate group id {g.id!r}")
        group_ids.add(g.id)
    for i, g in enumerate(design.groups):
        if g.parent is not None and g.parent not in group_ids:
            problems.append(f"groups[{i}].parent: unknown group {g.parent!r}")
    parents = {g.id: g.parent for g in design.groups}
    for gid in parents:
        seen = {gid}
        p = parents[gid]
        while p is not None:
            if p in seen:
                problems.append(f"group {gid!r}: parent chain has a cycle")
                break
            seen.add(p)
            p = parents.get(p)
    device_ids: set[str] = set()
    for i, d in enumerate(design.devices):
        if d.id in device_ids:
            problems.append(f"devices[{i}]: duplicate device id {d.id!r}")
        device_ids.add(d.id)
        if d.group is not None and d.group not in group_ids:
            problems.append(f"devices[{i}].group: unknown group {d.group!r}")
    table = design.links
    if len(set(table.id)) != len(table.id):
        seen_links: set[str] = set()
        for i, lid in enumerate(table.id):
            if lid in seen_links:
                problems.append(f"links.id[{i}]: duplicate link id {lid!r}")
                break
            seen_links.add(lid)
    for end in ("a", "b"):
        column = getattr(table, end)
        if not device_ids.issuperset(column):
            for i, did in enumerate(column):
                if did not in device_ids:
                    problems.append(f"links.{end}[{i}]: unknown device {did!r}")
                    break
    for i, (a, b) in enumerate(zip(table.a, table.b, strict=True)):
        if a == b:
            problems.append(f"links[{i}]: a link cannot join {a!r} to itself")
            break
    if design.physical is not None:
        found = physical_problems(
            design.physical, placement_refs(design.devices), group_ids
        )
        problems += [f"{place}: {message}" for place, message in found]
    return problems


def placement_refs(devices: list[Device]) -> list[PlacementRef]:
    """The placements of ``devices`` as :func:`physical_problems` reads them."""
    return [
        PlacementRef(i, d.id, p.row, p.rack, p.u)
        for i, d in enumerate(devices)
        if (p := d.placement) is not None
    ]
