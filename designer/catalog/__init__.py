"""Hardware catalog: entries with port groups, GPUs, power and sourced prices."""

from designer.catalog.loader import Catalog, CatalogError, default_catalog, load_catalog
from designer.catalog.schema import CatalogEntry, Category, Interface, Media, Role

__all__ = [
    "Catalog",
    "CatalogEntry",
    "CatalogError",
    "Category",
    "Interface",
    "Media",
    "Role",
    "default_catalog",
    "load_catalog",
]
