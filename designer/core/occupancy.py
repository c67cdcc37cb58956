"""Which ports of a device's port groups the links hold, lane by lane.

A cable's end is pinned to one port (``osfp3/2``) or, on a port broken out into
several links, one lane of it (``osfp8/2:1``). The booking here follows the rule
that the pins are chosen by (:mod:`designer.core.pins`) and checked against
(:mod:`designer.core.pin_checks`):

- a port carries one whole-port cable, or the lanes of one breakout (one speed);
- a cage holds one module, so all the ports of a cage run one speed;
- a free port is taken lowest front-panel position first, lanes of a port
  already broken out at that speed before a new port.

Hardware comes from a lookup (:mod:`designer.core.specs`); core does not import
the catalog.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from designer.core.model import Design, Device
from designer.core.specs import DeviceSpec, Lookup, PortGroupSpec, as_lookup

__all__ = [
    "LANE_SEPARATOR",
    "Kind",
    "Kinds",
    "Occupancy",
    "end_ports",
    "lane_name",
    "port_choices",
    "split_lane",
    "tolerant",
]

LANE_SEPARATOR = ":"
"""Between a port name and its breakout lane number (``osfp8/2:1``)."""


Kind = tuple[int, str]
"""What a cage holds: ``(0, module id)``, or ``(1, "")`` for cables that bring
their own ends (:meth:`designer.core.specs.PortGroupSpec.module_kind`)."""
Kinds = tuple[Sequence[Kind], Sequence[Kind]]
"""Per end (a, b), per link: the :data:`Kind` its cables take."""


def lane_name(port: str, lane: int, split: int) -> str:
    """Name of 0-based ``lane`` of ``port`` broken out ``split`` ways."""
    return port if split <= 1 else f"{port}{LANE_SEPARATOR}{lane + 1}"


def split_lane(name: str) -> tuple[str, int]:
    """(port, 0-based lane) of a pin name; lane -1: the whole port."""
    port, sep, lane = name.rpartition(LANE_SEPARATOR)
    if sep and lane.isdigit() and port:
        return port, int(lane) - 1
    return name, -1


@dataclass(slots=True)
class _Ports:
    """One device's port group: which ports and lanes are taken, and by whom."""

    device: str
    group: PortGroupSpec
    count: int
    index: dict[str, int] = field(default_factory=dict)
    speed: list[int] = field(default_factory=list)  # 0: free
    lanes: list[int] = field(default_factory=list)  # bit mask of lanes taken
    holder: dict[int, str] = field(default_factory=dict)  # port -> a link id
    cage_kind: list[tuple[int, str] | None] = field(default_factory=list)
    cage_used: list[int] = field(default_factory=list)
    cursor: dict[tuple[int, Kind], int] = field(default_factory=dict)
    partial: dict[tuple[int, Kind], list[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        g, n = self.group, self.count
        names = [g.port_name(i) for i in range(n)]
        self.index = {name: i for i, name in enumerate(names) if name is not None}
        self.speed = [0] * n
        self.lanes = [0] * n
        per = max(1, g.ports_per_cage)
        cages = -(-n // per)
        self.cage_kind = [None] * cages
        self.cage_used = [0] * cages

    def name(self, port: int, lane: int, split: int) -> str:
        return lane_name(self.group.port_name(port) or "", lane, split)

    def locate(self, pin: str, speed: int) -> tuple[int, int, str]:
        """(port, lane, problem) of a pin name on this group at ``speed``."""
        split = self.group.split(speed)
        whole = self.index.get(pin)
        if whole is not None and split <= 1:
            return whole, 0, ""
        port_name, lane = split_lane(pin)
        port = self.index.get(port_name)
        if port is None:
            first = self.group.port_name(0) or ""
            last = self.group.port_name(self.count - 1) or ""
            return (
                -1,
                -1,
                (
                    f"{self.device} has no port {pin!r} in port group "
                    f"{self.group.name!r} (its ports are {first} to {last})"
                ),
            )
        if split <= 1:
            return (
                -1,
                -1,
                (
                    f"{self.device} port {pin!r}: at {speed}G a port of "
                    f"{self.group.name!r} carries one cable, name it {port_name!r}"
                ),
            )
        if not 0 <= lane < split:
            return (
                -1,
                -1,
                (
                    f"{self.device} port {pin!r}: at {speed}G port {port_name} breaks "
                    f"out into lanes {port_name}:1 to {port_name}:{split}"
                ),
            )
        return port, lane, ""

    def blocker(
        self, port: int, lane: int, speed: int, kind: Kind | None = None
    ) -> str:
        """Why ``port`` (lane) cannot carry a cable at ``speed`` ("": it can)."""
        split = max(1, self.group.split(speed))
        per = max(1, self.group.ports_per_cage)
        cage = port // per
        if self.speed[port]:
            if self.speed[port] != speed or split <= 1:
                return "taken"
            if self.lanes[port] >> lane & 1:
                return "taken"
        want = kind if kind is not None else self.group.module_kind(speed)
        if self.cage_used[cage] and self.cage_kind[cage] != want:
            return "cage"
        return ""

    def occupy(
        self, port: int, lane: int, speed: int, holder: str, kind: Kind | None = None
    ) -> None:
        split = max(1, self.group.split(speed))
        per = max(1, self.group.ports_per_cage)
        if not self.speed[port]:
            cage = port // per
            self.cage_used[cage] += 1
            self.cage_kind[cage] = (
                kind if kind is not None else self.group.module_kind(speed)
            )
            self.speed[port] = speed
        self.lanes[port] |= 1 << (lane if split > 1 else 0)
        self.holder.setdefault(port, holder)
        if split > 1 and self.lanes[port] != (1 << split) - 1:
            mode = (speed, kind if kind is not None else self.group.module_kind(speed))
            waiting = self.partial.setdefault(mode, [])
            if port not in waiting:
                waiting.append(port)
                waiting.sort()

    def take(
        self, speed: int, n: int, holder: str, kind: Kind | None = None
    ) -> list[str]:
        """The first ``n`` free ports or lanes for cables at ``speed`` ("": none)."""
        split = max(1, self.group.split(speed))
        out: list[str] = []
        mode = (speed, kind if kind is not None else self.group.module_kind(speed))
        waiting = self.partial.get(mode, [])
        while waiting and len(out) < n:
            port = waiting[0]
            for lane in range(split):
                if len(out) == n:
                    break
                if not self.lanes[port] >> lane & 1:
                    self.lanes[port] |= 1 << lane
                    out.append(self.name(port, lane, split))
            if self.lanes[port] == (1 << split) - 1:
                waiting.pop(0)
        p = self.cursor.get(mode, 0)
        while len(out) < n and p < self.count:
            if not self.speed[p] and not self.blocker(p, 0, speed, kind):
                if self.group.port_name(p) is None:
                    p += 1
                    continue
                for lane in range(split):
                    if len(out) == n:
                        break
                    self.occupy(p, lane, speed, holder, kind)
                    out.append(self.name(p, lane, split))
            p += 1
        self.cursor[mode] = p
        return out + [""] * (n - len(out))


def tolerant(look: Lookup) -> Lookup:
    """``look`` with entries it cannot read (a partial catalog) as unknown."""

    def get(catalog_id: str) -> DeviceSpec | None:
        try:
            return look(catalog_id)
        except (AttributeError, TypeError, ValueError):
            return None

    return get


class Occupancy:
    """The port groups of some devices with the ports their links hold."""

    def __init__(self, design: Design, lookup: Lookup) -> None:
        self.design = design
        self.lookup = tolerant(lookup)
        self.devices: dict[str, Device] = design.device_map()
        self.groups: dict[tuple[str, str], _Ports | None] = {}

    def group(self, device_id: str, name: str) -> _Ports | None:
        key = (device_id, name)
        if key in self.groups:
            return self.groups[key]
        got: _Ports | None = None
        dev = self.devices.get(device_id)
        spec: DeviceSpec | None = self.lookup(dev.catalog_id) if dev else None
        g = spec.port_group(name) if spec is not None else None
        if dev is not None and spec is not None and g is not None:
            count = g.count
            if spec.configurable and dev.ports and name in dev.ports:
                count = dev.ports[name]
            got = _Ports(device_id, g, count)
        self.groups[key] = got
        return got

    def load(
        self,
        device_ids: Iterable[str],
        skip: Iterable[int] = (),
        kinds: Kinds | None = None,
    ) -> None:
        """Book the pins every link on ``device_ids`` holds (not rows ``skip``)."""
        wanted = set(device_ids)
        table = self.design.links
        rows = table.rows_touching(wanted)
        if not rows:
            return
        s = table.arrays
        skipped = set(skip)
        offsets = s.pin_offsets()
        names, ports, pin_names = s.names, s.port_names, s.pin_names
        a_pins, b_pins = s.a_pins, s.b_pins
        for i in rows:
            if i in skipped:
                continue
            lo, hi = int(offsets[i]), int(offsets[i + 1])
            speed = int(s.speed[i])
            lid = str(s.ids[i])
            for end, (dev, grp, pins) in enumerate(
                ((s.a[i], s.a_port[i], a_pins), (s.b[i], s.b_port[i], b_pins))
            ):
                did = names[dev]
                if did not in wanted:
                    continue
                g = self.group(did, ports[grp])
                if g is None:
                    continue
                for code in pins[lo:hi].tolist():
                    if code < 0:
                        continue
                    port, lane, problem = g.locate(pin_names[code], speed)
                    if not problem:
                        kind = kinds[end][i] if kinds is not None else None
                        g.occupy(port, lane, speed, lid, kind)


def end_ports(
    design: Design, lookup: Any, device_id: str, group: str, *, skip_link: str | None
) -> tuple[list[str], dict[str, str]]:
    """The port (lane) names of ``device_id``'s group and who holds each port:
    ``(names, {port name: link id})``; ``skip_link``'s own pins count as free."""
    look = as_lookup(lookup)
    occ = Occupancy(design, look)
    skip = design.links.position(skip_link) if skip_link else None
    occ.load([device_id], skip=() if skip is None else (skip,))
    g = occ.group(device_id, group)
    if g is None:
        return [], {}
    names = [g.group.port_name(p) or "" for p in range(g.count)]
    held = {names[p]: lid for p, lid in g.holder.items()}
    return names, held


def port_choices(
    design: Design, lookup: Any, link_id: str, end: str
) -> list[tuple[str, str | None]]:
    """Every port (lane at a breakout speed) the ``end`` ("a" or "b") of a link
    could be pinned to, in front-panel order, with the link holding it (None:
    free; the link's own pins count as free), for the Properties panel."""
    table = design.links
    i = table.position(link_id)
    if i is None:
        return []
    link = table.row(i)
    device, group = (link.a, link.a_port) if end == "a" else (link.b, link.b_port)
    occ = Occupancy(design, as_lookup(lookup))
    occ.load([device], skip=(i,))
    g = occ.group(device, group)
    if g is None:
        return []
    split = max(1, g.group.split(link.speed_gbps))
    out: list[tuple[str, str | None]] = []
    for p in range(g.count):
        for lane in range(split):
            name = g.name(p, lane, split)
            why = g.blocker(p, lane, link.speed_gbps)
            out.append((name, g.holder.get(p, "") if why else None))
    return out
