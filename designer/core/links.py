"""The design's links as one column store: numpy arrays, changed only by commands.

:class:`LinkTable` is the single source of truth for links. It keeps one array
per field, with strings interned as integer codes (device ids into
:attr:`LinkTable.names`, port groups into :attr:`LinkTable.port_names`), so the
analysis and the canvas read the same arrays instead of keeping copies of their
own. A mutation never writes into an array: it puts new arrays in place
(:class:`LinkArrays` is a frozen bundle of them), so a view or a worker thread
holding the arrays of an earlier state may go on reading them.

Ids are found by position through a *serial* column: every row carries a serial
number that increases along the table (appends get new, larger serials; an undo
puts rows back with their old serials, between their old neighbours). A look-up
is a dict get and a binary search, so deleting a row in the middle of 300,000
never rebuilds an index.
"""

from __future__ import annotations

import itertools
from collections.abc import Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Annotated, Any

import numpy as np
import numpy.typing as npt
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    model_validator,
)
from pydantic_core import core_schema

from designer.core.limits import MAX_LINKS

Id = Annotated[
    str, Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_.:\-/]+$")
]
"""A stable id: 1-200 characters of letters, digits and ``_ . : - /``."""


class Fabric(StrEnum):
    """Which network a link belongs to."""

    COMPUTE = "compute"
    STORAGE = "storage"
    INBAND = "inband"
    OOB = "oob"


FABRICS: tuple[Fabric, ...] = tuple(Fabric)
"""The fabrics in code order (the table stores ``FABRICS.index(fabric)``)."""
FABRIC_CODE: dict[Fabric, int] = {f: i for i, f in enumerate(FABRICS)}
_FABRIC_VALUES = np.asarray([f.value for f in FABRICS], dtype=object)
_FABRIC_OF_TEXT: dict[str, int] = {f.value: i for i, f in enumerate(FABRICS)}
"""Code of a fabric given as its file value or as the member (a ``StrEnum``
member hashes and compares as its value)."""


class Link(BaseModel):
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
    a_pins: tuple[str, ...] | None = None
    """The ports the cables use at end a, one per cable in order ("" for a
    cable that found no free port); None: not chosen yet (the loader and the
    commands choose them, :mod:`designer.core.pins`)."""
    b_pins: tuple[str, ...] | None = None
    """The ports at end b, as :attr:`a_pins`."""


LINK_COLUMNS: tuple[str, ...] = tuple(Link.model_fields)
"""The link fields, in file order: the columns of the ``links`` table."""

_Port = Annotated[str, Field(min_length=1, max_length=64)]
_NO_RAIL = -1

NO_PORT = -1
"""Pin code of a cable that found no free port."""
PENDING = -2
"""Pin code of a cable whose port is not chosen yet."""
PIN_PENDING_TEXT = "?"
"""A link's pins in the file when they are not chosen yet (the loader chooses
them on open, by :func:`designer.core.pins.pin_pending`)."""
PIN_NONE_TEXT = "-"
"""A cable without a port, in the file's pin text."""
_SPECIAL_PINS = frozenset({PIN_PENDING_TEXT, PIN_NONE_TEXT, ""})
_Pins = Annotated[str, Field(max_length=1_000_000)]


def pins_text(pins: tuple[str, ...] | None) -> str:
    """The file's text of one end's pins: names joined by a space, ``-`` for a
    cable without a port, trailing ones left out; ``?`` when not chosen."""
    if pins is None:
        return PIN_PENDING_TEXT
    n = len(pins)
    while n and not pins[n - 1]:
        n -= 1
    return " ".join(p or PIN_NONE_TEXT for p in pins[:n])


def parse_pins(text: str, cables: int) -> tuple[str, ...] | None:
    """The pins of a file's pin text (see :func:`pins_text`); ValueError when
    it names more ports than the link has cables."""
    if text == PIN_PENDING_TEXT:
        return None
    names = text.split(" ") if text else []
    if len(names) > cables:
        raise ValueError(
            f"{len(names)} ports listed, but the link has {cables} "
            f"cable{'s' if cables != 1 else ''}"
        )
    out = ["" if n == PIN_NONE_TEXT else n for n in names]
    return (*out, *([""] * (cables - len(out))))


class LinkColumns(BaseModel):
    """The ``links`` table as the design file stores it: one list per field."""

    model_config = ConfigDict(extra="forbid")

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
    a_pins: list[_Pins] | None = Field(
        default=None,
        max_length=MAX_LINKS,
        description="the ports each link's cables use at end a: port names "
        "separated by a space, one per cable ('-': no free port; cables past "
        "the last name have none); '?': not chosen yet (chosen on open)",
    )
    b_pins: list[_Pins] | None = Field(
        default=None,
        max_length=MAX_LINKS,
        description="the ports at end b, as a_pins",
    )

    @model_validator(mode="after")
    def _same_lengths(self) -> LinkColumns:
        """Every column has one entry per link; pins name at most one port per
        cable."""
        n = len(self.id)
        for name in LINK_COLUMNS:
            if getattr(self, name) is None:
                continue
            if len(getattr(self, name)) != n:
                raise ValueError(
                    f"column {name!r} has {len(getattr(self, name))} entries, "
                    f"expected {n} (one per link id)"
                )
        for name in ("a_pins", "b_pins"):
            column = getattr(self, name)
            if column is None or not n:
                continue
            # names per entry (spaces + 1) against cables, counted in C
            spaces = np.fromiter(
                map(str.count, column, itertools.repeat(" ")), np.int64, n
            )
            over = spaces >= np.asarray(self.cables, dtype=np.int64)
            for i in np.flatnonzero(over).tolist():
                try:
                    parse_pins(column[i], self.cables[i])
                except ValueError as exc:
                    raise ValueError(f"{name}[{i}]: {exc}") from None
        return self


