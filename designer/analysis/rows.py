"""Cut rows out of, and put rows into, numpy arrays that follow a table.

An edit deletes or restores a few links or devices of a 300,000-row table; the
arrays that follow it are copied around the splice points by slices (a few
memcpys), not through a boolean mask over every row. Many rows at once take
the mask. Both return a new array (or the input itself when there is nothing
to do); the input is never written to.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

SPLICE_ROWS = 64
"""Up to this many rows are cut or put by slices; more by a mask."""


def cut_rows(values: np.ndarray, positions: Sequence[int]) -> np.ndarray:
    """``values`` without the rows (first axis) at ascending ``positions``."""
    if len(positions) == 0:
        return values
    if len(positions) > SPLICE_ROWS:
        keep = np.ones(values.shape[0], dtype=np.bool_)
        keep[np.asarray(positions, dtype=np.int64)] = False
        return values[keep]
    pieces = []
    start = 0
    for p in positions:
        pieces.append(values[start:p])
        start = p + 1
    pieces.append(values[start:])
    return np.concatenate(pieces)


def put_rows(
    values: np.ndarray, positions: Sequence[int], rows: np.ndarray
) -> np.ndarray:
    """``values`` with ``rows`` put in so that they end up at the ascending
    ``positions`` of the result (the inverse of :func:`cut_rows`)."""
    if len(positions) == 0:
        return values
    n = values.shape[0] + len(positions)
    if len(positions) > SPLICE_ROWS:
        added = np.zeros(n, dtype=np.bool_)
        added[np.asarray(positions, dtype=np.int64)] = True
        out = np.empty((n, *values.shape[1:]), dtype=values.dtype)
        out[added] = rows
        out[~added] = values
        return out
    pieces = []
    src = 0
    for j, p in enumerate(positions):
        upto = p - j  # rows of ``values`` before this one
        pieces.append(values[src:upto])
        pieces.append(rows[j : j + 1].astype(values.dtype, copy=False))
        src = upto
    pieces.append(values[src:])
    return np.concatenate(pieces)
