"""Slurm ``topology.conf`` for the topology/tree plugin.

Switches are those of the compute fabric. A leaf lists its hosts with
``Nodes=``; an upper-tier switch lists the switches below it with ``Switches=``.
Hosts are :mod:`designer.catalog.hosts`'s: a server, or each compute tray of
an NVL72 rack under the leaves its own ports are cabled to (the cabling plan's
port layout, :mod:`designer.io.export.cabling`).
The tree plugin needs a strict tree with every node under exactly one leaf, so a
rail-optimized scalable unit (every node wired to one leaf per rail) becomes one
logical leaf listing the unit's nodes, and upper switches that serve the same
units merge into one logical switch; the written file explains this in its header.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from designer.catalog.hosts import DesignHosts, device_hostnames
from designer.catalog.schema import Category
from designer.core.formatting import plural
from designer.core.hostnames import compress_hostlist as compress_hostlist
from designer.core.model import Design, Device, Fabric
from designer.io.export._common import Catalog, Target, open_text, resolve_catalog
from designer.io.export.cabling import CABLING_COLUMNS, cabling_rows


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


@dataclass(frozen=True, slots=True)
class TreeSwitch:
    """One switch of the tree: a physical switch or a logical one.

    ``members`` are the physical switches it stands for (more than one for a
    rail group or a merged upper switch); ``below`` its hosts (a leaf) or the
    names of the tree switches under it.
    """

    name: str
    members: tuple[str, ...]
    below: tuple[str, ...]
    is_leaf: bool


@dataclass(frozen=True, slots=True)
class Tree:
    """The compute fabric as the tree plugin sees it (:func:`slurm_tree`)."""

    switches: tuple[TreeSwitch, ...]
    hosts_on_fabric: int
    physical_switches: int
    physical_leaves: int
    rail_groups: int
    roots: tuple[str, ...]
    unwired: tuple[str, ...]
    """Hosts on no leaf (not on the compute fabric)."""
    idle: tuple[str, ...]
    """Switches with no host below them (not in the tree)."""


def _fabric_edges(
    design: Design, cat: Catalog, hosts: DesignHosts
) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(leaf switches by hostname, switch-to-switch edges) of the compute fabric.

    A server's leaves are the switches its compute-fabric links reach; a
    tray's are those its own ports are cabled to in the cabling plan (laid out
    from the links of the racks alone: a rack's port layout depends on its own
    links only).
    """
    category = {
        d.id: (e.category if (e := cat.get(d.catalog_id)) is not None else None)
        for d in design.devices
    }
    leaves: dict[str, set[str]] = defaultdict(set)
    edges: dict[str, set[str]] = defaultdict(set)
    t = design.links
    racks = {d for d in hosts.device_names if hosts.has_trays(d)}
    compute, switch = Category.COMPUTE, Category.SWITCH
    for a, b, fabric in zip(t.a, t.b, t.fabric, strict=True):
        if fabric != Fabric.COMPUTE:
            continue
        ca, cb = category.get(a), category.get(b)
        if ca is switch:
            if cb is switch and a != b:
                edges[a].add(b)
                edges[b].add(a)
            elif cb is compute and b not in racks:
                leaves[hosts.of_device(b)[0].name].add(a)
        elif ca is compute and cb is switch and a not in racks:
            leaves[hosts.of_device(a)[0].name].add(b)
    if racks:
        own = design.model_copy(update={"links": t.take(t.rows_touching(racks))})
        col = {name: k for k, name in enumerate(CABLING_COLUMNS)}
        fa, ta = col["from_device"], col["to_device"]
        fh, th, fab = col["from_host"], col["to_host"], col["fabric"]
        for row in cabling_rows(own, cat):
            if row[fab] != Fabric.COMPUTE.value:
                continue
            ends = ((row[fh], row[fa], row[ta]), (row[th], row[ta], row[fa]))
            for host, dev, other in ends:
                if host and dev in racks and category.get(str(other)) is switch:
                    leaves[str(host)].add(str(other))
    return dict(leaves), dict(edges)


def host_leaves(design: Design, catalog: Catalog | None = None) -> dict[str, set[str]]:
    """Leaf switches (device ids) of every host on the compute fabric, by hostname.

    A server's leaves are the switches its compute-fabric links reach; a
    tray's are those its own ports are cabled to in the cabling plan.
    """
    cat = resolve_catalog(catalog)
    return _fabric_edges(design, cat, DesignHosts(design, cat))[0]


