"""What the rack elevation and the floor plan read: a pure, Qt-free API.

:class:`PhysicalView` is built once per design state (from the analysis index,
so it reads the same numbers as the report) and answers:

- :meth:`PhysicalView.rack` / :meth:`PhysicalView.racks`: a rack's front view
  U by U (:class:`RackView`: the devices at their U with height, kW, cooling
  and airflow; free ranges; kW against its power feeds and cooling class);
- :meth:`PhysicalView.floor`: halls, rows and racks in site coordinates
  (metres), each rack with its kW and cooling class (:class:`FloorPlan`);
- :meth:`PhysicalView.longest_cables`: the longest cables of some devices,
  with their medium and a routed path to draw (:class:`CableRun`);
- :meth:`PhysicalView.can_place`, :meth:`PhysicalView.free_positions`,
  :meth:`PhysicalView.place_command`, :meth:`PhysicalView.move_rack_command`:
  whether a drop is allowed, where, and the undoable command that does it
  (:mod:`designer.core.physical_commands`).

Coordinates: x along the rows, y across them, z up from the floor, metres;
a rack's ``x_m``/``y_m`` is its front-left corner. U 1 is the bottom unit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from designer.analysis.index import DesignIndex, FloatArray, IntArray, build_index
from designer.analysis.lengths import PhysicalIndex, media_of, physical_of, rack_cooling
from designer.catalog.loader import Catalog
from designer.catalog.optics import MEDIA, Medium
from designer.catalog.schema import DeviceCooling
from designer.core.model import Design, Placement
from designer.core.names import device_name
from designer.core.physical import (
    RACK_UNIT_M,
    SLOT_M,
    Cooling,
    Hall,
    Physical,
    RackRole,
    Row,
)
from designer.core.physical_commands import EditRacks, PlaceDevices


@dataclass(frozen=True, slots=True)
class DeviceSlot:
    """One device in a rack: where, how tall, what it draws and how it is cooled."""

    device: str
    label: str
    catalog_id: str
    category: str
    u: int
    """Lowest U (1 = bottom)."""
    height: int
    """Rack units it takes."""
    kw: float
    cooling: DeviceCooling
    airflow: str | None

    @property
    def top(self) -> int:
        """Highest U it takes."""
        return self.u + self.height - 1


@dataclass(frozen=True, slots=True)
class RackView:
    """A rack for the elevation and the floor plan."""

    id: str
    label: str
    type: str
    u: int
    row: str
    hall: str
    x_m: float
    y_m: float
    width_m: float
    depth_m: float
    kw: float
    max_kw: float
    """What the rack type's power feeds deliver."""
    cooling: Cooling
    cooling_kw: float
    """What the facility removes from a rack of this cooling class."""
    role: RackRole
    group: str | None
    devices: tuple[DeviceSlot, ...]
    """Devices at a U, bottom first."""
    unracked: tuple[str, ...]
    """Devices in the rack without a U."""

    @property
    def free(self) -> list[tuple[int, int]]:
        """Free U ranges ``(lowest, highest)``, bottom first."""
        return _free_with(self, "")

    @property
    def over_power(self) -> bool:
        """The load is above the power feeds."""
        return self.kw > self.max_kw + 1e-9

    @property
    def over_cooling(self) -> bool:
        """The load is above what its cooling class removes."""
        return self.kw > self.cooling_kw + 1e-9


@dataclass(frozen=True, slots=True)
class RowView:
    """A row of racks: where it starts, how long it is, its racks in order."""

    id: str
    label: str
    hall: str
    x_m: float
    y_m: float
    length_m: float
    racks: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class HallView:
    """A data hall with its load against its budget."""

    id: str
    label: str
    x_m: float
    y_m: float
    width_m: float
    depth_m: float
    kw: float
    budget_kw: float | None


@dataclass(frozen=True, slots=True)
class FloorPlan:
    """Everything the floor plan draws, to scale."""

    halls: tuple[HallView, ...]
    rows: tuple[RowView, ...]
    racks: tuple[RackView, ...]
    max_rack_kw: float


@dataclass(frozen=True, slots=True)
class CableRun:
    """One link's cable run: length, medium and the path it takes."""

    link: str
    a: str
    b: str
    cables: int
    speed_gbps: int
    length_m: float
    medium: Medium | None
    """None: no length (an end outside every rack)."""
    too_long: bool
    path: tuple[tuple[float, float, float], ...]
    """(x, y, z) points from a's ports up to the tray, along it, down to b."""


