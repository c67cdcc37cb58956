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

import numpy as np
import numpy.typing as npt

from designer.core.limits import NOTES_MAX
from designer.core.model import LINK_COLUMNS
from designer.io import skeleton as sk
from designer.io.arrays import flat_array, nonempty, rows_array
from designer.io.keys import UNKNOWN, KeyChecks
from designer.io.messages import json_path
from designer.io.shape import (
    BS,
    BUDGET,
    COLON,
    COMMA,
    EXPECT_DESIGN,
    LBK,
    LCB,
    MAX_STRING_BYTES,
    RBK,
    RCB,
    Box,
    Column,
    Outline,
    Q,
    Refused,
    Walk,
    i64,
    line_col,
)

OPTIONAL_LINK_COLUMNS = ("a_pins", "b_pins")
"""Link columns a file may leave out (their links' ports are chosen on open)."""

__all__ = [
    "BUDGET",
    "CHUNK",
    "EXPECT_DESIGN",
    "Column",
    "Outline",
    "Refused",
    "flat_array",
    "line_col",
    "rows_array",
    "scan",
]

CHUNK = 1 << 20
"""Bytes looked at in one numpy step (1 MiB: temporaries stay near 30 MB)."""

MAX_WALKED = 1 << 16
"""Most brackets and keys one window walks in Python (memory stays ~15 MB)."""

_SPECIAL = bytes(b if b in b'"\\,:[]{}' else 0 for b in range(256))
_OPEN_OF = {RBK: LBK, RCB: LCB}


class _OverBudget(Exception):
    """The walk passed the budget at event ``event``."""

    def __init__(self, event: int) -> None:
        self.event = event
        super().__init__(event)


def scan(data: bytes) -> Outline:
    """Check the shape of a design file; raise :class:`Refused` or return what
    the loader needs (where the links are)."""
    scanner = _Scanner(data)
    try:
        return scanner.run()
    except Refused as exc:
        exc.flat_spans = [s for s in scanner.flat_spans if s[1] <= exc.pos]
        raise


class _Scanner(KeyChecks):
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.bytes = np.frombuffer(data, dtype=np.uint8)
        self.stack: list[Box] = []
        self.cid = 0
        self.parity = 0  # quotes so far, mod 2: 1 = inside a string
        self.escape_next = False  # the next byte is escaped by a backslash
        self.last_kind = 0  # kind of the last structural byte (0: none yet)
        self.last_key: tuple[int, int, int] | None = None  # last colon's key
        self.prev_quotes = i64([])
        self.str_open = -1  # open quote of a string that runs past the window
        self.spent = 0
        self.first_off: tuple[int, str, str] | None = None
        self.open_off: Box | None = None
        self.top_done = False
        self.runs: list[tuple[int, int, Box, int]] = []  # (cid0, n, parent, index0)
        self.boxes: dict[int, Box] = {}
        self.link_keys: dict[str, int] = {}
        self.pending_links: Box | None = None
        self.column_keys: set[str] = set()  # column keys seen in the link table
        self.carried: dict[int, Box] = {}  # open objects with keys of earlier windows
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
        backslashes = i64([])
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
            escaped.append(i64([0]))
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
                opens = np.concatenate([i64([self.str_open]), quotes[1::2]])
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
        walk = Walk(
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
            self.prev_quotes = i64([])
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

    def _walk(self, w: Walk) -> tuple[int, int | None]:
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
                key, code = None, UNKNOWN
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

    def _key_of(self, w: Walk, k: int) -> tuple[str, int]:
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
        parent: Box | None,
        part: str | int | None,
        off_root: bool = False,
    ) -> Box:
        box = Box(role, pos, RBK if kind == LBK else RCB, parent, part, self.cid)
        box.off_root = off_root
        self.cid += 1
        self.stack.append(box)
        if len(self.stack) > self.out.max_depth:
            self.out.max_depth = len(self.stack)
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
        top: Box,
        pos: int,
        kind: int,
        key: str | None,
        code: int,
        w: Walk,
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

    def _run(self, w: Walk, k: int, run: int, parent: Box) -> None:
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

    def _close(self, box: Box, pos: int) -> None:
        self.stack.pop()
        if box.off_root:
            self.open_off = None
            self.spent += pos - box.open + 1
            self._check_budget(0)
        if box.role == sk.OFF:
            return
        entries = (
            box.count + 1 if box.count or nonempty(self.data, box.open, pos) else 0
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

    def _limit(self, box: Box, entries: int | None = None) -> None:
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

    def _column_count(self, name: str, count: int, links: Box | None) -> None:
        limit = sk.ROLES[sk.COLUMN].limit
        assert limit is not None
        if count > limit and links is not None:
            raise Refused(
                self.link_keys.get(name, links.open),
                json_path((*links.loc(), name)),
                f"{count:,} entries; expected at most {limit:,} links "
                "(the most a design may hold)",
            )

    def _check_columns(self, links: Box) -> None:
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
            if name in OPTIONAL_LINK_COLUMNS and name not in cols:
                continue  # no pins yet (schema_version 4 and older): chosen on open
            got = cols[name].count if name in cols else 0
            if got != n:
                raise Refused(
                    links.open,
                    json_path(links.loc()),
                    f"column {name!r} has {got} entries, expected {n} "
                    "(one per link id)",
                )
