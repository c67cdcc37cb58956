"""Benchmark of the single-point-of-failure search's articulation points.

Plain script, not part of the test run::

    .venv/bin/python bench/bench_spof.py [--sizes 1000,8000,32000]

For each size (GPUs; ``fat_tree("dgx-h100", GPUs / 8, "qm9700")``, one spine
link deleted so the fabric is uneven, as after a user's edit) it times
:func:`designer.analysis.graph.articulation_points` on the compute graph
against the naive baseline in the same run, a networkx graph built from the
same links and its ``articulation_points`` (what the check did before), checks
both give the same nodes, and prints the ratio. Median of 7 runs each.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import networkx as nx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from designer.analysis import build_index
from designer.analysis.graph import articulation_points, compute_graph, topology
from designer.core.document import Document
from designer.core.link_commands import RemoveLinks
from designer.generate import fat_tree


def _median(run: Callable[[], object], repeats: int = 7) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _networkx(n: int, u: np.ndarray, v: np.ndarray) -> list[int]:
    """The naive baseline: a networkx graph of the links, its articulation points."""
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(zip(u.tolist(), v.tolist(), strict=True))
    return sorted(nx.articulation_points(graph))


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,8000,32000")
    args = parser.parse_args()
    print(f"{'GPUs':>7} {'links':>7} {'ours':>10} {'networkx':>10} {'x':>6}  same")
    for gpus in (int(s) for s in args.sizes.split(",")):
        doc = Document(fat_tree("dgx-h100", gpus // 8, "qm9700"))
        table = doc.design.links
        spine = next(i for i, a in zip(table.id, table.a, strict=True) if "leaf" in a)
        doc.execute(RemoveLinks([spine]))
        index = build_index(doc.design)
        g = compute_graph(index, topology(index))
        ours = partial(articulation_points, g.n, g.u, g.v)
        naive = partial(_networkx, g.n, g.u, g.v)
        same = ours() == naive()
        t_ours, t_naive = _median(ours), _median(naive)
        print(
            f"{gpus:>7,} {len(g.u):>7,} {t_ours * 1e3:7.2f} ms {t_naive * 1e3:7.2f} ms "
            f"{t_naive / t_ours:5.1f}x  {'yes' if same else 'NO'}",
            flush=True,
        )


if __name__ == "__main__":
    main()
