"""The pair max-flow bound against networkx's max-flow on the same graph."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from designer.analysis import build_index
from designer.analysis.balance import balance, min_side_count
from designer.analysis.candidates import pair_bound, twin_groups
from designer.analysis.graph import ComputeGraph, compute_graph
from designer.core.model import Design
from designer.generate import fat_tree
from tests.analysis.builders import perturbed_fat_tree, random_design, sketch_design


def _uneven_fat_tree() -> Design:
    """A 128-node fat tree with two nodes' links raised (to 2 and 3 cables):
    those two nodes are twins of no other."""
    design = fat_tree("dgx-h100", 128, "qm9700")
    table = design.links
    nodes = [
        d.id for d in design.devices if d.tier is None and d.catalog_id == "dgx-h100"
    ]
    rows = [table.a.index(nodes[3]), table.a.index(nodes[70])]
    first, second = table.row(rows[0]), table.row(rows[1])
    table.replace_rows(rows, [first.model_copy(update={"cables": first.cables + 1}),
                              second.model_copy(update={"cables": 3})])  # fmt: skip
    return design


def _oracle(g: ComputeGraph) -> float:
    """k-th smallest flow from a source feeding node 0 with its injection to a
    sink fed by each other node with its (networkx preflow-push)."""
    ep = g.endpoints.tolist()
    graph = nx.DiGraph()
    for a, b, c in zip(g.u.tolist(), g.v.tolist(), g.c.tolist(), strict=True):
        if a == b:
            continue
        for x, y in ((a, b), (b, a)):
            old = graph.get_edge_data(x, y, {"capacity": 0})["capacity"]
            graph.add_edge(x, y, capacity=old + c)
    graph.add_edge("S", ep[0], capacity=round(float(g.injection[ep[0]])) or 1)
    flows = []
    for t in ep[1:]:
        h = graph.copy()
        h.add_edge(t, "T", capacity=round(float(g.injection[t])) or 1)
        flows.append(nx.maximum_flow_value(h, "S", "T"))
    flows.sort()
    k = min_side_count(g.weight[g.endpoints], balance(g.weight[g.endpoints]))
    return float(flows[max(k, 1) - 1])


@pytest.mark.parametrize(
    "make",
    [
        *[lambda s=s: random_design(s, hosts=8, switches=4) for s in range(6)],
        lambda: sketch_design(4, 16, mixed=True),
        lambda: perturbed_fat_tree(128, 2),
        lambda: fat_tree("dgx-h100", 64, "qm9700", oversubscription=(2.0,)),
        _uneven_fat_tree,
    ],
)
def test_the_pair_bound_is_the_k_th_smallest_pair_flow(make: object) -> None:
    index = build_index(make())  # type: ignore[operator]
    g = compute_graph(index)
    ours = pair_bound(g, balance(g.weight[g.endpoints]))
    assert ours is not None
    assert ours == _oracle(g)


def test_the_nodes_of_a_scalable_unit_are_twins() -> None:
    """In a rail-optimised fat tree every node of a scalable unit has one link
    to each of its unit's leaves: one group per unit, so one flow each."""
    g = compute_graph(build_index(fat_tree("dgx-h100", 128, "qm9700")))
    group, first = twin_groups(g, g.endpoints[1:])
    assert len(first) == 4  # four scalable units of 32 nodes
    assert sorted(np.bincount(group).tolist()) == [31, 32, 32, 32]
    uneven = compute_graph(build_index(_uneven_fat_tree()))
    group, first = twin_groups(uneven, uneven.endpoints[1:])
    assert len(first) == 6  # the two changed nodes stand alone
