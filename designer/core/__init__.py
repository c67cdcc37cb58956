"""Design model, connection rules, commands and history (no Qt)."""

from designer.core.model import (
    SCHEMA_VERSION,
    Design,
    Device,
    Fabric,
    Group,
    GroupKind,
    Link,
    LinkTable,
    Placement,
    Purpose,
    Settings,
    Tier,
)

__all__ = [
    "SCHEMA_VERSION",
    "Design",
    "Device",
    "Fabric",
    "Group",
    "GroupKind",
    "Link",
    "LinkTable",
    "Placement",
    "Purpose",
    "Settings",
    "Tier",
]
