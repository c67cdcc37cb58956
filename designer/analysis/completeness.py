"""Completeness findings: what a hand-drawn design leaves unwired.

Each check is a few numpy passes over the link columns (no per-device Python
loop over links), so the 100K-GPU design stays fast, and each reports one
finding with a count, some names and the devices in ``items`` (a click in the
validator selects them), not one finding per device. Codes are documented in
:mod:`designer.analysis.findings`.

Parts and reachability are connected components (scipy) over link arrays:

- the compute fabric's parts: every device is a vertex, compute-fabric links
  are edges (a node's NVLink joins its NICs, so a rail-only fabric is one part);
- storage reachability: switches joined by data links (compute, storage,
  in-band) form networks; a compute node or storage device reaches the networks
  its data links land on. Traffic does not pass through a server, so a node with
  a storage link and a compute link does not join the two networks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from designer.analysis.context import MAX_ITEMS, Context, derive
from designer.analysis.index import (
    KIND_COMPUTE,
    KIND_MANAGEMENT,
    KIND_STORAGE,
    KIND_SWITCH,
    BoolArray,
    DesignIndex,
    IntArray,
)
from designer.analysis.reasons import managed
from designer.analysis.report import Finding, Severity
from designer.core.formatting import plural, verb
from designer.core.model import FABRIC_CODE, Fabric, Purpose

NAMED = 5
"""Devices named in a message; the rest are counted."""
PARTS_NAMED = 4
"""Fabric parts described in the split-fabric message."""

KIND_WORDS = {
    KIND_COMPUTE: ("compute node", "compute nodes"),
    KIND_SWITCH: ("switch", "switches"),
    KIND_STORAGE: ("storage device", "storage devices"),
    KIND_MANAGEMENT: ("management server", "management servers"),
}


def _plural(n: int, one: str, many: str | None = None) -> str:
    return plural(n, one, many)


def _names(idx: DesignIndex, devs: IntArray, extra: list[str] | None = None) -> str:
    """'a, b, c and 4 more' for a message (``extra``: text per device)."""
    shown = devs[:NAMED].tolist()
    parts = [
        idx.device_ids[d] + (f" {extra[i]}" if extra else "")
        for i, d in enumerate(shown)
    ]
    more = len(devs) - len(shown)
    return ", ".join(parts) + (f" and {more:,} more" if more else "")


def _items(idx: DesignIndex, devs: IntArray) -> list[str]:
    return [idx.device_ids[d] for d in devs[:MAX_ITEMS].tolist()]


def _listed(n: int) -> str:
    return f" (first {MAX_ITEMS} listed)" if n > MAX_ITEMS else ""


def _finding(code: str, sev: Severity, msg: str, items: list[str]) -> Finding:
    return Finding(code=code, severity=sev, message=msg, items=items)


def _components(n: int, u: IntArray, v: IntArray) -> IntArray:
    """Component label of every vertex 0..n-1 for the undirected edges u-v."""
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    m = csr_matrix((np.ones(len(u), dtype=np.int8), (u, v)), shape=(n, n))
    labels: IntArray = connected_components(m, directed=False)[1].astype(np.int64)
    return labels


def _touched(n: int, a: IntArray, b: IntArray) -> BoolArray:
    out = np.zeros(n, dtype=np.bool_)
    out[a] = True
    out[b] = True
    return out


def _has_role(idx: DesignIndex, role: str) -> BoolArray:
    """Per device: its catalog entry has a port group with this role."""
    per_cat = np.array(
        [
            e is not None and any(i.role.value == role for i in e.interfaces)
            for e in idx.entries
        ],
        dtype=np.bool_,
    )
    if not len(per_cat):
        return np.zeros(idx.n_devices, dtype=np.bool_)
    return per_cat[idx.dev_catalog]


@dataclass
class _Cols:
    """Arrays several checks read, computed once."""

    idx: DesignIndex
    n: int
    ca: IntArray  # compute-fabric link ends
    cb: IntArray
    wired: BoolArray  # devices with any link


def check_completeness(ctx: Context) -> list[Finding]:
    """Unwired devices, unused compute ports, OOB per node, head nodes, storage
    reachability, leaves without uplinks, and a compute fabric in parts."""
    head, tail = completeness_of_index(ctx)
    return head + management_presence(ctx) + tail


def completeness_of_index(ctx: Context) -> tuple[list[Finding], list[Finding]]:
    """The findings of :func:`check_completeness` before and after the head
    nodes' (these read the index and its figures alone, not the settings)."""
    idx = ctx.index
    if idx.n_devices < 2:
        return [], []
    # all but the unused ports read only which links join which devices: a
    # cable count or a speed edit finds them as before
    inputs: tuple[object, ...] = (idx.a, idx.b, idx.fabric, idx.kind)
    inputs += (idx.dev_catalog, idx.entries)
    inputs += (idx.device_ids, idx.gpus, ctx.joined)
    before, after, tail = derive(
        ctx, "completeness", inputs, lambda: _of_links(idx, ctx.joined)
    )
    return before + _unused_compute_ports(ctx) + after, tail


