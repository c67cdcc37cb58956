"""NVIDIA DGX SuperPOD presets, built by the same first-principles fat tree.

No switch count is looked up: the presets only fix what the reference
architectures fix (system, SU size, QM9700 NDR compute fabric, rail
optimization, non-blocking, the UFM ports of RA-H100 Table 4) and the fat-tree
rules in :mod:`designer.generate.plan` produce the leaves, spines and cores.
The golden tests compare the result with RA-H100 Table 4 and RA-B200 Table 3.
"""

from __future__ import annotations

from fractions import Fraction

from designer.catalog import Category
from designer.core.model import Design
from designer.generate.fabric import Extra
from designer.generate.fat_tree import fabric_design
from designer.generate.layout import SIDE_WIDTH, arrange_side
from designer.generate.management import add_head_nodes, add_management
from designer.generate.parts import (
    CatalogLike,
    common_speed,
    entry,
    port_group,
    positive_int,
    resolve,
)
from designer.generate.plan import GeneratorError
from designer.generate.storage import APPLIANCE, add_storage

SUPERPOD_SYSTEMS: tuple[str, ...] = ("dgx-h100", "dgx-h200", "dgx-b200", "gb200-nvl72")
"""Systems :func:`superpod` knows."""

COMPUTE_SWITCH = "qm9700"
"""Quantum-2 NDR 400G, the compute fabric switch of every SuperPOD RA here."""

UFM_ID = "ufm-appliance"
UFM_PORTS = 4
"""RA-H100 Table 4: Compute+UFM cables = nodes x 8 + 4 UFM ports, 1 to 4 SU."""

MAX_SUS = 128
"""Largest preset (three tiers of QM9700 would hold 256 SU of 32 DGX)."""

_SOURCES = {
    "dgx-h100": "NVIDIA DGX SuperPOD RA DGX H100 (RA-11333-001) Tables 3 and 4",
    "dgx-h200": "NVIDIA DGX SuperPOD RA DGX B200 (RA-11334-001) Table 3; "
    "DGX H200 has the same network as DGX B200/H100",
    "dgx-b200": "NVIDIA DGX SuperPOD RA DGX B200 (RA-11334-001) Table 3",
    "gb200-nvl72": "NVIDIA DGX SuperPOD RA DGX GB200 (RA-11338-001): SU = 8 racks",
}


