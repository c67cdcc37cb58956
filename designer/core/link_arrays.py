"""One state of the link table: read-only numpy arrays, one row per link.

A mutation of :class:`designer.core.links.LinkTable` never writes into an
array: it puts new arrays in place (:class:`LinkArrays` is a frozen bundle of
them), so a view or a worker thread holding the arrays of an earlier state may
go on reading them. Strings are integer codes into the state's name tuples
(:mod:`designer.core.link_codes` interns them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from designer.core.link_model import PIN_PENDING_TEXT

__all__ = ["NO_PORT", "NO_RAIL", "PENDING", "LinkArrays"]

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
