"""The worker's topology found by the rows an edit changed, and its compute
graph with the capacities patched, equal those made afresh
(:func:`designer.analysis.graph.recapacitated`)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from designer.analysis.graph import compute_graph, topology
from designer.analysis.reuse import Reuse
from designer.catalog import Catalog, default_catalog
from designer.core.document import Document
from designer.core.link_commands import UpdateLink
from designer.core.snapshot import snapshot
from designer.generate import fat_tree
from tests.analysis.builders import perturbed_fat_tree, sketch_design
from tests.analysis.test_end_patch import _edit


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return default_catalog()


_GRAPH = ("dev", "endpoint", "switch", "u", "v", "c", "link", "injection", "weight",
          "all_u", "all_v", "all_link", "all_c")  # fmt: skip
_TOPOLOGY = ("dev", "endpoint", "local_u", "local_v", "link", "alive")


@pytest.mark.parametrize(
    "make",
    [
        lambda: fat_tree("dgx-h100", 64, "qm9700"),
        lambda: perturbed_fat_tree(128, 3),
        lambda: sketch_design(4, 24, mixed=True),
    ],
    ids=["fat tree", "perturbed fat tree", "sketch"],
)
def test_the_patched_graph_and_the_topology_by_rows_equal_fresh_ones(
    make: object, catalog: Catalog
) -> None:
    doc = Document(make())  # type: ignore[operator]
    rng = random.Random(2)
    reuse = Reuse()
    for step in range(80):
        if step:
            try:
                links = doc.design.links
                roll = rng.random()
                if roll < 0.4:  # a cable count: the same topology
                    lid = links.id[rng.randrange(len(links))]
                    doc.execute(UpdateLink(lid, {"cables": 1 + rng.randrange(4)}))
                elif roll < 0.55:  # one end moved to another device: not
                    lid = links.id[rng.randrange(len(links))]
                    other = links.row(rng.randrange(len(links)))
                    row = links.get(lid)
                    if row is not None and other.b not in (row.a, row.b):
                        change = {"b": other.b, "b_port": other.b_port}
                        doc.execute(UpdateLink(lid, change))
                else:
                    _edit(rng, doc, step)
            except ValueError:
                continue
        light, links = snapshot(doc.design)
        index = reuse.build_index(light, catalog, links)
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
