"""Slurm ``topology.conf`` for the topology/tree plugin.

Switches are those of the compute fabric. A leaf lists its compute nodes with
``Nodes=``; an upper-tier switch lists the switches below it with ``Switches=``.
Every compute node appears exactly once: a node wired to several leaves (rail
optimized) goes under one of them, chosen deterministically (most cables, then
lowest rail, then switch id), and a comment says so. A switch left with nothing
below it is written as a comment, because Slurm rejects a switch without children.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping

from designer.catalog.schema import Category
from designer.core.model import Design, Device, Fabric, Tier
from designer.io.export._common import Catalog, Target, open_text, resolve_catalog

_TIER_ORDER = {Tier.LEAF: 0, Tier.SPINE: 1, Tier.CORE: 2}


def _sanitize(name: str) -> str:
    s = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")
    return re.sub(r"-{2,}", "-", s)


_HOSTNAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")


def hostnames(design: Design, catalog: Catalog | None = None) -> dict[str, str]:
    """Hostname per compute device id (lower case letters, digits and hyphens).

    The labels, when every compute label already is a distinct hostname
    (``gpu-node-07``); otherwise the device ids (``dgx-00001``), cleaned. A
    clash left after cleaning gets ``-2``, ``-3``.
    """
    cat = resolve_catalog(catalog)
    compute = [
        d
        for d in design.devices
        if (e := cat.get(d.catalog_id)) is not None and e.category is Category.COMPUTE
    ]
    labels = [d.label.lower() for d in compute]
    use_labels = all(_HOSTNAME.match(x) for x in labels) and len(set(labels)) == len(
        labels
    )
    names = labels if use_labels else [_sanitize(d.id) or "node" for d in compute]
    out: dict[str, str] = {}
    taken: set[str] = set()
    for d, name in zip(compute, names, strict=True):
        candidate, k = name, 1
        while candidate in taken:
            k += 1
            candidate = f"{name}-{k}"
        taken.add(candidate)
        out[d.id] = candidate
    return out


_TRAILING_NUMBER = re.compile(r"^(.*?)(\d+)$")


def compress_hostlist(names: Iterable[str]) -> str:
    """Slurm host list: ``dgx[001-032,040],login``, numbers kept at their width."""
    parsed: list[tuple[str, str]] = []
    plain: list[str] = []
    padded: set[tuple[str, int]] = set()
    for name in set(names):
        m = _TRAILING_NUMBER.match(name)
        if m is None:
            plain.append(name)
            continue
        prefix, digits = m.group(1), m.group(2)
        parsed.append((prefix, digits))
        if len(digits) > 1 and digits[0] == "0":
            padded.add((prefix, len(digits)))
    # width 0 = unpadded; an unpadded number as wide as a padded group joins it
    groups: dict[tuple[str, int], list[int]] = defaultdict(list)
    for prefix, digits in parsed:
        width = len(digits)
        key = (prefix, width) if (prefix, width) in padded else (prefix, 0)
        groups[key].append(int(digits))
    order: list[tuple[str, int] | str] = sorted(
        [*groups, *plain],
        key=lambda k: (k, 0, 0) if isinstance(k, str) else (k[0], 1, k[1]),
    )
    parts: list[str] = []
    for item in order:
        if isinstance(item, str):
            parts.append(item)
            continue
        prefix, width = item
        nums = sorted(set(groups[item]))
        if len(nums) == 1:
            parts.append(f"{prefix}{nums[0]:0{width}d}")
            continue
        ranges: list[str] = []
        start = prev = nums[0]
        for x in [*nums[1:], None]:
            if x is not None and x == prev + 1:
                prev = x
                continue
            ranges.append(
                f"{start:0{width}d}"
                if start == prev
                else f"{start:0{width}d}-{prev:0{width}d}"
            )
            if x is not None:
                start = prev = x
        parts.append(f"{prefix}[{','.join(ranges)}]")
    return ",".join(parts)


def _natural_key(name: str) -> tuple[str, int, int]:
    m = _TRAILING_NUMBER.match(name)
    if m is None:
        return (name, -1, 0)
    return (m.group(1), len(m.group(2)), int(m.group(2)))


def slurm_topology(design: Design, catalog: Catalog | None = None) -> str:
    """The ``topology.conf`` text for the compute fabric of ``design``."""
    cat = resolve_catalog(catalog)
    devices = design.device_map()
    category = {
        d.id: (e.category if (e := cat.get(d.catalog_id)) is not None else None)
        for d in design.devices
    }
    hosts = hostnames(design, cat)
    t = design.links
    # cables per (node, leaf) and rail of the lowest rail wiring them
    node_leaf: dict[str, dict[str, list[int]]] = defaultdict(dict)
    switch_edges: dict[str, dict[str, int]] = defaultdict(dict)
    for i in range(len(t.id)):
        if t.fabric[i] != Fabric.COMPUTE:
            continue
        a, b = t.a[i], t.b[i]
        ca, cb = category.get(a), category.get(b)
        r = t.rail[i]
        rail: int = r if r is not None else 1 << 30
        if ca is Category.COMPUTE and cb is Category.SWITCH:
            node, sw = a, b
        elif cb is Category.COMPUTE and ca is Category.SWITCH:
            node, sw = b, a
        elif ca is Category.SWITCH and cb is Category.SWITCH:
            switch_edges[a][b] = switch_edges[a].get(b, 0) + t.cables[i]
            switch_edges[b][a] = switch_edges[b].get(a, 0) + t.cables[i]
            continue
        else:
            continue
        rec = node_leaf[node].setdefault(sw, [0, rail])
        rec[0] += t.cables[i]
        rec[1] = min(rec[1], rail)

    leaves = {sw for links in node_leaf.values() for sw in links}
    switches = leaves | set(switch_edges)
    level = _levels(switches, leaves, switch_edges, devices)

    under: dict[str, list[str]] = defaultdict(list)
    multi = 0
    for node in sorted(node_leaf):
        options = node_leaf[node]
        if len(options) > 1:
            multi += 1
        best = min(options, key=lambda s: (-options[s][0], options[s][1], s))
        under[best].append(hosts[node])
    unwired = sorted(hosts[d] for d in hosts if d not in node_leaf)

    names = {s: _sanitize(s) or "switch" for s in switches}
    live: set[str] = {s for s in leaves if under.get(s)}
    children: dict[str, list[str]] = {}
    for lvl in sorted({level[s] for s in switches if level[s] > 0}):
        for s in sorted(x for x in switches if level[x] == lvl):
            kids = sorted(
                c for c in switch_edges.get(s, {}) if level[c] < lvl and c in live
            )
            children[s] = kids
            if kids:
                live.add(s)

    lines = [
        f"# topology.conf for the Slurm topology/tree plugin: {design.settings.name}",
        "# Generated by GPU Cluster Designer from the compute fabric.",
        f"# {len(hosts)} compute nodes, {len(switches)} switches "
        f"({len(leaves)} leaves).",
    ]
    if multi:
        lines.append(
            f"# {multi} nodes are wired to several leaf switches (rail-optimized); "
            "the tree plugin needs each node under exactly one leaf, so each is "
            "listed under the leaf with most of its cables (ties: lowest rail, "
            "then switch name)."
        )
    if unwired:
        lines.append(
            "# Not on the compute fabric (no leaf): " + compress_hostlist(unwired)
        )
    for s in sorted(switches, key=lambda x: (level[x], _natural_key(names[x]))):
        if level[s] == 0:
            if under.get(s):
                lines.append(
                    f"SwitchName={names[s]} Nodes={compress_hostlist(under[s])}"
                )
            else:
                lines.append(
                    f"# SwitchName={names[s]}  (leaf: its nodes are listed under "
                    "another leaf)"
                )
        elif children.get(s):
            below = ",".join(names[c] for c in children[s])
            lines.append(f"SwitchName={names[s]} Switches={below}")
        else:
            lines.append(
                f"# SwitchName={names[s]}  (no listed switch below it: its leaves "
                "carry no node in this tree)"
            )
    return "\n".join(lines) + "\n"


def _levels(
    switches: set[str],
    leaves: set[str],
    edges: dict[str, dict[str, int]],
    devices: Mapping[str, Device],
) -> dict[str, int]:
    """Tier of each switch: declared ``Device.tier`` else hops from the leaves."""
    level: dict[str, int] = {}
    frontier = sorted(leaves)
    for s in frontier:
        level[s] = 0
    depth = 0
    while frontier:
        depth += 1
        nxt: list[str] = []
        for s in frontier:
            for c in edges.get(s, {}):
                if c not in level:
                    level[c] = depth
                    nxt.append(c)
        frontier = nxt
    for s in switches:
        dev = devices.get(s)
        tier = dev.tier if dev is not None else None
        if tier is not None and s not in leaves:
            level[s] = max(1, _TIER_ORDER[tier])
        level.setdefault(s, 1)
    return level


def write_slurm_topology(
    design: Design, target: Target, catalog: Catalog | None = None
) -> str:
    """Write ``topology.conf`` to ``target`` and return its text."""
    text = slurm_topology(design, catalog)
    with open_text(target) as fh:
        fh.write(text)
    return text
