"""The racks of an open design and what they hold, kept up to date edit by edit.

What the editor's rack elevation and floor plan read. :class:`PhysicalView`
answers the same questions for one design state, but it is built from the
whole analysis index (at 100,000 GPUs about a third of a second with every
rack's view); :class:`LiveRacks` is built once and then follows the
document's events (:mod:`designer.core.events`), touching only the devices
and racks an edit names:

- a device moved to another rack or U (``DevicesChanged`` with
  ``placement``), relabelled or given another catalog entry: its old and new
  rack;
- devices added or removed: their racks;
- racks moved, rows moved, facility edited (``PhysicalChanged``): the rack
  geometry is read again (one pass over the racks, no device), the racks the
  event names are reported; a rack added or removed, or the block replaced,
  reads everything again, as a new design does;
- canvas moves (``x``, ``y``) and link edits change no rack.

Every answer equals :class:`PhysicalView`'s on the same state (a property
test checks it on random edit sequences): the rack views are the same
:class:`RackView` objects, the geometry comes from the same
:func:`designer.analysis.lengths.physical_index`, and a drop is judged by the
same rule, :func:`designer.physical.views.fit_problem`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from math import ceil
from typing import Any

import numpy as np

from designer.analysis.index import build_index
from designer.analysis.lengths import PhysicalIndex, physical_index, rack_cooling
from designer.catalog.loader import Catalog
from designer.catalog.schema import DeviceCooling
from designer.core.events import (
    DesignReplaced,
    DevicesAdded,
    DevicesChanged,
    DevicesRemoved,
    Event,
    GroupsChanged,
    LinksAdded,
    LinksChanged,
    LinksRemoved,
    PhysicalChanged,
    Reads,
    SettingsChanged,
    WorkloadChanged,
    each,
    ignore,
)
from designer.core.link_arrays import LinkArrays
from designer.core.links import LinkTable
from designer.core.model import Design, Device, Placement
from designer.core.names import device_name
from designer.core.physical import Cooling, RackType
from designer.core.physical_commands import PlaceDevices
from designer.physical.views import (
    DeviceSlot,
    HallView,
    RackView,
    RowView,
    fit_problem,
    hall_views,
    rack_view,
    row_view,
)

_RACK_FIELDS = frozenset({"placement", "catalog_id", "label"})
"""Device fields a rack view shows (position, height and power, name)."""
_LENGTH_FIELDS = frozenset({"placement", "catalog_id"})
"""Device fields cable lengths depend on."""


@dataclass(frozen=True, slots=True)
class RackChanges:
    """What one or more edits changed for the rack views."""

    racks: frozenset[str] = frozenset()
    """Racks whose devices, kW, limits or place changed."""
    moved: frozenset[str] = frozenset()
    """Racks whose footprint moved or changed (another slot, row or type)."""
    layout: bool = False
    """Rows, halls or rack types changed: redraw the whole floor."""
    cables: bool = False
    """Cable lengths may have changed (longest cables are stale)."""
    reset: bool = False
    """Everything was read again (another design, the block replaced)."""

    def __bool__(self) -> bool:
        return (
            bool(self.racks)
            or bool(self.moved)
            or self.layout
            or self.cables
            or self.reset
        )

    def __or__(self, other: RackChanges) -> RackChanges:
        return RackChanges(
            self.racks | other.racks,
            self.moved | other.moved,
            self.layout or other.layout,
            self.cables or other.cables,
            self.reset or other.reset,
        )


@dataclass(frozen=True, slots=True)
class RackTile:
    """What the floor plan draws of one rack: its footprint and load."""

    id: str
    label: str
    row: str
    x_m: float
    y_m: float
    width_m: float
    depth_m: float
    kw: float
    max_kw: float
    cooling: Cooling
    cooling_kw: float

    @property
    def limit_kw(self) -> float:
        """The lower of the power feeds and what its cooling class removes."""
        return min(self.max_kw, self.cooling_kw)


@dataclass(frozen=True, slots=True)
class _Facts:
    height: int
    power_w: float
    liquid: bool
    category: str
    cooling: DeviceCooling
    airflow: str | None
    model: str | None = None


@dataclass
class _State:
    """Device-side state, keyed by id (rows shift on add/remove; ids do not)."""

    catalog_of: dict[str, str] = field(default_factory=dict)
    """Catalog entry of every device of the design."""
    devices: dict[str, Device] = field(default_factory=dict)
    """Devices that stand in a rack of the design."""
    members: dict[str, dict[str, None]] = field(default_factory=dict)
    """Devices of each rack (insertion-ordered set)."""
    kw: dict[str, float] = field(default_factory=dict)


class LiveRacks:
    """The rack state of a design, following its document (see module doc)."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.phys: PhysicalIndex | None = None
        """Rack geometry (only the rack arrays are read: the device arrays are
        those of the last full read)."""
        self._pos: dict[str, int] = {}
        self._s = _State()
        self._facts: dict[str, _Facts] = {}
        self._views: dict[str, RackView] = {}
        self._order: dict[str, int] | None = None
        self._rows: list[RowView] | None = None
        self._design: Design | None = None
        self._step = RackChanges()
        self.reads = self._reads_table()

    # -- following the document -------------------------------------------------

    @property
    def placed(self) -> bool:
        """The design has a physical block."""
        return self.phys is not None

    def reset(self, design: Design) -> RackChanges:
        """Read the whole design (a new design, or the block replaced)."""
        self._design = design
        self._views.clear()
        self._order = None
        self._s = _State()
        self._read_geometry(design)
        s = self._s
        for d in design.devices:
            s.catalog_of[d.id] = d.catalog_id
        if self.phys is not None:
            s.members = {r: {} for r in self.phys.rack_ids}
            for d in design.devices:
                rack = self._rack_of_device(d)
                if rack is not None:
                    s.devices[d.id] = d
                    s.members[rack][d.id] = None
            for r in self.phys.rack_ids:
                self._sum_kw(r)
        racks = frozenset(self.phys.rack_ids) if self.phys is not None else frozenset()
        return RackChanges(racks, racks, layout=True, cables=True, reset=True)

    def apply(self, design: Design, events: Sequence[Event]) -> RackChanges:
        """Follow one step's events (call right after the step, in order)."""
        if design is not self._design:
            return self.reset(design)
        self._step = RackChanges()
        self.reads(events)
        return self._step

    def _reads_table(self) -> Reads:
        """What each kind of event does to the racks. Once a step has read the
        whole design again (a new design, the block replaced), its later events
        are in what was read."""

        def step(change: Callable[[Any], RackChanges]) -> Callable[[Event], None]:
            def handler(event: Event) -> None:
                if not self._step.reset:
                    self._step |= change(event)

            return handler

        def cables(_event: Event) -> RackChanges:
            return RackChanges(cables=True) if self.phys is not None else RackChanges()

        def replaced(_event: Event) -> RackChanges:
            assert self._design is not None
            return self.reset(self._design)

        def physical(e: PhysicalChanged) -> RackChanges:
            assert self._design is not None
            return self._physical_changed(self._design, e)

        return Reads(
            "LiveRacks",
            {
                DesignReplaced: step(replaced),
                PhysicalChanged: step(physical),
                DevicesChanged: step(self._devices_changed),
                DevicesAdded: step(lambda e: self._devices_added(e.devices)),
                DevicesRemoved: step(lambda e: self._devices_removed(e.ids)),
                **each((LinksAdded, LinksRemoved, LinksChanged), step(cables)),
                # the racks read neither groups, settings nor the workload
                **each((GroupsChanged, SettingsChanged, WorkloadChanged), ignore),
            },
        )

    def _read_geometry(self, design: Design) -> None:
        if design.physical is None:
            self.phys = None
            self._pos = {}
            self._rows = None
            return
        # the racks' geometry needs neither devices nor links: index the block
        # alone (the same physical_index, in one pass over the racks)
        racks_only = Design.model_construct(
            settings=design.settings,
            groups=[],
            devices=[],
            links=LinkTable(),
            physical=design.physical,
            workload=None,
        )
        index = build_index(racks_only, self.catalog, links=LinkArrays.empty())
        self.phys = physical_index(index)
        assert self.phys is not None
        self._pos = {r: i for i, r in enumerate(self.phys.rack_ids)}
        self._rows = None

    def _physical_changed(self, design: Design, e: PhysicalChanged) -> RackChanges:
        old = self.phys.rack_ids if self.phys is not None else None
        if "block" in e.parts or design.physical is None or old is None:
            return self.reset(design)
        if [r.id for r in design.physical.racks] != old:
            return self.reset(design)  # racks added or removed
        self._read_geometry(design)
        named = frozenset(e.racks) & set(self._pos)
        if e.parts & {"facility", "rack_types", "halls"}:
            named = frozenset(self._pos)  # limits or places of every rack
        for r in named:
            self._views.pop(r, None)
        layout = bool(e.parts & {"rows", "halls", "rack_types"})
        moved = named if e.parts & {"racks", "rows", "halls", "rack_types"} else None
        return RackChanges(named, moved or frozenset(), layout=layout, cables=True)

    def _devices_changed(self, e: DevicesChanged) -> RackChanges:
        if not (e.fields & _RACK_FIELDS) or not e.devices:
            return RackChanges()
        touched: set[str] = set()
        for d in e.devices:
            self._s.catalog_of[d.id] = d.catalog_id
            touched |= self._unplace(d.id)
            touched |= self._put(d)
        self._settle(touched)
        cables = bool(e.fields & _LENGTH_FIELDS) and self.phys is not None
        return RackChanges(frozenset(touched), cables=cables)

    def _devices_added(self, devices: Iterable[Device]) -> RackChanges:
        self._order = None
        touched: set[str] = set()
        for d in devices:
            self._s.catalog_of[d.id] = d.catalog_id
            touched |= self._put(d)
        self._settle(touched)
        return RackChanges(frozenset(touched), cables=self.phys is not None)

    def _devices_removed(self, ids: Iterable[str]) -> RackChanges:
        self._order = None
        touched: set[str] = set()
        for i in ids:
            self._s.catalog_of.pop(i, None)
            touched |= self._unplace(i)
        self._settle(touched)
        return RackChanges(frozenset(touched), cables=self.phys is not None)

    def _rack_of_device(self, d: Device) -> str | None:
        p = d.placement
        if p is None or p.rack is None or p.rack not in self._pos:
            return None
        return p.rack

    def _put(self, d: Device) -> set[str]:
        rack = self._rack_of_device(d)
        if rack is None:
            return set()
        self._s.devices[d.id] = d
        self._s.members[rack][d.id] = None
        return {rack}

    def _unplace(self, device_id: str) -> set[str]:
        old = self._s.devices.pop(device_id, None)
        if old is None:
            return set()
        rack = self._rack_of_device(old)
        assert rack is not None  # only racked devices are kept
        self._s.members[rack].pop(device_id, None)
        return {rack}

    def _settle(self, racks: Iterable[str]) -> None:
        for r in racks:
            self._sum_kw(r)
            self._views.pop(r, None)

    def _sum_kw(self, rack: str) -> None:
        s = self._s
        # watts summed in device order, then kW, as the analysis does
        members = sorted(s.members[rack], key=self._device_order)
        watts = [self._facts_of(s.catalog_of[d]).power_w for d in members]
        s.kw[rack] = float(sum(watts)) / 1000.0

    def _device_order(self, device_id: str) -> int:
        if self._order is None:
            assert self._design is not None
            self._order = {d.id: i for i, d in enumerate(self._design.devices)}
        return self._order.get(device_id, len(self._order))

    def _facts_of(self, catalog_id: str) -> _Facts:
        got = self._facts.get(catalog_id)
        if got is None:
            entry = self.catalog.get(catalog_id)
            u_height = entry.u_height if entry is not None else 0.0
            got = self._facts[catalog_id] = _Facts(
                # rounded up, at least 1U, as designer.analysis.lengths does
                height=max(ceil(u_height - 1e-9), 1),
                power_w=float(entry.ext.max_power_w) if entry is not None else 0.0,
                liquid=entry is not None and entry.ext.cooling is DeviceCooling.LIQUID,
                category=entry.category.value if entry is not None else "unknown",
                cooling=entry.ext.cooling if entry is not None else DeviceCooling.AIR,
                airflow=entry.airflow if entry is not None else None,
                model=entry.model if entry is not None else None,
            )
        return got

    # -- reading ------------------------------------------------------------------

    @property
    def rack_ids(self) -> list[str]:
        """Every rack, in the order of the physical block."""
        return list(self.phys.rack_ids) if self.phys is not None else []

    def has_rack(self, rack_id: str) -> bool:
        """The rack is in the design."""
        return rack_id in self._pos

    def rack_of(self, device_id: str) -> str | None:
        """The rack a device stands in (None: none)."""
        d = self._s.devices.get(device_id)
        return self._rack_of_device(d) if d is not None else None

    def rack_type(self, rack_id: str) -> RackType:
        """The type of a rack (its U, footprint, feeds and their source)."""
        assert self.phys is not None
        kind = self.phys.rack_type[self._pos[rack_id]]
        return self.phys.physical.rack_type_map()[kind]

    def device(self, device_id: str) -> Device | None:
        """The device, when it stands in a rack of the design."""
        return self._s.devices.get(device_id)

    def kw(self, rack_id: str) -> float:
        """IT load of a rack (device maximum power), kW."""
        return self._s.kw[rack_id]

    def rack(self, rack_id: str) -> RackView:
        """One rack, U by U, as :meth:`PhysicalView.rack` gives it."""
        got = self._views.get(rack_id)
        if got is None:
            if rack_id not in self._pos:
                raise KeyError(f"no rack {rack_id!r} in the design")
            got = self._views[rack_id] = self._build(rack_id)
        return got

    def _build(self, rack_id: str) -> RackView:
        phys = self.phys
        assert phys is not None
        r = self._pos[rack_id]
        s = self._s
        members = sorted(s.members[rack_id], key=self._device_order)
        slots: list[DeviceSlot] = []
        loose: list[str] = []
        for did in members:
            d = s.devices[did]
            u = d.placement.u if d.placement is not None else None
            if not u:
                loose.append(did)
                continue
            f = self._facts_of(d.catalog_id)
            slots.append(
                DeviceSlot(
                    device=did,
                    label=device_name(d.label, did, f.model),
                    catalog_id=d.catalog_id,
                    category=f.category,
                    u=u,
                    height=f.height,
                    kw=f.power_w / 1000,
                    cooling=f.cooling,
                    airflow=f.airflow,
                )
            )
        slots.sort(key=lambda x: x.u)
        return rack_view(phys, r, s.kw[rack_id], slots, loose)

    def tile(self, rack_id: str) -> RackTile:
        """What the floor plan draws of one rack."""
        phys = self.phys
        r = self._pos.get(rack_id)
        if phys is None or r is None:
            raise KeyError(f"no rack {rack_id!r} in the design")
        rack = phys.physical.racks[r]
        return RackTile(
            id=rack.id,
            label=rack.label or rack.id,
            row=rack.row,
            x_m=float(phys.x[r]),
            y_m=float(phys.y[r]),
            width_m=float(phys.width[r]),
            depth_m=float(phys.depth[r]),
            kw=self._s.kw[rack_id],
            max_kw=float(phys.max_kw[r]),
            cooling=rack_cooling(phys, r),
            cooling_kw=float(phys.cool_kw[r]),
        )

    def tiles(self) -> list[RackTile]:
        """Every rack's tile, in the order of the physical block."""
        return [self.tile(r) for r in self.rack_ids]

    def rows(self) -> list[RowView]:
        """Rows in site metres with their racks left to right (as
        :meth:`PhysicalView.floor` gives them)."""
        phys = self.phys
        if phys is None:
            return []
        if self._rows is not None:
            return list(self._rows)
        p = phys.physical
        halls = {h.id: h for h in p.halls}
        out = []
        for k, row in enumerate(p.rows):
            at = np.flatnonzero(phys.rack_row == k)
            at = at[np.argsort(phys.x[at], kind="stable")]
            end = float((phys.x[at] + phys.width[at]).max()) if len(at) else 0.0
            racks = tuple(phys.rack_ids[i] for i in at.tolist())
            out.append(row_view(row, halls[row.hall], end, racks))
        self._rows = out
        return list(out)

    def halls(self) -> list[HallView]:
        """Halls with their IT load against their budget."""
        phys = self.phys
        if phys is None:
            return []
        kw = np.array([self._s.kw[r] for r in phys.rack_ids], dtype=np.float64)
        return hall_views(phys.physical, phys.rack_hall, kw)

    def max_kw(self) -> float:
        """The highest rack load (0 without racks)."""
        return max(self._s.kw.values(), default=0.0)

    # -- edits ----------------------------------------------------------------------

    def height(self, device_id: str) -> int:
        """Rack units a device takes (KeyError naming it when unknown)."""
        cat = self._s.catalog_of.get(device_id)
        if cat is None:
            raise KeyError(f"no device {device_id!r} in the design")
        return self._facts_of(cat).height

    def can_place(self, device_id: str, rack_id: str, u: int) -> str | None:
        """None when the device fits at ``u`` of the rack, else why not (the
        rule of :func:`~designer.physical.views.fit_problem`)."""
        h = self.height(device_id)
        if rack_id not in self._pos:
            return f"no rack {rack_id!r} in the design"
        liquid = self._facts_of(self._s.catalog_of[device_id]).liquid
        return fit_problem(self.rack(rack_id), device_id, h, liquid, u)

    def place_command(self, device_id: str, rack_id: str, u: int) -> PlaceDevices:
        """The undoable step that puts a device at ``u`` of a rack (ValueError
        with the reason when it does not fit).

        The command gets the heights of the device and of the rack's other
        devices, so its own check (:class:`PlaceDevices`) sees their full
        height as well.
        """
        why = self.can_place(device_id, rack_id, u)
        if why is not None:
            raise ValueError(why)
        heights = {s.device: float(s.height) for s in self.rack(rack_id).devices}
        heights[device_id] = float(self.height(device_id))
        old = self.rack_of(device_id)
        if old is not None and old != rack_id:
            label = f"Move {device_id} to {rack_id} U{u}"
        else:
            label = f"Move {device_id} to U{u}"
        return PlaceDevices(
            {device_id: Placement(rack=rack_id, u=u)}, heights=heights, label=label
        )


__all__ = ["LiveRacks", "RackChanges", "RackTile"]
