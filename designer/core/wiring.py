"""Bulk wiring as commands: all-to-all (leaves to spines) and rail-optimized.

Each builder checks the connection rules for the whole batch (port budgets in
one pass) and returns one :class:`AddLinks` step, or raises a typed
:class:`ConnectionRefused` naming the device, port group and numbers. Links are
built column-wise (no per-link objects), so wiring 100,000 NICs stays fast.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from designer.core.commands import AddLinks, Command
from designer.core.errors import (
    RailMismatch,
    SelfLink,
    UnknownPortGroup,
    budget_error,
    device_name,
)
from designer.core.ids import IdAllocator, id_base, new_id
from designer.core.model import Design, Device, Fabric, LinkTable
from designer.core.rules import PortChoice, choose_ports, fabric_hint, resolve
from designer.core.specs import (
    DeviceSpec,
    Lookup,
    PortGroupSpec,
    PortUsage,
    as_lookup,
    effective_count,
)

__all__ = [
    "IdAllocator",
    "compute_port_group",
    "connect_all_to_all",
    "id_base",
    "new_id",
    "wire_rail_optimized",
]


def _unique(ids: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def compute_port_group(spec: DeviceSpec) -> PortGroupSpec | None:
    """The NIC ports of a compute device: the group named ``compute``, else role."""
    group = spec.port_group("compute")
    if group is not None:
        return group
    found = spec.groups_for("compute")
    return found[0] if found else None


class _Batch:
    """Links being built for one command, column by column, with port usage."""

    def __init__(self, design: Design, lookup: Lookup) -> None:
        self.design = design
        self.lookup = lookup
        self.devices = design.device_map()
        self.usage = PortUsage.of(design)
        self.pending: Counter[tuple[str, str, int]] = Counter()
        self.groups: dict[
            tuple[str, str], tuple[Device, DeviceSpec, PortGroupSpec]
        ] = {}
        self.ids = IdAllocator(design.links.id)
        self.columns: dict[str, list[Any]] = {
            name: []
            for name in (
                "id",
                "a",
                "a_port",
                "b",
                "b_port",
                "cables",
                "speed_gbps",
                "fabric",
                "rail",
            )
        }

    def endpoint(self, device_id: str) -> tuple[Device, DeviceSpec]:
        device, spec, _ = resolve(self.devices, device_id, None, self.lookup)
        return device, spec

    def add(
        self,
        a: Device,
        sa: DeviceSpec,
        b: Device,
        sb: DeviceSpec,
        choice: PortChoice,
        cables: int,
        rail: int | None = None,
    ) -> None:
        for dev, spec, port in ((a, sa, choice.a_port), (b, sb, choice.b_port)):
            key = (dev.id, port)
            if key not in self.groups:
                grp = spec.port_group(port)
                assert grp is not None
                self.groups[key] = (dev, spec, grp)
            self.pending[(dev.id, port, choice.speed_gbps)] += cables
        c = self.columns
        c["id"].append(self.ids.new(f"{a.id}--{b.id}", bare_first=True, trusted=True))
        c["a"].append(a.id)
        c["a_port"].append(choice.a_port)
        c["b"].append(b.id)
        c["b_port"].append(choice.b_port)
        c["cables"].append(cables)
        c["speed_gbps"].append(choice.speed_gbps)
        c["fabric"].append(choice.fabric)
        c["rail"].append(rail)

    def check_budgets(self, what: str) -> None:
        """Raise for the first port group the batch overfills."""
        before = {
            key: self.usage.native(dev.id, grp)
            for key, (dev, _, grp) in self.groups.items()
        }
        for (dev_id, port, speed), n in self.pending.items():
            self.usage.add(dev_id, port, speed, n)
        self.pending.clear()
        for key, (dev, spec, grp) in self.groups.items():
            capacity = effective_count(dev, spec, grp)
            after = self.usage.native(dev.id, grp)
            if after > capacity:
                raise budget_error(
                    dev, grp, capacity, before[key], after - capacity, what=what
                )

    def command(self, label: str) -> AddLinks:
        return AddLinks(LinkTable.from_columns(self.columns), label=label)


def connect_all_to_all(
    design: Design,
    sources: Sequence[str],
    targets: Sequence[str],
    cables_each: int,
    lookup: Any,
    *,
    fabric: Fabric | None = None,
    speed_gbps: int | None = None,
) -> Command:
    """Every source to every target with ``cables_each`` cables (leaves to spines).

    Port groups and speed are chosen as :func:`suggest_link` does (same fabric
    as the devices' existing links when switch meets switch). Refuses with a
    typed error if any port budget would be exceeded; nothing is half-wired.
    """
    if cables_each < 1:
        raise ValueError(f"cables per pair must be at least 1, not {cables_each}")
    look = as_lookup(lookup)
    srcs, tgts = _unique(sources), _unique(targets)
    if not srcs or not tgts:
        raise ValueError("select at least one source and one target device")
    both = set(srcs).intersection(tgts)
    if both:
        first = sorted(both)[0]
        raise SelfLink(
            f"{first!r} is both a source and a target; a link cannot join a "
            "device to itself",
            devices=(first,),
        )
    batch = _Batch(design, look)
    hint = fabric_hint(design, [*srcs, *tgts]) if fabric is None else None
    ends_s = [batch.endpoint(s) for s in srcs]
    ends_t = [batch.endpoint(t) for t in tgts]
    choices: dict[tuple[str, str], PortChoice] = {}
    for a, sa in ends_s:
        for b, sb in ends_t:
            key = (a.catalog_id, b.catalog_id)
            choice = choices.get(key)
            if choice is None:
                choice = choose_ports(
                    a, sa, b, sb, fabric=fabric, speed_gbps=speed_gbps, hint=hint
                )
                choices[key] = choice
            batch.add(a, sa, b, sb, choice, cables_each)
    per = f"{cables_each} cable" + ("s" if cables_each != 1 else "")
    batch.check_budgets(f"connecting {len(srcs)} x {len(tgts)} devices with {per} each")
    n = len(srcs) * len(tgts)
    return batch.command(
        f"Connect {len(srcs)} x {len(tgts)} devices ({n} link"
        + ("s)" if n != 1 else ")")
    )


def wire_rail_optimized(
    design: Design,
    nodes: Sequence[str],
    rail_leaves: Sequence[str],
    lookup: Any,
    *,
    speed_gbps: int | None = None,
) -> Command:
    """NIC ``r`` of every node to rail leaf ``r`` (``Link.rail = r``), one step.

    The rail count is the number of compute ports per node (its effective
    ``compute`` port count) and ``rail_leaves`` lists one leaf per rail. When
    the port count is a multiple of the leaves given, port ``p`` goes to leaf
    ``p mod L`` as one bundle of ``ports / L`` cables per leaf: an NVL72 rack
    (18 trays x 4 NICs = 72 ports) on 4 rail leaves gets 18 cables per leaf,
    NVIDIA's "one leaf per rack per rail, 18 trays down".
    """
    look = as_lookup(lookup)
    node_ids, leaf_ids = _unique(nodes), _unique(rail_leaves)
    if not node_ids or not leaf_ids:
        raise ValueError("select compute nodes and their rail leaves")
    if len(leaf_ids) != len(rail_leaves):
        raise RailMismatch("a leaf is listed for two rails; give one leaf per rail")
    both = set(node_ids).intersection(leaf_ids)
    if both:
        first = sorted(both)[0]
        raise SelfLink(f"{first!r} is both a node and a rail leaf", devices=(first,))
    batch = _Batch(design, look)
    leaves = [batch.endpoint(leaf) for leaf in leaf_ids]
    choices: dict[tuple[str, str], PortChoice] = {}
    for node_id in node_ids:
        node, spec = batch.endpoint(node_id)
        nic = compute_port_group(spec)
        if nic is None:
            raise UnknownPortGroup(
                f"{device_name(node)} has no compute port group to wire to rails",
                devices=(node.id,),
            )
        ports = effective_count(node, spec, nic)
        if ports % len(leaves):
            raise RailMismatch(
                f"{device_name(node)} has {ports} compute port"
                + ("s" if ports != 1 else "")
                + f" but {len(leaves)} rail leaves were given; rail-optimized "
                "wiring puts NIC r on rail leaf r, so give one leaf per rail "
                f"({ports}, or a divisor of it for several ports per leaf)",
                devices=(node.id,),
            )
        per_leaf = ports // len(leaves)
        nic_only = DeviceSpec(spec.catalog_id, (nic,), spec.configurable, spec.category)
        for rail, (leaf, leaf_spec) in enumerate(leaves):
            key = (node.catalog_id, leaf.catalog_id)
            choice = choices.get(key)
            if choice is None:
                choice = choose_ports(
                    node, nic_only, leaf, leaf_spec, speed_gbps=speed_gbps
                )
                choices[key] = choice
            batch.add(node, spec, leaf, leaf_spec, choice, per_leaf, rail)
    batch.check_budgets(
        f"rail-optimized wiring of {len(node_ids)} node"
        + ("s" if len(node_ids) != 1 else "")
    )
    n = len(node_ids) * len(leaves)
    return batch.command(
        f"Wire {len(node_ids)} node"
        + ("s" if len(node_ids) != 1 else "")
        + f" to {len(leaves)} rails ({n} links)"
    )
