"""``cluster-designer import-netbox FILE_OR_DIR [-o DIR]``: NetBox device types in;
``cluster-designer import-netbox --site NAME DIR_OR_URL [-o DESIGN.json]``: a
design rebuilt from a NetBox site (:mod:`designer.io.netbox_site`,
:mod:`designer.io.netbox_rebuild`).

Each ``.yaml``/``.yml`` file (one, or every one under a folder) becomes a
catalog entry ``DIR/<category>/<slug>.yaml`` with an ``x-designer`` block
filled where it can be inferred (:mod:`designer.catalog.netbox_import`); the
command lists per file what was guessed, what the analysis still needs and
what the NetBox file lacks. A file may hold several types (NetBox's Export >
YAML joins them with ``---``). Exit codes: 0 every file imported, 2 a file or
folder cannot be read or is not a NetBox device type (the others are written).

With ``--site``, the source is a folder of NetBox's exports of the site
(devices, racks, locations, cables as CSV or the REST API's JSON) or the URL
of a NetBox (``--token``, else ``CLUSTER_DESIGNER_NETBOX_TOKEN``); the design
is written to ``-o`` (default ``<site>.json``). Exit 2 when the site cannot be
read or holds device types the catalog lacks (they are named).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

EXIT_OK, EXIT_INPUT = 0, 2
SUFFIXES = (".yaml", ".yml")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``import-netbox`` command."""
    p = sub.add_parser(
        "import-netbox",
        help="turn NetBox device-type files into catalog entries",
    )
    p.add_argument(
        "path",
        metavar="FILE_OR_DIR",
        help=".yaml/.yml file or a folder (with --site: an export folder or a "
        "NetBox URL)",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="DIR",
        default=None,
        help="catalog folder to write into (default: imported-catalog); with "
        "--site the design file (default: <site>.json)",
    )
    p.add_argument(
        "--site",
        metavar="NAME",
        default=None,
        help="rebuild the design of this NetBox site (devices, racks, cables)",
    )
    p.add_argument(
        "--token",
        default=None,
        help="NetBox API token for a URL source (default: "
        "CLUSTER_DESIGNER_NETBOX_TOKEN)",
    )
    p.add_argument(
        "--category",
        choices=("compute", "switch", "storage", "management"),
        default=None,
        help="category of every file (default: guessed per file)",
    )
    p.add_argument(
        "--force", action="store_true", help="overwrite entries already written"
    )
    p.set_defaults(func=run)


def _files(root: Path) -> list[Path]:
    if root.is_dir():
        return sorted(
            p for p in root.rglob("*") if p.suffix in SUFFIXES and p.is_file()
        )
    return [root]


