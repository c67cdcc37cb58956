"""Design model, connection rules, commands and history (no Qt).

Modules: ``model`` (pydantic design, column-wise links), ``commands`` (undoable
edits; ``device_commands``, ``link_commands``), ``document`` (History,
Document), ``edits`` (group/paste/duplicate builders),
``rules`` (connection rules with typed errors; ``specs`` and ``errors`` hold
its parts), ``wiring`` (bulk wiring commands), ``ids`` (fresh ids).
"""

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
