"""A link as the model and the file see it: the row, the file's columns, fabrics.

:class:`Link` is one row of the link table (:class:`designer.core.links.LinkTable`,
which keeps the links column-wise); :class:`LinkColumns` is the ``links`` table
as the design file stores it, one list per field, checked entry by entry. Each
end's pins are one text per link in the file (:func:`pins_text`,
:func:`parse_pins`).
"""

from __future__ import annotations

import itertools
from enum import StrEnum
from typing import Annotated

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from designer.core.ids import Id
from designer.core.limits import MAX_LINKS

__all__ = [
    "FABRICS",
    "FABRIC_CODE",
    "LINK_COLUMNS",
    "PIN_NONE_TEXT",
    "PIN_PENDING_TEXT",
    "Fabric",
    "Link",
    "LinkColumns",
    "parse_pins",
    "pins_text",
]


class Fabric(StrEnum):
    """Which network a link belongs to."""

    COMPUTE = "compute"
    STORAGE = "storage"
    INBAND = "inband"
    OOB = "oob"


FABRICS: tuple[Fabric, ...] = tuple(Fabric)
"""The fabrics in code order (the table stores ``FABRICS.index(fabric)``)."""
FABRIC_CODE: dict[Fabric, int] = {f: i for i, f in enumerate(FABRICS)}


class Link(BaseModel):
    """A bundle of ``cables`` identical cables between two devices' port groups.

    A row of :class:`designer.core.links.LinkTable`; the design stores links
    column-wise so that a 100,000-GPU design loads fast and the analysis reads
    arrays directly.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Id
    a: Id
    a_port: str = Field(min_length=1, max_length=64)
    b: Id
    b_port: str = Field(min_length=1, max_length=64)
    cables: int = Field(default=1, ge=1, le=100_000)
    speed_gbps: int = Field(ge=1, le=100_000)
    fabric: Fabric = Fabric.COMPUTE
    rail: int | None = Field(default=None, ge=0, le=1024)
    a_pins: tuple[str, ...] | None = None
    """The ports the cables use at end a, one per cable in order ("" for a
    cable that found no free port); None: not chosen yet (the loader and the
    commands choose them, :mod:`designer.core.pins`)."""
    b_pins: tuple[str, ...] | None = None
    """The ports at end b, as :attr:`a_pins`."""


LINK_COLUMNS: tuple[str, ...] = tuple(Link.model_fields)
"""The link fields, in file order: the columns of the ``links`` table."""

_Port = Annotated[str, Field(min_length=1, max_length=64)]

PIN_PENDING_TEXT = "?"
"""A link's pins in the file when they are not chosen yet (the loader chooses
them on open, by :func:`designer.core.pins.pin_pending`)."""
PIN_NONE_TEXT = "-"
"""A cable without a port, in the file's pin text."""
_Pins = Annotated[str, Field(max_length=1_000_000)]


def pins_text(pins: tuple[str, ...] | None) -> str:
    """The file's text of one end's pins: names joined by a space, ``-`` for a
    cable without a port, trailing ones left out; ``?`` when not chosen."""
    if pins is None:
        return PIN_PENDING_TEXT
    n = len(pins)
    while n and not pins[n - 1]:
        n -= 1
    return " ".join(p or PIN_NONE_TEXT for p in pins[:n])


def parse_pins(text: str, cables: int) -> tuple[str, ...] | None:
    """The pins of a file's pin text (see :func:`pins_text`); ValueError when
    it names more ports than the link has cables."""
    if text == PIN_PENDING_TEXT:
        return None
    names = text.split(" ") if text else []
    if len(names) > cables:
        raise ValueError(
            f"{len(names)} ports listed, but the link has {cables} "
            f"cable{'s' if cables != 1 else ''}"
        )
    out = ["" if n == PIN_NONE_TEXT else n for n in names]
    return (*out, *([""] * (cables - len(out))))


class LinkColumns(BaseModel):
    """The ``links`` table as the design file stores it: one list per field."""

    model_config = ConfigDict(extra="forbid")

    id: list[Id] = Field(default_factory=list, max_length=MAX_LINKS)
    a: list[Id] = Field(default_factory=list, max_length=MAX_LINKS)
    a_port: list[_Port] = Field(default_factory=list, max_length=MAX_LINKS)
    b: list[Id] = Field(default_factory=list, max_length=MAX_LINKS)
    b_port: list[_Port] = Field(default_factory=list, max_length=MAX_LINKS)
    cables: list[Annotated[int, Field(ge=1, le=100_000)]] = Field(
        default_factory=list, max_length=MAX_LINKS
    )
    speed_gbps: list[Annotated[int, Field(ge=1, le=100_000)]] = Field(
        default_factory=list, max_length=MAX_LINKS
    )
    fabric: list[Fabric] = Field(default_factory=list, max_length=MAX_LINKS)
    rail: list[Annotated[int, Field(ge=0, le=1024)] | None] = Field(
        default_factory=list, max_length=MAX_LINKS
    )
    a_pins: list[_Pins] | None = Field(
        default=None,
        max_length=MAX_LINKS,
        description="the ports each link's cables use at end a: port names "
        "separated by a space, one per cable ('-': no free port; cables past "
        "the last name have none); '?': not chosen yet (chosen on open)",
    )
    b_pins: list[_Pins] | None = Field(
        default=None,
        max_length=MAX_LINKS,
        description="the ports at end b, as a_pins",
    )

    @model_validator(mode="after")
    def _same_lengths(self) -> LinkColumns:
        """Every column has one entry per link; pins name at most one port per
        cable."""
        n = len(self.id)
        for name in LINK_COLUMNS:
            if getattr(self, name) is None:
                continue
            if len(getattr(self, name)) != n:
                raise ValueError(
                    f"column {name!r} has {len(getattr(self, name))} entries, "
                    f"expected {n} (one per link id)"
                )
        for name in ("a_pins", "b_pins"):
            column = getattr(self, name)
            if column is None or not n:
                continue
            # names per entry (spaces + 1) against cables, counted in C
            spaces = np.fromiter(
                map(str.count, column, itertools.repeat(" ")), np.int64, n
            )
            over = spaces >= np.asarray(self.cables, dtype=np.int64)
            for i in np.flatnonzero(over).tolist():
                try:
                    parse_pins(column[i], self.cables[i])
                except ValueError as exc:
                    raise ValueError(f"{name}[{i}]: {exc}") from None
        return self
