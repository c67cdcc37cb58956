"""Helpers shared by the pure exporters: catalog lookup and output targets."""

from __future__ import annotations

import contextlib
import io
import math
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, TextIO

from designer.catalog.schema import CatalogEntry

Catalog = Mapping[str, CatalogEntry]
Target = str | os.PathLike[str] | TextIO


class ExportCancelled(Exception):
    """The user cancelled a long export; partial output was discarded."""


def resolve_catalog(catalog: Catalog | None) -> Catalog:
    """The given catalog, or the shipped one."""
    if catalog is not None:
        return catalog
    from designer.catalog.loader import default_catalog

    return default_catalog()


@contextlib.contextmanager
def open_text(target: Target) -> Iterator[TextIO]:
    """Yield a text stream for a path (written atomically) or pass a stream through."""
    if isinstance(target, io.TextIOBase) or hasattr(target, "write"):
        yield target  # type: ignore[misc]
        return
    assert isinstance(target, str | os.PathLike)
    path = Path(target)
    tmp = path.with_name(path.name + ".part")
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            yield fh
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def strict_json(value: Any, place: str = "") -> tuple[Any, list[str]]:
    """``value`` (parsed JSON) with every NaN or infinity replaced by null, and
    the places replaced: strict JSON has no such numbers, and a reader that
    meets ``Infinity`` fails on the whole document."""
    replaced: list[str] = []

    def clean(item: Any, where: str) -> Any:
        if isinstance(item, float) and not math.isfinite(item):
            replaced.append(where or "(top level)")
            return None
        if isinstance(item, dict):
            return {
                k: clean(v, f"{where}.{k}" if where else str(k))
                for k, v in item.items()
            }
        if isinstance(item, list | tuple):
            return [clean(v, f"{where}[{i}]") for i, v in enumerate(item)]
        return item

    return clean(value, place), replaced


def csv_number(value: float, decimals: int = 2) -> str:
    """A number for a CSV cell; ValueError for NaN or an infinity (never written)."""
    if not math.isfinite(value):
        raise ValueError(f"{value} is not a finite number; refusing to write it")
    return f"{value:.{decimals}f}"
