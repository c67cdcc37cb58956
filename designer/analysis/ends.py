"""Link ends joined with the catalog: facts per kind of end, codes per link.

Every link has an a end and a b end. What the catalog says about an end depends
only on its (catalog entry, port group, fabric, speed, medium): its *kind*. A
design of 300,000 links has a handful of kinds, so the facts are looked up once
per kind into small tables, and each link carries the kind code of its two ends
(``code_a``, ``code_b``). Port budgets, optics and cable classes sum per-link
weights straight into (device, port group) bins; the per-end arrays that only
findings read (``known``, ``supported``...) are built on first use, and only
when some kind of end in the design is wrong.

Built once per index by :func:`ends_of`.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import numpy.typing as npt

from designer.analysis.graph import PATCH_MAX_ROWS
from designer.analysis.index import (
    BoolArray,
    DesignIndex,
    FloatArray,
    IntArray,
)
from designer.analysis.lengths import media_of
from designer.catalog.optics import MEDIA
from designer.core.model import FABRICS

Codes = npt.NDArray[np.int32]


@dataclass
class Kinds:
    """Facts per kind of link end (row ``j``: kind code ``j``)."""

    known: BoolArray
    """The port group exists on the device's catalog entry."""
    supported: BoolArray
    """The port group runs at the link's speed."""
    role_ok: BoolArray
    """The port group is meant for the link's fabric."""
    split: FloatArray
    """Links per native port at the link's speed (breakout), >= 1."""
    per_cage: FloatArray
    """Links one pluggable cage carries (0: no module, e.g. copper)."""
    module: IntArray
    """Module type (index into ``EndTable.module_id``), -1 for none."""
    block: IntArray
    """Optics block (module, split, breakout speed, links per cage), -1: none."""
    cable: IntArray
    """Cable class (speed, media of the port group) of a link whose a end this is."""
    port_group: list[int]
    """Catalog entry and port group (``entry * P + port``) of each kind."""
    module_id: list[str]
    blocks: list[tuple[int, int, float]]
    cable_classes: list[tuple[int, str]]


@dataclass(frozen=True)
class Basis:
    """How an end table's kind codes were made, and how often each occurs:
    what :func:`patched_end_table` needs to code a few new rows the same way
    and to tell whether the set of kinds, speeds or pairs changed."""

    kinds_present: IntArray
    """The kind key of each kind code (ascending)."""
    speeds: IntArray
    """The distinct link speeds (ascending): the speed codes in the keys."""
    speed_count: IntArray
    """Links per speed (``np.bincount`` of the speeds)."""
    kind_count: IntArray
    """Ends per kind code (both ends of every link)."""
    pair_count: IntArray
    """Links per kind pair (``code_a * kinds + code_b``)."""


@dataclass
class EndTable:
    """Both ends of every link as kind codes, with the facts per kind.

    ``group_a``/``group_b`` are each end's (device, port group) bin
    ``device * P + port`` (``P`` port names); ``blocks`` describes the optics
    blocks and ``cables`` the cable classes the kind tables point into.
    """

    m: int
    n_ports: int
    code_a: Codes
    code_b: Codes
    kinds: Kinds
    module_id: list[str]
    blocks: list[tuple[int, int, float]]
    """Per optics block: (module, split, ports of that split per cage)."""
    cable_classes: list[tuple[int, str]]
    """Per cable class: (speed Gb/s, media of the a-end port group)."""
    group_a: IntArray
    group_b: IntArray
    pair_code: IntArray
    """Kind pair of each link (``code_a * kinds + code_b``)."""
    pair_media_ok: BoolArray
    """Per kind pair: the two port groups speak the same link layer."""
    source: weakref.ref[DesignIndex] = field(repr=False)
    """The index whose links these are, weakly: the index keeps its table
    (``DesignIndex._ends``), and a table that held its index strongly would
    make a cycle, which keeps a state's arrays (~90 MB at 100K GPUs) alive
    until a full garbage collection; freed by reference counting instead,
    their memory is reused by the next state's rather than faulted in anew."""
    basis: Basis | None = field(default=None, repr=False)
    """How the kind codes were made (for :func:`patched_end_table`)."""

    @property
    def index(self) -> DesignIndex:
        """The index whose links these are (see :attr:`source`)."""
        index = self.source()
        if index is None:
            raise RuntimeError("an end table was read after its index was freed")
        return index

    @property
    def all_known(self) -> bool:
        """Every end's port group exists on its device."""
        return bool(self.kinds.known.all())

    @property
    def all_fine(self) -> bool:
        """No end with an unknown group, a wrong speed, role or media."""
        k = self.kinds
        return bool(
            (k.known & k.supported & k.role_ok).all() and self.pair_media_ok.all()
        )

    def links_of(self, rows: IntArray) -> IntArray:
        """Link position of each end row (row ``i``: a end, ``m + i``: b end)."""
        out: IntArray = rows % max(self.m, 1)
        return out

    def _per_end(self, table: BoolArray) -> BoolArray:
        return np.concatenate((table[self.code_a], table[self.code_b]))

    @cached_property
    def dev(self) -> IntArray:
        """Device of each end row."""
        return np.concatenate((self.index.a, self.index.b))

    @cached_property
    def port(self) -> IntArray:
        """Port group (index into the port names) of each end row."""
        return np.concatenate((self.index.a_port, self.index.b_port))

    @cached_property
    def known(self) -> BoolArray:
        """Per end row: its port group exists."""
        return self._per_end(self.kinds.known)

    @cached_property
    def supported(self) -> BoolArray:
        """Per end row: its port group runs at the link's speed."""
        return self._per_end(self.kinds.supported)

    @cached_property
    def role_ok(self) -> BoolArray:
        """Per end row: its port group is meant for the link's fabric."""
        return self._per_end(self.kinds.role_ok)

    @cached_property
    def media_ok(self) -> BoolArray:
        """Per end row: the link's two port groups speak the same link layer."""
        ok = self.pair_media_ok[self.pair_code]
        return np.concatenate((ok, ok))

    def usage(self, side: str) -> FloatArray:
        """Native ports each link takes at its ``side`` ("a" or "b") end."""
        code = self.code_a if side == "a" else self.code_b
        out: FloatArray = self.index.cables / self.kinds.split[code]
        return out


