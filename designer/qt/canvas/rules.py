"""The connection rules and edit builders the canvas uses (all from ``designer.core``).

One import point, so the view's modules name the core API in one place.
"""

from __future__ import annotations

from designer.core.edits import copy_selection, duplicate, paste, set_group_collapsed
from designer.core.errors import ConnectionRefused
from designer.core.rules import suggest_link
from designer.core.wiring import connect_all_to_all, wire_rail_optimized

__all__ = [
    "ConnectionRefused",
    "connect_all_to_all",
    "copy_selection",
    "duplicate",
    "paste",
    "set_group_collapsed",
    "suggest_link",
    "wire_rail_optimized",
]
