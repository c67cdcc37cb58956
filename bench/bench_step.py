"""Benchmark of the plan search of ``estimate`` against a naive search.

Plain script, not part of the test run::

    .venv/bin/python bench/bench_step.py [--sizes 1000,100000] [--models ...]

For each size (GPUs; DGX H100, 8 x 400G, QM9700 rail-optimized fat tree) it
reads the design once (index + analysis + fabric view, shared by both), then
for each model runs the plan search two ways on the same fabric:

- ``search``: the estimate's search (memory checked before timing, the first
  rung of each layout's recompute / ZeRO ladder that fits, memoised
  collectives, layouts whose compute and bubble cannot beat the best skipped);
- ``naive``: every candidate of the same space timed in full with the step
  model, then the fastest that fits kept.

It prints the candidates, how many were timed, the seconds, the ratio, and
whether both found plans equally fast per token (within 2 %). The last column
is a whole ``estimate`` (plan search on the design and on a non-blocking
fabric, N-1 and the rest) of the same design and model.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from designer.core.workload import Job, Precision, Workload
from designer.generate import fat_tree
from designer.workload import estimate, facts, preset, read_design
from designer.workload.plan import Work
from designer.workload.search import Fixed, search
from designer.workload.step import Efficiency, Hardware


def run(gpus: int, models: list[str]) -> list[dict[str, str]]:
    """One size: the design read once, each model searched both ways."""
    design = fat_tree("dgx-h100", -(-gpus // 8), "qm9700")
    start = time.perf_counter()
    d = read_design(design)
    view = d.fabric()
    read_s = time.perf_counter() - start
    eff = facts.EFFICIENCY[("hopper", "bf16")].value
    hw = Hardware(989e12, 989e12, Efficiency(eff, facts.ATTENTION_EFFICIENCY.value, ""))
    rows = []
    for name in models:
        spec = preset(name)
        work = Work(spec, Job.PRETRAIN, Precision.BF16, spec.seq_len, 1, 0.0, None, 1)
        kw = dict(gpus=d.gpus, capacity=80e9, batch_tokens=16e6)
        t0 = time.perf_counter()
        fast = search(work, Fixed(), view, hw, **kw)  # type: ignore[arg-type]
        t1 = time.perf_counter()
        slow = search(work, Fixed(), view, hw, naive=True, **kw)  # type: ignore[arg-type]
        t2 = time.perf_counter()
        same = "n/a"
        if fast.result and slow.result:
            a = fast.result.step_s / fast.result.tokens
            b = slow.result.step_s / slow.result.tokens
            same = "yes" if a <= b * 1.02 else f"no ({a / b - 1:+.1%})"
        t3 = time.perf_counter()
        estimate(design, overrides=Workload(model=name), design_facts=d)
        t4 = time.perf_counter()
        p = fast.plan
        rows.append(
            {
                "GPUs": f"{d.gpus:,}",
                "model": name,
                "read s": f"{read_s:.2f}",
                "candidates": f"{slow.tried:,}",
                "timed": f"{fast.timed:,} / {slow.timed:,}",
                "search s": f"{t1 - t0:.2f}",
                "naive s": f"{t2 - t1:.2f}",
                "naive/search": f"{(t2 - t1) / max(t1 - t0, 1e-9):.1f}x",
                "same best": same,
                "plan": f"TP{p.tp} CP{p.cp} PP{p.pp} V{p.vpp} EP{p.ep} DP{p.dp}",
                "estimate s": f"{t4 - t3:.2f}",
            }
        )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,100000")
    ap.add_argument("--models", default="llama3-405b,deepseek-v3")
    args = ap.parse_args()
    rows = []
    for size in args.sizes.split(","):
        rows += run(int(size), args.models.split(","))
    cols = list(rows[0])
    width = {c: max(len(c), *(len(r[c]) for r in rows)) for c in cols}
    print("  ".join(c.rjust(width[c]) for c in cols))
    for r in rows:
        print("  ".join(r[c].rjust(width[c]) for c in cols))


if __name__ == "__main__":
    main()
