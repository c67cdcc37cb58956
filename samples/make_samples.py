"""Write the reference designs in ``samples/`` (``python samples/make_samples.py``).

Reproducible: the same catalog and generators give byte-identical files, and
``tests/samples`` checks that the committed files match this script. Larger
designs come from :mod:`designer.generate`; small ones are built by hand here.
Every sample gets an out-of-band (BMC) network of SN2201 switches where the
generator did not already wire one, and is placed into racks, rows and a data
hall (:func:`designer.physical.place`, default options unless noted).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):  # run as a script from a checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from designer.catalog.loader import Catalog, default_catalog
from designer.catalog.schema import Role
from designer.core.model import (
    Design,
    Device,
    Fabric,
    Group,
    GroupKind,
    Link,
    LinkTable,
    Purpose,
    Settings,
    Tier,
)
from designer.core.physical import Facility
from designer.core.workload import Job, Precision, Workload
from designer.generate import fat_tree, superpod
from designer.generate.layout import arrange_side
from designer.io import save_design
from designer.io.export.cables import pinned_design
from designer.physical import PlaceOptions, place

HERE = Path(__file__).resolve().parent

OOB_SWITCH = "sn2201"
OOB_PORTS = 48
OOB_DX = 120.0
"""Pitch of the out-of-band switches in their row."""
SIDE_GAP = 300.0
"""Gap between the fabric and the storage / management blocks beside it."""
MGMT = "mgmt"
"""Id of the management group (head nodes, out-of-band switches)."""
STORAGE = "storage"
"""Id of the storage group of the hand-built samples."""
STORAGE_DX = 100.0
STORAGE_ROW = 160.0
"""Pitch of the devices in a row, and of the rows, of a storage fabric block."""


class Builder:
    """Small helper to hand-build a design: devices, then links between port groups."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.devices: list[Device] = []
        self.links: list[Link] = []
        self.groups: list[Group] = []

    def group(self, gid: str, label: str, kind: GroupKind = GroupKind.CUSTOM) -> str:
        """Add one group; return its id."""
        self.groups.append(Group(id=gid, label=label, kind=kind))
        return gid

    def add(self, did: str, catalog_id: str, x: float, y: float, **kw: object) -> str:
        """Add one device; return its id."""
        self.devices.append(
            Device.model_validate(
                {"id": did, "catalog_id": catalog_id, "x": x, "y": y, **kw}
            )
        )
        return did

    def link(
        self,
        a: str,
        a_port: str,
        b: str,
        b_port: str,
        *,
        speed: int,
        cables: int = 1,
        fabric: Fabric = Fabric.COMPUTE,
        rail: int | None = None,
    ) -> None:
        """Add a bundle of ``cables`` between two port groups."""
        self.links.append(
            Link(
                id=f"{a}.{a_port}--{b}.{b_port}"
                + (f".r{rail}" if rail is not None else ""),
                a=a,
                a_port=a_port,
                b=b,
                b_port=b_port,
                cables=cables,
                speed_gbps=speed,
                fabric=fabric,
                rail=rail,
            )
        )

    def design(self) -> Design:
        """The finished design."""
        return Design(
            settings=self.settings,
            groups=self.groups,
            devices=self.devices,
            links=LinkTable.from_links(self.links),
        )