def _frozen(values: npt.ArrayLike, dtype: npt.DTypeLike) -> npt.NDArray[Any]:
    out = np.array(values, dtype=dtype)
    out.flags.writeable = False
    return out


@dataclass(frozen=True)
class LinkArrays:
    """One state of the link table: read-only arrays, one row per link."""

    ids: npt.NDArray[np.object_]
    a: npt.NDArray[np.int32]
    b: npt.NDArray[np.int32]
    a_port: npt.NDArray[np.int32]
    b_port: npt.NDArray[np.int32]
    cables: npt.NDArray[np.int32]
    speed: npt.NDArray[np.int32]
    fabric: npt.NDArray[np.int8]
    rail: npt.NDArray[np.int16]
    serial: npt.NDArray[np.int64]
    names: tuple[str, ...]
    """Device id of each device code (codes only grow; a code may be unused)."""
    port_names: tuple[str, ...]
    """Port group name of each port code."""
    a_pins: npt.NDArray[np.int32] = field(default_factory=lambda: _frozen([], np.int32))
    """The port of every cable at end a, in link order (link ``i`` owns
    ``cables[i]`` entries from ``pin_offsets()[i]``): a code into
    :attr:`pin_names`, :data:`NO_PORT` or :data:`PENDING`."""
    b_pins: npt.NDArray[np.int32] = field(default_factory=lambda: _frozen([], np.int32))
    """The port of every cable at end b, as :attr:`a_pins`."""
    pin_names: tuple[str, ...] = ()
    """Port name of each pin code (``osfp3/2``, a lane ``osfp8/2:1``)."""
    table: int = 0
    """The :attr:`LinkTable.uid` of the table this is a state of (serials of
    one table are comparable; another table's are not)."""

    def __len__(self) -> int:
        return len(self.ids)

    _ROW = ("ids", "a", "b", "a_port", "b_port", "cables", "speed", "fabric", "rail")
    _ALL = (*_ROW, "serial")
    _PINS = ("a_pins", "b_pins")

    def pin_offsets(self) -> npt.NDArray[np.int64]:
        """Where each link's pins start in :attr:`a_pins` / :attr:`b_pins`
        (``n + 1`` entries: the last is the total of cables)."""
        out = np.zeros(len(self.cables) + 1, dtype=np.int64)
        np.cumsum(self.cables, out=out[1:])
        return out

    def pins_of(self, i: int) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None]:
        """The pins of link ``i`` at both ends, as names (None: not chosen)."""
        start = int(self.cables[:i].sum()) if i else 0
        stop = start + int(self.cables[i])
        return (
            _pin_tuple(self.a_pins[start:stop], self.pin_names),
            _pin_tuple(self.b_pins[start:stop], self.pin_names),
        )

    def pin_rows(self, positions: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Indices into the pin arrays of the cables of the links at
        ``positions``, link by link in that order."""
        at = np.asarray(positions, dtype=np.int64)
        if not len(at):
            return np.zeros(0, dtype=np.int64)
        offsets = self.pin_offsets()
        counts = self.cables[at].astype(np.int64)
        starts = offsets[at]
        total = int(counts.sum())
        if total == 0:
            return np.zeros(0, dtype=np.int64)
        first = np.cumsum(counts) - counts  # where each link's run begins in out
        return np.repeat(starts - first, counts) + np.arange(total, dtype=np.int64)

    @classmethod
    def empty(cls) -> LinkArrays:
        """No links."""
        return cls(
            ids=_frozen([], object),
            a=_frozen([], np.int32),
            b=_frozen([], np.int32),
            a_port=_frozen([], np.int32),
            b_port=_frozen([], np.int32),
            cables=_frozen([], np.int32),
            speed=_frozen([], np.int32),
            fabric=_frozen([], np.int8),
            rail=_frozen([], np.int16),
            serial=_frozen([], np.int64),
            names=(),
            port_names=(),
            a_pins=_frozen([], np.int32),
            b_pins=_frozen([], np.int32),
            pin_names=(),
        )

    def with_columns(self, **columns: npt.NDArray[Any]) -> LinkArrays:
        """A new state with some arrays replaced (made read-only)."""
        for array in columns.values():
            array.flags.writeable = False
        return LinkArrays(**{**self.__dict__, **columns})

    def rows(self, positions: npt.ArrayLike) -> dict[str, npt.NDArray[Any]]:
        """The arrays of some rows (serial and pins included), as fresh arrays."""
        at = np.asarray(positions, dtype=np.int64)
        out = {n: getattr(self, n)[at] for n in self._ALL}
        flat = self.pin_rows(at)
        return out | {n: getattr(self, n)[flat] for n in self._PINS}


def _flat_names(
    column: Sequence[Any], cables: Sequence[int], total: int
) -> list[str] | None:
    """The file's pin texts as one list of names, when every entry is text
    naming exactly one port (or ``-``) per cable and none waits (``?``)."""
    if not isinstance(column, list) or column.count(PIN_PENDING_TEXT):
        return None
    try:
        spaces = np.fromiter(
            map(str.count, column, itertools.repeat(" ")), np.int64, len(column)
        )
    except TypeError:  # rows' tuples, not text
        return None
    if not bool((spaces + 1 == np.asarray(cables, dtype=np.int64)).all()):
        return None
    flat = " ".join(column).split(" ")
    if len(flat) != total or "" in flat:
        return None
    return flat


def _count(values: Sequence[Any], value: Any) -> int:
    """How many entries equal ``value`` (``list.count`` in C when a list)."""
    if isinstance(values, list):
        return values.count(value)
    return sum(1 for v in values if v == value)


def _pin_tuple(
    codes: npt.NDArray[np.int32], names: tuple[str, ...]
) -> tuple[str, ...] | None:
    """Names of one end's pin codes (None when not chosen yet)."""
    values = codes.tolist()
    if values and all(c == PENDING for c in values):
        return None
    return tuple(
        names[c] if c >= 0 else (PIN_PENDING_TEXT if c == PENDING else "")
        for c in values
    )


class _Intern:
    """Strings to dense integer codes, append-only."""

    __slots__ = ("code", "names")

    def __init__(self, names: Iterable[str] = ()) -> None:
        self.names: tuple[str, ...] = ()
        self.code: dict[str, int] = {}
        self.add(names)

    def add(self, values: Iterable[str]) -> None:
        new = [v for v in dict.fromkeys(values) if v not in self.code]
        if new:
            start = len(self.names)
            self.code.update(zip(new, range(start, start + len(new)), strict=True))
            self.names = (*self.names, *new)

    def recode(self, names: tuple[str, ...]) -> npt.NDArray[np.int32]:
        """This intern's code of each of ``names`` (added when new)."""
        mine = self.names
        if names is mine or mine[: len(names)] == names:
            return np.arange(len(names), dtype=np.int32)  # a prefix: same codes
        self.add(names)
        return np.fromiter(map(self.code.__getitem__, names), np.int32, len(names))

    def encode(self, values: Sequence[str], dtype: npt.DTypeLike) -> npt.NDArray[Any]:
        self.add(values)
        code = self.code
        return np.fromiter(map(code.__getitem__, values), dtype, len(values))


_UIDS = itertools.count(1)


def _fabric_codes(values: Sequence[str], n: int) -> npt.NDArray[np.int8]:
    """Codes of fabrics (members or values); an unknown one raises ValueError."""
    try:
        return np.fromiter(map(_FABRIC_OF_TEXT.__getitem__, values), np.int8, n)
    except KeyError:
        return np.fromiter((FABRIC_CODE[Fabric(f)] for f in values), np.int8, n)


class LinkTable:
    """All links of a design (see module doc). Mutate only through commands."""

    __slots__ = (
        "_arrays",
        "_devices",
        "_lists",
        "_next_serial",
        "_pins",
        "_ports",
        "_serial",
        "uid",
    )

    def __init__(self) -> None:
        self.uid = next(_UIDS)
        """Identity of this table (states of one table share serials)."""
        self._arrays = LinkArrays.empty()
        self._devices = _Intern()
        self._ports = _Intern()
        self._pins = _Intern()
        self._serial: dict[str, int] = {}
        self._next_serial = 0
        self._lists: dict[str, list[Any]] = {}

    # -- construction -----------------------------------------------------------

    @classmethod
    def from_columns(
        cls, columns: Mapping[str, Sequence[Any]], *, validate: bool = False
    ) -> LinkTable:
        """A table from column lists (the file's ``links``); ``rail`` is optional.

        Trusted unless ``validate``: then pydantic checks every entry and raises
        ``ValidationError`` with the column and row of the first problems.
        """
        cols = dict(columns)
        n = len(cols.get("id", []))
        cols.setdefault("rail", [None] * n)
        for name in ("a_pins", "b_pins"):
            if cols.get(name) is None or (n and not len(cols[name])):
                cols[name] = [None] * n  # not chosen yet
        if validate:
            return cls._from_model(LinkColumns.model_validate(cols))
        missing = [name for name in LINK_COLUMNS if name not in cols]
        if missing or any(len(cols[name]) != n for name in LINK_COLUMNS):
            raise ValueError(f"columns missing or of unequal length: {missing}")
        table = cls()
        table._append_columns(cols)
        return table

    @classmethod
    def _from_model(cls, model: LinkColumns) -> LinkTable:
        table = cls()
        table._append_columns({name: getattr(model, name) for name in LINK_COLUMNS})
        return table

    @classmethod
    def from_arrays(cls, arrays: LinkArrays) -> LinkTable:
        """A new table holding the rows of a state of another one."""
        table = cls()
        table._adopt_rows(arrays, arrays.rows(np.arange(len(arrays))))
        return table

    @classmethod
    def from_links(cls, links: Iterable[Link]) -> LinkTable:
        """A table from link rows."""
        table = cls()
        table.extend(links)
        return table

    @classmethod
    def model_construct(cls, **columns: Sequence[Any]) -> LinkTable:
        """A table from trusted column lists (as pydantic's ``model_construct``)."""
        return cls.from_columns(columns)

    @classmethod
    def model_validate(cls, value: Any) -> LinkTable:
        """A table from column lists, every entry checked (``ValidationError``)."""
        if isinstance(value, LinkTable):
            return value
        return cls._from_model(LinkColumns.model_validate(value))

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        """Validated as :class:`LinkColumns`, held as arrays, saved as columns."""
        # LinkColumns' own schema, inlined (not a definition reference), so the
        # design's schema stays one tree the loader can walk and adjust
        columns = core_schema.no_info_after_validator_function(
            cls._from_model, LinkColumns.__pydantic_core_schema__
        )
        return core_schema.json_or_python_schema(
            json_schema=columns,
            python_schema=core_schema.union_schema(
                [core_schema.is_instance_schema(cls), columns]
            ),
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda table: table.file_columns()
            ),
        )

    def _encode(self, cols: dict[str, Sequence[Any]]) -> dict[str, npt.NDArray[Any]]:
        """Arrays for rows given as column lists (codes interned here)."""
        n = len(cols["id"])
        fabric = cols["fabric"]
        rail = cols["rail"]
        cables = cols["cables"]
        return {
            "a_pins": self._encode_pins(cols.get("a_pins"), cables),
            "b_pins": self._encode_pins(cols.get("b_pins"), cables),
            "ids": np.fromiter(cols["id"], object, n),
            "a": self._devices.encode(cols["a"], np.int32),
            "b": self._devices.encode(cols["b"], np.int32),
            "a_port": self._ports.encode(cols["a_port"], np.int32),
            "b_port": self._ports.encode(cols["b_port"], np.int32),
            "cables": np.fromiter(cols["cables"], np.int32, n),
            "speed": np.fromiter(cols["speed_gbps"], np.int32, n),
            "fabric": _fabric_codes(fabric, n),
            "rail": np.fromiter(
                (_NO_RAIL if r is None else r for r in rail), np.int16, n
            ),
        }

    def _encode_pins(
        self, column: Sequence[Any] | None, cables: Sequence[int]
    ) -> npt.NDArray[np.int32]:
        """One end's pin codes, link by link: a link's entry is a tuple of
        names, the file's text (:func:`pins_text`) or None (not chosen)."""
        total = int(sum(cables))
        n = len(column) if column is not None else 0
        if (
            column is None
            or _count(column, None) + _count(column, PIN_PENDING_TEXT) == n
        ):
            return np.full(total, PENDING, dtype=np.int32)
        code = self._pins.code
        try:
            joined = "".join(column) if total == n else " "
        except TypeError:  # rows' tuples, not the file's text
            joined = " "
        if " " not in joined:
            # one cable per link, pins as the file's text: one name each
            self._pins.add(p for p in column if p not in _SPECIAL_PINS)
            special = {
                PIN_PENDING_TEXT: PENDING,
                "": NO_PORT,
                PIN_NONE_TEXT: NO_PORT,
            }
            get = {**code, **special}.__getitem__
            return np.fromiter(map(get, column), np.int32, total)
        flat = _flat_names(column, cables, total)
        if flat is not None:
            # every link names one port per cable: one split, one map in C
            self._pins.add(p for p in flat if p not in _SPECIAL_PINS)
            # (a cable of a link may still wait for its port: '?')
            codes = {**code, PIN_NONE_TEXT: NO_PORT, PIN_PENDING_TEXT: PENDING}
            return np.fromiter(map(codes.__getitem__, flat), np.int32, total)
        out: list[int] = []
        for pins, c in zip(column, cables, strict=True):
            if pins is None:
                out.extend([PENDING] * c)
                continue
            if isinstance(pins, str):
                pins = parse_pins(pins, c)
                if pins is None:
                    out.extend([PENDING] * c)
                    continue
            if len(pins) != c:
                raise ValueError(
                    f"{len(pins)} pins given for a link of {c} "
                    f"cable{'s' if c != 1 else ''}"
                )
            for name in pins:
                if not name:
                    out.append(NO_PORT)
                elif name == PIN_PENDING_TEXT:
                    out.append(PENDING)
                else:
                    got = code.get(name)
                    if got is None:
                        self._pins.add((name,))
                        got = code[name]
                    out.append(got)
        return np.asarray(out, dtype=np.int32)

    def _append_columns(self, cols: dict[str, Sequence[Any]]) -> range:
        rows = self._encode(cols)
        n = len(rows["ids"])
        start_serial = self._next_serial
        serial = np.arange(start_serial, start_serial + n, dtype=np.int64)
        self._next_serial += n
        self._serial.update(zip(cols["id"], serial.tolist(), strict=True))
        start = len(self)
        old = self._arrays
        self._set(
            {
                name: np.concatenate((getattr(old, name), rows[name]))
                for name in (*LinkArrays._ROW, *LinkArrays._PINS)
            }
            | {"serial": np.concatenate((old.serial, serial))}
        )
        return range(start, start + n)

    def _set(self, columns: dict[str, npt.NDArray[Any]]) -> None:
        self._arrays = self._arrays.with_columns(**columns)
        if (
            self._arrays.names is not self._devices.names
            or self._arrays.port_names is not self._ports.names
            or self._arrays.pin_names is not self._pins.names
            or self._arrays.table != self.uid
        ):
            self._arrays = LinkArrays(
                **{
                    **self._arrays.__dict__,
                    "names": self._devices.names,
                    "port_names": self._ports.names,
                    "pin_names": self._pins.names,
                    "table": self.uid,
                }
            )
        self._lists = {}

    # -- reading ----------------------------------------------------------------

    @property
    def arrays(self) -> LinkArrays:
        """The current state (read-only arrays; later edits replace, never write)."""
        return self._arrays

    def __len__(self) -> int:
        return len(self._arrays.ids)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LinkTable):
            return NotImplemented
        return self.to_columns() == other.to_columns()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LinkTable({len(self)} links)"

    def __iter__(self) -> Iterator[Link]:
        for i in range(len(self)):
            yield self.row(i)

    def _list(self, name: str) -> list[Any]:
        """A column as a list of its file values (kept until the next edit)."""
        cached = self._lists.get(name)
        if cached is not None:
            return cached
        t = self._arrays
        out: list[Any]
        if name == "id":
            out = t.ids.tolist()
        elif name in ("a", "b"):
            names = np.asarray(t.names, dtype=object)
            out = names[getattr(t, name)].tolist() if len(t) else []
        elif name in ("a_port", "b_port"):
            ports = np.asarray(t.port_names, dtype=object)
            out = ports[getattr(t, name)].tolist() if len(t) else []
        elif name == "cables":
            out = t.cables.tolist()
        elif name == "speed_gbps":
            out = t.speed.tolist()
        elif name == "fabric":
            out = [FABRICS[f] for f in t.fabric.tolist()]
        elif name == "rail":
            out = [None if r == _NO_RAIL else r for r in t.rail.tolist()]
        elif name in ("a_pins", "b_pins"):
            out = self._pin_column(getattr(t, name))
        else:
            raise AttributeError(name)
        self._lists[name] = out
        return out

    def _pin_column(self, codes: npt.NDArray[np.int32]) -> list[Any]:
        """One end's pins per link: a tuple of names, None when not chosen."""
        t = self._arrays
        if not len(t):
            return []
        names = (*t.pin_names, PIN_PENDING_TEXT, "")  # codes -2 (PENDING), -1
        flat = [names[c] for c in codes.tolist()]
        cables = t.cables.tolist()
        if len(flat) == len(cables):  # one cable per link: the common case
            return [None if p == PIN_PENDING_TEXT else (p,) for p in flat]
        out: list[Any] = []
        at = 0
        for c in cables:
            piece = tuple(flat[at : at + c])
            at += c
            pending = piece.count(PIN_PENDING_TEXT)
            out.append(None if pending and pending == c else piece)
        return out

    # The columns as lists of file values (read-only: edit through commands).
    @property
    def id(self) -> list[str]:
        """Link ids in table order."""
        return self._list("id")

    @property
    def a(self) -> list[str]:
        """Device id of each link's a end."""
        return self._list("a")

    @property
    def b(self) -> list[str]:
        """Device id of each link's b end."""
        return self._list("b")

    @property
    def a_port(self) -> list[str]:
        """Port group of each link's a end."""
        return self._list("a_port")

    @property
    def b_port(self) -> list[str]:
        """Port group of each link's b end."""
        return self._list("b_port")

    @property
    def cables(self) -> list[int]:
        """Cables per link."""
        return self._list("cables")

    @property
    def speed_gbps(self) -> list[int]:
        """Speed of each link's cables, Gb/s."""
        return self._list("speed_gbps")

    @property
    def fabric(self) -> list[Fabric]:
        """Fabric of each link."""
        return self._list("fabric")

    @property
    def rail(self) -> list[int | None]:
        """Rail of each link (None: not on a rail)."""
        return self._list("rail")

    @property
    def a_pins(self) -> list[tuple[str, ...] | None]:
        """Ports of each link's cables at end a (None: not chosen yet)."""
        return self._list("a_pins")

    @property
    def b_pins(self) -> list[tuple[str, ...] | None]:
        """Ports of each link's cables at end b (None: not chosen yet)."""
        return self._list("b_pins")

    def pins_pending(self) -> bool:
        """Whether some cable's port is not chosen yet."""
        t = self._arrays
        return bool((t.a_pins == PENDING).any() or (t.b_pins == PENDING).any())

    def to_columns(self) -> dict[str, list[Any]]:
        """The table as the model holds it (one list per field)."""
        return {name: list(self._list(name)) for name in LINK_COLUMNS}

    def file_columns(self) -> dict[str, list[Any]]:
        """The table as the file stores it: fabrics as plain strings (the JSON
        writer serialises an enum member about 20x slower than a str) and the
        pins as text (:func:`pins_text`)."""
        cols = {
            name: list(self._list(name))
            for name in LINK_COLUMNS
            if name not in ("a_pins", "b_pins")
        }
        cols["fabric"] = _FABRIC_VALUES[self._arrays.fabric].tolist()
        for name in ("a_pins", "b_pins"):
            cols[name] = self._pin_text(getattr(self._arrays, name))
        return cols

    def _pin_text(self, codes: npt.NDArray[np.int32]) -> list[str]:
        """One end's pins per link as the file's text."""
        t = self._arrays
        names = (*t.pin_names, PIN_PENDING_TEXT, PIN_NONE_TEXT)  # codes -2, -1
        flat = [names[c] for c in codes.tolist()]
        if len(flat) == len(t):  # one cable per link
            return ["" if p == PIN_NONE_TEXT else p for p in flat]
        out: list[str] = []
        at = 0
        for c in t.cables.tolist():
            piece = flat[at : at + c]
            at += c
            if piece and all(p == PIN_PENDING_TEXT for p in piece):
                out.append(PIN_PENDING_TEXT)
                continue
            n = len(piece)
            while n and piece[n - 1] == PIN_NONE_TEXT:
                n -= 1
            out.append(" ".join(piece[:n]))
        return out

    def model_dump(self, **_: Any) -> dict[str, list[Any]]:
        """Same as :meth:`to_columns` (so a table dumps like the rest of the model)."""
        return self.to_columns()

    def row(self, i: int) -> Link:
        """The link at position ``i``."""
        t = self._arrays
        rail = int(t.rail[i])
        a_pins, b_pins = t.pins_of(i)
        return Link.model_construct(
            a_pins=a_pins,
            b_pins=b_pins,
            id=t.ids[i],
            a=t.names[t.a[i]],
            a_port=t.port_names[t.a_port[i]],
            b=t.names[t.b[i]],
            b_port=t.port_names[t.b_port[i]],
            cables=int(t.cables[i]),
            speed_gbps=int(t.speed[i]),
            fabric=FABRICS[int(t.fabric[i])],
            rail=None if rail == _NO_RAIL else rail,
        )

    def has(self, link_id: str) -> bool:
        """Whether a link with this id exists."""
        return link_id in self._serial

    def id_set(self) -> Container[str]:
        """The link ids, for membership tests (kept current, not rebuilt)."""
        return self._serial.keys()

    def position(self, link_id: str) -> int | None:
        """Position of the link with this id, or None."""
        s = self._serial.get(link_id)
        if s is None:
            return None
        return int(np.searchsorted(self._arrays.serial, s))

    def positions(self, link_ids: Iterable[str]) -> dict[str, int]:
        """Positions of the links with these ids (unknown ids are left out)."""
        serial = self._serial
        known = [lid for lid in link_ids if lid in serial]
        if not known:
            return {}
        at = np.searchsorted(
            self._arrays.serial, np.fromiter(map(serial.__getitem__, known), np.int64)
        )
        return dict(zip(known, at.tolist(), strict=True))

    def get(self, link_id: str) -> Link | None:
        """The link with this id, or None."""
        i = self.position(link_id)
        return None if i is None else self.row(i)

    def device_code(self, device_id: str) -> int | None:
        """The code of a device id in :attr:`LinkArrays.names` (None: never linked)."""
        return self._devices.code.get(device_id)

    def rows_touching(self, device_ids: Iterable[str]) -> list[int]:
        """Ascending positions of the links with an end on any of these devices."""
        codes = [c for d in device_ids if (c := self._devices.code.get(d)) is not None]
        if not codes or not len(self):
            return []
        t = self._arrays
        if len(codes) == 1:
            hit = (t.a == codes[0]) | (t.b == codes[0])
        else:
            mark = np.zeros(len(t.names), dtype=np.bool_)
            mark[codes] = True
            hit = mark[t.a] | mark[t.b]
        out: list[int] = np.flatnonzero(hit).tolist()
        return out

    def copy(self) -> LinkTable:
        """An independent table with the same links (the arrays are shared:
        they are never written, so neither table sees the other's edits)."""
        table = LinkTable()
        table._arrays = LinkArrays(**{**self._arrays.__dict__, "table": table.uid})
        table._devices = _Intern(self._arrays.names)
        table._ports = _Intern(self._arrays.port_names)
        table._pins = _Intern(self._arrays.pin_names)
        table._serial = dict(self._serial)
        table._next_serial = self._next_serial
        return table

    def model_copy(self, *, deep: bool = False) -> LinkTable:
        """Same as :meth:`copy` (a table copies like the rest of the model)."""
        return self.copy()

    def __copy__(self) -> LinkTable:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> LinkTable:
        return self.copy()

    def take(self, positions: Sequence[int]) -> LinkTable:
        """The rows at ``positions`` as a new table (their serials kept)."""
        rows = self._arrays.rows(positions)
        table = LinkTable()
        table._adopt_rows(self._arrays, rows)
        return table

    def _adopt_rows(
        self, source: LinkArrays, rows: dict[str, npt.NDArray[Any]]
    ) -> None:
        """Become a table of ``rows`` taken from ``source`` (codes re-interned)."""
        self._devices = _Intern(source.names)
        self._ports = _Intern(source.port_names)
        self._pins = _Intern(source.pin_names)
        self._serial = dict(
            zip(rows["ids"].tolist(), rows["serial"].tolist(), strict=True)
        )
        self._next_serial = int(rows["serial"].max()) + 1 if len(rows["ids"]) else 0
        self._set(rows)

    # -- mutation (commands only) -------------------------------------------------

    def _recode(self, other: LinkTable) -> dict[str, npt.NDArray[Any]]:
        """``other``'s rows with its codes translated into this table's codes."""
        t = other._arrays
        dmap = self._devices.recode(t.names)
        pmap = self._ports.recode(t.port_names)
        rows = {n: getattr(t, n) for n in (*LinkArrays._ROW, *LinkArrays._PINS)}
        if len(t):
            rows |= {
                "a": dmap[t.a],
                "b": dmap[t.b],
                "a_port": pmap[t.a_port],
                "b_port": pmap[t.b_port],
            }
        if len(t.a_pins):
            # codes of the other table's names, the two negative codes kept
            nmap = np.concatenate(
                (self._pins.recode(t.pin_names), np.array([PENDING, NO_PORT], np.int32))
            )
            rows |= {"a_pins": nmap[t.a_pins], "b_pins": nmap[t.b_pins]}
        return rows

    def append(self, link: Link) -> None:
        """Add a link at the end."""
        self.extend([link])

    def extend(self, links: Iterable[Link] | LinkTable) -> range:
        """Append links (rows or a whole table); return their positions."""
        if isinstance(links, LinkTable):
            other = links
        else:
            rows = list(links)
            other = LinkTable.from_columns(
                {name: [getattr(r, name) for r in rows] for name in LINK_COLUMNS}
            )
        rows_ = self._recode(other)
        n = len(other)
        serial = np.arange(self._next_serial, self._next_serial + n, dtype=np.int64)
        self._next_serial += n
        self._serial.update(zip(rows_["ids"].tolist(), serial.tolist(), strict=True))
        start = len(self)
        old = self._arrays
        self._set(
            {
                n_: np.concatenate((getattr(old, n_), rows_[n_]))
                for n_ in (*LinkArrays._ROW, *LinkArrays._PINS)
            }
            | {"serial": np.concatenate((old.serial, serial))}
        )
        return range(start, start + n)

    def insert(self, i: int, link: Link) -> None:
        """Insert a link at position ``i`` (as ``list.insert`` reads ``i``)."""
        n = len(self)
        i = min(max(i + n, 0) if i < 0 else i, n)
        if i == n:
            self.extend([link])
            return
        one = LinkTable.from_links([link])
        rows = self._recode(one)
        old = self._arrays
        s = int(old.serial[i]) - 1 if i < n else self._next_serial
        lo = int(old.serial[i - 1]) if i > 0 else -1
        rows["serial"] = np.array([max(s, lo)], dtype=np.int64)
        self._splice_in([i], rows)

    def truncate(self, n: int) -> None:
        """Keep only the first ``n`` links (undo of :meth:`extend`)."""
        old = self._arrays
        for lid in old.ids[n:].tolist():
            self._serial.pop(lid, None)
        cut = int(old.cables[:n].sum())
        self._set(
            {name: getattr(old, name)[:n] for name in LinkArrays._ALL}
            | {name: getattr(old, name)[:cut] for name in LinkArrays._PINS}
        )

    def delete(self, positions: Sequence[int]) -> LinkTable:
        """Remove the rows at ascending ``positions``; return them."""
        removed = self.take(positions)
        if not len(positions):
            return removed
        old = self._arrays
        at = np.asarray(positions, dtype=np.int64)
        for lid in removed._arrays.ids.tolist():
            self._serial.pop(lid, None)
        keep = np.ones(len(old), dtype=np.bool_)
        keep[at] = False
        keep_pins = np.repeat(keep, old.cables)
        self._set(
            {name: np.delete(getattr(old, name), at) for name in LinkArrays._ALL}
            | {name: getattr(old, name)[keep_pins] for name in LinkArrays._PINS}
        )
        return removed

    def restore(self, positions: Sequence[int], rows: LinkTable) -> None:
        """Put ``rows`` back at ascending final ``positions`` (undoes ``delete``)."""
        if not len(positions):
            return
        cols = self._recode(rows)
        cols["serial"] = rows._arrays.serial
        self._splice_in(list(positions), cols)

    def _splice_in(
        self, positions: list[int], cols: dict[str, npt.NDArray[Any]]
    ) -> None:
        """Insert rows at ascending final ``positions``; keep serials increasing."""
        old = self._arrays
        at = np.asarray(positions, dtype=np.int64) - np.arange(len(positions))
        new = {
            name: np.insert(getattr(old, name), at, cols[name])
            for name in LinkArrays._ALL
        }
        # each new row's cables go in before the pins of the row now at its place
        flat_at = np.repeat(old.pin_offsets()[at], cols["cables"])
        for name in LinkArrays._PINS:
            new[name] = np.insert(getattr(old, name), flat_at, cols[name])
        serial = new["serial"]
        self._next_serial = max(self._next_serial, int(serial.max()) + 1)
        if len(serial) > 1 and not bool((np.diff(serial) > 0).all()):
            # rows came back out of stack order (not an undo): renumber
            serial = np.arange(len(serial), dtype=np.int64)
            new["serial"] = serial
            self._serial = dict(zip(new["ids"].tolist(), serial.tolist(), strict=True))
            self._next_serial = len(serial)
        else:
            self._serial.update(
                zip(cols["ids"].tolist(), cols["serial"].tolist(), strict=True)
            )
        self._set(new)

    def adopt_pins(
        self,
        a_pins: npt.NDArray[np.int32],
        b_pins: npt.NDArray[np.int32],
        pin_names: tuple[str, ...],
    ) -> None:
        """Take whole pin arrays (codes into ``pin_names``, which extends this
        table's names) — :func:`designer.core.pins.pin_pending`'s bulk path."""
        if pin_names[: len(self._pins.names)] != self._pins.names:
            raise ValueError("pin names must extend the table's own")
        self._pins.add(pin_names[len(self._pins.names) :])
        self._set(
            {
                "a_pins": np.asarray(a_pins, dtype=np.int32),
                "b_pins": np.asarray(b_pins, dtype=np.int32),
            }
        )

    def set_pins(
        self,
        positions: Sequence[int],
        a_pins: Sequence[tuple[str, ...] | None],
        b_pins: Sequence[tuple[str, ...] | None],
    ) -> None:
        """Give the links at ``positions`` these pins (one name per cable,
        "" for none; None: not chosen); every other link keeps its own."""
        if not len(positions):
            return
        old = self._arrays
        at = np.asarray(positions, dtype=np.int64)
        cables = old.cables[at].tolist()
        flat = old.pin_rows(at)
        new: dict[str, npt.NDArray[Any]] = {}
        for name, given in (("a_pins", a_pins), ("b_pins", b_pins)):
            column = getattr(old, name).copy()
            column[flat] = self._encode_pins(given, cables)
            new[name] = column
        self._set(new)

    def pop(self, i: int) -> Link:
        """Remove and return the link at position ``i``."""
        link = self.row(i)
        self.delete([i])
        return link

    def replace(self, i: int, link: Link) -> Link:
        """Put ``link`` at position ``i``; return the old one."""
        return self.replace_rows([i], [link])[0]

    def replace_rows(
        self, positions: Sequence[int], links: Sequence[Link]
    ) -> list[Link]:
        """Put ``links`` at ``positions`` (same rows, new values); return the old."""
        old_links = [self.row(i) for i in positions]
        if not positions:
            return old_links
        one = LinkTable.from_links(links)
        rows = self._recode(one)
        old = self._arrays
        at = np.asarray(positions, dtype=np.int64)
        new: dict[str, npt.NDArray[Any]] = {}
        for name in LinkArrays._ROW:
            column = getattr(old, name).copy()
            column[at] = rows[name]
            new[name] = column
        new |= _replace_pins(old, at, rows)
        for prev, link in zip(old_links, links, strict=True):
            if prev.id != link.id:
                self._serial[link.id] = self._serial.pop(prev.id)
        self._set(new)
        return old_links


