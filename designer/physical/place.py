"""Auto-placement: any design into racks, rows and a data hall, as NVIDIA's RAs do.

The rules (physical.md §3; RA-H100, RA-B200, RA-GB200):

* Compute nodes stay with their scalable unit: a design group holds an SU
  (ungrouped nodes are cut into SUs of 32 servers or 8 rack-scale systems, in
  device order). Each SU is a row of compute racks: 4 DGX-class 8-GPU servers
  per rack by default (RA-H100: "exceeds 40 kW" per rack), other servers as
  many as U and power allow; a rack-scale system (NVL72) is its own
  liquid-cooled rack, 8 of them to an SU row (RA-GB200).
* Switches whose cables to compute nodes mostly reach one SU (its leaves, its
  out-of-band and in-band switches, storage leaves) go into network racks at
  the end of that SU's row.
* The other compute-fabric switches (spines, cores) go into network racks of
  their own: a row per pod after the pod's SU rows, the rest (two-tier spines,
  cores) in rows in the middle of the hall, so that the longest leaf-to-spine
  run stays short.
* Storage appliances and storage switches without an SU go into storage
  racks; management servers (head nodes, UFM) and the remaining switches into
  management racks; both in rows at the end.
* A rack never takes more U than it has or more power than
  ``min(rack type feeds, facility kW of the best cooling class allowed)``;
  each rack then gets the least cooling class that removes its load (liquid
  when it holds a liquid-cooled device).
* Rows stand in columns, filled column by column, so the hall comes out about
  square: rows 1.2 m deep with a 1.2 m aisle (2.4 m pitch), 2 m cross aisles
  between columns, 2 m margins (assumptions [E]).

:func:`place` re-places the whole design (previous placements and physical
block are replaced); devices it cannot rack (unknown catalog entry, taller
than every rack) stay unplaced and the analysis says so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from math import ceil, sqrt
from typing import TypeVar

import numpy as np
from pydantic import BaseModel

from designer.catalog.loader import Catalog
from designer.catalog.schema import CatalogEntry, Category, DeviceCooling
from designer.core.link_model import FABRIC_CODE, Fabric
from designer.core.model import Design, Device, Placement, placement_refs
from designer.core.physical import (
    COOLING_ORDER,
    SLOT_M,
    STANDARD_RACK_TYPES,
    Cooling,
    Facility,
    Hall,
    Physical,
    Rack,
    RackRole,
    RackType,
    Row,
    physical_problems,
    standard_rack_type,
)

PER_RACK_8GPU = 4
"""DGX-class 8-GPU servers per rack by default (RA-H100 example rack layout)."""

SU_SERVERS = 32
"""Servers per SU when the design has no SU groups (RA-H100, RA-B200)."""

SU_RACK_SCALE = 8
"""Rack-scale systems per SU (RA-GB200: 8 NVL72 racks)."""

ROW_PITCH_M = 2.4
"""Row depth (1.2 m racks) plus a 1.2 m aisle [E]."""

CROSS_AISLE_M = 2.0
"""Between columns of rows [E]."""

MARGIN_M = 2.0
"""Free floor around the rows of a hall [E]."""

HOME_SHARE = 0.5
"""A switch belongs to an SU when at least this share of its cables to compute
nodes reach that SU."""


class PlacementError(ValueError):
    """Bad placement options; the message says what is wrong."""


@dataclass(frozen=True)
class PlaceOptions:
    """How to place a design (every default follows the module doc)."""

    per_rack: int | None = None
    """Servers per compute rack (None: 4 for 8-GPU servers, else what fits)."""
    rack_type: str = "rack-48u"
    """Rack type of compute, storage and management racks."""
    network_rack_type: str = "rack-48u"
    """Rack type of network racks."""
    racks_per_row: int = 16
    """Longest row, in racks."""
    max_cooling: Cooling = Cooling.CONTAINMENT
    """Best cooling class an air-cooled rack may get (the site's limit)."""
    facility: Facility = field(default_factory=Facility)
    hall_budget_kw: float | None = None
    """IT power budget of the hall (None: unknown)."""

    def check(self) -> None:
        """Raise :class:`PlacementError` for options that cannot work."""
        for name in ("rack_type", "network_rack_type"):
            rid = getattr(self, name)
            try:
                kind = standard_rack_type(rid)
            except KeyError as exc:
                raise PlacementError(f"{name}: {exc.args[0]}") from None
            if kind.cooling is Cooling.LIQUID:
                raise PlacementError(
                    f"{name}: {rid!r} is a rack-scale (NVL72) rack type; choose one "
                    "of " + ", ".join(_AIR_TYPES)
                )
        if self.per_rack is not None and self.per_rack < 1:
            raise PlacementError(f"per_rack must be at least 1, got {self.per_rack}")
        if self.racks_per_row < 2:
            raise PlacementError(
                f"racks_per_row must be at least 2, got {self.racks_per_row}"
            )
        if self.max_cooling is Cooling.LIQUID:
            raise PlacementError(
                "max_cooling is the best class for air-cooled racks: air or "
                "containment (liquid racks are for liquid-cooled systems)"
            )


_AIR_TYPES = tuple(t.id for t in STANDARD_RACK_TYPES if t.cooling is not Cooling.LIQUID)
_LIQUID_TYPES = sorted(
    (t for t in STANDARD_RACK_TYPES if t.cooling is Cooling.LIQUID),
    key=lambda t: t.max_kw,
)


@dataclass
class _Rack:
    """A rack being filled."""

    id: str
    type: RackType
    role: RackRole
    group: str | None
    devices: list[tuple[int, int]] = field(default_factory=list)  # (device, U)
    used_u: int = 0
    kw: float = 0.0
    liquid: bool = False


@dataclass
class _RowSpec:
    racks: list[_Rack]
    label: str


@dataclass
class _Facts:
    """What the placement reads per device (from the catalog)."""

    entries: list[CatalogEntry | None]
    height: list[int]
    kw: list[float]


def _facts(design: Design, catalog: Mapping[str, CatalogEntry]) -> _Facts:
    entries = [catalog.get(d.catalog_id) for d in design.devices]
    height = [max(1, ceil(e.u_height - 1e-9)) if e else 0 for e in entries]
    kw = [e.ext.max_power_w / 1000 if e else 0.0 for e in entries]
    return _Facts(entries, height, kw)


def _rack_scale(entry: CatalogEntry) -> bool:
    """A system that is a whole rack (NVL72): liquid-cooled or taller than 40U."""
    return entry.ext.cooling is DeviceCooling.LIQUID or entry.u_height >= 40


class _Ids:
    def __init__(self) -> None:
        self.used: set[str] = set()

    def take(self, base: str) -> str:
        out, n = base, 2
        while out in self.used:
            out, n = f"{base}-{n}", n + 1
        self.used.add(out)
        return out


def _blocks(design: Design, facts: _Facts) -> tuple[list[str], list[list[int]]]:
    """SU blocks: (name, compute device positions), in device order."""
    named: dict[str, list[int]] = {}
    loose: list[int] = []
    for i, d in enumerate(design.devices):
        e = facts.entries[i]
        if e is None or e.category is not Category.COMPUTE:
            continue
        if d.group is not None:
            named.setdefault(d.group, []).append(i)
        else:
            loose.append(i)
    names = list(named)
    blocks = [named[n] for n in names]
    if loose:
        scale = [facts.entries[i] for i in loose]
        size = (
            SU_RACK_SCALE
            if all(e is not None and _rack_scale(e) for e in scale)
            else SU_SERVERS
        )
        for k in range(0, len(loose), size):
            names.append(f"su{len(names) + 1:02d}")
            blocks.append(loose[k : k + size])
    return names, blocks


def _homes(design: Design, blocks: list[list[int]]) -> np.ndarray:
    """SU block of each non-compute device whose compute cables mostly reach it."""
    n = len(design.devices)
    block = np.full(n, -1, dtype=np.int64)
    for k, members in enumerate(blocks):
        block[members] = k
    home = np.full(n, -1, dtype=np.int64)
    if not blocks or not len(design.links):
        return home
    t = design.links.arrays
    pos = {d.id: i for i, d in enumerate(design.devices)}
    code = np.fromiter((pos.get(x, -1) for x in t.names), np.int64, len(t.names))
    a, b = code[t.a], code[t.b]
    cables = t.cables.astype(np.float64)
    nb = len(blocks)
    keys: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    for x, y in ((a, b), (b, a)):
        sel = (block[x] < 0) & (block[y] >= 0)
        keys.append(x[sel] * nb + block[y[sel]])
        weights.append(cables[sel])
    key = np.concatenate(keys)
    if not len(key):
        return home
    uniq, inv = np.unique(key, return_inverse=True)
    per = np.bincount(inv, weights=np.concatenate(weights))
    dev, blk = np.divmod(uniq, nb)
    total = np.bincount(dev, weights=per, minlength=n)
    # the block with the most cables per device: sort by (device, cables)
    order = np.lexsort((per, dev))
    last = np.ones(len(order), dtype=np.bool_)
    last[:-1] = dev[order][1:] != dev[order][:-1]
    top = order[last]
    ok = per[top] >= HOME_SHARE * total[dev[top]] - 1e-9
    home[dev[top][ok]] = blk[top][ok]
    return home


def _fabric_share(design: Design) -> np.ndarray:
    """Cables per device and fabric (rows: devices; columns: FABRICS order)."""
    n = len(design.devices)
    t = design.links.arrays
    pos = {d.id: i for i, d in enumerate(design.devices)}
    code = np.fromiter((pos.get(x, -1) for x in t.names), np.int64, len(t.names))
    fabric = t.fabric.astype(np.int64)
    out = np.zeros(n * 4)
    for end in (code[t.a], code[t.b]):
        out += np.bincount(end * 4 + fabric, weights=t.cables, minlength=n * 4)
    return out.reshape(n, 4)


def _pack(
    devices: Sequence[int],
    facts: _Facts,
    kind: RackType,
    limit_kw: float,
    new_rack: Callable[[], _Rack],
    per_rack: int | None = None,
) -> list[_Rack]:
    """Fill racks in order; a device that fits in no rack of ``kind`` is skipped."""
    racks: list[_Rack] = []
    cur: _Rack | None = None
    for i in devices:
        h, kw = facts.height[i], facts.kw[i]
        if h > kind.u:
            continue
        fits = (
            cur is not None
            and cur.used_u + h <= kind.u
            and cur.kw + kw <= limit_kw + 1e-9
            and (per_rack is None or len(cur.devices) < per_rack)
        )
        if not fits:
            cur = new_rack()
            racks.append(cur)
        assert cur is not None
        cur.devices.append((i, cur.used_u + 1))
        cur.used_u += h
        cur.kw += kw
    return racks


def place(
    design: Design,
    catalog: Catalog | Mapping[str, CatalogEntry] | None = None,
    options: PlaceOptions | None = None,
) -> Design:
    """The design placed into racks, rows and one data hall (see module doc)."""
    if catalog is None:
        from designer.catalog.loader import default_catalog

        catalog = default_catalog()
    opts = options or PlaceOptions()
    opts.check()
    facts = _facts(design, catalog)
    base = standard_rack_type(opts.rack_type)
    net = standard_rack_type(opts.network_rack_type)
    limit = min(base.max_kw, opts.facility.kw_for(opts.max_cooling))
    net_limit = min(net.max_kw, opts.facility.kw_for(opts.max_cooling))
    ids = _Ids()
    names, blocks = _blocks(design, facts)
    home = _homes(design, blocks)
    fabric = _fabric_share(design)

    def maker(
        prefix: str, kind: RackType, role: RackRole, group: str | None
    ) -> Callable[[], _Rack]:
        count = [0]

        def make() -> _Rack:
            count[0] += 1
            rid = ids.take(f"{prefix}{count[0]:02d}")
            return _Rack(rid, kind, role, group)

        return make

    group_ids = {g.id for g in design.groups}
    network_homes: dict[int, list[int]] = {}
    spines: dict[str | None, list[int]] = {}
    storage: list[int] = []
    management: list[int] = []
    compute_done: set[int] = set()
    for b in blocks:
        compute_done.update(b)
    for i, d in enumerate(design.devices):
        e = facts.entries[i]
        if e is None or i in compute_done:
            continue
        if home[i] >= 0 and e.category is Category.SWITCH:
            network_homes.setdefault(int(home[i]), []).append(i)
        elif e.category is Category.STORAGE:
            storage.append(i)
        elif e.category is Category.MANAGEMENT:
            management.append(i)
        elif e.category is Category.SWITCH:
            share = fabric[i]
            compute = share[FABRIC_CODE[Fabric.COMPUTE]]
            if share[FABRIC_CODE[Fabric.STORAGE]] > compute:
                storage.append(i)
            elif compute > 0 and compute >= share.max():
                spines.setdefault(d.group, []).append(i)
            else:
                management.append(i)
        else:
            management.append(i)
    pod_of: dict[str, str | None] = {}
    parents = {g.id: g.parent for g in design.groups}
    for name in names:
        pod_of[name] = parents.get(name)
    su_rows: list[tuple[str | None, list[_RowSpec]]] = []
    for bi, (name, members) in enumerate(zip(names, blocks, strict=True)):
        group = name if name in group_ids else None
        racks = _compute_racks(members, facts, opts, base, limit, ids, group, name)
        network = _pack(
            network_homes.get(bi, []),
            facts,
            net,
            net_limit,
            maker(f"{name}-n", net, RackRole.NETWORK, group),
        )
        per_row = max(1, opts.racks_per_row - len(network))
        specs = [
            _RowSpec(racks[k : k + per_row], f"{name} row {k // per_row + 1}")
            for k in range(0, max(len(racks), 1), per_row)
        ]
        specs[0].racks.extend(network)
        if len(specs) == 1:
            specs[0].label = name
        su_rows.append((pod_of.get(name), specs))
    # spines of a pod follow the pod's SU rows; the rest go in the middle
    middle: list[_RowSpec] = []
    by_pod: dict[str, list[_RowSpec]] = {}
    for group, members in spines.items():
        prefix = f"{group}-s" if group else "spine-"
        racks = _pack(
            members,
            facts,
            net,
            net_limit,
            maker(prefix, net, RackRole.NETWORK, group if group in group_ids else None),
        )
        label = f"{group} spines" if group else "spines and cores"
        chunks = _rows_of(racks, opts.racks_per_row, label)
        if group is not None and group in set(pod_of.values()):
            by_pod.setdefault(group, []).extend(chunks)
        else:
            middle.extend(chunks)
    ordered: list[_RowSpec] = []
    seen_pods: list[str | None] = []
    for pod, _ in su_rows:
        if pod not in seen_pods:
            seen_pods.append(pod)
    for pod in seen_pods:
        for p2, specs in su_rows:
            if p2 == pod:
                ordered.extend(specs)
        if pod is not None:
            ordered.extend(by_pod.pop(pod, []))
    for rest in by_pod.values():
        middle.extend(rest)
    half = len(ordered) // 2
    ordered = ordered[:half] + middle + ordered[half:]
    services = _pack(
        storage, facts, base, limit, maker("stor-", base, RackRole.STORAGE, None)
    ) + _pack(
        management, facts, base, limit, maker("mgmt-", base, RackRole.MANAGEMENT, None)
    )
    ordered += _rows_of(services, opts.racks_per_row, "storage and management")
    ordered = [r for r in ordered if r.racks]
    return _build(design, facts, ordered, opts)


def _rows_of(racks: list[_Rack], per_row: int, label: str) -> list[_RowSpec]:
    return [
        _RowSpec(racks[k : k + per_row], label) for k in range(0, len(racks), per_row)
    ]


def _compute_racks(
    members: list[int],
    facts: _Facts,
    opts: PlaceOptions,
    base: RackType,
    limit: float,
    ids: _Ids,
    group: str | None,
    name: str,
) -> list[_Rack]:
    """Compute racks of one SU: rack-scale systems alone, servers packed."""
    racks: list[_Rack] = []
    servers: list[int] = []
    count = 0
    for i in members:
        e = facts.entries[i]
        assert e is not None
        if _rack_scale(e):
            kind = _liquid_type(facts.kw[i], facts.height[i])
            count += 1
            r = _Rack(ids.take(f"{name}-c{count:02d}"), kind, RackRole.COMPUTE, group)
            r.devices.append((i, 1))
            r.used_u, r.kw = facts.height[i], facts.kw[i]
            r.liquid = e.ext.cooling is DeviceCooling.LIQUID
            racks.append(r)
        else:
            servers.append(i)
    if servers:
        per = opts.per_rack
        if per is None and all(
            (e := facts.entries[i]) is not None and e.gpus == 8 for i in servers
        ):
            per = PER_RACK_8GPU
        n = [count]

        def make() -> _Rack:
            n[0] += 1
            return _Rack(ids.take(f"{name}-c{n[0]:02d}"), base, RackRole.COMPUTE, group)

        racks += _pack(servers, facts, base, limit, make, per)
    return racks


def _liquid_type(kw: float, height: int) -> RackType:
    """The smallest rack-scale rack type that holds the system (else the largest)."""
    for t in _LIQUID_TYPES:
        if t.max_kw >= kw - 1e-9 and t.u >= height:
            return t
    return _LIQUID_TYPES[-1]


def _cooling(rack: _Rack, facility: Facility, best: Cooling) -> Cooling:
    """The least cooling class that removes the rack's load (liquid if it must)."""
    if rack.liquid or rack.type.cooling is Cooling.LIQUID:
        return Cooling.LIQUID
    for c in COOLING_ORDER[: COOLING_ORDER.index(best) + 1]:
        if rack.kw <= facility.kw_for(c) + 1e-9:
            return c
    return best


M = TypeVar("M", bound=BaseModel)


def _fast(cls: type[M], values: dict[str, object], fields: set[str] | None = None) -> M:
    """A model instance from values already checked (what ``model_construct``
    does, without its per-field default handling: 20,000 devices per place)."""
    out = cls.__new__(cls)
    object.__setattr__(out, "__dict__", values)
    object.__setattr__(out, "__pydantic_fields_set__", fields or set(values))
    object.__setattr__(out, "__pydantic_extra__", None)
    object.__setattr__(out, "__pydantic_private__", None)
    return out


def _build(
    design: Design, facts: _Facts, rows: list[_RowSpec], opts: PlaceOptions
) -> Design:
    """The placed design: physical block from the row specs, devices at their U."""
    hall_id = "hall-1"
    lengths = [sum(r.type.slots for r in spec.racks) * SLOT_M for spec in rows]
    longest = max(lengths, default=SLOT_M)
    n = max(len(rows), 1)
    cols = max(1, round(sqrt(n * ROW_PITCH_M / (longest + CROSS_AISLE_M))))
    per_col = ceil(n / cols)
    cols = ceil(n / per_col)
    out_rows: list[Row] = []
    out_racks: list[Rack] = []
    placement: dict[int, Placement] = {}
    used_types: dict[str, RackType] = {}
    for k, spec in enumerate(rows):
        col, at = divmod(k, per_col)
        row_id = f"row-{k + 1:03d}"
        out_rows.append(
            Row(
                id=row_id,
                label=spec.label,
                hall=hall_id,
                x_m=round(MARGIN_M + col * (longest + CROSS_AISLE_M), 3),
                y_m=round(MARGIN_M + at * ROW_PITCH_M, 3),
            )
        )
        slot = 0
        for rack in spec.racks:
            used_types[rack.type.id] = rack.type
            out_racks.append(
                Rack(
                    id=rack.id,
                    type=rack.type.id,
                    row=row_id,
                    slot=slot,
                    cooling=_cooling(rack, opts.facility, opts.max_cooling),
                    role=rack.role,
                    group=rack.group,
                )
            )
            slot += rack.type.slots
            for i, u in rack.devices:
                placement[i] = _fast(Placement, {"row": None, "rack": rack.id, "u": u})
    width = 2 * MARGIN_M + cols * longest + (cols - 1) * CROSS_AISLE_M
    depth = 2 * MARGIN_M + (per_col - 1) * ROW_PITCH_M + 1.2
    hall = Hall(
        id=hall_id,
        label="Data hall",
        width_m=round(width, 2),
        depth_m=round(depth, 2),
        power_budget_kw=opts.hall_budget_kw,
    )
    physical = Physical(
        facility=opts.facility,
        rack_types=[t for t in STANDARD_RACK_TYPES if t.id in used_types],
        halls=[hall],
        rows=out_rows,
        racks=out_racks,
    )
    devices: list[Device] = []
    for i, d in enumerate(design.devices):
        p = placement.get(i)
        if p is None and d.placement is None:
            devices.append(d)
        else:
            fields = d.model_fields_set | {"placement"}
            devices.append(_fast(Device, {**d.__dict__, "placement": p}, fields))
    problems = physical_problems(
        physical, placement_refs(devices), (g.id for g in design.groups)
    )
    if problems:  # pragma: no cover - the rows and racks above are consistent
        raise AssertionError(f"placement built an invalid block: {problems[:3]}")
    # the rest of the design is unchanged and was valid: no full re-validation
    return Design.model_construct(
        schema_version=design.schema_version,
        settings=design.settings,
        workload=design.workload,
        physical=physical,
        groups=list(design.groups),
        devices=devices,
        links=design.links.copy(),
    )


__all__ = ["PlaceOptions", "PlacementError", "place"]
