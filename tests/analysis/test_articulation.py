"""articulation_points equals networkx's on random graphs: sparse and dense,
in parts, with parallel links, self-loops and isolated nodes, and on trees,
paths, cycles and stars (an oracle: an exact, independent implementation)."""

from __future__ import annotations

import random

import networkx as nx
import numpy as np
import pytest

from designer.analysis.graph import articulation_points


def _oracle(n: int, u: np.ndarray, v: np.ndarray) -> list[int]:
    graph = nx.MultiGraph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(
        (a, b) for a, b in zip(u.tolist(), v.tolist(), strict=True) if a != b
    )
    return sorted(nx.articulation_points(nx.Graph(graph)))


def _edges(pairs: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    arr = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return arr[:, 0], arr[:, 1]


@pytest.mark.parametrize("seed", range(60))
def test_random_graphs(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(1, 60)
    m = rng.randint(0, 3 * n)
    pairs = [(rng.randrange(n), rng.randrange(n)) for _ in range(m)]
    pairs += pairs[: rng.randint(0, 5)]  # parallel links
    u, v = _edges(pairs)
    assert articulation_points(n, u, v) == _oracle(n, u, v)


def test_shapes() -> None:
    n = 12
    path = [(k, k + 1) for k in range(n - 1)]
    cycle = [*path, (n - 1, 0)]
    star = [(0, k) for k in range(1, n)]
    two_cycles = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 2)]
    for pairs, want in (
        (path, list(range(1, n - 1))),
        (cycle, []),
        (star, [0]),
        (two_cycles, [2]),
        ([(0, 1), (0, 1)], []),  # a doubled link: no node cuts it
        ([(3, 3)], []),
    ):
        u, v = _edges(pairs)
        assert articulation_points(n, u, v) == want == _oracle(n, u, v)


def test_a_long_path_needs_no_recursion() -> None:
    n = 50_000
    u = np.arange(n - 1, dtype=np.int64)
    assert articulation_points(n, u, u + 1) == list(range(1, n - 1))
