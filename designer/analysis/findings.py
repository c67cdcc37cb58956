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
  (:func:`designer.core.checks.oob_problem`). Such a link manages nothing:
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

from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar, cast

import networkx as nx
import numpy as np

from designer.analysis.completeness import completeness_of_index, management_presence
from designer.analysis.context import MAX_ITEMS, Context
from designer.analysis.graph import ComputeGraph, components
from designer.analysis.index import (
    KIND_COMPUTE,
    KIND_STORAGE,
    KIND_UNKNOWN,
    DesignIndex,
    IntArray,
)
from designer.analysis.physical_checks import check_physical
from designer.analysis.reasons import budget_reason, managed, oob_links, pair_reason
from designer.analysis.report import Finding, Severity
from designer.analysis.slurm_checks import check_slurm
from designer.analysis.tree_checks import check_tree
from designer.catalog.ports import device_ports_problems
from designer.core.formatting import plural, usd, usd_range, verb
from designer.core.model import Purpose

T = TypeVar("T")

EXACT_SPOF_MAX_LINKS = 8_000
TABLE6_READ = {"good": 15.0, "better": 40.0, "best": 125.0}  # GB/s per SU
TABLE6_NODE_READ = {"good": 4.0, "better": 8.0}
SU_GPUS = 256


def _ids(ctx: Context, devs: IntArray | list[int]) -> list[str]:
    arr = np.asarray(devs, dtype=np.int64)[:MAX_ITEMS]
    return [ctx.index.device_ids[i] for i in arr.tolist()]


def _more(n: int) -> str:
    return f" (first {MAX_ITEMS} listed)" if n > MAX_ITEMS else ""


def _f(code: str, sev: Severity, msg: str, items: list[str] | None = None) -> Finding:
    return Finding(code=code, severity=sev, message=msg, items=items or [])


def _training(ctx: Context) -> bool:
    return ctx.design.settings.purpose in (Purpose.TRAINING, Purpose.MIXED)