def slurm_tree(design: Design, catalog: Catalog | None = None) -> Tree:
    """The tree plugin's view of the compute fabric: every host on the fabric
    under exactly one leaf (rail groups merged into logical leaves), every
    upper switch with one parent."""
    cat = resolve_catalog(catalog)
    devices = design.device_map()
    hosts = DesignHosts(design, cat)
    node_leaves, switch_edges = _fabric_edges(design, cat, hosts)

    leaves = {sw for links in node_leaves.values() for sw in links}
    switches = leaves | set(switch_edges)
    level = _levels(switches, leaves, switch_edges, devices)
    names = {s: _sanitize(s) or "switch" for s in switches}
    taken = set(names.values()) | {h.name for h in hosts}

    # leaf level: leaves sharing a host are one rail group (one logical leaf)
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
        nodes_of[uf.find(next(iter(node_leaves[node])))].append(node)

    # a logical switch: name, physical members, and its hosts or child switches
    entries: list[TreeSwitch] = []
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
        entries.append(
            TreeSwitch(name, tuple(member_names), tuple(nodes_of[root]), True)
        )

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
            entries.append(TreeSwitch(name, tuple(member_names), tuple(below), False))

    return Tree(
        switches=tuple(entries),
        hosts_on_fabric=len(node_leaves),
        physical_switches=len(switches),
        physical_leaves=len(leaves),
        rail_groups=rail_groups,
        roots=tuple(e.name for e in entries if e.name not in parented),
        unwired=tuple(sorted(h.name for h in hosts if h.name not in node_leaves)),
        idle=tuple(idle),
    )


def tree_notes(tree: Tree) -> list[str]:
    """The comment lines that explain a tree (no ``#`` prefix)."""
    lines = [
        f"{_count(tree.hosts_on_fabric, 'host')} on the compute fabric; "
        f"{_count(tree.physical_switches, 'switch')} "
        f"({_count(tree.physical_leaves, 'leaf')}) written as "
        f"{_count(len(tree.switches), 'tree switch')}.",
    ]
    if tree.rail_groups:
        lines += [line.removeprefix("# ") for line in _CONVENTION]
    if len(tree.roots) > 1:
        lines.append(
            f"{len(tree.roots)} separate fabrics (no switch above them all): "
            "a job cannot span them."
        )
    if tree.unwired:
        lines.append(
            "Not on the compute fabric (no leaf): " + compress_hostlist(tree.unwired)
        )
    if tree.idle:
        lines.append(
            "Not in the tree (no compute node below them): "
            + compress_hostlist(tree.idle)
        )
    return lines


def member_note(switch: TreeSwitch) -> str | None:
    """What a logical switch stands for (None: one physical switch)."""
    if len(switch.members) < 2:
        return None
    what = "rail group of" if switch.is_leaf else "logical switch for"
    return (
        f"{switch.name}: {what} {len(switch.members)} switches "
        f"{compress_hostlist(switch.members)}"
    )


def tree_conf(tree: Tree, name: str) -> str:
    """``topology.conf`` text of a tree (:func:`slurm_tree`) for design ``name``."""
    lines = [
        f"# topology.conf for the Slurm topology/tree plugin: {name}",
        "# Generated by GPU Cluster Designer from the compute fabric.",
        *(f"# {line}" for line in tree_notes(tree)),
    ]
    for switch in tree.switches:
        note = member_note(switch)
        if note:
            lines.append(f"# {note}")
        key = "Nodes" if switch.is_leaf else "Switches"
        below = compress_hostlist(switch.below)
        lines.append(f"SwitchName={switch.name} {key}={below}")
    return "\n".join(lines) + "\n"


def slurm_topology(design: Design, catalog: Catalog | None = None) -> str:
    """The ``topology.conf`` text for the compute fabric of ``design``.

    Every host on the fabric is listed exactly once under a leaf; every
    ``Switches=`` entry names a switch defined in the file.
    """
    return tree_conf(slurm_tree(design, catalog), design.settings.name)


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
            level[s] = max(1, tier.rank - 1)
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
