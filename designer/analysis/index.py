"""Columnar view of a design for the analysis: numpy arrays per device and per link.

:func:`build_index` derives it from the design on demand: the links are already
integer-coded arrays in the design's column store
(:class:`~designer.core.links.LinkTable`), and the devices' catalog facts are
gathered once per catalog entry, so a 100,000-GPU design is indexed in a few
milliseconds and nothing needs to be patched between edits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import attrgetter, is_
from typing import Any

import numpy as np
import numpy.typing as npt

from designer.catalog.loader import Catalog
from designer.catalog.schema import CatalogEntry, Category, Interface
from designer.core.model import Design, Device, LinkArrays, Placement, Tier
from designer.core.physical import Physical

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
TIER_RANK = {t: t.rank for t in Tier}


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
    link_ids: npt.NDArray[Any]
    """Link ids by position (an object array: indexing gives the str)."""
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
    links: LinkArrays = field(default_factory=LinkArrays.empty)
    """The state of the design's link table this index shows."""
    endpoint_order: dict[str, IntArray] = field(default_factory=dict)
    device_ids_arr: npt.NDArray[Any] = field(default_factory=lambda: np.zeros(0))
    link_ids_arr: npt.NDArray[Any] = field(default_factory=lambda: np.zeros(0))
    row_of_name: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    """Per device name code of the link state (``links.names``), plus one: the
    device's row (-1: not a device of this index); the links' ends go through it."""
    _ends: Any = None
    """The end table, once :func:`designer.analysis.ends.ends_of` built it."""
    physical: Physical | None = None
    """The design's racks, rows and halls (None: not placed)."""
    placements: list[Placement | None] = field(default_factory=list)
    """Each device's rack and U (None: not in a rack)."""
    _phys: Any = None
    """The racks as arrays, once :func:`designer.analysis.lengths.physical_of`
    built them; ``_media``: link lengths and media (``media_of``)."""
    _media: Any = None
    _cable_counts: dict[str, int] | None = None
    """Cables by class (``metrics.cable_class_counts``), once counted."""

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


def _catalog_facts(
    entries: Sequence[CatalogEntry | None],
) -> dict[str, np.ndarray]:
    """Per catalog entry: kind, GPUs, NVLink domain, power, U, compute ports."""
    k = len(entries)
    out = {
        "kind": np.full(k, KIND_UNKNOWN, dtype=np.int64),
        "gpus": np.zeros(k, dtype=np.int64),
        "nvlink_domain": np.zeros(k, dtype=np.int64),
        "power_w": np.zeros(k),
        "u_height": np.zeros(k),
        "compute_ports": np.zeros(k, dtype=np.int64),
        "compute_native": np.zeros(k, dtype=np.int64),
    }
    for c, entry in enumerate(entries):
        if entry is None:
            continue
        out["kind"][c] = _KIND[entry.category]
        if entry.ext.gpu is not None:
            out["gpus"][c] = entry.ext.gpu.count
            out["nvlink_domain"][c] = entry.ext.gpu.nvlink_domain
        out["power_w"][c] = entry.ext.max_power_w
        out["u_height"][c] = entry.u_height
        if entry.category is Category.COMPUTE:
            iface = entry.interface("compute")
            if iface is not None:
                out["compute_ports"][c] = iface.count
                out["compute_native"][c] = iface.speed_gbps
    return out


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
    devices: Sequence[Device], catalog: Catalog, design: Design
) -> dict[str, Any]:
    """Per-device index columns (catalog facts gathered per entry, not per device)."""
    # C-level iteration (map + attrgetter): ~20,000 devices at 100K GPUs
    n = len(devices)
    cat_of = list(map(attrgetter("catalog_id"), devices))
    catalog_ids = list(dict.fromkeys(cat_of))
    cat_pos = {c: i for i, c in enumerate(catalog_ids)}
    entries = [catalog.get(c) for c in catalog_ids]
    dev_catalog = np.fromiter(map(cat_pos.__getitem__, cat_of), np.int64, n)
    facts = _catalog_facts(entries)
    cols: dict[str, Any] = {k: v[dev_catalog] for k, v in facts.items()}
    rank_of: dict[Tier | None, int] = {t: r for t, r in TIER_RANK.items()}
    rank_of[None] = 0
    cols["declared_rank"] = np.fromiter(
        map(rank_of.__getitem__, map(attrgetter("tier"), devices)), np.int64, n
    )
    group_pos: dict[str | None, int] = {g.id: i for i, g in enumerate(design.groups)}
    group_pos[None] = -1
    cols["group"] = np.fromiter(
        map(group_pos.__getitem__, map(attrgetter("group"), devices)), np.int64, n
    )
    rack_pos: dict[str, int] = {}
    rack = np.full(n, -1, dtype=np.int64)
    placements = list(map(attrgetter("placement"), devices))
    if any(placements):
        for i, p in enumerate(placements):
            if p is not None and p.rack:
                rack[i] = rack_pos.setdefault(p.rack, len(rack_pos))
    cols["rack"] = rack
    cols["placements"] = placements
    device_ports = list(map(attrgetter("ports"), devices))
    override = np.fromiter(map(bool, device_ports), np.bool_, n)
    for i in np.flatnonzero(override).tolist():
        entry = entries[dev_catalog[i]]
        ports = device_ports[i]
        if (
            entry is not None
            and entry.category is Category.COMPUTE
            and entry.ext.configurable
            and ports
            and "compute" in ports
        ):
            cols["compute_ports"][i] = ports["compute"]
    cols.update(
        dev_catalog=dev_catalog,
        has_port_override=override,
        catalog_ids=catalog_ids,
        entries=entries,
        rack_names=list(rack_pos),
        device_ports=device_ports,
    )
    return cols


