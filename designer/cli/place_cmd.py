"""``cluster-designer place DESIGN -o OUT [options]``: racks, rows and a data hall.

Places every device the way NVIDIA's reference architectures do (see
:mod:`designer.physical.place`) and writes the placed design. Exit codes: 0
written, 2 the input or an option cannot be used, or the output not written.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from designer.cli.argtypes import positive_float, positive_int
from designer.core.formatting import plural
from designer.core.physical import STANDARD_RACK_TYPES, Cooling

EXIT_OK, EXIT_INPUT = 0, 2

_AIR_TYPES = [t.id for t in STANDARD_RACK_TYPES if t.cooling is not Cooling.LIQUID]


def add_placement_options(parser: argparse.ArgumentParser) -> None:
    """The placement options (shared by ``place`` and ``generate``)."""
    g = parser.add_argument_group("placement")
    g.add_argument(
        "--per-rack",
        type=positive_int,
        metavar="N",
        help="servers per compute rack (default: 4 for 8-GPU servers, else what "
        "U and power allow)",
    )
    g.add_argument("--rack-type", choices=_AIR_TYPES, default="rack-48u")
    g.add_argument("--network-rack-type", choices=_AIR_TYPES, default="rack-48u")
    g.add_argument("--racks-per-row", type=positive_int, default=16, metavar="N")
    g.add_argument(
        "--max-cooling",
        choices=("air", "containment"),
        default="containment",
        help="best cooling class an air-cooled rack may get (default containment)",
    )
    g.add_argument("--air-kw", type=positive_float, metavar="KW", help="default 30")
    g.add_argument(
        "--containment-kw", type=positive_float, metavar="KW", help="default 60"
    )
    g.add_argument("--liquid-kw", type=positive_float, metavar="KW", help="default 142")
    g.add_argument("--pue", type=positive_float, metavar="X", help="default 1.3")
    g.add_argument(
        "--slack-m", type=positive_float, metavar="M", help="per cable (default 1.0)"
    )
    g.add_argument(
        "--hall-budget-kw",
        type=positive_float,
        metavar="KW",
        help="IT power of the hall",
    )


def options_from(args: argparse.Namespace) -> Any:
    """:class:`~designer.physical.PlaceOptions` from parsed arguments."""
    from pydantic import ValidationError

    from designer.core.physical import Facility
    from designer.physical import PlaceOptions

    names = {
        "air_kw": "air_kw",
        "containment_kw": "containment_kw",
        "liquid_kw": "liquid_kw",
        "pue": "pue",
        "slack_m": "slack_m",
    }
    given = {k: getattr(args, a) for k, a in names.items() if getattr(args, a, None)}
    try:
        facility = Facility(**given)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        name = str(first["loc"][0]) if first["loc"] else "?"
        raise ValueError(f"--{name.replace('_', '-')}: {first['msg']}") from None
    return PlaceOptions(
        per_rack=args.per_rack,
        rack_type=args.rack_type,
        network_rack_type=args.network_rack_type,
        racks_per_row=args.racks_per_row,
        max_cooling=Cooling(args.max_cooling),
        facility=facility,
        hall_budget_kw=args.hall_budget_kw,
    )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``place`` command to the CLI's sub-commands."""
    p = sub.add_parser("place", help="place a design into racks, rows and a data hall")
    p.add_argument("file", metavar="DESIGN", help="design file (.json)")
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT",
        help="placed design ('-': stdout)",
    )
    add_placement_options(p)
    p.set_defaults(func=run)


def summary(design: Any) -> str:
    """One line: racks, rows, hall, the hottest rack and the longest cable."""
    from designer.analysis import analyze

    ph = analyze(design).physical
    cool = ph.racks_by_cooling
    longest = (
        f"{ph.longest_cable_m:,.1f} m" if ph.longest_cable_m is not None else "unknown"
    )
    return (
        f"{plural(ph.racks, 'rack')} in {plural(ph.rows, 'row')} ({cool.air} air, "
        f"{cool.containment} containment, {cool.liquid} liquid), "
        f"{ph.floor_m2 or 0:,.0f} m² of hall, hottest rack "
        f"{ph.max_rack_kw or 0:,.1f} kW, longest cable {longest}"
    )


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Place and write; return the exit code."""
    from designer.io import dumps_design, load_design, save_design
    from designer.physical import PlacementError, place

    try:
        opts = options_from(args)
        opts.check()
    except (ValueError, PlacementError) as exc:
        err.write(f"cluster-designer place: {exc}\n")
        return EXIT_INPUT
    design = load_design(args.file)  # DesignFileError: reported by main
    placed = place(design, options=opts)
    if args.output == "-":
        out.write(dumps_design(placed))
        return EXIT_OK
    try:
        save_design(placed, args.output)
    except OSError as exc:
        err.write(
            f"cluster-designer place: {args.output}: cannot write "
            f"({exc.strerror or exc})\n"
        )
        return EXIT_INPUT
    out.write(f"wrote {args.output}: {summary(placed)}\n")
    return EXIT_OK
