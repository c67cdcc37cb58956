"""Dense integer codes of arrays of keys (shared by the end table and the lengths)."""

from __future__ import annotations

import numpy as np

from designer.analysis.index import IntArray


def dense_codes(values: IntArray) -> tuple[IntArray, IntArray]:
    """(code per value, sorted distinct values); no sort when the range is small."""
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    hi = int(values.max())
    if int(values.min()) >= 0 and hi <= 4 * len(values) + 1_000_000:
        present = np.zeros(hi + 1, dtype=np.bool_)
        present[values] = True
        uniq = np.flatnonzero(present)
        lookup = np.cumsum(present) - 1
        return lookup[values], uniq
    uniq, inv = np.unique(values, return_inverse=True)
    return inv.astype(np.int64), uniq
