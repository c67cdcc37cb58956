"""Bulk wiring as commands: all-to-all (leaves to spines) and rail-optimized.

Each builder chooses ports as the canvas does (:func:`choose_ports`), checks
the whole batch with :func:`check_links` (the rule every entry point uses) and
returns one step, or raises a typed :class:`ConnectionRefused` naming the
device, port group and numbers. Links are built column-wise (no per-link
objects), so wiring 100,000 NICs stays fast. Rail wiring completes the missing
rails of nodes that already have some, or rewires them (``replace=True``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from designer.core.checks import check_links
from designer.core.commands import Command, Macro
from designer.core.connect import PortChoice, choose_ports, fabric_hint
from designer.core.errors import (
    NothingToWire,
    RailMismatch,
    RailsTaken,
    SelfLink,
    UnknownPortGroup,
    device_name,
)
from designer.core.formatting import plural
from designer.core.ids import IdAllocator, id_base, new_id
from designer.core.link_commands import AddLinks, RemoveLinks
from designer.core.model import Design, Device, Fabric, LinkTable
from designer.core.rules import resolve
from designer.core.specs import (
    DeviceSpec,
    Lookup,
    PortGroupSpec,
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
    """Links being built for one command, column by column."""

    def __init__(
        self, design: Design, lookup: Lookup, taken: Iterable[str] | None = None
    ) -> None:
        self.design = design
        self.lookup = lookup
        self.devices = design.device_map()
        self.ids = IdAllocator(design.links.id if taken is None else taken)
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
        b: Device,
        choice: PortChoice,
        cables: int,
        rail: int | None = None,
    ) -> None:
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

    def table(self) -> LinkTable:
        return LinkTable.from_columns(self.columns)


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
    typed error (the reason :func:`check_links` gives) if any port budget
    would be exceeded; nothing is half-wired.
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
            batch.add(a, b, choice, cables_each)
    table = batch.table()
    check_links(design, table, look)
    n = len(srcs) * len(tgts)
    return AddLinks(
        table,
        label=f"Connect {len(srcs)} x {len(tgts)} devices ({n} link"
        + ("s)" if n != 1 else ")"),
        lookup=look,
    )


def _plural(n: int, word: str, many: str | None = None) -> str:
    return plural(n, word, many)


@dataclass
class _NodeLinks:
    """A node's existing links on its compute port group."""

    to: Counter[str] = field(default_factory=Counter)  # other end -> cables
    ids: list[str] = field(default_factory=list)


def _compute_links(design: Design, nics: dict[str, str]) -> dict[str, _NodeLinks]:
    """Existing links on each node's compute group (``nics``: node -> group)."""
    out = {node: _NodeLinks() for node in nics}
    s = design.links.arrays  # the rows' codes: no column is turned into a list
    names, ports = s.names, s.port_names
    for i in design.links.rows_touching(nics):
        a, b = names[s.a[i]], names[s.b[i]]
        for node, port, other in (
            (a, ports[s.a_port[i]], b),
            (b, ports[s.b_port[i]], a),
        ):
            if nics.get(node) == port:
                out[node].to[other] += int(s.cables[i])
                out[node].ids.append(str(s.ids[i]))
    return out


def _taken(
    node: Device, ports: int, per_leaf: int, have: _NodeLinks, leaf_ids: Sequence[str]
) -> RailsTaken | None:
    """Refusal when the node's missing rails do not fit beside its other links."""
    rails = set(leaf_ids)
    kept = sum(max(have.to[leaf], per_leaf) for leaf in leaf_ids)
    foreign = sum(n for other, n in have.to.items() if other not in rails)
    if kept + foreign <= ports:
        return None
    extra = [
        f"{n} to {other}"
        for other, n in have.to.most_common()
        if other not in rails or n > per_leaf
    ]
    missing = sum(max(0, per_leaf - have.to[leaf]) for leaf in leaf_ids)
    return RailsTaken(
        f"{device_name(node)} has {_plural(ports, 'compute port')}, "
        f"{sum(have.to.values())} already cabled ({', '.join(extra[:3])}"
        f"{', ...' if len(extra) > 3 else ''}); its missing rails need "
        f"{missing} more, so replace its compute links to rewire it",
        device=node.id,
        port_group="compute",
        capacity=ports,
        in_use=kept + foreign,
        needed=kept + foreign - ports,
    )


