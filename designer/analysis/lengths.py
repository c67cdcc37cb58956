"""Where placed devices are, how long their cables run, and which medium each takes.

Only a design with a ``physical`` block has lengths; everything here is numpy
over all devices and links at once (a 100,000-GPU design in milliseconds).

Route of a cable (physical.md §1 reach figures assume this kind of run):

- in one rack: from one device's ports to the other's along the rack,
  ``|z_a - z_b|``, plus the slack;
- between racks: up from the device's ports to the top of its rack and on to
  the overhead tray (``facility.tray_m``), along the rows and across them
  (``|dx| + |dy|`` between the racks' centres in site coordinates: trays run
  along and between the rows), down into the other rack, plus the slack
  (``facility.slack_m``, a service loop per cable).

A device's ports sit at the middle of its height (``u - 1 + height / 2``
units above the rack floor); a device in a rack without a U at the middle of
the rack. A link with an end outside every rack has no length (``nan``) and
keeps the default medium of its speed class, as an unplaced design does.

The medium of a link is the class of its speed class (by the a-end port
group's link layer, as the BOM prices it) with the shortest reach that covers
the length (:meth:`designer.catalog.optics.Optics.cable_for_length`); a link
longer than every class is ``too_long`` and priced as the longest-reach class.
Then the media are made whole per cage (:func:`_share_cages`): the two links
of a twin-port cage share one module or one twin cable, so a link may take a
longer-reach medium than its own length needs, never a shorter one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.analysis.codes import dense_codes
from designer.analysis.index import BoolArray, DesignIndex, FloatArray, IntArray
from designer.catalog.optics import MEDIA, CableClass
from designer.catalog.schema import DeviceCooling, Media
from designer.core.physical import (
    COOLING_ORDER,
    RACK_UNIT_M,
    SLOT_M,
    Cooling,
    Physical,
    RackRole,
)

NO_MEDIUM = -1
"""Medium code meaning "the end's own default medium" (unplaced designs)."""


@dataclass
class PhysicalIndex:
    """Racks and devices of a placed design as arrays (site coordinates, metres)."""

    physical: Physical
    rack_ids: list[str]
    rack_labels: list[str]
    rack_type: list[str]
    rack_role: list[RackRole]
    rack_row: IntArray
    row_ids: list[str]
    rack_hall: IntArray
    hall_ids: list[str]
    x: FloatArray
    """Left edge of the rack (site x)."""
    y: FloatArray
    """Front edge of the rack (site y)."""
    width: FloatArray
    depth: FloatArray
    rack_u: IntArray
    max_kw: FloatArray
    """Power the rack type's feeds deliver."""
    cooling: IntArray
    """Index into :data:`designer.core.physical.COOLING_ORDER`."""
    cool_kw: FloatArray
    """What the facility removes from a rack of its cooling class."""
    rack_of: IntArray
    """Rack of each device (-1: in no rack)."""
    u: IntArray
    """Lowest U of each device (0: not known)."""
    height: IntArray
    """Rack units each device takes (its catalog height rounded up)."""
    port_z: FloatArray
    """Height of each device's ports above the floor (nan: in no rack)."""
    liquid: BoolArray
    """Devices that need liquid cooling (catalog ``x-designer.cooling``)."""
    kw: FloatArray
    """IT load per rack (device maximum power)."""

    @property
    def n_racks(self) -> int:
        """Racks in the design."""
        return len(self.rack_ids)

    @property
    def centre_x(self) -> FloatArray:
        """Site x of each rack's centre."""
        return self.x + self.width / 2

    @property
    def centre_y(self) -> FloatArray:
        """Site y of each rack's centre."""
        return self.y + self.depth / 2

    @property
    def top(self) -> FloatArray:
        """Height of each rack's top above the floor."""
        return (self.rack_u * RACK_UNIT_M).astype(np.float64)


@dataclass
class LinkMedia:
    """Length and medium of every link of a placed design."""

    length_m: FloatArray
    """Routed length of one cable of the link, slack included (nan: unknown)."""
    medium: IntArray
    """Index into :data:`designer.catalog.optics.MEDIA` of each link's class (the
    default one of its speed class when the length is unknown)."""
    cable: IntArray
    """Index into ``optics.cables`` of the class the BOM counts."""
    too_long: BoolArray
    """Longer than every medium of the link's speed class reaches."""
    reach_m: FloatArray
    """Longest reach of the link's speed class."""


