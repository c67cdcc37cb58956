"""Sums over the links, patched for the rows an edit changed.

Three figures of the report add up something per link into bins: the down
and up capacity of each switch (:func:`~designer.analysis.metrics.tier_sums`),
the ports each port group uses (:func:`~designer.analysis.metrics.port_sums`)
and the cables each group's optics blocks carry
(:func:`~designer.analysis.metrics.lane_sums`). Each is a pass over every
link (300,000 at 100K GPUs, ~4 ms apiece). When the link table's lineage says
which rows an edit changed (:func:`~designer.core.link_arrays.rows_run`), the
next state's sums are the last state's minus what the old rows between added
and plus what the new rows add: :func:`patched_sums`.

The patch needs what the bins mean to be the same in both states: the same
devices in the same rows (devices dropped since come last, their bins start
at 0; devices without links taken from the end, theirs go), the same port
names, the same tier ranks and the same kinds of link end (the end table
patched or lent, so its kind codes and optics blocks are the last table's).
Else the sums are made afresh.

Exact: capacities and cable counts are whole numbers, and a port's share of
a breakout link (1/2, 1/4) is a binary fraction, so adding and taking away
gives the sums a pass over every link gives, to the bit
(tests/analysis/test_sums_patch.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.analysis.ends import EndTable
from designer.analysis.graph import PATCH_MAX_ROWS
from designer.analysis.index import DesignIndex, FloatArray, IntArray, same_device_rows
from designer.analysis.metrics import lane_sums, port_sums, tier_sums
from designer.core.link_arrays import rows_run
from designer.core.model import FABRIC_CODE, Fabric

_COMPUTE = FABRIC_CODE[Fabric.COMPUTE]


@dataclass(frozen=True)
class LinkSums:
    """The sums of one state (see the module doc) and what they were summed
    from."""

    index: DesignIndex
    ends: EndTable
    rank: IntArray
    """Tier rank per device the down and up capacities were split by."""
    down: FloatArray
    up: FloatArray
    seen: IntArray
    used: FloatArray
    lanes: FloatArray

    def __post_init__(self) -> None:
        for array in (self.down, self.up, self.seen, self.used, self.lanes):
            array.flags.writeable = False  # a patch copies; nothing writes


def link_sums(index: DesignIndex, ends: EndTable, rank: IntArray) -> LinkSums:
    """The sums of ``index``, over every link."""
    cf = np.flatnonzero(index.fabric == _COMPUTE)
    down, up = tier_sums(rank, index.a[cf], index.b[cf], index.cap[cf], index.n_devices)
    seen, used = port_sums(index, ends)
    return LinkSums(index, ends, rank, down, up, seen, used, lane_sums(index, ends))


def patched_sums(
    last: LinkSums, index: DesignIndex, ends: EndTable, rank: IntArray
) -> LinkSums | None:
    """The sums of ``index`` from ``last`` when only a run of link rows
    differs (see the module doc); None: make them afresh."""
    old, old_ends = last.index, last.ends
    n0, n1 = old.n_devices, index.n_devices
    if (
        ends.kinds is not old_ends.kinds
        or ends.blocks != old_ends.blocks
        or index.port_names != old.port_names
        or not same_device_rows(old, index)
        or not np.array_equal(rank[:n0], last.rank[:n1])
    ):
        return None
    p = ends.n_ports
    if n1 < n0 and (last.seen[n1 * p :].any() or last.down[n1:].any()):
        return None  # the devices gone had links (their rows went too)
    run = rows_run(old.links, index.links)
    if run is None:
        return None
    head, tail = run
    m0, m1 = old.n_links, index.n_links
    if (m0 - head - tail) + (m1 - head - tail) > PATCH_MAX_ROWS:
        return None
    gone, came = slice(head, m0 - tail), slice(head, m1 - tail)
    # devices dropped after the last ones (their rows come last) start at 0
    grow = n1 - n0
    n_blk = max(len(ends.blocks), 1)
    down, up = _grown(last.down, grow), _grown(last.up, grow)
    seen, used = _grown(last.seen, grow * p), _grown(last.used, grow * p)
    lanes = _grown(last.lanes, grow * p * n_blk)
    for sign, rows, state, table in ((-1, gone, old, old_ends), (1, came, index, ends)):
        _add_tiers(sign, rows, state, rank, down, up)
        _add_ports(sign, rows, state, table, seen, used, lanes)
    return LinkSums(index, ends, rank, down, up, seen, used, lanes)


def _grown(array: np.ndarray, extra: int) -> np.ndarray:
    """A writable copy of ``array`` with ``extra`` zeros after it (or its
    last ``-extra`` entries left out)."""
    if extra <= 0:
        return array[: len(array) + extra].copy()
    out = np.zeros(len(array) + extra, dtype=array.dtype)
    out[: len(array)] = array
    return out


def _add_tiers(
    sign: int,
    rows: slice,
    state: DesignIndex,
    rank: IntArray,
    down: FloatArray,
    up: FloatArray,
) -> None:
    cf = np.flatnonzero(state.fabric[rows] == _COMPUTE) + rows.start
    if not len(cf):
        return
    d, u = tier_sums(rank, state.a[cf], state.b[cf], state.cap[cf], len(down))
    down += sign * d
    up += sign * u


def _add_ports(
    sign: int,
    rows: slice,
    state: DesignIndex,
    ends: EndTable,
    seen: IntArray,
    used: FloatArray,
    lanes: FloatArray,
) -> None:
    n_blk = max(len(ends.blocks), 1)
    cables = state.cables[rows].astype(np.float64)
    for group, code in ((ends.group_a, ends.code_a), (ends.group_b, ends.code_b)):
        g, c = group[rows], code[rows]
        np.add.at(seen, g, sign)
        np.add.at(used, g, sign * (cables / ends.kinds.split[c]))
        blk = ends.kinds.block[c]
        optic = blk >= 0
        np.add.at(lanes, g[optic] * n_blk + blk[optic], sign * cables[optic])
