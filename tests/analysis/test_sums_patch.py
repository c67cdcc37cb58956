"""The sums over the links patched for the rows an edit changed equal the
sums made afresh, to the bit (:mod:`designer.analysis.sums`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from designer.analysis.ends import ends_of
from designer.analysis.metrics import tier_ranks
from designer.analysis.sums import link_sums
from designer.catalog import Catalog, default_catalog
from designer.core.model import Design
from tests.analysis.walk import DESIGNS, walk


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return default_catalog()


@pytest.mark.parametrize("make", DESIGNS)
def test_every_patched_sum_equals_the_sum_over_every_link(
    make: Callable[[], Design], catalog: Catalog
) -> None:
    patched = 0
    for step, reuse, index, _doc in walk(make(), catalog, seed=11, steps=70):
        top = reuse.topology(index)
        g = reuse.graph(index, top)
        h = reuse.levels(index, top, g)
        level = np.full(index.n_devices, -1, dtype=np.int64)
        level[g.dev] = h.level
        rank = tier_ranks(index, level, g)
        ends = ends_of(index)
        before = reuse.hits["link sums patched"]
        ours = reuse.sums(index, ends, rank)
        patched += reuse.hits["link sums patched"] > before
        fresh = link_sums(index, ends, rank)
        for name in ("down", "up", "seen", "used", "lanes"):
            x, y = getattr(ours, name), getattr(fresh, name)
            assert x.dtype == y.dtype and np.array_equal(x, y), (step, name)
        assert np.array_equal(ours.rank, fresh.rank)
    assert patched >= 10, patched
