"""The design's links as one column store: numpy arrays, changed only by commands.

:class:`LinkTable` is the single source of truth for links. It keeps one array
per field, with strings interned as integer codes (device ids into
:attr:`~designer.core.link_arrays.LinkArrays.names`, port groups into
:attr:`~designer.core.link_arrays.LinkArrays.port_names`;
:mod:`designer.core.link_codes`), so the analysis and the canvas read the same
arrays instead of keeping copies of their own. A mutation never writes into an
array: it puts new arrays in place (:mod:`designer.core.link_splice` computes
them; :class:`~designer.core.link_arrays.LinkArrays` is a frozen bundle of
them), so a view or a worker thread holding the arrays of an earlier state may
go on reading them. A row is a :class:`~designer.core.link_model.Link`.

Ids are found by position through a *serial* column: every row carries a serial
number that increases along the table (appends get new, larger serials; an undo
puts rows back with their old serials, between their old neighbours). A look-up
is a dict get and a binary search, so deleting a row in the middle of 300,000
never rebuilds an index.
"""

from __future__ import annotations

import itertools
from collections.abc import Container, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

from designer.core.link_arrays import NO_RAIL, PENDING, LinkArrays, next_state
from designer.core.link_codes import (
    Intern,
    column_values,
    encode_pins,
    encode_rows,
    fabric_texts,
    pin_text,
    recode_rows,
)
from designer.core.link_model import FABRICS, LINK_COLUMNS, Fabric, Link, LinkColumns
from designer.core.link_splice import appended, deleted, replaced, spliced, truncated

__all__ = ["LinkTable"]

_UIDS = itertools.count(1)


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
        self._devices = Intern()
        self._ports = Intern()
        self._pins = Intern()
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

    def _append_columns(self, cols: dict[str, Sequence[Any]]) -> range:
        rows = encode_rows(cols, self._devices, self._ports, self._pins)
        n = len(rows["ids"])
        start_serial = self._next_serial
        serial = np.arange(start_serial, start_serial + n, dtype=np.int64)
        self._next_serial += n
        self._serial.update(zip(cols["id"], serial.tolist(), strict=True))
        start = len(self)
        self._set(appended(self._arrays, rows, serial), (start, 0))
        return range(start, start + n)

    def _set(
        self, columns: dict[str, npt.NDArray[Any]], run: tuple[int, int] | None = None
    ) -> None:
        """Put a new state in place; ``run``: (head, tail) of its rows that
        are the last state's (:class:`~designer.core.link_arrays.Origin`)."""
        self._arrays = self._arrays.with_columns(run, **columns)
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
        out = column_values(self._arrays, name)
        self._lists[name] = out
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
        cols["fabric"] = fabric_texts(self._arrays)
        for name in ("a_pins", "b_pins"):
            cols[name] = pin_text(self._arrays, getattr(self._arrays, name))
        return cols

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
            rail=None if rail == NO_RAIL else rail,
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
        table._arrays = LinkArrays(
            **{
                **self._arrays.__dict__,
                "table": table.uid,
                "state": next_state(),
                "origin": None,
            }
        )
        table._devices = Intern.of(self._arrays.names)
        table._ports = Intern.of(self._arrays.port_names)
        table._pins = Intern.of(self._arrays.pin_names)
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
        self._devices = Intern.of(source.names)
        self._ports = Intern.of(source.port_names)
        self._pins = Intern.of(source.pin_names)
        self._serial = dict(
            zip(rows["ids"].tolist(), rows["serial"].tolist(), strict=True)
        )
        self._next_serial = int(rows["serial"].max()) + 1 if len(rows["ids"]) else 0
        self._set(rows)

    # -- mutation (commands only) -------------------------------------------------

    def _recode(self, other: LinkTable) -> dict[str, npt.NDArray[Any]]:
        """``other``'s rows with its codes translated into this table's codes."""
        return recode_rows(other._arrays, self._devices, self._ports, self._pins)

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
        self._set(appended(self._arrays, rows_, serial), (start, 0))
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
        self._set(truncated(old, n), (min(n, len(old)), 0))

    def delete(self, positions: Sequence[int]) -> LinkTable:
        """Remove the rows at ascending ``positions``; return them."""
        removed = self.take(positions)
        if not len(positions):
            return removed
        old = self._arrays
        at = np.asarray(positions, dtype=np.int64)
        for lid in removed._arrays.ids.tolist():
            self._serial.pop(lid, None)
        self._set(deleted(old, at), _run(at, len(old)))
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
        new = spliced(old, positions, cols)
        serial = new["serial"]
        self._next_serial = max(self._next_serial, int(serial.max()) + 1)
        head, tail = _run(np.asarray(positions, dtype=np.int64), len(serial))
        if len(serial) > 1 and not bool((np.diff(serial) > 0).all()):
            # rows came back out of stack order (not an undo): renumber
            serial = np.arange(len(serial), dtype=np.int64)
            new["serial"] = serial
            self._serial = dict(zip(new["ids"].tolist(), serial.tolist(), strict=True))
            self._next_serial = len(serial)
            # the rows whose serial the renumbering changed are not the same
            moved = np.flatnonzero(old.serial[:head] != serial[:head])
            head = int(moved[0]) if len(moved) else head
            moved = np.flatnonzero(
                old.serial[len(old) - tail :] != serial[len(serial) - tail :]
            )
            tail = tail - 1 - int(moved[-1]) if len(moved) else tail
        else:
            self._serial.update(
                zip(cols["ids"].tolist(), cols["serial"].tolist(), strict=True)
            )
        self._set(new, (head, tail))

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
            column[flat] = encode_pins(given, cables, self._pins)
            new[name] = column
        self._set(new, _run(at, len(old)))

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
        new = replaced(old, at, rows)
        for prev, link in zip(old_links, links, strict=True):
            if prev.id != link.id:
                self._serial[link.id] = self._serial.pop(prev.id)
        self._set(new, _run(at, len(old)))
        return old_links


def _run(at: npt.NDArray[np.int64], n: int) -> tuple[int, int]:
    """(head, tail) of ``n`` rows outside the positions ``at`` (not empty)."""
    return int(at.min()), n - 1 - int(at.max())
