"""What the first pass over a design file (:mod:`designer.io.scan`) works with:
its limits, the byte values it looks for, the boxes it keeps for open arrays
and objects, and what it reports."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from designer.core.limits import NOTES_MAX

BUDGET = 1 << 18
"""Bytes of values that are not part of a design (unknown keys, wrong kinds)
left to the parser, which reports them in detail (256 KiB)."""

MAX_STRING_BYTES = 6 * NOTES_MAX + 2
"""Longest string token a design can hold: the notes, every character escaped."""

EXPECT_DESIGN = "expected a GPU Cluster Designer design (a JSON object)"

_Q, _BS, _COMMA, _COLON = b'"', b"\\", b",", b":"
Q, BS, COMMA, COLON = _Q[0], _BS[0], _COMMA[0], _COLON[0]
LB, RB, LC, RC = b"[", b"]", b"{", b"}"
LBK, RBK, LCB, RCB = LB[0], RB[0], LC[0], RC[0]
_Q, _BS, _COMMA, _COLON = b'"', b"\\", b",", b":"
Q, BS, COMMA, COLON = _Q[0], _BS[0], _COMMA[0], _COLON[0]
LB, RB, LC, RC = b"[", b"]", b"{", b"}"
LBK, RBK, LCB, RCB = LB[0], RB[0], LC[0], RC[0]


class Refused(Exception):
    """The scan refuses the file: ``place`` and ``message`` say why; ``pos`` is
    the byte where the problem starts (the loader checks the JSON before it)."""

    def __init__(self, pos: int, place: str, message: str) -> None:
        self.pos, self.place, self.message = pos, place, message
        self.flat_spans: list[tuple[int, int]] = []  # flat arrays before ``pos``
        super().__init__(f"{place}: {message}")


@dataclass
class Column:
    """Where one link column is and how many entries it has."""

    start: int
    end: int
    count: int


@dataclass
class Outline:
    """What the scan learnt about a file it did not refuse."""

    complete: bool = False  # False: left to the parser at a place it cannot follow
    links_object: bool | None = None  # True: column table; False: v0 rows
    links_span: tuple[int, int] | None = None
    columns: dict[str, Column] = field(default_factory=dict)
    column_scalars: bool = False  # a column key with a non-array value
    version_colon: int = -1  # the ':' after the top-level "schema_version"
    max_depth: int = 0  # deepest nesting walked (skipped arrays nest at most 4)


class Box:
    """One open object or array."""

    __slots__ = (
        "cid",
        "closer",
        "count",
        "keys",
        "off_root",
        "open",
        "parent",
        "part",
        "role",
    )

    def __init__(
        self,
        role: int,
        open_: int,
        closer: int,
        parent: Box | None,
        part: str | int | None,
        cid: int,
        off_root: bool = False,
    ) -> None:
        self.role, self.open, self.closer = role, open_, closer
        self.parent, self.part, self.cid = parent, part, cid
        self.count = 0
        self.keys: dict[object, int] | None = None
        self.off_root = off_root

    def loc(self) -> tuple[str | int, ...]:
        parts: list[str | int] = []
        box: Box | None = self
        while box is not None and box.part is not None:
            parts.append(box.part)
            box = box.parent
        return tuple(reversed(parts))


def line_col(data: bytes, pos: int) -> str:
    """``line L, column C`` of byte ``pos`` (columns count characters)."""
    line = data.count(b"\n", 0, pos) + 1
    start = data.rfind(b"\n", 0, pos) + 1
    col = len(data[start:pos].decode("utf-8", "replace")) + 1
    return f"line {line}, column {col}"


def i64(values: object) -> npt.NDArray[np.int64]:
    return np.asarray(values, dtype=np.int64)


@dataclass
class Walk:
    """Per-window arrays the walk reads (lists: faster to index in Python)."""

    pos: list[int]
    kind: list[int]
    seg_commas: list[int]
    prev: list[int]
    prev_colon: list[int]
    codes: list[int]
    kopen: list[int]
    kclose: list[int]
    runs: list[int]
    seg_cid: npt.NDArray[np.int64]
    seg_role: npt.NDArray[np.int64]