def build_index(
    design: Design,
    catalog: Catalog | None = None,
    *,
    links: LinkArrays | None = None,
    columns: tuple[list[str], dict[str, Any]] | None = None,
    name_code: dict[str, int] | None = None,
    endpoint_order: dict[str, IntArray] | None = None,
    row_of_name: IntArray | None = None,
    casts: Casts | None = None,
) -> DesignIndex:
    """The design as arrays (devices, links, port groups) for the analysis.

    Links come straight from the design's column store (already integer-coded),
    or from ``links``, a state of it taken earlier (the GUI's worker analyses
    such a snapshot while the editor goes on); only the devices' catalog facts
    are joined here, once per catalog entry. ``columns`` (device ids and
    :func:`device_columns`) and ``name_code`` (position of each of the link
    state's device names) may come from an earlier state of the same design
    (:mod:`designer.analysis.reuse`), and so may ``endpoint_order``, the
    candidate orders of the compute nodes, when the device columns and the
    groups are the very same, and ``row_of_name`` (:attr:`DesignIndex.row_of_name`)
    when the device ids and the link state's names are; ``casts`` keeps what
    the index derives from the link columns for the next state (:class:`Casts`).
    """
    if catalog is None:
        from designer.catalog.loader import default_catalog

        catalog = default_catalog()
    t = links if links is not None else design.links.arrays
    if columns is None:
        columns = (
            list(map(attrgetter("id"), design.devices)),
            device_columns(design.devices, catalog, design),
        )
    return _assemble(
        design, catalog, t, columns, name_code, endpoint_order, row_of_name, casts
    )


class Casts:
    """What an index derives from a link state's columns (the columns widened
    to int64, the ends' device rows, the port keys, the capacities), kept for
    the next state: a column an edit did not touch is the very same array in
    the next state (:func:`~designer.core.link_splice.replaced`), so what was
    derived from it is taken again rather than made. Kept results are made
    read-only (an index's arrays are never written)."""

    __slots__ = ("_kept",)

    def __init__(self) -> None:
        self._kept: dict[str, tuple[tuple[object, ...], Any]] = {}

    def get(
        self, name: str, inputs: tuple[object, ...], make: Callable[[], Any]
    ) -> Any:
        """``make()``, or what it gave for the very same ``inputs`` last time."""
        hit = self._kept.get(name)
        if hit is not None and all(map(is_, hit[0], inputs)):
            return hit[1]
        out = make()
        if isinstance(out, np.ndarray):
            out.flags.writeable = False
        self._kept[name] = (inputs, out)
        return out


def same_device_rows(old: DesignIndex, new: DesignIndex) -> bool:
    """The devices the earlier index's link codes name are in the same rows in
    ``new`` (:attr:`DesignIndex.row_of_name` equal for the earlier names;
    codes only grow), so an unchanged link row has the same end rows."""
    return same_rows_of_names(old.row_of_name, new.row_of_name)


def same_rows_of_names(old: IntArray, new: IntArray) -> bool:
    """:func:`same_device_rows` of two :attr:`DesignIndex.row_of_name`
    arrays (the last entry of each is the sentinel of a name not coded)."""
    return old is new or (
        len(new) >= len(old) and bool(np.array_equal(old[:-1], new[: len(old) - 1]))
    )


def _rows_of_names(
    t: LinkArrays, device_ids: list[str], name_code: dict[str, int] | None
) -> IntArray:
    """:attr:`DesignIndex.row_of_name` of a link state and a device list."""
    code = (
        name_code
        if name_code is not None
        else dict(zip(t.names, range(len(t.names)), strict=True))
    )
    pos_of_code = np.full(len(t.names) + 1, -1, dtype=np.int64)
    dev_codes = np.fromiter(
        map(code.get, device_ids, repeat(len(t.names))), np.int64, len(device_ids)
    )
    pos_of_code[dev_codes] = np.arange(len(device_ids))
    pos_of_code[-1] = -1
    return pos_of_code


