"""Strings as integer codes in the link table, and the table's file values.

The link table (:class:`designer.core.links.LinkTable`) stores device ids, port
groups and pin names as dense integer codes into append-only name tuples
(:class:`Intern`); fabrics and rails as small integers. This module turns the
file's column lists into those arrays (:func:`encode_rows`, :func:`encode_pins`)
and the arrays back into the model's and the file's values
(:func:`column_values`, :func:`pin_text`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from designer.core.link_arrays import NO_PORT, NO_RAIL, PENDING, LinkArrays
from designer.core.link_model import (
    FABRIC_CODE,
    FABRICS,
    PIN_NONE_TEXT,
    PIN_PENDING_TEXT,
    Fabric,
    parse_pins,
)

__all__ = [
    "Intern",
    "column_values",
    "encode_pins",
    "encode_rows",
    "fabric_texts",
    "pin_text",
    "recode_rows",
]

_FABRIC_VALUES = np.asarray([f.value for f in FABRICS], dtype=object)
_FABRIC_OF_TEXT: dict[str, int] = {f.value: i for i, f in enumerate(FABRICS)}
"""Code of a fabric given as its file value or as the member (a ``StrEnum``
member hashes and compares as its value)."""

_SPECIAL_PINS = frozenset({PIN_PENDING_TEXT, PIN_NONE_TEXT, ""})


class Intern:
    """Strings to dense integer codes, append-only."""

    __slots__ = ("_code", "names")

    def __init__(self, names: Iterable[str] = ()) -> None:
        self.names: tuple[str, ...] = ()
        self._code: dict[str, int] | None = {}
        self.add(names)

    @classmethod
    def of(cls, names: tuple[str, ...]) -> Intern:
        """The codes of another intern's ``names`` (distinct already, code =
        position): the lookup is built when first asked, so a table that
        shares a state's code space (a few rows taken from 300,000) costs
        nothing until it codes a new name."""
        out = cls.__new__(cls)
        out.names = names
        out._code = None
        return out

    @property
    def code(self) -> dict[str, int]:
        """The code of each name."""
        if self._code is None:
            self._code = dict(zip(self.names, range(len(self.names)), strict=True))
        return self._code

    def add(self, values: Iterable[str]) -> None:
        code = self.code
        new = [v for v in dict.fromkeys(values) if v not in code]
        if new:
            start = len(self.names)
            code.update(zip(new, range(start, start + len(new)), strict=True))
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


def _fabric_codes(values: Sequence[str], n: int) -> npt.NDArray[np.int8]:
    """Codes of fabrics (members or values); an unknown one raises ValueError."""
    try:
        return np.fromiter(map(_FABRIC_OF_TEXT.__getitem__, values), np.int8, n)
    except KeyError:
        return np.fromiter((FABRIC_CODE[Fabric(f)] for f in values), np.int8, n)


def encode_rows(
    cols: dict[str, Sequence[Any]], devices: Intern, ports: Intern, pins: Intern
) -> dict[str, npt.NDArray[Any]]:
    """Arrays for rows given as column lists (codes interned in the interns
    of device ids, port groups and pin names)."""
    n = len(cols["id"])
    fabric = cols["fabric"]
    rail = cols["rail"]
    cables = cols["cables"]
    return {
        "a_pins": encode_pins(cols.get("a_pins"), cables, pins),
        "b_pins": encode_pins(cols.get("b_pins"), cables, pins),
        "ids": np.fromiter(cols["id"], object, n),
        "a": devices.encode(cols["a"], np.int32),
        "b": devices.encode(cols["b"], np.int32),
        "a_port": ports.encode(cols["a_port"], np.int32),
        "b_port": ports.encode(cols["b_port"], np.int32),
        "cables": np.fromiter(cols["cables"], np.int32, n),
        "speed": np.fromiter(cols["speed_gbps"], np.int32, n),
        "fabric": _fabric_codes(fabric, n),
        "rail": np.fromiter((NO_RAIL if r is None else r for r in rail), np.int16, n),
    }


def encode_pins(
    column: Sequence[Any] | None, cables: Sequence[int], pins: Intern
) -> npt.NDArray[np.int32]:
    """One end's pin codes, link by link: a link's entry is a tuple of
    names, the file's text (:func:`~designer.core.link_model.pins_text`) or
    None (not chosen); new names are interned in ``pins``."""
    total = int(sum(cables))
    n = len(column) if column is not None else 0
    if column is None or _count(column, None) + _count(column, PIN_PENDING_TEXT) == n:
        return np.full(total, PENDING, dtype=np.int32)
    code = pins.code
    try:
        joined = "".join(column) if total == n else " "
    except TypeError:  # rows' tuples, not the file's text
        joined = " "
    if " " not in joined:
        # one cable per link, pins as the file's text: one name each
        pins.add(p for p in column if p not in _SPECIAL_PINS)
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
        pins.add(p for p in flat if p not in _SPECIAL_PINS)
        # (a cable of a link may still wait for its port: '?')
        codes = {**code, PIN_NONE_TEXT: NO_PORT, PIN_PENDING_TEXT: PENDING}
        return np.fromiter(map(codes.__getitem__, flat), np.int32, total)
    out: list[int] = []
    for given, c in zip(column, cables, strict=True):
        if given is None:
            out.extend([PENDING] * c)
            continue
        if isinstance(given, str):
            given = parse_pins(given, c)
            if given is None:
                out.extend([PENDING] * c)
                continue
        if len(given) != c:
            raise ValueError(
                f"{len(given)} pins given for a link of {c} "
                f"cable{'s' if c != 1 else ''}"
            )
        for name in given:
            if not name:
                out.append(NO_PORT)
            elif name == PIN_PENDING_TEXT:
                out.append(PENDING)
            else:
                got = code.get(name)
                if got is None:
                    pins.add((name,))
                    got = code[name]
                out.append(got)
    return np.asarray(out, dtype=np.int32)


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


def recode_rows(
    t: LinkArrays, devices: Intern, ports: Intern, pins: Intern
) -> dict[str, npt.NDArray[Any]]:
    """The rows of another table's state ``t`` with its codes translated into
    the codes of these interns (new names added)."""
    dmap = devices.recode(t.names)
    pmap = ports.recode(t.port_names)
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
            (pins.recode(t.pin_names), np.array([PENDING, NO_PORT], np.int32))
        )
        rows |= {"a_pins": nmap[t.a_pins], "b_pins": nmap[t.b_pins]}
    return rows


def column_values(t: LinkArrays, name: str) -> list[Any]:
    """A column of state ``t`` as a list of the model's values (``name`` is a
    :data:`~designer.core.link_model.LINK_COLUMNS` entry)."""
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
        out = [None if r == NO_RAIL else r for r in t.rail.tolist()]
    elif name in ("a_pins", "b_pins"):
        out = _pin_column(t, getattr(t, name))
    else:
        raise AttributeError(name)
    return out


def _pin_column(t: LinkArrays, codes: npt.NDArray[np.int32]) -> list[Any]:
    """One end's pins per link: a tuple of names, None when not chosen."""
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


def fabric_texts(t: LinkArrays) -> list[str]:
    """The fabric of each link of state ``t`` as its file value (a plain str)."""
    out: list[str] = _FABRIC_VALUES[t.fabric].tolist()
    return out


def pin_text(t: LinkArrays, codes: npt.NDArray[np.int32]) -> list[str]:
    """One end's pins (``codes``, of state ``t``) per link as the file's text."""
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
