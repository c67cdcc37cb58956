"""Design model, connection rules, commands and history (no Qt).

Modules: ``model`` (pydantic design, column-wise links), ``commands`` (undoable
edits; ``device_commands``, ``link_commands``), ``document`` (History,
Document), ``edits`` (group/paste/duplicate builders),
``rules`` (the connection rules of one link), ``checks`` (the rules and the
port budget applied to an edit or a design), ``errors`` (typed refusals),
``specs`` (hardware lookups), ``wiring`` (bulk wiring commands), ``ids`` (the
id type, fresh ids).
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
