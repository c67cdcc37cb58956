"""Columnar view of a design for the analysis: numpy arrays per device and per link.

:func:`build_index` does all the string work once (ids -> ints, port names ->
codes, catalog look-ups); everything after it runs on arrays, so the GUI worker
and the benchmark can keep the index between edits of settings and re-analyse
in milliseconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from designer.catalog.loader import Catalog
from designer.catalog.schema import CatalogEntry, Category, Interface
from designer.core.model import Design, Device, Fabric, Tier

if TYPE_CHECKING:
    from designer.analysis.ends import EndTable

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

KIND_UNKNOWN = -1
KIND_COMPUTE = 0
KIND_SWITCH = 1
KIND_STORAGE = 2
KIND_MANAGEMENT = 3
_KIND = {
    Category.COMPUTE: KIND_COMPUTE,
    Category.SWITCH: KIND_SWITCH,
    Category.STORAGE: KIND_STORAGE,
    Category.MANAGEMENT: KIND_MANAGEMENT,
}
FABRICS: tuple[Fabric, ...] = (
    Fabric.COMPUTE,
    Fabric.STORAGE,
    Fabric.INBAND,
    Fabric.OOB,
)
FABRIC_CODE = {f: i for i, f in enumerate(FABRICS)}
TIER_RANK = {Tier.LEAF: 1, Tier.SPINE: 2, Tier.CORE: 3}


@dataclass(frozen=True)
class PortKey:
    """One (catalog entry, port group) pair known to the index."""

    catalog_id: str
    port: str
    interface: Interface | None


@dataclass
class DesignIndex:
    """Arrays describing one design; built by :func:`build_index`."""

    catalog: Catalog
    device_ids: list[str]
    catalog_ids: list[str]
    entries: list[CatalogEntry | None]
    dev_catalog: IntArray
    kind: IntArray
    gpus: IntArray
    nvlink_domain: IntArray
    power_w: FloatArray
    u_height: FloatArray
    declared_rank: IntArray
    group: IntArray
    rack: IntArray
    rack_names: list[str]
    compute_ports: IntArray
    compute_native: IntArray
    has_port_override: BoolArray
    device_ports: list[dict[str, int] | None]
    link_ids: list[str]
    a: IntArray
    b: IntArray
    a_port: IntArray
    b_port: IntArray
    cables: IntArray
    speed: IntArray
    cap: IntArray
    fabric: IntArray
    rail: IntArray
    port_names: list[str]
    port_keys: dict[tuple[int, int], PortKey]
    endpoint_order: dict[str, IntArray] = field(default_factory=dict)
    device_ids_arr: npt.NDArray[Any] = field(default_factory=lambda: np.zeros(0))
    link_ids_arr: npt.NDArray[Any] = field(default_factory=lambda: np.zeros(0))
    _ends: Any = None
    _ends_patch: Any = None  # () -> EndTable | None: derive from an older table

    @property
    def ends(self) -> EndTable:
        """Link ends joined with the catalog (built on first use, then kept).

        A patched index leaves it to the first reader, the analysis worker, so
        the GUI thread never pays for it; two racing readers compute the same.
        """
        if self._ends is None:
            from designer.analysis.ends import end_table

            patched = self._ends_patch() if self._ends_patch is not None else None
            self._ends = patched if patched is not None else end_table(self)
            self._ends_patch = None  # let the older table go
        return self._ends  # type: ignore[no-any-return]

    @property
    def n_devices(self) -> int:
        """Number of devices."""
        return len(self.device_ids)

    @property
    def n_links(self) -> int:
        """Number of links (rows of the link table)."""
        return len(self.link_ids)

    def interface(self, device: int, port: int) -> Interface | None:
        """Catalog port group ``port`` of device ``device`` (None when unknown)."""
        key = self.port_keys.get((int(self.dev_catalog[device]), port))
        return key.interface if key else None


def _compute_ports(
    entry: CatalogEntry, ports: dict[str, int] | None
) -> tuple[int, int]:
    """(effective compute port count, native speed) of a compute entry."""
    iface = entry.interface("compute")
    if iface is None:
        return 0, 0
    count = iface.count
    if entry.ext.configurable and ports and "compute" in ports:
        count = ports["compute"]
    return count, iface.speed_gbps


def _group_paths(design: Design) -> dict[str, tuple[int, ...]]:
    """Root-to-group chain of group positions, for ordering endpoints."""
    pos = {g.id: i for i, g in enumerate(design.groups)}
    parent = {g.id: g.parent for g in design.groups}
    out: dict[str, tuple[int, ...]] = {}
    for gid in pos:
        chain: list[int] = []
        cur: str | None = gid
        seen: set[str] = set()
        while cur is not None and cur not in seen:
            seen.add(cur)
            chain.append(pos[cur])
            cur = parent.get(cur)
        out[gid] = tuple(reversed(chain))
    return out


def device_columns(
    devices: Sequence[Device],
    catalog: Catalog,
    cat_pos: dict[str, int],
    catalog_ids: list[str],
    entries: list[CatalogEntry | None],
    group_pos: dict[str, int],
    rack_pos: dict[str, int],
) -> dict[str, Any]:
    """Per-device index columns; new catalog ids and racks are appended to the maps."""
    n = len(devices)
    dev_catalog = np.empty(n, dtype=np.int64)
    kind = np.full(n, KIND_UNKNOWN, dtype=np.int64)
    gpus = np.zeros(n, dtype=np.int64)
    nvl = np.zeros(n, dtype=np.int64)
    power = np.zeros(n)
    uh = np.zeros(n)
    rank = np.zeros(n, dtype=np.int64)
    group = np.full(n, -1, dtype=np.int64)
    rack = np.full(n, -1, dtype=np.int64)
    cports = np.zeros(n, dtype=np.int64)
    cnative = np.zeros(n, dtype=np.int64)
    override = np.zeros(n, dtype=np.bool_)
    for i, d in enumerate(devices):
        c = cat_pos.get(d.catalog_id)
        if c is None:
            c = cat_pos[d.catalog_id] = len(catalog_ids)
            catalog_ids.append(d.catalog_id)
            entries.append(catalog.get(d.catalog_id))
        dev_catalog[i] = c
        entry = entries[c]
        if entry is not None:
            kind[i] = _KIND[entry.category]
            if entry.ext.gpu is not None:
                gpus[i] = entry.ext.gpu.count
                nvl[i] = entry.ext.gpu.nvlink_domain
            power[i] = entry.ext.max_power_w
            uh[i] = entry.u_height
            if entry.category is Category.COMPUTE:
                cports[i], cnative[i] = _compute_ports(entry, d.ports)
        if d.tier is not None:
            rank[i] = TIER_RANK[d.tier]
        if d.group is not None:
            group[i] = group_pos[d.group]
        if d.placement is not None and d.placement.rack:
            r = rack_pos.setdefault(d.placement.rack, len(rack_pos))
            rack[i] = r
        override[i] = bool(d.ports)
    return {
        "dev_catalog": dev_catalog,
        "kind": kind,
        "gpus": gpus,
        "nvlink_domain": nvl,
        "power_w": power,
        "u_height": uh,
        "declared_rank": rank,
        "group": group,
        "rack": rack,
        "compute_ports": cports,
        "compute_native": cnative,
        "has_port_override": override,
    }


def build_index(design: Design, catalog: Catalog | None = None) -> DesignIndex:
    """Turn a design into arrays (devices, links, port groups) for the analysis."""
    if catalog is None:
        from designer.catalog.loader import default_catalog

        catalog = default_catalog()
    devices = design.devices
    dmap = {d.id: i for i, d in enumerate(devices)}
    cat_pos: dict[str, int] = {}
    catalog_ids: list[str] = []
    entries: list[CatalogEntry | None] = []
    group_pos = {g.id: i for i, g in enumerate(design.groups)}
    rack_pos: dict[str, int] = {}
    cols = device_columns(
        devices, catalog, cat_pos, catalog_ids, entries, group_pos, rack_pos
    )
    dev_catalog = cols["dev_catalog"]

    t = design.links
    link_ids = list(t.id)  # a copy: the design keeps editing its own list
    m = len(link_ids)
    a = np.fromiter((dmap[x] for x in t.a), dtype=np.int64, count=m)
    b = np.fromiter((dmap[x] for x in t.b), dtype=np.int64, count=m)
    pmap: dict[str, int] = {}
    for p in set(t.a_port).union(t.b_port):
        pmap[p] = len(pmap)
    port_names = [""] * len(pmap)
    for p, i in pmap.items():
        port_names[i] = p
    a_port = np.fromiter((pmap[p] for p in t.a_port), dtype=np.int64, count=m)
    b_port = np.fromiter((pmap[p] for p in t.b_port), dtype=np.int64, count=m)
    cables = np.fromiter(t.cables, dtype=np.int64, count=m)
    speed = np.fromiter(t.speed_gbps, dtype=np.int64, count=m)
    fmap = {f: i for f, i in FABRIC_CODE.items()}
    fabric = np.fromiter((fmap[f] for f in t.fabric), dtype=np.int64, count=m)
    rail = np.fromiter(
        (-1 if r is None else r for r in t.rail), dtype=np.int64, count=m
    )

    port_keys: dict[tuple[int, int], PortKey] = {}
    if m:
        for end_dev, end_port in ((a, a_port), (b, b_port)):
            combo = np.unique(dev_catalog[end_dev] * max(len(pmap), 1) + end_port)
            for key in combo.tolist():
                ci, pi = divmod(int(key), max(len(pmap), 1))
                if (ci, pi) not in port_keys:
                    entry = entries[ci]
                    iface = entry.interface(port_names[pi]) if entry else None
                    port_keys[(ci, pi)] = PortKey(
                        catalog_ids[ci], port_names[pi], iface
                    )

    idx = DesignIndex(
        catalog=catalog,
        device_ids=[d.id for d in devices],
        catalog_ids=catalog_ids,
        entries=entries,
        rack_names=list(rack_pos),
        **cols,
        device_ports=[d.ports for d in devices],
        link_ids=link_ids,
        a=a,
        b=b,
        a_port=a_port,
        b_port=b_port,
        cables=cables,
        speed=speed,
        cap=cables * speed,
        fabric=fabric,
        rail=rail,
        port_names=port_names,
        port_keys=port_keys,
    )
    idx.endpoint_order = _endpoint_orders(design, idx)
    idx.device_ids_arr = np.asarray(idx.device_ids, dtype=object)
    idx.link_ids_arr = np.asarray(link_ids, dtype=object)
    from designer.analysis.ends import end_table

    idx._ends = end_table(idx)
    return idx


def _endpoint_orders(design: Design, idx: DesignIndex) -> dict[str, IntArray]:
    """Orders of the compute nodes used as candidate bisection halves."""
    comp = np.flatnonzero(idx.kind == KIND_COMPUTE)
    orders: dict[str, IntArray] = {"device order": comp}
    if design.groups:
        # sort by (root-to-group path, position): rank the groups by path once
        paths = _group_paths(design)
        groups = design.groups
        by_path = sorted(range(len(groups)), key=lambda g: paths[groups[g].id])
        rank = np.empty(len(groups) + 1, dtype=np.int64)
        rank[by_path] = np.arange(len(groups))
        rank[-1] = len(groups)  # ungrouped (-1) after every group
        keyed = comp[np.lexsort((comp, rank[idx.group[comp]]))]
        orders["group hierarchy (pods, SUs)"] = keyed.astype(np.int64)
    return orders
