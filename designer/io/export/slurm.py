"""Slurm ``topology.conf`` for the topology/tree plugin.

Switches are those of the compute fabric. A leaf lists its compute nodes with
``Nodes=``; an upper-tier switch lists the switches below it with ``Switches=``.
The tree plugin needs a strict tree with every node under exactly one leaf, so a
rail-optimized scalable unit (every node wired to one leaf per rail) becomes one
logical leaf listing the unit's nodes, and upper switches that serve the same
units merge into one logical switch; the written file explains this in its header.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping

from designer.catalog.hosts import device_hostnames
from designer.catalog.schema import Category
from designer.core.formatting import plural
from designer.core.model import Design, Device, Fabric, Tier
from designer.io.export._common import Catalog, Target, open_text, resolve_catalog

_TIER_ORDER = {Tier.LEAF: 0, Tier.SPINE: 1, Tier.CORE: 2}


def _sanitize(name: str) -> str:
    s = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")
    return re.sub(r"-{2,}", "-", s)


def hostnames(design: Design, catalog: Catalog | None = None) -> dict[str, str]:
    """Hostname per compute device id (a rack of trays: the rack's own name).

    The rule is :func:`designer.catalog.hosts.device_hostnames`; the hosts
    themselves (one per tray) are :func:`designer.catalog.hosts.design_hosts`.
    """
    return device_hostnames(design, resolve_catalog(catalog))


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


class _UnionFind:
    """Disjoint sets of strings (path halving)."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _group_name(members: list[str], taken: set[str], fallback: str) -> str:
    """Name of a logical switch: the hyphen tokens all its members' names share.

    Names of one shape keep every position they agree on (``spine-a-p01-07``
    and ``spine-b-p01-30`` give ``spine-p01``); otherwise the common leading
    tokens. A name already taken falls back to ``fallback``.
    """
    tokens = [m.split("-") for m in members]
    common: list[str] = []
    if len({len(t) for t in tokens}) == 1:
        common = [
            parts[0] for parts in zip(*tokens, strict=True) if len(set(parts)) == 1
        ]
    else:
        for parts in zip(*tokens, strict=False):
            if len(set(parts)) != 1:
                break
            common.append(parts[0])
    base = "-".join(common) if len(members) > 1 else members[0]
    if not base or base in taken:
        base = fallback
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}-{k}"
    taken.add(name)
    return name


_CONVENTION = (
    "# Rail-optimized fabric: each node is wired to one leaf per rail, but the",
    "# tree plugin wants each node under exactly one leaf. Following the usual",
    "# convention, the leaves that serve the same nodes (a rail group, normally one",
    "# scalable unit) are one logical leaf switch listing all of those nodes: any",
    "# two of them are one leaf hop apart on every rail. Above the leaves, switches",
    "# that connect the same groups are merged into one logical switch, so the",
    "# file is a strict tree; the comment above a merged switch names its members.",
)


