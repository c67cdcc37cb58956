"""Pinned ports: which port of each device every cable uses, chosen once.

A link is a bundle of ``cables`` cables between two devices' port groups; each
cable's end is *pinned* to one port (``osfp3/2``) or, on a port broken out into
several links, one lane of it (``osfp8/2:1``). The pins live in the link table
(:attr:`designer.core.link_arrays.LinkArrays.a_pins`), are chosen when a link is made
and kept through every later edit, undo, paste and save: an edit frees or takes
only its own ports, so the cabling plan of one link never changes because
another was edited.

The rule (the one the cabling plan used before ports were kept, so an old file
opened once gets the ports its plan had):

- a port carries one whole-port cable, or the lanes of one breakout (one speed);
- a cage holds one module, so all the ports of a cage run one speed;
- the cables waiting for ports are taken per port group with whole ports first,
  then lanes by split and speed; within each, in link order; each cable takes
  the first free port (lowest front-panel position) that these rules allow,
  lanes of a port already broken out at that speed before a new port;
- a cable that finds no free port is pinned to none (the cabling plan says
  why); it gets a port only when an edit of its own link asks again.

Hardware comes from a lookup (:mod:`designer.core.specs`); core does not import
the catalog.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from designer.core.errors import ConnectionRefused
from designer.core.link_arrays import NO_PORT, PENDING
from designer.core.link_model import PIN_PENDING_TEXT, Link
from designer.core.model import Design, Device
from designer.core.specs import DeviceSpec, Lookup, PortGroupSpec, as_lookup

LANE_SEPARATOR = ":"
"""Between a port name and its breakout lane number (``osfp8/2:1``)."""

__all__ = [
    "LANE_SEPARATOR",
    "PortTaken",
    "check_pins",
    "choose_pins",
    "end_ports",
    "lane_name",
    "pin_pending",
    "pin_problems",
    "pinned",
    "port_choices",
    "repin_update",
    "split_lane",
    "taken_message",
]


class PortTaken(ConnectionRefused):
    """A port a link asks for is another link's (or not one of the group's)."""

    def __init__(
        self,
        message: str,
        *,
        device: str,
        port: str,
        link_id: str | None = None,
        holder: str | None = None,
    ) -> None:
        super().__init__(message, link_id=link_id, devices=(device,))
        self.device = device
        self.port = port
        self.holder = holder


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


def _tolerant(look: Lookup) -> Lookup:
    """``look`` with entries it cannot read (a partial catalog) as unknown."""

    def get(catalog_id: str) -> DeviceSpec | None:
        try:
            return look(catalog_id)
        except (AttributeError, TypeError, ValueError):
            return None

    return get


class _Occupancy:
    """The port groups of some devices with the ports their links hold."""

    def __init__(self, design: Design, lookup: Lookup) -> None:
        self.design = design
        self.lookup = _tolerant(lookup)
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


def _mode_key(
    group: PortGroupSpec | None, speed: int, kind: Kind | None = None
) -> tuple[int, str, int, int]:
    """Order of the cables waiting on a group, as the cabling plan laid them
    out: cables with a module first (by module id), then those with their
    own ends; within each, whole ports, then lanes by split and speed."""
    if group is None:
        return 1, "", 1, 0
    split = max(1, group.split(speed))
    has, module = kind if kind is not None else group.module_kind(speed)
    return has, module, split, speed if split > 1 else 0


def choose_pins(
    design: Design, rows: Sequence[int], lookup: Any, kinds: Kinds | None = None
) -> dict[int, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Ports for the cables of links ``rows`` still waiting for one (the rule
    of the module doc); every other pin on their devices is kept as it is.

    Returns, per row, both ends' pins as they should be (the pins already
    chosen unchanged).
    """
    look = as_lookup(lookup)
    table = design.links
    s = table.arrays
    rows = sorted(set(rows))
    if not rows:
        return {}
    offsets = s.pin_offsets()
    occ = _Occupancy(design, look)
    touched = {s.names[s.a[i]] for i in rows} | {s.names[s.b[i]] for i in rows}
    occ.load(touched, kinds=kinds)
    names, ports = s.names, s.port_names
    current: dict[int, list[list[str]]] = {}
    asks: list[tuple[tuple[int, str, int, int], int, int, list[int]]] = []
    for i in rows:
        lo, hi = int(offsets[i]), int(offsets[i + 1])
        speed = int(s.speed[i])
        ends: list[list[str]] = []
        for end, (dev, grp, pins) in enumerate(
            ((s.a[i], s.a_port[i], s.a_pins), (s.b[i], s.b_port[i], s.b_pins))
        ):
            codes = pins[lo:hi].tolist()
            ends.append(
                [
                    s.pin_names[c] if c >= 0 else ("" if c == NO_PORT else "?")
                    for c in codes
                ]
            )
            waiting = [k for k, c in enumerate(codes) if c == PENDING]
            if waiting:
                g = occ.group(names[dev], ports[grp])
                kind = kinds[end][i] if kinds is not None else None
                key = _mode_key(g.group if g is not None else None, speed, kind)
                asks.append((key, i, end, waiting))
        current[i] = ends
    asks.sort(key=lambda a: (a[0], a[1], a[2]))
    for _, i, end, waiting in asks:
        dev = s.a[i] if end == 0 else s.b[i]
        grp = s.a_port[i] if end == 0 else s.b_port[i]
        g = occ.group(names[dev], ports[grp])
        if g is None:  # hardware the catalog does not know: left waiting
            got = [PIN_PENDING_TEXT] * len(waiting)
        else:
            kind = kinds[end][i] if kinds is not None else None
            got = g.take(int(s.speed[i]), len(waiting), str(s.ids[i]), kind)
        chosen_end = current[i][end]
        for k, name in zip(waiting, got, strict=True):
            chosen_end[k] = name
    return {i: (tuple(a), tuple(b)) for i, (a, b) in current.items()}


