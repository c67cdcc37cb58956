"""``cluster-designer compare A.json B.json [C.json ...] [options]``: the same
workload on several designs, side by side (docs/estimate-json.md, "compare").

Workload options are those of ``estimate`` and apply to every design on top of
its own ``workload`` block. ``--variant KEY`` adds the first design with its
fabric changed (``leaf-2:1``, ``half-spines``, ...). Exit codes: 0 compared,
2 a file, an option or a workload block cannot be used.
"""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from designer.cli.estimate_cmd import add_workload_options, overrides

EXIT_OK, EXIT_INPUT = 0, 2
PROG = "cluster-designer compare"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``compare`` command to the CLI's sub-commands."""
    from designer.workload.variants import VARIANTS

    cmp = sub.add_parser(
        "compare",
        help="the same workload on several designs, side by side",
        description="Compare designs side by side: GPUs, bisection, "
        "oversubscription, cost, power, MFU, tokens/s, days, $ per run and TCO "
        "of the same workload (the estimate's options apply to every design).",
    )
    cmp.add_argument("files", nargs="+", metavar="DESIGN", help="design files (.json)")
    cmp.add_argument(
        "--variant",
        action="append",
        default=[],
        choices=[v.key for v in VARIANTS],
        metavar="KEY",
        help="also compare the first design with its fabric changed: "
        + "; ".join(f"{v.key}: {v.label.lower()}" for v in VARIANTS),
    )
    add_workload_options(cmp)
    cmp.add_argument("--json", action="store_true", help="print the JSON object")
    cmp.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Compare and print; return the exit code."""
    from designer.io import DesignFileError, load_design
    from designer.io.export._common import strict_json
    from designer.workload import EstimateInputError
    from designer.workload.compare import column, comparison, headers
    from designer.workload.compare_rows import format_comparison
    from designer.workload.variants import VARIANTS, VariantError, apply_variant

    try:
        over = overrides(args)
    except ValueError as exc:
        err.write(f"{PROG}: {exc}\n")
        return EXIT_INPUT
    files: list[str] = list(args.files)
    if len(files) + len(args.variant) < 2:
        err.write(
            f"{PROG}: one design given ({files[0]}); expected two or more files, "
            "or --variant KEY to compare it with a changed fabric\n"
        )
        return EXIT_INPUT
    designs = []
    bad: list[str] = []
    for path in files:
        try:
            designs.append((path, load_design(path)))
        except DesignFileError as exc:
            bad.extend(str(exc).splitlines())
    if bad:
        err.writelines(f"{PROG}: {line}\n" for line in bad)
        return EXIT_INPUT
    labels = {v.key: v.label.lower() for v in VARIANTS}
    changes: list[tuple[str, str]] = []
    first, base = designs[0]
    for key in dict.fromkeys(args.variant):
        try:
            changed, what = apply_variant(base, key)
        except VariantError as exc:
            err.write(f"{PROG}: {first}: {exc}\n")
            return EXIT_INPUT
        label = f"{first} ({labels[key]})"
        designs.append((label, changed))
        changes.append((label, what))
    given = bool(over.model_dump(exclude_none=True))
    cols = []
    for label, design in designs:
        try:
            cols.append(column(label, design, overrides=over, origin="command line"))
        except EstimateInputError as exc:
            where = "the design's workload block or the options"
            err.write(f"{PROG}: {label}: {exc} ({where})\n")
            return EXIT_INPUT
    comp = comparison(cols, options_given=given)
    short = dict(zip((c.file for c in cols), headers(cols), strict=True))
    comp.notes[:0] = [f"{short[label]}: {what}." for label, what in changes]
    if args.json:
        data, replaced = strict_json(comp.model_dump(mode="json"))
        for place in replaced:
            err.write(
                f"{PROG}: warning: {place}: not a finite number, written as null\n"
            )
        json.dump(data, out, indent=2, allow_nan=False)
        out.write("\n")
    else:
        out.write(format_comparison(comp) + "\n")
    return EXIT_OK
