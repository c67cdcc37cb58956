"""The design model: devices, groups, links and settings, as pydantic v2 models.

The model is the single source of truth. It round-trips through JSON exactly
(``Design.model_validate_json(d.model_dump_json()) == d``). Links name their
endpoints by device id and port group, never by object.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Iterator, Sequence
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from designer.core.limits import (
    COORD_LIMIT,
    LABEL_MAX,
    MAX_DEVICES,
    MAX_GROUPS,
    MAX_LINKS,
    MAX_MONITORING,
    MAX_PORT_GROUPS,
    MAX_PRICE_OVERRIDES,
    MAX_PRICE_USD,
    NOTES_MAX,
)

SCHEMA_VERSION: Literal[1] = 1

Id = Annotated[
    str, Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_.:\-/]+$")
]


class Fabric(StrEnum):
    """Which network a link belongs to."""

    COMPUTE = "compute"
    STORAGE = "storage"
    INBAND = "inband"
    OOB = "oob"


class Purpose(StrEnum):
    """What the cluster is for (product brief, "Cluster types")."""

    TRAINING = "training"
    INFERENCE = "inference"
    MIXED = "mixed"
    DEVELOPMENT = "development"


class Tier(StrEnum):
    """Declared switch tier; inferred from the graph when absent."""

    LEAF = "leaf"
    SPINE = "spine"
    CORE = "core"


class GroupKind(StrEnum):
    """What a group stands for."""

    SU = "su"
    POD = "pod"
    ROW = "row"
    RACK = "rack"
    CUSTOM = "custom"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False)


class Placement(_Strict):
    """Physical placement of a device: row, rack and lowest rack unit."""

    row: str | None = None
    rack: str | None = None
    u: int | None = Field(default=None, ge=1, le=60)


class Device(_Strict):
    """One piece of hardware from the catalog placed in the design."""

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

    id: Id
    label: str = Field(default="", max_length=LABEL_MAX)
    kind: GroupKind = GroupKind.CUSTOM
    parent: Id | None = None
    collapsed: bool = False


class Link(_Strict):
    """A bundle of ``cables`` identical cables between two devices' port groups.

    A row of :class:`LinkTable`; the design stores links column-wise so that a
    100,000-GPU design loads fast and the analysis reads arrays directly.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Id
    a: Id
    a_port: str = Field(min_length=1, max_length=64)
    b: Id
    b_port: str = Field(min_length=1, max_length=64)
    cables: int = Field(default=1, ge=1, le=100_000)
    speed_gbps: int = Field(ge=1, le=100_000)
    fabric: Fabric = Fabric.COMPUTE
    rail: int | None = Field(default=None, ge=0, le=1024)


LINK_COLUMNS: tuple[str, ...] = tuple(Link.model_fields)

_Port = Annotated[str, Field(min_length=1, max_length=64)]


SPLICE_ROWS = 64
"""Deleting or restoring up to this many links edits the columns in place."""
MAX_INDEX_DRIFT = 512
"""Rows inserted or deleted mid-table before the id index is rebuilt: until then
a look-up checks the recorded position +- this drift (a short C-level scan)."""


