"""``cluster-designer export FILE [--pdf OUT] [--svg OUT] [--png OUT] [--bom OUT]
[--cabling OUT] [--slurm DIR|FILE.conf] [--netbox DIR] [--ibnetdiscover FILE]
[--opensm DIR] [--page-size A4|Letter]``.

CSV and Slurm exports are pure; Qt is imported (offscreen) only for PDF/SVG/PNG.
Exit codes: 0 written, 2 the input cannot be used or an output cannot be written.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import TextIO

from designer.core.formatting import plural
from designer.view.pages.paper import PAGE_SIZES, paper_from_environ

EXIT_OK, EXIT_INPUT = 0, 2
OUTPUTS = (
    "pdf",
    "svg",
    "png",
    "bom",
    "cabling",
    "slurm",
    "netbox",
    "ibnetdiscover",
    "opensm",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the export options on ``parser``."""
    parser.add_argument("file", metavar="FILE", help="design file (.json)")
    parser.add_argument("--pdf", metavar="OUT", help="PDF report")
    parser.add_argument("--svg", metavar="OUT", help="SVG drawing of the canvas")
    parser.add_argument("--png", metavar="OUT", help="PNG drawing of the canvas")
    parser.add_argument("--bom", metavar="OUT", help="bill of materials CSV")
    parser.add_argument("--cabling", metavar="OUT", help="cabling plan CSV")
    parser.add_argument(
        "--slurm",
        metavar="DIR",
        help="Slurm folder: topology.conf (tree), topology-block.conf (NVLink "
        "blocks, Slurm 23.11+), topology.yaml (25.05+), nodes.conf (NodeName "
        "lines) and gres.conf; a path ending in .conf writes the tree file alone",
    )
    parser.add_argument(
        "--netbox",
        metavar="DIR",
        help="NetBox import folder (manufacturers, roles, device types, site, "
        "racks, devices, cables; README.md gives the order)",
    )
    parser.add_argument(
        "--ibnetdiscover",
        metavar="FILE",
        help="InfiniBand topology in the ibnetdiscover format (ibsim reads it): "
        "the first fabric at FILE, another (storage) at FILE-<fabric>",
    )
    parser.add_argument(
        "--opensm",
        metavar="DIR",
        help="OpenSM files per InfiniBand fabric: root GUIDs (top tier), compute "
        "and I/O node GUIDs, GUID map, opensm.conf for ftree routing",
    )
    parser.add_argument(
        "--page-size",
        choices=PAGE_SIZES,
        default=None,
        help="PDF page size (default: the locale's paper from LC_ALL, LC_PAPER or "
        "LANG: Letter in the US, Canada, Mexico and other CLDR US-Letter "
        "territories, A4 elsewhere)",
    )
    parser.add_argument(
        "--only",
        metavar="IDS",
        help="draw only these comma-separated device ids (PDF/SVG/PNG)",
    )