def physical_of(index: DesignIndex) -> PhysicalIndex | None:
    """The index's racks and device positions (None: no ``physical`` block),
    built on first use and kept with the index."""
    if index._phys is None and index.physical is not None:
        index._phys = physical_index(index)
    phys: PhysicalIndex | None = index._phys
    return phys


def media_of(index: DesignIndex) -> LinkMedia | None:
    """Length and medium of each link (None: the design is not placed), built
    on first use and kept with the index."""
    if index._media is None:
        phys = physical_of(index)
        if phys is not None:
            index._media = link_media(index, phys)
    media: LinkMedia | None = index._media
    return media


def physical_index(index: DesignIndex) -> PhysicalIndex | None:
    """The placed design as arrays, or None without a ``physical`` block."""
    physical = index.physical
    if physical is None:
        return None
    types = physical.rack_type_map()
    halls = physical.halls
    hall_pos = {h.id: i for i, h in enumerate(halls)}
    rows = physical.rows
    row_pos = {r.id: i for i, r in enumerate(rows)}
    racks = physical.racks
    n = len(racks)
    rack_pos = {r.id: i for i, r in enumerate(racks)}
    x = np.zeros(n)
    y = np.zeros(n)
    width = np.full(n, SLOT_M)
    depth = np.full(n, 1.2)
    rack_u = np.zeros(n, dtype=np.int64)
    max_kw = np.zeros(n)
    cooling = np.zeros(n, dtype=np.int64)
    rack_row = np.zeros(n, dtype=np.int64)
    rack_hall = np.zeros(n, dtype=np.int64)
    facility = physical.facility
    limit = [facility.kw_for(c) for c in COOLING_ORDER]
    for i, r in enumerate(racks):
        kind = types[r.type]
        row = rows[row_pos[r.row]]
        hall = halls[hall_pos[row.hall]]
        x[i] = hall.x_m + row.x_m + r.slot * SLOT_M
        y[i] = hall.y_m + row.y_m
        width[i] = kind.width_mm / 1000
        depth[i] = kind.depth_mm / 1000
        rack_u[i] = kind.u
        max_kw[i] = kind.max_kw
        cooling[i] = COOLING_ORDER.index(physical.cooling_of(r, types))
        rack_row[i] = row_pos[r.row]
        rack_hall[i] = hall_pos[row.hall]
    cool_kw = np.asarray(limit)[cooling] if n else np.zeros(0)
    m = index.n_devices
    rack_of = np.full(m, -1, dtype=np.int64)
    u = np.zeros(m, dtype=np.int64)
    for i, p in enumerate(index.placements):
        if p is not None and p.rack is not None:
            rack_of[i] = rack_pos.get(p.rack, -1)
            u[i] = p.u or 0
    height = np.maximum(np.ceil(index.u_height - 1e-9), 1).astype(np.int64)
    placed = rack_of >= 0
    top = rack_u * RACK_UNIT_M
    port_z = np.full(m, np.nan)
    at_u = placed & (u > 0)
    port_z[at_u] = (u[at_u] - 1 + index.u_height[at_u] / 2) * RACK_UNIT_M
    mid = placed & (u == 0)
    port_z[mid] = top[rack_of[mid]] / 2
    liquid_entry = np.array(
        [
            e is not None and e.ext.cooling is DeviceCooling.LIQUID
            for e in index.entries
        ],
        dtype=np.bool_,
    )
    liquid = liquid_entry[index.dev_catalog] if m else np.zeros(0, dtype=np.bool_)
    kw = (
        np.bincount(rack_of[placed], weights=index.power_w[placed], minlength=n)
        / 1000.0
    )
    return PhysicalIndex(
        physical=physical,
        rack_ids=[r.id for r in racks],
        rack_labels=[r.label or r.id for r in racks],
        rack_type=[r.type for r in racks],
        rack_role=[r.role for r in racks],
        rack_row=rack_row,
        row_ids=[r.id for r in rows],
        rack_hall=rack_hall,
        hall_ids=[h.id for h in halls],
        x=x,
        y=y,
        width=width,
        depth=depth,
        rack_u=rack_u,
        max_kw=max_kw,
        cooling=cooling,
        cool_kw=cool_kw,
        rack_of=rack_of,
        u=u,
        height=height,
        port_z=port_z,
        liquid=liquid,
        kw=kw,
    )


