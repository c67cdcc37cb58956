"""Load and validate the hardware catalog; the only module that knows its file layout.

Layout: ``<root>/<category>/<slug>.yaml`` (or ``.yml``), one device type per
file, plus ``<root>/optics.yaml`` (cables and transceivers). A bad file fails
loudly with :class:`CatalogError` naming the file, the field and what was
expected.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from designer.catalog.optics import Optics
from designer.catalog.paths import resources_dir
from designer.catalog.schema import CatalogEntry, Category, Interface, Media, Price

OPTICS_FILE = "optics.yaml"
ENTRY_SUFFIXES = (".yaml", ".yml")
"""File endings of catalog entries (NetBox's library uses both)."""

_M = TypeVar("_M", bound=BaseModel)
_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class CatalogError(Exception):
    """A catalog file is broken; the message names the file and the field."""


def default_catalog_dir() -> Path:
    """``resources/catalog`` of this run (see :func:`resources_dir`)."""
    return resources_dir() / "catalog"


CATALOG_ENV = "CLUSTER_DESIGNER_CATALOG"
"""Environment variable naming a catalog folder to use instead of the shipped one."""

_chosen_dir: Path | None = None


def use_catalog_dir(directory: str | os.PathLike[str] | None) -> None:
    """Read the catalog from ``directory`` from now on (``--catalog``); None goes
    back to :data:`CATALOG_ENV` or the shipped catalog."""
    global _chosen_dir
    _chosen_dir = None if directory is None else Path(directory)


def catalog_dir() -> Path:
    """The folder :func:`default_catalog` reads: the one given to
    :func:`use_catalog_dir`, else :data:`CATALOG_ENV`, else the shipped one."""
    if _chosen_dir is not None:
        return _chosen_dir
    named = os.environ.get(CATALOG_ENV, "").strip()
    return Path(named) if named else default_catalog_dir()


def _check_catalog_dir(root: Path) -> None:
    """A clear error for a catalog folder that is missing or not a folder."""
    where = (
        "" if root == default_catalog_dir() else f" (from --catalog or {CATALOG_ENV})"
    )
    if not root.exists():
        raise CatalogError(
            f"{root}: no such folder{where}; expected a catalog folder of YAML "
            "files, one per device type (like resources/catalog)"
        )
    if not root.is_dir():
        raise CatalogError(
            f"{root}: not a folder{where}; expected a catalog folder of YAML "
            "files, one per device type (like resources/catalog)"
        )


class Catalog(Mapping[str, CatalogEntry]):
    """All catalog entries by id (slug), in file order, plus the optics table."""

    def __init__(
        self, entries: list[CatalogEntry], optics: Optics | None = None
    ) -> None:
        self._entries: dict[str, CatalogEntry] = {}
        for e in entries:
            if e.slug in self._entries:
                raise CatalogError(f"duplicate catalog id {e.slug!r}")
            self._entries[e.slug] = e
        self._optics = optics

    def __getitem__(self, key: str) -> CatalogEntry:
        return self._entries[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def optics(self) -> Optics:
        """Cables and transceivers (the shipped table when none was given)."""
        if self._optics is None:
            self._optics = default_optics()
        return self._optics

    def require(self, catalog_id: str) -> CatalogEntry:
        """The entry ``catalog_id``; CatalogError listing the known ids otherwise."""
        try:
            return self._entries[catalog_id]
        except KeyError:
            known = ", ".join(sorted(self._entries))
            raise CatalogError(
                f"unknown catalog id {catalog_id!r} (known: {known})"
            ) from None

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


def _read_yaml(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError(f"{path}: cannot read file: {exc}") from None
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise CatalogError(f"{path}: not valid YAML{where}: {problem}") from None


def _describe(error: Any) -> str:
    """One validation error as ``field <place>: <what was expected> (got ...)``."""
    msg = str(error["msg"])
    if not error["loc"]:
        # entry-level checks name their own place ("x-designer.port_groups[0]...")
        return msg.removeprefix("Value error, ")
    got = f" (got {error['input']!r})" if error["type"] != "missing" else ""
    if len(got) > 200:
        got = got[:197] + "...)"
    return f"field {_location(error['loc'])}: {msg}{got}"


def _validate(path: Path, model: type[_M], raw: Any) -> _M:
    if not isinstance(raw, dict):
        got = "an empty file" if raw is None else f"a {type(raw).__name__}"
        raise CatalogError(f"{path}: expected a mapping at the top level, got {got}")
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        errors = exc.errors()
        parts = [_describe(e) for e in errors[:3]]
        more = f" (+{len(errors) - 3} more)" if len(errors) > 3 else ""
        raise CatalogError(f"{path}: " + "; ".join(parts) + more) from None


def load_entry(path: Path) -> CatalogEntry:
    """Read one YAML file; raise :class:`CatalogError` naming file and field."""
    entry = _validate(path, CatalogEntry, _read_yaml(path))
    if entry.slug != path.stem:
        raise CatalogError(
            f"{path}: field slug: {entry.slug!r} must match the file name {path.stem!r}"
        )
    folder = path.parent.name
    if folder in {c.value for c in Category} and folder != entry.category.value:
        raise CatalogError(
            f"{path}: field x-designer.category: {entry.category.value!r} does not "
            f"match its folder {folder!r}"
        )
    return entry


def load_optics(path: Path) -> Optics:
    """Read ``optics.yaml``; raise :class:`CatalogError` naming file and field."""
    return _validate(path, Optics, _read_yaml(path))


def _check_optics(path: Path, entry: CatalogEntry, optics: Optics) -> None:
    known = {t.id: t for t in optics.transceivers}
    for i, iface in enumerate(entry.interfaces):
        field = f"x-designer.port_groups[{i}].transceiver"
        if iface.transceiver is None:
            if iface.ports_per_cage > 1:
                raise CatalogError(
                    f"{path}: field {field}: a {iface.ports_per_cage}-port cage "
                    f"group must name its transceiver (known: {', '.join(known)})"
                )
            continue
        module = known.get(iface.transceiver)
        if module is None:
            raise CatalogError(
                f"{path}: field {field}: unknown transceiver {iface.transceiver!r} "
                f"(known: {', '.join(known)})"
            )
        if module.links != iface.ports_per_cage:
            raise CatalogError(
                f"{path}: field {field}: {module.id} carries {module.links} link(s) "
                f"but the cage has {iface.ports_per_cage} port(s)"
            )


def load_catalog(directory: Path | None = None) -> Catalog:
    """Load every ``*.yaml``/``*.yml`` below ``directory`` (default: shipped one).

    ``optics.yaml`` at the top of ``directory`` is the optics table; without
    one, the shipped table is used.
    """
    root = directory or default_catalog_dir()
    if not root.is_dir():
        raise CatalogError(f"{root}: catalog folder not found")
    optics_path = root / OPTICS_FILE
    optics = load_optics(optics_path) if optics_path.is_file() else default_optics()
    files = sorted(
        p for p in root.rglob("*") if p.suffix in ENTRY_SUFFIXES and p != optics_path
    )
    if not files:
        raise CatalogError(f"{root}: no catalog entries (*.yaml, *.yml) found")
    entries: list[CatalogEntry] = []
    seen: dict[str, Path] = {}
    for f in files:
        entry = load_entry(f)
        if entry.slug in seen:
            raise CatalogError(
                f"{f}: field slug: duplicate catalog id {entry.slug!r} "
                f"(also in {seen[entry.slug]})"
            )
        seen[entry.slug] = f
        _check_optics(f, entry, optics)
        entries.append(entry)
    return Catalog(entries, optics)


@lru_cache(maxsize=1)
def default_optics() -> Optics:
    """The shipped optics table, loaded once."""
    return load_optics(default_catalog_dir() / OPTICS_FILE)


def default_catalog() -> Catalog:
    """The catalog in :func:`catalog_dir` (the shipped one unless chosen), loaded
    once per folder."""
    return _catalog_at(catalog_dir())


@lru_cache(maxsize=4)
def _catalog_at(root: Path) -> Catalog:
    _check_catalog_dir(root)
    return load_catalog(root)


# --- the optics rules on the default catalog (or the one given) ---------------


def _optics(optics: Optics | Catalog | None) -> Optics:
    if optics is None:
        return default_catalog().optics
    if isinstance(optics, Optics):
        return optics
    return optics.optics


def port_group_transceivers(
    interface: Interface,
    links_by_speed: Mapping[int, int],
    media: Media | None = None,
    *,
    optics: Optics | Catalog | None = None,
) -> int:
    """Modules at one port group with links of several speeds (see module doc)."""
    return _optics(optics).port_group_transceivers(interface, links_by_speed, media)


def optics_price(
    speed_gbps: int, media: Media, *, optics: Optics | Catalog | None = None
) -> Price:
    """Price of ONE transceiver of the speed class (default catalog unless given)."""
    return _optics(optics).optics_price(speed_gbps, media)


def cable_price(
    speed_gbps: int, media: Media, *, optics: Optics | Catalog | None = None
) -> Price:
    """Price of ONE cable of the speed class (default catalog unless given)."""
    return _optics(optics).cable_price(speed_gbps, media)


def end_transceivers(
    interface: Interface,
    links: int,
    speed_gbps: int,
    media: Media | None = None,
    *,
    optics: Optics | Catalog | None = None,
) -> int:
    """Modules at one end of ``links`` links on one port group (see module doc)."""
    return _optics(optics).end_transceivers(interface, links, speed_gbps, media)