def add_oob(
    design: Design, catalog: Catalog, at: tuple[float, float] | None = None
) -> Design:
    """Wire every BMC/management port to SN2201 out-of-band switches (48 x 1G).

    The switches go in a row into the management group (made if missing) from
    ``at``, by default right of everything at the top of the design, so their
    links fan out sideways instead of from a row far above the fabric.
    """
    devices = list(design.devices)
    used = set(zip(design.links.a, design.links.a_port, strict=True))
    used |= set(zip(design.links.b, design.links.b_port, strict=True))
    wanted: list[tuple[str, str, int]] = []  # device, port group, ports
    for d in devices:
        for iface in catalog[d.catalog_id].interfaces_for(Role.OOB):
            wired = (d.id, iface.name) in used  # generators may wire OOB
            if iface.speed_gbps == 1 and iface.name in ("bmc", "mgmt") and not wired:
                wanted.append((d.id, iface.name, iface.count))
    if not wanted:
        return design
    links = design.links.model_copy(deep=True)
    switches: list[Device] = []
    free = 0
    if at is None:
        at = (max(d.x for d in devices) + SIDE_GAP, min(d.y for d in devices))
    for did, port, count in wanted:
        if count > free:
            n = len(switches) + 1
            switches.append(
                Device(
                    id=f"oob-{n:02d}",
                    catalog_id=OOB_SWITCH,
                    label=f"OOB switch {n}",
                    x=at[0] + OOB_DX * (n - 1),
                    y=at[1],
                    group=MGMT,
                )
            )
            free = OOB_PORTS
        free -= count
        links.append(
            Link(
                id=f"oob:{did}.{port}",
                a=did,
                a_port=port,
                b=switches[-1].id,
                b_port="ports",
                cables=count,
                speed_gbps=1,
                fabric=Fabric.OOB,
            )
        )
    groups = list(design.groups)
    if MGMT not in {g.id for g in groups}:
        groups.append(Group(id=MGMT, label="Management", kind=GroupKind.CUSTOM))
    return Design(
        settings=design.settings,
        groups=groups,
        devices=devices + switches,
        links=links,
    )


