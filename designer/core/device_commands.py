"""Undoable edits of devices: add, remove (with their links), update, move.

A drag that moves several devices is one :func:`move_devices` step; deleting
devices is one :class:`RemoveDevices` that also removes every link touching
them. See :mod:`designer.core.commands` for the protocol.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from designer.core.commands import Command
from designer.core.events import (
    DevicesAdded,
    DevicesChanged,
    DevicesRemoved,
    Event,
    LinksAdded,
    LinksRemoved,
)
from designer.core.limits import MAX_DEVICES, coords_in_range, models_problem
from designer.core.model import Design, Device, LinkTable, placement_refs
from designer.core.physical import physical_problems
from designer.core.pins import pin_pending


class AddDevices(Command):
    """Add devices (appended in order)."""

    def __init__(self, devices: Iterable[Device], label: str | None = None) -> None:
        self.devices = list(devices)
        n = len(self.devices)
        self.label = label or (
            f"Add {self.devices[0].label or self.devices[0].id}"
            if n == 1
            else f"Add {n} devices"
        )

    def do(self, design: Design) -> list[Event]:
        existing = {d.id for d in design.devices}
        groups = {g.id for g in design.groups}
        for d in self.devices:
            if d.id in existing:
                raise ValueError(f"device id {d.id!r} already exists")
            if d.group is not None and d.group not in groups:
                raise ValueError(f"device {d.id!r}: unknown group {d.group!r}")
            existing.add(d.id)
        if len(design.devices) + len(self.devices) > MAX_DEVICES:
            raise ValueError(f"a design holds at most {MAX_DEVICES:,} devices")
        bad = models_problem(self.devices)
        if bad is not None:
            raise ValueError(f"device {self.devices[bad[0]].id!r}: {bad[1]}")
        if design.physical is not None:
            placed = [d for d in self.devices if d.placement is not None]
            found = physical_problems(design.physical, placement_refs(placed), groups)
            if found:
                raise ValueError(f"{found[0][1]} (device placement)")
        start = len(design.devices)
        design.devices.extend(self.devices)
        at = tuple(range(start, len(design.devices)))
        return [DevicesAdded(self._ids(), at, tuple(self.devices))]

    def undo(self, design: Design) -> list[Event]:
        start = len(design.devices) - len(self.devices)
        del design.devices[start:]
        return [
            DevicesRemoved(self._ids(), tuple(range(start, start + len(self.devices))))
        ]

    def _ids(self) -> tuple[str, ...]:
        return tuple(d.id for d in self.devices)


class RemoveDevices(Command):
    """Remove devices and every link that touches them (one step)."""

    def __init__(self, device_ids: Iterable[str]) -> None:
        self.ids = set(device_ids)
        self.label = f"Delete {len(self.ids)} device" + (
            "s" if len(self.ids) != 1 else ""
        )
        self._devices: list[tuple[int, Device]] = []
        self._link_positions: list[int] = []
        self._links: LinkTable = LinkTable()

    def do(self, design: Design) -> list[Event]:
        self._devices = [
            (i, d) for i, d in enumerate(design.devices) if d.id in self.ids
        ]
        table = design.links
        self._link_positions = table.rows_touching(self.ids)
        self._links = table.delete(self._link_positions)
        for i, _ in reversed(self._devices):
            del design.devices[i]
        out: list[Event] = []
        if self._link_positions:
            out.append(LinksRemoved(tuple(self._links.id), tuple(self._link_positions)))
        out.append(self._device_event(DevicesRemoved))
        return out

    def _device_event(
        self, kind: type[DevicesAdded] | type[DevicesRemoved]
    ) -> DevicesAdded | DevicesRemoved:
        ids = tuple(d.id for _, d in self._devices)
        at = tuple(i for i, _ in self._devices)
        if kind is DevicesAdded:
            return DevicesAdded(ids, at, tuple(d for _, d in self._devices))
        return DevicesRemoved(ids, at)

    def undo(self, design: Design) -> list[Event]:
        for i, d in self._devices:
            design.devices.insert(i, d)
        design.links.restore(self._link_positions, self._links)
        out: list[Event] = [self._device_event(DevicesAdded)]
        if self._link_positions:
            out.append(LinksAdded(tuple(self._links.id), tuple(self._link_positions)))
        return out


_XY = frozenset({"x", "y"})


class UpdateDevices(Command):
    """Replace fields of devices (move, relabel, swap model, regroup, retier).

    Refused as a whole (ValueError naming the device and field) when a device
    is unknown, a field is unknown or invalid, an id would change, or a group
    does not exist.
    """

    def __init__(
        self,
        updates: dict[str, dict[str, object]],
        label: str = "Edit device",
        *,
        lookup: Any = None,
    ) -> None:
        self.updates = updates
        self.label = label
        self.lookup = lookup
        self._old: dict[int, Device] = {}
        self._pins: tuple[list[int], list[Any], list[Any]] | None = None

    def do(self, design: Design) -> list[Event]:
        positions = {d.id: i for i, d in enumerate(design.devices)}
        groups = {g.id for g in design.groups}
        new: dict[int, Device] = {}
        for device_id, fields in self.updates.items():
            i = positions.get(device_id)
            if i is None:
                raise ValueError(f"cannot edit device {device_id!r}: not in the design")
            if "id" in fields and fields["id"] != device_id:
                raise ValueError(
                    f"cannot rename device {device_id!r}: ids are stable "
                    "(links refer to them)"
                )
            old = design.devices[i]
            if fields.keys() <= _XY and coords_in_range(fields.values()):
                # Moves are the bulk edit (drag, auto layout): skip re-validation.
                new[i] = old.model_copy(update={k: float(v) for k, v in fields.items()})  # type: ignore[arg-type]
                continue
            try:
                updated = Device.model_validate({**old.model_dump(), **fields})
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"])
                raise ValueError(
                    f"device {device_id!r}: field {where}: {first['msg']}"
                ) from None
            if updated.group is not None and updated.group not in groups:
                raise ValueError(
                    f"device {device_id!r}: unknown group {updated.group!r}"
                )
            new[i] = updated
        placing = any("placement" in fields for fields in self.updates.values())
        if design.physical is not None and placing:
            # a placement names a rack of the physical block (the loader's rule)
            placed = [d for d in new.values() if d.placement is not None]
            refs = [
                replace(r, index=positions[r.device]) for r in placement_refs(placed)
            ]
            found = physical_problems(design.physical, refs, groups)
            if found:
                place, message = found[0]
                raise ValueError(f"{place}: {message}")
        self._old = {i: design.devices[i] for i in new}
        for i, d in new.items():
            design.devices[i] = d
        self._repin(design)
        return [self._event(design)]

    def _repin(self, design: Design) -> None:
        """A device of another model (or port count) holds other ports: its
        links' ends there wait for new ones (chosen with a lookup); every
        other end keeps its pins."""
        self._pins = None
        swapped = {
            d.id
            for i, d in self._old.items()
            if (new := design.devices[i]).catalog_id != d.catalog_id
            or new.ports != d.ports
        }
        if not swapped:
            return
        table = design.links
        rows = table.rows_touching(swapped)
        if not rows:
            return
        # these rows only: the table's whole pin and name columns as lists
        # cost ~250 ms at 100K GPUs
        arrays = table.arrays
        pins = [arrays.pins_of(i) for i in rows]
        old_a = [a for a, _ in pins]
        old_b = [b for _, b in pins]
        self._pins = (rows, old_a, old_b)
        names = arrays.names
        a_new = [
            None if names[arrays.a[i]] in swapped else p
            for i, p in zip(rows, old_a, strict=True)
        ]
        b_new = [
            None if names[arrays.b[i]] in swapped else p
            for i, p in zip(rows, old_b, strict=True)
        ]
        table.set_pins(rows, a_new, b_new)
        if self.lookup is not None:
            pin_pending(design, self.lookup, rows=rows)

    def undo(self, design: Design) -> list[Event]:
        for i, d in self._old.items():
            design.devices[i] = d
        if self._pins is not None:
            rows, old_a, old_b = self._pins
            design.links.set_pins(rows, old_a, old_b)
        return [self._event(design)]

    def _event(self, design: Design) -> DevicesChanged:
        rows = sorted(self._old)
        fields = frozenset(k for f in self.updates.values() for k in f)
        now = tuple(design.devices[i] for i in rows)
        return DevicesChanged(tuple(d.id for d in now), tuple(rows), fields, now)


def move_devices(positions: dict[str, tuple[float, float]]) -> UpdateDevices:
    """A single "Move" step for a drag that moved several devices."""
    n = len(positions)
    return UpdateDevices(
        {i: {"x": x, "y": y} for i, (x, y) in positions.items()},
        label="Move " + (f"{n} devices" if n != 1 else "device"),
    )
