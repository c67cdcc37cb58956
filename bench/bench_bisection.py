"""Benchmark of the bisection: time and bound width, against independent methods.

Plain script, not part of the test run::

    .venv/bin/python bench/bench_bisection.py [--sketches 10] \
        [--sizes 1024,4096,16384,100000] [--gil]

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
compute split, which must equal the upper bound. What each size gets, by
which argument: up to 4K GPUs the first result's lower bound is the hose
certificate on a regular fabric near the design minus what that adds
(designer/analysis/completion.py), >= 0.9 x upper at 4K; 16K the same, about
0.88; 100K shows the interval [0, cut] at once (the regular-fabric bound is
the first refinement stage there, about 0.83 after a few hundred ms).

Part 3 (``--gil``): the worst main-thread stall while one refinement stage
runs in a thread and the main thread ticks every 1 ms (performance.md §4),
with the machine's own jitter as the first row.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import networkx as nx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from designer.analysis import build_index
from designer.analysis.bisection import bisect
from designer.analysis.engine import _nominal_injection
from designer.analysis.graph import compute_graph
from designer.analysis.levels import hierarchy
from designer.analysis.refine import refine_bisection
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


def stall(work: Callable[[], object]) -> tuple[float, float, float]:
    """Run ``work`` in a thread while this thread ticks every 1 ms:
    (seconds of the call, worst gap between ticks in ms, 99th percentile gap)."""
    done = threading.Event()
    took: list[float] = []

    def target() -> None:
        t = time.perf_counter()
        work()
        took.append(time.perf_counter() - t)
        done.set()

    gaps: list[float] = []
    th = threading.Thread(target=target)
    last = time.perf_counter()
    th.start()
    while not done.is_set():
        time.sleep(0.001)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
    th.join()
    gaps.sort()
    p99 = gaps[int(0.99 * (len(gaps) - 1))] if gaps else 0.0
    return took[0], (gaps[-1] if gaps else 0.0) * 1e3, p99 * 1e3


def gil() -> None:
    """Part 3: worst main-thread stall while a refinement stage runs in a thread
    (performance.md §4): decides thread or subprocess for the GUI's worker."""
    from designer.analysis import exact, hose, partition, placement
    from designer.analysis.balance import balance
    from designer.analysis.completion import regular_bound
    from designer.analysis.flow import st_cut

    print("\nmain-thread stall while one stage runs in a thread (1 ms ticks)")
    print(f"{'stage':<44} {'call s':>7} {'worst ms':>9} {'p99 ms':>7}")
    jobs: list[tuple[str, Callable[[], object]]] = [
        (
            "nothing (time.sleep 0.3 s): the machine's own jitter",
            lambda: time.sleep(0.3),
        )
    ]
    g64 = compute_graph(build_index(sketch_design(105, 64, mixed=True)))
    bal64 = balance(g64.weight[g64.endpoint])
    jobs.append(
        (
            "enumeration of placements, 64-node sketch",
            lambda: placement.solve(g64, bal64),
        )
    )
    jobs.append(
        (
            "HiGHS MILP (scipy milp), 64-node sketch",
            lambda: exact.solve(g64, bal64, time_limit=5.0),
        )
    )
    g4 = compute_graph(build_index(perturbed_fat_tree(4096, 1)))
    bal4 = balance(g4.weight[g4.endpoint])
    jobs.append(("regular-fabric bound, 4K perturbed", lambda: regular_bound(g4, bal4)))
    jobs.append(
        (
            "HiGHS LP (scipy linprog): tree hose LP, 4K",
            lambda: hose.tree_bound(g4, bal4, detour_max_vars=12_000),
        )
    )
    g100 = compute_graph(build_index(perturbed_fat_tree(100_000, 1)))
    bal100 = balance(g100.weight[g100.endpoint])
    ep = g100.endpoints
    half = np.zeros(g100.n, dtype=np.int64)
    half[ep[: len(ep) // 2]] = 3200
    rest = np.zeros(g100.n, dtype=np.int64)
    rest[ep[len(ep) // 2 :]] = 3200
    jobs.append(
        (
            "scipy max-flow (dinic), 100K perturbed",
            lambda: st_cut(g100.n, g100.u, g100.v, g100.c, half, rest),
        )
    )
    jobs.append(
        (
            "METIS (pymetis), 100K perturbed, 1 seed",
            lambda: partition.metis_sides(g100, 1),
        )
    )
    jobs.append(
        ("regular-fabric bound, 100K perturbed", lambda: regular_bound(g100, bal100))
    )
    jobs.append(
        (
            "HiGHS LP: tree hose LP, 100K perturbed",
            lambda: hose.tree_bound(g100, bal100, detour_max_vars=0),
        )
    )
    for name, work in jobs:
        secs, worst, p99 = stall(work)
        print(f"{name:<44} {secs:>7.2f} {worst:>9.1f} {p99:>7.1f}", flush=True)


def main() -> None:
    """Print the tables."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--sketches", type=int, default=10)
    ap.add_argument("--sizes", default="1024,4096,16384,100000")
    ap.add_argument("--gil", action="store_true", help="also part 3 (GIL stalls)")
    args = ap.parse_args()
    np.seterr(all="ignore")
    if args.sketches:
        sketches(args.sketches)
    fat_trees([int(x) for x in args.sizes.split(",") if x])
    if args.gil:
        gil()


if __name__ == "__main__":
    main()
