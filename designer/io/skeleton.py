"""The shape of a design file, as the first pass (:mod:`designer.io.scan`) checks it.

Every object and array of a design file has a *role* (the device list, one
device, the link table, one link column, ...). A role says which keys an object
may hold, what role a key's value has, what each array's elements are, and how
many entries it may hold. The key lists come from the model classes, so a new
model field is known here without an edit (a test checks that every field has
an expected-value text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from designer.core.limits import (
    MAX_DEVICES,
    MAX_GROUPS,
    MAX_LINKS,
    MAX_MONITORING,
    MAX_PORT_GROUPS,
    MAX_PRICE_OVERRIDES,
)
from designer.core.model import (
    LINK_COLUMNS,
    Design,
    Device,
    Fabric,
    Group,
    GroupKind,
    Placement,
    Purpose,
    Settings,
    Tier,
)
from designer.io.migrate import V0_LINK_KEYS

# Roles (small ints: the scanner keeps them in numpy arrays).
TOP, SETTINGS, GROUPS, GROUP, DEVICES, DEVICE, PLACEMENT, PORTS = range(8)
LINKS, COLUMN, V0LINKS, V0LINK, MONITORING, PRICES, OFF, BLOCK = range(8, 16)
ROLE_COUNT = 16
MAX_BLOCK_ENTRIES = 100_000
"""Most entries of any object or array inside the workload or physical block
(a 100,000-GPU design is placed in about 3,500 racks)."""

_OBJ, _ARR = ord("{"), ord("[")


def _one_of(values: list[str]) -> str:
    return "one of " + ", ".join(repr(v) for v in values)


_ENUMS = {
    "purpose": _one_of([p.value for p in Purpose]),
    "kind": _one_of([k.value for k in GroupKind]),
    "tier": _one_of([t.value for t in Tier]),
    "fabric": _one_of([f.value for f in Fabric]),
}

EXPECTED: dict[str, str] = {
    "schema_version": "a whole number",
    "name": "a string",
    "purpose": _ENUMS["purpose"],
    "scheduler": "a string or null",
    "notes": "a string",
    "tray_hostnames": "a string",
    "id": "a string",
    "label": "a string",
    "kind": _ENUMS["kind"],
    "parent": "a string or null",
    "collapsed": "true or false",
    "catalog_id": "a string",
    "x": "a number",
    "y": "a number",
    "group": "a string or null",
    "tier": _ENUMS["tier"] + " or null",
    "row": "a string or null",
    "rack": "a string or null",
    "u": "a whole number or null",
    "a": "a string",
    "a_port": "a string",
    "b": "a string",
    "b_port": "a string",
    "cables": "a whole number",
    "speed_gbps": "a whole number",
    "fabric": _ENUMS["fabric"],
    "rail": "a whole number or null",
    "a_pins": "a string of port names separated by spaces",
    "b_pins": "a string of port names separated by spaces",
}
"""What a scalar field holds, in the words :mod:`designer.io.messages` uses."""


@dataclass(frozen=True)
class Role:
    """What an object or array in a design file is."""

    noun: str
    keys: tuple[str, ...] = ()  # fixed keys of an object role ('' = any key)
    free_keys: bool = False  # any key allowed (ports, price overrides)
    limit: int | None = None  # most entries
    element: str = ""  # for free-key objects and arrays: what each value is


ROLES: dict[int, Role] = {
    TOP: Role("design", tuple(Design.model_fields)),
    SETTINGS: Role("settings object", tuple(Settings.model_fields)),
    GROUPS: Role("groups", limit=MAX_GROUPS, element="an object"),
    GROUP: Role("group", tuple(Group.model_fields)),
    DEVICES: Role("devices", limit=MAX_DEVICES, element="an object"),
    DEVICE: Role("device", tuple(Device.model_fields)),
    PLACEMENT: Role("placement", tuple(Placement.model_fields)),
    PORTS: Role(
        "port groups", free_keys=True, limit=MAX_PORT_GROUPS, element="a whole number"
    ),
    LINKS: Role("link table", LINK_COLUMNS),
    COLUMN: Role("links", limit=MAX_LINKS),
    V0LINKS: Role("links", limit=MAX_LINKS, element="an object"),
    V0LINK: Role("link", V0_LINK_KEYS),
    MONITORING: Role("monitoring tools", limit=MAX_MONITORING, element="a string"),
    PRICES: Role(
        "price overrides", free_keys=True, limit=MAX_PRICE_OVERRIDES, element="a number"
    ),
    OFF: Role("(not part of a design)"),
    # the workload and physical blocks: nested; their keys and values are the
    # model's to check (pydantic names every problem), the scan bounds their size
    BLOCK: Role("block", free_keys=True, limit=MAX_BLOCK_ENTRIES),
}

# (role of the object, key) -> {opening bracket: role of the value}
_CHILDREN: dict[tuple[int, str], dict[int, int]] = {
    (TOP, "settings"): {_OBJ: SETTINGS},
    (TOP, "groups"): {_ARR: GROUPS},
    (TOP, "devices"): {_ARR: DEVICES},
    (TOP, "links"): {_OBJ: LINKS, _ARR: V0LINKS},
    (TOP, "workload"): {_OBJ: BLOCK},
    (TOP, "physical"): {_OBJ: BLOCK},
    (SETTINGS, "monitoring"): {_ARR: MONITORING},
    (SETTINGS, "price_overrides"): {_OBJ: PRICES},
    (DEVICE, "placement"): {_OBJ: PLACEMENT},
    (DEVICE, "ports"): {_OBJ: PORTS},
    **{(LINKS, column): {_ARR: COLUMN} for column in LINK_COLUMNS},
}

_CONTAINER_TEXT = {
    (TOP, "settings"): "an object",
    (TOP, "groups"): "an array",
    (TOP, "devices"): "an array",
    (TOP, "links"): "an object",
    (TOP, "workload"): "an object or null",
    (TOP, "physical"): "an object or null",
    (SETTINGS, "monitoring"): "an array",
    (SETTINGS, "price_overrides"): "an object",
    (DEVICE, "placement"): "an object or null",
    (DEVICE, "ports"): "an object or null",
    **{(LINKS, column): "an array" for column in LINK_COLUMNS},
}

# Array roles whose elements are objects of a role.
ELEMENT_ROLE: dict[int, int] = {GROUPS: GROUP, DEVICES: DEVICE, V0LINKS: V0LINK}

KEYS: tuple[str, ...] = tuple(
    dict.fromkeys(k for role in ROLES.values() for k in role.keys)
)
"""Every fixed key of every role (the scanner codes keys by their place here)."""
KEY_CODE: dict[str, int] = {k: i for i, k in enumerate(KEYS)}
MAX_KEY_BYTES = 16
assert max(len(k) for k in KEYS) <= MAX_KEY_BYTES


def allowed_table() -> list[list[bool]]:
    """``table[role][code]``: whether an object of ``role`` may hold key ``code``."""
    return [
        [ROLES[r].free_keys or k in ROLES[r].keys for k in KEYS]
        for r in range(ROLE_COUNT)
    ]


def child_role(role: int, key: str | None, bracket: int) -> tuple[int, str]:
    """(role of a value opened by ``bracket``, what was expected if that is OFF).

    ``key`` is the object key the value belongs to (None inside an array).
    """
    if role == OFF:
        return OFF, ""
    if role == BLOCK:
        return BLOCK, ""  # anything nests in the workload block
    spec = ROLES[role]
    if key is None:  # an element of an array
        element = ELEMENT_ROLE.get(role)
        if element is not None and bracket == _OBJ:
            return element, ""
        if role == COLUMN:
            return OFF, ""  # the caller names the column's element type
        return OFF, spec.element or "a value"
    if spec.free_keys:
        return OFF, spec.element
    if key not in spec.keys:
        return OFF, ""
    found = _CHILDREN.get((role, key), {}).get(bracket)
    if found is not None:
        return found, ""
    return OFF, _CONTAINER_TEXT.get((role, key)) or EXPECTED.get(key, "a value")


def allowed_keys(role: int) -> str:
    """The keys an object of ``role`` may hold, for an "unknown key" message."""
    return ", ".join(ROLES[role].keys)


# --- rows in the common form: one pattern per array ------------------------------
#
# Arrays of groups and devices whose objects hold their keys in the model's order
# (each at most once, so no key repeats and none is unknown), scalar values, and
# for a device a placement object in the same form (or null) and ``ports: null``,
# are checked by one C-level pattern match; any other form is walked byte by byte.

_WS = rb"[ \t\r\n]*+"
_STR = rb'"(?:[^"\\\x00-\x1f]++|\\.)*+"'
_NUM = rb"-?+(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?+(?:[eE][+-]?+[0-9]++)?+"
_SCALAR = rb"(?:" + _STR + rb"|" + _NUM + rb"|true|false|null)"


def _ordered_object(keys: tuple[str, ...], values: dict[str, bytes]) -> bytes:
    """An object holding some of ``keys``, in this order, each at most once."""
    parts = [
        rb'"' + k.encode() + rb'"' + _WS + rb":" + _WS + values.get(k, _SCALAR)
        for k in keys
    ]
    firsts = [
        parts[i]
        + b"".join(rb"(?:" + _WS + rb"," + _WS + p + rb")?+" for p in parts[i + 1 :])
        for i in range(len(parts))
    ]
    return rb"\{" + _WS + rb"(?:" + b"|".join(firsts) + rb")?+" + _WS + rb"\}"


def _array_of(item: bytes) -> re.Pattern[bytes]:
    return re.compile(
        rb"\[" + _WS + rb"(?:" + item + rb"(?:" + _WS + rb"," + _WS + item + rb")*+)?+"
        + _WS + rb"\]"
    )  # fmt: skip


_PLACEMENT = _ordered_object(tuple(Placement.model_fields), {})
ROW_PATTERNS: dict[int, re.Pattern[bytes]] = {
    GROUPS: _array_of(_ordered_object(tuple(Group.model_fields), {})),
    DEVICES: _array_of(
        _ordered_object(
            tuple(Device.model_fields),
            {"placement": rb"(?:null|" + _PLACEMENT + rb")", "ports": rb"null"},
        )
    ),
}
"""Patterns for whole arrays of groups or devices in the common form."""
