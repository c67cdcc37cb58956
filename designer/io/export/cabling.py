"""Cabling plan CSV: one row per cable; every port and breakout lane used once.

Port names are the catalog's NetBox interface names (``osfp3/2``, ``swp12``,
``qsfp112-3``); breakout lane k of port P is ``P:k`` (``osfp8/2:1``). Every
cable's ports are the ones its link holds (``Link.a_pins``/``b_pins``, chosen
when the link was made and kept through every edit: :mod:`designer.core.pins`,
whose rule is the one this plan used to apply on export); this module reads
them and never chooses a port itself (a design whose pins are not chosen yet is
pinned on a copy, as saving and opening it would). Per device and port group
the cables are still counted by mode before any row is written (two passes
over the links), for the reason a cable without a port gives:

- the module at an end and the cable class follow the analysis
  (:mod:`designer.io.export.cables`: the module by the end's own port group,
  :meth:`Optics.module_for`; the cable class by the speed and the a-end's
  media), so the cages holding a module are the report's
  ``transceivers_by_type`` and the cables the BOM's cable lines, kind by kind;
- in a placed design every cable has its routed ``length_m`` and the medium
  that length picks (:mod:`designer.analysis.lengths`), which also picks the
  cable class and the modules; without a placement ``length_m`` is empty and
  the medium is the speed class's default, as the BOM counts it.

A cable pinned to no port (the design asks for more ports than the group has,
or the catalog does not know the port group) gets an empty port and the reason
in ``note``.

``from_host`` and ``to_host`` name the host whose port an end is
(:mod:`designer.catalog.hosts`): a server's hostname, or for a rack of compute
trays the tray that owns the port (``tray3-osfp2`` is ``nvl72-0001-t03``'s);
empty for switches, storage and a rack's own ports (``oob1``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from designer.catalog.hosts import DesignHosts
from designer.catalog.optics import Medium
from designer.catalog.ports import effective_ports
from designer.catalog.schema import Interface
from designer.core.model import Design
from designer.core.occupancy import lane_name, split_lane
from designer.io.export._common import (
    Catalog,
    ExportCancelled,
    Target,
    open_text,
    resolve_catalog,
)
from designer.io.export.cables import (
    end_module,
    link_cable,
    link_media,
    pinned_design,
)

__all__ = [
    "CABLING_COLUMNS",
    "LANE_SEPARATOR",
    "CablingRow",
    "cabling_rows",
    "cabling_summary",
    "csv_field",
    "lane_name",
    "write_cabling_csv",
]

CABLING_COLUMNS: tuple[str, ...] = (
    "cable",
    "link",
    "from_device",
    "from_label",
    "from_host",
    "from_port_group",
    "from_port",
    "from_transceiver",
    "to_device",
    "to_label",
    "to_host",
    "to_port_group",
    "to_port",
    "to_transceiver",
    "cable_type",
    "cable_id",
    "media",
    "length_m",
    "speed_gbps",
    "fabric",
    "rail",
    "note",
)

CablingRow = tuple[
    int,
    str,
    str,
    str,
    str,
    str,
    str,
    str,
    str,
    str,
    str,
    str,
    str,
    str,
    str,
    str,
    str,
    str,
    int,
    str,
    str,
    str,
]

LANE_SEPARATOR = ":"
"""Between a port name and its breakout lane number (``osfp8/2:1``); the same
as :data:`designer.core.occupancy.LANE_SEPARATOR`."""

# (0 with a module / 1 without, module id, lanes per port, speed when split)
Mode = tuple[int, str, int, int]


def csv_field(value: str) -> str:
    """One CSV field as ``csv.writer`` (minimal quoting) writes it."""
    if "," in value or '"' in value or "\n" in value or "\r" in value:
        return '"' + value.replace('"', '""') + '"'
    return value


@dataclass(slots=True)
class _Lanes:
    """Cables of one mode on one device's port group: where they go."""

    split: int
    lanes: int = 0
    offset: int = 0  # first lane index (port * split) of the block
    used: int = 0
    names: list[str] = field(default_factory=list)  # lane names, quoted if CSV
    hosts: list[str] = field(default_factory=list)  # a rack's lanes: tray host
    beyond: str = ""  # note for lanes past the last port


