"""Helpers shared by the pure exporters: catalog lookup and output targets."""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TextIO

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
