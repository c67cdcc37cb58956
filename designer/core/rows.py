"""A few rows taken out of, or put into, a long array, by slices.

``np.delete`` and ``np.insert`` with an array of positions go through a mask or
an index over every row: taking 12 rows out of a (300,000 x 4) array costs
~8 ms, copying the slices between them ~0.8 ms. An edit at 100K GPUs takes or
puts a handful of rows into columns of 300,000 (the link table, the canvas's
line boxes and trunks, the levels' edges), several times an edit. These two
functions give what ``np.delete`` / ``np.insert`` give along axis 0 (a new
array, the one given unchanged), by slices when the positions are few and in
order, else by numpy's own.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["with_rows", "without_rows"]

FEW = 512
"""Most positions taken by slices (one slice copy each); more go to numpy."""


def _ascending(at: npt.NDArray[np.int64], n: int, strict: bool) -> bool:
    """``at`` in order within ``[0, n]`` (``[0, n)`` when ``strict``)."""
    if not len(at) or len(at) > FEW or at[0] < 0 or at[-1] > n - strict:
        return False
    steps = np.diff(at)
    return bool((steps > 0).all() if strict else (steps >= 0).all())


def without_rows(column: npt.NDArray[Any], at: npt.ArrayLike) -> npt.NDArray[Any]:
    """``np.delete(column, at, axis=0)``."""
    pos = np.asarray(at, dtype=np.int64).reshape(-1)
    n = len(column)
    if not _ascending(pos, n, strict=True):
        return np.delete(column, at, axis=0)  # type: ignore[arg-type]
    out = np.empty((n - len(pos), *column.shape[1:]), dtype=column.dtype)
    start = done = 0
    for p in pos.tolist():
        out[done : done + p - start] = column[start:p]
        done += p - start
        start = p + 1
    out[done:] = column[start:]
    return out


def with_rows(
    column: npt.NDArray[Any], at: npt.ArrayLike, values: Any
) -> npt.NDArray[Any]:
    """``np.insert(column, at, values, axis=0)``: row ``i`` of ``values`` (or
    ``values`` itself, one value for every row) goes in before the row now at
    ``at[i]`` (positions in ``column``; equal positions keep their order)."""
    pos = np.asarray(at, dtype=np.int64).reshape(-1)
    n, k = len(column), len(pos)
    if not _ascending(pos, n, strict=False) or np.ndim(at) != 1:
        return np.insert(column, at, values, axis=0)  # type: ignore[arg-type]
    new = np.asarray(values, dtype=column.dtype)
    if new.ndim < column.ndim:  # (one value or one row for every position)
        new = np.broadcast_to(new, (k, *column.shape[1:]))
    if len(new) != k:
        return np.insert(column, at, values, axis=0)  # type: ignore[arg-type]
    out = np.empty((n + k, *column.shape[1:]), dtype=column.dtype)
    start = done = 0
    for i, p in enumerate(pos.tolist()):
        out[done : done + p - start] = column[start:p]
        done += p - start
        out[done] = new[i]
        done += 1
        start = p
    out[done:] = column[start:]
    return out
