"""Storage side of a SuperPOD: parallel-FS appliances on a storage fabric.

A sketch after RA-H100 (separate storage fabric; "the storage devices are
connected at a 1:1 port to uplink ratio. The DGX H100 system connections are
slightly oversubscribed with a ratio near 4:3") and RA-H100 Table 6, sized from
first principles:

* appliances: enough ``lustre-appliance`` units (DDN-class) for NVIDIA's
  "better" guidance, 40 GB/s read and 20 GB/s write per SU of 256 GPUs
  (RA-GB200 calls the same figure "standard");
* storage leaves in pairs (a node's storage ports alternate between leaf A
  and B), 4:3 down:up; storage spines the smallest divisor of the leaf uplinks
  with enough ports (the leaf model, or ``q3400`` for a large IB fabric);
  appliance and head-node ports land on the spines 1:1, spread round-robin.

Larger than the two-tier sketch holds, no storage is generated and the design
notes say so.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import ceil

from designer.catalog import CatalogEntry, Category, Interface, Role
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

APPLIANCE = "lustre-appliance"
READ_PER_SU = 40.0
"""GB/s read per SU (RA-H100 Table 6 'better', RA-GB200 'standard')."""
WRITE_PER_SU = 20.0
NODE_READ = 8.0
"""GB/s single-node read, RA-H100 Table 6 'better'."""
SU_GPUS = 256
GROUP_ID = "storage"


@dataclass(frozen=True)
class StoragePlan:
    """Counts of the storage sketch."""

    appliances: int
    leaves: int
    leaf_down: int
    leaf_up: int
    spine_model: str
    spines: int


def _usage(port: Interface, speed: int) -> Fraction:
    """Native ports one link at ``speed`` takes (1/2 for a 2-way breakout)."""
    return Fraction(1, max(1, port.split(speed)))


def _hosts(
    design: Design, catalog: CatalogLike, cat: Category
) -> list[tuple[str, Interface]]:
    return [
        (d.id, iface)
        for d in design.devices
        if catalog[d.catalog_id].category is cat
        for iface in catalog[d.catalog_id].interfaces_for(Role.STORAGE)
    ]


def plan_storage(
    design: Design, catalog: CatalogLike, leaf_model: str, big_model: str | None
) -> StoragePlan:
    """Size appliances, leaves and spines; raise GeneratorError if it cannot."""
    app = entry(catalog, APPLIANCE, Category.STORAGE, "storage appliance")
    spec = app.ext.storage
    assert spec is not None
    gpus = sum(catalog[d.catalog_id].gpus for d in design.devices)
    sus = max(gpus / SU_GPUS, sum(1 for g in design.groups if g.kind is GroupKind.SU))
    need_read = max(READ_PER_SU * sus, NODE_READ)
    appliances = max(
        1,
        ceil(need_read / spec.read_gbytes_s),
        ceil(WRITE_PER_SU * sus / spec.write_gbytes_s),
    )
    leaf = entry(catalog, leaf_model, Category.SWITCH, "storage leaf")
    lport = port_group(leaf, "ports")
    hosts = _hosts(design, catalog, Category.COMPUTE)
    if not hosts:
        raise GeneratorError("no compute node has a storage port group")
    speed = common_speed(hosts[0][1], "compute", lport, leaf_model)
    k = lport.ports_at(speed)
    down = 32 * (4 * k // 7 // 32) or 4 * (k // 7)
    up = 3 * down // 4
    per_leaf = ceil(hosts[0][1].count / 2)
    per_pair = down // per_leaf
    if per_pair < 1:
        raise GeneratorError("a node has more storage ports than a storage leaf pair")
    leaves = 2 * ceil(len(hosts) / per_pair)
    side = appliances * port_group(app, "data").count + sum(
        i.count for _, i in _hosts(design, catalog, Category.MANAGEMENT)
    )
    for model in (leaf_model, big_model):
        if model is None:
            continue
        spine = port_group(
            entry(catalog, model, Category.SWITCH, "storage spine"), "ports"
        )
        if not spine.supports_speed(speed) or not spine.supports_speed(200):
            continue
        native = leaves * up * _usage(spine, speed) + side * _usage(spine, 200)
        s = smallest_divisor_at_least(up, ceil(native / spine.count))
        if s is not None:
            return StoragePlan(appliances, leaves, down, up, model, s)
    raise GeneratorError(
        f"{leaves} storage leaves x {up} uplinks do not fit the two-tier storage sketch"
    )


def add_storage(
    design: Design, catalog: CatalogLike, leaf_model: str, big_model: str | None = None
) -> tuple[Design, StoragePlan]:
    """``design`` plus a storage fabric and appliances (see module doc)."""
    p = plan_storage(design, catalog, leaf_model, big_model)
    app = catalog[APPLIANCE]
    spine_entry: CatalogEntry = catalog[p.spine_model]
    cols: dict[str, list[object]] = {
        n: list(getattr(design.links, n)) for n in LINK_COLUMNS
    }
    devices = list(design.devices)
    x, top = side_slot(devices, SIDE_GROUPS)
    spine_at, leaf_at, app_at = side_rows([p.spines, p.leaves, p.appliances], x, top)

    def link(lid: str, a: str, ap: str, b: str, cables: int, speed: int) -> None:
        for name, value in zip(
            LINK_COLUMNS,
            (lid, a, ap, b, "ports", cables, speed, Fabric.STORAGE, None, None, None),
            strict=True,
        ):
            cols[name].append(value)

    def dev(did: str, slug: str, label: str, xy: tuple[float, float]) -> None:
        devices.append(
            Device(
                id=did,
                catalog_id=slug,
                label=label,
                x=xy[0],
                y=xy[1],
                group=GROUP_ID,
            )
        )

    leaves = [f"storage-leaf-{i + 1:02d}" for i in range(p.leaves)]
    spines = [f"storage-spine-{i + 1:02d}" for i in range(p.spines)]
    apps = [f"{APPLIANCE.split('-')[0]}-{i + 1:02d}" for i in range(p.appliances)]
    for i, lid in enumerate(leaves):
        dev(lid, leaf_model, f"Storage leaf {i + 1}", leaf_at[i])
    for i, sid in enumerate(spines):
        dev(sid, p.spine_model, f"Storage spine {i + 1}", spine_at[i])
    for i, aid in enumerate(apps):
        dev(aid, APPLIANCE, f"{app.model} {i + 1}", app_at[i])
    lport = port_group(catalog[leaf_model], "ports")
    per_leaf = ceil(_hosts(design, catalog, Category.COMPUTE)[0][1].count / 2)
    per_pair = p.leaf_down // per_leaf
    for n, (did, iface) in enumerate(_hosts(design, catalog, Category.COMPUTE)):
        speed = common_speed(iface, did, lport, leaf_model)
        pair = n // per_pair
        a_count = (iface.count + 1) // 2
        for side, cables in enumerate((a_count, iface.count - a_count)):
            if cables:
                lid = leaves[2 * pair + side]
                link(
                    f"{did}.{iface.name}{side}/{lid}",
                    did,
                    iface.name,
                    lid,
                    cables,
                    speed,
                )
    sport = port_group(spine_entry, "ports")
    # uplinks run at the node speed the plan counted (not 800G on SN5600)
    up_speed = common_speed(
        _hosts(design, catalog, Category.COMPUTE)[0][1], "node", sport, p.spine_model
    )
    for lid in leaves:
        for sid in spines:
            link(f"{lid}/{sid}", lid, "ports", sid, p.leaf_up // p.spines, up_speed)
    side_ports = [(aid, port_group(app, "data")) for aid in apps] + _hosts(
        design, catalog, Category.MANAGEMENT
    )
    turn = 0
    for did, iface in side_ports:
        speed = common_speed(iface, did, sport, p.spine_model)
        share: dict[str, int] = {}
        for _ in range(iface.count):
            sid = spines[turn % p.spines]
            share[sid] = share.get(sid, 0) + 1
            turn += 1
        for sid, cables in share.items():
            link(f"{did}.{iface.name}/{sid}", did, iface.name, sid, cables, speed)
    groups = [
        *design.groups,
        Group(id=GROUP_ID, label="Storage", kind=GroupKind.CUSTOM),
    ]
    table = LinkTable.model_construct(**cols)
    return Design(
        settings=design.settings, groups=groups, devices=devices, links=table
    ), p