def _replace_pins(
    old: LinkArrays, at: npt.NDArray[np.int64], rows: dict[str, npt.NDArray[Any]]
) -> dict[str, npt.NDArray[Any]]:
    """The pin arrays with the pins of the rows at ``at`` replaced by ``rows``'
    (whose cable counts may differ)."""
    if bool((old.cables[at] == rows["cables"]).all()):
        flat = old.pin_rows(at)
        out = {}
        for name in LinkArrays._PINS:
            column = getattr(old, name).copy()
            column[flat] = rows[name]
            out[name] = column
        return out
    offsets = old.pin_offsets()
    order = np.argsort(at, kind="stable")
    new_offsets = np.zeros(len(at) + 1, dtype=np.int64)
    np.cumsum(rows["cables"], out=new_offsets[1:])
    out = {}
    for name in LinkArrays._PINS:
        column, given = getattr(old, name), rows[name]
        parts: list[npt.NDArray[Any]] = []
        prev = 0
        for k in order.tolist():
            i = int(at[k])
            parts.append(column[prev : offsets[i]])
            parts.append(given[new_offsets[k] : new_offsets[k + 1]])
            prev = int(offsets[i + 1])
        parts.append(column[prev:])
        out[name] = np.concatenate(parts).astype(np.int32, copy=False)
    return out


__all__ = [
    "FABRICS",
    "FABRIC_CODE",
    "LINK_COLUMNS",
    "NO_PORT",
    "PENDING",
    "PIN_NONE_TEXT",
    "PIN_PENDING_TEXT",
    "Fabric",
    "Id",
    "Link",
    "LinkArrays",
    "LinkColumns",
    "LinkTable",
    "parse_pins",
    "pins_text",
]
