"""Measuring whole arrays of a design file without walking them byte by byte."""

from __future__ import annotations

import re

import numpy as np

from designer.io import skeleton as sk
from designer.io.shape import COMMA, LB, LC, MAX_STRING_BYTES, RB, Q

COUNT_STEP = 1 << 24
"""Bytes of a flat array counted at a time (16 MiB)."""

_WS = re.compile(rb"[ \t\r\n]*")
_BACKSLASH = b"\\"


def rows_array(data: bytes, start: int, role: int) -> tuple[int, int] | None:
    """(end, most entries it can hold) of the array of groups or devices opening
    at ``start``, when every row is in the common form (:data:`sk.ROW_PATTERNS`);
    None otherwise (the caller then scans it)."""
    pattern = sk.ROW_PATTERNS.get(role)
    found = pattern.match(data, start) if pattern is not None else None
    if found is None or data.find(_BACKSLASH, start, found.end()) >= 0:
        return None  # with escapes, quotes alone do not delimit strings
    end = found.end()
    most = data.count(LC, start, end)  # every row opens with '{'
    if _longest_string(data, start, end) > MAX_STRING_BYTES:
        return None  # a string longer than a design holds: scan it
    return end, most


def _longest_string(data: bytes, start: int, end: int) -> int:
    """Bytes in the longest string of ``data[start:end]``, which has no
    backslash (so quotes pair up), 16 MiB at a time."""
    longest, open_at = 0, -1
    for lo in range(start, end, COUNT_STEP):
        hi = min(end, lo + COUNT_STEP)
        body = np.frombuffer(data, dtype=np.uint8, count=hi - lo, offset=lo)
        quotes = np.flatnonzero(body == Q) + lo
        if open_at >= 0 and quotes.size:
            longest = max(longest, int(quotes[0]) - open_at - 1)
            quotes = quotes[1:]
            open_at = -1
        pairs = quotes.size // 2
        if pairs:
            sizes = quotes[1 : 2 * pairs : 2] - quotes[0 : 2 * pairs : 2] - 1
            longest = max(longest, int(sizes.max()))
        if quotes.size & 1:
            open_at = int(quotes[-1])
    return longest


def flat_array(data: bytes, start: int) -> tuple[int, int] | None:
    """(end, entry count) of the array opening at ``start`` when it is flat: no
    nested array or object and no backslash, so quotes alone delimit strings.
    Exact when every entry is a string or none is (a link column); None when it
    is not flat or the count is not certain (the caller then scans it)."""
    end = data.find(RB, start)
    if end < 0:
        return None
    if (
        data.find(LB, start + 1, end) >= 0
        or data.find(LC, start, end) >= 0
        or data.find(_BACKSLASH, start, end) >= 0
    ):
        return None
    quotes, commas = _count_bytes(data, start, end)
    if quotes & 1:
        return None  # that ']' is inside a string
    if quotes == 0:
        if commas == 0 and not nonempty(data, start, end):
            return end + 1, 0
        return end + 1, commas + 1
    # entries = strings + others; commas = entries - 1 + commas inside strings
    if commas == quotes // 2 - 1:
        return end + 1, quotes // 2
    return None


def _count_bytes(data: bytes, start: int, end: int) -> tuple[int, int]:
    """Quotes and commas in ``data[start:end]`` (numpy compares beat
    ``bytes.count``; 16 MiB at a time keeps the temporaries small)."""
    quotes = commas = 0
    for lo in range(start, end, COUNT_STEP):
        hi = min(end, lo + COUNT_STEP)
        body = np.frombuffer(data, dtype=np.uint8, count=hi - lo, offset=lo)
        quotes += int(np.count_nonzero(body == Q))
        commas += int(np.count_nonzero(body == COMMA))
    return quotes, commas


def nonempty(data: bytes, open_: int, close: int) -> bool:
    found = _WS.match(data, open_ + 1, close)
    return found is not None and found.end() != close
