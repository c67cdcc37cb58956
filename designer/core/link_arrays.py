"""One state of the link table: read-only numpy arrays, one row per link.

A mutation of :class:`designer.core.links.LinkTable` never writes into an
array: it puts new arrays in place (:class:`LinkArrays` is a frozen bundle of
them), so a view or a worker thread holding the arrays of an earlier state may
go on reading them. Strings are integer codes into the state's name tuples
(:mod:`designer.core.link_codes` interns them).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from designer.core.link_model import PIN_PENDING_TEXT

__all__ = [
    "NO_PORT",
    "NO_RAIL",
    "ORIGIN_DEPTH",
    "PENDING",
    "LinkArrays",
    "Origin",
    "rows_run",
]

NO_PORT = -1
"""Pin code of a cable that found no free port."""
PENDING = -2
"""Pin code of a cable whose port is not chosen yet."""
NO_RAIL = -1
"""Rail code of a link on no rail."""


def _frozen(values: npt.ArrayLike, dtype: npt.DTypeLike) -> npt.NDArray[Any]:
    out = np.array(values, dtype=dtype)
    out.flags.writeable = False
    return out


ORIGIN_DEPTH = 16
"""Steps of a state's lineage it remembers (:class:`Origin`)."""

_states = itertools.count(1)


def next_state() -> int:
    """A new :attr:`LinkArrays.state` number."""
    return next(_states)


@dataclass(frozen=True)
class Origin:
    """How a state of the link table came from the state before it: its
    first ``head`` rows and last ``tail`` rows are that state's, equal in every
    column (ids, ends, ports, cables, speed, fabric, rail, serial and the
    rows' pins), so an edit's rows are one run between them. ``before`` is the
    earlier state's own origin (at most :data:`ORIGIN_DEPTH` steps are kept;
    states are named by number, so no array of an earlier state is kept)."""

    parent: int
    """:attr:`LinkArrays.state` of the state before."""
    head: int
    tail: int
    before: Origin | None
    depth: int = 1

    def then(self, state: int, head: int, tail: int) -> Origin:
        """The origin of the next state, made from ``state`` (whose origin this
        is) with that run."""
        kept: Origin | None = self
        if self.depth >= ORIGIN_DEPTH:
            kept = _trimmed(self, ORIGIN_DEPTH - 1)
        return Origin(state, head, tail, kept, 1 + (kept.depth if kept else 0))


def _trimmed(origin: Origin, depth: int) -> Origin | None:
    """The first ``depth`` steps of a lineage."""
    if depth <= 0:
        return None
    rest = _trimmed(origin.before, depth - 1) if origin.before else None
    return Origin(
        origin.parent, origin.head, origin.tail, rest, 1 + (rest.depth if rest else 0)
    )


@dataclass(frozen=True)
class StateMark:
    """What :func:`rows_run` needs of an earlier state, without its arrays."""

    state: int
    table: int
    n: int

    def __len__(self) -> int:
        return self.n


def rows_run(old: LinkArrays | StateMark, new: LinkArrays) -> tuple[int, int] | None:
    """(head, tail) of two states of one table known from ``new``'s lineage:
    the first ``head`` and last ``tail`` rows of ``old`` and ``new`` are equal
    in every column, as :func:`designer.analysis.graph.changed_run` would find
    by comparing them (or fewer: each step counts its whole run as changed);
    None when ``old`` is not among the states ``new`` remembers coming from."""
    if new is old or new.state == old.state:
        return len(new), 0
    if new.table != old.table:
        return None
    head, tail = len(new), len(new)
    origin = new.origin
    while origin is not None:
        head, tail = min(head, origin.head), min(tail, origin.tail)
        if origin.parent == old.state:
            short = min(len(old), len(new))
            head = min(head, short)
            return head, min(tail, short - head)
        origin = origin.before
    return None


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
    """The :attr:`designer.core.links.LinkTable.uid` of the table this is a
    state of (serials of one table are comparable; another table's are not)."""
    state: int = field(default_factory=next_state, compare=False)
    """This state's number (unique in the process)."""
    origin: Origin | None = field(default=None, compare=False, repr=False)
    """How this state came from the one before (None: not known)."""

    def __len__(self) -> int:
        return len(self.ids)

    def mark(self) -> StateMark:
        """This state's name and size (for :func:`rows_run` later)."""
        return StateMark(self.state, self.table, len(self.ids))

    _ROW = ("ids", "a", "b", "a_port", "b_port", "cables", "speed", "fabric", "rail")
    _ALL = (*_ROW, "serial")
    _PINS = ("a_pins", "b_pins")

    def pin_offsets(self) -> npt.NDArray[np.int64]:
        """Where each link's pins start in :attr:`a_pins` / :attr:`b_pins`
        (``n + 1`` entries: the last is the total of cables)."""
        out = np.zeros(len(self.cables) + 1, dtype=np.int64)
        np.cumsum(self.cables, out=out[1:])
        return out

    def pin_starts(self, positions: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """``pin_offsets()[positions]`` (``positions`` up to ``n``): for a few
        rows, each as the sum of the cables before it, with no running sum of
        the whole column (an edit of one link at 100K GPUs wanted one of
        300,000 entries, ~1-3 ms)."""
        at = np.asarray(positions, dtype=np.int64)
        if len(at) > 8:
            out: npt.NDArray[np.int64] = self.pin_offsets()[at]
            return out
        cables = self.cables
        return np.fromiter(
            (int(cables[:p].sum(dtype=np.int64)) for p in at.tolist()),
            np.int64,
            len(at),
        )

    def pins_of(self, i: int) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None]:
        """The pins of link ``i`` at both ends, as names (None: not chosen)."""
        start = int(self.pin_starts([i])[0])
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
        counts = self.cables[at].astype(np.int64)
        starts = self.pin_starts(at)
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

    def with_columns(
        self, run: tuple[int, int] | None = None, /, **columns: npt.NDArray[Any]
    ) -> LinkArrays:
        """A new state with some arrays replaced (made read-only); ``run``:
        its (head, tail) of rows equal to this state's (:class:`Origin`),
        None when not known."""
        for array in columns.values():
            array.flags.writeable = False
        origin = None
        if run is not None:
            origin = (
                self.origin.then(self.state, *run)
                if self.origin is not None
                else Origin(self.state, *run, None)
            )
        return LinkArrays(
            **{**self.__dict__, **columns, "state": next_state(), "origin": origin}
        )

    def rows(self, positions: npt.ArrayLike) -> dict[str, npt.NDArray[Any]]:
        """The arrays of some rows (serial and pins included), as fresh arrays."""
        at = np.asarray(positions, dtype=np.int64)
        out = {n: getattr(self, n)[at] for n in self._ALL}
        flat = self.pin_rows(at)
        return out | {n: getattr(self, n)[flat] for n in self._PINS}


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