def superpod(system: str, sus: int, *, catalog: CatalogLike | None = None) -> Design:
    """An NVIDIA DGX SuperPOD compute fabric of ``sus`` scalable units.

    * ``dgx-h100`` with 1-4 SU follows RA-H100 Table 4: one DGX per design is
      removed for UFM connectivity (31/63/95/127 nodes) and 4 UFM appliance
      ports join rail leaves 0-3 of SU 1 at 200G; spines 4/8/16/16.
    * ``dgx-h100`` past 4 SU, ``dgx-h200`` and ``dgx-b200`` follow Table 3:
      32 full DGX per SU, two tiers up to 8 SU and a core tier from 16 SU.
    * ``gb200-nvl72``: SU = 8 racks = 576 GPUs, one NDR port per GPU. The RA's
      GB200 switch table is NOT verified (hardware.md §1.5), so nothing here
      claims to match it: the fabric is derived from first principles. A rail
      is one compute-tray position (its 4 NIC ports), so a rack has 18 rails;
      the rail-r leaf takes tray r of the SU's 8 racks, 32 down / 32 up, so 18
      leaves per SU; spines and cores follow the same
      divisor rule as every other fat tree here (1 SU: 18 leaves, 16 spines).
    """
    if system not in SUPERPOD_SYSTEMS:
        raise GeneratorError(
            f"unknown SuperPOD system {system!r}; choose one of "
            f"{', '.join(SUPERPOD_SYSTEMS)}"
        )
    n_su = positive_int(sus, "sus", MAX_SUS)
    cat = resolve(catalog)
    compute = entry(cat, system, Category.COMPUTE, "SuperPOD system")
    switch = entry(cat, COMPUTE_SWITCH, Category.SWITCH, "compute fabric switch")
    rack_scale = system == "gb200-nvl72"
    su_size = 8 if rack_scale else 32
    su_nodes = (su_size,) * n_su
    extras: tuple[Extra, ...] = ()
    notes = [f"Preset after {_SOURCES[system]}."]
    monitoring: tuple[str, ...] = ("dcgm",)
    if system == "dgx-h100" and n_su <= 4:
        su_nodes = (su_size - 1, *su_nodes[1:])
        extras = _ufm(cat, slot=su_size - 1)
        monitoring = ("dcgm", "ufm")
        notes.append(
            "RA-H100 Table 4: 'a DGX system must be removed to accommodate for UFM "
            "connectivity'; the last DGX slot of SU 1 holds 4 UFM appliance ports "
            "on rail leaves 0-3."
        )
    if rack_scale:
        notes.append(
            "GB200 compute-fabric switch counts are derived, not taken from the RA "
            "(its table is not verified): treat them as an estimate."
        )
    nodes = sum(su_nodes)
    gpus = nodes * compute.gpus
    unit = "racks" if rack_scale else "nodes"
    design, _ = fabric_design(
        compute=compute,
        switch=switch,
        su_nodes=su_nodes,
        su_size=su_size,
        rail_optimized=True,
        ratios=(Fraction(1),),
        tiers=None,
        name=f"{compute.model.removesuffix(' rack')} SuperPOD, {n_su} SU "
        f"({nodes:,} {unit}, {gpus:,} GPUs)",
        extras=extras,
        scheduler="slurm",
        monitoring=monitoring,
        notes=tuple(notes),
        side=SIDE_WIDTH,  # storage and management go beside the fabric
    )
    return _with_support(design, cat, rack_scale)


def _with_support(design: Design, cat: CatalogLike, rack_scale: bool) -> Design:
    """Add head nodes, storage and management; skip (with a note) what cannot be."""
    lines, stored = [], ""
    try:
        design = add_head_nodes(design, cat)
    except GeneratorError as exc:
        lines.append(f"No head nodes generated: {exc}.")
    storage_switch, big = ("sn5600", None) if rack_scale else (COMPUTE_SWITCH, "q3400")
    try:
        design, sp = add_storage(design, cat, storage_switch, big)
        stored = (
            f"Storage (sketch): {sp.appliances} x {APPLIANCE} for RA-H100 Table 6 "
            f"'better' (40 GB/s read per SU), {sp.leaves} {storage_switch} storage "
            f"leaves ({sp.leaf_down} down / {sp.leaf_up} up, near 4:3) under "
            f"{sp.spines} {sp.spine_model} storage spines."
        )
    except GeneratorError as exc:
        stored = f"No storage generated: {exc}."
    try:
        design = add_management(design, cat)
        lines.append(
            "Management (sketch, sized from first principles, not an RA table): 5 "
            "head nodes, in-band SN4600C leaf pairs (7:1) under in-band spines, "
            "out-of-band SN2201 for every BMC and switch management port."
        )
    except GeneratorError as exc:
        lines.append(f"No management networks generated: {exc}.")
    design.settings.notes += "\n" + "\n".join([*lines, stored])
    return arrange_side(design)


def _ufm(cat: CatalogLike, slot: int) -> tuple[Extra, ...]:
    ufm = entry(cat, UFM_ID, Category.MANAGEMENT, "fabric manager")
    switch = cat[COMPUTE_SWITCH]
    speed = common_speed(
        port_group(ufm, "compute"), UFM_ID, port_group(switch, "ports"), switch.slug
    )
    return tuple(
        Extra(
            id=f"ufm-{k + 1}",
            catalog_id=UFM_ID,
            label=f"UFM appliance {k + 1}",
            port="compute",
            su=0,
            leaf=k,
            rail=k,
            speed_gbps=speed,
            slot=slot,
            dy=-60.0 * k,
        )
        for k in range(UFM_PORTS)
    )
