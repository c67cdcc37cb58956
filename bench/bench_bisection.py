"""Benchmark of the bisection: time and bound width, against independent methods.

Plain script, not part of the test run::

    .venv/bin/python bench/bench_bisection.py [--sketches 10] \
        [--sizes 1024,4096,16384,100000]

Part 1, hand-drawn-like leaf/spine sketches of 64 compute nodes
(tests/analysis/builders.py ``sketch_design``): the first result (what the
live panel shows) - time, exact or not; then the refined result; the
independent exact method of tests/analysis/oracle.py (every switch placement x
a knapsack table) in the same run, and networkx max-flow for the reported
split (brute force over the C(64, 32) splits is out of reach).

Part 2, DGX H100 fat trees with 5 % of their uplinks removed, 2 % of the
switch links' cable counts changed and 4 extra switch links
(``perturbed_fat_tree``): first result, refined result within the deadline
(2 s up to 4K GPUs, 10 s above), the time of the last improvement, the bound
width lower/upper, and networkx max-flow (preflow-push) for the best cut's
compute split, which must equal the upper bound.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import networkx as nx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from designer.analysis import build_index
from designer.analysis.bisection import bisect, hierarchy, refine_bisection
from designer.analysis.engine import _nominal_injection
from designer.analysis.graph import compute_graph
from designer.core.model import Design, Fabric
from tests.analysis.builders import gpus_of, perturbed_fat_tree, sketch_design
from tests.analysis.oracle import oracle_by_placement


def networkx_cut(design: Design, side_a: set[str]) -> tuple[float, float]:
    """(seconds, value) of networkx max-flow for that split of the compute nodes."""
    t = time.perf_counter()
    g = nx.DiGraph()
    for link in design.links:
        if link.fabric is not Fabric.COMPUTE:
            continue
        cap = link.cables * link.speed_gbps
        for x, y in ((link.a, link.b), (link.b, link.a)):
            data = g.get_edge_data(x, y)
            if data is None:
                g.add_edge(x, y, capacity=cap)
            else:
                data["capacity"] += cap
    for node in gpus_of(design):
        if node in side_a:
            g.add_edge("__S", node)
        else:
            g.add_edge(node, "__T")
    value = nx.maximum_flow_value(g, "__S", "__T")
    return time.perf_counter() - t, float(value)


def run(design: Design, seconds: float) -> dict[str, object]:
    """First result, refinement to the deadline, and what each took."""
    idx = build_index(design)
    t0 = time.perf_counter()
    g = compute_graph(idx)
    h = hierarchy(g)
    nominal = _nominal_injection(idx)[g.dev][g.endpoint]
    names = idx.device_ids_arr[g.dev]
    first = bisect(g, h, nominal, idx.endpoint_order, names=names)
    t_first = time.perf_counter() - t0
    best, t_best = first, t_first
    t1 = time.perf_counter()
    for r in refine_bisection(g, h, nominal, first, deadline=t1 + seconds, names=names):
        best, t_best = r, t_first + time.perf_counter() - t1
    side_a = {str(x) for x in idx.device_ids_arr[g.dev[best.side]]}
    return {
        "first": first,
        "t_first": t_first,
        "best": best,
        "t_best": t_best,
        "side_a": side_a,
    }


def width(r: object) -> str:
    """lower/upper as a ratio."""
    lo, up = r.lower, r.upper  # type: ignore[attr-defined]
    return f"{lo / up:.3f}" if up > 0 else "1.000"


def sketches(count: int) -> None:
    """Part 1: 64-node sketches."""
    print("64-node sketches (leaf/spine drawn by hand)")
    print(
        f"{'seed':>4} {'first ms':>9} {'first':>6} {'refined ms':>10} {'lo/up':>6} "
        f"{'oracle ms':>9} {'= oracle':>8} {'nx ms':>7}"
    )
    firsts, oracles = [], []
    for seed in range(count):
        design = sketch_design(100 + seed, 64, mixed=seed % 3 == 0)
        out = run(design, 20.0)
        t = time.perf_counter()
        truth = oracle_by_placement(design)
        t_or = time.perf_counter() - t
        t_nx, v_nx = networkx_cut(design, out["side_a"])  # type: ignore[arg-type]
        best = out["best"]
        assert abs(v_nx - best.upper) < 1e-6  # type: ignore[attr-defined]
        firsts.append(out["t_first"])
        oracles.append(t_or)
        print(
            f"{seed:>4} {out['t_first'] * 1e3:>9.0f} "  # type: ignore[operator]
            f"{'exact' if out['first'].exact else 'bounds':>6} "  # type: ignore[attr-defined]
            f"{out['t_best'] * 1e3:>10.0f} {width(best):>6} {t_or * 1e3:>9.0f} "  # type: ignore[operator]
            f"{abs(best.upper - truth) < 1e-6 and best.exact!s:>8} "  # type: ignore[attr-defined]
            f"{t_nx * 1e3:>7.0f}"
        )
    print(
        f"median first result {statistics.median(firsts) * 1e3:.0f} ms, "
        f"max {max(firsts) * 1e3:.0f} ms; oracle median "
        f"{statistics.median(oracles) * 1e3:.0f} ms\n"
    )


def fat_trees(sizes: list[int]) -> None:
    """Part 2: perturbed fat trees."""
    print("DGX H100 fat trees, 5 % of uplinks removed, cables changed, extra links")
    print(
        f"{'GPUs':>7} {'first ms':>9} {'first lo/up':>11} {'refined s':>9} "
        f"{'lo/up':>6} {'lower':>12} {'upper':>12} {'nx s':>6} {'nx = up':>7}"
    )
    for gpus in sizes:
        design = perturbed_fat_tree(gpus, 1)
        out = run(design, 2.0 if gpus <= 4096 else 10.0)
        best = out["best"]
        t_nx, v_nx = networkx_cut(design, out["side_a"])  # type: ignore[arg-type]
        print(
            f"{gpus:>7,} {out['t_first'] * 1e3:>9.0f} {width(out['first']):>11} "  # type: ignore[operator]
            f"{out['t_best']:>9.2f} {width(best):>6} {best.lower:>12,.0f} "  # type: ignore[attr-defined]
            f"{best.upper:>12,.0f} {t_nx:>6.1f} "  # type: ignore[attr-defined]
            f"{abs(v_nx - best.upper) < 1e-6!s:>7}"  # type: ignore[attr-defined]
        )
        print(f"        refined by: {best.stage}; lower bound: {best.lower_how}")  # type: ignore[attr-defined]


def main() -> None:
    """Print both tables."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--sketches", type=int, default=10)
    ap.add_argument("--sizes", default="1024,4096,16384,100000")
    args = ap.parse_args()
    np.seterr(all="ignore")
    if args.sketches:
        sketches(args.sketches)
    fat_trees([int(x) for x in args.sizes.split(",") if x])


if __name__ == "__main__":
    main()
