"""As-built verification: a design's InfiniBand fabrics against a live one.

The design's fabrics come from :func:`designer.io.export.ib_fabric.ib_fabrics`
(the cabling plan's ports), the live fabric from ``ibnetdiscover`` output
(:mod:`designer.io.ibdiscovered`). Devices are matched by NodeDescription
(switch names; ``<hostname> mlx5_N`` for HCAs) and ports by number, never by
GUID: GUIDs are only known after bring-up.

Each difference is one :class:`AsBuiltItem`, its two ends named by device,
port, front-panel port, rack and U:

``missing``
    a designed cable not seen, neither of its ports cabled elsewhere;
``swapped``
    a cable seen between two ports that the design cables, but not to each
    other (a swap of two cables gives two items);
``unexpected``
    a cable seen at a port that the design leaves empty, or to a device the
    design does not have;
``degraded``
    a designed cable up at a lower width or speed than designed;
``unknown_device``
    a node whose NodeDescription is in no fabric of the design;
``not_seen``
    a designed switch absent from the file, or an HCA whose cables all lead
    to nodes also absent (an HCA cabled to a seen switch shows as its
    ``missing`` cable: a single-port CA disappears with its cable).

Only the design's fabrics that the file touches (any node name in common)
are compared, so the output of ``ibnetdiscover`` on the compute fabric is
not reported as a storage fabric that is missing.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from designer.core.model import Design
from designer.io.export._common import Catalog
from designer.io.export.ib_fabric import (
    LANE_GBPS,
    IbFabric,
    IbLink,
    ib_fabrics,
)
from designer.io.ibdiscovered import Discovered

__all__ = [
    "KINDS",
    "AsBuiltEnd",
    "AsBuiltItem",
    "AsBuiltReport",
    "count_text",
    "punch_list_csv",
    "verify_fabric",
]

KINDS: dict[str, str] = {
    "missing": "Missing cable",
    "swapped": "Swapped cable",
    "unexpected": "Unexpected cable",
    "degraded": "Link below design rate",
    "unknown_device": "Unknown device",
    "not_seen": "Device not seen",
}
"""Item kinds in report order, with their titles."""

_MANY = {
    "missing": "missing cables",
    "swapped": "swapped cables",
    "unexpected": "unexpected cables",
    "degraded": "links below design rate",
    "unknown_device": "unknown devices",
    "not_seen": "devices not seen",
}


def count_text(counts: dict[str, int]) -> str:
    """``1 missing cable, 2 swapped cables`` (kinds with none left out)."""
    return ", ".join(
        f"{n:,} {KINDS[k].lower() if n == 1 else _MANY[k]}"
        for k, n in counts.items()
        if n
    )


Port = tuple[str, int]


@dataclass(frozen=True, slots=True)
class AsBuiltEnd:
    """One end of a cable: node, port, and where a technician finds it."""

    node: str
    port: int
    device: str = ""
    port_name: str = ""
    rack: str = ""
    u: int | None = None

    def text(self) -> str:
        """``leaf-1 port 5 (osfp3/1, rack r01 U40)``."""
        where = [x for x in (self.port_name,) if x]
        if self.rack:
            where.append(f"rack {self.rack}" + (f" U{self.u}" if self.u else ""))
        elif self.u is not None:
            where.append(f"U{self.u}")
        inside = f" ({', '.join(where)})" if where else ""
        if self.port <= 0:
            return f"{self.node}{inside}"
        return f"{self.node} port {self.port}{inside}"

    def as_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "node": self.node,
            "port": self.port,
            "device": self.device,
            "port_name": self.port_name,
            "rack": self.rack,
            "u": self.u,
        }


@dataclass(frozen=True, slots=True)
class AsBuiltItem:
    """One difference between the design and the fabric."""

    kind: str
    fabric: str
    a: AsBuiltEnd
    b: AsBuiltEnd | None
    expected: str
    found: str
    links: tuple[str, ...] = ()
    devices: tuple[str, ...] = ()
    cables: tuple[int, ...] = ()

    @property
    def title(self) -> str:
        """The kind as a heading (``Missing cable``)."""
        return KINDS[self.kind]

    def message(self) -> str:
        """One line for the punch list."""
        ends = self.a.text() + (f" <-> {self.b.text()}" if self.b else "")
        return f"{self.title}: {ends}: expected {self.expected}; found {self.found}"

    def as_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "kind": self.kind,
            "fabric": self.fabric,
            "a": self.a.as_dict(),
            "b": self.b.as_dict() if self.b else None,
            "expected": self.expected,
            "found": self.found,
            "links": list(self.links),
            "devices": list(self.devices),
            "cables": list(self.cables),
            "message": self.message(),
        }


@dataclass(slots=True)
class AsBuiltReport:
    """Every difference, with what was compared."""

    path: str
    items: list[AsBuiltItem] = field(default_factory=list)
    fabrics: list[str] = field(default_factory=list)
    not_in_file: list[str] = field(default_factory=list)
    designed_cables: int = 0
    seen_cables: int = 0
    matched_cables: int = 0

    @property
    def ok(self) -> bool:
        """Whether the fabric matches the design."""
        return not self.items

    def counts(self) -> dict[str, int]:
        """Items per kind (every kind, zero included)."""
        got = {k: 0 for k in KINDS}
        for item in self.items:
            got[item.kind] += 1
        return got

    def as_dict(self) -> dict[str, Any]:
        """JSON form (``verify --json``)."""
        return {
            "file": self.path,
            "ok": self.ok,
            "fabrics": self.fabrics,
            "fabrics_not_in_file": self.not_in_file,
            "designed_cables": self.designed_cables,
            "seen_cables": self.seen_cables,
            "matched_cables": self.matched_cables,
            "counts": self.counts(),
            "items": [i.as_dict() for i in self.items],
        }

    def text(self) -> str:
        """The punch list as plain text."""
        head = (
            f"{self.path}: fabric {', '.join(self.fabrics) or '(none)'}: "
            f"{self.matched_cables:,} of {self.designed_cables:,} designed cables "
            f"as designed, {self.seen_cables:,} cables seen"
        )
        if self.ok:
            return head + "; matches the design\n"
        lines = [head, f"{len(self.items):,} differences: {count_text(self.counts())}"]
        lines += [f"  {item.message()}" for item in self.items]
        return "\n".join(lines) + "\n"


def _gbps(width: int | None, speed: str | None) -> float | None:
    if width is None or speed is None or speed not in LANE_GBPS:
        return None
    return width * LANE_GBPS[speed]


def verify_fabric(
    design: Design,
    found: Discovered,
    catalog: Catalog | None = None,
    fabrics: list[IbFabric] | None = None,
) -> AsBuiltReport:
    """Compare the design's InfiniBand fabrics with ``found`` (see module doc)."""
    fabrics = ib_fabrics(design, catalog) if fabrics is None else fabrics
    report = AsBuiltReport(found.path)
    names = {nid: _name(found, nid) for nid in _node_ids(found)}
    seen_names: dict[str, list[str]] = defaultdict(list)
    for nid, name in names.items():
        seen_names[name].append(nid)
    touched = [f for f in fabrics if any(n in seen_names for n in f.nodes)]
    checked = touched or fabrics
    report.fabrics = [f.name for f in checked]
    report.not_in_file = [f.name for f in fabrics if f not in checked]
    design_nodes: dict[str, IbFabric] = {}
    for f in checked:
        for n in f.nodes:
            design_nodes.setdefault(n, f)
    peer: dict[Port, tuple[Port, IbLink, IbFabric]] = {}
    for f in checked:
        for link in f.links:
            a, b = (link.a.node, link.a.port), (link.b.node, link.b.port)
            peer[a] = (b, link, f)
            peer[b] = (a, link, f)
    report.designed_cables = sum(len(f.links) for f in checked)
    report.seen_cables = len(found.links)
    fabric_of = checked[0].name if checked else ""

    def end(port: Port) -> AsBuiltEnd:
        node, number = port
        f = design_nodes.get(node)
        if f is None:
            return AsBuiltEnd(node, number)
        n = f.nodes[node]
        if n.is_switch:
            pname = f.port_names.get(node, {}).get(number, "")
        else:
            pname = n.port_name if number == 1 else ""
        if port in peer:  # the plan's own name (a lane of a split port)
            _, link, _ = peer[port]
            pname = (
                link.a.port_name
                if (link.a.node, link.a.port) == port
                else (link.b.port_name)
            )
        return AsBuiltEnd(node, number, n.device, pname, n.rack, n.u)

    def describe(port: Port) -> str:
        got = peer.get(port)
        return f"{got[0][0]} port {got[0][1]}" if got else "nothing (port unused)"

    items: list[AsBuiltItem] = []
    # nodes whose description repeats in the file cannot be matched
    for name, ids in seen_names.items():
        if len(ids) > 1 and name in design_nodes:
            items.append(
                AsBuiltItem(
                    "unknown_device",
                    design_nodes[name].name,
                    AsBuiltEnd(name, 0, design_nodes[name].nodes[name].device),
                    None,
                    "one node with this NodeDescription",
                    f"{len(ids)} nodes report it ({', '.join(sorted(ids)[:4])})",
                    devices=(design_nodes[name].nodes[name].device,),
                )
            )
    for name, ids in seen_names.items():
        if name not in design_nodes:
            nid = ids[0]
            seen_node = found.nodes.get(nid)
            guid = (
                f"GUID {seen_node.guid:#018x}"
                if seen_node is not None and seen_node.guid
                else nid
            )
            items.append(
                AsBuiltItem(
                    "unknown_device",
                    fabric_of,
                    AsBuiltEnd(name, 0),
                    None,
                    "a device of the design",
                    f"{found.kind(nid)} {name!r} ({guid}), not in the design",
                )
            )
    used: set[Port] = set()
    matched: set[tuple[Port, Port]] = set()
    for seen in found.links:
        a = (names[seen.a[0]], seen.a[1])
        b = (names[seen.b[0]], seen.b[1])
        used.update((a, b))
        pa, pb = peer.get(a), peer.get(b)
        if pa is not None and pa[0] == b:
            matched.add((a, b))
            matched.add((b, a))
            want = pa[1]
            got = _gbps(seen.width, seen.speed)
            slower = got is not None and (
                got < want.gbps or (seen.width or 0) < want.width
            )
            if slower:
                items.append(
                    AsBuiltItem(
                        "degraded",
                        pa[2].name,
                        end(a),
                        end(b),
                        f"{want.rate} ({want.gbps:g} Gb/s)",
                        f"up at {seen.rate} ({got:g} Gb/s)",
                        (want.link,),
                        _devices(end(a), end(b)),
                        (want.cable,),
                    )
                )
            continue
        ea, eb = end(a), end(b)
        links = tuple(x[1].link for x in (pa, pb) if x is not None)
        cables = tuple(x[1].cable for x in (pa, pb) if x is not None)
        either = pa or pb
        fab = either[2].name if either is not None else fabric_of
        expected = (
            f"{a[0]} port {a[1]} to {describe(a)}; {b[0]} port {b[1]} to {describe(b)}"
        )
        kind = "swapped" if pa is not None and pb is not None else "unexpected"
        items.append(
            AsBuiltItem(
                kind,
                fab,
                ea,
                eb,
                expected,
                f"cabled to each other ({seen.rate or 'rate not given'})",
                links,
                _devices(ea, eb),
                cables,
            )
        )
    report.matched_cables = len(matched) // 2
    # designed cables not seen
    unseen_nodes = {n for n in design_nodes if n not in seen_names}
    reported: set[int] = set()
    for f in checked:
        for link in f.links:
            a, b = (link.a.node, link.a.port), (link.b.node, link.b.port)
            if (a, b) in matched or id(link) in reported:
                continue
            if a[0] in unseen_nodes and b[0] in unseen_nodes:
                continue
            if a in used or b in used:
                continue  # the port holds another cable: named by that item
            ea, eb = end(a), end(b)
            far_unseen = [e.node for e in (ea, eb) if e.node in unseen_nodes]
            found_text = "not cabled"
            if far_unseen:
                found_text = f"not cabled ({far_unseen[0]} not seen)"
            items.append(
                AsBuiltItem(
                    "missing",
                    f.name,
                    ea,
                    eb,
                    f"a cable, {link.rate} (cable {link.cable} of the plan)",
                    found_text,
                    (link.link,),
                    _devices(ea, eb),
                    (link.cable,),
                )
            )
            reported.add(id(link))
    # designed nodes absent whose cables all lead to absent nodes
    neighbours: dict[str, set[str]] = defaultdict(set)
    for f in checked:
        for link in f.links:
            neighbours[link.a.node].add(link.b.node)
            neighbours[link.b.node].add(link.a.node)
    for name in sorted(unseen_nodes, key=lambda n: _order(design_nodes, n)):
        f = design_nodes[name]
        node = f.nodes[name]
        if (
            not node.is_switch
            and neighbours[name]
            and not neighbours[name] <= unseen_nodes
        ):
            continue  # an HCA's absence is its cable's: listed as missing
        items.append(
            AsBuiltItem(
                "not_seen",
                f.name,
                AsBuiltEnd(name, 0, node.device, "", node.rack, node.u),
                None,
                f"{node.kind} {name!r} on the fabric",
                "not in the file",
                devices=(node.device,),
            )
        )
    order = {k: i for i, k in enumerate(KINDS)}
    items.sort(key=lambda i: (order[i.kind], i.a.rack, i.a.u or 0, i.a.node, i.a.port))
    report.items = items
    return report