def check_hardware(ctx: Context) -> list[Finding]:
    """Catalog ids, port groups, port budgets, speeds, media, roles."""
    out: list[Finding] = []
    idx, ends = ctx.index, ctx.ends
    unknown = np.flatnonzero(idx.kind == KIND_UNKNOWN)
    if len(unknown):
        cids = sorted({idx.catalog_ids[idx.dev_catalog[i]] for i in unknown.tolist()})
        out.append(
            _f(
                "UNKNOWN_CATALOG_ID",
                Severity.ERROR,
                f"{plural(len(unknown), 'device')} {verb(len(unknown), 'uses', 'use')} "
                f"catalog ids the catalog does not have ({', '.join(cids[:10])}); "
                f"{verb(len(unknown), 'it is', 'they are')} left out of every "
                f"number{_more(len(unknown))}",
                _ids(ctx, unknown),
            )
        )
    bad_end = (
        ~ends.known & (idx.kind[ends.dev] != KIND_UNKNOWN)
        if not ends.all_known
        else np.zeros(0, dtype=np.bool_)
    )
    if bad_end.any():
        sel = np.flatnonzero(bad_end)
        names = sorted(
            {
                f"{idx.catalog_ids[idx.dev_catalog[ends.dev[j]]]}:{idx.port_names[ends.port[j]]}"
                for j in sel[:200].tolist()
            }
        )
        out.append(
            _f(
                "UNKNOWN_PORT_GROUP",
                Severity.ERROR,
                f"{plural(len(sel), 'link end')} {verb(len(sel), 'uses', 'use')} "
                "port groups their device does not "
                f"have: {', '.join(names[:8])}",
                [idx.link_ids[i] for i in np.unique(ends.links_of(sel))[:MAX_ITEMS]],
            )
        )
    for i in np.flatnonzero(idx.has_port_override).tolist():
        entry = idx.entries[idx.dev_catalog[i]]
        if entry is None:
            continue
        for problem in device_ports_problems(entry, idx.device_ports[i]):
            out.append(
                _f(
                    "PORT_OVERRIDE_IGNORED",
                    Severity.WARNING,
                    f"{idx.device_ids[i]}: {problem}",
                    [idx.device_ids[i]],
                )
            )
    keys, used, avail = ctx.budget
    over = np.flatnonzero(used > avail + 1e-9)
    over = over[idx.kind[keys[over] // max(len(idx.port_names), 1)] != KIND_UNKNOWN]
    if len(over):
        n_ports = max(len(idx.port_names), 1)
        dev = keys[over] // n_ports
        worst = over[np.argsort(avail[over] - used[over], kind="stable")[:3]]
        said = [
            budget_reason(idx, *divmod(int(keys[k]), n_ports), int(avail[k]))
            or f"{idx.device_ids[int(keys[k]) // n_ports]} port group "
            f"'{idx.port_names[int(keys[k]) % n_ports]}' uses {used[k]:g} of "
            f"{avail[k]:g}"
            for k in worst.tolist()
        ]
        out.append(
            _f(
                "PORT_BUDGET_EXCEEDED",
                Severity.ERROR,
                f"{plural(len(over), 'port group')} "
                f"{verb(len(over), 'carries', 'carry')} more links than "
                f"{verb(len(over), 'it has', 'they have')} "
                f"ports; worst: {'; '.join(said)}"
                f"{_more(len(over))}",
                _ids(ctx, dev),
            )
        )
    bad_oob, _, oob_reason = oob_links(idx)
    if len(bad_oob):
        n = len(bad_oob)
        out.append(
            _f(
                "OOB_LINK_INVALID",
                Severity.ERROR,
                f"{plural(n, 'out-of-band link')} {verb(n, 'makes', 'make')} no "
                f"physical sense and {verb(n, 'manages', 'manage')} nothing; "
                f"e.g. {oob_reason}{_more(n)}",
                [idx.link_ids[i] for i in bad_oob[:MAX_ITEMS].tolist()],
            )
        )
    if ends.all_fine:
        return out
    known_both = (
        ends.known
        & ctx.ends.known[
            np.r_[np.arange(idx.n_links, 2 * idx.n_links), np.arange(idx.n_links)]
        ]
    )
    slow = np.flatnonzero(ends.known & ~ends.supported)
    if len(slow):
        links = np.unique(ends.links_of(slow))
        out.append(
            _f(
                "SPEED_MISMATCH",
                Severity.ERROR,
                f"{plural(len(links), 'link')} {verb(len(links), 'runs', 'run')} "
                "at a speed one of their ports cannot; "
                f"e.g. {_reason(idx, int(links[0]), 'speed')}",
                [idx.link_ids[i] for i in links[:MAX_ITEMS]],
            )
        )
    media = np.flatnonzero(known_both & ~ends.media_ok)
    if len(media):
        links = np.unique(ends.links_of(media))
        out.append(
            _f(
                "MEDIA_MISMATCH",
                Severity.ERROR,
                f"{plural(len(links), 'link')} {verb(len(links), 'joins', 'join')} "
                "an InfiniBand port to an Ethernet port; "
                f"{verb(len(links), 'it', 'they')} cannot carry traffic (use a "
                "VPI adapter or a "
                f"matching switch); e.g. {_reason(idx, int(links[0]), 'media')}",
                [idx.link_ids[i] for i in links[:MAX_ITEMS]],
            )
        )
    role = np.flatnonzero(ends.known & ~ends.role_ok)
    if len(role):
        links = np.unique(ends.links_of(role))
        out.append(
            _f(
                "FABRIC_ROLE_MISMATCH",
                Severity.WARNING,
                f"{plural(len(links), 'link')} {verb(len(links), 'is', 'are')} on "
                "a different fabric than their port "
                "group is meant for (e.g. a storage port on the compute fabric); "
                f"e.g. {_reason(idx, int(links[0]), 'role')}",
                [idx.link_ids[i] for i in links[:MAX_ITEMS]],
            )
        )
    return out


def _reason(idx: DesignIndex, link: int, what: str) -> str:
    """The rules' reason for one link, prefixed by its id."""
    text = pair_reason(idx, link, what)
    return f"{idx.link_ids[link]}: {text}" if text else idx.link_ids[link]


def check_compute(ctx: Context) -> list[Finding]:
    """Unconnected nodes, rails, fabric speed, oversubscription, radix, SPOF."""
    head, slow, tail = compute_of_index(ctx)
    return head + _training_checks(ctx, slow) + tail


def _training_checks(ctx: Context, slow: list[Finding] | None) -> list[Finding]:
    """A slow fabric (found by :func:`compute_of_index`) and oversubscription,
    for a training fabric with compute nodes (``slow`` None: none)."""
    if slow is None or not _training(ctx):
        return []
    return slow + _oversubscribed(ctx)


def compute_of_index(
    ctx: Context,
) -> tuple[list[Finding], list[Finding] | None, list[Finding]]:
    """What :func:`check_compute` finds from the index and its figures alone:
    the findings before the training checks, a slow fabric (a finding only
    for training; None: no compute node, no training checks), and the
    findings after the training checks."""
    out: list[Finding] = []
    idx, g = ctx.index, ctx.graph
    comp = np.flatnonzero(idx.kind == KIND_COMPUTE)
    if len(comp) == 0:
        none = _f(
            "NO_COMPUTE",
            Severity.WARNING,
            "the design has no compute node (GPU server or NVL72 rack)",
        )
        return [none], None, []  # and no training checks
    linked = np.zeros(g.n, dtype=np.bool_)
    linked[g.all_u] = True
    linked[g.all_v] = True
    lonely = g.dev[g.endpoint & ~linked]
    if len(comp) >= 2 and len(lonely):
        out.append(
            _f(
                "UNCONNECTED_COMPUTE",
                Severity.ERROR,
                f"{plural(len(lonely), 'compute node')} "
                f"{verb(len(lonely), 'has', 'have')} no compute-fabric link, so "
                f"{verb(len(lonely), 'it', 'they')} cannot take part in multi-node "
                f"jobs{_more(len(lonely))}",
                _ids(ctx, lonely),
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
                _f(
                    "RAIL_MISALIGNED",
                    Severity.WARNING,
                    f"{len(mixed)} leaf switch"
                    + ("es receive" if len(mixed) != 1 else " receives")
                    + " NICs of more than one rail; in a rail-optimized fabric "
                    "rail r of every node of a scalable unit lands on that "
                    "unit's rail-r leaf, so same-rail "
                    f"traffic stays one hop away{_more(len(mixed))}",
                    _ids(ctx, mixed),
                )
            )
    slow_fabric: list[Finding] = []
    if len(links):
        speed = idx.speed[links]
        slow = speed < 200
        if slow.any():
            nodes = np.unique(g.dev[node[slow]])
            slow_fabric.append(
                _f(
                    "TRAINING_FABRIC_SLOW",
                    Severity.WARNING,
                    f"training needs an InfiniBand NDR/XDR or RoCE fabric of 200G "
                    f"or more per NIC; {plural(len(nodes), 'compute node')} "
                    f"{verb(len(nodes), 'connects', 'connect')} at "
                    f"{int(speed[slow].min())}G{_more(len(nodes))}",
                    _ids(ctx, nodes),
                )
            )
    head, out = out, []
    if ctx.over_radix:
        n_p, t, limit = max(ctx.over_radix)
        out.append(
            _f(
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
        _f(
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
        _f(
            "SINGLE_POINT_OF_FAILURE",
            Severity.WARNING,
            (
                f"{len(devs)} switches are single points of failure: losing one "
                if len(devs) != 1
                else "1 switch is a single point of failure: losing it "
            )
            + f"cuts compute nodes off the rest of the fabric ({how})"
            + _more(len(devs)),
            _ids(ctx, devs),
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
        graph = nx.Graph()
        graph.add_nodes_from(range(g.n))
        graph.add_edges_from(zip(g.u.tolist(), g.v.tolist(), strict=True))
        _, lab = components(g.n, g.u, g.v)
        before = len(np.unique(lab[ep]))
        for x in nx.articulation_points(graph):
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


def check_storage_and_ops(ctx: Context) -> list[Finding]:
    """Storage kind and bandwidth, OOB network, scheduler, monitoring."""
    out: list[Finding] = []
    idx, s = ctx.index, ctx.design.settings
    storage = np.flatnonzero(idx.kind == KIND_STORAGE)
    kinds: Counter[str] = Counter()
    read = 0.0
    for i in storage.tolist():
        entry = idx.entries[idx.dev_catalog[i]]
        if entry is not None and entry.ext.storage is not None:
            kinds[entry.ext.storage.kind] += 1
            if entry.ext.storage.kind != "nfs":
                read += entry.ext.storage.read_gbytes_s
    if _training(ctx) and ctx.gpus >= 8:
        if not len(storage):
            out.append(
                _f(
                    "NO_STORAGE",
                    Severity.WARNING,
                    "a training cluster needs shared storage (a parallel file "
                    "system such as Lustre, GPFS, WEKA or VAST); none is in the "
                    "design",
                )
            )
        elif set(kinds) == {"nfs"} and ctx.gpus > 64:
            out.append(
                _f(
                    "NFS_ONLY_STORAGE",
                    Severity.WARNING,
                    f"NFS is the only storage of a {ctx.gpus:,}-GPU training "
                    "cluster; NFS is too slow for training I/O past 64 GPUs: add "
                    "a parallel file system",
                    _ids(ctx, storage),
                )
            )
        if len(storage) and set(kinds) != {"nfs"}:
            sus = max(ctx.gpus / SU_GPUS, 1e-9)
            good = max(TABLE6_NODE_READ["good"], TABLE6_READ["good"] * sus)
            better = max(TABLE6_NODE_READ["better"], TABLE6_READ["better"] * sus)
            if read < better:
                sev = Severity.WARNING if read < good else Severity.INFO
                level = "good" if read < good else "better"
                out.append(
                    _f(
                        "STORAGE_BANDWIDTH_LOW",
                        sev,
                        f"parallel storage reads {read:g} GB/s; NVIDIA's "
                        f"guidance for {sus:.2g} SU is {good:g} GB/s (good) / "
                        f"{better:g} GB/s (better) (RA-H100 Table 6: 15/40/125 "
                        f"GB/s per SU); below '{level}'",
                        _ids(ctx, storage),
                    )
                )
    if len(idx.device_ids) > 1 and not managed(idx).any():
        # out-of-band links that reach no management switch do not count
        bmc = _with_bmc(idx)
        out.append(
            _f(
                "NO_OOB_NETWORK",
                Severity.WARNING,
                "no out-of-band management network: without BMC links (IPMI/"
                "Redfish, e.g. SN2201 1G switches) nodes cannot be power-cycled "
                f"or reinstalled remotely ({len(bmc):,} servers with a BMC port "
                f"have none){_more(len(bmc))}",
                _ids(ctx, bmc),
            )
        )
    if not (s.scheduler or "").strip():
        out.append(
            _f(
                "NO_SCHEDULER",
                Severity.WARNING,
                "no scheduler set (Slurm, Kubernetes, Base Command); multi-user "
                "clusters need one",
            )
        )
    if not s.monitoring:
        out.append(
            _f(
                "NO_MONITORING",
                Severity.WARNING,
                "no monitoring set (e.g. DCGM, Prometheus, Grafana); GPU and "
                "fabric health go unwatched",
            )
        )
    return out


def _with_bmc(idx: DesignIndex) -> IntArray:
    """Servers (compute, storage, management) whose entry has an OOB-role port."""
    per_cat = np.array(
        [
            e is not None
            and e.category.value != "switch"
            and any(i.role.value == "oob" for i in e.interfaces)
            for e in idx.entries
        ],
        dtype=np.bool_,
    )
    if not len(per_cat):
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(per_cat[idx.dev_catalog])


def check_scale(ctx: Context) -> list[Finding]:
    """Tier size, cost against the tier range, switch floor, bisection bounds."""
    out: list[Finding] = []
    s = ctx.design.settings
    if s.purpose is Purpose.INFERENCE and ctx.gpus > 512:
        out.append(
            _f(
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
            _f(
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
            _f(
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
            _f(
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