def add_storage_fabric(
    design: Design,
    catalog: Catalog,
    *,
    switch: str,
    speed: int,
    appliance: str,
    appliances: int,
) -> Design:
    """A separate non-blocking leaf-spine storage fabric (the SuperPOD presets
    draw their own; this one is for designs from the plain fat-tree generator).

    Every compute node's ``storage`` ports and every appliance's ``data`` ports go
    down into storage leaves (half of each leaf's ports down, half up); each
    leaf wires equally to every storage spine.
    """
    sw = catalog[switch].interface("ports")
    assert sw is not None
    radix = (
        sw.count * (sw.breakout or {}).get(speed, 1)
        if speed != sw.speed_gbps
        else sw.count
    )
    down_per_leaf = radix // 2
    ends: list[tuple[str, str, int, int]] = []  # device, port group, ports, speed
    nodes = [
        d for d in design.devices if catalog[d.catalog_id].category.value == "compute"
    ]
    for d in nodes:
        group = catalog[d.catalog_id].interface("storage")
        if group is not None:
            ends.append((d.id, "storage", group.count, speed))
    data = catalog[appliance].interface("data")
    assert data is not None
    app_ids = [f"{appliance.split('-')[0]}-{i + 1:02d}" for i in range(appliances)]
    ends += [(a, "data", data.count, data.speed_gbps) for a in app_ids]
    total = sum(n for _, _, n, _ in ends)
    n_leaves = -(-total // down_per_leaf)
    n_spines = 0
    if n_leaves > 1:
        needed = -(-n_leaves * down_per_leaf // radix)
        n_spines = min(
            s for s in range(needed, down_per_leaf + 1) if down_per_leaf % s == 0
        )
    # a block right of the fabric at its top: spines, leaves, then appliances
    x0 = max(d.x for d in design.devices) + SIDE_GAP
    top = min(d.y for d in design.devices)
    row = {"spine": top, "leaf": top + STORAGE_ROW, "app": top + 2 * STORAGE_ROW}
    devices = list(design.devices)
    group_id = "storage-fabric"
    leaves = [f"stor-leaf-{i + 1:02d}" for i in range(n_leaves)]
    spines = [f"stor-spine-{i + 1:02d}" for i in range(n_spines)]
    for i, did in enumerate(leaves):
        devices.append(
            Device(
                id=did,
                catalog_id=switch,
                label=f"Storage leaf {i + 1}",
                x=x0 + STORAGE_DX * i,
                y=row["leaf"],
                group=group_id,
            )
        )
    for i, did in enumerate(spines):
        devices.append(
            Device(
                id=did,
                catalog_id=switch,
                label=f"Storage spine {i + 1}",
                x=x0 + STORAGE_DX * i,
                y=row["spine"],
                group=group_id,
            )
        )
    for i, did in enumerate(app_ids):
        devices.append(
            Device(
                id=did,
                catalog_id=appliance,
                label=f"{catalog[appliance].model} {i + 1}",
                x=x0 + STORAGE_DX * i,
                y=row["app"],
                group=group_id,
            )
        )
    links = design.links.model_copy(deep=True)
    leaf, free = 0, down_per_leaf
    for did, port, count, rate in ends:
        part = 0
        while count:  # a node's ports may straddle two leaves
            if free == 0:
                leaf, free = leaf + 1, down_per_leaf
            take = min(count, free)
            links.append(
                Link(
                    id=f"stor:{did}.{port}" + (f".{part}" if part else ""),
                    a=did,
                    a_port=port,
                    b=leaves[leaf],
                    b_port="ports",
                    cables=take,
                    speed_gbps=rate,
                    fabric=Fabric.STORAGE,
                )
            )
            count, free, part = count - take, free - take, part + 1
    for lf in leaves:
        for sp in spines:
            links.append(
                Link(
                    id=f"stor:{lf}--{sp}",
                    a=lf,
                    a_port="ports",
                    b=sp,
                    b_port="ports",
                    cables=down_per_leaf // n_spines,
                    speed_gbps=speed,
                    fabric=Fabric.STORAGE,
                )
            )
    groups = [
        *design.groups,
        Group(id=group_id, label="Storage fabric", kind=GroupKind.CUSTOM),
    ]
    return Design(settings=design.settings, groups=groups, devices=devices, links=links)


def _settings(
    name: str,
    purpose: Purpose,
    scheduler: str,
    monitoring: list[str],
    notes: str,
) -> Settings:
    return Settings(
        name=name,
        purpose=purpose,
        scheduler=scheduler,
        monitoring=monitoring,
        notes=notes,
    )


def minimum_viable_enterprise(catalog: Catalog) -> Design:
    """2 x DGX H100 on one QM9700 (NDR), 300 TB Lustre appliance, Slurm, DCGM."""
    b = Builder(
        _settings(
            "Minimum viable enterprise cluster",
            Purpose.TRAINING,
            "slurm",
            ["dcgm"],
            "Product brief 'Minimum viable production cluster': 2 x DGX H100 "
            "(16 GPUs) on NDR InfiniBand (one QM9700 carries the compute and the "
            "storage traffic), one Lustre appliance (300 TB, >= 100 TB asked), a "
            "head node for Slurm, DCGM monitoring and a 1G out-of-band network.",
        )
    )
    # the SU (switch over its nodes) left, management and storage beside it
    su = b.group("su01", "SU 1", GroupKind.SU)
    b.group(STORAGE, "Storage")
    b.group(MGMT, "Management")
    leaf = b.add("leaf-01", "qm9700", 240.0, 300.0, label="NDR switch",
                 tier=Tier.LEAF, group=su)  # fmt: skip
    for n in (1, 2):
        node = b.add(
            f"dgx-{n:02d}",
            "dgx-h100",
            160.0 * n,
            600.0,
            label=f"DGX H100 {n}",
            group=su,
        )
        for rail in range(8):
            b.link(node, "compute", leaf, "ports", speed=400, rail=rail)
        b.link(node, "storage", leaf, "ports", speed=400, cables=2,
               fabric=Fabric.STORAGE)  # fmt: skip
    side = 320.0 + SIDE_GAP
    fs = b.add("lustre-01", "lustre-appliance", side, 600.0, label="Lustre 300 TB",
               group=STORAGE)  # fmt: skip
    b.link(fs, "data", leaf, "ports", speed=200, cables=8, fabric=Fabric.STORAGE)
    head = b.add("head-01", "head-node", side, 450.0, label="Slurm head node",
                 group=MGMT)  # fmt: skip
    b.link(head, "storage", leaf, "ports", speed=200, cables=2,
           fabric=Fabric.STORAGE)  # fmt: skip
    # the brief: "supports fine-tuning up to 70B"
    lora = Workload(model="llama3-70b", job=Job.LORA, tokens=1e9)
    return _with_workload(add_oob(b.design(), catalog, at=(side, 300.0)), lora)


def development(catalog: Catalog) -> Design:
    """4 x L40S PCIe servers on one 100GbE ToR with an NFS filer."""
    b = Builder(
        _settings(
            "Development cluster",
            Purpose.DEVELOPMENT,
            "slurm",
            ["dcgm", "prometheus"],
            "Development tier (8-32 GPUs): 4 x 8-GPU L40S PCIe servers, one "
            "32-port 100GbE ToR for compute, in-band and storage traffic, an NFS "
            "filer, and a 1G out-of-band network.",
        )
    )
    # the SU (ToR over its servers) left, management and storage beside it
    su = b.group("su01", "SU 1", GroupKind.SU)
    b.group(STORAGE, "Storage")
    tor = b.add("tor-01", "tor-100g-32", 375.0, 300.0, label="100GbE ToR",
                tier=Tier.LEAF, group=su)  # fmt: skip
    for n in range(1, 5):
        node = b.add(f"l40s-{n:02d}", "l40s-server", 150.0 * n, 600.0,
                     label=f"L40S server {n}", group=su)  # fmt: skip
        b.link(node, "compute", tor, "ports", speed=100, cables=4)
        b.link(node, "inband", tor, "ports", speed=100, cables=2,
               fabric=Fabric.INBAND)  # fmt: skip
    side = 600.0 + SIDE_GAP
    nfs = b.add("nfs-01", "nfs-filer", side, 600.0, label="NFS filer",
                group=STORAGE)  # fmt: skip
    b.link(nfs, "data", tor, "ports", speed=100, cables=4, fabric=Fabric.STORAGE)
    return add_oob(b.design(), catalog, at=(side, 300.0))


def _with_workload(design: Design, workload: Workload) -> Design:
    """The design with a workload block (what ``estimate`` reads by default)."""
    return design.model_copy(update={"workload": workload})


def _with_settings(design: Design, **changes: object) -> Design:
    return design.model_copy(
        update={"settings": design.settings.model_copy(update=changes)}
    )


def dgx_h100_superpod_4su(catalog: Catalog) -> Design:
    """RA-H100 4 SU: 127 DGX H100 + 4 UFM ports, 32 leaf + 16 spine QM9700."""
    d = superpod("dgx-h100", 4, catalog=catalog)
    d = _with_settings(d, name="DGX H100 SuperPOD, 4 SU", scheduler="slurm",
                       monitoring=["dcgm"])  # fmt: skip
    return _with_workload(add_oob(d, catalog), Workload(model="llama3-70b"))


def dgx_b200_superpod_16su(catalog: Catalog) -> Design:
    """RA-B200 Table 3, 16 SU: 512 DGX B200, 128 leaf / 128 spine / 64 core."""
    d = superpod("dgx-b200", 16, catalog=catalog)
    d = _with_settings(d, name="DGX B200 SuperPOD, 16 SU", scheduler="slurm",
                       monitoring=["dcgm"])  # fmt: skip
    return add_oob(d, catalog)


def gb200_nvl72_su(catalog: Catalog) -> Design:
    """One GB200 NVL72 scalable unit: 8 racks, 576 GPUs, NDR compute fabric."""
    d = superpod("gb200-nvl72", 1, catalog=catalog)
    d = _with_settings(d, name="DGX GB200 NVL72 SuperPOD, 1 SU", scheduler="slurm",
                       monitoring=["dcgm"])  # fmt: skip
    return add_oob(d, catalog)


def inference_ethernet(catalog: Catalog) -> Design:
    """16 HGX H100 on a rail-optimized 400GbE leaf-spine (4 leaves, 2 spines),
    NFS behind a 100GbE storage switch, Kubernetes."""
    d = fat_tree("hgx-h100", 16, "generic-400g-64", su_size=16, catalog=catalog)
    d = _with_settings(
        d,
        name="Inference cluster (Ethernet)",
        purpose=Purpose.INFERENCE,
        scheduler="kubernetes",
        monitoring=["dcgm", "prometheus"],
    )
    # storage (switch at the leaves' height, filer at the nodes') and the
    # out-of-band switch (at the spines' height) in a column beside the fabric
    side = max(dev.x for dev in d.devices) + SIDE_GAP
    leaf_y = min(dev.y for dev in d.devices if dev.tier is Tier.LEAF)
    extra = [
        Device(id="stor-01", catalog_id="sn4600c", label="Storage switch 100GbE",
               x=side, y=leaf_y, group=STORAGE),
        Device(id="nfs-01", catalog_id="nfs-filer", label="NFS filer",
               x=side, y=max(dev.y for dev in d.devices), group=STORAGE),
    ]  # fmt: skip
    links = d.links.model_copy(deep=True)
    nodes = [dev.id for dev in d.devices if dev.catalog_id == "hgx-h100"]
    for node in nodes:
        links.append(
            Link(id=f"stor:{node}", a=node, a_port="storage", b="stor-01",
                 b_port="ports", cables=2, speed_gbps=100, fabric=Fabric.STORAGE)
        )  # fmt: skip
    links.append(
        Link(id="stor:nfs-01", a="nfs-01", a_port="data", b="stor-01",
             b_port="ports", cables=4, speed_gbps=100, fabric=Fabric.STORAGE)
    )  # fmt: skip
    groups = [*d.groups, Group(id=STORAGE, label="Storage", kind=GroupKind.CUSTOM)]
    top = min(dev.y for dev in d.devices)
    d = Design(settings=d.settings, groups=groups,
               devices=[*d.devices, *extra], links=links)  # fmt: skip
    serve = Workload(
        model="llama3-70b",
        job=Job.INFERENCE,
        precision=Precision.FP8,
        context_length=8192,
        concurrent_sequences=32,
    )
    return _with_workload(add_oob(d, catalog, at=(side, top)), serve)


def vera_rubin_nvl72_pod(catalog: Catalog) -> Design:
    """16 Vera Rubin NVL72 racks (1,152 GPUs) on an XDR 800G Q3400 fat tree."""
    d = fat_tree("vr-nvl72", 16, "q3400", catalog=catalog)
    d = _with_settings(
        d,
        name="Vera Rubin NVL72 pod (16 racks, 1,152 GPUs)",
        scheduler="slurm",
        monitoring=["dcgm"],
        notes=d.settings.notes + "\nThe 1,152 GPUs match NVIDIA's 'Vera Rubin POD' "
        "compute count (16 NVL72 racks); the fabric is this tool's non-blocking "
        "XDR fat tree, not an NVIDIA reference (none was found).",
    )
    d = add_storage_fabric(d, catalog, switch="sn5600", speed=400,
                           appliance="vast-appliance", appliances=6)  # fmt: skip
    # two SUs side by side are a wide strip: the storage fabric and the
    # management block go below or beside it, whichever is nearer a screen
    d = arrange_side(add_oob(d, catalog), ("storage-fabric", MGMT))
    d.settings.notes += (
        f"\nPlaced with {VR_RACK_KW:.0f} kW liquid-cooled rack positions: Vera Rubin "
        "NVL72 is reported at 190-230 kW per rack (unverified, physical.md §2); the "
        "default facility (142 kW, GB300 NVL72) could not cool these racks."
    )
    return d


VR_RACK_KW = 230.0
"""Liquid-cooled kW per rack the Vera Rubin sample assumes (reported, [S])."""

PLACE_OPTIONS: dict[str, PlaceOptions] = {
    "vera-rubin-nvl72-pod.json": PlaceOptions(facility=Facility(liquid_kw=VR_RACK_KW)),
}
"""Placement options of the samples that do not use the defaults."""


def placed(name: str, design: Design, catalog: Catalog) -> Design:
    """The sample placed into racks (its options from :data:`PLACE_OPTIONS`)."""
    return place(design, catalog, PLACE_OPTIONS.get(name))


SAMPLES: dict[str, Callable[[Catalog], Design]] = {
    "minimum-viable-enterprise.json": minimum_viable_enterprise,
    "development.json": development,
    "dgx-h100-superpod-4su.json": dgx_h100_superpod_4su,
    "dgx-b200-superpod-16su.json": dgx_b200_superpod_16su,
    "gb200-nvl72-su.json": gb200_nvl72_su,
    "inference-ethernet.json": inference_ethernet,
    "vera-rubin-nvl72-pod.json": vera_rubin_nvl72_pod,
}
"""File name -> function that builds the sample."""


def main(argv: list[str] | None = None) -> int:
    """Write every sample (or the ones named) next to this script."""
    names = argv if argv else list(SAMPLES)
    catalog = default_catalog()
    for name in names:
        design = placed(name, SAMPLES[name](catalog), catalog)
        design = pinned_design(design, catalog)  # the ports, as opening it gives
        save_design(design, HERE / name)
        print(f"{name}: {len(design.devices)} devices, {len(design.links)} links")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