def _order(nodes: dict[str, IbFabric], name: str) -> tuple[str, int]:
    n = nodes[name].nodes[name]
    return n.rack, n.u or 0


def _devices(*ends: AsBuiltEnd) -> tuple[str, ...]:
    return tuple(dict.fromkeys(e.device for e in ends if e.device))


def _node_ids(found: Discovered) -> Iterable[str]:
    ids = dict.fromkeys(found.nodes)
    for link in found.links:
        ids.setdefault(link.a[0])
        ids.setdefault(link.b[0])
    return ids


def _name(found: Discovered, node_id: str) -> str:
    from designer.io.ibdiscovered import node_name

    return node_name(found.desc(node_id))


PUNCH_COLUMNS = (
    "item",
    "kind",
    "fabric",
    "a_device",
    "a_node",
    "a_port",
    "a_port_name",
    "a_rack",
    "a_u",
    "b_device",
    "b_node",
    "b_port",
    "b_port_name",
    "b_rack",
    "b_u",
    "expected",
    "found",
    "cables",
    "links",
)


def punch_list_csv(report: AsBuiltReport) -> str:
    """The punch list as CSV, one row per item (``PUNCH_COLUMNS``)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(PUNCH_COLUMNS)
    for i, item in enumerate(report.items, start=1):
        row: list[Any] = [i, item.title, item.fabric]
        for e in (item.a, item.b):
            if e is None:
                row += [""] * 6
            else:
                row += [
                    e.device,
                    e.node,
                    e.port if e.port > 0 else "",
                    e.port_name,
                    e.rack,
                    "" if e.u is None else e.u,
                ]
        row += [
            item.expected,
            item.found,
            " ".join(map(str, item.cables)),
            " ".join(item.links),
        ]
        w.writerow(row)
    return buf.getvalue()
