"""The design model's validator, tuned for reading files.

Strict JSON mode; in files over :data:`FULL_CHECK_BYTES` every array and object
stops at its first bad entry; the model's reference check is run on the built
design (:func:`validate_design`), so that a failure says where without
pydantic's error holding the whole parsed file.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from pydantic_core import SchemaValidator

from designer.core.model import LINK_COLUMNS, Design
from designer.core.model import reference_problems as model_reference_problems
from designer.io.errors import DesignFileError, Problem
from designer.io.references import MAX_PROBLEMS, reference_problems

__all__ = ["FULL_CHECK_BYTES", "schema_validator", "validate_design"]


FULL_CHECK_BYTES = 1 << 16
"""Files up to this size (64 KiB) get every problem of every list counted; in
larger ones each array or object stops at its first bad entry, since a model
error costs about 2 KB and an array of zeros holds one every 2 bytes."""


@functools.lru_cache(maxsize=4)
def schema_validator(fail_fast: bool, own_check: bool) -> tuple[SchemaValidator, bool]:
    """The design model's validator, built from its core schema: with
    ``fail_fast`` every array and object stops at its first bad entry (the same
    result for a valid file). The model's own reference check (its outer
    after-validator) is left out when it is the only one, and the second value
    says so: the loader then runs the same check (``reference_problems``) on
    the built design, which on failure also says where, instead of pydantic's
    error path, which holds the whole parsed file (1.9 GB for 100 MB of links).
    """
    schema = copy.deepcopy(Design.__pydantic_core_schema__)
    if fail_fast:
        stack: list[Any] = [schema]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                if node.get("type") in ("list", "dict"):
                    node["fail_fast"] = True
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
    check = (
        schema.get("function", {}).get("function")
        if schema.get("type") == ("function-after")
        else None
    )
    inner = schema.get("schema", {})
    ours = getattr(Design, "_check_references", None)
    if (
        own_check
        and ours is not None
        and check is ours
        and inner.get("type") == "model"
    ):
        return SchemaValidator(inner), True
    return SchemaValidator(schema), False


def validate_design(
    data: bytes | str, source: str, *, own_check: bool = True
) -> Design:
    """The design from JSON text in strict JSON mode (in files over
    :data:`FULL_CHECK_BYTES` each array stops at its first bad entry); without
    ``own_check`` the model checks references itself (a ValidationError)."""
    validator, check_here = schema_validator(len(data) > FULL_CHECK_BYTES, own_check)
    design = validator.validate_json(data, strict=True)
    assert isinstance(design, Design)
    if check_here:
        broken = model_reference_problems(design)
        if broken:
            _raise_references(design, broken, source)
    return design


def _raise_references(design: Design, broken: list[str], source: str) -> None:
    """The ids and references that do not resolve, with their places."""
    parsed: dict[str, Any] = {
        "groups": [g.__dict__ for g in design.groups],
        "devices": [d.model_dump() for d in design.devices],
        "links": {name: getattr(design.links, name) for name in LINK_COLUMNS},
    }
    if design.physical is not None:
        parsed["physical"] = design.physical.model_dump()
    found = reference_problems(parsed)
    if found:
        raise DesignFileError(source, list(found), found.more)
    problems = [Problem("(top level)", text) for text in broken]
    raise DesignFileError(source, problems[:MAX_PROBLEMS], len(problems[MAX_PROBLEMS:]))
