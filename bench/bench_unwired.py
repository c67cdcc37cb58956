"""Benchmark of the bisection with unwired compute nodes (issue 16, item 3).

Plain script, not part of the test run::

    .venv/bin/python bench/bench_unwired.py [--sizes 16000,100000] [--unwired 1,3]

For each size (GPUs; ``fat_tree("dgx-h100", GPUs / 8, "qm9700")``) it times
:func:`designer.analysis.analyze` (the first result, what the live panel shows)
on the wired fabric, then with unwired DGX H100 nodes added, and the same
design through the path of before (the unwired nodes' own bound switched off,
in this run), and prints each result's lower and upper bound and whether it
is exact. Min of 3 runs each.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from designer.analysis import analyze, bisection
from designer.core.model import Design, Device
from designer.generate import fat_tree


def _timed(design: Design, reps: int = 3) -> tuple[float, Any]:
    best, report = float("inf"), None
    for _ in range(reps):
        t = time.perf_counter()
        report = analyze(design)
        best = min(best, time.perf_counter() - t)
    return best, report


def _row(label: str, seconds: float, report: Any) -> str:
    b = report.bisection
    return (
        f"{label:<28} {seconds * 1e3:>8.0f}ms {b.lower_gbps:>14,.0f} "
        f"{b.upper_gbps:>14,.0f} {'exact' if b.exact else 'interval':>9}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="16000,100000")
    ap.add_argument("--unwired", default="1,3")
    args = ap.parse_args()
    print(f"{'design':<28} {'first':>10} {'lower Gb/s':>14} {'upper Gb/s':>14} {'':>9}")
    for gpus in (int(x) for x in args.sizes.split(",")):
        wired = fat_tree("dgx-h100", gpus // 8, "qm9700")
        print(_row(f"{gpus:,} GPUs, wired", *_timed(wired)))
        for k in (int(x) for x in args.unwired.split(",")):
            extra = [Device(id=f"unwired-{i}", catalog_id="dgx-h100") for i in range(k)]
            design = wired.model_copy(update={"devices": [*wired.devices, *extra]})
            print(_row(f"  + {k} unwired", *_timed(design)))
            real = bisection._unwired_nodes
            bisection._unwired_nodes = lambda g: np.zeros(0, dtype=np.int64)  # type: ignore[assignment]
            try:
                print(_row(f"  + {k} unwired, as before", *_timed(design, 1)))
            finally:
                bisection._unwired_nodes = real  # type: ignore[assignment]
    print(
        "first: the first result (analyze); as before: without the unwired "
        "nodes' bound (lower 0, refinement left to run)."
    )


if __name__ == "__main__":
    main()