def wire_rail_optimized(
    design: Design,
    nodes: Sequence[str],
    rail_leaves: Sequence[str],
    lookup: Any,
    *,
    speed_gbps: int | None = None,
    replace: bool = False,
) -> Command:
    """NIC ``r`` of every node to rail leaf ``r`` (``Link.rail = r``), one step.

    The rail count is the number of compute ports per node (its effective
    ``compute`` port count) and ``rail_leaves`` lists one leaf per rail. When
    the port count is a multiple of the leaves given, port ``p`` goes to leaf
    ``p mod L`` as one bundle of ``ports / L`` cables per leaf: an NVL72 rack
    (18 trays x 4 NICs = 72 ports) on 4 rail leaves gets 18 cables per leaf,
    NVIDIA's "one leaf per rack per rail, 18 trays down".

    Nodes that already have links on their compute ports get only the rails
    they miss (cables already on a rail leaf count for it); a node whose ports
    are taken by other links is refused with :class:`RailsTaken`, and
    :class:`NothingToWire` says when every rail is there. ``replace=True``
    removes the nodes' compute links and wires them afresh, in one step.
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
    probe = _Batch(design, look, ())
    leaves = [probe.endpoint(leaf) for leaf in leaf_ids]
    plan: list[tuple[Device, DeviceSpec, PortGroupSpec, int]] = []
    for node_id in node_ids:
        node, spec = probe.endpoint(node_id)
        nic = compute_port_group(spec)
        if nic is None:
            raise UnknownPortGroup(
                f"{device_name(node)} has no compute port group to wire to rails",
                devices=(node.id,),
            )
        ports = effective_count(node, spec, nic)
        if ports % len(leaves):
            raise RailMismatch(
                f"{device_name(node)} has {_plural(ports, 'compute port')} but "
                f"{len(leaves)} rail leaves were given; rail-optimized "
                "wiring puts NIC r on rail leaf r, so give one leaf per rail "
                f"({ports}, or a divisor of it for several ports per leaf)",
                devices=(node.id,),
            )
        plan.append((node, spec, nic, ports // len(leaves)))
    existing = _compute_links(design, {n.id: nic.name for n, _, nic, _ in plan})
    removed = (
        [lid for n, _, _, _ in plan for lid in existing[n.id].ids] if replace else []
    )
    gone = set(removed)
    batch = _Batch(design, look, (i for i in design.links.id if i not in gone))
    choices: dict[tuple[str, str], PortChoice] = {}
    partly = 0
    for node, spec, nic, per_leaf in plan:
        have = _NodeLinks() if replace else existing[node.id]
        if have.to:
            problem = _taken(node, per_leaf * len(leaves), per_leaf, have, leaf_ids)
            if problem is not None:
                raise problem
        missing = [per_leaf - have.to[leaf.id] for leaf, _ in leaves]
        if any(m > 0 for m in missing) and have.to:
            partly += 1
        nic_only = DeviceSpec(spec.catalog_id, (nic,), spec.configurable, spec.category)
        for rail, ((leaf, leaf_spec), need) in enumerate(
            zip(leaves, missing, strict=True)
        ):
            if need <= 0:
                continue
            key = (node.catalog_id, leaf.catalog_id)
            choice = choices.get(key)
            if choice is None:
                choice = choose_ports(
                    node, nic_only, leaf, leaf_spec, speed_gbps=speed_gbps
                )
                choices[key] = choice
            batch.add(node, leaf, choice, need, rail)
    table = batch.table()
    if not len(table):
        raise NothingToWire(
            f"every selected node already has its {_plural(len(leaves), 'rail')} "
            "wired to these leaves; nothing to add",
            devices=tuple(node_ids),
        )
    check_links(design, table, look, removing=removed)
    wired = len({a for a in table.a})
    links = _plural(len(table), "link")
    if replace:
        return Macro(
            f"Rewire {_plural(wired, 'node')} to {_plural(len(leaves), 'rail')} "
            f"({links}, {len(removed)} replaced)",
            [RemoveLinks(removed), AddLinks(table, lookup=look)]
            if removed
            else [AddLinks(table, lookup=look)],
        )
    if partly:
        label = f"Complete the rails of {_plural(wired, 'node')} ({links})"
    else:
        label = (
            f"Wire {_plural(wired, 'node')} to {_plural(len(leaves), 'rail')} ({links})"
        )
    return AddLinks(table, label=label, lookup=look)
