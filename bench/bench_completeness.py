"""Benchmark of the completeness findings against a naive networkx/Python pass.

Plain script, not part of the test run::

    .venv/bin/python bench/bench_completeness.py [--sizes 1000,16000,100000]

For each size (GPUs; DGX H100, 8 x 400G, QM9700 fat tree, one BMC link on the
first node so the per-node OOB check has 12,499 nodes to name at 100K) it
prints the time of :func:`check_completeness` (numpy and scipy over the index
arrays, min of 10) next to the full analysis, and a naive version of three of
its checks (fabric parts with networkx, never-wired devices and BMC links per
node with Python loops over the links) with the speed-up. Both must agree on
the number of parts, unwired devices and nodes without a BMC link.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import networkx as nx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import designer.analysis.findings as findings
from designer.analysis import analyze_index, build_index
from designer.analysis.completeness import check_completeness
from designer.core.model import Design, Device, Fabric, Link
from designer.generate import fat_tree


def _best(fn, reps: int):  # type: ignore[no-untyped-def]
    best, out = float("inf"), None
    for _ in range(reps):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return out, best


def naive(design: Design) -> tuple[float, tuple[int, int, int]]:
    """(seconds, (parts, unwired, nodes without BMC link)) the plain way."""
    t = time.perf_counter()
    kind = {d.id: d.catalog_id for d in design.devices}
    g = nx.Graph()
    wired: set[str] = set()
    oob: set[str] = set()
    for link in design.links:
        wired.update((link.a, link.b))
        if link.fabric is Fabric.COMPUTE:
            g.add_edge(link.a, link.b)
        elif link.fabric is Fabric.OOB:
            oob.update((link.a, link.b))
    parts = sum(
        1
        for part in nx.connected_components(g)
        if any(kind[x] == "dgx-h100" for x in part)
    )
    unwired = sum(1 for d in design.devices if d.id not in wired)
    no_bmc = sum(
        1 for d in design.devices if d.catalog_id == "dgx-h100" and d.id not in oob
    )
    return time.perf_counter() - t, (parts, unwired, no_bmc)


def run(gpus: int) -> str:
    """One row of the table."""
    design = fat_tree("dgx-h100", -(-gpus // 8), "qm9700")
    design.devices.append(Device(id="oob-1", catalog_id="sn2201"))
    first = design.devices[0].id
    design.links.append(
        Link(
            id="bmc",
            a=first,
            a_port="bmc",
            b="oob-1",
            b_port="ports",
            speed_gbps=1,
            fabric=Fabric.OOB,
        )
    )
    index = build_index(design)
    seen = {}
    real = findings.check_completeness
    findings.check_completeness = lambda ctx: seen.setdefault("ctx", ctx) and []
    analyze_index(index, design)
    findings.check_completeness = real
    found, t_ours = _best(lambda: check_completeness(seen["ctx"]), 10)
    _, t_full = _best(lambda: analyze_index(index, design), 5)
    t_naive, (parts, unwired, no_bmc) = naive(design)
    codes = {f.code: f for f in found}
    ours_no_bmc = int(codes["NO_OOB_LINK"].message.split(" of ")[0].replace(",", ""))
    agree = parts == 1 and "FABRIC_SPLIT" not in codes and unwired == 0
    agree = agree and "UNWIRED_DEVICE" not in codes and ours_no_bmc == no_bmc
    return (
        f"{gpus:>8,} | {len(design.links):>8,} | {t_ours * 1e3:>9.1f} ms | "
        f"{t_full * 1e3:>8.1f} ms | {t_naive * 1e3:>9.0f} ms | "
        f"{t_naive / t_ours:>7.0f}x | {'yes' if agree else 'NO':>6}"
    )


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,16000,100000")
    sizes = [int(s) for s in parser.parse_args().sizes.split(",")]
    print(
        f"{'gpus':>8} | {'links':>8} | {'completeness':>12} | {'analysis':>11} | "
        f"{'naive':>12} | {'speed-up':>8} | {'agree':>6}"
    )
    for gpus in sizes:
        print(run(gpus), flush=True)


if __name__ == "__main__":
    main()
