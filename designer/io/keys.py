"""The keys of a design file's objects, for the first pass: codes for known
keys (found with numpy, several thousand at a time), unknown and repeated keys.
"""

from __future__ import annotations

import bisect
import json

import numpy as np
import numpy.typing as npt

from designer.core.model import LINK_COLUMNS
from designer.io import skeleton as sk
from designer.io.messages import json_path
from designer.io.shape import RCB, Box, Outline, Refused, Walk, line_col

UNKNOWN = -1  # a key that is no fixed key of any role
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


class KeyChecks:
    """The scanner's key work (a mixin: the scanner holds the state)."""

    data: bytes
    bytes: npt.NDArray[np.uint8]
    stack: list[Box]
    boxes: dict[int, Box]
    carried: dict[int, Box]
    runs: list[tuple[int, int, Box, int]]
    column_keys: set[str]
    spent: int
    out: Outline

    def _off(self, pos: int, place: str, message: str, cost: int) -> None:
        raise NotImplementedError

    def _check_budget(self, pending: int) -> None:
        raise NotImplementedError

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
        if qall.size == 0:  # a colon with no string before it at all (a broken file)
            qall = np.full(1, -1, dtype=np.int64)
        at = np.searchsorted(qall, spos[colon_at]) - 1
        valid = (at >= 1) & (qall[0] >= 0)
        kclose = np.where(valid, qall[np.maximum(at, 0)], -1)
        kopen = np.where(valid, qall[np.maximum(at - 1, 0)], -1)
        size = kclose - kopen - 1
        escaped = kopen < lo  # begun in an earlier window: decode it in Python
        if backslashes.size:
            escaped |= np.searchsorted(backslashes, kopen) != np.searchsorted(
                backslashes, kclose
            )
        short = valid & (size >= 1) & (size <= sk.MAX_KEY_BYTES) & ~escaped
        codes = np.full(n, UNKNOWN, dtype=np.int64)
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
            codes[i] = sk.KEY_CODE.get(key, UNKNOWN)
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
        walk: Walk,
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
        walk: Walk,
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
