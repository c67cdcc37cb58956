"""``cluster-designer verify DESIGN DISCOVERED [--json] [--csv OUT]``: a live
(or simulated) InfiniBand fabric against the design.

DISCOVERED is ``ibnetdiscover`` output. Devices are matched by NodeDescription
and port number (:mod:`designer.io.asbuilt`); the punch list names both ends
of every difference by device, port, rack and U. Exit codes: 0 the fabric
matches, 1 it does not, 2 a file cannot be used (the message names the file,
the line and what was expected).

Also the InfiniBand exports of ``cluster-designer export`` (``--ibnetdiscover``,
``--opensm``): :func:`export_ib`.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import TextIO

EXIT_OK, EXIT_MISMATCH, EXIT_INPUT = 0, 1, 2
PROG = "cluster-designer verify"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``verify`` command to the CLI's sub-commands."""
    ver = sub.add_parser(
        "verify",
        help="check a discovered InfiniBand fabric (ibnetdiscover output) "
        "against the design; exit 1 on differences",
        description="Compare ibnetdiscover output of a live or simulated fabric "
        "with the design: missing, unexpected and swapped cables, links below "
        "the designed width or speed, unknown devices and devices not seen, "
        "each named by device, port, rack and U. Devices are matched by "
        "NodeDescription and port number, not GUID.",
    )
    ver.add_argument("design", metavar="DESIGN", help="design file (.json)")
    ver.add_argument(
        "discovered", metavar="DISCOVERED", help="ibnetdiscover output (text)"
    )
    ver.add_argument("--json", action="store_true", help="print the JSON object")
    ver.add_argument("--csv", metavar="OUT", help="also write the punch list as CSV")
    ver.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Verify and print; return the exit code."""
    from designer.io import DesignFileError, load_design
    from designer.io.asbuilt import punch_list_csv, verify_fabric
    from designer.io.ibdiscovered import DiscoveredFileError, read_ibnetdiscover

    try:
        design = load_design(args.design)
    except DesignFileError as exc:
        err.write(f"{PROG}: {exc}\n")
        return EXIT_INPUT
    try:
        found = read_ibnetdiscover(args.discovered)
    except DiscoveredFileError as exc:
        err.write(f"{PROG}: {exc}\n")
        return EXIT_INPUT
    report = verify_fabric(design, found)
    if not report.fabrics:
        err.write(f"{PROG}: {args.design}: the design has no InfiniBand fabric\n")
        return EXIT_INPUT
    if args.csv:
        try:
            with open(args.csv, "w", encoding="utf-8", newline="") as fh:
                fh.write(punch_list_csv(report))
        except OSError as exc:
            err.write(f"{PROG}: cannot write {args.csv}: {exc.strerror}\n")
            return EXIT_INPUT
    if args.json:
        out.write(json.dumps(report.as_dict(), indent=2) + "\n")
    else:
        out.write(report.text())
    return EXIT_OK if report.ok else EXIT_MISMATCH


def export_ib(
    design: object,
    topo: str | None,
    opensm: str | None,
    done: Callable[[str, str, float, str], None],
) -> None:
    """Write ``--ibnetdiscover`` and ``--opensm``; ValueError: no InfiniBand."""
    from designer.core.model import Design
    from designer.io.export.ib_fabric import some_ib_fabrics
    from designer.io.export.ibnetdiscover import write_ibnetdiscover
    from designer.io.export.opensm import write_opensm_files

    assert isinstance(design, Design)
    t0 = time.perf_counter()
    fabrics = some_ib_fabrics(design)  # once for both exports
    if topo:
        written = write_ibnetdiscover(design, topo, fabrics=fabrics)
        for path, fab in written:
            what = (
                f"fabric {fab.name}: {len(fab.switches):,} switches, "
                f"{len(fab.cas):,} HCA ports, {len(fab.links):,} cables"
            )
            if fab.skipped:
                what += f"; {len(fab.skipped):,} cables without a port left out"
            done("ibnetdiscover", str(path), t0, what)
    if opensm:
        t0 = time.perf_counter() if topo else t0
        for fab, paths in write_opensm_files(design, opensm, fabrics=fabrics):
            what = (
                f"fabric {fab.name}: {len(fab.roots):,} root switches, "
                f"{sum(1 for n in fab.cas if n.role == 'compute'):,} compute and "
                f"{sum(1 for n in fab.cas if n.role == 'io'):,} I/O ports, "
                f"{len(paths)} files"
            )
            done("opensm", opensm, t0, what)
