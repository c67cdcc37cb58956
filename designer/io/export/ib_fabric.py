"""The InfiniBand fabrics of a design, as the fabric reports itself (no Qt).

:func:`ib_fabrics` reads the cabling plan and keeps, per InfiniBand subnet
(the compute fabric, and the storage fabric when it is InfiniBand), the nodes
by NodeDescription and the cables with their port numbers, widths and
speeds: what :mod:`designer.io.export.ibnetdiscover` writes,
:mod:`designer.io.export.opensm` routes and :mod:`designer.io.asbuilt`
compares with what is built.

Nodes
    One switch per switch, one single-port CA per HCA port: every InfiniBand
    port of a server or tray is one CA (ConnectX exposes one ``mlx5`` device
    per PCIe function). A node's NodeDescription is a switch's name (the
    design's device id; Quantum switches report ``MF0;<name>:MQM9700/U1``,
    which :func:`designer.io.ibdiscovered.node_name` strips), an HCA's
    ``<hostname> <device>`` (``dgx-0001 mlx5_11``, ``nvl72-0001-t03 mlx5_4``)
    with the hostname of :mod:`designer.catalog.hosts` and the device of the
    catalog's ``hca_names`` (``mlx5_<k>`` in interface order where the
    catalog has no map, assumed). Every cable has its width and speed
    (``4xNDR``, ``2xNDR`` for NDR200, ``4xHDR``, ``4xXDR``).

Ports
    The cables and their ports are the cabling plan's
    (:func:`designer.io.export.cabling.cabling_rows`): one port name per end
    and cable. A switch port's InfiniBand port number is its position in the
    switch's InfiniBand ports, 1-based (QM9700 cage C, port P is
    ``2(C-1)+P``: ``osfp3/2`` is port 6; assumed, as
    ``docs``/infiniband.md says, until a vendor document confirms it). A
    switch with split ports (``osfp8/2:1``) is numbered lane by lane: lane k
    of port i is ``(i-1)s+k`` for the largest split s in use on it (assumed).
    A CA's port is 1.

GUIDs
    Real GUIDs are known only at bring-up. Each node gets a deterministic
    placeholder from its fabric and NodeDescription (SHA-1, 40 bits, with a
    locally administered prefix), the same for the same design whatever else
    changes; a switch's port GUID is its node GUID, a CA's port 1 is node
    GUID + 1 (as ibsim numbers them).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict, deque
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from designer.catalog.ib import ib_ports
from designer.catalog.schema import CatalogEntry, Category, Interface, Media
from designer.core.model import Design
from designer.io.export._common import Catalog, resolve_catalog

__all__ = [
    "LANE_GBPS",
    "IbEnd",
    "IbFabric",
    "IbLink",
    "IbNode",
    "ib_fabrics",
    "link_rate",
    "some_ib_fabrics",
]

LANE_GBPS: dict[str, float] = {
    "SDR": 2.5,
    "DDR": 5.0,
    "QDR": 10.0,
    "FDR10": 10.0,
    "FDR": 14.0,
    "EDR": 25.0,
    "HDR": 50.0,
    "NDR": 100.0,
    "XDR": 200.0,
}
"""Data rate of one lane per InfiniBand speed (Gb/s, as the tools round it)."""

# the generation a port's native speed belongs to (4 lanes)
_GENERATIONS: tuple[tuple[int, str], ...] = (
    (800, "XDR"),
    (400, "NDR"),
    (200, "HDR"),
    (100, "EDR"),
    (56, "FDR"),
    (40, "QDR"),
)
_WIDTHS = (1, 2, 4, 8, 12)

_SWITCH_PREFIX = 0x02_0000 << 40  # locally administered placeholder OUIs
_CA_PREFIX = 0x06_0000 << 40
_MASK40 = (1 << 40) - 1
_MAX_NAME = 64  # ibsim 0.10: node names (NodeDescriptions) up to 64 characters


def _generation(native_gbps: int) -> str:
    for floor, name in _GENERATIONS:
        if native_gbps >= floor:
            return name
    return "SDR"


def link_rate(speed_gbps: int, a_native: int, b_native: int) -> tuple[int, str]:
    """``(width, speed)`` a link of ``speed_gbps`` between ports of these native
    speeds comes up at: the older generation of the two, as many lanes as the
    speed needs (400G NDR: 4xNDR; 200G on NDR ports: 2xNDR; 200G HDR: 4xHDR)."""
    order = [g for _, g in _GENERATIONS]
    gen = _generation(min(a_native, b_native))
    for g in order[order.index(gen) :] if gen in order else []:
        lanes = speed_gbps / LANE_GBPS[g]
        if lanes == int(lanes) and int(lanes) in _WIDTHS:
            return int(lanes), g
    return 4, gen


@dataclass(frozen=True, slots=True)
class IbNode:
    """One InfiniBand node: a switch, or one HCA port of a host.

    ``desc`` is the NodeDescription (the key verification matches by);
    ``role`` is ``switch``, ``compute`` (a compute host's HCA) or ``io``
    (storage, UFM, head and other nodes). ``rank`` is a switch's tier, 0 for
    the switches that hosts are cabled to (-1 for a CA).
    """

    desc: str
    kind: str  # "Switch" or "Ca"
    guid: int
    ports: int
    device: str
    role: str
    host: str = ""
    hca: str = ""
    port_name: str = ""
    rack: str = ""
    u: int | None = None
    rank: int = -1

    @property
    def is_switch(self) -> bool:
        """Whether the node is a switch."""
        return self.kind == "Switch"

    @property
    def node_id(self) -> str:
        """The node's name in the file (``S-<guid>``, ``H-<guid>``)."""
        return f"{'S' if self.is_switch else 'H'}-{self.guid:016x}"

    def port_guid(self, port: int) -> int:
        """GUID of ``port``: a switch's node GUID; a CA's node GUID + port."""
        return self.guid if self.is_switch else self.guid + port


@dataclass(frozen=True, slots=True)
class IbEnd:
    """One end of a cable: node (NodeDescription), port number, and where it is."""

    node: str
    port: int
    device: str
    port_name: str
    rack: str = ""
    u: int | None = None

    def where(self) -> str:
        """``device port-name (rack R, U n)`` for a technician."""
        place = []
        if self.rack:
            place.append(f"rack {self.rack}")
        if self.u is not None:
            place.append(f"U{self.u}")
        at = f" ({', '.join(place)})" if place else ""
        return f"{self.node}[{self.port}] {self.port_name}{at}".replace(" ]", "]")


@dataclass(frozen=True, slots=True)
class IbLink:
    """One cable of the design on an InfiniBand fabric."""

    a: IbEnd
    b: IbEnd
    width: int
    speed: str
    link: str
    cable: int

    @property
    def rate(self) -> str:
        """``4xNDR`` as the tools print it."""
        return f"{self.width}x{self.speed}"

    @property
    def gbps(self) -> float:
        """Data rate of the link."""
        return self.width * LANE_GBPS[self.speed]


@dataclass(slots=True)
class IbFabric:
    """One InfiniBand fabric of a design: its nodes by NodeDescription and cables."""

    name: str
    nodes: dict[str, IbNode] = field(default_factory=dict)
    links: list[IbLink] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    port_names: dict[str, dict[int, str]] = field(default_factory=dict)
    """Per switch: every InfiniBand port number's front-panel name."""

    @property
    def switches(self) -> list[IbNode]:
        """The fabric's switches, in design order."""
        return [n for n in self.nodes.values() if n.is_switch]

    @property
    def cas(self) -> list[IbNode]:
        """The fabric's HCA ports (single-port CAs), in design order."""
        return [n for n in self.nodes.values() if not n.is_switch]

    @property
    def roots(self) -> list[IbNode]:
        """The top tier: switches of the highest rank (OpenSM's root GUIDs)."""
        switches = self.switches
        if not switches:
            return []
        top = max(n.rank for n in switches)
        return [n for n in switches if n.rank == top]

    def node_by_id(self) -> dict[str, IbNode]:
        """Nodes by their name in the file (``S-...``, ``H-...``)."""
        return {n.node_id: n for n in self.nodes.values()}


def _guid(prefix: int, fabric: str, desc: str, taken: set[int]) -> int:
    """A deterministic placeholder GUID (even, so a CA's port 1 is GUID + 1)."""
    salt = 0
    while True:
        text = f"{fabric}\0{desc}\0{salt}".encode()
        h = int.from_bytes(hashlib.sha1(text).digest()[:5], "big") & _MASK40
        guid = prefix | (h & ~1)
        if guid not in taken and guid + 1 not in taken:
            taken.update((guid, guid + 1))
            return guid
        salt += 1


def _ib_ports(entry: CatalogEntry) -> list[tuple[Interface, str]]:
    """The entry's InfiniBand-capable ports with their groups, in group order."""
    return [
        (g, p)
        for g in entry.interfaces
        if g.supports_media(Media.INFINIBAND)
        for p in g.ports
    ]


class _Numbering:
    """Port numbers and HCA names of the devices of one design."""

    def __init__(self, entries: Mapping[str, CatalogEntry | None]) -> None:
        self._entries = entries
        self._index: dict[str, dict[str, int]] = {}
        self._fallback: dict[str, dict[str, str]] = {}
        self.split: dict[str, int] = defaultdict(lambda: 1)

    def _positions(self, device: str) -> dict[str, int]:
        got = self._index.get(device)
        if got is None:
            entry = self._entries.get(device)
            numbered = ib_ports(entry) if entry is not None else {}
            if numbered:  # the catalog's numbering (designer.catalog.ib)
                got = {p: n - 1 for p, n in numbered.items()}
            else:  # none in the catalog: ports in order (assumed)
                ports = _ib_ports(entry) if entry is not None else []
                got = {p: i for i, (_, p) in enumerate(ports)}
            self._index[device] = got
        return got

    def switch_table(self, device: str) -> dict[int, str]:
        """Every port number of a switch with its front-panel name (or lane)."""
        s = self.split[device]
        out: dict[int, str] = {}
        for name, i in self._positions(device).items():
            for k in range(1, s + 1):
                out[i * s + k] = name if s == 1 else f"{name}:{k}"
        return out

    def switch_ports(self, device: str) -> int:
        """The number of ports the switch reports (lanes when split)."""
        return len(self._positions(device)) * self.split[device]

    def switch_port(self, device: str, port_name: str) -> int | None:
        """InfiniBand port number of front-panel port (or lane) ``port_name``."""
        base, _, lane = port_name.partition(":")
        i = self._positions(device).get(base)
        if i is None:
            return None
        s = self.split[device]
        return i * s + (int(lane) if lane.isdigit() else 1)

    def hca_name(self, device: str, port_name: str) -> str:
        """The RDMA device of a host's port: the catalog's, else ``mlx5_<k>``."""
        entry = self._entries.get(device)
        base = port_name.partition(":")[0]
        if entry is not None:
            named = entry.hca_name(base)
            if named is not None:
                return named
        table = self._fallback.get(device)
        if table is None:
            table = self._fallback[device] = {}
            if entry is not None:
                by_tray: dict[int | None, list[str]] = defaultdict(list)
                for _, p in _ib_ports(entry):
                    by_tray[entry.tray_of_port(p)].append(p)
                for ports in by_tray.values():
                    used = {entry.hca_name(p) for p in ports} - {None}
                    k = 0
                    for p in ports:
                        if entry.hca_name(p) is not None:
                            continue
                        while f"mlx5_{k}" in used:
                            k += 1
                        table[p] = f"mlx5_{k}"
                        k += 1
        return table.get(base, "mlx5_0")


def ib_fabrics(design: Design, catalog: Catalog | None = None) -> list[IbFabric]:
    """The design's InfiniBand fabrics (compute first), from the cabling plan.

    A cable is on an InfiniBand fabric when both ends' port groups share
    InfiniBand (:func:`designer.catalog.schema.common_media`). A cable the
    plan gives no port (the port group is full) is left out and listed in
    ``skipped`` with the plan's note.
    """
    from designer.catalog.hosts import DesignHosts
    from designer.catalog.schema import common_media
    from designer.io.export.cabling import cabling_rows

    cat = resolve_catalog(catalog)
    devices = design.device_map()
    entries: dict[str, CatalogEntry | None] = {
        d.id: cat.get(d.catalog_id) for d in design.devices
    }
    hosts = DesignHosts(design, cat)
    numbering = _Numbering(entries)
    rows = []
    for row in cabling_rows(design, cat):
        r = _cable(row)
        ea, eb = entries.get(r.a), entries.get(r.b)
        if ea is None or eb is None:
            continue
        ia, ib = ea.interface(r.a_group), eb.interface(r.b_group)
        if ia is None or ib is None or common_media(ia, ib) is not Media.INFINIBAND:
            continue
        rows.append((r, ea, eb, ia, ib))
        for dev, entry, iface, port in (
            (r.a, ea, ia, r.a_port),
            (r.b, eb, ib, r.b_port),
        ):
            if entry.category is Category.SWITCH and ":" in port:
                numbering.split[dev] = max(numbering.split[dev], iface.split(r.speed))

    fabrics: dict[str, IbFabric] = {}
    taken: set[int] = set()

    def place(dev: str) -> tuple[str, int | None]:
        p = devices[dev].placement
        return (p.rack or "", p.u) if p is not None else ("", None)

    def node_for(
        dev: str, entry: CatalogEntry, port: str, host: str, fab: IbFabric
    ) -> tuple[IbNode, int] | None:
        rack, u = place(dev)
        if entry.category is Category.SWITCH:
            number = numbering.switch_port(dev, port)
            if number is None:
                return None
            node = fab.nodes.get(dev)
            if node is None:
                guid = _guid(_SWITCH_PREFIX, fab.name, dev, taken)
                fab.port_names[dev] = numbering.switch_table(dev)
                node = fab.nodes[dev] = IbNode(
                    desc=dev,
                    kind="Switch",
                    guid=guid,
                    ports=numbering.switch_ports(dev),
                    device=dev,
                    role="switch",
                    rack=rack,
                    u=u,
                )
            return node, number
        hostname = host or hosts.device_name(dev) or dev
        hca = numbering.hca_name(dev, port)
        desc = f"{hostname} {hca}"[:_MAX_NAME]
        node = fab.nodes.get(desc)
        if node is None:
            role = "compute" if entry.category is Category.COMPUTE else "io"
            guid = _guid(_CA_PREFIX, fab.name, desc, taken)
            node = fab.nodes[desc] = IbNode(
                desc=desc,
                kind="Ca",
                guid=guid,
                ports=1,
                device=dev,
                role=role,
                host=hostname,
                hca=hca,
                port_name=port.partition(":")[0],
                rack=rack,
                u=u,
            )
        return node, 1

    component = _components(rows, entries)
    for (r, ea, eb, ia, ib), fabric in zip(rows, component, strict=True):
        fab = fabrics.get(fabric)
        if fab is None:
            fab = fabrics[fabric] = IbFabric(fabric)
        if not r.a_port or not r.b_port:
            fab.skipped.append(f"cable {r.cable} ({r.link}): {r.note or 'no port'}")
            continue
        na = node_for(r.a, ea, r.a_port, r.a_host, fab)
        nb = node_for(r.b, eb, r.b_port, r.b_host, fab)
        if na is None or nb is None:
            fab.skipped.append(f"cable {r.cable} ({r.link}): a port is not InfiniBand")
            continue
        width, speed = link_rate(r.speed, ia.speed_gbps, ib.speed_gbps)
        ends = []
        for (node, number), dev, port in ((na, r.a, r.a_port), (nb, r.b, r.b_port)):
            ends.append(IbEnd(node.desc, number, dev, port, node.rack, node.u))
        fab.links.append(IbLink(ends[0], ends[1], width, speed, r.link, r.cable))
    ordered = sorted(fabrics.values(), key=lambda f: (f.name != "compute", f.name))
    for fab in ordered:
        _rank(fab)
    return ordered


@dataclass(frozen=True, slots=True)
class _Cable:
    """The cabling plan's fields of one cable that the topology needs."""

    cable: int
    link: str
    a: str
    a_host: str
    a_group: str
    a_port: str
    b: str
    b_host: str
    b_group: str
    b_port: str
    speed: int
    fabric: str
    note: str


@lru_cache(maxsize=1)
def _columns() -> dict[str, int]:
    from designer.io.export.cabling import CABLING_COLUMNS

    return {name: i for i, name in enumerate(CABLING_COLUMNS)}


_COLUMN_OF = {
    "cable": "cable",
    "link": "link",
    "a": "from_device",
    "a_host": "from_host",
    "a_group": "from_port_group",
    "a_port": "from_port",
    "b": "to_device",
    "b_host": "to_host",
    "b_group": "to_port_group",
    "b_port": "to_port",
    "speed": "speed_gbps",
    "fabric": "fabric",
    "note": "note",
}


def _cable(row: tuple[Any, ...]) -> _Cable:
    """A cabling-plan row by column name (the plan may gain columns)."""
    col = _columns()
    got = {k: row[col[c]] for k, c in _COLUMN_OF.items()}
    return _Cable(
        cable=int(got["cable"]),
        link=str(got["link"]),
        speed=int(got["speed"]),
        **{k: str(v) for k, v in got.items() if k not in ("cable", "link", "speed")},
    )


def _components(
    rows: list[tuple[_Cable, Any, Any, Any, Any]],
    entries: Mapping[str, CatalogEntry | None],
) -> list[str]:
    """Each cable's InfiniBand subnet, named by the fabrics of its cables.

    Cables of the design's ``compute`` and ``storage`` fabrics that meet on a
    switch form one subnet (``compute+storage``): one OpenSM routes it, one
    ``ibnetdiscover`` sees it. Hosts join the subnets of their switches; a
    host's ports on two subnets stay two CAs, one on each.
    """
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def key(dev: str, fabric: str) -> str:
        entry = entries.get(dev)
        is_switch = entry is not None and entry.category is Category.SWITCH
        return dev if is_switch else f"{dev}\0{fabric}"

    for r, *_ in rows:
        a, b = find(key(r.a, r.fabric)), find(key(r.b, r.fabric))
        if a != b:
            parent[a] = b
    labels: dict[str, list[str]] = defaultdict(list)
    for r, *_ in rows:
        root = find(key(r.a, r.fabric))
        if r.fabric not in labels[root]:
            labels[root].append(r.fabric)
    order = {"compute": 0, "storage": 1}
    names: dict[str, str] = {}
    used: set[str] = set()
    for root, fabs in labels.items():
        base = "+".join(sorted(fabs, key=lambda f: (order.get(f, 9), f)))
        name, k = base, 2
        while name in used:
            name, k = f"{base}-{k}", k + 1
        used.add(name)
        names[root] = name
    return [names[find(key(r.a, r.fabric))] for r, *_ in rows]


def _rank(fab: IbFabric) -> None:
    """Give every switch its tier: 0 where compute hosts are cabled, +1 per hop."""
    adj: dict[str, set[str]] = defaultdict(set)
    for link in fab.links:
        adj[link.a.node].add(link.b.node)
        adj[link.b.node].add(link.a.node)
    rank: dict[str, int] = {}
    queue: deque[str] = deque()
    # OpenSM's ftree places I/O nodes (storage, UFM) anywhere; the leaves are
    # where the compute hosts are cabled (any host when there is none)
    leaf_role = "compute" if any(n.role == "compute" for n in fab.cas) else "io"
    for n in fab.nodes.values():
        if n.is_switch and any(fab.nodes[m].role == leaf_role for m in adj[n.desc]):
            rank[n.desc] = 0
            queue.append(n.desc)
    while queue:
        cur = queue.popleft()
        for m in adj[cur]:
            if fab.nodes[m].is_switch and m not in rank:
                rank[m] = rank[cur] + 1
                queue.append(m)
    for desc, r in rank.items():
        node = fab.nodes[desc]
        fab.nodes[desc] = replace(node, rank=r)


def some_ib_fabrics(design: Design, catalog: Catalog | None = None) -> list[IbFabric]:
    """:func:`ib_fabrics`, or ValueError when the design has none (what the
    InfiniBand exports refuse with)."""
    fabrics = ib_fabrics(design, catalog)
    if not fabrics:
        raise ValueError(
            "the design has no InfiniBand cable (no link whose two ends share "
            "InfiniBand)"
        )
    return fabrics