def ends_of(index: DesignIndex) -> EndTable:
    """The index's end table, built on first use and kept with the index."""
    if index._ends is None:
        index._ends = end_table(index)
    table: EndTable = index._ends
    return table


def _present(keys_a: IntArray, keys_b: IntArray, size: int) -> IntArray:
    """Sorted distinct values of two key arrays in ``[0, size)``."""
    if not len(keys_a):
        return np.zeros(0, dtype=np.int64)
    if size <= 4 * len(keys_a) + 1_000_000:
        seen = np.bincount(keys_a, minlength=size) + np.bincount(keys_b, minlength=size)
        return np.flatnonzero(seen)
    return np.unique(np.concatenate((keys_a, keys_b)))


def _codes(keys: IntArray, present: IntArray, size: int) -> Codes:
    """Position of each key in the sorted distinct keys ``present``."""
    if size <= 50_000_000:
        lookup = np.zeros(size, dtype=np.int32)
        lookup[present] = np.arange(len(present), dtype=np.int32)
        out: Codes = lookup[keys]
        return out
    return np.searchsorted(present, keys).astype(np.int32)


def end_table(index: DesignIndex) -> EndTable:
    """Kind codes of both ends of every link and the facts of each kind.

    A kind is (catalog entry and port group, fabric, speed, medium): everything
    the catalog lookups depend on. The medium is the one the link's length picks
    when the design is placed, else the port group's default.
    """
    m = index.n_links
    n_ports = max(len(index.port_names), 1)
    a, b = index.a, index.b
    n_cp = max(len(index.catalog_ids), 1) * n_ports
    speed_count = np.bincount(index.speed) if m else np.zeros(0, dtype=np.int64)
    speeds = np.flatnonzero(speed_count)
    n_s = max(len(speeds), 1)
    n_med = len(MEDIA) + 1
    media = media_of(index)
    medium = media.medium if media is not None else None
    key_a, key_b = _link_keys(index, slice(None), speeds, n_ports, medium)
    size = n_cp * _stride(n_s)
    kinds_present = _present(key_a, key_b, size)
    n_k = len(kinds_present)
    code_a = _codes(key_a, kinds_present, size)
    code_b = _codes(key_b, kinds_present, size)
    kinds = _kind_facts(index, kinds_present, speeds, n_ports, n_s, n_med)
    cps = kinds.port_group
    # media: the two ends of a link must speak the same link layer
    pair_code = code_a.astype(np.int64) * max(n_k, 1) + code_b
    pair_count = np.bincount(pair_code, minlength=n_k * n_k)
    pair_ok = np.ones(max(n_k, 1) ** 2, dtype=np.bool_)
    _check_pairs(index, cps, n_k, n_ports, np.flatnonzero(pair_count), pair_ok)
    basis = None
    if media is None:  # (a placed design's media follow every link's length)
        kind_count = np.bincount(code_a, minlength=n_k) + np.bincount(
            code_b, minlength=n_k
        )
        basis = Basis(kinds_present, speeds, speed_count, kind_count, pair_count)
    return EndTable(
        m=m,
        n_ports=n_ports,
        code_a=code_a,
        code_b=code_b,
        kinds=kinds,
        module_id=kinds.module_id,
        blocks=kinds.blocks,
        cable_classes=kinds.cable_classes,
        group_a=a * n_ports + index.a_port,
        group_b=b * n_ports + index.b_port,
        pair_code=pair_code,
        pair_media_ok=pair_ok,
        source=weakref.ref(index),
        basis=basis,
    )