@dataclass(slots=True)
class _Group:
    """One device's port group: its ports and the cable blocks laid out on it."""

    device: str
    name: str
    iface: Interface | None
    count: int
    problem: str = ""  # why no cable here gets a port (unknown group)
    modes: dict[Mode, _Lanes] = field(default_factory=dict)

    def layout(self, table: Callable[[Interface, int, int], list[str]]) -> None:
        """Give every block its first lane: module types cage-aligned, in order."""
        per_cage = self.iface.ports_per_cage if self.iface is not None else 1
        cursor, previous = 0, None
        for mode in sorted(self.modes):
            block = self.modes[mode]
            if mode[:2] != previous:  # a cage holds one module type
                cursor = -(-cursor // per_cage) * per_cage
                previous = mode[:2]
            block.offset = cursor * block.split
            cursor += -(-block.lanes // block.split)
        reason = self.problem or (
            f"{self.device} port group {self.name!r}: the cables need "
            f"{cursor} ports, it has {self.count}"
        )
        for block in self.modes.values():
            if self.iface is not None:
                block.names = table(self.iface, self.count, block.split)
            block.beyond = reason


def _mode(
    cat: Catalog, iface: Interface | None, speed: int, medium: Medium | None
) -> tuple[Mode, str]:
    """(mode, module id) of an end at ``speed`` in ``medium``."""
    module = end_module(cat, iface, speed, medium)
    split = max(1, iface.split(speed)) if iface is not None else 1
    return (0 if module else 1, module, split, speed if split > 1 else 0), module


def _row_chunks(
    design: Design,
    catalog: Catalog | None,
    chunk_links: int = 20_000,
    *,
    as_text: bool = False,
) -> Iterator[list[Any]]:
    """Cable rows in chunks of about ``chunk_links`` rows.

    Rows are tuples, or with ``as_text`` ready CSV lines: each link's constant
    fields are quoted once and every cable adds one formatted line.
    """
    cat = resolve_catalog(catalog)
    design = pinned_design(design, cat)
    devices = design.device_map()
    labels = {d.id: d.label or d.id for d in design.devices}
    q: Callable[[str], str] = csv_field if as_text else str
    hosts = DesignHosts(design, cat)
    # a server's every port is its host's; a rack of trays looks its ports up
    fixed_host = {
        dev: q(hs[0].name)
        for dev in devices
        if (hs := hosts.of_device(dev)) and not hosts.has_trays(dev)
    }
    quoted: dict[str, str] = {}

    def qc(value: str) -> str:
        got = quoted.get(value)
        if got is None:
            got = quoted[value] = q(value)
        return got

    tray_of: dict[tuple[str, str], int] = {}
    tray_names: dict[str, list[str]] = {}

    def tray_host(dev_id: str, pin: str) -> str:
        """A rack's host (tray) owning a pinned port, quoted if CSV."""
        if not pin:
            return ""
        entry_id = devices[dev_id].catalog_id
        key = (entry_id, pin)
        tray = tray_of.get(key)
        if tray is None:
            entry = cat.get(entry_id)
            port = split_lane(pin)[0]
            tray = tray_of[key] = (entry.tray_of_port(port) if entry else None) or 0
        names = tray_names.get(dev_id)
        if names is None:
            names = tray_names[dev_id] = [
                "",
                *(q(h.name) for h in hosts.of_device(dev_id)),
            ]
        return names[tray] if tray < len(names) else ""

    def table(iface: Interface, count: int, split: int) -> list[str]:
        return []  # the ports are the links' pins

    groups: dict[tuple[str, str], _Group] = {}

    def group_of(dev_id: str, group: str) -> _Group:
        got = groups.get((dev_id, group))
        if got is None:
            dev = devices[dev_id]
            entry = cat.get(dev.catalog_id)
            iface = entry.interface(group) if entry is not None else None
            count = effective_ports(entry, dev.ports, group) if entry else 0
            problem = ""
            if entry is None:
                problem = f"{dev_id}: catalog entry {dev.catalog_id!r} is unknown"
            elif iface is None:
                problem = f"{dev_id}: {dev.catalog_id} has no port group {group!r}"
            got = groups[(dev_id, group)] = _Group(dev_id, group, iface, count, problem)
        return got

    modes: dict[tuple[int, int, Medium | None], tuple[Mode, str]] = {}

    def block_of(
        dev_id: str, group: str, speed: int, medium: Medium | None
    ) -> tuple[_Lanes, str, _Group]:
        g = group_of(dev_id, group)
        key = (id(g.iface), speed, medium)
        got = modes.get(key)
        if got is None:
            got = modes[key] = _mode(cat, g.iface, speed, medium)
        mode, module = got
        block = g.modes.get(mode)
        if block is None:
            block = g.modes[mode] = _Lanes(split=mode[2])
        return block, module, g

    t = design.links
    ids, a_col, b_col, ap_col, bp_col = t.id, t.a, t.b, t.a_port, t.b_port
    cab_col, spd_col, fab_col, rail_col = t.cables, t.speed_gbps, t.fabric, t.rail
    placed = link_media(design, cat)
    mediums: list[Medium | None] = placed[0] if placed else [None] * len(ids)
    lengths: list[str] = placed[1] if placed else [""] * len(ids)
    # pass 1: what every device's port group must carry, and each link's cable
    ends: dict[tuple[str, str, int, Medium | None], tuple[_Lanes, str, _Group]] = {}
    cable_types: dict[tuple[int, int, int, Medium | None], tuple[str, str, str]] = {}
    plan: list[tuple[_Lanes, str, _Lanes, str, tuple[str, str, str]]] = []
    for i in range(len(ids)):
        speed, cables, medium = spd_col[i], cab_col[i], mediums[i]
        ka = (a_col[i], ap_col[i], speed, medium)
        kb = (b_col[i], bp_col[i], speed, medium)
        ea = ends.get(ka) or ends.setdefault(ka, block_of(*ka))
        eb = ends.get(kb) or ends.setdefault(kb, block_of(*kb))
        la, lb = ea[0], eb[0]
        la.lanes += cables
        lb.lanes += cables
        ckey = (id(ea[2].iface), id(eb[2].iface), speed, medium)
        ct = cable_types.get(ckey)
        if ct is None:
            label, cid = link_cable(cat, ea[2].iface, eb[2].iface, speed, medium)
            ct = cable_types[ckey] = (label, cid, _medium_of(cat, cid))
        plan.append((la, ea[1], lb, eb[1], ct))
    del ends
    for g in groups.values():
        g.layout(table)
    trays = {dev for dev in devices if hosts.has_trays(dev)}
    a_pins, b_pins = t.a_pins, t.b_pins
    # pass 2: rows, link by link; a link's constant fields are formatted once
    fabric_text = {f: str(getattr(f, "value", f)) for f in set(fab_col)}
    dev_text = {d: f"{q(d)},{q(label)}," for d, label in labels.items()}
    tails: dict[tuple[str, str, str, str, str, int, str, str], str] = {}
    n = 0
    rows: list[Any] = []
    for i in range(len(ids)):
        a, b, ap, bp = a_col[i], b_col[i], ap_col[i], bp_col[i]
        la, ma, lb, mb, (ctype, cable_id, medium_text) = plan[i]
        speed, cables, length = spd_col[i], cab_col[i], lengths[i]
        fabric = fabric_text[fab_col[i]]
        rail = "" if rail_col[i] is None else str(rail_col[i])
        na, nb = a_pins[i] or (), b_pins[i] or ()
        # an end's host is one for the whole link (a server, or no host) unless
        # the end is a rack, whose ports name their tray
        ha = fixed_host.get(a, None if a in trays else "")
        hb = fixed_host.get(b, None if b in trays else "")
        fixed = ha is not None and hb is not None
        if as_text:
            head = f",{q(ids[i])},{dev_text[a]}"
            head_port = f",{qc(ap)},"
            mid = f",{qc(ma)},{dev_text[b]}"
            mid_port = f",{qc(bp)},"
            if fixed:  # the hosts go into the link's constant fields
                head, mid = f"{head}{ha}{head_port}", f"{mid}{hb}{mid_port}"
            tkey = (mb, ctype, cable_id, medium_text, length, speed, fabric, rail)
            tail = tails.get(tkey)
            if tail is None:
                tail = tails[tkey] = (
                    f",{q(mb)},{q(ctype)},{q(cable_id)},{q(medium_text)},{length},"
                    f"{speed},{q(fabric)},{rail},"
                )
        for c in range(cables):
            n += 1
            ra = na[c] if c < len(na) else ""
            rb = nb[c] if c < len(nb) else ""
            pa, pb = qc(ra), qc(rb)
            note = "" if ra and rb else _note(ra, la, rb, lb)
            if as_text and fixed:
                rows.append(f"{n}{head}{pa}{mid}{pb}{tail}{q(note)}\n")
                continue
            host_a = ha if ha is not None else tray_host(a, ra)
            host_b = hb if hb is not None else tray_host(b, rb)
            if as_text:
                rows.append(
                    f"{n}{head}{host_a}{head_port}{pa}{mid}{host_b}{mid_port}{pb}"
                    f"{tail}{q(note)}\n"
                )
            else:
                rows.append(
                    (
                        n,
                        ids[i],
                        a,
                        labels[a],
                        host_a,
                        ap,
                        pa,
                        ma,
                        b,
                        labels[b],
                        host_b,
                        bp,
                        pb,
                        mb,
                        ctype,
                        cable_id,
                        medium_text,
                        length,
                        speed,
                        fabric,
                        rail,
                        note,
                    )
                )
        if len(rows) >= chunk_links:
            yield rows
            rows = []
    if rows:
        yield rows


def _medium_of(cat: Catalog, cable_id: str) -> str:
    """The medium of a cable class (empty without an optics table)."""
    optics = getattr(cat, "optics", None)
    if optics is None or not cable_id:
        return ""
    for c in optics.cables:
        if c.id == cable_id:
            return str(c.medium.value)
    return ""


def _note(pa: str, la: _Lanes, pb: str, lb: _Lanes) -> str:
    """Why an end of a cable has no port."""
    why = [f"no free port: {x.beyond}" for p, x in ((pa, la), (pb, lb)) if not p]
    return "; ".join(why)


def cabling_rows(
    design: Design, catalog: Catalog | None = None
) -> Iterator[CablingRow]:
    """Yield one row per cable (a link with ``cables=4`` gives 4 rows); the
    ``from_port``/``to_port`` fields are the link's pinned ports."""
    for chunk in _row_chunks(design, catalog):
        yield from chunk


def write_cabling_csv(
    design: Design,
    target: Target,
    catalog: Catalog | None = None,
    progress: Callable[[int, int], bool] | None = None,
) -> int:
    """Stream the cabling plan to ``target``; return the number of cable rows.

    ``progress(done_cables, total_cables)`` is called every 50,000 rows; return
    False from it to cancel (then :class:`ExportCancelled` is raised).
    """
    total = sum(design.links.cables)
    written = 0
    with open_text(target) as fh:
        fh.write(",".join(CABLING_COLUMNS) + "\n")
        for rows in _row_chunks(design, catalog, chunk_links=50_000, as_text=True):
            fh.write("".join(rows))
            written += len(rows)
            if progress is not None and not progress(written, total):
                raise ExportCancelled("cabling export cancelled")
    return written


def cabling_summary(
    design: Design, catalog: Catalog | None = None
) -> list[tuple[str, str, int, int]]:
    """Cable counts as rows ``(fabric, cable type, speed, count)``."""
    cat = resolve_catalog(catalog)
    devices = design.device_map()
    cache: dict[tuple[str, str], Interface | None] = {}

    def iface(dev_id: str, group: str) -> Interface | None:
        dev = devices[dev_id]
        key = (dev.catalog_id, group)
        if key not in cache:
            entry = cat.get(dev.catalog_id)
            cache[key] = entry.interface(group) if entry is not None else None
        return cache[key]

    counts: Counter[tuple[str, str, int]] = Counter()
    types: dict[tuple[int, int, int, Medium | None], str] = {}
    t = design.links
    placed = link_media(design, cat)
    mediums: list[Medium | None] = placed[0] if placed else [None] * len(t.id)
    for i in range(len(t.id)):
        ia, ib = iface(t.a[i], t.a_port[i]), iface(t.b[i], t.b_port[i])
        speed, medium = t.speed_gbps[i], mediums[i]
        key = (id(ia), id(ib), speed, medium)
        ctype = types.get(key)
        if ctype is None:
            ctype = types[key] = link_cable(cat, ia, ib, speed, medium)[0]
        fabric = str(getattr(t.fabric[i], "value", t.fabric[i]))
        counts[(fabric, ctype, speed)] += t.cables[i]
    order = {"compute": 0, "storage": 1, "inband": 2, "oob": 3}
    return [
        (f, ty, s, n)
        for (f, ty, s), n in sorted(
            counts.items(), key=lambda kv: (order.get(kv[0][0], 9), -kv[0][2], kv[0][1])
        )
    ]
