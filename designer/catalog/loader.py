"""Load and validate the hardware catalog; the only module that knows its file layout."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import ValidationError

from designer.catalog.schema import CatalogEntry, Category


class CatalogError(Exception):
    """A catalog file is broken; the message names the file and the field."""


def default_catalog_dir() -> Path:
    """``resources/catalog`` beside the ``designer`` package."""
    return Path(__file__).resolve().parents[2] / "resources" / "catalog"


class Catalog(Mapping[str, CatalogEntry]):
    """All catalog entries by id (slug), in file order."""

    def __init__(self, entries: list[CatalogEntry]) -> None:
        self._entries: dict[str, CatalogEntry] = {}
        for e in entries:
            if e.slug in self._entries:
                raise CatalogError(f"duplicate catalog id {e.slug!r}")
            self._entries[e.slug] = e

    def __getitem__(self, key: str) -> CatalogEntry:
        return self._entries[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def by_category(self, category: Category) -> list[CatalogEntry]:
        """Entries of one palette group."""
        return [e for e in self._entries.values() if e.category is category]


def _location(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += (
            f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
        )
    return out or "(top level)"


def load_entry(path: Path) -> CatalogEntry:
    """Read one YAML file; raise :class:`CatalogError` naming file and field."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise CatalogError(f"{path}: cannot read catalog entry: {exc}") from None
    if not isinstance(raw, dict):
        raise CatalogError(f"{path}: expected a mapping at the top level")
    try:
        entry = CatalogEntry.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise CatalogError(
            f"{path}: field {_location(first['loc'])}: {first['msg']}"
            + (f" ({exc.error_count()} problems)" if exc.error_count() > 1 else "")
        ) from None
    if entry.slug != path.stem:
        raise CatalogError(
            f"{path}: field slug: {entry.slug!r} must match the file name"
        )
    return entry


def load_catalog(directory: Path | None = None) -> Catalog:
    """Load every ``*.yaml`` below ``directory`` (default: the shipped catalog)."""
    root = directory or default_catalog_dir()
    files = sorted(root.rglob("*.yaml"))
    if not files:
        raise CatalogError(f"{root}: no catalog entries (*.yaml) found")
    return Catalog([load_entry(f) for f in files])


@lru_cache(maxsize=1)
def default_catalog() -> Catalog:
    """The shipped catalog, loaded once."""
    return load_catalog()