def rack_view(
    phys: PhysicalIndex,
    r: int,
    kw: float,
    slots: Iterable[DeviceSlot],
    unracked: Iterable[str],
) -> RackView:
    """Rack ``r`` of the arrays as the views show it, with its load and devices
    (the pure view and the editor's live racks both build them here)."""
    rack = phys.physical.racks[r]
    return RackView(
        id=rack.id,
        label=rack.label or rack.id,
        type=rack.type,
        u=int(phys.rack_u[r]),
        row=rack.row,
        hall=phys.hall_ids[int(phys.rack_hall[r])],
        x_m=float(phys.x[r]),
        y_m=float(phys.y[r]),
        width_m=float(phys.width[r]),
        depth_m=float(phys.depth[r]),
        kw=kw,
        max_kw=float(phys.max_kw[r]),
        cooling=rack_cooling(phys, r),
        cooling_kw=float(phys.cool_kw[r]),
        role=rack.role,
        group=rack.group,
        devices=tuple(slots),
        unracked=tuple(unracked),
    )


def hall_views(
    physical: Physical, rack_hall: IntArray, rack_kw: FloatArray
) -> list[HallView]:
    """Every hall with the summed load of its racks (``rack_hall`` and
    ``rack_kw`` by rack index) against its budget."""
    hall_kw = np.bincount(rack_hall, weights=rack_kw, minlength=len(physical.halls))
    return [
        HallView(
            id=h.id,
            label=h.label or h.id,
            x_m=h.x_m,
            y_m=h.y_m,
            width_m=h.width_m,
            depth_m=h.depth_m,
            kw=float(hall_kw[k]),
            budget_kw=h.power_budget_kw,
        )
        for k, h in enumerate(physical.halls)
    ]


def row_view(row: Row, hall: Hall, end_m: float, racks: tuple[str, ...]) -> RowView:
    """A row in site metres, from its start in ``hall`` to ``end_m`` (the far
    edge of its last rack), with its racks left to right."""
    start = hall.x_m + row.x_m
    return RowView(
        id=row.id,
        label=row.label or row.id,
        hall=row.hall,
        x_m=start,
        y_m=hall.y_m + row.y_m,
        length_m=max(end_m - start, 0.0),
        racks=racks,
    )


