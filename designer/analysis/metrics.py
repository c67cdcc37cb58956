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

from designer.analysis.graph import bfs_levels
from designer.analysis.index import (
    FABRIC_CODE,
    FABRICS,
    KIND_COMPUTE,
    KIND_SWITCH,
    BoolArray,
    DesignIndex,
    FloatArray,
    IntArray,
)
from designer.catalog.optics import CableKind
from designer.core.model import Fabric

TIER_NAMES = {1: "leaf", 2: "spine", 3: "core"}


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
    inv, uniq = dense_codes((cp * 4 + fabric) * n_s + scode)
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
        rest, sc = divmod(int(k), n_s)
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
        module = optics.module_for(iface, spd)
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
    return EndTable(
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
        module_code=mod_code[inv],
        media_ok=pair_ok[pinv],
        role_ok=role_ok[inv],
    )


def port_budget(
    index: DesignIndex, ends: EndTable
) -> tuple[IntArray, FloatArray, FloatArray]:
    """(device*P + port keys, ports used, ports available) for every used port group."""
    n_ports = max(len(index.port_names), 1)
    inv, uniq = dense_codes(ends.dev * n_ports + ends.port)
    used = np.bincount(inv, weights=ends.usage, minlength=len(uniq))
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
    return uniq, used, avail


def transceivers(index: DesignIndex, ends: EndTable) -> dict[str, int]:
    """Pluggable modules by module id (see module doc).

    Per device, port group and module type the links fill cages: a link takes
    1/links_per_cage of one (a 200G link in a QM9700 twin cage shares it with a
    400G one, as RA-H100 Table 8 counts 48 x 32 = 1,536 switch modules).
    """
    sel = ends.module_code >= 0
    if not sel.any():
        return {}
    n_ports = max(len(index.port_names), 1)
    n_mod = len(ends.module_id)
    key = (ends.dev[sel] * n_ports + ends.port[sel]) * n_mod + ends.module_code[sel]
    inv, uniq = dense_codes(key)
    fill = np.bincount(
        inv, weights=ends.cables[sel] / ends.modules[sel], minlength=len(uniq)
    )
    mods = np.ceil(fill - 1e-9)
    counts = np.bincount(uniq % n_mod, weights=mods, minlength=n_mod)
    return {
        mid: round(float(counts[i]))
        for i, mid in enumerate(ends.module_id)
        if counts[i]
    }


def cable_classes(index: DesignIndex) -> dict[tuple[int, str], int]:
    """Cables by (speed, media of the a-end port group)."""
    if index.n_links == 0:
        return {}
    n_ports = max(len(index.port_names), 1)
    scode, speeds = dense_codes(index.speed)
    cp = index.dev_catalog[index.a] * n_ports + index.a_port
    inv, uniq = dense_codes(cp * len(speeds) + scode)
    totals = np.bincount(inv, weights=index.cables, minlength=len(uniq))
    out: dict[tuple[int, str], int] = {}
    for j, k in enumerate(uniq.tolist()):
        rest, sc = divmod(int(k), len(speeds))
        info = index.port_keys.get(divmod(rest, n_ports))
        media = info.interface.media.value if info and info.interface else "ethernet"
        spd = int(speeds[sc])
        out[(spd, media)] = out.get((spd, media), 0) + int(totals[j])
    return out


def is_fiber(index: DesignIndex, speed: int, media: str) -> bool:
    """Whether the optics table cables this speed class with fibre."""
    from designer.catalog.schema import Media

    return index.catalog.optics.cable_class(speed, Media(media)).kind is CableKind.FIBER


@dataclass
class Tiers:
    """Switch tier per device (0: not a compute switch) and per-switch capacities."""

    rank: IntArray
    level: IntArray
    down: FloatArray
    up: FloatArray


def switch_tiers(index: DesignIndex) -> Tiers:
    """Declared tier, else BFS distance from the compute nodes on the compute fabric."""
    comp = index.fabric == FABRIC_CODE[Fabric.COMPUTE]
    a, b, cap = index.a[comp], index.b[comp], index.cap[comp]
    level = bfs_levels(index.n_devices, index.kind == KIND_COMPUTE, a, b)
    is_sw = index.kind == KIND_SWITCH
    rank = np.where(index.declared_rank > 0, index.declared_rank, level)
    rank = np.where(is_sw & (rank > 0), rank, 0)
    ra, rb = rank[a], rank[b]
    n = index.n_devices
    down = np.bincount(a, weights=cap * (rb < ra), minlength=n) + np.bincount(
        b, weights=cap * (ra < rb), minlength=n
    )
    up = np.bincount(
        a, weights=cap * ((rb > ra) & (ra > 0)), minlength=n
    ) + np.bincount(b, weights=cap * ((ra > rb) & (rb > 0)), minlength=n)
    return Tiers(rank=rank, level=level, down=down, up=up)


def switch_fabric_names(index: DesignIndex, tiers: Tiers) -> list[str]:
    """Report key per switch: leaf/spine/core, else the fabric it serves, else other."""
    names: list[str] = []
    sw = np.flatnonzero(index.kind == KIND_SWITCH)
    n = index.n_devices
    per_fabric = np.zeros((len(FABRICS), n))
    for f in range(len(FABRICS)):
        sel = index.fabric == f
        per_fabric[f] = np.bincount(index.a[sel], minlength=n) + np.bincount(
            index.b[sel], minlength=n
        )
    for i in sw.tolist():
        r = int(tiers.rank[i])
        if r in TIER_NAMES:
            names.append(TIER_NAMES[r])
        elif r > 3:
            names.append("other")
        elif per_fabric[:, i].any():
            names.append(FABRICS[int(per_fabric[:, i].argmax())].value)
        else:
            names.append("other")
    return names
