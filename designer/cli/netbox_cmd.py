"""``cluster-designer import-netbox FILE_OR_DIR [-o DIR]``: NetBox device types in.

Each ``.yaml``/``.yml`` file (one, or every one under a folder) becomes a
catalog entry ``DIR/<category>/<slug>.yaml`` with an ``x-designer`` block
filled where it can be inferred (:mod:`designer.catalog.netbox_import`); the
command lists per file what was guessed, what the analysis still needs and
what the NetBox file lacks. Exit codes: 0 every file imported, 2 a file or
folder cannot be read or is not a NetBox device type (the others are written).
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
    p.add_argument("path", metavar="FILE_OR_DIR", help=".yaml/.yml file or a folder")
    p.add_argument(
        "-o",
        "--output",
        metavar="DIR",
        default="imported-catalog",
        help="catalog folder to write into (default: imported-catalog)",
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


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Import every file; return the exit code."""
    import yaml

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