def _stride(n_s: int) -> int:
    """Keys per (catalog entry, port group): fabric x speed code x medium."""
    return 4 * n_s * (len(MEDIA) + 1)


def _link_keys(
    index: DesignIndex,
    rows: slice,
    speeds: IntArray,
    n_ports: int,
    medium: IntArray | None,
) -> tuple[IntArray, IntArray]:
    """The kind key of the a and b end of each link in ``rows``: (catalog
    entry and port group, fabric, speed code among ``speeds``, medium + 1, or 0
    when the design is not placed)."""
    n_s = max(len(speeds), 1)
    scode = np.zeros(int(speeds.max()) + 1 if len(speeds) else 1, dtype=np.int64)
    scode[speeds] = np.arange(len(speeds))
    per_link = (index.fabric[rows] * n_s + scode[index.speed[rows]]) * (len(MEDIA) + 1)
    if medium is not None:
        per_link += medium[rows] + 1
    stride = _stride(n_s)
    cat = index.dev_catalog
    key_a = (cat[index.a[rows]] * n_ports + index.a_port[rows]) * stride + per_link
    key_b = (cat[index.b[rows]] * n_ports + index.b_port[rows]) * stride + per_link
    return key_a, key_b


def _check_pairs(
    index: DesignIndex,
    cps: list[int],
    n_k: int,
    n_ports: int,
    pairs: IntArray,
    pair_ok: BoolArray,
) -> None:
    """Whether the two port groups of each kind pair in ``pairs`` speak the
    same link layer, into ``pair_ok``."""
    for p in pairs.tolist():
        ka, kb = divmod(int(p), n_k)
        ia = index.port_keys.get(divmod(cps[ka], n_ports))
        ib = index.port_keys.get(divmod(cps[kb], n_ports))
        if ia and ib and ia.interface and ib.interface:
            fa, fb = ia.interface, ib.interface
            pair_ok[p] = fb.supports_media(fa.media) or fa.supports_media(fb.media)