def _pin_fresh_groups(design: Design, look: Lookup, kinds: Kinds | None) -> None:
    """Pins for every port group whose cables all wait for a port and run one
    speed (a generated design, an old file): the rule then gives cable k of
    the group (in link order) lane ``k % split`` of port ``k // split``, so
    numpy does it for the whole table at once."""
    table = design.links
    s = table.arrays
    n = len(s)
    if not n:
        return
    owner = np.repeat(np.arange(n, dtype=np.int64), s.cables)
    groups = max(1, len(s.port_names))
    keys = np.concatenate(
        (
            s.a[owner].astype(np.int64) * groups + s.a_port[owner],
            s.b[owner].astype(np.int64) * groups + s.b_port[owner],
        )
    )
    codes = np.concatenate((s.a_pins, s.b_pins))
    speed = np.concatenate((s.speed[owner], s.speed[owner]))
    order = np.argsort(keys, kind="stable")  # a ends, then b ends, link order
    k_sorted = keys[order]
    starts = np.flatnonzero(np.r_[True, k_sorted[1:] != k_sorted[:-1]])
    ends = np.r_[starts[1:], len(k_sorted)]
    pending = codes[order] == PENDING
    sp = speed[order]
    # a group is fresh: every cable waits, one speed
    all_pending = np.logical_and.reduceat(pending, starts)
    one_speed = np.maximum.reduceat(sp, starts) == np.minimum.reduceat(sp, starts)
    fresh = all_pending & one_speed
    if kinds is not None:  # and one module kind
        table_of: dict[Kind, int] = {}
        kc = np.asarray(
            [table_of.setdefault(k, len(table_of)) for k in (*kinds[0], *kinds[1])],
            dtype=np.int64,
        )
        kc = np.concatenate((kc[: len(s)][owner], kc[len(s) :][owner]))[order]
        fresh &= np.maximum.reduceat(kc, starts) == np.minimum.reduceat(kc, starts)
    if not fresh.any():
        return
    # within a group, link order (a and b ends of different links interleave)
    row = np.concatenate((owner, owner))[order]
    local = np.lexsort((row, np.repeat(np.arange(len(starts)), ends - starts)))
    order = order[local]
    rank = np.arange(len(order), dtype=np.int64) - np.repeat(starts, ends - starts)
    devices = design.device_map()
    new = codes.copy()
    pin_names = list(s.pin_names)
    intern = {name: i for i, name in enumerate(pin_names)}
    tables: dict[tuple[int, int, int], Any] = {}
    for gi in np.flatnonzero(fresh).tolist():
        key = int(k_sorted[starts[gi]])
        dev_id = s.names[key // groups]
        group_name = s.port_names[key % groups]
        dev = devices.get(dev_id)
        spec = look(dev.catalog_id) if dev is not None else None
        g = spec.port_group(group_name) if spec is not None else None
        lo, hi = int(starts[gi]), int(ends[gi])
        at = order[lo:hi]
        if dev is None or spec is None or g is None:
            continue  # hardware the catalog does not know: left waiting
        count = g.count
        if spec.configurable and dev.ports and group_name in dev.ports:
            count = dev.ports[group_name]
        split = max(1, g.split(int(sp[lo])))
        tkey = (id(g), count, split)
        got = tables.get(tkey)
        if got is None:
            names = [
                lane_name(port, lane, split)
                for p in range(count)
                if (port := g.port_name(p)) is not None
                for lane in range(split)
            ]
            for name in names:
                if name not in intern:
                    intern[name] = len(pin_names)
                    pin_names.append(name)
            got = tables[tkey] = np.asarray([intern[x] for x in names], np.int32)
        r = rank[lo:hi]
        new[at] = np.where(r < len(got), got[np.minimum(r, max(0, len(got) - 1))], -1)
    total = len(s.a_pins)
    table.adopt_pins(new[:total], new[total:], tuple(pin_names))


def pin_pending(
    design: Design,
    lookup: Any,
    rows: Sequence[int] | None = None,
    kinds: Kinds | None = None,
) -> int:
    """Choose the ports of every cable still waiting for one (of ``rows``, or
    of the whole table); return how many links got pins.

    ``kinds``: per end (a, b), per link, the module its cables take (the
    cabling plan's, with the medium a placed design's lengths pick); None:
    each port group's module at the speed (the default medium)."""
    table = design.links
    if rows is None:
        if not table.pins_pending():
            return 0
        look = as_lookup(lookup)
        _pin_fresh_groups(design, _tolerant(look), kinds)
        s = table.arrays
        waiting = (s.a_pins == PENDING) | (s.b_pins == PENDING)
        if not waiting.any():
            return len(s)
        owner = np.repeat(np.arange(len(s), dtype=np.int64), s.cables)
        rows = np.unique(owner[waiting]).tolist()
        lookup = look
    chosen = choose_pins(design, rows, lookup, kinds)
    if chosen:
        at = sorted(chosen)
        table.set_pins(at, [chosen[i][0] for i in at], [chosen[i][1] for i in at])
    return len(chosen)


def pinned(design: Design, lookup: Any, kinds: Kinds | None = None) -> Design:
    """``design`` when every cable has its port chosen, else a copy with the
    waiting ones chosen (what saving and opening the design would give)."""
    if not design.links.pins_pending():
        return design
    from designer.core.snapshot import copy

    out = copy(design)
    pin_pending(out, lookup, kinds=kinds)
    return out


def end_ports(
    design: Design, lookup: Any, device_id: str, group: str, *, skip_link: str | None
) -> tuple[list[str], dict[str, str]]:
    """The port (lane) names of ``device_id``'s group and who holds each port:
    ``(names, {port name: link id})``; ``skip_link``'s own pins count as free."""
    look = as_lookup(lookup)
    occ = _Occupancy(design, look)
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
    occ = _Occupancy(design, as_lookup(lookup))
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


def check_pins(design: Design, link: Link, lookup: Any, position: int | None) -> None:
    """Refuse (:class:`PortTaken`) pins of ``link`` that name no port of its
    group, repeat, or are held by another link; ``position``: the link's own
    row, whose current pins count as free."""
    look = as_lookup(lookup)
    occ = _Occupancy(design, look)
    occ.load({link.a, link.b}, skip=() if position is None else (position,))
    for dev, grp, pins in (
        (link.a, link.a_port, link.a_pins),
        (link.b, link.b_port, link.b_pins),
    ):
        if pins is None:
            continue
        g = occ.group(dev, grp)
        if g is None:
            continue
        if len(pins) != link.cables:
            raise PortTaken(
                f"link {link.id!r}: {len(pins)} ports named at {dev} for "
                f"{link.cables} cable{'s' if link.cables != 1 else ''}",
                device=dev,
                port="",
                link_id=link.id,
            )
        for pin in pins:
            if not pin or pin == PIN_PENDING_TEXT:
                continue
            port, lane, problem = g.locate(pin, link.speed_gbps)
            if problem:
                raise PortTaken(problem, device=dev, port=pin, link_id=link.id)
            why = g.blocker(port, lane, link.speed_gbps)
            if why:
                holder = g.holder.get(port)
                raise PortTaken(
                    taken_message(design, dev, pin, why, holder, link.id),
                    device=dev,
                    port=pin,
                    link_id=link.id,
                    holder=holder,
                )
            g.occupy(port, lane, link.speed_gbps, link.id)


def taken_message(
    design: Design, device: str, pin: str, why: str, holder: str | None, link_id: str
) -> str:
    """The one sentence every entry point refuses a taken port with."""
    if holder == link_id:
        return f"{device} port {pin} is named twice for link {link_id!r}"
    if why == "taken":
        other = design.links.get(holder) if holder else None
        to = ""
        if other is not None:
            far = other.b if other.a == device else other.a
            to = f" (to {far})"
        return f"{device} port {pin} is taken by link {holder!r}{to}"
    return (
        f"{device} port {pin} shares a cage with ports running another module "
        f"(a cage holds one module)"
    )


def _pins_all_fine(design: Design, look: Lookup, full: Lookup | None = None) -> bool:
    """Fast pass of :func:`pin_problems`: every pinned cable end names a port
    (lane) of its group, no port is held twice (lanes of one port only by
    cables of one speed, each lane once) and every cage holds one module kind.
    Distinct (device type, group, pin, speed) combinations are looked up once;
    the rest is numpy. False: some end may be wrong (the exact pass says)."""
    s = design.links.arrays
    owner = np.repeat(np.arange(len(s), dtype=np.int64), s.cables)
    dev = np.concatenate((s.a[owner], s.b[owner])).astype(np.int64)
    grp = np.concatenate((s.a_port[owner], s.b_port[owner])).astype(np.int64)
    pin = np.concatenate((s.a_pins, s.b_pins)).astype(np.int64)
    speed = np.concatenate((s.speed[owner], s.speed[owner])).astype(np.int64)
    keep = pin >= 0
    dev, grp, pin, speed = dev[keep], grp[keep], pin[keep], speed[keep]
    if not len(pin):
        return True
    devices = design.device_map()
    types: dict[str, int] = {}
    dev_type = np.asarray(
        [
            types.setdefault(devices[n].catalog_id, len(types)) if n in devices else -1
            for n in s.names
        ],
        dtype=np.int64,
    )
    type_names = list(types)
    speeds, speed_code = np.unique(speed, return_inverse=True)
    n_g, n_p, n_s = len(s.port_names) + 1, len(s.pin_names) + 1, len(speeds)
    key = ((dev_type[dev] * n_g + grp) * n_p + pin) * n_s + speed_code.reshape(-1)
    keys, inv = np.unique(key, return_inverse=True)
    inv = inv.reshape(-1)
    rest, sp_code = np.divmod(keys, n_s)
    rest, p_codes = np.divmod(rest, n_p)
    t_codes, g_codes = np.divmod(rest, n_g)
    uniq = np.stack((t_codes, g_codes, p_codes, speeds[sp_code]), axis=1)
    port = np.zeros(len(uniq), dtype=np.int64)
    lane = np.zeros(len(uniq), dtype=np.int64)
    cage = np.zeros(len(uniq), dtype=np.int64)
    kind = np.zeros(len(uniq), dtype=np.int64)
    kinds: dict[Kind, int] = {}
    for k, (t, g_code, p_code, sp) in enumerate(uniq.tolist()):
        if t < 0:
            return False
        spec = look(type_names[t])
        g = spec.port_group(s.port_names[g_code]) if spec is not None else None
        if g is None:
            continue  # unknown hardware: the catalog check reports it
        name = s.pin_names[p_code]
        split = max(1, g.split(sp))
        whole = name in (g.port_names or ())
        if split <= 1:
            if not whole and g.port_format is None:
                return False
            base, ln = name, -1
        else:
            base, ln = split_lane(name)
            if ln < 0 or ln >= split:
                return False
        if g.port_names:
            try:
                idx = g.port_names.index(base)
            except ValueError:
                return False
        else:
            return False  # a configurable group: the exact pass
        port[k], lane[k] = idx, ln
        cage[k] = idx // max(1, g.ports_per_cage)
        kind[k] = sp  # a cage's module follows its speed (the exact kind below)
    # one use per port, or lanes of one speed each once
    where = dev * n_g + grp  # a device's port group
    p_of, l_of = port[inv], lane[inv]
    order = np.argsort((where * 65_536 + p_of) * 16 + (l_of + 1), kind="stable")
    w_s, p_s, l_s, sp_s = where[order], p_of[order], l_of[order], speed[order]
    same_port = (w_s[1:] == w_s[:-1]) & (p_s[1:] == p_s[:-1])
    if same_port.any():
        clash = same_port & (
            (l_s[1:] < 0)
            | (l_s[:-1] < 0)
            | (l_s[1:] == l_s[:-1])
            | (sp_s[1:] != sp_s[:-1])
        )
        if clash.any():
            return False
    # one module kind per cage: only a device type's group running two speeds
    # can mix kinds (then the kinds are read from the optics table)
    group_of = uniq[:, 0] * n_g + uniq[:, 1]
    pair = np.unique(group_of * (int(speeds.max()) + 1) + kind)
    if len(np.unique(pair // (int(speeds.max()) + 1))) == len(pair):
        return True
    rich = full if full is not None else look
    for k, (t, g_code, _, sp) in enumerate(uniq.tolist()):
        spec = rich(type_names[t])
        g = spec.port_group(s.port_names[g_code]) if spec is not None else None
        kind[k] = kinds.setdefault(g.module_kind(sp), len(kinds)) if g else -1
    c_of, k_of = cage[inv], kind[inv]
    order = np.argsort(where * 65_536 + c_of, kind="stable")
    w_s, c_s, k_s = where[order], c_of[order], k_of[order]
    same_cage = (w_s[1:] == w_s[:-1]) & (c_s[1:] == c_s[:-1])
    return not bool((same_cage & (k_s[1:] != k_s[:-1])).any())


def pin_problems(design: Design, lookup: Any, limit: int = 50) -> list[PortTaken]:
    """Pins that name no port of their group or a port another link holds
    (a hand-edited file), in link order; at most ``limit``."""
    look = as_lookup(lookup)
    arrays = design.links.arrays
    if not bool((arrays.a_pins >= 0).any() or (arrays.b_pins >= 0).any()):
        return []  # nothing pinned yet
    plain = as_lookup(lookup.get) if isinstance(lookup, Mapping) else look
    if _pins_all_fine(design, _tolerant(plain), _tolerant(look)):
        return []
    occ = _Occupancy(design, look)
    s = design.links.arrays
    out: list[PortTaken] = []
    if not len(s) or not bool((s.a_pins >= 0).any() or (s.b_pins >= 0).any()):
        return out
    offsets = s.pin_offsets()
    for i in range(len(s)):
        lo, hi = int(offsets[i]), int(offsets[i + 1])
        speed = int(s.speed[i])
        lid = str(s.ids[i])
        for dev, grp, pins in (
            (s.a[i], s.a_port[i], s.a_pins),
            (s.b[i], s.b_port[i], s.b_pins),
        ):
            did = s.names[dev]
            g = occ.group(did, s.port_names[grp])
            if g is None:
                continue
            for code in pins[lo:hi].tolist():
                if code < 0:
                    continue
                pin = s.pin_names[code]
                port, lane, problem = g.locate(pin, speed)
                if not problem:
                    why = g.blocker(port, lane, speed)
                    if not why:
                        g.occupy(port, lane, speed, lid)
                        continue
                    problem = taken_message(
                        design, did, pin, why, g.holder.get(port), lid
                    )
                out.append(
                    PortTaken(
                        f"link {lid!r}: {problem}", device=did, port=pin, link_id=lid
                    )
                )
                if len(out) >= limit:
                    return out
    return out


def repin_update(old: Link, new: Link, fields: Iterable[str]) -> Link:
    """``new`` (an edit of ``old``) with pins that keep what the edit leaves:
    an end whose device, port group or speed changed waits for new ports;
    fewer cables keep their first pins, more cables wait for ports for the
    added ones; pins the edit names itself are kept as given."""
    given = set(fields)
    ends: dict[str, tuple[str, ...] | None] = {}
    for end in ("a", "b"):
        key = f"{end}_pins"
        if key in given:
            continue
        pins = getattr(old, key)
        moved = (
            getattr(old, end) != getattr(new, end)
            or getattr(old, f"{end}_port") != getattr(new, f"{end}_port")
            or old.speed_gbps != new.speed_gbps
        )
        if pins is None or moved:
            ends[key] = None
            continue
        c = new.cables
        kept = pins[:c]
        ends[key] = (*kept, *([PIN_PENDING_TEXT] * (c - len(kept))))
    return new.model_copy(update=ends) if ends else new