class PhysicalView:
    """The physical layer of one design state (see module doc)."""

    def __init__(
        self,
        design: Design,
        catalog: Catalog | None = None,
        index: DesignIndex | None = None,
    ) -> None:
        self.design = design
        self.index = index if index is not None else build_index(design, catalog)
        phys = physical_of(self.index)
        if phys is None or media_of(self.index) is None:
            raise ValueError(
                "the design has no physical block (racks, rows, halls); place it "
                "first (cluster-designer place, designer.physical.place)"
            )
        self.phys: PhysicalIndex = phys
        self._rack_pos = {r: i for i, r in enumerate(phys.rack_ids)}
        self._dev_pos = {d: i for i, d in enumerate(self.index.device_ids)}
        self._racks: dict[int, RackView] = {}
        self._by_rack: dict[int, list[int]] | None = None

    # -- racks -------------------------------------------------------------------

    def _members(self) -> dict[int, list[int]]:
        if self._by_rack is None:
            out: dict[int, list[int]] = {}
            for i in np.flatnonzero(self.phys.rack_of >= 0).tolist():
                out.setdefault(int(self.phys.rack_of[i]), []).append(i)
            self._by_rack = out
        return self._by_rack

    def _slot(self, i: int) -> DeviceSlot:
        idx, phys = self.index, self.phys
        entry = idx.entries[int(idx.dev_catalog[i])]
        device = self.design.devices[i]
        return DeviceSlot(
            device=device.id,
            label=device_name(
                device.label, device.id, entry.model if entry is not None else None
            ),
            catalog_id=device.catalog_id,
            category=entry.category.value if entry is not None else "unknown",
            u=int(phys.u[i]),
            height=int(phys.height[i]),
            kw=float(idx.power_w[i]) / 1000,
            cooling=entry.ext.cooling if entry is not None else DeviceCooling.AIR,
            airflow=entry.airflow if entry is not None else None,
        )

    def rack(self, rack_id: str) -> RackView:
        """One rack, U by U (KeyError naming the rack when unknown)."""
        r = self._rack_pos.get(rack_id)
        if r is None:
            raise KeyError(f"no rack {rack_id!r} in the design")
        got = self._racks.get(r)
        if got is None:
            got = self._racks[r] = self._build(r)
        return got

    def _build(self, r: int) -> RackView:
        phys = self.phys
        members = self._members().get(r, [])
        slots = sorted(
            (self._slot(i) for i in members if phys.u[i] > 0), key=lambda s: s.u
        )
        loose = tuple(self.index.device_ids[i] for i in members if phys.u[i] == 0)
        return rack_view(phys, r, float(phys.kw[r]), slots, loose)

    def racks(self) -> list[RackView]:
        """Every rack, in the order of the physical block."""
        return [self.rack(r) for r in self.phys.rack_ids]

    def rack_of(self, device_id: str) -> str | None:
        """The rack a device stands in (None: none)."""
        i = self._dev_pos.get(device_id)
        if i is None or self.phys.rack_of[i] < 0:
            return None
        return self.phys.rack_ids[int(self.phys.rack_of[i])]

    def floor(self) -> FloorPlan:
        """Halls, rows and racks, to scale."""
        phys = self.phys
        p = phys.physical
        racks = tuple(self.racks())
        halls = tuple(hall_views(p, phys.rack_hall, phys.kw))
        in_row: dict[str, list[RackView]] = {}
        for rv in racks:
            in_row.setdefault(rv.row, []).append(rv)
        halls_by_id = {h.id: h for h in p.halls}
        rows = []
        for row in p.rows:
            members = sorted(in_row.get(row.id, []), key=lambda v: v.x_m)
            end = max((v.x_m + v.width_m for v in members), default=0.0)
            hall = halls_by_id[row.hall]
            rows.append(row_view(row, hall, end, tuple(v.id for v in members)))
        return FloorPlan(
            halls=halls,
            rows=tuple(rows),
            racks=racks,
            max_rack_kw=float(phys.kw.max()) if phys.n_racks else 0.0,
        )

    # -- cables ------------------------------------------------------------------

    def longest_cables(self, device_ids: Iterable[str], n: int = 10) -> list[CableRun]:
        """The ``n`` longest links touching these devices, longest first."""
        idx = self.index
        media = media_of(self.index)
        assert media is not None
        wanted = np.zeros(idx.n_devices, dtype=np.bool_)
        for d in device_ids:
            i = self._dev_pos.get(d)
            if i is not None:
                wanted[i] = True
        rows = np.flatnonzero(wanted[idx.a] | wanted[idx.b])
        if not len(rows):
            return []
        length = np.where(np.isnan(media.length_m[rows]), -1.0, media.length_m[rows])
        best = rows[np.argsort(-length, kind="stable")[:n]]
        return [self._run(int(i)) for i in best.tolist()]

    def _run(self, i: int) -> CableRun:
        idx = self.index
        media = media_of(idx)
        assert media is not None
        a, b = int(idx.a[i]), int(idx.b[i])
        length = float(media.length_m[i])
        code = int(media.medium[i])
        return CableRun(
            link=idx.link_ids[i],
            a=idx.device_ids[a],
            b=idx.device_ids[b],
            cables=int(idx.cables[i]),
            speed_gbps=int(idx.speed[i]),
            length_m=length,
            medium=MEDIA[code] if length == length else None,
            too_long=bool(media.too_long[i]),
            path=self._path(a, b) if length == length else (),
        )

    def _path(self, a: int, b: int) -> tuple[tuple[float, float, float], ...]:
        phys = self.phys
        ra, rb = int(phys.rack_of[a]), int(phys.rack_of[b])
        xa, ya = float(phys.centre_x[ra]), float(phys.centre_y[ra])
        xb, yb = float(phys.centre_x[rb]), float(phys.centre_y[rb])
        za, zb = float(phys.port_z[a]), float(phys.port_z[b])
        if ra == rb:
            return ((xa, ya, za), (xb, yb, zb))
        tray = phys.physical.facility.tray_m
        ta = float(phys.top[ra]) + tray
        tb = float(phys.top[rb]) + tray
        t = max(ta, tb)
        points = [(xa, ya, za), (xa, ya, t), (xb, ya, t), (xb, yb, t), (xb, yb, zb)]
        out = [points[0]]
        for pt in points[1:]:
            if pt != out[-1]:  # a run along one axis only has no corner there
                out.append(pt)
        return tuple(out)

    # -- edits -------------------------------------------------------------------

    def _height(self, device_id: str) -> int:
        i = self._dev_pos.get(device_id)
        if i is None:
            raise KeyError(f"no device {device_id!r} in the design")
        return int(self.phys.height[i])

    def can_place(self, device_id: str, rack_id: str, u: int) -> str | None:
        """None when the device fits at ``u`` of the rack, else why not."""
        h = self._height(device_id)
        if rack_id not in self._rack_pos:
            return f"no rack {rack_id!r} in the design"
        entry = self.index.entries[
            int(self.index.dev_catalog[self._dev_pos[device_id]])
        ]
        liquid = entry is not None and entry.ext.cooling is DeviceCooling.LIQUID
        return fit_problem(self.rack(rack_id), device_id, h, liquid, u)

    def free_positions(self, device_id: str, rack_id: str) -> list[int]:
        """Lowest U at which the device fits in the rack (bottom first)."""
        h = self._height(device_id)
        rack = self.rack(rack_id)
        return [
            u for lo, hi in _free_with(rack, device_id) for u in range(lo, hi - h + 2)
        ]

    def place_command(self, device_id: str, rack_id: str, u: int) -> PlaceDevices:
        """The undoable step that puts a device at ``u`` of a rack (ValueError
        with the reason when it does not fit)."""
        why = self.can_place(device_id, rack_id, u)
        if why is not None:
            raise ValueError(why)
        return PlaceDevices(
            {device_id: Placement(rack=rack_id, u=u)},
            heights={device_id: float(self._height(device_id))},
        )

    def move_rack_command(self, rack_id: str, row: str, slot: int) -> EditRacks:
        """The undoable step that moves a rack to a row's floor slot."""
        if rack_id not in self._rack_pos:
            raise KeyError(f"no rack {rack_id!r} in the design")
        return EditRacks({rack_id: {"row": row, "slot": slot}}, label=f"Move {rack_id}")

    def slot_at(self, row: str, x_m: float) -> int:
        """The floor slot of a row under site x (for a rack dropped there)."""
        for rv in self.floor().rows:
            if rv.id == row:
                return max(0, int((x_m - rv.x_m) // SLOT_M))
        raise KeyError(f"no row {row!r} in the design")


def fit_problem(
    rack: RackView, device_id: str, height: int, liquid: bool, u: int
) -> str | None:
    """None when a device ``height`` U tall (liquid-cooled or not) fits at ``u``
    of ``rack`` (the device itself does not count as in the way), else why not.

    The one rule for a drop in a rack: :meth:`PhysicalView.can_place` and the
    live rack state of the editor (:mod:`designer.physical.live`) both ask it.
    """
    h, rack_id = height, rack.id
    if u < 1 or u + h - 1 > rack.u:
        return (
            f"{device_id} takes {h}U: at U {u} it would stick out of "
            f"{rack_id} ({rack.u}U)"
        )
    for s in rack.devices:
        if s.device != device_id and s.u <= u + h - 1 and u <= s.top:
            return f"U {max(u, s.u)} of {rack_id} is taken by {s.device}"
    if liquid and rack.cooling is not Cooling.LIQUID:
        return f"{device_id} is liquid-cooled; {rack_id} has {rack.cooling} cooling"
    return None


def _free_with(rack: RackView, device_id: str) -> list[tuple[int, int]]:
    """Free U ranges of a rack as if ``device_id`` were not in it."""
    taken = np.zeros(rack.u + 2, dtype=np.bool_)
    for d in rack.devices:
        if d.device != device_id:
            taken[max(d.u, 1) : min(d.top, rack.u) + 1] = True
    out: list[tuple[int, int]] = []
    u = 1
    while u <= rack.u:
        if taken[u]:
            u += 1
            continue
        start = u
        while u <= rack.u and not taken[u]:
            u += 1
        out.append((start, u - 1))
    return out


__all__ = [
    "RACK_UNIT_M",
    "CableRun",
    "DeviceSlot",
    "FloorPlan",
    "HallView",
    "PhysicalView",
    "RackView",
    "RowView",
    "fit_problem",
]
