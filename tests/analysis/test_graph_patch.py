"""The worker's topology found by the rows an edit changed, and its compute
graph with the capacities patched, equal those made afresh
(:func:`designer.analysis.graph.recapacitated`)."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pytest

from designer.analysis.graph import compute_graph, topology
from designer.analysis.reuse import Reuse
from designer.catalog import Catalog, default_catalog
from designer.core.document import Document
from designer.core.link_commands import UpdateLink
from designer.core.model import Design
from tests.analysis.walk import DESIGNS, random_edit, walk


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return default_catalog()


_GRAPH = ("dev", "endpoint", "switch", "u", "v", "c", "link", "injection", "weight",
          "all_u", "all_v", "all_link", "all_c")  # fmt: skip
_TOPOLOGY = ("dev", "endpoint", "local_u", "local_v", "link", "alive")


def _edit(rng: random.Random, doc: Document, step: int) -> None:
    """A cable count (the same topology), an end moved to another device
    (not), or any of the walk's edits."""
    links = doc.design.links
    roll = rng.random()
    if roll < 0.4:
        lid = links.id[rng.randrange(len(links))]
        doc.execute(UpdateLink(lid, {"cables": 1 + rng.randrange(4)}))
    elif roll < 0.55:
        lid = links.id[rng.randrange(len(links))]
        other = links.row(rng.randrange(len(links)))
        row = links.get(lid)
        if row is not None and other.b not in (row.a, row.b):
            doc.execute(UpdateLink(lid, {"b": other.b, "b_port": other.b_port}))
    else:
        random_edit(rng, doc, step)


@pytest.mark.parametrize("make", DESIGNS)
def test_the_patched_graph_and_the_topology_by_rows_equal_fresh_ones(
    make: Callable[[], Design], catalog: Catalog
) -> None:
    reuse = Reuse()
    for step, _, index, _doc in walk(make(), catalog, seed=2, steps=80, edit=_edit,
                                     reuse=reuse):  # fmt: skip
        top = reuse.topology(index)
        fresh_top = topology(index)
        for name in _TOPOLOGY:
            assert np.array_equal(getattr(top, name), getattr(fresh_top, name)), name
        g = reuse.graph(index, top)
        fresh = compute_graph(index, fresh_top)
        for name in _GRAPH:
            x, y = getattr(g, name), getattr(fresh, name)
            assert x.dtype == y.dtype and np.array_equal(x, y), (step, name)
        assert not g.c.flags.writeable and not g.injection.flags.writeable
    assert reuse.hits["topology by the rows"] >= 10
    assert reuse.hits["graph capacities patched"] >= 10
