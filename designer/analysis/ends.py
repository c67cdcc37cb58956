"""Link ends joined with the catalog: one row per link end, facts as arrays.

Built once by :func:`designer.analysis.index.build_index` (it is the design
joined with the catalog), read by the port, optics and findings checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from designer.analysis.codes import dense_codes
from designer.analysis.index import (
    BoolArray,
    DesignIndex,
    FloatArray,
    IntArray,
)
from designer.analysis.lengths import media_of
from designer.catalog.optics import MEDIA
from designer.core.model import FABRICS


@dataclass
class EndTable:
    """Both ends of every link, with what the catalog says about the port group.

    Row ``i`` is the a end of link ``i`` and row ``m + i`` its b end (``m`` links):
    :meth:`links_of` turns end rows into link positions.
    """

    m: int
    dev: IntArray
    port: IntArray
    known: BoolArray
    supported: BoolArray
    usage: FloatArray
    modules: FloatArray
    module_id: list[str]
    module_code: IntArray
    media_ok: BoolArray
    role_ok: BoolArray
    group_code: IntArray
    group_key: IntArray
    cage_sel: IntArray
    cage_code: IntArray
    cage_key: IntArray
    cable_code: IntArray
    cable_key: IntArray
    speeds: IntArray

    def links_of(self, rows: IntArray) -> IntArray:
        """Link position of each end row."""
        out: IntArray = rows % max(self.m, 1)
        return out


def ends_of(index: DesignIndex) -> EndTable:
    """The index's end table, built on first use and kept with the index."""
    if index._ends is None:
        index._ends = end_table(index)
    table: EndTable = index._ends
    return table


def _table(size: int, present: IntArray) -> npt.NDArray[np.int32]:
    """Dense code of each present key (``present``: sorted distinct keys)."""
    lookup = np.full(size, -1, dtype=np.int32)
    lookup[present] = np.arange(len(present), dtype=np.int32)
    return lookup


def _distinct(values: IntArray, size: int) -> IntArray:
    """Sorted distinct values in ``[0, size)`` (a presence pass, no sort)."""
    if not len(values):
        return np.zeros(0, dtype=np.int64)
    if size <= 4 * len(values) + 1_000_000:
        return np.flatnonzero(np.bincount(values, minlength=size))
    return np.unique(values)


def end_table(index: DesignIndex) -> EndTable:
    """Per-end view of the links with port-group facts looked up once per combo.

    Facts that depend only on (catalog entry, port group, fabric, speed) are
    looked up once per distinct combination into small tables, and each end reads
    its row of them; the media check reads one table per distinct pair of port
    groups, shared by a link's two ends.
    """
    m = index.n_links
    n_ports = max(len(index.port_names), 1)
    cat = index.dev_catalog
    a, b = index.a, index.b
    cp_a = cat[a] * n_ports + index.a_port
    cp_b = cat[b] * n_ports + index.b_port
    n_cp = max(len(index.catalog_ids), 1) * n_ports
    speeds = _distinct(index.speed, int(index.speed.max()) + 1 if m else 1)
    n_s = max(len(speeds), 1)
    scode_link = _table(int(speeds.max()) + 1 if m else 1, speeds)[index.speed]
    # the medium of each link: chosen by its length, or -1 (the port group's own
    # default: the design is not placed)
    media = media_of(index)
    n_med = len(MEDIA) + 1
    med = media.medium + 1 if media is not None else np.zeros(m, dtype=np.int64)
    # port-group facts per (catalog entry and port group, fabric, speed, medium)
    size = n_cp * 4 * n_s * n_med
    base = (index.fabric * n_s + scode_link) * n_med + med
    key_a = cp_a * (4 * n_s * n_med) + base
    key_b = cp_b * (4 * n_s * n_med) + base
    combos = _distinct(np.concatenate((key_a, key_b)), size)
    n_u = len(combos)
    known = np.zeros(n_u + 1, dtype=np.bool_)
    supported = np.zeros(n_u + 1, dtype=np.bool_)
    split = np.ones(n_u + 1)
    per_module = np.zeros(n_u + 1)
    role_ok = np.ones(n_u + 1, dtype=np.bool_)
    mod_code = np.full(n_u + 1, -1, dtype=np.int64)
    module_ids: list[str] = []
    optics = index.catalog.optics
    for j, k in enumerate(combos.tolist()):
        rest, mc = divmod(int(k), n_med)
        rest, sc = divmod(rest, n_s)
        rest, fab = divmod(rest, 4)
        spd = int(speeds[sc])
        info = index.port_keys.get(divmod(rest, n_ports))
        iface = info.interface if info else None
        if iface is None:
            continue
        known[j] = True
        supported[j] = iface.supports_speed(spd)
        split[j] = max(iface.split(spd), 1)
        role_ok[j] = iface.role.value in ("any", FABRICS[fab].value)
        medium = MEDIA[mc - 1] if mc > 0 else None
        module = optics.module_for(iface, spd, medium=medium)
        if module is not None:
            per_module[j] = iface.links_per_cage(spd)
            if module.id not in module_ids:
                module_ids.append(module.id)
            mod_code[j] = module_ids.index(module.id)
    inv: npt.NDArray[np.signedinteger[Any]]
    if size <= 50_000_000:
        code = _table(size, combos)
        inv = np.concatenate((code[key_a], code[key_b]))
    else:
        inv = np.searchsorted(combos, np.concatenate((key_a, key_b)))
    # media: the two ends of a link must speak the same link layer
    pair = cp_a * n_cp + cp_b
    pairs = _distinct(pair, n_cp * n_cp)
    pair_ok = np.ones(len(pairs), dtype=np.bool_)
    for j, k in enumerate(pairs.tolist()):
        ka, kb = divmod(int(k), n_cp)
        ia = index.port_keys.get(divmod(ka, n_ports))
        ib = index.port_keys.get(divmod(kb, n_ports))
        if ia and ib and ia.interface and ib.interface:
            fa, fb = ia.interface, ib.interface
            pair_ok[j] = fb.supports_media(fa.media) or fa.supports_media(fb.media)
    if n_cp * n_cp <= 50_000_000:
        link_ok = pair_ok[_table(n_cp * n_cp, pairs)[pair]]
    else:
        link_ok = pair_ok[np.searchsorted(pairs, pair)]
    dev = np.concatenate((a, b))
    port = np.concatenate((index.a_port, index.b_port))
    cables = np.concatenate((index.cables, index.cables))
    group_code, group_key = dense_codes(dev * n_ports + port)
    mcode = mod_code[inv]
    cage_sel = np.flatnonzero(mcode >= 0)
    n_mod = max(len(module_ids), 1)
    cage_code, cage_key = dense_codes(
        (dev[cage_sel] * n_ports + port[cage_sel]) * n_mod + mcode[cage_sel]
    )
    cable_code, cable_key = dense_codes(cp_a * n_s + scode_link)
    return EndTable(
        m=m,
        cable_code=cable_code,
        cable_key=cable_key,
        speeds=speeds,
        group_code=group_code,
        group_key=group_key,
        cage_sel=cage_sel,
        cage_code=cage_code,
        cage_key=cage_key,
        dev=dev,
        port=port,
        known=known[inv],
        supported=supported[inv],
        usage=cables / split[inv],
        modules=per_module[inv],
        module_id=module_ids,
        module_code=mcode,
        media_ok=np.concatenate((link_ok, link_ok)),
        role_ok=role_ok[inv],
    )