def slurm_topology(design: Design, catalog: Catalog | None = None) -> str:
    """The ``topology.conf`` text for the compute fabric of ``design``.

    Every compute node on the fabric is listed exactly once under a leaf; every
    ``Switches=`` entry names a switch defined in the file.
    """
    cat = resolve_catalog(catalog)
    devices = design.device_map()
    category = {
        d.id: (e.category if (e := cat.get(d.catalog_id)) is not None else None)
        for d in design.devices
    }
    hosts = hostnames(design, cat)
    t = design.links
    node_leaves: dict[str, set[str]] = defaultdict(set)
    switch_edges: dict[str, set[str]] = defaultdict(set)
    for i in range(len(t.id)):
        if t.fabric[i] != Fabric.COMPUTE:
            continue
        a, b = t.a[i], t.b[i]
        ca, cb = category.get(a), category.get(b)
        if ca is Category.COMPUTE and cb is Category.SWITCH:
            node_leaves[a].add(b)
        elif cb is Category.COMPUTE and ca is Category.SWITCH:
            node_leaves[b].add(a)
        elif ca is Category.SWITCH and cb is Category.SWITCH and a != b:
            switch_edges[a].add(b)
            switch_edges[b].add(a)

    leaves = {sw for links in node_leaves.values() for sw in links}
    switches = leaves | set(switch_edges)
    level = _levels(switches, leaves, switch_edges, devices)
    names = {s: _sanitize(s) or "switch" for s in switches}
    taken = set(names.values()) | set(hosts.values())

    # leaf level: leaves sharing a node are one rail group (one logical leaf)
    uf = _UnionFind()
    for node in sorted(node_leaves):
        first, *rest = sorted(node_leaves[node])
        uf.find(first)
        for other in rest:
            uf.union(first, other)
    leaf_groups: dict[str, list[str]] = defaultdict(list)
    for leaf in leaves:
        leaf_groups[uf.find(leaf)].append(leaf)
    nodes_of: dict[str, list[str]] = defaultdict(list)
    for node in node_leaves:
        nodes_of[uf.find(next(iter(node_leaves[node])))].append(hosts[node])

    # a logical switch: name, physical members, and its nodes or child switches
    entries: list[tuple[str, list[str], list[str], bool]] = []
    unit_of: dict[str, str] = {}
    rail_groups = 0
    for root, members in sorted(
        leaf_groups.items(), key=lambda kv: min(_natural_key(names[m]) for m in kv[1])
    ):
        members.sort(key=lambda m: _natural_key(names[m]))
        member_names = [names[m] for m in members]
        if len(members) == 1:
            name = member_names[0]
        else:
            rail_groups += 1
            name = _group_name(member_names, taken, f"rail-group-{rail_groups:02d}")
        for m in members:
            unit_of[m] = name
        entries.append((name, member_names, nodes_of[root], True))

    # upper levels: merge switches whose child units overlap, so each unit has
    # exactly one parent (a tree); a child already placed keeps its parent
    parented: set[str] = set()
    idle: list[str] = []
    for lvl in sorted({level[s] for s in switches if level[s] > 0}):
        kids: dict[str, set[str]] = {}
        for s in (x for x in switches if level[x] == lvl):
            units = {
                unit_of[c]
                for c in switch_edges.get(s, ())
                if level[c] < lvl and c in unit_of
            }
            units -= parented
            if units:
                kids[s] = units
            else:
                idle.append(names[s])
        uf = _UnionFind()
        first_owner: dict[str, str] = {}
        for s in sorted(kids):
            uf.find(s)
            for unit in kids[s]:
                owner = first_owner.setdefault(unit, s)
                uf.union(owner, s)
        groups: dict[str, list[str]] = defaultdict(list)
        for s in kids:
            groups[uf.find(s)].append(s)
        tier = _TIER_NAME.get(lvl, f"level{lvl}")
        ordered = sorted(
            groups.values(), key=lambda ms: min(_natural_key(names[m]) for m in ms)
        )
        for k, members in enumerate(ordered, start=1):
            members.sort(key=lambda m: _natural_key(names[m]))
            member_names = [names[m] for m in members]
            if len(members) == 1:
                name = member_names[0]
            else:
                name = _group_name(member_names, taken, f"{tier}-group-{k:02d}")
            below = sorted({u for m in members for u in kids[m]})
            parented.update(below)
            for m in members:
                unit_of[m] = name
            entries.append((name, member_names, below, False))

    roots = [e[0] for e in entries if e[0] not in parented]
    unwired = sorted(hosts[d] for d in hosts if d not in node_leaves)
    lines = [
        f"# topology.conf for the Slurm topology/tree plugin: {design.settings.name}",
        "# Generated by GPU Cluster Designer from the compute fabric.",
        f"# {_count(len(node_leaves), 'compute node')} on the fabric; "
        f"{_count(len(switches), 'switch')} ({_count(len(leaves), 'leaf')}) "
        f"written as {_count(len(entries), 'tree switch')}.",
    ]
    if rail_groups:
        lines += _CONVENTION
    if len(roots) > 1:
        lines.append(
            f"# {len(roots)} separate fabrics (no switch above them all): "
            "a job cannot span them."
        )
    if unwired:
        lines.append(
            "# Not on the compute fabric (no leaf): " + compress_hostlist(unwired)
        )
    if idle:
        lines.append(
            "# Not in the tree (no compute node below them): " + compress_hostlist(idle)
        )
    for name, members, below, is_leaf in entries:
        if len(members) > 1:
            what = "rail group of" if is_leaf else "logical switch for"
            lines.append(
                f"# {name}: {what} {len(members)} switches {compress_hostlist(members)}"
            )
        key = "Nodes" if is_leaf else "Switches"
        lines.append(f"SwitchName={name} {key}={compress_hostlist(below)}")
    return "\n".join(lines) + "\n"


_TIER_NAME = {1: "spine", 2: "core"}


def _count(n: int, noun: str) -> str:
    return plural(n, noun)


def _levels(
    switches: set[str],
    leaves: set[str],
    edges: Mapping[str, Iterable[str]],
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
            for c in edges.get(s, ()):
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