def _of_links(
    idx: DesignIndex, joined: bool
) -> tuple[list[Finding], list[Finding], list[Finding]]:
    """The findings of :func:`completeness_of_index` that read the links' ends
    and fabrics and the devices (not the ports in use): those before the
    unused ports', those after, and the storage reach."""
    n = idx.n_devices
    cf = idx.fabric == FABRIC_CODE[Fabric.COMPUTE]
    cols = _Cols(idx, n, idx.a[cf], idx.b[cf], _touched(n, idx.a, idx.b))
    n_comp = int((idx.kind == KIND_COMPUTE).sum())
    before: list[Finding] = []
    if not joined:  # else one part: the levels reached a single block
        before += _fabric_parts(cols)
    before += _unwired(cols, n_comp)
    after = _leaves_without_uplinks(cols)
    after += _through_the_nodes(cols)
    after += _management_links(cols)
    return before, after, _storage_reach(cols)


def management_presence(ctx: Context) -> list[Finding]:
    """The head node findings of :func:`check_completeness` (they read the
    settings' purpose)."""
    idx = ctx.index
    if idx.n_devices < 2:
        return []
    return _management_presence(ctx, idx, int((idx.kind == KIND_COMPUTE).sum()))


HEAD_NODES_SOURCE = (
    "RA-H100 Table 7: 5 BCM management servers; BasePOD: 2 BCM head nodes "
    "and 3 service nodes"
)


def _management_presence(ctx: Context, idx: DesignIndex, n_comp: int) -> list[Finding]:
    """NO_HEAD_NODE and NO_INBAND_NETWORK: a cluster of two or more compute
    nodes with no head node, or with no in-band link at all and no head node
    (a head node without its in-band link is HEAD_NODE_LINKS's)."""
    if n_comp < 2:
        return []
    head = (idx.kind == KIND_MANAGEMENT) & _has_role(idx, "inband")
    has_inband = bool((idx.fabric == FABRIC_CODE[Fabric.INBAND]).any())
    small = ctx.design.settings.purpose is Purpose.DEVELOPMENT
    out: list[Finding] = []
    if not head.any():
        out.append(
            _finding(
                "NO_HEAD_NODE",
                Severity.INFO if small else Severity.WARNING,
                f"no head node for {n_comp:,} compute nodes: nothing provisions "
                "them, runs the scheduler's controller or the cluster manager "
                f"({HEAD_NODES_SOURCE}); add head nodes (catalog: head-node) "
                "on the in-band and out-of-band networks"
                + (
                    "; a small development cluster may run them on a node"
                    if small
                    else ""
                ),
                [],
            )
        )
    if not has_inband and not head.any():
        out.append(
            _finding(
                "NO_INBAND_NETWORK",
                Severity.INFO if small else Severity.WARNING,
                "no in-band management network: no link is on the in-band "
                "fabric, so provisioning, the scheduler, monitoring and user "
                "logins have no path to the nodes apart from the compute and "
                "storage fabrics (RA-H100: SN4600C in-band leaves, 100G bonded "
                "node links; NVL72 racks carry in-band on the storage Ethernet: "
                "give the head nodes in-band links to it)",
                [],
            )
        )
    return out


