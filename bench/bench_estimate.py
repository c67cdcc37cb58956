"""Benchmark of ``estimate`` (N-1 search included) against the naive N-1.

Plain script, not part of the test run::

    .venv/bin/python bench/bench_estimate.py [--sizes 1000,100000] [--naive 64]

For each size (GPUs; DGX H100, 8 x 400G, QM9700 rail-optimized fat tree) it
prints: the time to read the design (index + analysis), the N-1 search, the
rest of the estimate, and the naive N-1 - one full analysis (``analyze``) of the
design without each compute switch in turn. The naive run analyses every switch
when there are at most ``--naive`` of them... otherwise a sample of ``--naive``
switches spread over the tiers, and extrapolates per tier (marked ``~``). Both
give the worst failure's bisection ratio; the table shows whether they agree.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from designer.analysis import analyze
from designer.core.model import Design
from designer.core.workload import Workload
from designer.generate import fat_tree
from designer.workload import estimate, read_design
from designer.workload.fabric import tier_name


def without(design: Design, device: str) -> Design:
    """The design with one device and its links removed (unvalidated)."""
    keep = [
        i
        for i, (a, b) in enumerate(zip(design.links.a, design.links.b, strict=True))
        if device not in (a, b)
    ]
    return Design.model_construct(
        schema_version=design.schema_version,
        settings=design.settings,
        workload=design.workload,
        groups=design.groups,
        devices=[d for d in design.devices if d.id != device],
        links=design.links.take(keep),
    )


def naive(design: Design, sample: int) -> tuple[float, float, bool, int, float]:
    """(seconds, extrapolated seconds, worst ratio, sampled?, switches, ratio)."""
    facts = read_design(design)
    ids = facts._index.device_ids
    rank = facts._rank
    switches = np.flatnonzero(rank > 0)
    full = facts.report.bisection.full_gbps
    by_tier: dict[int, list[int]] = {}
    for s in switches.tolist():
        by_tier.setdefault(int(rank[s]), []).append(s)
    picked: list[int] = []
    sampled = len(switches) > sample
    for members in by_tier.values():
        k = len(members)
        if sampled:
            k = max(1, sample * len(members) // len(switches))
        step = max(1, len(members) // k)
        picked += members[::step][:k]
    t0 = time.perf_counter()
    worst = float("inf")
    per_tier_time: dict[int, list[float]] = {}
    for s in picked:
        t = time.perf_counter()
        b = analyze(without(design, ids[s])).bisection
        per_tier_time.setdefault(int(rank[s]), []).append(time.perf_counter() - t)
        worst = min(worst, b.upper_gbps)
    spent = time.perf_counter() - t0
    total = sum(statistics.mean(per_tier_time[r]) * len(m) for r, m in by_tier.items())
    return spent, total, sampled, len(switches), worst / full


def run(gpus: int, sample: int) -> dict[str, str]:
    """One row of the table."""
    nodes = -(-gpus // 8)
    design = fat_tree("dgx-h100", nodes, "qm9700")
    over = Workload(model="llama3-70b")
    t = time.perf_counter()
    facts = read_design(design)
    t_read = time.perf_counter() - t
    t = time.perf_counter()
    n1 = facts.n_minus_1()
    t_n1 = time.perf_counter() - t
    t = time.perf_counter()
    est = estimate(design, overrides=over)
    t_all = time.perf_counter() - t
    spent, total, sampled, switches, ratio = naive(design, sample)
    mark = "~" if sampled else ""
    agree = abs(ratio - (n1.ratio_after or 0.0)) < 1e-9
    tiers = ", ".join(
        f"{t} {'=' if f.exact else '<='}{f.ratio:.4f}" for t, f in n1.by_tier.items()
    )
    del est
    return {
        "GPUs": f"{gpus:,}",
        "switches": f"{switches:,}",
        "read": f"{t_read:.2f}",
        "N-1 search": f"{t_n1:.2f}",
        "analysed": f"{n1.evaluated}",
        "estimate (all)": f"{t_all:.2f}",
        "naive N-1": f"{mark}{total:,.1f}" + (f" ({spent:.1f} run)" if sampled else ""),
        "speed-up": f"{mark}{total / max(t_n1, 1e-9):,.0f}x",
        "worst ratio": f"{n1.ratio_after:.4f} ({'exact' if n1.exact else 'bound'})",
        "naive agrees": ("yes" if agree else "no") + (" (sample)" if sampled else ""),
        "per tier": tiers,
    }


def main() -> None:
    """Print the table."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="1000,100000")
    ap.add_argument("--naive", type=int, default=64, help="naive analyses at most")
    args = ap.parse_args()
    rows = [run(int(s), args.naive) for s in args.sizes.split(",")]
    keys = list(rows[0])
    width = {k: max(len(k), *(len(r[k]) for r in rows)) for k in keys}
    print(" | ".join(k.ljust(width[k]) for k in keys))
    print("-|-".join("-" * width[k] for k in keys))
    for r in rows:
        print(" | ".join(r[k].ljust(width[k]) for k in keys))
    print(
        "\nseconds; '~': the naive N-1 analysed a sample of the switches (spread over "
        "the tiers) and is extrapolated per tier from their mean time; 'naive "
        "agrees': the naive worst ratio (of the switches it analysed) equals the "
        "estimate's. tier names: " + ", ".join(tier_name(r) for r in (1, 2, 3))
    )


if __name__ == "__main__":
    main()
