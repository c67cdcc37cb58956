"""Step-by-step migrations of design files from older ``schema_version`` values.

Each step takes the parsed JSON of version ``n`` and returns version ``n + 1``.
Steps work on plain dicts and lists (never on the current model), so an old
file keeps migrating the same way however the model changes later.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from designer.core.model import SCHEMA_VERSION
from designer.io.errors import MigrationError

JsonObject = dict[str, Any]

OLDEST_VERSION = 0

COLUMN_LINKS_SINCE = 1
"""First schema version that stores links column-wise (older: row objects)."""

# Version 0 stored each link as an object; version 1 stores links column-wise.
V0_LINK_KEYS = (
    "id",
    "a",
    "a_port",
    "b",
    "b_port",
    "cables",
    "speed_gbps",
    "fabric",
    "rail",
)
_V0_LINK_REQUIRED = ("id", "a", "a_port", "b", "b_port", "speed_gbps")
_V0_LINK_DEFAULTS: dict[str, Any] = {"cables": 1, "fabric": "compute", "rail": None}


def _v0_to_v1(data: JsonObject) -> JsonObject:
    """Version 0 -> 1: ``links`` goes from a list of objects to a column table."""
    links = data.get("links", [])
    if not isinstance(links, list):
        raise MigrationError(
            "links",
            f"expected an array of link objects (schema_version 0), "
            f"found {json_type(links)}",
        )
    columns: dict[str, list[Any]] = {key: [] for key in V0_LINK_KEYS}
    allowed = ", ".join(V0_LINK_KEYS)
    for i, row in enumerate(links):
        if not isinstance(row, dict):
            raise MigrationError(
                f"links[{i}]", f"expected a link object, found {json_type(row)}"
            )
        for key in row:
            if key not in columns:
                raise MigrationError(
                    f"links[{i}].{key}", f"unknown key; expected one of: {allowed}"
                )
        for key in _V0_LINK_REQUIRED:
            if key not in row:
                raise MigrationError(
                    f"links[{i}]", f"missing key {key!r}; expected {allowed}"
                )
        for key in V0_LINK_KEYS:
            columns[key].append(row.get(key, _V0_LINK_DEFAULTS.get(key)))
    out = dict(data)
    out["links"] = columns
    out["schema_version"] = 1
    return out


def _v1_to_v2(data: JsonObject) -> JsonObject:
    """Version 1 -> 2: adds the optional ``workload`` block; nothing to convert."""
    out = dict(data)
    out["schema_version"] = 2
    return out


def _v2_to_v3(data: JsonObject) -> JsonObject:
    """Version 2 -> 3: adds the optional ``physical`` block; nothing to convert.

    Placements of version-2 files stay free labels (there is no block for
    their racks to name), as they were.
    """
    out = dict(data)
    out["schema_version"] = 3
    return out


def _v3_to_v4(data: JsonObject) -> JsonObject:
    """Version 3 -> 4: adds ``settings.tray_hostnames``, the rule that names
    the compute trays of a rack; nothing to convert (a file without it gets
    the default rule)."""
    out = dict(data)
    out["schema_version"] = 4
    return out


PINS_SINCE = 5
"""First schema version whose links hold their ports (``a_pins``, ``b_pins``)."""


def _v4_to_v5(data: JsonObject) -> JsonObject:
    """Version 4 -> 5: every link holds the ports its cables use at both ends
    (``links.a_pins``, ``links.b_pins``). A version-4 file kept none: each
    link's pins become ``"?"`` (not chosen), and the loader chooses them once,
    with the catalog, by the rule the cabling plan of version 4 used (port
    groups laid out in link order, whole cages per module type:
    :func:`designer.core.pins.pin_pending`); from then on they are kept."""
    out = dict(data)
    links = data.get("links")
    if isinstance(links, dict):
        ids = links.get("id", [])
        n = len(ids) if isinstance(ids, list) else 0
        links = dict(links)
        for end in ("a_pins", "b_pins"):
            links.setdefault(end, ["?"] * n)
        out["links"] = links
    out["schema_version"] = 5
    return out


MIGRATIONS: dict[int, Callable[[JsonObject], JsonObject]] = {
    0: _v0_to_v1,
    1: _v1_to_v2,
    2: _v2_to_v3,
    3: _v3_to_v4,
    4: _v4_to_v5,
}
"""``MIGRATIONS[n]`` turns a version-``n`` design into version ``n + 1``."""


def migrate(data: JsonObject, version: int) -> JsonObject:
    """Migrate parsed JSON from ``version`` up to the current schema version."""
    if version > SCHEMA_VERSION or version < OLDEST_VERSION:
        raise ValueError(f"no migration from schema_version {version}")
    while version < SCHEMA_VERSION:
        data = MIGRATIONS[version](data)
        version += 1
    return data


def json_type(value: object) -> str:
    """How a parsed JSON value is called in JSON terms, with short values shown."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "a number beyond what a float holds" if value == value else "NaN"
    if isinstance(value, int | float):
        text = repr(value)
        return f"the number {text}" if len(text) <= 24 else "a number"
    if isinstance(value, str):
        return f"the string {value!r}" if len(value) <= 40 else "a long string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
