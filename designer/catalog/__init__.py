"""Hardware catalog: entries with port groups, GPUs, power and sourced prices."""

from designer.catalog.loader import (
    Catalog,
    CatalogError,
    cable_price,
    default_catalog,
    default_catalog_dir,
    end_transceivers,
    load_catalog,
    optics_price,
    port_group_transceivers,
)
from designer.catalog.netbox import (
    NetboxDeviceType,
    NetboxInterface,
    PowerPort,
    expand_names,
)
from designer.catalog.optics import (
    CableClass,
    CableKind,
    Medium,
    Optics,
    Transceiver,
)
from designer.catalog.ports import (
    device_ports_problems,
    effective_ports,
    effective_ports_at,
    effective_radix,
)
from designer.catalog.schema import (
    CatalogEntry,
    Category,
    DeviceCooling,
    Interface,
    Media,
    Price,
    Role,
    Source,
    common_media,
)

__all__ = [
    "CableClass",
    "CableKind",
    "Catalog",
    "CatalogEntry",
    "CatalogError",
    "Category",
    "DeviceCooling",
    "Interface",
    "Media",
    "Medium",
    "NetboxDeviceType",
    "NetboxInterface",
    "Optics",
    "PowerPort",
    "Price",
    "Role",
    "Source",
    "Transceiver",
    "cable_price",
    "common_media",
    "default_catalog",
    "default_catalog_dir",
    "device_ports_problems",
    "effective_ports",
    "effective_ports_at",
    "effective_radix",
    "end_transceivers",
    "expand_names",
    "load_catalog",
    "optics_price",
    "port_group_transceivers",
]
