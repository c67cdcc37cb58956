"""Benchmark of the analysis on rail-optimized fat trees (issue 2 §9).

Plain script, not part of the test run::

    .venv/bin/python bench/bench_analysis.py [--sizes 1000,4000,16000,32000,100000]

For each size (GPUs; DGX H100, 8 x 400G, QM9700) it prints: generate, save
(``model_dump_json`` to a temp file), load (``Design.model_validate_json``),
build index, full analysis from the index (median of 5), peak memory of one
analysis (tracemalloc), the same bisection cut solved by networkx max-flow
(preflow-push) on the same graph, and the speed-up. Targets: 100K GPUs analysed
in <= 100 ms, >= 50x faster than networkx, load <= 1 s. Then, after one link's
cables go 1 -> 2 (an uneven fabric): the analysis from a fresh index (no
carried bound) and its bisection bounds, and the time to derive the index from
the design's column store after that edit and after deleting a spine link.
Last, a cable edit as the GUI's worker sees it (snapshot -> index -> first
report): with the worker's :class:`~designer.analysis.reuse.Reuse` kept across
edits, and from scratch (the naive baseline), median of 5, and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import networkx as nx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from designer.analysis import analyze_index, build_index
from designer.analysis.engine import analyze_stages
from designer.analysis.reuse import Reuse
from designer.core.document import Document
from designer.core.link_commands import RemoveLinks, UpdateLink
from designer.core.model import Design, Fabric
from designer.core.snapshot import snapshot
from designer.generate import fat_tree


def _timed(fn, *args):  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t


def networkx_cut(design: Design, side_a: set[str]) -> tuple[float, float]:
    """(seconds, flow value) of networkx max-flow for the split of the compute nodes."""
    t = time.perf_counter()
    g = nx.DiGraph()
    links = design.links
    for a, b, cables, speed, fabric in zip(
        links.a, links.b, links.cables, links.speed_gbps, links.fabric, strict=True
    ):
        if fabric is not Fabric.COMPUTE:
            continue
        cap = cables * speed
        for x, y in ((a, b), (b, a)):
            data = g.get_edge_data(x, y)
            if data is None:
                g.add_edge(x, y, capacity=cap)
            else:
                data["capacity"] += cap
    compute = {d.id for d in design.devices if d.catalog_id == "dgx-h100"}
    for node in compute:
        if node in side_a:
            g.add_edge("__S", node)
        else:
            g.add_edge(node, "__T")
    value = nx.maximum_flow_value(g, "__S", "__T")
    return time.perf_counter() - t, float(value)


def run(gpus: int) -> dict[str, float | str]:
    """One row of the table."""
    nodes = -(-gpus // 8)
    design, t_gen = _timed(fat_tree, "dgx-h100", nodes, "qm9700")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "design.json"
        _, t_save = _timed(lambda: path.write_text(design.model_dump_json()))
        text = path.read_text()
    loaded, t_load = _timed(Design.model_validate_json, text)
    assert loaded == design
    index, t_index = _timed(build_index, loaded)
    analyze_index(index, loaded)  # warm-up
    times = []
    for _ in range(5):
        report, t = _timed(analyze_index, index, loaded)
        times.append(t)
    t_analysis = statistics.median(times)
    tracemalloc.start()
    analyze_index(index, loaded)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    b = report.bisection
    t_nx, nx_value = networkx_cut(loaded, set(b.side_a))
    n_links = len(loaded.links)
    doc = Document(loaded)  # edits below change ``loaded`` itself
    doc.execute(UpdateLink(loaded.links.id[0], {"cables": 2}))
    uneven_index, t_patch = _timed(build_index, doc.design)
    analyze_index(uneven_index, doc.design)  # warm-up
    uneven_times = []
    for _ in range(3):
        uneven, t = _timed(analyze_index, uneven_index, doc.design)
        uneven_times.append(t)
    ub = uneven.bisection
    spine = next(
        lid
        for lid, a in zip(doc.design.links.id, doc.design.links.a, strict=True)
        if a.startswith("leaf")
    )
    doc.execute(RemoveLinks([spine]))
    _, t_patch_del = _timed(build_index, doc.design)
    doc.undo()
    t_reuse, t_scratch = _worker_edits(doc)
    return {
        "gpus": f"{report.gpus:,}",
        "links": f"{n_links:,}",
        "generate": t_gen,
        "save": t_save,
        "load": t_load,
        "index": t_index,
        "analysis": t_analysis,
        "best": min(times),
        "peak MB": peak / 1e6,
        "networkx": t_nx,
        "speed-up": t_nx / t_analysis,
        "bisection": f"{b.gbps:,.0f}{' exact' if b.exact else ''}",
        "nx agrees": "yes"
        if abs(nx_value - b.gbps) < 1e-6
        else f"NO ({nx_value:,.0f})",
        "uneven": statistics.median(uneven_times),
        "uneven bounds": "exact"
        if ub.exact
        else f"{ub.lower_gbps:,.0f}..{ub.upper_gbps:,.0f}",
        "index after cables": t_patch,
        "index after delete": t_patch_del,
        "edit, reuse": t_reuse,
        "edit, scratch": t_scratch,
        "scratch/reuse": t_scratch / t_reuse,
    }


def _worker_edits(doc: Document) -> tuple[float, float]:
    """Median seconds from a cable edit to the first report, with and without
    the worker's reuse of the previous state."""
    reuse = Reuse()

    def first_report(r: Reuse | None) -> float:
        light, links = snapshot(doc.design)
        start = time.perf_counter()
        index = (
            r.build_index(light, None, links)
            if r is not None
            else build_index(light, links=links)
        )
        next(analyze_stages(index, light, reuse=r))
        return time.perf_counter() - start

    first_report(reuse)
    link = doc.design.links.id[0]
    with_reuse, scratch = [], []
    for k in range(5):
        doc.execute(UpdateLink(link, {"cables": 1 + k % 2}))
        with_reuse.append(first_report(reuse))
        scratch.append(first_report(None))
    return statistics.median(with_reuse), statistics.median(scratch)


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,4000,16000,32000,100000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    cols = [
        ("gpus", 8),
        ("links", 8),
        ("generate", 9),
        ("save", 6),
        ("load", 6),
        ("index", 6),
        ("analysis", 9),
        ("best", 6),
        ("peak MB", 8),
        ("networkx", 9),
        ("speed-up", 9),
        ("bisection", 18),
        ("nx agrees", 9),
        ("uneven", 7),
        ("uneven bounds", 13),
        ("index after cables", 18),
        ("index after delete", 18),
        ("edit, reuse", 11),
        ("edit, scratch", 13),
        ("scratch/reuse", 13),
    ]
    print(" | ".join(name.rjust(w) for name, w in cols))
    for gpus in sizes:
        row = run(gpus)
        cells = []
        for name, w in cols:
            val = row[name]
            if isinstance(val, float):
                if name in ("peak MB", "speed-up"):
                    text = f"{val:.0f}" + ("x" if name == "speed-up" else "")
                elif name == "scratch/reuse":
                    text = f"{val:.1f}x"
                else:
                    text = f"{val * 1e3:.0f} ms" if val < 1 else f"{val:.2f} s"
            else:
                text = str(val)
            cells.append(text.rjust(w))
        print(" | ".join(cells), flush=True)


if __name__ == "__main__":
    main()
