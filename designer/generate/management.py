"""Management side of a SuperPOD: head nodes, in-band and out-of-band networks.

A sketch after RA-H100 (in-band Ethernet on SN4600C, 100G bonded node links;
out-of-band on SN2201 48 x 1G; 5 BCM management servers), sized from first
principles because the RA gives management counts only for its 4-SU bill of
materials. None of it touches the compute fabric: these switches have no tier
and their links are ``inband`` / ``oob``.

* in-band: every host's in-band ports go to a pair of leaves (port 0 to leaf A,
  port 1 to leaf B), 56 hosts per pair, 8 uplinks per leaf (7:1, management
  traffic); spines are the smallest divisor of 8 with enough ports (SN4600C,
  or SN5600 at 100G breakout past 64 SN4600C leaves' worth);
* out-of-band: every BMC / switch management port on SN2201 (48 per switch),
  filled in design order so rack neighbours share a switch; each SN2201's
  4 x 100G uplinks are spread over the in-band spines.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

from designer.catalog import Category, Role
from designer.core.model import (
    LINK_COLUMNS,
    Design,
    Device,
    Fabric,
    Group,
    GroupKind,
    LinkTable,
)
from designer.generate.layout import SIDE_GROUPS, side_rows, side_slot
from designer.generate.parts import CatalogLike, common_speed, entry, port_group
from designer.generate.plan import GeneratorError, smallest_divisor_at_least

HEAD_NODES = 5
"""RA-H100 BOM: 5 BCM management servers (BasePOD: 2 head + 3 service nodes)."""
INBAND_LEAF = "sn4600c"
INBAND_BIG = "sn5600"
OOB_SWITCH = "sn2201"
LEAF_UP = 8
GROUP_ID = "mgmt"


@dataclass
class _Out:
    devices: list[Device]
    cols: dict[str, list[object]]

    def link(
        self,
        lid: str,
        a: str,
        a_port: str,
        b: str,
        b_port: str,
        cables: int,
        speed: int,
        fabric: Fabric,
    ) -> None:
        for name, value in zip(
            LINK_COLUMNS,
            (lid, a, a_port, b, b_port, cables, speed, fabric, None, None, None),
            strict=True,
        ):
            self.cols[name].append(value)


def add_head_nodes(design: Design, catalog: CatalogLike) -> Design:
    """``design`` plus 5 head nodes (2 BCM head + 3 service) in a Management group."""
    head = entry(catalog, "head-node", Category.MANAGEMENT, "head node")
    devices = list(design.devices)
    (at,) = side_rows([HEAD_NODES], *side_slot(devices, SIDE_GROUPS))
    for i in range(HEAD_NODES):
        role = "BCM head node" if i < 2 else "service node"
        devices.append(
            Device(
                id=f"head-{i + 1:02d}",
                catalog_id=head.slug,
                label=f"{role.capitalize()} {i + 1}",
                x=at[i][0],
                y=at[i][1],
                group=GROUP_ID,
            )
        )
    groups = [
        *design.groups,
        Group(id=GROUP_ID, label="Management", kind=GroupKind.CUSTOM),
    ]
    return Design(
        settings=design.settings, groups=groups, devices=devices, links=design.links
    )


def add_management(design: Design, catalog: CatalogLike) -> Design:
    """``design`` plus an in-band and an out-of-band network for all its devices."""
    leaf_sw = entry(catalog, INBAND_LEAF, Category.SWITCH, "in-band switch")
    oob_sw = entry(catalog, OOB_SWITCH, Category.SWITCH, "out-of-band switch")
    # head nodes (added earlier, before storage) move into this block so the
    # Management group does not straddle the Storage group
    corner = side_slot((d for d in design.devices if d.group != GROUP_ID), SIDE_GROUPS)
    out = _Out(
        list(design.devices), {n: list(getattr(design.links, n)) for n in LINK_COLUMNS}
    )
    # in-band hosts: (device id, port group, ports, speed)
    hosts: list[tuple[str, str, int, int]] = []
    leaf_port = port_group(leaf_sw, "ports")
    for d in out.devices:
        item = catalog[d.catalog_id]
        for iface in item.interfaces_for(Role.INBAND):
            speed = common_speed(iface, item.slug, leaf_port, leaf_sw.slug)
            hosts.append((d.id, iface.name, iface.count, speed))
    per_pair = leaf_port.count - LEAF_UP
    pairs = max(1, ceil(len(hosts) / per_pair))
    leaves = [f"inband-leaf-{k + 1:02d}" for k in range(2 * pairs)]
    for k, lid in enumerate(leaves):
        out.devices.append(_switch(lid, leaf_sw.slug, f"In-band leaf {k + 1}"))
    for n, (did, port, count, speed) in enumerate(hosts):
        pair = n // per_pair
        for j in range(count):
            lid = leaves[2 * pair + j % 2]
            out.link(
                f"{did}.{port}{j}/{lid}",
                did,
                port,
                lid,
                "ports",
                1,
                speed,
                Fabric.INBAND,
            )
    per_oob = port_group(oob_sw, "ports").count
    base = _oob_ends(out.devices, catalog)
    spine_sw, spines = _spines(catalog, len(leaves), base, per_oob)
    spine_ids = [f"inband-spine-{k + 1:02d}" for k in range(spines)]
    for k, sid in enumerate(spine_ids):
        out.devices.append(_switch(sid, spine_sw, f"In-band spine {k + 1}"))
    spine_port = port_group(catalog[spine_sw], "ports")
    up_speed = common_speed(leaf_port, leaf_sw.slug, spine_port, spine_sw)
    for lid in leaves:
        for sid in spine_ids:
            out.link(
                f"{lid}/{sid}",
                lid,
                "ports",
                sid,
                "ports",
                LEAF_UP // spines,
                up_speed,
                Fabric.INBAND,
            )
    ends = base + _oob_ends(out.devices[-spines:], catalog)
    oob_ids = _oob(out, catalog, oob_sw.slug, ends, spine_ids, spine_sw)
    _place(out, corner, [spine_ids, leaves, oob_ids])
    groups = list(design.groups)
    if GROUP_ID not in {g.id for g in groups}:
        groups.append(Group(id=GROUP_ID, label="Management", kind=GroupKind.CUSTOM))
    table = LinkTable.model_construct(**out.cols)
    return Design(
        settings=design.settings, groups=groups, devices=out.devices, links=table
    )


def _switch(did: str, slug: str, label: str) -> Device:
    """A management switch; :func:`_place` positions it."""
    return Device(id=did, catalog_id=slug, label=label, x=0.0, y=0.0, group=GROUP_ID)


def _place(out: _Out, corner: tuple[float, float], rows: list[list[str]]) -> None:
    """Spines, leaves, OOB switches, then the head nodes in rows beside the fabric."""
    listed = {did for row in rows for did in row}
    heads = [d.id for d in out.devices if d.group == GROUP_ID and d.id not in listed]
    rows = [*rows, heads]
    spots = side_rows([len(r) for r in rows], *corner)
    where = {did: xy for row, at in zip(rows, spots, strict=True)
             for did, xy in zip(row, at, strict=True)}  # fmt: skip
    for k, d in enumerate(out.devices):
        if d.id in where:
            x, y = where[d.id]
            out.devices[k] = d.model_copy(update={"x": x, "y": y})


def _oob_ends(
    devices: list[Device], catalog: CatalogLike
) -> list[tuple[str, str, int]]:
    """(device, port group, ports) of every out-of-band port to cable."""
    return [
        (d.id, iface.name, iface.count)
        for d in devices
        if catalog[d.catalog_id].slug != OOB_SWITCH
        for iface in catalog[d.catalog_id].interfaces_for(Role.OOB)
    ]


def _pack(counts: list[int], per: int) -> list[int]:
    """OOB switch index per device, filling in order, one device on one switch."""
    out, used = [], 0
    for c in counts:
        if used // per != (used + c - 1) // per:
            used = (used // per + 1) * per
        out.append(used // per)
        used += c
    return out


def _spines(
    catalog: CatalogLike, leaves: int, base: list[tuple[str, str, int]], per: int
) -> tuple[str, int]:
    """In-band spine model and count; the OOB uplinks land on the spines too."""
    counts = [c for _, _, c in base]
    for slug in (INBAND_LEAF, INBAND_BIG):
        sw = entry(catalog, slug, Category.SWITCH, "in-band spine")
        radix = port_group(sw, "ports").ports_at(100)
        mgmt = sum(i.count for i in sw.interfaces_for(Role.OOB))
        spines = 1
        for _ in range(8):
            n_oob = _pack(counts + [mgmt] * spines, per)[-1] + 1
            need = leaves * LEAF_UP + n_oob * 4
            s = smallest_divisor_at_least(LEAF_UP, ceil(need / radix))
            if s is None:
                break
            if s == spines:
                return slug, s
            spines = s
    raise GeneratorError(f"{leaves} in-band leaves are more than the sketch handles")


def _oob(
    out: _Out,
    catalog: CatalogLike,
    slug: str,
    ends: list[tuple[str, str, int]],
    spine_ids: list[str],
    spine_slug: str,
) -> list[str]:
    sw = catalog[slug]
    per = port_group(sw, "ports").count
    uplinks = port_group(sw, "uplinks")
    spine_port = port_group(catalog[spine_slug], "ports")
    up_speed = common_speed(uplinks, slug, spine_port, spine_slug)
    where = _pack([c for _, _, c in ends], per)
    ids = [f"oob-{k + 1:03d}" for k in range(where[-1] + 1)]
    for k, oid in enumerate(ids):
        out.devices.append(_switch(oid, slug, f"OOB switch {k + 1}"))
    kind = {d.id: d.catalog_id for d in out.devices}
    oob_port = port_group(sw, "ports")
    for (did, port, count), k in zip(ends, where, strict=True):
        item = catalog[kind[did]]
        speed = common_speed(port_group(item, port), item.slug, oob_port, slug)
        out.link(
            f"{did}.{port}/{ids[k]}",
            did,
            port,
            ids[k],
            "ports",
            count,
            speed,
            Fabric.OOB,
        )
    for k, oid in enumerate(ids):
        share: dict[str, int] = {}
        for u in range(uplinks.count):
            sid = spine_ids[(k + u) % len(spine_ids)]
            share[sid] = share.get(sid, 0) + 1
        for sid, cables in share.items():
            out.link(
                f"{oid}/{sid}",
                oid,
                uplinks.name,
                sid,
                "ports",
                cables,
                up_speed,
                Fabric.OOB,
            )
    return ids
