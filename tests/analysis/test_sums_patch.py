"""The sums over the links patched for the rows an edit changed equal the
sums made afresh, to the bit (:mod:`designer.analysis.sums`)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from designer.analysis.ends import ends_of
from designer.analysis.graph import compute_graph
from designer.analysis.metrics import tier_ranks
from designer.analysis.reuse import Reuse
from designer.analysis.sums import link_sums
from designer.catalog import Catalog, default_catalog
from designer.core.document import Document
from designer.core.snapshot import snapshot
from designer.generate import fat_tree
from tests.analysis.builders import perturbed_fat_tree, random_design, sketch_design
from tests.analysis.test_end_patch import _edit


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return default_catalog()


@pytest.mark.parametrize(
    "make",
    [
        lambda: fat_tree("dgx-h100", 64, "qm9700", oversubscription=(2.0,)),
        lambda: perturbed_fat_tree(128, 3),
        lambda: sketch_design(4, 24, mixed=True),
        lambda: random_design(7, hosts=8, switches=4),
    ],
    ids=["fat tree 2:1", "perturbed fat tree", "sketch", "random"],
)
def test_every_patched_sum_equals_the_sum_over_every_link(
    make: object, catalog: Catalog
) -> None:
    doc = Document(make())  # type: ignore[operator]
    rng = random.Random(11)
    reuse = Reuse()
    patched = 0
    for step in range(70):
        if step:
            try:
                _edit(rng, doc, step)
            except ValueError:
                continue
        light, links = snapshot(doc.design)
        index = reuse.build_index(light, catalog, links)
        top = reuse.topology(index)
        g = compute_graph(index, top)
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