def _fabric_parts(cols: _Cols) -> list[Finding]:
    """FABRIC_SPLIT: the wired compute nodes fall into several parts."""
    idx, n, a, b = cols.idx, cols.n, cols.ca, cols.cb
    nodes = np.flatnonzero((idx.kind == KIND_COMPUTE) & _touched(n, a, b))
    if len(nodes) < 2:
        return []
    lab = _components(n, a, b)
    parts, inverse = np.unique(lab[nodes], return_inverse=True)
    if len(parts) < 2:
        return []
    gpus = np.bincount(inverse, weights=idx.gpus[nodes], minlength=len(parts))
    count = np.bincount(inverse, minlength=len(parts))
    order = np.lexsort((-count, -gpus))  # largest first (GPUs, then nodes)
    texts = []
    for p in order[:PARTS_NAMED].tolist():
        members = nodes[inverse == p]
        texts.append(
            f"{_plural(int(gpus[p]), 'GPU')} on {_plural(int(count[p]), 'node')} "
            f"({_names(idx, members[:3])})"
        )
    rest = len(parts) - len(texts)
    smaller = np.isin(lab, parts[order[1:]])
    smaller_devs = np.flatnonzero(smaller & _touched(n, a, b))
    return [
        _finding(
            "FABRIC_SPLIT",
            Severity.ERROR,
            f"the compute fabric is in {len(parts)} parts that no compute link "
            "joins, so no job spans them: "
            + "; ".join(texts)
            + (f"; and {_plural(rest, 'smaller part')}" if rest else "")
            + f"; the smaller parts' devices are listed{_listed(len(smaller_devs))}",
            _items(idx, smaller_devs),
        )
    ]


def _unwired(cols: _Cols, n_comp: int) -> list[Finding]:
    """UNWIRED_DEVICE: devices with no link at all ("drawn but never wired")."""
    idx = cols.idx
    lonely = ~cols.wired
    if n_comp >= 2:
        lonely &= idx.kind != KIND_COMPUTE  # UNCONNECTED_COMPUTE names those
    devs = np.flatnonzero(lonely)
    if not len(devs):
        return []
    kinds = np.bincount(idx.kind[devs] + 1, minlength=5)
    words = [
        _plural(int(kinds[k + 1]), *KIND_WORDS[k])
        for k in (KIND_COMPUTE, KIND_SWITCH, KIND_STORAGE, KIND_MANAGEMENT)
        if kinds[k + 1]
    ]
    if kinds[0]:
        words.append(_plural(int(kinds[0]), "unknown device"))
    what = "device is" if len(devs) == 1 else "devices are"
    return [
        _finding(
            "UNWIRED_DEVICE",
            Severity.WARNING,
            f"{len(devs):,} {what} drawn but never wired ({', '.join(words)}): "
            f"{_names(idx, devs)}{_listed(len(devs))}",
            _items(idx, devs),
        )
    ]


def _unused_compute_ports(ctx: Context) -> list[Finding]:
    """COMPUTE_PORTS_UNUSED: compute nodes with some, not all, compute ports cabled."""
    idx = ctx.index
    if "compute" not in idx.port_names:
        return []
    keys, used, avail = ctx.budget
    n_ports = max(len(idx.port_names), 1)
    dev, port = np.divmod(keys, n_ports)
    sel = (port == idx.port_names.index("compute")) & (idx.kind[dev] == KIND_COMPUTE)
    d = dev[sel]
    in_use = np.ceil(used[sel] - 1e-9).astype(np.int64)
    have = avail[sel].astype(np.int64)
    short = (in_use > 0) & (in_use < have)
    if not short.any():
        return []
    d, in_use, have = d[short], in_use[short], have[short]
    order = np.argsort(in_use - have, kind="stable")  # most unused first
    d, in_use, have = d[order], in_use[order], have[order]
    free = int((have - in_use).sum())
    text = [
        f"uses {u} of {h}" for u, h in zip(in_use[:NAMED], have[:NAMED], strict=True)
    ]
    if len(d) == 1:
        head = f"{idx.device_ids[d[0]]} {text[0]} compute ports"
    else:
        head = (
            f"{len(d):,} compute nodes leave compute ports unused "
            f"({_names(idx, d, text)}; {free:,} ports in all)"
        )
    return [
        _finding(
            "COMPUTE_PORTS_UNUSED",
            Severity.WARNING,
            f"{head}: every compute port left uncabled is a GPU NIC without "
            f"fabric bandwidth, so jobs across nodes run slower{_listed(len(d))}",
            _items(idx, d),
        )
    ]