class LinkTable(_Strict):
    """All links of a design, one list per field (column-wise storage).

    Mutate only through the methods here, which keep the id index current.
    """

    id: list[Id] = Field(default_factory=list, max_length=MAX_LINKS)
    a: list[Id] = Field(default_factory=list, max_length=MAX_LINKS)
    a_port: list[_Port] = Field(default_factory=list, max_length=MAX_LINKS)
    b: list[Id] = Field(default_factory=list, max_length=MAX_LINKS)
    b_port: list[_Port] = Field(default_factory=list, max_length=MAX_LINKS)
    cables: list[Annotated[int, Field(ge=1, le=100_000)]] = Field(
        default_factory=list, max_length=MAX_LINKS
    )
    speed_gbps: list[Annotated[int, Field(ge=1, le=100_000)]] = Field(
        default_factory=list, max_length=MAX_LINKS
    )
    fabric: list[Fabric] = Field(default_factory=list, max_length=MAX_LINKS)
    rail: list[Annotated[int, Field(ge=0, le=1024)] | None] = Field(
        default_factory=list, max_length=MAX_LINKS
    )

    _index: dict[str, int] | None = PrivateAttr(default=None)
    _drift: int = PrivateAttr(default=0)

    @model_validator(mode="after")
    def _same_lengths(self) -> LinkTable:
        """Every column has one entry per link."""
        n = len(self.id)
        for name in LINK_COLUMNS:
            if len(getattr(self, name)) != n:
                raise ValueError(
                    f"column {name!r} has {len(getattr(self, name))} entries, "
                    f"expected {n} (one per link id)"
                )
        return self

    @classmethod
    def from_links(cls, links: Iterable[Link]) -> LinkTable:
        """Build a table from link rows."""
        table = cls()
        table.extend(links)
        return table

    @classmethod
    def from_columns(
        cls, columns: dict[str, list[Any]], *, validate: bool = False
    ) -> LinkTable:
        """A table from column lists, trusted unless ``validate``; rail optional."""
        cols = dict(columns)
        n = len(cols.get("id", []))
        cols.setdefault("rail", [None] * n)
        if validate:
            return cls.model_validate(cols)
        missing = [name for name in LINK_COLUMNS if name not in cols]
        if missing or any(len(cols[name]) != n for name in LINK_COLUMNS):
            raise ValueError(f"columns missing or of unequal length: {missing}")
        return cls.model_construct(**cols)  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(self.id)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LinkTable):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in LINK_COLUMNS)

    __hash__ = None  # type: ignore[assignment]

    def __iter__(self) -> Iterator[Link]:  # type: ignore[override]
        for i in range(len(self.id)):
            yield self.row(i)

    def row(self, i: int) -> Link:
        """The link at position ``i``."""
        return Link.model_construct(
            **{name: getattr(self, name)[i] for name in LINK_COLUMNS}
        )

    def index(self) -> dict[str, int]:
        """Exact position of each link id (rebuilt after rows moved; ~65 ms at
        300,000 links, so prefer :meth:`position`, :meth:`positions` and
        :meth:`has`, which stay fast across small deletions and insertions)."""
        if self._index is None or self._drift:
            self._index = dict(zip(self.id, range(len(self.id)), strict=True))
            self._drift = 0
        return self._index

    def _near(self) -> dict[str, int]:
        """Every id with a position off by at most ``_drift`` rows."""
        if self._index is None:
            return self.index()
        return self._index

    def has(self, link_id: str) -> bool:
        """Whether a link with this id exists."""
        return link_id in self._near()

    def id_set(self) -> Container[str]:
        """The link ids, for membership tests (kept current, not rebuilt)."""
        return self._near().keys()

    def position(self, link_id: str) -> int | None:
        """Position of the link with this id, or None."""
        if self._index is None:
            # one C-level scan beats building the whole index for one look-up
            return self.id.index(link_id) if link_id in self.id else None
        return self._locate(link_id)

    def positions(self, link_ids: Iterable[str]) -> dict[str, int]:
        """Positions of the links with these ids (unknown ids are left out)."""
        wanted = list(link_ids)
        if self._index is None and len(wanted) <= 8:
            return {lid: p for lid in wanted if (p := self.position(lid)) is not None}
        if len(wanted) * (self._drift + 1) > 100_000:  # many scans: rebuild once
            exact = self.index()
            return {lid: exact[lid] for lid in wanted if lid in exact}
        out: dict[str, int] = {}
        for lid in wanted:
            p = self._locate(lid)
            if p is not None:
                out[lid] = p
        return out

    def _locate(self, link_id: str) -> int | None:
        """Exact position from the near index: each row inserted or deleted
        since an entry was recorded moved it by at most one place."""
        near = self._near()
        guess = near.get(link_id)
        if guess is None:
            return None
        ids = self.id
        if guess < len(ids) and ids[guess] == link_id:
            return guess
        d = self._drift
        return ids.index(link_id, max(0, guess - d), min(len(ids), guess + d + 1))

    def _moved(self, rows: int) -> None:
        """``rows`` rows were inserted or deleted in the middle of the table."""
        self._drift += rows
        if self._drift > MAX_INDEX_DRIFT:
            self._index = None
            self._drift = 0

    def get(self, link_id: str) -> Link | None:
        """The link with this id, or None."""
        i = self.position(link_id)
        return None if i is None else self.row(i)

    def append(self, link: Link) -> None:
        """Add a link at the end."""
        self.insert(len(self.id), link)

    def insert(self, i: int, link: Link) -> None:
        """Insert a link at position ``i`` (as ``list.insert`` reads ``i``)."""
        n = len(self.id)
        i = min(max(i + n, 0) if i < 0 else i, n)
        for name in LINK_COLUMNS:
            getattr(self, name).insert(i, getattr(link, name))
        if self._index is not None:
            self._index[link.id] = i
            if i < n:
                self._moved(1)

    def extend(self, links: Iterable[Link] | LinkTable) -> None:
        """Append many links (rows or a whole table), column by column."""
        if isinstance(links, LinkTable):
            other = links
        else:
            rows = list(links)
            other = LinkTable.from_columns(
                {name: [getattr(r, name) for r in rows] for name in LINK_COLUMNS}
            )
        start = len(self.id)
        for name in LINK_COLUMNS:
            getattr(self, name).extend(getattr(other, name))
        if self._index is not None:
            self._index.update(zip(other.id, range(start, len(self.id)), strict=True))

    def truncate(self, n: int) -> None:
        """Keep only the first ``n`` links (undo of :meth:`extend`)."""
        dropped = self.id[n:]
        for name in LINK_COLUMNS:
            del getattr(self, name)[n:]
        if self._index is not None:
            if len(dropped) * 8 < len(self.id):
                for lid in dropped:
                    self._index.pop(lid, None)
            else:
                self._index = None
                self._drift = 0

    def take(self, positions: Sequence[int]) -> LinkTable:
        """The rows at ``positions`` as a new table."""
        return LinkTable.from_columns(
            {name: [getattr(self, name)[i] for i in positions] for name in LINK_COLUMNS}
        )

    def delete(self, positions: Sequence[int]) -> LinkTable:
        """Remove the rows at ascending ``positions``; return them.

        A few rows are spliced out in place (one ``del`` per row and column);
        many are removed in one pass that rebuilds the columns.
        """
        removed = self.take(positions)
        if not positions:
            return removed
        if len(positions) <= SPLICE_ROWS:
            for name in LINK_COLUMNS:
                column = getattr(self, name)
                for p in reversed(positions):
                    del column[p]
        else:
            for name in LINK_COLUMNS:
                column = getattr(self, name)
                kept: list[Any] = []
                start = 0
                for p in positions:
                    kept.extend(column[start:p])
                    start = p + 1
                kept.extend(column[start:])
                column[:] = kept
        if self._index is not None and len(positions) <= MAX_INDEX_DRIFT:
            for lid in removed.id:
                self._index.pop(lid, None)
            self._moved(len(positions))
        else:
            self._index = None
            self._drift = 0
        return removed

    def restore(self, positions: Sequence[int], rows: LinkTable) -> None:
        """Put ``rows`` back at ascending final ``positions`` (undoes ``delete``)."""
        if not positions:
            return
        if len(positions) <= SPLICE_ROWS:
            for name in LINK_COLUMNS:
                column = getattr(self, name)
                values = getattr(rows, name)
                for j, p in enumerate(positions):
                    column.insert(p, values[j])
        else:
            for name in LINK_COLUMNS:
                column = getattr(self, name)
                values = getattr(rows, name)
                merged: list[Any] = []
                src = 0
                for j, p in enumerate(positions):
                    upto = p - j
                    merged.extend(column[src:upto])
                    src = upto
                    merged.append(values[j])
                merged.extend(column[src:])
                column[:] = merged
        if self._index is not None and len(positions) <= MAX_INDEX_DRIFT:
            self._index.update(zip(rows.id, positions, strict=True))
            self._moved(len(positions))
        else:
            self._index = None
            self._drift = 0

    def pop(self, i: int) -> Link:
        """Remove and return the link at position ``i``."""
        link = self.row(i)
        self.delete([i])
        return link

    def replace(self, i: int, link: Link) -> Link:
        """Put ``link`` at position ``i``; return the old one."""
        old = self.row(i)
        for name in LINK_COLUMNS:
            getattr(self, name)[i] = getattr(link, name)
        if old.id != link.id and self._index is not None:
            self._index.pop(old.id, None)
            self._index[link.id] = i
        return old


_Price = Annotated[float, Field(ge=0, le=MAX_PRICE_USD)]


class Settings(_Strict):
    """Design-wide settings: name, purpose, software stack and price overrides."""

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


class Design(_Strict):
    """A whole cluster design: the thing saved to and loaded from a file."""

    schema_version: Literal[1] = SCHEMA_VERSION
    settings: Settings = Field(default_factory=Settings)
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
    return problems
