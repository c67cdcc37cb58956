"""The ``cluster-designer`` command: generate, place, validate, estimate, schema,
export, import-netbox, gui.

Qt is imported lazily, only by the ``gui`` command (and by exports that render).
Exit codes: 0 fine, 1 the design has error findings, 2 the input cannot be used.
``--catalog DIR`` (or the ``CLUSTER_DESIGNER_CATALOG`` environment variable)
reads the hardware catalog from another folder.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from designer.catalog.loader import (
    CATALOG_ENV,
    CatalogError,
    default_catalog,
    use_catalog_dir,
)
from designer.cli.argtypes import positive_float, positive_int
from designer.core.formatting import plural
from designer.core.limits import MAX_DEVICES, MAX_LINKS
from designer.core.model import Design
from designer.io import DesignFileError, design_json_schema, dumps_design, load_design
from designer.io.export._common import strict_json
from designer.io.save import save_design

VALIDATE_REFINE_SECONDS = 2.0
"""How long ``validate`` refines the bisection bounds."""


SUPERPOD_SYSTEMS = ("dgx-h100", "dgx-h200", "dgx-b200", "gb200-nvl72")
COMMANDS = (
    "generate",
    "place",
    "validate",
    "estimate",
    "compare",
    "schema",
    "export",
    "import-netbox",
    "verify",
    "gui",
)
NO_CATALOG = ("schema",)
"""Commands that never read the hardware catalog."""

CATALOG_HELP = (
    f"read the hardware catalog from DIR instead of the shipped one (default: "
    f"${CATALOG_ENV} when set)"
)

EXIT_OK, EXIT_FINDINGS, EXIT_INPUT = 0, 1, 2


class _Failure(Exception):
    """A clear message for stderr and exit code 2."""


def _ratios(text: str) -> tuple[float, ...]:
    try:
        values = tuple(float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected ratios like 1 or 2,1 (per tier from the leaves up), got {text!r}"
        ) from None
    if any(not v >= 1.0 for v in values):
        raise argparse.ArgumentTypeError(f"each ratio must be >= 1, got {text!r}")
    return values


def _tiers(text: str) -> int | None:
    if text == "auto":
        return None
    if text in ("2", "3"):
        return int(text)
    raise argparse.ArgumentTypeError(f"expected auto, 2 or 3, got {text!r}")


def _add_output(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="FILE",
        help="design file ('-': stdout)",
    )
    parser.add_argument(
        "--place",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="place the design into racks, rows and a hall (default: yes)",
    )
    from designer.cli.place_cmd import add_placement_options

    add_placement_options(parser)


def _add_generate(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    gen = sub.add_parser("generate", help="write a generated design to a file")
    kinds = gen.add_subparsers(dest="kind", required=True, metavar="KIND")
    sp = kinds.add_parser("superpod", help="NVIDIA DGX SuperPOD preset")
    sp.add_argument("--system", required=True, choices=SUPERPOD_SYSTEMS)
    sp.add_argument("--sus", required=True, type=positive_int, metavar="N")
    _add_output(sp)
    ft = kinds.add_parser("fat-tree", help="leaf-spine(-core) fat tree")
    ft.add_argument("--compute", required=True, metavar="MODEL", help="catalog id")
    ft.add_argument("--nodes", required=True, type=positive_int, metavar="N")
    ft.add_argument("--switch", required=True, metavar="MODEL", help="catalog id")
    ft.add_argument("--su-size", type=positive_int, metavar="N", default=None)
    ft.add_argument(
        "--rail-optimized", action=argparse.BooleanOptionalAction, default=True
    )
    ft.add_argument(
        "--oversubscription",
        type=_ratios,
        default=(1.0,),
        metavar="R[,R...]",
        help="down:up ratio per tier from the leaves up (2 = 2:1 at the leaves)",
    )
    ft.add_argument("--tiers", type=_tiers, default=None, metavar="auto|2|3")
    _add_output(ft)
    ka = kinds.add_parser("k-ary", help="Al-Fares k-ary fat tree")
    ka.add_argument("--k", required=True, type=positive_int, metavar="K")
    ka.add_argument("--speed", type=positive_int, default=400, metavar="GBPS")
    _add_output(ka)
    gen.set_defaults(func=_cmd_generate)


def _add_export(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], load: bool
) -> None:
    """Register ``export``; its options come from ``designer.cli.export_cmd``."""
    help_text = "export a design (BOM, cabling, topology, drawings)"
    if load:
        try:
            export_cmd = importlib.import_module("designer.cli.export_cmd")
        except ModuleNotFoundError as exc:
            if exc.name != "designer.cli.export_cmd":
                raise
        else:
            exp = sub.add_parser("export", help=help_text)
            export_cmd.add_arguments(exp)
            run: Callable[[argparse.Namespace], int] = export_cmd.run
            exp.set_defaults(func=lambda args, out, err: int(run(args)))
            return
    exp = sub.add_parser("export", help=help_text, add_help=not load)
    exp.add_argument("rest", nargs=argparse.REMAINDER)
    exp.set_defaults(func=_cmd_export_missing)


def build_parser(*, load_export: bool = False) -> argparse.ArgumentParser:
    """The argument parser (``load_export`` imports the export options)."""
    parser = argparse.ArgumentParser(
        prog="cluster-designer",
        description="Design GPU clusters and check whether the design holds up. "
        "'cluster-designer FILE' (or no arguments) opens the editor.",
    )
    parser.add_argument("--catalog", metavar="DIR", default=None, help=CATALOG_HELP)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_generate(sub)
    val = sub.add_parser("validate", help="analyse a design; exit 1 on error findings")
    val.add_argument("file", metavar="FILE")
    val.add_argument("--json", action="store_true", help="print the JSON report")
    val.add_argument(
        "--refine-seconds",
        metavar="S",
        type=positive_float,
        default=VALIDATE_REFINE_SECONDS,
        help="refine the bisection bounds for up to S seconds before reporting; "
        "refinement stops as soon as the bounds meet "
        f"(default {VALIDATE_REFINE_SECONDS:g})",
    )
    val.set_defaults(func=_cmd_validate)
    from designer.cli import (
        compare_cmd,
        estimate_cmd,
        netbox_cmd,
        place_cmd,
        verify_cmd,
    )

    estimate_cmd.register(sub)
    compare_cmd.register(sub)
    place_cmd.register(sub)
    netbox_cmd.register(sub)
    verify_cmd.register(sub)
    sch = sub.add_parser("schema", help="print the JSON Schema of the design file")
    sch.set_defaults(func=_cmd_schema)
    _add_export(sub, load_export)
    gui = sub.add_parser("gui", help="open the desktop editor")
    gui.add_argument("file", nargs="?", metavar="FILE", default=None)
    gui.add_argument("--screenshot", metavar="OUT.png", default=None)
    gui.add_argument(
        "--size",
        metavar="WxH",
        type=_window_size,
        default=None,
        help="window size of the screenshot, e.g. 1280x800 (default 1600x1000)",
    )
    gui.set_defaults(func=_cmd_gui)
    for command in sub.choices.values():
        _add_catalog_option(command)
    return parser


def _add_catalog_option(parser: argparse.ArgumentParser) -> None:
    """``--catalog`` after the command too (and on every ``generate`` kind)."""
    if any("--catalog" in a.option_strings for a in parser._actions):
        return
    # SUPPRESS: an absent option here must not hide one given before the command
    parser.add_argument(
        "--catalog", metavar="DIR", default=argparse.SUPPRESS, help=CATALOG_HELP
    )
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _add_catalog_option(child)


def _generate(args: argparse.Namespace) -> Design:
    from designer import generate

    if args.kind == "superpod":
        return generate.superpod(args.system, args.sus)
    if args.kind == "fat-tree":
        return generate.fat_tree(
            args.compute,
            args.nodes,
            args.switch,
            su_size=args.su_size,
            rail_optimized=args.rail_optimized,
            oversubscription=args.oversubscription,
            tiers=args.tiers,
        )
    return generate.k_ary(args.k, speed_gbps=args.speed)


def _cmd_generate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        design = _generate(args)
    except (ValueError, KeyError) as exc:
        text = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        raise _Failure(f"cannot generate {args.kind}: {text}") from None
    for what, count, limit in (
        ("devices", len(design.devices), MAX_DEVICES),
        ("links", len(design.links), MAX_LINKS),
    ):
        if count > limit:
            raise _Failure(
                f"cannot generate {args.kind}: it would have {count:,} {what}, more "
                f"than the {limit:,} a design may hold; expected a smaller cluster"
            )
    if args.place:
        from designer.cli.place_cmd import options_from
        from designer.physical import place

        try:
            design = place(design, options=options_from(args))
        except ValueError as exc:
            raise _Failure(f"cannot place {args.kind}: {exc}") from None
    from designer.io.export.cables import pinned_design

    design = pinned_design(design)  # the file holds every cable's ports
    if args.output == "-":
        out.write(dumps_design(design))
        return EXIT_OK
    try:
        save_design(design, args.output)
    except OSError as exc:
        raise _Failure(f"{args.output}: cannot write ({exc.strerror or exc})") from None
    out.write(
        f"wrote {args.output}: {plural(len(design.devices), 'device')}, "
        f"{plural(len(design.links), 'link')}\n"
    )
    return EXIT_OK


def _cmd_validate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    design = load_design(args.file)
    from designer.analysis import analyze
    from designer.cli.summary import format_summary

    # the CLI can wait: bisection bounds refined (METIS, hose LPs, exact solve)
    report = analyze(design, refine_seconds=args.refine_seconds)
    if args.json:
        data = report.model_dump(mode="json")
        if design.workload is not None:  # the estimate, as `estimate --json`
            from designer.cli.estimate_cmd import workload_block

            data["workload"] = workload_block(design)
        data, replaced = strict_json(data)
        for place in replaced:
            err.write(
                f"cluster-designer: warning: report {place}: not a finite number, "
                "written as null\n"
            )
        json.dump(data, out, indent=2, allow_nan=False)
        out.write("\n")
    else:
        out.write(format_summary(report, design, args.file) + "\n")
    return EXIT_FINDINGS if report.errors() else EXIT_OK


def _cmd_schema(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    json.dump(design_json_schema(), out, indent=2)
    out.write("\n")
    return EXIT_OK


def _cmd_gui(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        from designer.qt.app import run_gui
    except ImportError as exc:
        raise _Failure(
            f"the desktop editor is not available ({exc}); the generate, validate, "
            f"schema and export commands work without it"
        ) from None
    size = getattr(args, "size", None)
    if size is None:
        return int(run_gui(args.file, args.screenshot))
    return int(run_gui(args.file, args.screenshot, size=size))


def _window_size(text: str) -> tuple[int, int]:
    """``1280x800`` as (1280, 800); a clear error otherwise."""
    w, sep, h = text.lower().partition("x")
    if sep and w.isdigit() and h.isdigit():
        width, height = int(w), int(h)
        if 320 <= width <= 8192 and 240 <= height <= 8192:
            return width, height
    raise argparse.ArgumentTypeError(
        f"expected WIDTHxHEIGHT in pixels (320-8192 x 240-8192), got {text!r}"
    )


def _cmd_export_missing(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    raise _Failure("export is not available in this build (designer.cli.export_cmd)")


def _normalise(argv: list[str]) -> list[str]:
    """``cluster-designer [--catalog DIR] [FILE]`` means ``gui [FILE]``."""
    i = 0
    while i < len(argv) and argv[i].startswith("--catalog"):
        i += 1 if "=" in argv[i] else 2
    if i >= len(argv):
        return [*argv, "gui"] if i == len(argv) else argv
    if argv[i] not in COMMANDS and not argv[i].startswith("-"):
        return [*argv[:i], "gui", *argv[i:]]
    return argv


def _use_catalog(args: argparse.Namespace) -> None:
    """Choose the catalog folder and load it now, so a broken one is reported
    before any work (and before a window opens)."""
    use_catalog_dir(getattr(args, "catalog", None))
    if args.command not in NO_CATALOG:
        default_catalog()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    args_list = _normalise(list(sys.argv[1:] if argv is None else argv))
    parser = build_parser(load_export=args_list[0] == "export")
    out, err = sys.stdout, sys.stderr
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:  # --help, or argparse's own usage error
        return exc.code if isinstance(exc.code, int) else EXIT_INPUT
    func: Callable[..., int] | None = getattr(args, "func", None)
    if func is None:
        parser.print_help(err)
        return EXIT_INPUT
    try:
        _use_catalog(args)
        return int(func(args, out, err))
    except CatalogError as exc:
        err.write(f"cluster-designer: {exc}\n")
        return EXIT_INPUT
    except DesignFileError as exc:
        err.writelines(f"cluster-designer: {line}\n" for line in str(exc).splitlines())
        return EXIT_INPUT
    except _Failure as exc:
        err.write(f"cluster-designer: {exc}\n")
        return EXIT_INPUT
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