def cable_lengths(phys: PhysicalIndex, a: IntArray, b: IntArray) -> FloatArray:
    """Routed length of one cable between devices ``a[i]`` and ``b[i]`` (see doc)."""
    facility = phys.physical.facility
    ra, rb = phys.rack_of[a], phys.rack_of[b]
    known = (ra >= 0) & (rb >= 0)
    ra0, rb0 = np.where(known, ra, 0), np.where(known, rb, 0)
    za, zb = phys.port_z[a], phys.port_z[b]
    if phys.n_racks == 0:
        return np.full(len(a), np.nan)
    cx, cy, top = phys.centre_x, phys.centre_y, phys.top
    across = np.abs(cx[ra0] - cx[rb0]) + np.abs(cy[ra0] - cy[rb0])
    up = (top[ra0] - za) + (top[rb0] - zb) + 2 * facility.tray_m
    length = np.where(ra0 == rb0, np.abs(za - zb), up + across) + facility.slack_m
    return np.where(known, length, np.nan)


def _layers(index: DesignIndex) -> IntArray:
    """Link layer of each link's a-end port group: 0 InfiniBand, 1 Ethernet."""
    n_ports = max(len(index.port_names), 1)
    inv, keys = dense_codes(index.dev_catalog[index.a] * n_ports + index.a_port)
    layer = np.ones(len(keys), dtype=np.int64)  # unknown groups: Ethernet
    for j, k in enumerate(keys.tolist()):
        iface = index.port_keys.get(divmod(int(k), n_ports))
        if iface is not None and iface.interface is not None:
            layer[j] = 0 if iface.interface.media is Media.INFINIBAND else 1
    return layer[inv] if len(keys) else np.zeros(0, dtype=np.int64)


_LAYERS = (Media.INFINIBAND, Media.ETHERNET)


def link_media(index: DesignIndex, phys: PhysicalIndex) -> LinkMedia:
    """Length, medium and BOM cable class of every link (see module doc)."""
    optics = index.catalog.optics
    cables: list[CableClass] = list(optics.cables)
    code = {c.id: i for i, c in enumerate(cables)}
    m = index.n_links
    length = cable_lengths(phys, index.a, index.b)
    if m == 0:
        empty = np.zeros(0, dtype=np.int64)
        return LinkMedia(length, empty, empty, np.zeros(0, np.bool_), np.zeros(0))
    # every speed class's ladder, flattened: link i uses rows base[i] .. + size[i]
    layer = _layers(index)
    ginv, gkeys = dense_codes(index.speed * 2 + layer)
    t_cable: list[int] = []
    t_medium: list[int] = []
    t_reach: list[float] = []
    g_base = np.zeros(len(gkeys), dtype=np.int64)
    g_size = np.zeros(len(gkeys), dtype=np.int64)
    g_default = np.zeros(len(gkeys), dtype=np.int64)
    for g, key in enumerate(gkeys.tolist()):
        speed, lay = divmod(int(key), 2)
        ladder = optics.ladder(speed, _LAYERS[lay])
        g_base[g], g_size[g] = len(t_cable), len(ladder)
        default = optics.cable_class(speed, _LAYERS[lay])
        g_default[g] = next(k for k, c in enumerate(ladder) if c.id == default.id)
        t_cable += [code[c.id] for c in ladder]
        t_medium += [MEDIA.index(c.medium) for c in ladder]
        t_reach += [c.reach_m for c in ladder]
    cable_t, medium_t, reach_t = (
        np.asarray(t_cable, np.int64),
        np.asarray(t_medium, np.int64),
        np.asarray(t_reach),
    )
    base, size = g_base[ginv], g_size[ginv]
    ok = ~np.isnan(length)
    step = np.zeros(m, dtype=np.int64)
    for g in range(len(gkeys)):
        rows = np.flatnonzero(ginv == g)
        lo, n = int(g_base[g]), int(g_size[g])
        got = length[rows]
        at = np.searchsorted(reach_t[lo : lo + n], np.where(ok[rows], got, 0.0))
        step[rows] = np.where(ok[rows], at, g_default[g])
    too_long = ok & (step >= size)
    step = np.minimum(step, size - 1)
    step = _share_cages(index, step, size, np.where(ok, length, 0.0))
    at = base + step
    return LinkMedia(
        length_m=length,
        medium=medium_t[at],
        cable=cable_t[at],
        too_long=too_long,
        reach_m=reach_t[base + size - 1],
    )


