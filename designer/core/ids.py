"""Ids: the stable id type, and fresh, unique, readable ids (``leaf-1``, ...)."""

from __future__ import annotations

import re
from collections.abc import Container, Iterable
from typing import Annotated

from pydantic import Field

__all__ = ["Id", "IdAllocator", "id_base", "new_id", "sanitize_id"]

Id = Annotated[
    str, Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_.:\-/]+$")
]
"""A stable id: 1-200 characters of letters, digits and ``_ . : - /``."""

_BAD = re.compile(r"[^A-Za-z0-9_.:\-/]+")
_SUFFIX = re.compile(r"-\d+$")
MAX_PREFIX = 180  # ids are at most 200 characters; leave room for "-<n>"


def sanitize_id(text: str) -> str:
    """``text`` turned into a valid id prefix (bad characters become '-')."""
    out = _BAD.sub("-", text.strip()).strip("-")[:MAX_PREFIX]
    return out or "id"


def id_base(existing_id: str) -> str:
    """The prefix of an id without its numeric suffix: ``leaf-12`` -> ``leaf``."""
    return _SUFFIX.sub("", existing_id) or existing_id


def new_id(prefix: str, existing: Container[str], *, bare_first: bool = False) -> str:
    """The first free id ``prefix-1``, ``prefix-2``, ... (``prefix`` itself first
    when ``bare_first``, then ``prefix-2``)."""
    base = sanitize_id(prefix)
    if bare_first and base not in existing:
        return base
    n = 2 if bare_first else 1
    while f"{base}-{n}" in existing:
        n += 1
    return f"{base}-{n}"


class IdAllocator:
    """Hands out many fresh ids quickly; remembers what it handed out."""

    def __init__(self, existing: Iterable[str] = ()) -> None:
        self.used: set[str] = set(existing)
        self._next: dict[str, int] = {}

    def new(
        self, prefix: str, *, bare_first: bool = False, trusted: bool = False
    ) -> str:
        """A fresh id for ``prefix`` (see :func:`new_id`); trusted = already valid."""
        base = prefix if trusted and len(prefix) <= MAX_PREFIX else sanitize_id(prefix)
        if bare_first and base not in self.used and base not in self._next:
            self.used.add(base)
            self._next[base] = 2
            return base
        n = self._next.get(base, 2 if bare_first else 1)
        while f"{base}-{n}" in self.used:
            n += 1
        out = f"{base}-{n}"
        self.used.add(out)
        self._next[base] = n + 1
        return out