def _assemble(
    design: Design,
    catalog: Catalog,
    t: LinkArrays,
    columns: tuple[list[str], dict[str, Any]],
    name_code: dict[str, int] | None,
    endpoint_order: dict[str, IntArray] | None = None,
    row_of_name: IntArray | None = None,
    casts: Casts | None = None,
) -> DesignIndex:
    """The index of devices already joined with the catalog and a link state."""
    device_ids, cols = columns
    dev_catalog = cols["dev_catalog"]
    m = len(t)
    pos_of_code = (
        _rows_of_names(t, device_ids, name_code) if row_of_name is None else row_of_name
    )
    kept = casts if casts is not None else Casts()
    a = kept.get("a", (t.a, pos_of_code), lambda: pos_of_code[t.a])
    b = kept.get("b", (t.b, pos_of_code), lambda: pos_of_code[t.b])
    if m and (a.min() < 0 or b.min() < 0):
        raise ValueError("a link names a device that is not in the design")
    port_names = list(t.port_names)

    def wide(name: str) -> IntArray:
        column = getattr(t, name)
        out: IntArray = kept.get(name, (column,), lambda: column.astype(np.int64))
        return out

    a_port, b_port = wide("a_port"), wide("b_port")
    cables, speed = wide("cables"), wide("speed")

    def keys() -> dict[tuple[int, int], PortKey]:
        out: dict[tuple[int, int], PortKey] = {}
        if not m:
            return out
        size = len(cols["catalog_ids"]) * n_ports
        seen = np.bincount(dev_catalog[a] * n_ports + a_port, minlength=size)
        seen += np.bincount(dev_catalog[b] * n_ports + b_port, minlength=size)
        entries = cols["entries"]
        for key in np.flatnonzero(seen).tolist():
            ci, pi = divmod(key, n_ports)
            entry = entries[ci]
            iface = entry.interface(port_names[pi]) if entry else None
            out[(ci, pi)] = PortKey(cols["catalog_ids"][ci], port_names[pi], iface)
        return out

    n_ports = max(len(port_names), 1)
    port_keys: dict[tuple[int, int], PortKey] = kept.get(
        "port keys",
        (dev_catalog, a, b, a_port, b_port, cols["entries"], t.port_names),
        keys,
    )

    idx = DesignIndex(
        catalog=catalog,
        device_ids=device_ids,
        **cols,
        link_ids=t.ids,
        a=a,
        b=b,
        a_port=a_port,
        b_port=b_port,
        cables=cables,
        speed=speed,
        cap=kept.get("cap", (cables, speed), lambda: cables * speed),
        fabric=wide("fabric"),
        rail=wide("rail"),
        port_names=port_names,
        port_keys=port_keys,
    )
    idx.endpoint_order = (
        _endpoint_orders(design, idx) if endpoint_order is None else endpoint_order
    )
    idx.device_ids_arr = np.asarray(device_ids, dtype=object)
    idx.row_of_name = pos_of_code
    idx.link_ids_arr = t.ids
    idx.links = t
    idx.physical = design.physical
    return idx


PER_DEVICE_COLUMNS = (
    "kind",
    "gpus",
    "nvlink_domain",
    "power_w",
    "u_height",
    "compute_ports",
    "compute_native",
    "declared_rank",
    "group",
    "rack",
    "dev_catalog",
    "has_port_override",
)
"""The columns of :func:`device_columns` with one array entry per device."""

_DEVICE_COLUMNS = (
    *PER_DEVICE_COLUMNS,
    "placements",
    "device_ports",
    "catalog_ids",
    "entries",
    "rack_names",
)
"""The fields of :func:`device_columns` (what an index knows of its devices)."""


def with_links_at(
    index: DesignIndex,
    design: Design,
    positions: npt.ArrayLike,
    name_code: dict[str, int] | None = None,
) -> DesignIndex:
    """The index of the same devices with only the link rows at ``positions``
    (``design``: the design those rows belong to, devices as in ``index``).

    The devices' columns are the index's own, not joined with the catalog
    again: a variant of a state (a switch failed, links cut) costs a gather of
    link rows, not a new read of the design.
    """
    links = index.links
    sub = links.with_columns(**links.rows(positions))
    cols = {name: getattr(index, name) for name in _DEVICE_COLUMNS}
    rows = index.row_of_name if sub.names is links.names else None
    return _assemble(
        design,
        index.catalog,
        sub,
        (index.device_ids, cols),
        name_code,
        index.endpoint_order,
        rows,
    )


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
