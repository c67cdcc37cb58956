"""The model's limits, in one place, and helpers that keep edits within them.

Every design the program can build must save and reopen identically, so the
limits the loader enforces are the limits the model and the commands enforce.
The numbers are generous for real clusters (the largest shipped generator
output, 100,000 GPUs, has 20,812 devices and 300,448 links) and small enough
that every derived figure (cost, power, bandwidth) stays a finite number.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

__all__ = [
    "COORD_LIMIT",
    "LABEL_MAX",
    "MAX_DEVICES",
    "MAX_GROUPS",
    "MAX_LINKS",
    "MAX_MONITORING",
    "MAX_PORT_GROUPS",
    "MAX_PRICE_OVERRIDES",
    "MAX_PRICE_USD",
    "NOTES_MAX",
    "clamp_coord",
    "coords_in_range",
    "fit_label",
    "model_problem",
    "models_problem",
]

COORD_LIMIT = 1e9
"""Largest canvas coordinate (scene units, either sign); a 100,000-GPU layout
spans about 60,000."""

MAX_PRICE_USD = 1e9
"""Largest unit price override in US dollars (the dearest catalog entry is
$5,000,000)."""

LABEL_MAX = 200
"""Longest label or design name, in characters."""

NOTES_MAX = 10_000
"""Longest design notes, in characters."""

MAX_DEVICES = 500_000
"""Most devices a design may hold."""

MAX_GROUPS = 100_000
"""Most groups a design may hold."""

MAX_LINKS = 2_000_000
"""Most links a design may hold (about 650,000 GPUs in a rail-optimized,
three-tier fat tree)."""

MAX_MONITORING = 64
"""Most monitoring tools in the settings."""

MAX_PRICE_OVERRIDES = 10_000
"""Most price overrides in the settings."""

MAX_PORT_GROUPS = 64
"""Most port groups a configurable device may list under ``ports``."""


def fit_label(label: str, suffix: str = "", limit: int = LABEL_MAX) -> str:
    """``label + suffix``, the label cut so the result has at most ``limit``
    characters (the suffix is kept: "... copy" still says it is a copy)."""
    room = max(0, limit - len(suffix))
    return label[:room] + suffix[:limit]


def clamp_coord(value: float) -> float:
    """``value`` within +-:data:`COORD_LIMIT` (NaN becomes 0)."""
    if math.isnan(value):
        return 0.0
    return min(COORD_LIMIT, max(-COORD_LIMIT, value))


def coords_in_range(values: Iterable[object]) -> bool:
    """Whether every value is a real number within +-:data:`COORD_LIMIT`."""
    return all(
        type(v) in (int, float) and -COORD_LIMIT <= v <= COORD_LIMIT  # type: ignore[operator]
        for v in values
    )


def _first_error(exc: ValidationError, skip: int = 0) -> tuple[Any, str]:
    first = exc.errors(include_url=False)[0]
    loc = first["loc"][skip:]
    where = ".".join(str(p) for p in loc) or "value"
    return (first["loc"][0] if skip else None), f"field {where}: {first['msg']}"


def model_problem(item: BaseModel) -> str | None:
    """What is wrong with a model object that skipped validation (built with
    ``model_copy(update=...)`` or ``model_construct``), or None when it is fine."""
    try:  # the fields as held (a dump would first serialize them)
        type(item).model_validate(item.__dict__)
    except ValidationError as exc:
        return _first_error(exc)[1]
    return None


@cache
def _list_adapter(kind: type[BaseModel]) -> TypeAdapter[list[Any]]:
    return TypeAdapter(list[kind])  # type: ignore[valid-type]


def models_problem(items: Sequence[BaseModel]) -> tuple[int, str] | None:
    """(position, problem) of the first object of ``items`` (all of one model
    class) whose fields break the model's limits, or None. Checks the fields
    each object holds (nested model objects are trusted), in one batch."""
    if not items:
        return None
    try:
        _list_adapter(type(items[0])).validate_python([i.__dict__ for i in items])
    except ValidationError as exc:
        position, problem = _first_error(exc, skip=1)
        return int(position), problem
    return None
