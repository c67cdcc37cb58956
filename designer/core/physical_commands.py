"""Undoable edits of the physical layer: racks, rows, halls, facility, placements.

These are the steps the rack elevation and the floor plan push on the history:
a device dragged to another rack or U is one :class:`PlaceDevices` (a
:class:`~designer.core.events.DevicesChanged` with ``fields={"placement"}``);
a rack or row moved on the floor is one :class:`EditRacks` / :class:`EditRows`
(a :class:`~designer.core.events.PhysicalChanged` naming the racks). Every
command checks the result with :func:`~designer.core.physical.physical_problems`
and refuses the whole step (ValueError naming the rack, row or device) when it
would leave the design invalid, so an undo stack never holds a broken state.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from designer.core.commands import Command, Macro
from designer.core.device_commands import UpdateDevices
from designer.core.events import Event, PhysicalChanged
from designer.core.model import Design, Device, Placement, placement_refs
from designer.core.physical import (
    Facility,
    Hall,
    Physical,
    Rack,
    Row,
    physical_problems,
)


def _check(design: Design, physical: Physical, devices: list[Device]) -> None:
    problems = physical_problems(
        physical, placement_refs(devices), (g.id for g in design.groups)
    )
    if problems:
        place, message = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ValueError(f"{place}: {message}{more}")


def _require(design: Design) -> Physical:
    if design.physical is None:
        raise ValueError(
            "the design has no physical block (racks, rows, halls); place it first"
        )
    return design.physical


class SetPhysical(Command):
    """Set, replace or (with None) remove the whole physical block.

    Removing it also clears every device's placement (they name its racks), in
    the same step.
    """

    def __init__(self, physical: Physical | None, label: str = "Edit racks") -> None:
        self.physical = physical
        self.label = label
        self._old: Physical | None = None
        self._unplace: UpdateDevices | None = None

    def do(self, design: Design) -> list[Event]:
        events: list[Event] = []
        if self.physical is None:
            placed: dict[str, dict[str, object]] = {
                d.id: {"placement": None} for d in design.devices if d.placement
            }
            self._unplace = UpdateDevices(placed) if placed else None
        else:
            _check(design, self.physical, design.devices)
        self._old = design.physical
        if self._unplace is not None:
            events += self._unplace.do(design)
        design.physical = self.physical
        return [*events, self._event(design)]

    def undo(self, design: Design) -> list[Event]:
        design.physical = self._old
        events: list[Event] = [self._event(design)]
        if self._unplace is not None:
            events += self._unplace.undo(design)
        return events

    @staticmethod
    def _event(design: Design) -> PhysicalChanged:
        racks = tuple(r.id for r in design.physical.racks) if design.physical else ()
        return PhysicalChanged(frozenset({"block"}), racks)


class SetFacility(Command):
    """Replace the facility settings (kW per cooling class, PUE, slack, tray)."""

    def __init__(self, facility: Facility, label: str = "Edit facility") -> None:
        self.facility = facility
        self.label = label
        self._old: Facility | None = None

    def do(self, design: Design) -> list[Event]:
        physical = _require(design)
        self._old = physical.facility
        physical.facility = self.facility
        return [PhysicalChanged(frozenset({"facility"}))]

    def undo(self, design: Design) -> list[Event]:
        physical = _require(design)
        assert self._old is not None
        physical.facility = self._old
        return [PhysicalChanged(frozenset({"facility"}))]


def _updated(item: BaseModel, fields: Mapping[str, object], what: str) -> Any:
    key = getattr(item, "id", "?")
    if "id" in fields and fields["id"] != key:
        raise ValueError(f"cannot rename {what} {key!r}: ids are stable")
    try:
        return type(item).model_validate({**item.model_dump(), **fields})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ValueError(f"{what} {key!r}: field {where}: {first['msg']}") from None


class _EditItems(Command):
    """Replace fields of some racks, rows or halls (by id), as one step."""

    part = "racks"
    what = "rack"

    def __init__(
        self, updates: Mapping[str, Mapping[str, object]], label: str | None = None
    ) -> None:
        self.updates = {k: dict(v) for k, v in updates.items()}
        n = len(self.updates)
        self.label = label or f"Move {self.what}" + ("s" if n != 1 else "")
        self._old: list[Any] | None = None

    def do(self, design: Design) -> list[Event]:
        physical = _require(design)
        items: list[Any] = list(getattr(physical, self.part))
        at = {item.id: i for i, item in enumerate(items)}
        new = list(items)
        for key, fields in self.updates.items():
            i = at.get(key)
            if i is None:
                raise ValueError(f"cannot edit {self.what} {key!r}: not in the design")
            new[i] = _updated(items[i], fields, self.what)
        probe = physical.model_copy(update={self.part: new})
        _check(design, probe, design.devices)
        self._old = items
        setattr(physical, self.part, new)
        return [self._event()]

    def undo(self, design: Design) -> list[Event]:
        physical = _require(design)
        assert self._old is not None
        setattr(physical, self.part, self._old)
        return [self._event()]

    def _event(self) -> PhysicalChanged:
        return PhysicalChanged(frozenset({self.part}), tuple(self.updates))


class EditRacks(_EditItems):
    """Move or change racks (row, slot, type, cooling, label, role, group)."""

    part = "racks"
    what = "rack"

    def _event(self) -> PhysicalChanged:
        return PhysicalChanged(frozenset({"racks"}), tuple(self.updates))


class EditRows(_EditItems):
    """Move or change rows (hall, x_m, y_m, label); their racks move with them."""

    part = "rows"
    what = "row"

    def do(self, design: Design) -> list[Event]:
        events = super().do(design)
        return [self._moved(design)] if events else events

    def undo(self, design: Design) -> list[Event]:
        super().undo(design)
        return [self._moved(design)]

    def _moved(self, design: Design) -> PhysicalChanged:
        physical = _require(design)
        racks = tuple(r.id for r in physical.racks if r.row in self.updates)
        return PhysicalChanged(frozenset({"rows"}), racks)


class EditHalls(_EditItems):
    """Change halls (origin, size, power budget, label)."""

    part = "halls"
    what = "hall"


class AddRacks(Command):
    """Add racks (and, optionally, the rows and halls they stand in)."""

    def __init__(
        self,
        racks: Iterable[Rack],
        rows: Iterable[Row] = (),
        halls: Iterable[Hall] = (),
        label: str | None = None,
    ) -> None:
        self.racks, self.rows, self.halls = list(racks), list(rows), list(halls)
        n = len(self.racks)
        self.label = label or ("Add rack" if n == 1 else f"Add {n} racks")
        self._old: Physical | None = None

    def do(self, design: Design) -> list[Event]:
        physical = _require(design)
        probe = physical.model_copy(
            update={
                "racks": [*physical.racks, *self.racks],
                "rows": [*physical.rows, *self.rows],
                "halls": [*physical.halls, *self.halls],
            }
        )
        _check(design, probe, design.devices)
        self._old = physical
        design.physical = probe
        return [self._event()]

    def undo(self, design: Design) -> list[Event]:
        design.physical = self._old
        return [self._event()]

    def _event(self) -> PhysicalChanged:
        parts = {"racks"} | ({"rows"} if self.rows else set())
        parts |= {"halls"} if self.halls else set()
        return PhysicalChanged(frozenset(parts), tuple(r.id for r in self.racks))


class _DropRacks(Command):
    """Remove racks that hold no device (part of :func:`remove_racks`)."""

    def __init__(self, rack_ids: Sequence[str]) -> None:
        self.ids = list(rack_ids)
        self.label = "Delete racks"
        self._old: list[Rack] | None = None

    def do(self, design: Design) -> list[Event]:
        physical = _require(design)
        gone = set(self.ids)
        for d in design.devices:
            if d.placement is not None and d.placement.rack in gone:
                raise ValueError(
                    f"rack {d.placement.rack!r} still holds device {d.id!r}"
                )
        self._old = physical.racks
        physical.racks = [r for r in physical.racks if r.id not in gone]
        return [PhysicalChanged(frozenset({"racks"}), tuple(self.ids))]

    def undo(self, design: Design) -> list[Event]:
        physical = _require(design)
        assert self._old is not None
        physical.racks = self._old
        return [PhysicalChanged(frozenset({"racks"}), tuple(self.ids))]


def remove_racks(design: Design, rack_ids: Iterable[str]) -> Command:
    """Delete racks as one step: their devices lose their placement first."""
    ids = list(dict.fromkeys(rack_ids))
    physical = _require(design)
    known = physical.rack_map()
    for rid in ids:
        if rid not in known:
            raise ValueError(f"cannot delete rack {rid!r}: not in the design")
    gone = set(ids)
    unplace: dict[str, dict[str, object]] = {
        d.id: {"placement": None}
        for d in design.devices
        if d.placement is not None and d.placement.rack in gone
    }
    label = "Delete rack" if len(ids) == 1 else f"Delete {len(ids)} racks"
    steps: list[Command] = []
    if unplace:
        steps.append(UpdateDevices(unplace, label="Unplace devices"))
    steps.append(_DropRacks(ids))
    return Macro(label, steps)


class PlaceDevices(UpdateDevices):
    """Put devices at a rack and U (or take them out with None), as one step.

    Refused as a whole when a rack is unknown or a U lies above the rack's top;
    with ``heights`` (U per device id, from the catalog) also when a device
    would stick out of the top or share a U with another device. The views
    pass heights; scripts that place many devices at once may leave them out
    and read the findings instead.
    """

    def __init__(
        self,
        placements: Mapping[str, Placement | None],
        *,
        heights: Mapping[str, float] | None = None,
        label: str | None = None,
    ) -> None:
        n = len(placements)
        super().__init__(
            {
                k: {"placement": None if p is None else p.model_dump()}
                for k, p in placements.items()
            },
            label=label or ("Move device" if n == 1 else f"Move {n} devices"),
        )
        self.placements = dict(placements)
        self.heights = heights

    def do(self, design: Design) -> list[Event]:
        physical = _require(design)
        if self.heights is not None:
            _check_fit(design, physical, self.placements, self.heights)
        events = super().do(design)
        try:
            _check(design, physical, design.devices)
        except ValueError:
            super().undo(design)
            raise
        return events


def _check_fit(
    design: Design,
    physical: Physical,
    placements: Mapping[str, Placement | None],
    heights: Mapping[str, float],
) -> None:
    """Refuse a device sticking out of its rack or sharing a U with another."""
    types = physical.rack_type_map()
    racks = physical.rack_map()
    where: dict[str, Placement | None] = {
        d.id: d.placement for d in design.devices if d.placement is not None
    }
    where.update(placements)
    taken: dict[tuple[str, int], str] = {}
    order = [k for k in where if k not in placements] + list(placements)
    for device_id in order:
        p = where[device_id]
        if p is None or p.rack is None or p.u is None:
            continue
        rack = racks.get(p.rack)
        kind = types.get(rack.type) if rack is not None else None
        h = max(1, round(heights.get(device_id, 1)))
        if kind is not None and p.u + h - 1 > kind.u and device_id in placements:
            raise ValueError(
                f"device {device_id!r} ({h}U) at U {p.u} sticks out of rack "
                f"{p.rack!r} ({kind.u}U); expected U 1..{kind.u - h + 1}"
            )
        for u in range(p.u, p.u + h):
            other = taken.get((p.rack, u))
            if other is not None and device_id in placements:
                raise ValueError(
                    f"device {device_id!r} at U {p.u} of rack {p.rack!r} would "
                    f"share U {u} with {other!r}"
                )
            taken[(p.rack, u)] = device_id


__all__ = [
    "AddRacks",
    "EditHalls",
    "EditRacks",
    "EditRows",
    "PlaceDevices",
    "SetFacility",
    "SetPhysical",
    "remove_racks",
]