def patched_end_table(
    last: EndTable, index: DesignIndex, head: int, tail: int
) -> EndTable | None:
    """The end table of ``index`` from ``last`` (the table of an earlier state)
    when the two states' first ``head`` and last ``tail`` link rows are the
    same rows (:func:`~designer.core.link_arrays.rows_run`) on the same
    devices in the same rows with the same catalog entries, port names and no
    placement: those rows keep their codes and bins, the rows between are
    coded with the last table's kinds. None (make it afresh) when a row
    between brings a kind, speed or kind pair the last table lacks... a new
    kind renumbers the kinds; or takes the last link of one away (an
    unused kind must not be reported); or the run is long.

    Equal to :func:`end_table` of ``index`` (tests/analysis/test_end_patch.py).
    """
    basis, old = last.basis, last.index
    m0, m1 = old.n_links, index.n_links
    if basis is None or (m0 - head - tail) + (m1 - head - tail) > PATCH_MAX_ROWS:
        return None
    n_ports = last.n_ports
    s0, s1 = slice(head, m0 - tail), slice(head, m1 - tail)
    speeds = basis.speeds
    # the speeds of the rows between, as the last table coded them
    new_speed = index.speed[s1]
    if len(new_speed) and (not len(speeds) or int(new_speed.max()) > int(speeds.max())):
        return None
    speed_count = basis.speed_count.copy()
    np.subtract.at(speed_count, old.speed[s0], 1)
    np.add.at(speed_count, new_speed, 1)
    if not np.array_equal(np.flatnonzero(speed_count), speeds):
        return None  # a speed came or went: the keys change
    kinds = basis.kinds_present
    n_k = len(kinds)
    codes = []
    for key in _link_keys(index, s1, speeds, n_ports, None):
        at = np.minimum(np.searchsorted(kinds, key), max(n_k - 1, 0))
        if len(key) and (not n_k or not np.array_equal(kinds[at], key)):
            return None  # a kind the last table has not got
        codes.append(at.astype(np.int32))
    mid_a, mid_b = codes
    kind_count = basis.kind_count.copy()
    for gone in (last.code_a[s0], last.code_b[s0]):
        np.subtract.at(kind_count, gone, 1)
    for came in (mid_a, mid_b):
        np.add.at(kind_count, came, 1)
    if not kind_count.all():
        return None  # a kind no end has any more
    mid_pair = mid_a.astype(np.int64) * max(n_k, 1) + mid_b
    pair_count = basis.pair_count.copy()
    np.subtract.at(pair_count, last.pair_code[s0], 1)
    np.add.at(pair_count, mid_pair, 1)
    pair_ok = last.pair_media_ok
    was, now = basis.pair_count > 0, pair_count > 0
    if not np.array_equal(was, now):
        pair_ok = pair_ok.copy()
        pair_ok[was & ~now] = True  # (as for a pair no link has)
        fresh = np.flatnonzero(now & ~was)
        _check_pairs(index, last.kinds.port_group, n_k, n_ports, fresh, pair_ok)

    def spliced(column: np.ndarray, mid: np.ndarray) -> np.ndarray:
        return np.concatenate((column[:head], mid, column[m0 - tail :]))

    return EndTable(
        m=m1,
        n_ports=n_ports,
        code_a=spliced(last.code_a, mid_a),
        code_b=spliced(last.code_b, mid_b),
        kinds=last.kinds,
        module_id=last.module_id,
        blocks=last.blocks,
        cable_classes=last.cable_classes,
        group_a=spliced(last.group_a, index.a[s1] * n_ports + index.a_port[s1]),
        group_b=spliced(last.group_b, index.b[s1] * n_ports + index.b_port[s1]),
        pair_code=spliced(last.pair_code, mid_pair),
        pair_media_ok=pair_ok,
        source=weakref.ref(index),
        basis=Basis(kinds, speeds, speed_count, kind_count, pair_count),
    )


def _kind_facts(
    index: DesignIndex,
    kinds_present: IntArray,
    speeds: IntArray,
    n_ports: int,
    n_s: int,
    n_med: int,
) -> Kinds:
    """Look the catalog up once per kind of end."""
    n_k = len(kinds_present)
    known = np.zeros(n_k, dtype=np.bool_)
    supported = np.zeros(n_k, dtype=np.bool_)
    role_ok = np.ones(n_k, dtype=np.bool_)
    split = np.ones(n_k)
    per_cage = np.zeros(n_k)
    module = np.full(n_k, -1, dtype=np.int64)
    block = np.full(n_k, -1, dtype=np.int64)
    cable = np.zeros(n_k, dtype=np.int64)
    modules: list[str] = []
    blocks: dict[tuple[int, int, int, float], int] = {}
    cables: dict[tuple[int, str], int] = {}
    cps: list[int] = []
    optics = index.catalog.optics
    for j, k in enumerate(kinds_present.tolist()):
        rest, mc = divmod(int(k), n_med)
        rest, sc = divmod(rest, n_s)
        cp, fab = divmod(rest, 4)
        cps.append(cp)
        spd = int(speeds[sc]) if len(speeds) else 0
        info = index.port_keys.get(divmod(cp, n_ports))
        iface = info.interface if info else None
        layer = iface.media.value if iface else "ethernet"
        cable[j] = cables.setdefault((spd, layer), len(cables))
        if iface is None:
            continue
        known[j] = True
        supported[j] = iface.supports_speed(spd)
        split[j] = max(iface.split(spd), 1)
        role_ok[j] = iface.role.value in ("any", FABRICS[fab].value)
        medium = MEDIA[mc - 1] if mc > 0 else None
        found = optics.module_for(iface, spd, medium=medium)
        if found is None:
            continue
        if found.id not in modules:
            modules.append(found.id)
        module[j] = modules.index(found.id)
        per_cage[j] = iface.links_per_cage(spd)
        s = int(split[j])
        # lanes of one split and speed share ports; whole ports (split 1) any speed
        shape = (int(module[j]), s, spd if s > 1 else 0, per_cage[j] / s)
        block[j] = blocks.setdefault(shape, len(blocks))
    return Kinds(
        known=known,
        supported=supported,
        role_ok=role_ok,
        split=split,
        per_cage=per_cage,
        module=module,
        block=block,
        cable=cable,
        port_group=cps,
        module_id=modules,
        blocks=[(mod, s, p) for mod, s, _, p in blocks],
        cable_classes=list(cables),
    )