def run(
    args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Write every requested export; return the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    wanted = {k: getattr(args, k, None) for k in OUTPUTS}
    if not any(wanted.values()):
        err.write(
            "cluster-designer export: nothing to export; give at least one of "
            "--pdf, --svg, --png, --bom, --cabling, --slurm, --netbox, "
            "--ibnetdiscover, --opensm\n"
        )
        return EXIT_INPUT
    from designer.io import DesignFileError, load_design

    try:
        design = load_design(args.file)
    except DesignFileError as exc:
        err.write(f"cluster-designer: {exc}\n")
        return EXIT_INPUT
    ids: set[str] | None = None
    if getattr(args, "only", None):
        ids = {s.strip() for s in args.only.split(",") if s.strip()}
        unknown = sorted(ids - {d.id for d in design.devices})
        if unknown:
            err.write(
                f"cluster-designer export: --only names unknown devices: "
                f"{', '.join(unknown[:5])}\n"
            )
            return EXIT_INPUT
    try:
        page_size = args.page_size or paper_from_environ(os.environ)
        return _export(design, wanted, page_size, ids, out)
    except OSError as exc:
        err.write(f"cluster-designer export: cannot write: {exc}\n")
        return EXIT_INPUT
    except ValueError as exc:  # nothing of the kind to export (no InfiniBand)
        err.write(f"cluster-designer export: {exc}\n")
        return EXIT_INPUT


def _export(
    design: object,
    wanted: dict[str, str | None],
    page_size: str,
    ids: set[str] | None,
    out: TextIO,
) -> int:
    from designer.core.model import Design
    from designer.io.export import (
        write_bom_csv,
        write_cabling_csv,
        write_slurm_topology,
    )

    assert isinstance(design, Design)
    report = None
    if wanted["pdf"] or wanted["bom"]:
        from designer.analysis import analyze

        report = analyze(design)

    def done(kind: str, path: str, t0: float, what: str) -> None:
        out.write(f"{kind}: {path} ({what}, {time.perf_counter() - t0:.2f} s)\n")

    if path := wanted["bom"]:
        t0 = time.perf_counter()
        assert report is not None
        total = write_bom_csv(report, path)
        rows = plural(len(report.cost_usd.lines), "line")
        done("bom", path, t0, f"{rows}, ${total:,.0f}")
    if path := wanted["cabling"]:
        t0 = time.perf_counter()
        n = write_cabling_csv(design, path)
        lengths = (
            "" if design.physical is not None else "; lengths unknown (not placed)"
        )
        done("cabling", path, t0, f"{plural(n, 'cable')} (lanes){lengths}")
    if path := wanted["netbox"]:
        from designer.io.export.netbox import write_netbox_csvs

        t0 = time.perf_counter()
        counts = write_netbox_csvs(design, path)
        text = (
            f"{plural(counts['device-types'], 'device type')}, "
            f"{plural(counts['racks'], 'rack')}, "
            f"{plural(counts['devices'], 'device')}, "
            f"{plural(counts['cables'], 'cable')} "
            f"({plural(counts['cable_lanes'], 'lane')}, "
            f"{plural(counts['breakouts'], 'breakout')}); import order in README.md"
        )
        placed = "" if design.physical is not None else "; not placed: no racks"
        done("netbox", path, t0, text + placed)
    if wanted["ibnetdiscover"] or wanted["opensm"]:
        from designer.cli.verify_cmd import export_ib

        export_ib(design, wanted["ibnetdiscover"], wanted["opensm"], done)
    if path := wanted["slurm"]:
        t0 = time.perf_counter()
        if path.lower().endswith(".conf"):
            text = write_slurm_topology(design, path)
            lines = text.splitlines()
            listed = sum(1 for line in lines if line.startswith("SwitchName="))
            done("slurm", path, t0, f"{listed:,} tree switches")
        else:
            from designer.io.export.slurm_files import write_slurm_folder

            folder = write_slurm_folder(design, path)
            what = [
                plural(folder.hosts, "host"),
                plural(folder.tree_switches, "tree switch"),
            ]
            if folder.blocks:
                sizes = ",".join(str(s) for s in folder.block_sizes)
                what.append(f"{plural(folder.blocks, 'NVLink block')} ({sizes})")
            done("slurm", path, t0, ", ".join(what) + f"; {len(folder.files)} files")
    if wanted["pdf"] or wanted["svg"] or wanted["png"]:
        from designer.qt.export import (
            ensure_app,
            make_renderer,
            write_pdf,
            write_png,
            write_svg,
        )

        ensure_app()
        renderer = make_renderer(design)
        if path := wanted["pdf"]:
            t0 = time.perf_counter()
            assert report is not None
            write_pdf(
                path, design, report, page_size=page_size, renderer=renderer, ids=ids
            )
            done("pdf", path, t0, page_size)
        if path := wanted["svg"]:
            t0 = time.perf_counter()
            write_svg(path, design, renderer=renderer, ids=ids)
            done("svg", path, t0, "drawing")
        if path := wanted["png"]:
            t0 = time.perf_counter()
            write_png(path, design, renderer=renderer, ids=ids)
            done("png", path, t0, "drawing")
    return EXIT_OK
