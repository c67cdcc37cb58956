"""Export benchmark: PDF, SVG, PNG, BOM, cabling and Slurm of the 100K-GPU design.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_export.py``
(``--nodes 12500`` picks the node count; ``--no-naive`` skips the baselines).
The design is ``designer.generate.fat_tree("dgx-h100", N, "qm9700")``. Naive
baselines, in the same run: the cabling plan written row by row from per-link
pydantic ``Link`` objects with a ``csv.DictWriter`` and port names worked out per
cable; the PDF/SVG drawing made of one rectangle per device and one line per link
(no scene, no quotient, no bundling). Targets (issue 4): PDF <= 10 s with
progress shown, CSVs <= 3 s.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QLineF, QRectF, QSize
from PySide6.QtGui import QPainter, QPdfWriter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QApplication

from designer.analysis import analyze
from designer.catalog import default_catalog
from designer.core.model import Design
from designer.generate import fat_tree
from designer.io.export import (
    CABLING_COLUMNS,
    write_bom_csv,
    write_cabling_csv,
    write_slurm_topology,
)
from designer.qt.export import make_renderer, write_pdf, write_png, write_svg


def _timed(fn: Callable[[], object]) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def naive_cabling(design: Design, path: Path) -> int:
    """Row by row from per-link pydantic objects, catalog lookups per cable."""
    catalog = default_catalog()
    devices = {d.id: d for d in design.devices}
    used: dict[tuple[str, str], int] = {}
    n = 0
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=CABLING_COLUMNS)
        w.writeheader()
        for link in design.links:
            for _ in range(link.cables):
                row: dict[str, object] = {}
                for end, dev_id, group in (
                    ("from", link.a, link.a_port),
                    ("to", link.b, link.b_port),
                ):
                    dev = devices[dev_id]
                    iface = catalog[dev.catalog_id].interface(group)
                    k = used.get((dev_id, group), 0)
                    used[(dev_id, group)] = k + 1
                    per = iface.ports_per_cage if iface else 1
                    row[f"{end}_device"] = dev_id
                    row[f"{end}_label"] = dev.label
                    row[f"{end}_port_group"] = group
                    row[f"{end}_port"] = f"osfp{k // per + 1}/{k % per + 1}"
                    row[f"{end}_transceiver"] = (
                        (iface.transceiver or "") if iface else ""
                    )
                n += 1
                row.update(
                    cable=n,
                    link=link.id,
                    cable_type="",
                    cable_id="",
                    speed_gbps=link.speed_gbps,
                    fabric=link.fabric.value,
                    rail="" if link.rail is None else link.rail,
                )
                w.writerow(row)
    return n


def naive_drawing(design: Design, painter: QPainter, target: QRectF) -> None:
    """One rectangle per device and one line per link, drawn one call at a time."""
    xs = [d.x for d in design.devices]
    ys = [d.y for d in design.devices]
    x0, y0 = min(xs) - 40, min(ys) - 40
    sx = target.width() / (max(xs) - x0 + 40)
    sy = target.height() / (max(ys) - y0 + 40)
    s = min(sx, sy)
    pos = {
        d.id: (target.x() + (d.x - x0) * s, target.y() + (d.y - y0) * s)
        for d in design.devices
    }
    for link in design.links:
        (ax, ay), (bx, by) = pos[link.a], pos[link.b]
        painter.drawLine(QLineF(ax, ay, bx, by))
    for d in design.devices:
        x, y = pos[d.id]
        painter.drawRect(QRectF(x - 32 * s, y - 16 * s, 64 * s, 32 * s))
        painter.drawText(QRectF(x - 32 * s, y - 16 * s, 64 * s, 32 * s), 0, d.label)


def naive_pdf(design: Design, path: Path) -> None:
    """A one-page PDF of the naive drawing."""
    writer = QPdfWriter(str(path))
    p = QPainter(writer)
    naive_drawing(design, p, QRectF(0, 0, writer.width(), writer.height()))
    p.end()


def naive_svg(design: Design, path: Path) -> None:
    """An SVG of the naive drawing."""
    gen = QSvgGenerator()
    gen.setFileName(str(path))
    gen.setSize(QSize(2400, 800))
    p = QPainter(gen)
    naive_drawing(design, p, QRectF(0, 0, 2400, 800))
    p.end()


def main() -> int:
    """Run the benchmark and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=12500)
    ap.add_argument("--no-naive", action="store_true")
    args = ap.parse_args()
    QApplication.instance() or QApplication([])
    t_gen, design = _timed(lambda: fat_tree("dgx-h100", args.nodes, "qm9700"))
    assert isinstance(design, Design)
    t_an, report = _timed(lambda: analyze(design))
    cables = sum(design.links.cables)
    print(
        f"design: {len(design.devices):,} devices, {len(design.links):,} links, "
        f"{cables:,} cables (generate {t_gen:.2f} s, analyze {t_an:.2f} s)"
    )
    out = Path(tempfile.mkdtemp(prefix="bench-export-"))
    calls: list[tuple[int, int]] = []

    def progress(done: int, total: int) -> bool:
        calls.append((done, total))
        return True

    t_scene, scene = _timed(lambda: make_renderer(design))
    rows: list[tuple[str, float, float | None, str, str]] = []

    def size(p: Path) -> str:
        return f"{p.stat().st_size / 1e6:.1f} MB"

    t, _ = _timed(lambda: write_bom_csv(report, out / "bom.csv"))  # type: ignore[arg-type]
    rows.append(("BOM CSV", t, None, "<= 3 s", size(out / "bom.csv")))
    t, _ = _timed(lambda: write_cabling_csv(design, out / "cabling.csv"))
    naive = None
    if not args.no_naive:
        naive, n = _timed(lambda: naive_cabling(design, out / "cabling-naive.csv"))
        assert n == cables
    rows.append(("cabling CSV", t, naive, "<= 3 s", size(out / "cabling.csv")))
    t, _ = _timed(lambda: write_slurm_topology(design, out / "topology.conf"))
    rows.append(("Slurm topology.conf", t, None, "-", size(out / "topology.conf")))
    t, _ = _timed(
        lambda: write_pdf(
            out / "r.pdf", design, report, renderer=scene, progress=progress
        )  # type: ignore[arg-type]
    )
    naive = (
        None if args.no_naive else _timed(lambda: naive_pdf(design, out / "n.pdf"))[0]
    )
    rows.append(("PDF report", t, naive, "<= 10 s", size(out / "r.pdf")))
    t, _ = _timed(lambda: write_svg(out / "d.svg", design, renderer=scene))
    naive = (
        None if args.no_naive else _timed(lambda: naive_svg(design, out / "n.svg"))[0]
    )
    rows.append(("SVG drawing", t, naive, "-", size(out / "d.svg")))
    t, _ = _timed(lambda: write_png(out / "d.png", design, renderer=scene))
    rows.append(("PNG drawing", t, None, "-", size(out / "d.png")))

    print(f"canvas scene built once for the drawings: {t_scene:.2f} s")
    print(f"PDF progress callbacks: {len(calls)} (last {calls[-1] if calls else None})")
    print()
    print("| export | ours (s) | naive (s) | target | output |")
    print("|---|---:|---:|---|---:|")
    for name, ours, base, target, sz in rows:
        b = "-" if base is None else f"{base:.2f}"
        print(f"| {name} | {ours:.2f} | {b} | {target} | {sz} |")
    print(f"\noutputs in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
