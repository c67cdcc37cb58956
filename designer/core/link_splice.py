"""The arrays of the link table's next state after an edit, from the last state.

Each function takes a state (:class:`~designer.core.link_arrays.LinkArrays`)
and returns the new arrays of the columns it changes, never writing into the
old ones; :class:`designer.core.links.LinkTable` puts them in place and keeps
its id look-up (the serials) current. Rows given to these functions carry the
table's own codes (:func:`designer.core.link_codes.recode_rows`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from designer.core.link_arrays import LinkArrays
from designer.core.rows import with_rows, without_rows

__all__ = ["appended", "deleted", "pins_written", "replaced", "spliced", "truncated"]

Columns = dict[str, npt.NDArray[Any]]


def appended(old: LinkArrays, rows: Columns, serial: npt.NDArray[np.int64]) -> Columns:
    """``rows`` added after the last row, with these serials."""
    return {
        name: np.concatenate((getattr(old, name), rows[name]))
        for name in (*LinkArrays._ROW, *LinkArrays._PINS)
    } | {"serial": np.concatenate((old.serial, serial))}


def truncated(old: LinkArrays, n: int) -> Columns:
    """Only the first ``n`` rows."""
    cut = int(old.cables[:n].sum())
    return {name: getattr(old, name)[:n] for name in LinkArrays._ALL} | {
        name: getattr(old, name)[:cut] for name in LinkArrays._PINS
    }


def deleted(old: LinkArrays, at: npt.NDArray[np.int64]) -> Columns:
    """The rows at positions ``at`` removed."""
    # the pins of those rows: each row's run of cables from its first pin
    cables = old.cables[at].astype(np.int64)
    first = np.repeat(old.pin_starts(at) - (np.cumsum(cables) - cables), cables)
    pins = first + np.arange(len(first))
    return {name: without_rows(getattr(old, name), at) for name in LinkArrays._ALL} | {
        name: without_rows(getattr(old, name), pins) for name in LinkArrays._PINS
    }


def spliced(old: LinkArrays, positions: list[int], cols: Columns) -> Columns:
    """The rows ``cols`` (serials included) inserted at ascending final
    ``positions``."""
    at = np.asarray(positions, dtype=np.int64) - np.arange(len(positions))
    new = {
        name: with_rows(getattr(old, name), at, cols[name]) for name in LinkArrays._ALL
    }
    # each new row's cables go in before the pins of the row now at its place
    flat_at = np.repeat(old.pin_starts(at), cols["cables"])
    for name in LinkArrays._PINS:
        new[name] = with_rows(getattr(old, name), flat_at, cols[name])
    return new


def pins_written(old: LinkArrays, at: npt.NDArray[np.int64], pins: Columns) -> Columns:
    """The pin arrays with the cables of the rows at ``at`` given ``pins``'
    codes (as many as those rows have cables, in their order)."""
    flat = old.pin_rows(at)
    out = {}
    for name in LinkArrays._PINS:
        column = getattr(old, name)
        if np.array_equal(column[flat], pins[name]):
            continue  # the same pins: the state keeps this very array
        column = column.copy()
        column[flat] = pins[name]
        out[name] = column
    return out


def replaced(old: LinkArrays, at: npt.NDArray[np.int64], rows: Columns) -> Columns:
    """The rows at ``at`` given the values of ``rows`` (pins included, whose
    cable counts may differ); serials kept. Only the columns whose values
    change are new arrays (the others are left out: the state keeps them, so
    a reader can tell an untouched column by identity)."""
    new: Columns = {}
    for name in LinkArrays._ROW:
        column = getattr(old, name)
        if np.array_equal(column[at], rows[name]):
            continue  # the same values: the state keeps this very array
        column = column.copy()
        column[at] = rows[name]
        new[name] = column
    return new | _replace_pins(old, at, rows)


def _replace_pins(old: LinkArrays, at: npt.NDArray[np.int64], rows: Columns) -> Columns:
    """The pin arrays with the pins of the rows at ``at`` replaced by ``rows``'
    (whose cable counts may differ)."""
    if bool((old.cables[at] == rows["cables"]).all()):
        return pins_written(old, at, rows)
    order = np.argsort(at, kind="stable")
    # where each row's pins start and stop (rows at[k] and at[k] + 1)
    ends = old.pin_starts(np.concatenate((at, at + 1)))
    start_of = dict(zip(at.tolist(), ends[: len(at)].tolist(), strict=True))
    stop_of = dict(zip(at.tolist(), ends[len(at) :].tolist(), strict=True))
    new_offsets = np.zeros(len(at) + 1, dtype=np.int64)
    np.cumsum(rows["cables"], out=new_offsets[1:])
    out = {}
    for name in LinkArrays._PINS:
        column, given = getattr(old, name), rows[name]
        parts: list[npt.NDArray[Any]] = []
        prev = 0
        for k in order.tolist():
            i = int(at[k])
            parts.append(column[prev : start_of[i]])
            parts.append(given[new_offsets[k] : new_offsets[k + 1]])
            prev = stop_of[i]
        parts.append(column[prev:])
        out[name] = np.concatenate(parts).astype(np.int32, copy=False)
    return out
