"""Link ends joined with the catalog: one row per link end, facts as arrays.

Built once by :func:`designer.analysis.index.build_index` (it is the design
joined with the catalog), read by the port, optics and findings checks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.analysis.index import (
    BoolArray,
    DesignIndex,
    FloatArray,
    IntArray,
)
from designer.catalog.optics import MEDIA
from designer.core.model import FABRICS


@dataclass
class EndTable:
    """Both ends of every link, with what the catalog says about the port group."""

    dev: IntArray
    port: IntArray
    other: IntArray
    cables: IntArray
    speed: IntArray
    fabric: IntArray
    link: IntArray
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


def dense_codes(values: IntArray) -> tuple[IntArray, IntArray]:
    """(code per value, sorted distinct values); no sort when the range is small."""
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    hi = int(values.max())
    if int(values.min()) >= 0 and hi <= 4 * len(values) + 1_000_000:
        present = np.zeros(hi + 1, dtype=np.bool_)
        present[values] = True
        uniq = np.flatnonzero(present)
        lookup = np.cumsum(present) - 1
        return lookup[values], uniq
    uniq, inv = np.unique(values, return_inverse=True)
    return inv.astype(np.int64), uniq


def end_table(index: DesignIndex) -> EndTable:
    """Per-end view of the links with port-group facts looked up once per combo."""
    m = index.n_links
    dev = np.concatenate((index.a, index.b))
    other = np.concatenate((index.b, index.a))
    port = np.concatenate((index.a_port, index.b_port))
    oport = np.concatenate((index.b_port, index.a_port))
    cables = np.concatenate((index.cables, index.cables))
    speed = np.concatenate((index.speed, index.speed))
    fabric = np.concatenate((index.fabric, index.fabric))
    link = np.concatenate((np.arange(m), np.arange(m)))
    n_ports = max(len(index.port_names), 1)
    cp = index.dev_catalog[dev] * n_ports + port
    ocp = index.dev_catalog[other] * n_ports + oport
    scode, speeds = dense_codes(speed)
    n_s = max(len(speeds), 1)
    # the medium of each end: the link's, or -1 (its own default, no length)
    media = index.media
    n_med = len(MEDIA) + 1
    med = (
        np.concatenate((media.medium, media.medium)) + 1
        if media is not None
        else np.zeros(2 * m, dtype=np.int64)
    )
    inv, uniq = dense_codes(((cp * 4 + fabric) * n_s + scode) * n_med + med)
    n_u = len(uniq)
    known = np.zeros(n_u, dtype=np.bool_)
    supported = np.zeros(n_u, dtype=np.bool_)
    split = np.ones(n_u)
    per_module = np.zeros(n_u)
    role_ok = np.ones(n_u, dtype=np.bool_)
    mod_code = np.full(n_u, -1, dtype=np.int64)
    module_ids: list[str] = []
    optics = index.catalog.optics
    for j, k in enumerate(uniq.tolist()):
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
    # media: the two ends of a link must speak the same link layer
    n_cp = int(max(cp.max(), ocp.max())) + 1 if len(cp) else 1
    pinv, pairs = dense_codes(cp * n_cp + ocp)
    pair_ok = np.ones(len(pairs), dtype=np.bool_)
    for j, k in enumerate(pairs.tolist()):
        ka, kb = divmod(int(k), n_cp)
        ia = index.port_keys.get(divmod(ka, n_ports))
        ib = index.port_keys.get(divmod(kb, n_ports))
        if ia and ib and ia.interface and ib.interface:
            fa, fb = ia.interface, ib.interface
            pair_ok[j] = fb.supports_media(fa.media) or fa.supports_media(fb.media)
    group_code, group_key = dense_codes(dev * n_ports + port)
    mcode = mod_code[inv]
    cage_sel = np.flatnonzero(mcode >= 0)
    n_mod = max(len(module_ids), 1)
    cage_code, cage_key = dense_codes(
        (dev[cage_sel] * n_ports + port[cage_sel]) * n_mod + mcode[cage_sel]
    )
    m_links = len(index.a)
    cable_code, cable_key = dense_codes(cp[:m_links] * n_s + scode[:m_links])
    return EndTable(
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
        other=other,
        cables=cables,
        speed=speed,
        fabric=fabric,
        link=link,
        known=known[inv],
        supported=supported[inv],
        usage=cables / split[inv],
        modules=per_module[inv],
        module_id=module_ids,
        module_code=mcode,
        media_ok=pair_ok[pinv],
        role_ok=role_ok[inv],
    )