def run_site(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Rebuild a design from a NetBox site; return the exit code."""
    import os
    import time

    from designer.catalog import default_catalog
    from designer.core.formatting import plural
    from designer.io import save_design
    from designer.io.export.netbox import _slug
    from designer.io.netbox_rebuild import design_from_site
    from designer.io.netbox_site import NetboxSiteError, read_folder, read_rest

    t0 = time.perf_counter()
    source = str(args.path)
    try:
        if source.startswith(("http://", "https://")):
            token = args.token or os.environ.get("CLUSTER_DESIGNER_NETBOX_TOKEN", "")
            if not token:
                err.write(
                    "cluster-designer import-netbox: a URL needs --token (or "
                    "CLUSTER_DESIGNER_NETBOX_TOKEN)\n"
                )
                return EXIT_INPUT
            site = read_rest(source, token, args.site)
        else:
            site = read_folder(source, args.site)
        rebuilt = design_from_site(site, default_catalog())
    except NetboxSiteError as exc:
        err.write(f"cluster-designer import-netbox: {exc}\n")
        return EXIT_INPUT
    target = Path(args.output or f"{_slug(args.site, 'site')}.json")
    if target.exists() and not args.force:
        err.write(
            f"cluster-designer import-netbox: {target} exists; use --force to "
            "overwrite\n"
        )
        return EXIT_INPUT
    save_design(rebuilt.design, target)
    d = rebuilt.design
    racks = len(d.physical.racks) if d.physical else 0
    out.write(
        f"site {args.site!r}: wrote {target} ({plural(len(d.devices), 'device')}, "
        f"{plural(racks, 'rack')}, {plural(len(d.links.id), 'link')} carrying "
        f"{plural(rebuilt.lanes, 'lane')} from "
        f"{plural(rebuilt.netbox_cables, 'NetBox cable')}; "
        f"{time.perf_counter() - t0:.2f} s)\n"
    )
    if d.physical is not None:
        out.write(
            f"  row positions are not in NetBox: rows laid out "
            f"{2.4:g} m apart (lengths are estimates)\n"
        )
    for s in rebuilt.skipped:
        out.write(f"  skipped: {s}\n")
    return EXIT_OK


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Import every file; return the exit code."""
    import yaml

    if args.site:
        return run_site(args, out, err)
    args.output = args.output or "imported-catalog"
    from designer.catalog import Category, default_catalog
    from designer.catalog.netbox_import import (
        NetboxImportError,
        check_entry,
        import_device_type,
    )

    root = Path(args.path)
    if not root.exists():
        err.write(f"cluster-designer import-netbox: {root}: no such file or folder\n")
        return EXIT_INPUT
    files = _files(root)
    if root.is_file() and root.suffix not in SUFFIXES:
        err.write(
            f"cluster-designer import-netbox: {root}: expected a .yaml or .yml "
            "NetBox device-type file\n"
        )
        return EXIT_INPUT
    if not files:
        err.write(f"cluster-designer import-netbox: {root}: no .yaml or .yml files\n")
        return EXIT_INPUT
    target = Path(args.output)
    category = Category(args.category) if args.category else None
    catalog = default_catalog()
    failed = 0
    for f in files:
        try:
            docs = [
                d
                for d in yaml.safe_load_all(f.read_text(encoding="utf-8"))
                if d is not None
            ]
        except (OSError, UnicodeDecodeError) as exc:
            err.write(f"cluster-designer import-netbox: {f}: cannot read ({exc})\n")
            failed += 1
            continue
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
            problem = getattr(exc, "problem", None) or "not valid YAML"
            err.write(f"cluster-designer import-netbox: {f}: {where}{problem}\n")
            failed += 1
            continue
        if not docs:
            docs = [None]
        for n, raw in enumerate(docs, 1):
            where = f"{f} (document {n} of {len(docs)})" if len(docs) > 1 else f"{f}"
            name = f"{f.name} document {n}" if len(docs) > 1 else f.name
            if not isinstance(raw, dict):
                err.write(
                    f"cluster-designer import-netbox: {where}: expected a NetBox "
                    "device type (a mapping with manufacturer, model, slug, "
                    "u_height, ...)\n"
                )
                failed += 1
                continue
            try:
                result = import_device_type(
                    raw, name, catalog=catalog, category=category
                )
            except NetboxImportError as exc:
                err.write(f"cluster-designer import-netbox: {f.parent / str(exc)}\n")
                failed += 1
                continue
            dest = target / result.path
            if dest.exists() and not args.force:
                err.write(
                    f"cluster-designer import-netbox: {dest} exists; use --force "
                    "to overwrite\n"
                )
                failed += 1
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(result.text(), encoding="utf-8")
            problem = check_entry(result)
            state = "loads" if problem is None else f"does not load yet ({problem})"
            out.write(f"{where}: wrote {dest} ({result.category.value}; {state})\n")
            for title, items in (
                ("read", result.cleaned),
                ("still needed", result.needs),
                ("the NetBox file lacks", result.gaps),
                ("guessed", result.guessed),
            ):
                for item in items:
                    out.write(f"  {title}: {item}\n")
    return EXIT_INPUT if failed else EXIT_OK