MAX_CAGE_PASSES = 64
"""Rounds of :func:`_share_cages` (each moves at least one link up a medium)."""


def _share_cages(
    index: DesignIndex, step: IntArray, size: IntArray, length: FloatArray
) -> IntArray:
    """Media made whole per cage: the links of one twin-port cage share a plug.

    A twin-port OSFP cage takes one module or one twin copper cable, so at a
    device's port group with ``k`` links per cage the cables of each medium
    must fill whole cages, except those of its longest-reach medium there. A
    medium whose count leaves a part-filled cage moves its longest link one
    medium up (never to a shorter reach); both ends of every link are checked
    again until nothing moves.
    """
    m = index.n_links
    n_ports = max(len(index.port_names), 1)
    scode, speeds = dense_codes(index.speed)
    n_s = max(len(speeds), 1)
    # links per cage by (catalog entry, port group) and speed: a small table
    table = np.ones((len(index.catalog_ids) * n_ports, n_s), dtype=np.int64)
    for (ci, pi), info in index.port_keys.items():
        iface = info.interface
        if iface is not None and iface.ports_per_cage > 1:
            row = ci * n_ports + pi
            for sc, spd in enumerate(speeds.tolist()):
                table[row, sc] = iface.links_per_cage(int(spd))
    ends = []
    for dev, port in ((index.a, index.a_port), (index.b, index.b_port)):
        k = table[index.dev_catalog[dev] * n_ports + port, scode]
        at = np.flatnonzero(k > 1)
        ends.append((at, (dev[at] * n_ports + port[at]) * n_s + scode[at], k[at]))
    e_link = np.concatenate([e[0] for e in ends])
    if not len(e_link):
        return step
    group = np.concatenate([e[1] for e in ends])
    n_groups = index.n_devices * n_ports * n_s
    depth = int(size.max())
    group_k = np.ones(n_groups, dtype=np.int64)
    group_k[group] = np.concatenate([e[2] for e in ends])
    cables = index.cables[e_link].astype(np.float64)
    steps = np.arange(depth)
    step = step.copy()
    # the first pass reads every end; later ones only the groups a move touched
    active = np.arange(len(e_link))
    for _ in range(MAX_CAGE_PASSES):
        a_group, a_link = group[active], e_link[active]
        st = step[a_link]
        touched_groups = np.unique(a_group) if len(active) < len(e_link) else None
        cell = a_group * depth + st
        count = np.bincount(cell, weights=cables[active], minlength=n_groups * depth)
        present = np.bincount(cell, minlength=n_groups * depth)
        count_m = np.rint(count).astype(np.int64).reshape(n_groups, depth)
        present_m = present.reshape(n_groups, depth) > 0
        rows = (
            touched_groups
            if touched_groups is not None
            else np.flatnonzero(present_m.sum(axis=1) > 1)  # only mixed groups
        )
        pm, cm = present_m[rows], count_m[rows]
        top = depth - 1 - np.argmax(pm[:, ::-1], axis=1)
        bad = pm & (cm % group_k[rows][:, None] != 0) & (steps[None, :] < top[:, None])
        hit = bad.any(axis=1)
        if not hit.any():
            break
        # one medium per group and pass, the shortest-reach one first: moving
        # its link up may complete the next medium's cage
        want = np.full(n_groups, -1, dtype=np.int64)
        want[rows[hit]] = np.argmax(bad[hit], axis=1)
        cand = np.flatnonzero(want[a_group] == st)
        pick = cand[np.lexsort((-length[a_link[cand]], a_group[cand]))]
        first = np.ones(len(pick), dtype=np.bool_)
        first[1:] = a_group[pick][1:] != a_group[pick][:-1]
        moved = np.unique(a_link[pick[first]])
        step[moved] = np.minimum(step[moved] + 1, size[moved] - 1)
        touched = np.zeros(m, dtype=np.bool_)
        touched[moved] = True
        dirty = np.zeros(n_groups, dtype=np.bool_)
        dirty[group[touched[e_link]]] = True
        active = np.flatnonzero(dirty[group])
    return step


def rack_cooling(phys: PhysicalIndex, rack: int) -> Cooling:
    """Cooling class of rack ``rack``."""
    return COOLING_ORDER[int(phys.cooling[rack])]
