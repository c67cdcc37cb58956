"""A few rows taken out or put in by slices equal ``np.delete`` / ``np.insert``."""

from __future__ import annotations

import numpy as np
import pytest

from designer.core.rows import FEW, with_rows, without_rows

COLUMNS = {
    "int32": lambda rng, n: rng.integers(-9, 9, n).astype(np.int32),
    "float rows": lambda rng, n: rng.random((n, 4)),
    "bool": lambda rng, n: rng.random(n) < 0.5,
    "ids": lambda rng, n: np.array([f"l{i}" for i in range(n)], dtype=object),
}


@pytest.mark.parametrize("kind", list(COLUMNS))
def test_rows_taken_out_or_put_in_equal_numpys(kind: str) -> None:
    rng = np.random.default_rng(5)
    for trial in range(300):
        n = int(rng.integers(0, 60))
        column = COLUMNS[kind](rng, n)
        column.flags.writeable = False  # (the link table's columns are read-only)
        k = int(rng.integers(0, 8))
        if trial % 50 == 0:
            k = FEW + 3  # more than the slices take: numpy's own
        if n:
            gone = np.sort(rng.choice(n, min(k, n), replace=False))
            got = without_rows(column, gone)
            assert got.dtype == column.dtype
            assert np.array_equal(got, np.delete(column, gone, axis=0)), (n, gone)
        at = np.sort(rng.integers(0, n + 1, k))  # repeats: rows in a run
        new = COLUMNS[kind](rng, k)
        want = np.insert(column, at, new, axis=0)
        got = with_rows(column, at, new)
        assert got.dtype == column.dtype and got.shape == want.shape
        assert np.array_equal(got, want), (n, at)
        if kind == "float rows":  # one value for every new row
            with_nan = with_rows(column, at, np.nan)
            assert np.array_equal(
                with_nan, np.insert(column, at, np.nan, axis=0), equal_nan=True
            )


def test_positions_out_of_order_or_out_of_range_are_numpys_to_judge() -> None:
    column = np.arange(10)
    assert np.array_equal(without_rows(column, [7, 2]), np.delete(column, [7, 2]))
    assert np.array_equal(
        with_rows(column, [7, 2], [-1, -2]), np.insert(column, [7, 2], [-1, -2])
    )
    assert np.array_equal(
        with_rows(column, 3, [-1, -2]), np.insert(column, 3, [-1, -2])
    )
    with pytest.raises(IndexError):
        without_rows(column, [3, 10])
    with pytest.raises(IndexError):
        with_rows(column, [11], [0])
