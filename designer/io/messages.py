"""Turn pydantic validation errors into places and expectations a person can read."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel
from pydantic_core import ErrorDetails

from designer.core.model import (
    Design,
    Device,
    Group,
    Link,
    LinkColumns,
    Placement,
    Settings,
)
from designer.core.physical import Facility, Hall, Physical, Rack, RackType, Row
from designer.core.workload import CloudRate, Workload
from designer.io.errors import Problem
from designer.io.migrate import json_type

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# Which model describes the object found under a key (lists and dicts skipped).
_MODEL_UNDER: dict[str, type[BaseModel]] = {
    "settings": Settings,
    "groups": Group,
    "devices": Device,
    "placement": Placement,
    "links": LinkColumns,
    "workload": Workload,
    "cloud_rates": CloudRate,
    "physical": Physical,
    "facility": Facility,
    "rack_types": RackType,
    "halls": Hall,
    "rows": Row,
    "racks": Rack,
}

_NOUNS: dict[type[BaseModel], str] = {
    Design: "design",
    Settings: "settings object",
    Group: "group",
    Device: "device",
    Placement: "placement",
    Link: "link",
    LinkColumns: "link table",
    Workload: "workload block",
    CloudRate: "cloud rate",
    Physical: "physical block",
    Facility: "facility object",
    RackType: "rack type",
    Hall: "hall",
    Row: "row",
    Rack: "rack",
}

_ID_TEXT = "an id made of letters, digits and _ . : - / (no spaces)"


def json_path(loc: tuple[int | str, ...]) -> str:
    """``('devices', 12, 'catalog_id')`` -> ``devices[12].catalog_id``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _IDENT.match(part):
            out += f".{part}" if out else part
        else:
            out += f"[{part!r}]"
    return out


def _model_at(loc: tuple[int | str, ...], migrated_links: bool) -> type[BaseModel]:
    """The model whose object sits at ``loc`` (the parent of an offending key)."""
    keys = [p for p in loc if isinstance(p, str)]
    if not keys:
        return Design
    if keys[-1] == "links" and migrated_links:
        return Link
    return _MODEL_UNDER.get(keys[-1], Design)


def _number(value: object) -> str:
    """A bound as people write it: 1,000,000,000 rather than 1000000000.0."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}" if isinstance(value, int) else str(value)


def _expected(err: ErrorDetails) -> str:
    """What should have been there, from the pydantic error type."""
    kind = err["type"]
    ctx: dict[str, Any] = dict(err.get("ctx") or {})
    simple = {
        "string_type": "a string",
        "int_type": "a whole number",
        "int_parsing": "a whole number",
        "int_from_float": "a whole number",
        "float_type": "a number",
        "float_parsing": "a number",
        "finite_number": "a finite number",
        "bool_type": "true or false",
        "bool_parsing": "true or false",
        "list_type": "an array",
        "dict_type": "an object",
        "model_type": "an object",
        "model_attributes_type": "an object",
        "none_required": "null",
    }
    if kind in simple:
        return simple[kind]
    if kind in ("enum", "literal_error"):
        return f"one of {ctx.get('expected', '?')}"
    if kind == "string_too_short":
        n = ctx.get("min_length", 1)
        return (
            "a non-empty string" if n == 1 else f"a string of at least {n} characters"
        )
    if kind == "string_too_long":
        return f"a string of at most {ctx.get('max_length')} characters"
    if kind == "string_pattern_mismatch":
        if ctx.get("pattern", "").startswith("^[A-Za-z0-9_.:"):
            return _ID_TEXT
        return f"a string matching {ctx.get('pattern')}"
    bounds = {
        "greater_than_equal": ("a number >= {}", "ge"),
        "greater_than": ("a number > {}", "gt"),
        "less_than_equal": ("a number <= {}", "le"),
        "less_than": ("a number < {}", "lt"),
    }
    if kind in bounds:
        text, key = bounds[kind]
        return text.format(_number(ctx.get(key)))
    if kind == "too_long" and "max_length" in ctx:
        return f"at most {ctx['max_length']:,} entries"
    if kind in ("too_short", "too_long"):
        return err["msg"].lower()
    return ""


def translate(
    errors: list[ErrorDetails], *, migrated_links: bool = False
) -> list[Problem]:
    """Readable problems for pydantic errors (locations as JSON paths)."""
    problems: list[Problem] = []
    for err in errors:
        loc = tuple(err["loc"])
        if migrated_links and len(loc) >= 3 and loc[0] == "links":
            # Report a migrated version-0 file in its own (row-wise) terms.
            loc = ("links", loc[2], loc[1], *loc[3:])
        kind = err["type"]
        found = json_type(err.get("input"))
        if kind == "missing":
            parent, key = loc[:-1], loc[-1]
            model = _model_at(parent, migrated_links)
            noun = _NOUNS.get(model, "object")
            problems.append(
                Problem(
                    json_path(parent) or "(top level)",
                    f"missing key {key!r}; expected every {noun} to have it",
                )
            )
            continue
        if kind == "extra_forbidden":
            model = _model_at(loc[:-1], migrated_links)
            allowed = ", ".join(model.model_fields)
            problems.append(
                Problem(json_path(loc), f"unknown key; expected one of: {allowed}")
            )
            continue
        if kind == "value_error":
            message = err["msg"].removeprefix("Value error, ")
            problems.append(Problem(json_path(loc) or "(top level)", message))
            continue
        expected = _expected(err)
        if expected:
            problems.append(
                Problem(json_path(loc), f"expected {expected}, found {found}")
            )
        else:
            problems.append(Problem(json_path(loc), f"{err['msg']}, found {found}"))
    return problems