def _leaves_without_uplinks(cols: _Cols) -> list[Finding]:
    """LEAF_WITHOUT_UPLINKS: a leaf joined to no other switch, in a multi-leaf fabric.

    A leaf is a switch with compute-fabric links to compute nodes. One that
    reaches every wired compute node itself (a dual-plane or rail-only fabric
    where each node has a port on each leaf) needs no uplink.
    """
    idx, n, a, b = cols.idx, cols.n, cols.ca, cols.cb
    sw = idx.kind == KIND_SWITCH
    comp = idx.kind == KIND_COMPUTE
    down = (sw[a] & comp[b]) | (sw[b] & comp[a])
    leaf_of = np.where(sw[a], a, b)[down]
    node_of = np.where(sw[a], b, a)[down]
    is_leaf = np.zeros(n, dtype=np.bool_)
    is_leaf[leaf_of] = True
    n_leaves = int(is_leaf.sum())
    ss = sw[a] & sw[b]
    # boolean passes first: sorting only for the (rare) leaves without uplinks
    lone = is_leaf & ~_touched(n, a[ss], b[ss])
    if n_leaves < 2 or not lone.any():
        return []
    wired = int(_touched(n, node_of, node_of).sum())
    mine = lone[leaf_of]
    pairs = np.unique(leaf_of[mine] * n + node_of[mine])
    reach = np.bincount(pairs // n, minlength=n)
    cand = np.flatnonzero(lone)
    bad = cand[reach[cand] < wired]
    if not len(bad):
        return []
    reached = [f"({_plural(int(reach[x]), 'node')})" for x in bad[:NAMED].tolist()]
    few = "leaf switch has" if len(bad) == 1 else "leaf switches have"
    return [
        _finding(
            "LEAF_WITHOUT_UPLINKS",
            Severity.WARNING,
            f"{len(bad):,} {few} no uplink to another switch in a "
            f"{n_leaves:,}-leaf compute fabric ({_names(idx, bad, reached)}): "
            "their nodes reach the rest of the fabric only through other "
            f"links of their own, or not at all{_listed(len(bad))}",
            _items(idx, bad),
        )
    ]


def _through_the_nodes(cols: _Cols) -> list[Finding]:
    """CROSS_RAIL_THROUGH_NODES: two or more leaves, no switch-to-switch link,
    and nodes cabled to several leaves (a rail-only fabric): the fabric is one
    part only through the nodes."""
    idx, n, a, b = cols.idx, cols.n, cols.ca, cols.cb
    sw = idx.kind == KIND_SWITCH
    comp = idx.kind == KIND_COMPUTE
    if (sw[a] & sw[b]).any():
        return []
    down = (sw[a] & comp[b]) | (sw[b] & comp[a])
    leaf_of = np.where(sw[a], a, b)[down]
    node_of = np.where(sw[a], b, a)[down]
    leaves = np.unique(leaf_of)
    if len(leaves) < 2:
        return []
    pairs = np.unique(node_of * n + leaf_of)
    per_node = np.bincount(pairs // n, minlength=n)
    spanning = np.flatnonzero(per_node >= 2)
    if not len(spanning):
        return []
    return [
        _finding(
            "CROSS_RAIL_THROUGH_NODES",
            Severity.INFO,
            f"the compute fabric's {len(leaves):,} leaves have no spine: traffic "
            "between leaves (rails) passes through the nodes, a GPU handing "
            "it over NVLink to the GPU of the other rail, which sends it on "
            "that rail's NIC (PXN); the bisection counts these paths through "
            f"{plural(len(spanning), 'node')} cabled to several leaves",
            _items(idx, leaves),
        )
    ]


def _management_links(cols: _Cols) -> list[Finding]:
    """NO_OOB_LINK per node and HEAD_NODE_LINKS (in-band and OOB of head nodes)."""
    idx, n = cols.idx, cols.n
    inband = idx.fabric == FABRIC_CODE[Fabric.INBAND]
    # managed: an out-of-band link of its own reaches a management switch (a
    # BMC cabled to another BMC or to a fabric switch's mgmt port is not)
    has_oob = managed(idx)
    has_inband = _touched(n, idx.a[inband], idx.b[inband])
    # never-wired devices are UNWIRED_DEVICE's (or UNCONNECTED_COMPUTE's)
    wired = cols.wired
    server = np.isin(idx.kind, (KIND_COMPUTE, KIND_STORAGE, KIND_MANAGEMENT))
    bmc = server & _has_role(idx, "oob") & wired
    head = (idx.kind == KIND_MANAGEMENT) & _has_role(idx, "inband") & wired
    out: list[Finding] = []
    # With no managed device at all, NO_OOB_NETWORK says it for the design.
    if has_oob.any():
        missing = np.flatnonzero(bmc & ~has_oob & ~head)
        if len(missing):
            out.append(
                _finding(
                    "NO_OOB_LINK",
                    Severity.WARNING,
                    f"{len(missing):,} of {int((bmc & ~head).sum()):,} wired servers "
                    f"with a BMC port {verb(len(missing), 'has', 'have')} no "
                    "out-of-band link to a management switch "
                    f"({_names(idx, missing)}): they cannot be power-cycled or "
                    f"reinstalled remotely{_listed(len(missing))}",
                    _items(idx, missing),
                )
            )
    lacking = head & (~has_inband | (~has_oob & bmc))
    devs = np.flatnonzero(lacking)
    if len(devs):
        what = []
        for d in devs[:NAMED].tolist():
            gaps = []
            if not has_inband[d]:
                gaps.append("in-band")
            if bmc[d] and not has_oob[d]:
                gaps.append("out-of-band")
            what.append("(no " + " or ".join(gaps) + " link)")
        out.append(
            _finding(
                "HEAD_NODE_LINKS",
                Severity.WARNING,
                f"{_plural(len(devs), 'head node')} "
                f"{'lacks' if len(devs) == 1 else 'lack'} management links "
                f"({_names(idx, devs, what)}): a head node provisions and "
                "schedules the nodes over the in-band network and reaches "
                f"their BMCs over the out-of-band one{_listed(len(devs))}",
                _items(idx, devs),
            )
        )
    return out


def _storage_reach(cols: _Cols) -> list[Finding]:
    """STORAGE_UNREACHABLE and NO_STORAGE_PATH, over data links (see module doc)."""
    idx, n = cols.idx, cols.n
    storage = idx.kind == KIND_STORAGE
    comp = idx.kind == KIND_COMPUTE
    wired_st = np.flatnonzero(storage & cols.wired)
    if not len(wired_st) or not comp.any():
        return []
    data = idx.fabric != FABRIC_CODE[Fabric.OOB]
    a, b = idx.a[data], idx.b[data]
    sw = idx.kind == KIND_SWITCH
    ss = sw[a] & sw[b]
    lab = _components(n, a[ss], b[ss])
    one = sw[a] ^ sw[b]
    host = np.where(sw[a], b, a)[one]
    net = lab[np.where(sw[a], a, b)[one]]
    # networks each kind of server lands on, and direct server-to-server links
    comp_nets = np.unique(net[comp[host]])
    st_nets = np.unique(net[storage[host]])
    direct = ~sw[a] & ~sw[b]
    da, db = a[direct], b[direct]
    st_hit = np.zeros(n, dtype=np.bool_)
    st_hit[host[storage[host] & np.isin(net, comp_nets)]] = True
    node_hit = np.zeros(n, dtype=np.bool_)
    node_hit[host[comp[host] & np.isin(net, st_nets)]] = True
    for x, y in ((da, db), (db, da)):
        pair = storage[x] & comp[y]
        st_hit[x[pair]] = True
        node_hit[y[pair]] = True
    out: list[Finding] = []
    lost = wired_st[~st_hit[wired_st]]
    if len(lost):
        out.append(
            _finding(
                "STORAGE_UNREACHABLE",
                Severity.WARNING,
                f"{_plural(len(lost), 'storage device')} cannot be reached from "
                "any compute node over a storage or converged fabric "
                f"({_names(idx, lost)}): their data links are missing or lead to "
                f"switches no compute node is wired to{_listed(len(lost))}",
                _items(idx, lost),
            )
        )
    if st_hit.any():
        wired_nodes = comp & cols.wired
        blind = np.flatnonzero(wired_nodes & ~node_hit)
        if len(blind):
            out.append(
                _finding(
                    "NO_STORAGE_PATH",
                    Severity.WARNING,
                    f"{len(blind):,} of {int(wired_nodes.sum()):,} wired compute "
                    "nodes reach no storage device over a storage or converged "
                    f"fabric ({_names(idx, blind)}): they cannot read training "
                    f"data or write checkpoints{_listed(len(blind))}",
                    _items(idx, blind),
                )
            )
    return out
