"""First pass over a design file's bytes: its shape, before any value is built.

A JSON parser builds every value before a model can refuse it, so a file with
a 150-million-element array under an unknown key costs gigabytes before the
"unknown key" error. This pass reads only the file's structure: it finds the
strings, brackets, commas and colons with numpy, a few megabytes at a time
(memory stays a small multiple of that window, whatever the file size), and
walks the brackets against the design's shape (:mod:`designer.io.skeleton`).

It refuses, naming the place:

* a key given twice in one object (a parser silently keeps the last);
* an array or object with more entries than the model allows (devices, links,
  ...), counted by commas, before any entry is built;
* link columns of different lengths (when the link table is larger than
  :data:`BUDGET`: a small one is left to the model, which lists every problem);
* values that are not part of a design (unknown keys, an array where a string
  belongs, nesting a design never has) once they add up to more than
  :data:`BUDGET` bytes; smaller ones are left to the parser and the model,
  which list every problem in detail.

A flat array (no nested brackets, no escapes: every link column of a saved
file) is measured with a few C-level ``find``/``count`` calls and skipped; an
array of groups or devices whose rows hold their keys in the model's order is
checked by one pattern match (:data:`designer.io.skeleton.ROW_PATTERNS`) and
skipped too. Other forms are walked window by window.
Whatever passes this scan is bounded: at most the model's entry counts, plus
:data:`BUDGET` bytes of anything else. A file that is not valid JSON is left to
the parser at the first place the scan cannot follow (everything before that
place has passed, so the parser builds only bounded values before it fails).
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from designer.core.limits import NOTES_MAX
from designer.core.model import LINK_COLUMNS
from designer.io import skeleton as sk
from designer.io.messages import json_path

CHUNK = 1 << 20
"""Bytes looked at in one numpy step (1 MiB: temporaries stay near 30 MB)."""

COUNT_STEP = 1 << 24
"""Bytes of a flat array counted at a time (16 MiB)."""

MAX_WALKED = 1 << 16
"""Most brackets and keys one window walks in Python (memory stays ~15 MB)."""

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
_SPECIAL = bytes(b if b in b'"\\,:[]{}' else 0 for b in range(256))
_WS = re.compile(rb"[ \t\r\n]*")
_OPEN_OF = {RBK: LBK, RCB: LCB}

_UNKNOWN = -1  # a key that is no fixed key of any role
_ALLOWED = np.array(sk.allowed_table(), dtype=bool)
_NKEYS = len(sk.KEYS)
_FREE = np.array([sk.ROLES[r].free_keys for r in range(sk.ROLE_COUNT)], dtype=bool)
_FIXED = np.array([bool(sk.ROLES[r].keys) for r in range(sk.ROLE_COUNT)], dtype=bool)


def _pack(key: bytes) -> tuple[int, int]:
    padded = key.ljust(sk.MAX_KEY_BYTES, b"\0")
    words = np.frombuffer(padded, dtype="<u8")
    return int(words[0]), int(words[1])


_KEY_WORDS = sorted((_pack(k.encode()), i) for i, k in enumerate(sk.KEYS))
_KW0 = np.array([w[0][0] for w in _KEY_WORDS], dtype=np.uint64)
_KW1 = np.array([w[0][1] for w in _KEY_WORDS], dtype=np.uint64)
_KWCODE = np.array([w[1] for w in _KEY_WORDS], dtype=np.int64)
assert len(set(_KW0.tolist())) == len(_KW0)  # first 8 bytes tell keys apart


class _OverBudget(Exception):
    """The walk passed the budget at event ``event``."""

    def __init__(self, event: int) -> None:
        self.event = event
        super().__init__(event)


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


class _Box:
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
        parent: _Box | None,
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
        box: _Box | None = self
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


def rows_array(data: bytes, start: int, role: int) -> tuple[int, int] | None:
    """(end, most entries it can hold) of the array of groups or devices opening
    at ``start``, when every row is in the common form (:data:`sk.ROW_PATTERNS`);
    None otherwise (the caller then scans it)."""
    pattern = sk.ROW_PATTERNS.get(role)
    found = pattern.match(data, start) if pattern is not None else None
    if found is None or data.find(_BS, start, found.end()) >= 0:
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
        or data.find(_BS, start, end) >= 0
    ):
        return None
    quotes, commas = _count_bytes(data, start, end)
    if quotes & 1:
        return None  # that ']' is inside a string
    if quotes == 0:
        if commas == 0 and not _nonempty(data, start, end):
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


def _nonempty(data: bytes, open_: int, close: int) -> bool:
    found = _WS.match(data, open_ + 1, close)
    return found is not None and found.end() != close


def scan(data: bytes) -> Outline:
    """Check the shape of a design file; raise :class:`Refused` or return what
    the loader needs (where the links are)."""
    scanner = _Scanner(data)
    try:
        return scanner.run()
    except Refused as exc:
        exc.flat_spans = [s for s in scanner.flat_spans if s[1] <= exc.pos]
        raise


def _i64(values: object) -> npt.NDArray[np.int64]:
    return np.asarray(values, dtype=np.int64)


class _Scanner:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.bytes = np.frombuffer(data, dtype=np.uint8)
        self.stack: list[_Box] = []
        self.cid = 0
        self.parity = 0  # quotes so far, mod 2: 1 = inside a string
        self.escape_next = False  # the next byte is escaped by a backslash
        self.last_kind = 0  # kind of the last structural byte (0: none yet)
        self.last_key: tuple[int, int, int] | None = None  # last colon's key
        self.prev_quotes = _i64([])
        self.str_open = -1  # open quote of a string that runs past the window
        self.spent = 0
        self.first_off: tuple[int, str, str] | None = None
        self.open_off: _Box | None = None
        self.top_done = False
        self.runs: list[tuple[int, int, _Box, int]] = []  # (cid0, n, parent, index0)
        self.boxes: dict[int, _Box] = {}
        self.link_keys: dict[str, int] = {}
        self.pending_links: _Box | None = None
        self.column_keys: set[str] = set()  # column keys seen in the link table
        self.carried: dict[int, _Box] = {}  # open objects with keys of earlier windows
        self.flat_spans: list[tuple[int, int]] = []  # flat arrays measured, skipped
        self.window = 1 << 12  # small first: big arrays are often skipped whole
        self.out = Outline()

    # -- driver -----------------------------------------------------------------

    def run(self) -> Outline:
        lo, n = 0, len(self.data)
        while 0 <= lo < n:
            lo = self._window(lo, min(n, lo + self.window))
        if lo >= 0:
            self.out.complete = self.top_done
            if self.str_open >= 0 and n - self.str_open > MAX_STRING_BYTES:
                self._long_string(self.str_open, n - self.str_open, whole=False)
        if self.open_off is not None:
            self._check_budget(len(self.data) - self.open_off.open)
        return self.out

    # -- deviations (values that are not part of a design) --------------------

    def _off(self, pos: int, place: str, message: str, cost: int) -> None:
        if self.first_off is None or pos < self.first_off[0]:
            self.first_off = (pos, place, message)
        self.spent += cost
        self._check_budget(0)

    def _check_budget(self, pending: int) -> None:
        if self.spent + pending > BUDGET and self.first_off is not None:
            raise Refused(*self.first_off)

    def _long_string(self, pos: int, size: int, whole: bool = True) -> None:
        more = "" if whole else "more than "
        self._off(
            pos,
            line_col(self.data, pos),
            f"a string of {more}{size:,} bytes; expected text of at most "
            f"{NOTES_MAX:,} characters (the longest a design holds)",
            size,
        )

    # -- one window ---------------------------------------------------------------

    def _window(self, lo: int, hi: int) -> int:
        """Scan ``data[lo:hi]``; return where to go on (-1: leave it to the parser)."""
        self.carried = {b.cid: b for b in self.stack if b.keys}
        view = np.frombuffer(self.data[lo:hi].translate(_SPECIAL), dtype=np.uint8)
        pos = np.flatnonzero(view)
        kind = view[pos]
        walked = np.flatnonzero((kind == COLON) | (kind == LBK) | (kind == LCB))
        if walked.size > MAX_WALKED and hi - lo > 1:
            # Dense structure: the walk holds Python ints per bracket and key, so
            # look at fewer bytes at a time (nothing of this window is used yet).
            self.window = max(1, int(pos[walked[MAX_WALKED]]))
            return lo
        backslashes = _i64([])
        is_bs = kind == BS
        if self.escape_next or is_bs.any():
            backslashes = pos[is_bs] + lo
            pos, kind = self._unescape(pos, kind, is_bs, hi - lo)
        is_q = kind == Q
        parity = (np.cumsum(is_q) + self.parity) & 1
        outside = ~is_q & (parity == 0)
        quotes = pos[is_q] + lo
        spos = pos[outside] + lo
        skind = kind[outside]
        self._strings(quotes, hi)
        earlier = self.prev_quotes
        self.prev_quotes = np.concatenate([earlier, quotes])[-2:]
        return self._structure(earlier, lo, hi, quotes, backslashes, spos, skind)

    def _unescape(
        self,
        pos: npt.NDArray[np.int64],
        kind: npt.NDArray[np.uint8],
        is_bs: npt.NDArray[np.bool_],
        size: int,
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8]]:
        """Drop backslashes and the bytes they escape (runs of backslashes pair up)."""
        bpos = pos[is_bs]
        escaped: list[npt.NDArray[np.int64]] = []
        carry = self.escape_next
        self.escape_next = False
        if carry and (bpos.size == 0 or bpos[0] != 0):
            escaped.append(_i64([0]))
        if bpos.size:
            starts = np.ones(bpos.size, dtype=bool)
            starts[1:] = bpos[1:] != bpos[:-1] + 1
            first = np.flatnonzero(starts)
            last = np.append(first[1:], bpos.size) - 1
            length = bpos[last] - bpos[first] + 1
            run_escaped = (bpos[first] == 0) & carry
            after = ((length & 1) == 1) != run_escaped
            targets = bpos[last][after] + 1
            if targets.size and targets[-1] == size:
                self.escape_next = True
                targets = targets[:-1]
            escaped.append(targets)
        keep = ~is_bs
        if escaped:
            hit = np.concatenate(escaped)
            at = np.searchsorted(pos, hit)
            inside = at < pos.size
            at, hit = at[inside], hit[inside]
            keep[at[pos[at] == hit]] = False
        return pos[keep], kind[keep]

    def _strings(self, quotes: npt.NDArray[np.int64], hi: int) -> None:
        """Strings longer than any a design holds count as values not part of it."""
        n = quotes.size
        if n:
            if self.parity:
                opens = np.concatenate([_i64([self.str_open]), quotes[1::2]])
                closes = quotes[0::2]
            else:
                opens, closes = quotes[0::2], quotes[1::2]
            m = min(opens.size, closes.size)
            sizes = closes[:m] - opens[:m] - 1
            long = np.flatnonzero(sizes > MAX_STRING_BYTES)
            for i in long.tolist():
                self._long_string(int(opens[i]), int(sizes[i]))
            self.parity = (self.parity + n) & 1
            self.str_open = int(opens[-1]) if self.parity else -1
        if self.str_open >= 0 and hi - self.str_open > BUDGET:
            self._long_string(self.str_open, hi - self.str_open, whole=False)

    # -- structure ----------------------------------------------------------------

    def _structure(
        self,
        earlier: npt.NDArray[np.int64],
        lo: int,
        hi: int,
        quotes: npt.NDArray[np.int64],
        backslashes: npt.NDArray[np.int64],
        spos: npt.NDArray[np.int64],
        skind: npt.NDArray[np.uint8],
    ) -> int:
        is_event = (skind == LBK) | (skind == RBK) | (skind == LCB) | (skind == RCB)
        events = np.flatnonzero(is_event)
        is_colon = skind == COLON
        colon_at = np.flatnonzero(is_colon)
        comma_cum = np.cumsum(skind == COMMA)
        total_commas = int(comma_cum[-1]) if comma_cum.size else 0
        before = comma_cum[events]
        seg_commas = np.diff(before, prepend=0)
        tail_commas = total_commas - (int(before[-1]) if before.size else 0)
        prev = np.empty(events.size, dtype=np.int64)
        if events.size:
            prev[1:] = skind[events[1:] - 1]
            prev[0] = skind[events[0] - 1] if events[0] > 0 else self.last_kind
        codes, kopen, kclose = self._key_codes(
            colon_at, spos, np.concatenate([earlier, quotes]), backslashes, lo
        )
        colon_rank = np.cumsum(is_colon) - 1
        prev_colon = np.where(
            prev == COLON, colon_rank[np.maximum(events - 1, 0)], -1
        ).astype(np.int64)
        if events.size and events[0] == 0 and self.last_kind == COLON:
            prev_colon[0] = -2  # the key is the last one of the previous window
        nseg = events.size + 1
        seg_cid = np.full(nseg, -1, dtype=np.int64)
        seg_role = np.full(nseg, sk.OFF, dtype=np.int64)
        walk = _Walk(
            spos[events].tolist(),
            skind[events].tolist(),
            seg_commas.tolist(),
            prev.tolist(),
            prev_colon.tolist(),
            codes,
            kopen,
            kclose,
            self._runs(skind, events, prev),
            seg_cid,
            seg_role,
        )
        over = False
        try:
            stop, jump = self._walk(walk)
        except _OverBudget as exc:
            stop, jump, over = exc.event, None, True
        # keys of the segments walked (all of them unless the walk stopped early)
        upto = int(events[stop]) if stop < events.size else skind.size
        n = int(np.searchsorted(colon_at, upto))
        self._check_keys(colon_at[:n], codes, kopen, kclose, spos, events, walk)
        if over:
            self._check_budget(BUDGET + 1)
        if self.pending_links is not None:
            self._check_columns(self.pending_links)
            self.pending_links = None
        if stop < events.size and jump is None:
            return -1
        self._carry_keys(colon_at[:n], codes, kopen, kclose, events, seg_cid)
        if jump is not None:
            self.parity, self.escape_next, self.str_open = 0, False, -1
            self.last_kind, self.last_key = RBK, None
            self.prev_quotes = _i64([])
            self.window = 1 << 12  # the next column is near: look at a little first
            return jump
        if self.stack:
            top = self.stack[-1]
            top.count += tail_commas
            self._limit(top)
        if self.open_off is not None:
            self._check_budget(hi - self.open_off.open)
        if skind.size:
            self.last_kind = int(skind[-1])
            self.last_key = None
            if self.last_kind == COLON and codes:
                self.last_key = (codes[-1], kopen[-1], kclose[-1])
        self.window = min(CHUNK, self.window * 8)
        return hi

    def _key_codes(
        self,
        colon_at: npt.NDArray[np.int64],
        spos: npt.NDArray[np.int64],
        quotes: npt.NDArray[np.int64],
        backslashes: npt.NDArray[np.int64],
        lo: int,
    ) -> tuple[list[int], list[int], list[int]]:
        """For each colon: the code of the key before it, and the key's quotes."""
        n = colon_at.size
        if n == 0:
            return [], [], []
        qall = quotes  # the window's quotes after the last two of earlier windows
        at = np.searchsorted(qall, spos[colon_at]) - 1
        valid = at >= 1
        kclose = np.where(valid, qall[np.maximum(at, 0)], -1)
        kopen = np.where(valid, qall[np.maximum(at - 1, 0)], -1)
        size = kclose - kopen - 1
        escaped = kopen < lo  # begun in an earlier window: decode it in Python
        if backslashes.size:
            escaped |= np.searchsorted(backslashes, kopen) != np.searchsorted(
                backslashes, kclose
            )
        short = valid & (size >= 1) & (size <= sk.MAX_KEY_BYTES) & ~escaped
        codes = np.full(n, _UNKNOWN, dtype=np.int64)
        pick = np.flatnonzero(short)
        if pick.size:
            width = np.arange(sk.MAX_KEY_BYTES)
            index = kopen[pick, None] + 1 + width
            inside = width < size[pick, None]
            raw = np.where(inside, self.bytes[np.where(inside, index, 0)], 0)
            words = np.ascontiguousarray(raw, dtype=np.uint8).view("<u8")
            w0, w1 = words[:, 0], words[:, 1]
            slot = np.minimum(np.searchsorted(_KW0, w0), len(_KW0) - 1)
            hit = (_KW0[slot] == w0) & (_KW1[slot] == w1)
            codes[pick[hit]] = _KWCODE[slot[hit]]
        for i in np.flatnonzero(valid & escaped).tolist():  # rare: decode in Python
            key = self._key_text(int(kopen[i]), int(kclose[i]))
            codes[i] = sk.KEY_CODE.get(key, _UNKNOWN)
        return codes.tolist(), kopen.tolist(), kclose.tolist()

    def _key_text(self, kopen: int, kclose: int) -> str:
        if kopen < 0:
            return "?"
        raw = self.data[kopen : kclose + 1]
        try:
            text = json.loads(raw)
        except ValueError:
            return raw[1:-1].decode("utf-8", "replace")
        return text if isinstance(text, str) else "?"

    @staticmethod
    def _runs(
        skind: npt.NDArray[np.uint8],
        events: npt.NDArray[np.int64],
        prev: npt.NDArray[np.int64],
    ) -> list[int]:
        """For each event: how many childless objects ``{...}`` follow one another
        from it in an array (each after '[' or ','), 0 when it starts none."""
        m = events.size
        if m < 2:
            return [0] * m
        ek = skind[events]
        pair = np.zeros(m, dtype=bool)
        pair[:-1] = (
            (ek[:-1] == LCB)
            & (ek[1:] == RCB)
            & ((prev[:-1] == LBK) | (prev[:-1] == COMMA))
        )
        out = np.zeros(m, dtype=np.int64)
        for start in (0, 1):
            b = pair[start::2]
            idx = np.arange(b.size)
            falses = np.append(np.flatnonzero(~b), b.size)
            out[start::2] = falses[np.searchsorted(falses, idx)] - idx
        return out.tolist()

    # -- the walk over brackets -------------------------------------------------

    def _walk(self, w: _Walk) -> tuple[int, int | None]:
        """Follow the brackets; return (index of the event it stopped at, or the
        event count; where to jump to after a column read by pattern, or None)."""
        stack = self.stack
        k, m = 0, len(w.pos)
        while k < m:
            top = stack[-1] if stack else None
            if top is not None:
                if w.seg_commas[k]:
                    top.count += w.seg_commas[k]
                    self._limit(top)
                w.seg_cid[k], w.seg_role[k] = top.cid, top.role
            p, kind = w.pos[k], w.kind[k]
            if kind in (RBK, RCB):
                if top is None or _OPEN_OF[kind] != (LBK if top.closer == RBK else LCB):
                    return k, None  # not JSON: the parser says where
                self._close(top, p)
                k += 1
                continue
            if top is None:
                if self.top_done or w.prev[k] != 0:
                    return k, None
                self._open_top(p, kind)
                k += 1
                continue
            if top.closer == RCB:  # in an object: a value after its key
                if w.prev[k] != COLON:
                    return k, None
                key, code = self._key_of(w, k)
            else:
                if w.prev[k] not in (LBK, COMMA):
                    return k, None
                key, code = None, _UNKNOWN
            if top.role == sk.OFF:
                pending = p - self.open_off.open if self.open_off else 0
                if self.spent + pending > BUDGET:
                    raise _OverBudget(k)
                self._push(sk.OFF, p, kind, top, key if key is not None else top.count)
                k += 1
                continue
            run = w.runs[k]
            if key is None and run and top.role in sk.ELEMENT_ROLE:
                self._run(w, k, run, top)
                k += 2 * run
                continue
            jump = self._open_child(top, p, kind, key, code, w, k)
            if jump is not None:
                return k, jump
            k += 1
        if stack:
            w.seg_cid[m], w.seg_role[m] = stack[-1].cid, stack[-1].role
        return m, None

    def _key_of(self, w: _Walk, k: int) -> tuple[str, int]:
        rank = w.prev_colon[k]
        if rank == -2:
            assert self.last_key is not None
            code, kopen, kclose = self.last_key
        else:
            code, kopen, kclose = w.codes[rank], w.kopen[rank], w.kclose[rank]
        text = sk.KEYS[code] if code >= 0 else self._key_text(kopen, kclose)
        return text, code

    def _push(
        self,
        role: int,
        pos: int,
        kind: int,
        parent: _Box | None,
        part: str | int | None,
        off_root: bool = False,
    ) -> _Box:
        box = _Box(role, pos, RBK if kind == LBK else RCB, parent, part, self.cid)
        box.off_root = off_root
        self.cid += 1
        self.stack.append(box)
        if role != sk.OFF or off_root:  # nothing inside a deviation is looked up
            self.boxes[box.cid] = box
        if off_root:
            self.open_off = box
        return box

    def _open_top(self, pos: int, kind: int) -> None:
        if kind == LCB:
            self._push(sk.TOP, pos, kind, None, None)
            return
        self._push(sk.OFF, pos, kind, None, None, off_root=True)
        self._register_off(pos, "(top level)", f"{EXPECT_DESIGN}, found an array")

    def _register_off(self, pos: int, place: str, message: str) -> None:
        if self.first_off is None or pos < self.first_off[0]:
            self.first_off = (pos, place, message)

    def _open_child(
        self,
        top: _Box,
        pos: int,
        kind: int,
        key: str | None,
        code: int,
        w: _Walk,
        k: int,
    ) -> int | None:
        role, expected = sk.child_role(top.role, key, kind)
        part: str | int = key if key is not None else top.count
        if role == sk.OFF:
            place = json_path((*top.loc(), part))
            found = "an array" if kind == LBK else "an object"
            if key is not None and not expected:
                allowed = sk.allowed_keys(top.role)
                message = f"unknown key; expected one of: {allowed}"
            else:
                if top.role == sk.COLUMN:
                    expected = sk.EXPECTED.get(str(top.part), "a value")
                message = f"expected {expected}, found {found}"
            self._push(sk.OFF, pos, kind, top, part, off_root=True)
            self._register_off(pos, place, message)
            return None
        if role == sk.COLUMN and key is not None:
            self.link_keys[key] = pos
            flat = flat_array(self.data, pos)
            if flat is not None:
                end, count = flat
                self.flat_spans.append((pos, end))
                self._column_count(key, count, top)
                self.out.columns[key] = Column(pos, end, count)
                return end
        if role in sk.ROW_PATTERNS:
            rows = rows_array(self.data, pos, role)
            if rows is not None:
                end, most = rows
                limit = sk.ROLES[role].limit
                if limit is None or most <= limit:
                    return end  # checked whole; at most ``limit`` rows
        self._push(role, pos, kind, top, part)
        if role in (sk.LINKS, sk.V0LINKS):
            self.out.links_object = role == sk.LINKS
        return None

    def _run(self, w: _Walk, k: int, run: int, parent: _Box) -> None:
        """``run`` childless objects at once (the common device and group rows)."""
        role = sk.ELEMENT_ROLE[parent.role]
        self.runs.append((self.cid, run, parent, parent.count))
        w.seg_cid[k + 1 : k + 2 * run : 2] = np.arange(self.cid, self.cid + run)
        w.seg_role[k + 1 : k + 2 * run : 2] = role
        w.seg_cid[k + 2 : k + 2 * run : 2] = parent.cid
        w.seg_role[k + 2 : k + 2 * run : 2] = parent.role
        self.cid += run
        between = sum(w.seg_commas[k + 2 : k + 2 * run : 2])
        parent.count += between
        self._limit(parent)

    def _close(self, box: _Box, pos: int) -> None:
        self.stack.pop()
        if box.off_root:
            self.open_off = None
            self.spent += pos - box.open + 1
            self._check_budget(0)
        if box.role == sk.OFF:
            return
        entries = (
            box.count + 1 if box.count or _nonempty(self.data, box.open, pos) else 0
        )
        self._limit(box, entries)
        if box.role == sk.COLUMN:
            name = str(box.part)
            self._column_count(name, entries, box.parent)
            self.out.columns[name] = Column(box.open, pos + 1, entries)
        elif box.role in (sk.LINKS, sk.V0LINKS):
            self.out.links_span = (box.open, pos + 1)
            if box.role == sk.LINKS:
                self.pending_links = box  # after this window's keys are known
        elif box.role == sk.TOP:
            self.top_done = True

    def _limit(self, box: _Box, entries: int | None = None) -> None:
        limit = sk.ROLES[box.role].limit
        if entries is None:
            entries = box.count + 1
        if limit is not None and entries > limit:
            role = sk.ROLES[box.role]
            raise Refused(
                box.open,
                json_path(box.loc()) or "(top level)",
                f"more than {limit:,} entries; expected at most {limit:,} "
                f"{role.noun} (the most a design may hold)",
            )

    def _column_count(self, name: str, count: int, links: _Box | None) -> None:
        limit = sk.ROLES[sk.COLUMN].limit
        assert limit is not None
        if count > limit and links is not None:
            raise Refused(
                self.link_keys.get(name, links.open),
                json_path((*links.loc(), name)),
                f"{count:,} entries; expected at most {limit:,} links "
                "(the most a design may hold)",
            )

    def _check_columns(self, links: _Box) -> None:
        """Every column has one entry per link id (as the model says it)."""
        cols = self.out.columns
        if any(k not in self.link_keys for k in self.column_keys):
            self.out.column_scalars = True
            return  # a column that is not an array: the model says so
        if self.out.links_span is None:
            return
        start, end = self.out.links_span
        if end - start <= BUDGET:
            return  # small: the model lists it with every other problem
        n = cols["id"].count if "id" in cols else 0
        for name in LINK_COLUMNS:
            got = cols[name].count if name in cols else 0
            if got != n:
                raise Refused(
                    links.open,
                    json_path(links.loc()),
                    f"column {name!r} has {got} entries, expected {n} "
                    "(one per link id)",
                )

    # -- keys ---------------------------------------------------------------------

    def _container_loc(self, cid: int) -> tuple[str | int, ...]:
        box = self.boxes.get(cid)
        if box is not None:
            return box.loc()
        at = bisect.bisect_right(self.runs, cid, key=lambda r: r[0]) - 1
        cid0, _n, parent, index0 = self.runs[at]
        return (*parent.loc(), index0 + (cid - cid0))

    def _check_keys(
        self,
        colon_at: npt.NDArray[np.int64],
        codes_list: list[int],
        kopen_list: list[int],
        kclose_list: list[int],
        spos: npt.NDArray[np.int64],
        events: npt.NDArray[np.int64],
        walk: _Walk,
    ) -> None:
        """Unknown keys (left to the model while small) and repeated keys."""
        n = colon_at.size
        if n == 0:
            return
        codes = np.asarray(codes_list[:n], dtype=np.int64)
        seg = np.searchsorted(events, colon_at)
        cid, role = walk.seg_cid[seg], walk.seg_role[seg]
        known = cid >= 0
        fixed = known & _FIXED[role]
        coded = codes >= 0
        allowed = np.zeros(n, dtype=bool)
        allowed[coded] = _ALLOWED[role[coded], codes[coded]]
        for i in np.flatnonzero(known & ((role == sk.TOP) | (role == sk.LINKS))):
            self._note_key(int(role[i]), int(codes[i]), int(spos[colon_at[i]]))
        unknown = np.flatnonzero(fixed & ~allowed)
        for i in unknown[:64].tolist():
            key = self._key_text(kopen_list[i], kclose_list[i])
            place = json_path((*self._container_loc(int(cid[i])), key))
            self._off(
                kopen_list[i],
                place,
                f"unknown key; expected one of: {sk.allowed_keys(int(role[i]))}",
                64 + kclose_list[i] - kopen_list[i],
            )
        if unknown.size > 64:
            self.spent += 64 * int(unknown.size - 64)
            self._check_budget(0)
        dup = self._first_repeat(fixed & coded, known & _FREE[role], codes, cid, walk)
        if dup is not None:
            self._duplicate(dup, codes_list, kopen_list, kclose_list, cid)

    def _note_key(self, role: int, code: int, colon: int) -> None:
        if code < 0:
            return
        key = sk.KEYS[code]
        if role == sk.TOP and key == "schema_version":
            self.out.version_colon = colon
        elif role == sk.LINKS and key in LINK_COLUMNS:
            self.column_keys.add(key)

    def _first_repeat(
        self,
        fixed: npt.NDArray[np.bool_],
        free: npt.NDArray[np.bool_],
        codes: npt.NDArray[np.int64],
        cid: npt.NDArray[np.int64],
        walk: _Walk,
    ) -> int | None:
        """Index of the first colon whose key repeats one of its object's keys."""
        found: list[int] = []
        pick = np.flatnonzero(fixed)
        if pick.size > 1:
            comp = cid[pick] * _NKEYS + codes[pick]
            order = np.argsort(comp, kind="stable")
            same = comp[order][1:] == comp[order][:-1]
            if same.any():
                found.append(int(pick[order[1:][same]].min()))
        # objects open since an earlier window (they may have closed in this one)
        carried = {c: b for c, b in self.carried.items() if b.keys}
        if carried:
            for i in pick[np.isin(cid[pick], list(carried))].tolist():
                keys = carried[int(cid[i])].keys
                if keys is not None and int(codes[i]) in keys:
                    found.append(i)
                    break
        seen: set[tuple[int, str]] = set()
        for i in np.flatnonzero(free).tolist():
            key = self._key_text(walk.kopen[i], walk.kclose[i])
            box = self.boxes.get(int(cid[i]))
            if (int(cid[i]), key) in seen or (
                box is not None and box.keys is not None and key in box.keys
            ):
                found.append(i)
                break
            seen.add((int(cid[i]), key))
        return min(found) if found else None

    def _duplicate(
        self,
        i: int,
        codes: list[int],
        kopen: list[int],
        kclose: list[int],
        cid: npt.NDArray[np.int64],
    ) -> None:
        key = self._key_text(kopen[i], kclose[i])
        first = kopen[i]
        box = self.boxes.get(int(cid[i]))
        if box is not None and box.keys is not None:
            first = box.keys.get(codes[i] if codes[i] >= 0 else key, first)
        for j in range(i):
            if cid[j] == cid[i] and self._key_text(kopen[j], kclose[j]) == key:
                first = kopen[j]
                break
        place = json_path((*self._container_loc(int(cid[i])), key))
        raise Refused(
            kopen[i],
            f"{place} ({line_col(self.data, kopen[i])})",
            f"duplicate key {key!r} (first at {line_col(self.data, first)}); "
            "expected each key once in an object",
        )

    def _carry_keys(
        self,
        colon_at: npt.NDArray[np.int64],
        codes: list[int],
        kopen: list[int],
        kclose: list[int],
        events: npt.NDArray[np.int64],
        seg_cid: npt.NDArray[np.int64],
    ) -> None:
        """Remember the keys of objects still open, for the next window."""
        open_ids = {
            b.cid: b for b in self.stack if b.closer == RCB and b.role != sk.OFF
        }
        if not open_ids or colon_at.size == 0:
            return
        seg = np.searchsorted(events, colon_at)
        for i in np.flatnonzero(np.isin(seg_cid[seg], list(open_ids))).tolist():
            box = open_ids[int(seg_cid[seg[i]])]
            if box.keys is None:
                box.keys = {}
            key: object
            if sk.ROLES[box.role].free_keys:
                key = self._key_text(kopen[i], kclose[i])
            elif codes[i] >= 0:
                key = codes[i]
            else:
                continue
            box.keys.setdefault(key, kopen[i])


@dataclass
class _Walk:
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
