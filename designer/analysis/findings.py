"""Findings: what an architect should act on, each with a stable code.

Codes (severity in brackets; never renamed, only added to):

- ``NO_COMPUTE`` [warning] the design has no compute node.
- ``UNKNOWN_CATALOG_ID`` [error] a device names a catalog id the catalog lacks.
- ``UNKNOWN_PORT_GROUP`` [error] a link uses a port group its device lacks.
- ``PORT_OVERRIDE_IGNORED`` [warning] ``Device.ports`` on a fixed catalog entry.
- ``UNCONNECTED_COMPUTE`` [error] a compute node has no compute-fabric link
  (only when the design has two or more compute nodes).
- ``PORT_BUDGET_EXCEEDED`` [error] more links on a port group than it has ports
  (effective counts; breakout speeds take a fraction of a port).
- ``SPEED_MISMATCH`` [error] a link runs at a speed one of its ports cannot.
- ``MEDIA_MISMATCH`` [error] an InfiniBand port cabled to an Ethernet port.
- ``FABRIC_ROLE_MISMATCH`` [warning] a link's fabric differs from its port's role.
- ``OOB_LINK_INVALID`` [error] an out-of-band link that does not join a
  management port to a management switch's access port (or a management
  switch's uplink to another switch); the rules' reason
  (:func:`designer.core.rules.oob_problem`). Such a link manages nothing:
  ``NO_OOB_NETWORK`` and ``NO_OOB_LINK`` count only links to a management switch.
- ``RAIL_MISALIGNED`` [warning] a leaf receives NICs of several rails.
- ``TRAINING_FABRIC_SLOW`` [warning] training/mixed purpose with compute links
  below 200G (not an NDR-class IB or RoCE fabric).
- ``NO_STORAGE`` [warning] training/mixed purpose without any storage.
- ``NFS_ONLY_STORAGE`` [warning] NFS is the only storage of a training cluster
  past 64 GPUs.
- ``STORAGE_BANDWIDTH_LOW`` [warning below "good", info below "better"]
  aggregate storage read against RA-H100 Table 6 per-SU guidance.
- ``NO_OOB_NETWORK`` [warning] no out-of-band (BMC) link at all; items: the
  servers with a BMC port.
- ``NO_SCHEDULER`` / ``NO_MONITORING`` [warning] settings name none.
- ``OVERSUBSCRIBED`` [warning] a training/mixed fabric above 1:1 (a tier's
  down/up ratio above 1, or a bisection ratio below 1).
- ``RADIX_EXCEEDED`` [warning] more endpoint ports than the tiers' radix allows
  non-blocking (k, k^2/2, k^3/4 for one, two, three tiers).
- ``SINGLE_POINT_OF_FAILURE`` [warning] a switch whose loss cuts compute off.
- ``INFERENCE_TIER_SIZE`` [warning] an inference design past 512 GPUs.
- ``COST_OUTSIDE_TIER_RANGE`` [info] capex outside the tier's typical range.
- ``SWITCH_FLOOR`` [info] compute switches against the non-blocking folded
  Clos floor (2t-1)N/k.
- ``BISECTION_BOUNDS`` [info] the bisection is an interval, not exact.

Physical layer (:mod:`designer.analysis.physical_checks`, placed designs only):
``RACK_POWER_EXCEEDED``, ``RACK_COOLING_EXCEEDED``, ``LIQUID_IN_AIR_RACK``,
``RACK_U_OVERFLOW``, ``RACK_U_OVERLAP``, ``CABLE_TOO_LONG``,
``HALL_POWER_EXCEEDED`` [error]; ``DEVICE_UNPLACED``, ``RACK_OUTSIDE_HALL``
[warning].

Fat-tree wiring OpenSM would reveal at bring-up
(:mod:`designer.analysis.tree_checks`): ``SAME_TIER_SWITCH_LINK`` [warning],
``COMPUTE_ABOVE_LEAF`` [error], ``UPLINK_GROUPS_UNEVEN`` [warning].

Slurm hosts (:mod:`designer.analysis.slurm_checks`, designs with NVL72 racks):
``TRAY_WITHOUT_COMPUTE_LINK``, ``NVLINK_DOMAINS_UNEQUAL``,
``BLOCK_SIZE_MISALIGNED`` [warning].

Completeness (:mod:`designer.analysis.completeness`; one finding per code with
a count, the devices in ``items``):

- ``FABRIC_SPLIT`` [error] the wired compute nodes are in several parts of the
  compute fabric that no link joins; names each part (GPUs, nodes, a few ids);
  items: the devices of the smaller parts.
- ``UNWIRED_DEVICE`` [warning] devices of any kind with no link at all (compute
  nodes only when UNCONNECTED_COMPUTE does not already name them).
- ``COMPUTE_PORTS_UNUSED`` [warning] compute nodes with some but not all of
  their compute ports cabled ("dgx-01 uses 1 of 8 compute ports").
- ``LEAF_WITHOUT_UPLINKS`` [warning] in a compute fabric of two or more leaves,
  a leaf joined to no other switch that does not itself reach every node.
- ``CROSS_RAIL_THROUGH_NODES`` [info] two or more leaves and no switch-to-switch
  link, nodes cabled to several leaves (rail-only): cross-rail traffic passes
  through the nodes (PXN over NVLink), and the bisection counts those paths.
- ``NO_OOB_LINK`` [warning] servers (compute, storage, management) with a BMC
  port but no out-of-band link, when the design has an OOB network.
- ``HEAD_NODE_LINKS`` [warning] head nodes (management servers with in-band
  ports) without an in-band link or without an out-of-band link.
- ``NO_HEAD_NODE`` [warning; info for a development cluster] two or more
  compute nodes and no head node (a management server with in-band ports).
- ``NO_INBAND_NETWORK`` [warning; info for a development cluster] two or more
  compute nodes, no in-band link at all and no head node (a head node without
  its in-band link is ``HEAD_NODE_LINKS``).
- ``STORAGE_UNREACHABLE`` [warning] wired storage devices that no compute node
  reaches over a storage or converged fabric (switches joined by data links).
- ``NO_STORAGE_PATH`` [warning] wired compute nodes that reach no storage device
  while others do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np

from designer.analysis.completeness import completeness_of_index, management_presence
from designer.analysis.context import (
    Context,
    finding,
    first_listed,
    is_training,
    item_ids,
)
from designer.analysis.graph import ComputeGraph, articulation_points, components
from designer.analysis.hardware_checks import check_hardware
from designer.analysis.index import (
    KIND_COMPUTE,
)
from designer.analysis.ops_checks import check_storage_and_ops
from designer.analysis.physical_checks import check_physical
from designer.analysis.report import Finding, Severity
from designer.analysis.slurm_checks import check_slurm
from designer.analysis.tree_checks import check_tree
from designer.core.formatting import plural, usd, usd_range, verb
from designer.core.model import Purpose

T = TypeVar("T")

EXACT_SPOF_MAX_LINKS = 8_000


def check_compute(ctx: Context) -> list[Finding]:
    """Unconnected nodes, rails, fabric speed, oversubscription, radix, SPOF."""
    head, slow, tail = compute_of_index(ctx)
    return head + _training_checks(ctx, slow) + tail


def _training_checks(ctx: Context, slow: list[Finding] | None) -> list[Finding]:
    """A slow fabric (found by :func:`compute_of_index`) and oversubscription,
    for a training fabric with compute nodes (``slow`` None: none)."""
    if slow is None or not is_training(ctx):
        return []
    return slow + _oversubscribed(ctx)


def _compute_link_findings(ctx: Context) -> tuple[list[Finding], list[Finding]]:
    """Compute nodes without a link, leaves of mixed rails, a slow fabric:
    what the compute links, their rails and speeds say (the design has a
    compute node)."""
    out: list[Finding] = []
    idx, g = ctx.index, ctx.graph
    comp = np.flatnonzero(idx.kind == KIND_COMPUTE)
    linked = np.zeros(g.n, dtype=np.bool_)
    linked[g.all_u] = True
    linked[g.all_v] = True
    lonely = g.dev[g.endpoint & ~linked]
    if len(comp) >= 2 and len(lonely):
        out.append(
            finding(
                "UNCONNECTED_COMPUTE",
                Severity.ERROR,
                f"{plural(len(lonely), 'compute node')} "
                f"{verb(len(lonely), 'has', 'have')} no compute-fabric link, so "
                f"{verb(len(lonely), 'it', 'they')} cannot take part in multi-node "
                f"jobs{first_listed(len(lonely))}",
                item_ids(ctx, lonely),
            )
        )
    # compute-fabric links between a compute node and a switch, oriented
    gu, gv = g.all_u, g.all_v
    at_ep = (g.endpoint[gu] ^ g.endpoint[gv]) & (g.switch[gu] | g.switch[gv])
    node = np.where(g.endpoint[gu], gu, gv)[at_ep]
    sw = np.where(g.endpoint[gu], gv, gu)[at_ep]
    links = g.all_link[at_ep]
    rail = idx.rail[links]
    railed = rail >= 0
    if railed.any():
        lo = np.full(g.n, 1 << 20, dtype=np.int64)
        hi = np.full(g.n, -1, dtype=np.int64)
        np.minimum.at(lo, sw[railed], rail[railed])
        np.maximum.at(hi, sw[railed], rail[railed])
        leaves = hi >= 0
        mixed = g.dev[leaves & (lo != hi)]
        if int(leaves.sum()) >= 2 and len(mixed):
            out.append(
                finding(
                    "RAIL_MISALIGNED",
                    Severity.WARNING,
                    f"{len(mixed)} leaf switch"
                    + ("es receive" if len(mixed) != 1 else " receives")
                    + " NICs of more than one rail; in a rail-optimized fabric "
                    "rail r of every node of a scalable unit lands on that "
                    "unit's rail-r leaf, so same-rail "
                    f"traffic stays one hop away{first_listed(len(mixed))}",
                    item_ids(ctx, mixed),
                )
            )
    slow_fabric: list[Finding] = []
    if len(links):
        speed = idx.speed[links]
        slow = speed < 200
        if slow.any():
            nodes = np.unique(g.dev[node[slow]])
            slow_fabric.append(
                finding(
                    "TRAINING_FABRIC_SLOW",
                    Severity.WARNING,
                    f"training needs an InfiniBand NDR/XDR or RoCE fabric of 200G "
                    f"or more per NIC; {plural(len(nodes), 'compute node')} "
                    f"{verb(len(nodes), 'connects', 'connect')} at "
                    f"{int(speed[slow].min())}G{first_listed(len(nodes))}",
                    item_ids(ctx, nodes),
                )
            )
    return out, slow_fabric


def compute_of_index(
    ctx: Context,
) -> tuple[list[Finding], list[Finding] | None, list[Finding]]:
    """What :func:`check_compute` finds from the index and its figures alone:
    the findings before the training checks, a slow fabric (a finding only
    for training; None: no compute node, no training checks), and the
    findings after the training checks."""
    idx, g = ctx.index, ctx.graph
    if not (idx.kind == KIND_COMPUTE).any():
        none = finding(
            "NO_COMPUTE",
            Severity.WARNING,
            "the design has no compute node (GPU server or NVL72 rack)",
        )
        return [none], None, []  # and no training checks
    # what the compute links alone say: kept with the topology, for the same
    # rails and speeds (arrays a cable count leaves) and equal device ids
    # (the findings name devices; a model swap makes a new list of the same)
    kept = g.memo.get("compute link findings")
    if (
        kept is not None
        and kept[0] is idx.rail
        and kept[1] is idx.speed
        and (kept[2] is idx.device_ids or kept[2] == idx.device_ids)
    ):
        head, slow_fabric = kept[3]
    else:
        head, slow_fabric = _compute_link_findings(ctx)
        found = (head, slow_fabric)
        g.memo["compute link findings"] = (idx.rail, idx.speed, idx.device_ids, found)
    head, slow_fabric = list(head), list(slow_fabric)
    out: list[Finding] = []
    if ctx.over_radix:
        n_p, t, limit = max(ctx.over_radix)
        out.append(
            finding(
                "RADIX_EXCEEDED",
                Severity.WARNING,
                f"{n_p:,} endpoint ports on one fabric plane exceed the {limit:,} "
                f"that {plural(t, 'tier')} of radix-{ctx.radix} switches serve "
                "non-blocking "
                "(k, k^2/2, k^3/4 for 1, 2, 3 tiers); the plane needs another tier "
                "or is oversubscribed",
            )
        )
    out.extend(_spof(ctx))
    return head, slow_fabric, out


def _oversubscribed(ctx: Context) -> list[Finding]:
    """OVERSUBSCRIBED (a training fabric): tiers' ratios and the bisection's."""
    bad = {t: r for t, r in ctx.tier_ratios.items() if r is not None and r > 1.0 + 1e-9}
    ratio = ctx.bisection.upper / ctx.bisection.full if ctx.bisection.full else 1.0
    if not ctx.graph.switch.any() or ctx.bisection.upper <= 0:
        # no switch, or a fabric in parts: nothing is oversubscribed (the
        # parts and unconnected nodes have findings of their own)
        ratio = 1.0
    if not bad and ratio >= 1.0 - 1e-9:
        return []
    parts = [f"{t} {r:.2f}:1" for t, r in bad.items()]
    if ratio < 1.0 - 1e-9:
        parts.append(f"bisection {ratio:.2f} of full")
    return [
        finding(
            "OVERSUBSCRIBED",
            Severity.WARNING,
            "training fabrics should be non-blocking (1:1); this one is "
            f"oversubscribed: {', '.join(parts)}",
        )
    ]


def _spof(ctx: Context) -> list[Finding]:
    g = ctx.graph
    if "spof" not in g.memo:  # the topology's: the same for any capacities
        g.memo["spof"] = _spof_nodes(g)
    spof, how = g.memo["spof"]
    if not spof:
        return []
    devs = sorted(int(g.dev[x]) for x in spof)
    return [
        finding(
            "SINGLE_POINT_OF_FAILURE",
            Severity.WARNING,
            (
                f"{len(devs)} switches are single points of failure: losing one "
                if len(devs) != 1
                else "1 switch is a single point of failure: losing it "
            )
            + f"cuts compute nodes off the rest of the fabric ({how})"
            + first_listed(len(devs)),
            item_ids(ctx, devs),
        )
    ]


def _spof_nodes(g: ComputeGraph) -> tuple[set[int], str]:
    """Local ids of the switches whose loss cuts compute nodes off, and how
    they were found."""
    ep = g.endpoints
    spof: set[int] = set()
    if len(ep) < 2:
        return spof, ""
    if len(g.u) <= EXACT_SPOF_MAX_LINKS:
        _, lab = components(g.n, g.u, g.v)
        before = len(np.unique(lab[ep]))
        for x in articulation_points(g.n, g.u, g.v):
            if g.endpoint[x]:
                continue
            keep = (g.u != x) & (g.v != x)
            _, lab = components(g.n, g.u[keep], g.v[keep])
            if len(np.unique(lab[ep])) > before:
                spof.add(int(x))
        how = "exact articulation-point search"
    else:
        at_ep = g.endpoint[g.u] ^ g.endpoint[g.v]
        eu = np.where(g.endpoint[g.u], g.u, g.v)[at_ep]
        ev = np.where(g.endpoint[g.u], g.v, g.u)[at_ep]
        lo = np.full(g.n, g.n, dtype=np.int64)
        hi = np.full(g.n, -1, dtype=np.int64)
        np.minimum.at(lo, eu, ev)
        np.maximum.at(hi, eu, ev)
        single = g.endpoint & (lo == hi)
        spof.update(lo[single].tolist())
        how = "single-homed compute nodes (large design: no full articulation search)"
    return spof, how


def check_scale(ctx: Context) -> list[Finding]:
    """Tier size, cost against the tier range, switch floor, bisection bounds."""
    out: list[Finding] = []
    s = ctx.design.settings
    if s.purpose is Purpose.INFERENCE and ctx.gpus > 512:
        out.append(
            finding(
                "INFERENCE_TIER_SIZE",
                Severity.WARNING,
                f"{ctx.gpus:,} GPUs is past the inference tier's typical 8-512; "
                "check whether part of it is really for training",
            )
        )
    lo, hi = ctx.tier.typical_cost_usd
    total = ctx.cost.total
    if ctx.gpus and (total < lo or (hi is not None and total > hi)):
        out.append(
            finding(
                "COST_OUTSIDE_TIER_RANGE",
                Severity.INFO,
                f"hardware capex {usd(total)} is outside the {ctx.tier.name} "
                f"typical {usd_range(lo, hi)}; the typical range is an all-in "
                "rule of thumb (~$100k/GPU incl. facility, power, support), the "
                "build-up is hardware only",
            )
        )
    if ctx.switch_floor:
        n_sw = int((ctx.tiers.rank > 0).sum())
        floor = ctx.switch_floor
        pct = (n_sw - floor) / floor * 100.0
        where = (
            f"{pct:.0f}% above the floor"
            if n_sw >= floor
            else f"{-pct:.0f}% below the floor, so it cannot be non-blocking"
        )
        out.append(
            finding(
                "SWITCH_FLOOR",
                Severity.INFO,
                f"{n_sw:,} compute-fabric switch{'es' if n_sw != 1 else ''}; "
                f"a non-blocking folded Clos of "
                f"radix-{ctx.radix} switches for {ctx.endpoint_ports:,} endpoint "
                f"ports needs at least (2t-1)N/k = {floor:,} ({ctx.floor_tiers} "
                f"tier{'s' if ctx.floor_tiers != 1 else ''}): {where}",
            )
        )
    b = ctx.bisection
    if not b.exact:
        out.append(
            finding(
                "BISECTION_BOUNDS",
                Severity.INFO,
                f"bisection is between {b.lower:,.0f} and {b.upper:,.0f} Gb/s "
                "(minimum bisection is NP-hard; no certificate applies to this "
                "fabric)",
            )
        )
    return out


Kept = dict[str, Any]
"""What the checks that read only the index and its figures found, by check
(see :func:`all_findings`)."""


def all_findings(ctx: Context, kept: Kept | None = None) -> list[Finding]:
    """Every check, errors first.

    ``kept``: what the checks that read only the index and its figures (not
    the settings, the cost or the tier) found earlier for the same figures,
    filled here where missing (the checks that read the settings, the cost
    or the bisection run every time). The caller keeps one per index and its
    figures: a settings edit analyses the same index again and reruns only the
    checks that read the settings.
    """
    store: Kept = {} if kept is None else kept

    def once(name: str, check: Callable[[], T]) -> T:
        if name not in store:
            store[name] = check()
        return cast(T, store[name])

    compute_head, compute_slow, compute_tail = once(
        "compute", lambda: compute_of_index(ctx)
    )
    head, tail = once("completeness", lambda: completeness_of_index(ctx))
    found = (
        once("hardware", lambda: check_hardware(ctx))
        + compute_head
        + _training_checks(ctx, compute_slow)
        + compute_tail
        + check_storage_and_ops(ctx)
        + head
        + management_presence(ctx)
        + tail
        + once("tree", lambda: check_tree(ctx))
        + check_scale(ctx)
        + once("physical", lambda: check_physical(ctx.index))
        + check_slurm(ctx)
    )
    order = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
    return sorted(found, key=lambda f: order[f.severity])
