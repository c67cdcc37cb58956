"""NVLink blocks for Slurm's topology/block plugin, and the trays that are cabled.

Slurm 23.11+ (``topology/block``, and the ``block`` topologies of
``topology.yaml`` in 25.05+) places a job inside one *block* of nodes when it
fits, and a larger job in an aligned group of 2, 4, 8 ... consecutive blocks
(``BlockSizes``: the base block size, then the base times powers of two;
``18,54`` is fatal). For NVL72 racks a block is one NVLink domain: the 18
trays of a rack (:meth:`designer.catalog.hosts.DesignHosts.nvlink_domains`).

:func:`plan_blocks` decides what the block files hold, and the findings read
the same plan:

- blocks are the NVLink domains of more than one host; hosts of smaller
  domains (a DGX next to NVL72 racks) are in no block;
- the base size is the smallest block's host count (Slurm 24.x refuses a block
  smaller than the base);
- *leaf groups*: domains wired to a common compute leaf switch are one hop
  apart on that leaf's rail, so they belong together (a scalable unit); the
  blocks are written leaf group by leaf group, so Slurm's aligned groups of
  consecutive blocks stay inside one;
- the sizes double from the base as far as every leaf group splits into whole
  groups of that many blocks (the largest power of two dividing each group's
  block count): a larger aggregated block would straddle two leaf groups.

:func:`cabled_trays` says which trays of a rack have compute-fabric cables, by
the rule the cabling plan lays ports out with: cables fill a port group's
ports in order (the NVL72 compute group lists tray 1's ports first), a
breakout speed packing its lanes into whole ports.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping
from dataclasses import dataclass

import numpy as np

from designer.analysis.index import KIND_COMPUTE, KIND_SWITCH, DesignIndex
from designer.catalog.hosts import DesignHosts, Host, NvlinkDomain
from designer.catalog.schema import Role
from designer.core.model import FABRIC_CODE, Fabric

__all__ = [
    "BlockPlan",
    "LeafGroup",
    "cabled_trays",
    "compute_leaves",
    "plan_blocks",
]

MAX_BLOCK_LEVELS = 16
"""Slurm keeps block sizes up to the base times 2^15."""


@dataclass(frozen=True, slots=True)
class LeafGroup:
    """NVLink domains that share compute leaf switches (one scalable unit).

    ``leaves`` are the device ids of the leaf switches the group's hosts are
    wired to (empty for a domain on no compute leaf, which is its own group).
    """

    domains: tuple[NvlinkDomain, ...]
    leaves: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BlockPlan:
    """What the block topology holds: see the module docstring.

    ``blocks`` are in the order written (leaf group by leaf group, design
    order inside each); ``sizes`` is ``BlockSizes`` in hosts; ``outside`` the
    hosts in no block; ``levels`` how many times the base doubles (sizes has
    ``levels + 1`` entries).
    """

    blocks: tuple[NvlinkDomain, ...]
    groups: tuple[LeafGroup, ...]
    base: int
    sizes: tuple[int, ...]
    outside: tuple[Host, ...]

    @property
    def levels(self) -> int:
        """Doublings of the base block size (0: blocks are not aggregated)."""
        return len(self.sizes) - 1

    @property
    def unequal(self) -> bool:
        """Whether the blocks differ in host count."""
        return len({len(b.hosts) for b in self.blocks}) > 1

    @property
    def misaligned(self) -> list[LeafGroup]:
        """Leaf groups whose block count is not a multiple of the largest
        aggregation, or that are larger than it: jobs spanning the whole group
        cannot ask for it as one block (a power-of-two number of equal leaf
        groups avoids this)."""
        largest = 1 << self.levels
        return [
            g
            for g in self.groups
            if g.leaves and (len(g.domains) % largest or len(g.domains) > largest)
        ]


def compute_leaves(
    index: DesignIndex, devices: Collection[str] | None = None
) -> dict[str, set[str]]:
    """Compute leaf switches of each compute device (device ids), from the
    compute-fabric links between a compute device and a switch.

    ``devices`` restricts the answer to those device ids (None: all).
    """
    fab = index.fabric == FABRIC_CODE[Fabric.COMPUTE]
    kind = index.kind
    ids = index.device_ids
    wanted = (
        None
        if devices is None
        else np.asarray([i for i, d in enumerate(ids) if d in devices], np.int64)
    )
    out: dict[str, set[str]] = defaultdict(set)
    for node, sw in ((index.a, index.b), (index.b, index.a)):
        sel = fab & (kind[node] == KIND_COMPUTE) & (kind[sw] == KIND_SWITCH)
        if wanted is not None:
            sel &= np.isin(node, wanted)
        picked = np.flatnonzero(sel)
        for n, s in zip(node[picked].tolist(), sw[picked].tolist(), strict=True):
            out[ids[n]].add(ids[s])
    return dict(out)


class _UnionFind:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, x: int) -> int:
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def plan_blocks(hosts: DesignHosts, leaves: Mapping[str, set[str]]) -> BlockPlan | None:
    """The block topology of a design (None: no NVLink domain spans hosts).

    ``leaves`` maps a device id to its compute leaf switches
    (:func:`compute_leaves`).
    """
    domains = hosts.nvlink_domains()
    multi = [d for d in domains if len(d.hosts) > 1]
    if not multi:
        return None
    in_block = {h.name for d in multi for h in d.hosts}
    outside = tuple(h for h in hosts if h.name not in in_block)
    uf = _UnionFind(len(multi))
    owner: dict[str, int] = {}
    for i, d in enumerate(multi):
        for leaf in sorted(leaves.get(d.device, ())):
            j = owner.setdefault(leaf, i)
            uf.union(i, j)
    members: dict[int, list[int]] = defaultdict(list)
    for i in range(len(multi)):
        members[uf.find(i)].append(i)

    def leaf_set(idx: list[int]) -> tuple[str, ...]:
        return tuple(sorted({x for i in idx for x in leaves.get(multi[i].device, ())}))

    groups = tuple(
        LeafGroup(tuple(multi[i] for i in idx), leaf_set(idx))
        for _, idx in sorted(members.items())
    )
    blocks = tuple(d for g in groups for d in g.domains)
    base = min(len(d.hosts) for d in multi)
    wired = [len(g.domains) for g in groups if g.leaves] or [len(groups[0].domains)]
    level = 0
    while (
        level + 1 < MAX_BLOCK_LEVELS
        and (1 << (level + 1)) <= len(blocks)
        and all(n % (1 << (level + 1)) == 0 for n in wired)
    ):
        level += 1
    sizes = tuple(base << k for k in range(level + 1))
    return BlockPlan(blocks, groups, base, sizes, outside)


def cabled_trays(index: DesignIndex, hosts: DesignHosts) -> dict[str, set[int]]:
    """Trays (1-based) with a compute-fabric cable, per rack of trays.

    The cables of a rack's compute port groups fill the groups' ports in order
    (as the cabling plan lays them out); a tray counts when one of its ports
    carries a cable of a compute-fabric link.
    """
    fab = index.fabric == FABRIC_CODE[Fabric.COMPUTE]
    racks = {d for d in index.device_ids if hosts.has_trays(d)}
    if not racks:
        return {}
    pos = {d: i for i, d in enumerate(index.device_ids) if d in racks}
    out: dict[str, set[int]] = {d: set() for d in racks}
    # (device, port group, speed) -> cables of compute-fabric links
    lanes: dict[tuple[int, int, int], int] = defaultdict(int)
    for end, port in ((index.a, index.a_port), (index.b, index.b_port)):
        sel = np.flatnonzero(fab & np.isin(end, list(pos.values())))
        for dev, grp, speed, cables in zip(
            end[sel].tolist(),
            port[sel].tolist(),
            index.speed[sel].tolist(),
            index.cables[sel].tolist(),
            strict=True,
        ):
            lanes[(dev, grp, speed)] += cables
    used: dict[tuple[int, int], int] = defaultdict(int)
    for (dev, grp, speed), cables in lanes.items():
        entry = index.entries[int(index.dev_catalog[dev])]
        iface = entry.interface(index.port_names[grp]) if entry else None
        if iface is None:
            continue
        split = max(1, iface.split(speed))
        used[(dev, grp)] += -(-cables // split)
    for (dev, grp), n in used.items():
        entry = index.entries[int(index.dev_catalog[dev])]
        iface = entry.interface(index.port_names[grp]) if entry else None
        if entry is None or iface is None or iface.role is not Role.COMPUTE:
            continue
        rack = index.device_ids[dev]
        for p in iface.ports[:n]:
            tray = entry.tray_of_port(p)
            if tray is not None:
                out[rack].add(tray)
    return out
