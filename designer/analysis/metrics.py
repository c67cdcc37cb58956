"""O(links) metrics on the index arrays: tiers, oversubscription, ports, optics, power.

Port usage counts logical ports: a cable at a breakout speed takes 1/split of
a native port (SN5600 at 400G: two links per 800G port). Budgets use the
effective port count (catalog count, or ``Device.ports`` for configurable
entries). Transceivers follow :mod:`designer.catalog.optics`: fibre cables need
one module per end, a module fills one cage, and a twin-port cage carries two
links (RA-H100 Table 8: 127 DGX H100 -> 508 system OSFP).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.analysis.codes import dense_codes
from designer.analysis.ends import EndTable, ends_of
from designer.analysis.graph import ComputeGraph
from designer.analysis.index import (
    KIND_SWITCH,
    DesignIndex,
    FloatArray,
    IntArray,
)
from designer.analysis.lengths import media_of
from designer.catalog.schema import Media
from designer.core.model import FABRICS, Tier

TIER_NAMES = {t.rank: t.value for t in Tier}


def port_sums(index: DesignIndex, ends: EndTable) -> tuple[IntArray, FloatArray]:
    """Per (device, port group) bin ``device * P + port``: the link ends in it,
    and the native ports they take (:meth:`EndTable.usage`)."""
    size = index.n_devices * ends.n_ports
    seen = np.bincount(ends.group_a, minlength=size) + np.bincount(
        ends.group_b, minlength=size
    )
    used_all = np.bincount(
        ends.group_a, weights=ends.usage("a"), minlength=size
    ) + np.bincount(ends.group_b, weights=ends.usage("b"), minlength=size)
    return seen.astype(np.int64, copy=False), used_all.astype(np.float64, copy=False)


def port_budget(
    index: DesignIndex,
    ends: EndTable,
    sums: tuple[IntArray, FloatArray] | None = None,
) -> tuple[IntArray, FloatArray, FloatArray]:
    """(device*P + port keys, ports used, ports available) for every used port
    group; ``sums``: :func:`port_sums` when known."""
    n_ports = ends.n_ports
    if not ends.m:
        return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0)
    seen, used_all = port_sums(index, ends) if sums is None else sums
    uniq = np.flatnonzero(seen)
    used = used_all[uniq]
    dev, port = np.divmod(uniq, n_ports)
    cat = index.dev_catalog[dev]
    cinv, cu = dense_codes(cat * n_ports + port)
    counts = np.zeros(len(cu))
    for j, k in enumerate(cu.tolist()):
        info = index.port_keys.get(divmod(int(k), n_ports))
        counts[j] = info.interface.count if info and info.interface else 0
    avail = counts[cinv]
    for j in np.flatnonzero(index.has_port_override[dev]).tolist():
        entry = index.entries[int(cat[j])]
        ports = index.device_ports[int(dev[j])]
        name = index.port_names[int(port[j])]
        if entry is not None and entry.configurable and ports and name in ports:
            avail[j] = ports[name]
    return uniq.astype(np.int64), used.astype(np.float64), avail


def lane_sums(index: DesignIndex, ends: EndTable) -> FloatArray:
    """Per (device, port group, optics block) bin: the cables of the links
    whose end there takes a module (see :func:`transceivers`)."""
    n_blk = max(len(ends.blocks), 1)
    lanes = np.zeros(index.n_devices * ends.n_ports * n_blk)
    cables = index.cables.astype(np.float64)
    for group, code in ((ends.group_a, ends.code_a), (ends.group_b, ends.code_b)):
        blk = ends.kinds.block[code]
        optic = blk >= 0
        lanes += np.bincount(
            group * n_blk + np.maximum(blk, 0),
            weights=np.where(optic, cables, 0.0),
            minlength=len(lanes),
        )
    return lanes


def transceivers(
    index: DesignIndex, ends: EndTable, lanes: FloatArray | None = None
) -> dict[str, int]:
    """Pluggable modules by module id (see module doc); ``lanes``:
    :func:`lane_sums` when known.

    Per device, port group and module type the links fill ports, and the ports
    fill cages: a port carries one whole-port link or the lanes of one breakout
    (one split and speed), so the ports of a block are ``ceil(lanes / split)``,
    and the modules ``ceil(ports / ports_per_cage)``. A 200G lane in a QM9700
    twin cage shares it with a 400G port, as RA-H100 Table 8 counts 48 x 32 =
    1,536 switch modules; the cabling plan lays the cages out the same way.
    """
    n_blk = len(ends.blocks)
    if not n_blk or not ends.m:
        return {}
    n_mod = len(ends.module_id)
    if lanes is None:
        lanes = lane_sums(index, ends)
    present = np.flatnonzero(lanes)
    group, blk = np.divmod(present, n_blk)
    facts = np.array(ends.blocks, dtype=np.float64).reshape(-1, 3)
    module = facts[blk, 0].astype(np.int64)
    ports = np.ceil(lanes[present] / facts[blk, 1] - 1e-9)
    cage = group * n_mod + module
    fill = np.bincount(cage, weights=ports / facts[blk, 2])
    used = np.flatnonzero(fill)
    counts = np.bincount(
        used % n_mod, weights=np.ceil(fill[used] - 1e-9), minlength=n_mod
    )
    return {
        mid: round(float(n)) for mid, n in zip(ends.module_id, counts, strict=True) if n
    }


def cable_classes(index: DesignIndex) -> dict[tuple[int, str], int]:
    """Cables by (speed, media of the a-end port group)."""
    if index.n_links == 0:
        return {}
    ends = ends_of(index)
    cls = ends.kinds.cable[ends.code_a]
    n = len(ends.cable_classes)
    totals = np.bincount(cls, weights=index.cables, minlength=n)
    seen = np.bincount(cls, minlength=n)
    return {key: int(totals[j]) for j, key in enumerate(ends.cable_classes) if seen[j]}


def cable_class_counts(index: DesignIndex) -> dict[str, int]:
    """Cables by cable class id: the class each link's length picks when the
    design is placed, else the default class of its speed and a-end media.
    Counted once per index (the cost and the physical report both ask)."""
    if index._cable_counts is None:
        index._cable_counts = _count_cable_classes(index)
    return dict(index._cable_counts)


def _count_cable_classes(index: DesignIndex) -> dict[str, int]:
    optics = index.catalog.optics
    media = media_of(index)
    if media is not None:
        counts = np.bincount(
            media.cable, weights=index.cables, minlength=len(optics.cables)
        )
        return {optics.cables[i].id: round(float(n)) for i, n in enumerate(counts) if n}
    out: dict[str, int] = {}
    for (speed, layer), qty in cable_classes(index).items():
        cid = optics.cable_class(speed, Media(layer)).id
        out[cid] = out.get(cid, 0) + qty
    return out


@dataclass
class Tiers:
    """Switch tier per device (0: not a compute switch) and per-switch capacities."""

    rank: IntArray
    down: FloatArray
    up: FloatArray


def on_compute_fabric(index: DesignIndex, g: ComputeGraph) -> np.ndarray:
    """Per device: whether at least one compute-fabric link ends on it (the
    ends of ``g``'s links; kept with its topology)."""
    touched = g.memo.get("on compute fabric")
    if touched is None:
        local = np.zeros(g.n, dtype=np.bool_)
        local[g.all_u] = True
        local[g.all_v] = True
        touched = g.dev[local]
        g.memo["on compute fabric"] = touched
    out = np.zeros(index.n_devices, dtype=np.bool_)
    out[touched] = True
    return out


def tier_ranks(index: DesignIndex, level: IntArray, g: ComputeGraph) -> IntArray:
    """Declared tier, else ``level`` (BFS distance from the compute nodes).

    A declared tier counts only for a switch wired into the compute fabric: a
    duplicated spine with no link is no spine (it is reported unwired), and it
    must not add to the tier's switches, ports or the Clos floor comparison.
    """
    is_sw = index.kind == KIND_SWITCH
    declared = np.where(on_compute_fabric(index, g), index.declared_rank, 0)
    rank = np.where(declared > 0, declared, level)
    out: IntArray = np.where(is_sw & (rank > 0), rank, 0)
    return out


def tier_sums(
    rank: IntArray, a: IntArray, b: IntArray, cap: np.ndarray, n: int
) -> tuple[FloatArray, FloatArray]:
    """Down and up capacity per device of the compute links ``a``-``b`` of
    capacities ``cap``: a link counts down at its higher-ranked end and up at
    its lower end when that is a switch (rank > 0). The capacities are whole
    Gb/s, so the sums are exact in any order (a patch adds and takes away)."""
    cap = cap.astype(np.float64)
    ra, rb = rank[a], rank[b]
    a_down, b_down = rb < ra, ra < rb
    a_up = b_down & (ra > 0)
    b_up = a_down & (rb > 0)
    down = np.bincount(a[a_down], weights=cap[a_down], minlength=n) + np.bincount(
        b[b_down], weights=cap[b_down], minlength=n
    )
    up = np.bincount(a[a_up], weights=cap[a_up], minlength=n) + np.bincount(
        b[b_up], weights=cap[b_up], minlength=n
    )
    return down.astype(np.float64, copy=False), up.astype(np.float64, copy=False)


def switch_tiers(index: DesignIndex, level: IntArray, g: ComputeGraph) -> Tiers:
    """Tier rank (:func:`tier_ranks`) and down and up capacity of every device."""
    rank = tier_ranks(index, level, g)
    local = rank[g.dev]
    down = np.zeros(index.n_devices)
    up = np.zeros(index.n_devices)
    down[g.dev], up[g.dev] = tier_sums(local, g.all_u, g.all_v, g.all_c, g.n)
    return Tiers(rank=rank, down=down, up=up)


def switch_counts(index: DesignIndex, tiers: Tiers) -> dict[str, int]:
    """Switches by tier; the rest by the fabric most of their links serve,
    ``unwired`` when they have no link at all, or ``other``."""
    sw = index.kind == KIND_SWITCH
    ranks = np.bincount(tiers.rank[sw], minlength=4)
    out = {name: int(ranks[r]) for r, name in TIER_NAMES.items()}
    deeper = int(ranks[4:].sum())
    rest = np.flatnonzero(sw & (tiers.rank == 0))
    if len(rest):
        mine = np.zeros(index.n_devices, dtype=np.bool_)
        mine[rest] = True
        sel = mine[index.a] | mine[index.b]
        per = np.zeros((len(FABRICS), index.n_devices))
        for end in (index.a, index.b):
            np.add.at(per, (index.fabric[sel], end[sel]), 1)
        for i in rest.tolist():
            # no link at all: drawn (or duplicated) but never wired
            wired = per[:, i].any()
            key = FABRICS[int(per[:, i].argmax())].value if wired else "unwired"
            out[key] = out.get(key, 0) + 1
    if deeper:
        out["other"] = out.get("other", 0) + deeper
    return out
