"""Benchmark of the cut the bound ledger carries from one state to the next.

Plain script, not part of the test run::

    .venv/bin/python bench/bench_carried.py [--sizes 1024,4096] [--edits 6]

A user edits, pauses, edits again: between two edits the GUI's refinement runs
to its end (or to the runner's deadline, ``REFINE_SECONDS``). For a perturbed
fat tree (``tests.analysis.builders.perturbed_fat_tree``: uplinks removed,
cables changed, extra links; hand-drawn designs are uneven like it) this
times the worker's first report of each edit (``_analyse``, with the reuse
and the ledger of the GUI's worker) and the refinement after it, for two edit
kinds: one cable more on a compute link, and a leaf's uplink deleted. The
naive baseline in the same run is the same path with a ledger that carries
the lower bounds but offers no cut (what the worker did before). Medians;
"exact" counts the first reports that were exact.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from designer.analysis.ledger import BoundLedger
from designer.analysis.reuse import Reuse
from designer.core.document import Document
from designer.core.link_commands import RemoveLinks, UpdateLink
from designer.core.snapshot import snapshot
from designer.qt.analysis_runner import REFINE_SECONDS, _analyse
from tests.analysis.builders import perturbed_fat_tree


class _NoCuts(BoundLedger):
    """The naive baseline: lower bounds carried, no cut."""

    def side_for(self, *args: Any) -> None:
        return None


class _Ticket:
    def stale(self) -> bool:
        return False


def run(gpus: int, kind: str, ledger: BoundLedger, edits: int) -> dict[str, float]:
    """First-report milliseconds, refinement seconds and exact firsts."""
    doc = Document(perturbed_fat_tree(gpus, 0))
    reuse = Reuse()

    def analyse() -> tuple[float, float, bool]:
        design, links = snapshot(doc.design)
        start = time.perf_counter()
        done = _analyse(design, links, ledger, reuse, None, False, _Ticket())
        first = time.perf_counter() - start
        start = time.perf_counter()
        if done.stages is not None:  # what the refinement thread does
            for report in done.stages:
                ledger.record(float(report.bisection.lower_gbps), done.index)
        return first * 1000, time.perf_counter() - start, done.report.bisection.exact

    analyse()
    links = doc.design.links
    leaf = [i for i, a in zip(links.id, links.a, strict=True) if a.startswith("leaf")]
    out = []
    for k in range(edits):
        if kind == "cable":
            link = links.get(links.id[k * 37 % len(links)])
            assert link is not None
            doc.execute(UpdateLink(link.id, {"cables": link.cables + 1}))
        else:
            doc.execute(RemoveLinks([leaf[k * 7 % len(leaf)]]))
        out.append(analyse())
    return {
        "first": statistics.median(x[0] for x in out),
        "refine": statistics.median(x[1] for x in out),
        "exact": sum(x[2] for x in out),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1024", help="GPUs, comma-separated")
    parser.add_argument("--edits", type=int, default=6)
    args = parser.parse_args()
    print(f"refinement deadline {REFINE_SECONDS:g} s per edit")
    print(
        "| GPUs | edit | first report | naive | x | refinement | naive "
        "| exact at first | naive |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for gpus in (int(x) for x in args.sizes.split(",")):
        for kind in ("cable", "delete"):
            ours = run(gpus, kind, BoundLedger(), args.edits)
            naive = run(gpus, kind, _NoCuts(), args.edits)
            print(
                f"| {gpus:,} | {kind} | {ours['first']:.1f} ms "
                f"| {naive['first']:.1f} ms "
                f"| {naive['first'] / ours['first']:.1f}x | {ours['refine']:.2f} s "
                f"| {naive['refine']:.2f} s | {ours['exact']:.0f}/{args.edits} "
                f"| {naive['exact']:.0f}/{args.edits} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
