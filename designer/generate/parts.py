"""Catalog look-ups the generators share: entries, port groups, common speed."""

from __future__ import annotations

from collections.abc import Mapping

from designer.catalog import CatalogEntry, Category, Interface, default_catalog
from designer.generate.plan import GeneratorError

CatalogLike = Mapping[str, CatalogEntry]


def resolve(catalog: CatalogLike | None) -> CatalogLike:
    """The given catalog, or the shipped one."""
    return default_catalog() if catalog is None else catalog


def entry(
    catalog: CatalogLike, slug: str, category: Category, what: str
) -> CatalogEntry:
    """The catalog entry ``slug``, which must be of ``category``."""
    if not isinstance(slug, str) or slug not in catalog:
        known = sorted(k for k, e in catalog.items() if e.category is category)
        raise GeneratorError(
            f"unknown catalog id {slug!r} for the {what}; known {category.value} "
            f"models: {', '.join(known) or '(none)'}"
        )
    found = catalog[slug]
    if found.category is not category:
        raise GeneratorError(
            f"{slug!r} is a {found.category.value} entry, not a {category.value} "
            f"model (the {what})"
        )
    return found


def port_group(item: CatalogEntry, name: str) -> Interface:
    """Port group ``name`` of ``item`` (``compute`` on nodes, ``ports`` on switches)."""
    found = item.interface(name)
    if found is None:
        names = ", ".join(i.name for i in item.interfaces)
        raise GeneratorError(
            f"{item.slug!r} has no {name!r} port group (it has: {names})"
        )
    return found


def common_speed(a: Interface, a_id: str, b: Interface, b_id: str) -> int:
    """The fastest speed both port groups support."""
    both = set(a.speeds_gbps) & set(b.speeds_gbps)
    if not both:
        raise GeneratorError(
            f"speed mismatch: {a_id} port group {a.name!r} runs at "
            f"{'/'.join(map(str, a.speeds_gbps))}G, {b_id} port group {b.name!r} at "
            f"{'/'.join(map(str, b.speeds_gbps))}G; no common speed"
        )
    return max(both)


def check_media(a: Interface, a_id: str, b: Interface, b_id: str) -> None:
    """Raise unless the two port groups share a link layer (VPI counts)."""
    if not ({a.media, *a.alt_media} & {b.media, *b.alt_media}):
        raise GeneratorError(
            f"media mismatch: {a_id} port group {a.name!r} is {a.media.value}, "
            f"{b_id} port group {b.name!r} is {b.media.value}"
        )


def check_speed(port: Interface, slug: str, speed: int) -> None:
    """Raise unless ``port`` can run at ``speed``."""
    if speed not in port.speeds_gbps:
        raise GeneratorError(
            f"{slug} port group {port.name!r} runs at "
            f"{'/'.join(map(str, port.speeds_gbps))}G, not {speed}G"
        )


def node_prefix(slug: str) -> str:
    """Short id prefix for compute nodes: ``dgx``, ``hgx``, ``nvl72``, ``host``."""
    for start, prefix in (("dgx-", "dgx"), ("hgx-", "hgx"), ("generic-host", "host")):
        if slug.startswith(start):
            return prefix
    if slug.endswith("nvl72"):
        return "nvl72"
    return slug.split("-")[0] if slug.split("-")[0].isalnum() else "node"


def positive_int(value: object, what: str, upper: int | None = None) -> int:
    """``value`` as a whole number >= 1 (and <= ``upper``), or a clear error."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise GeneratorError(f"{what} must be a whole number, got {value!r}")
    if value < 1:
        raise GeneratorError(f"{what} must be at least 1, got {value}")
    if upper is not None and value > upper:
        raise GeneratorError(f"{what} must be at most {upper:,}, got {value:,}")
    return value
