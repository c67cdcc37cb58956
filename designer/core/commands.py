"""Edits as commands (do/undo with a label), a history with macros, and a document.

Commands change the model, never a view. Each ``do``/``undo`` returns the typed
events of :mod:`designer.core.events` with the exact rows it touched. A
:class:`Document` owns one design and its history, and hands every step's
events to its followers, in the order they subscribed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import IntEnum
from typing import Any

from pydantic import ValidationError

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
    SettingsChanged,
    WorkloadChanged,
)
from designer.core.limits import (
    MAX_DEVICES,
    MAX_LINKS,
    coords_in_range,
    model_problem,
    models_problem,
)
from designer.core.model import (
    Design,
    Device,
    Group,
    Link,
    LinkTable,
    Settings,
    placement_refs,
    reference_problems,
)
from designer.core.physical import Physical, physical_problems
from designer.core.pin_checks import check_pins
from designer.core.pins import pin_pending, repin_update
from designer.core.workload import Workload


class Command:
    """An undoable edit of a design."""

    label: str = "Edit"

    def do(self, design: Design) -> list[Event]:
        """Apply the edit; return what changed."""
        raise NotImplementedError

    def undo(self, design: Design) -> list[Event]:
        """Revert the edit exactly; return what changed."""
        raise NotImplementedError


class Macro(Command):
    """Several commands as one history step."""

    def __init__(self, label: str, commands: Sequence[Command]) -> None:
        self.label = label
        self.commands = list(commands)

    def do(self, design: Design) -> list[Event]:
        changes: list[Event] = []
        done: list[Command] = []
        try:
            for c in self.commands:
                changes += c.do(design)
                done.append(c)
        except Exception:
            # All or nothing: a refused step leaves the design as it was.
            for c in reversed(done):
                c.undo(design)
            raise
        return changes

    def undo(self, design: Design) -> list[Event]:
        changes: list[Event] = []
        for c in reversed(self.commands):
            changes += c.undo(design)
        return changes


# --- devices -----------------------------------------------------------------


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
        old_a = [table.a_pins[i] for i in rows]
        old_b = [table.b_pins[i] for i in rows]
        self._pins = (rows, old_a, old_b)
        a_new = [
            None if table.a[i] in swapped else p
            for i, p in zip(rows, old_a, strict=True)
        ]
        b_new = [
            None if table.b[i] in swapped else p
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


# --- links -------------------------------------------------------------------


class AddLinks(Command):
    """Append links (rows or a whole :class:`LinkTable`, which bulk wiring uses).

    Refused (ValueError) when an id repeats or an endpoint is not in the design.
    Connection rules (ports, speed, fabric) are checked by ``designer.core.rules``
    before building the command, not here. With a ``lookup`` (the catalog) the
    cables still waiting for ports get them (:mod:`designer.core.pins`): the
    first free ones, no other link's ports touched.
    """

    def __init__(
        self,
        links: Iterable[Link] | LinkTable,
        label: str | None = None,
        *,
        lookup: Any = None,
    ) -> None:
        self.table = (
            links if isinstance(links, LinkTable) else LinkTable.from_links(links)
        )
        self.lookup = lookup
        n = len(self.table)
        self.label = label or ("Connect" if n == 1 else f"Connect {n} links")
        self._start = 0

    @property
    def links(self) -> list[Link]:
        """The links this command adds, as rows."""
        return list(self.table)

    def do(self, design: Design) -> list[Event]:
        new_ids = self.table.id
        if len(set(new_ids)) != len(new_ids):
            seen: set[str] = set()
            for lid in new_ids:
                if lid in seen:
                    raise ValueError(f"link id {lid!r} is used twice")
                seen.add(lid)
        existing = design.links.id_set()
        for lid in new_ids:
            if lid in existing:
                raise ValueError(f"link id {lid!r} already exists")
        device_ids = {d.id for d in design.devices}
        for end in (self.table.a, self.table.b):
            if not device_ids.issuperset(end):
                missing = next(x for x in end if x not in device_ids)
                raise ValueError(f"a link names device {missing!r}, not in the design")
        for a, b in zip(self.table.a, self.table.b, strict=True):
            if a == b:
                raise ValueError(f"a link cannot join {a!r} to itself")
        if len(design.links) + len(self.table) > MAX_LINKS:
            raise ValueError(f"a design holds at most {MAX_LINKS:,} links")
        self._start = len(design.links)
        span = design.links.extend(self.table)
        if self.lookup is not None and self.table.pins_pending():
            pin_pending(design, self.lookup, rows=span)
        return [LinksAdded(tuple(new_ids), tuple(span))]

    def undo(self, design: Design) -> list[Event]:
        design.links.truncate(self._start)
        span = range(self._start, self._start + len(self.table))
        return [LinksRemoved(tuple(self.table.id), tuple(span))]


class RemoveLinks(Command):
    """Remove links by id (unknown ids are ignored)."""

    def __init__(self, link_ids: Iterable[str]) -> None:
        self.ids = set(link_ids)
        self.label = (
            "Delete link" if len(self.ids) == 1 else f"Delete {len(self.ids)} links"
        )
        self._positions: list[int] = []
        self._removed: LinkTable = LinkTable()

    def do(self, design: Design) -> list[Event]:
        table = design.links
        self._positions = sorted(table.positions(self.ids).values())
        self._removed = table.delete(self._positions)
        if not self._positions:
            return []
        ids, at = tuple(self._removed.id), tuple(self._positions)
        return [LinksRemoved(ids, at)]

    def undo(self, design: Design) -> list[Event]:
        design.links.restore(self._positions, self._removed)
        if not self._positions:
            return []
        ids, at = tuple(self._removed.id), tuple(self._positions)
        return [LinksAdded(ids, at)]


class UpdateLinks(Command):
    """Change fields of links (cables, speed, fabric, rail, ports, pins).

    Each link keeps its pins where the edit leaves them (fewer cables keep
    their first ports; :func:`designer.core.pins.repin_update`); with a
    ``lookup`` the cables left waiting get the first free ports, and pins the
    edit names (``a_pins``, ``b_pins``) are checked first (refused with
    :class:`~designer.core.errors.PortTaken` when a port is another link's).
    """

    def __init__(
        self,
        updates: dict[str, dict[str, object]],
        label: str = "Edit link",
        *,
        lookup: Any = None,
    ) -> None:
        self.updates = updates
        self.label = label
        self.lookup = lookup
        self._old: dict[int, Link] = {}

    def do(self, design: Design) -> list[Event]:
        table = design.links
        index = table.positions(self.updates)
        device_ids: set[str] | None = None
        new: dict[int, Link] = {}
        for link_id, fields in self.updates.items():
            i = index.get(link_id)
            if i is None:
                raise ValueError(f"cannot edit link {link_id!r}: not in the design")
            if "id" in fields and fields["id"] != link_id:
                raise ValueError(f"cannot rename link {link_id!r}: ids are stable")
            try:
                link = Link.model_validate({**table.row(i).model_dump(), **fields})
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"])
                raise ValueError(
                    f"link {link_id!r}: field {where}: {first['msg']}"
                ) from None
            if "a" in fields or "b" in fields:
                if device_ids is None:
                    device_ids = {d.id for d in design.devices}
                for end in (link.a, link.b):
                    if end not in device_ids:
                        raise ValueError(
                            f"link {link_id!r}: device {end!r} is not in the design"
                        )
                if link.a == link.b:
                    raise ValueError(
                        f"link {link_id!r} cannot join {link.a!r} to itself"
                    )
            link = repin_update(table.row(i), link, fields)
            if self.lookup is not None and ("a_pins" in fields or "b_pins" in fields):
                check_pins(design, link, self.lookup, i)
            new[i] = link
        rows = sorted(new)
        old = table.replace_rows(rows, [new[i] for i in rows])
        self._old = dict(zip(rows, old, strict=True))
        if self.lookup is not None and table.pins_pending():
            pin_pending(design, self.lookup, rows=rows)
        return [self._event()]

    def undo(self, design: Design) -> list[Event]:
        rows = sorted(self._old)
        design.links.replace_rows(rows, [self._old[i] for i in rows])
        return [self._event()]

    def _event(self) -> LinksChanged:
        rows = sorted(self._old)
        fields = frozenset(k for f in self.updates.values() for k in f)
        return LinksChanged(tuple(self._old[i].id for i in rows), tuple(rows), fields)


class UpdateLink(UpdateLinks):
    """Change fields of one link (cables, speed, fabric, rail, pins)."""

    def __init__(
        self,
        link_id: str,
        fields: dict[str, object],
        label: str = "Edit link",
        *,
        lookup: Any = None,
    ) -> None:
        super().__init__({link_id: fields}, label, lookup=lookup)
        self.link_id = link_id
        self.fields = fields


# --- groups and settings -----------------------------------------------------


class SetGroups(Command):
    """Replace the group list (add, remove, rename, collapse)."""

    def __init__(self, groups: Sequence[Group], label: str = "Edit groups") -> None:
        self.groups = list(groups)
        self.label = label
        self._old: list[Group] = []

    def do(self, design: Design) -> list[Event]:
        problems = group_problems(self.groups, design.devices, design.physical)
        bad = models_problem(self.groups)
        if bad is not None:
            problems.append(f"group {self.groups[bad[0]].id!r}: {bad[1]}")
        if problems:
            raise ValueError("; ".join(problems[:5]))
        self._old = list(design.groups)
        design.groups[:] = self.groups
        return [GroupsChanged()]

    def undo(self, design: Design) -> list[Event]:
        design.groups[:] = self._old
        return [GroupsChanged()]


def group_problems(
    groups: Sequence[Group],
    devices: Sequence[Device],
    physical: Physical | None = None,
) -> list[str]:
    """Problems with a group list: repeated ids, unknown parents, cycles, orphans
    (a device, or a rack of ``physical``, still naming a group the list drops)."""
    probe = Design.model_construct(groups=list(groups), devices=[], links=LinkTable())
    problems = reference_problems(probe)
    ids = {g.id for g in groups}
    for d in devices:
        if d.group is not None and d.group not in ids:
            problems.append(
                f"device {d.id!r} is still in group {d.group!r}; move it out first"
            )
            break
    for rack in physical.racks if physical is not None else ():
        if rack.group is not None and rack.group not in ids:
            problems.append(
                f"rack {rack.id!r} still serves group {rack.group!r}; "
                "give the rack another group first"
            )
            break
    return problems


class SetSettings(Command):
    """Replace the design settings."""

    def __init__(self, settings: Settings, label: str = "Edit design settings") -> None:
        self.settings = settings
        self.label = label
        self._old: Settings | None = None

    def do(self, design: Design) -> list[Event]:
        problem = model_problem(self.settings)
        if problem is not None:
            raise ValueError(f"design settings: {problem}")
        self._old = design.settings
        design.settings = self.settings
        return [SettingsChanged()]

    def undo(self, design: Design) -> list[Event]:
        assert self._old is not None
        design.settings = self._old
        return [SettingsChanged()]


class SetWorkload(Command):
    """Replace the design's workload block (None removes it)."""

    def __init__(self, workload: Workload | None, label: str = "Edit workload") -> None:
        self.workload = workload
        self.label = label
        self._old: Workload | None = None

    def do(self, design: Design) -> list[Event]:
        self._old = design.workload
        design.workload = self.workload
        return [WorkloadChanged()]

    def undo(self, design: Design) -> list[Event]:
        design.workload = self._old
        return [WorkloadChanged()]


class ReplaceDesign(Command):
    """Replace the whole content of the design in place (e.g. apply a template).

    The design object stays the same (views keep their reference); undo puts the
    old content back. Emits a ``reset`` change.
    """

    def __init__(self, new: Design, label: str = "Replace design") -> None:
        self.new = new
        self.label = label
        self._old: Design | None = None

    _FIELDS = (
        "schema_version",
        "settings",
        "workload",
        "physical",
        "groups",
        "devices",
        "links",
    )

    def _swap(self, design: Design, source: Design) -> None:
        for name in self._FIELDS:
            setattr(design, name, getattr(source, name))

    def do(self, design: Design) -> list[Event]:
        self._old = Design.model_construct(
            **{n: getattr(design, n) for n in self._FIELDS}
        )
        # Fresh lists (commands edit lists in place; items are replaced, not
        # mutated), so the caller's design and this command never alias.
        new = self.new
        copy = Design.model_construct(
            schema_version=new.schema_version,
            settings=new.settings,
            workload=new.workload,
            physical=new.physical,
            groups=list(new.groups),
            devices=list(new.devices),
            links=new.links.copy(),
        )
        self._swap(design, copy)
        return [DesignReplaced()]

    def undo(self, design: Design) -> list[Event]:
        assert self._old is not None
        self._swap(design, self._old)
        return [DesignReplaced()]


# --- history and document ----------------------------------------------------


@dataclass
class History:
    """Undo and redo stacks of commands; ``clean_index`` marks the saved state."""

    done: list[Command] = field(default_factory=list)
    undone: list[Command] = field(default_factory=list)
    clean_index: int | None = 0

    @property
    def can_undo(self) -> bool:
        return bool(self.done)

    @property
    def can_redo(self) -> bool:
        return bool(self.undone)

    @property
    def undo_label(self) -> str | None:
        return self.done[-1].label if self.done else None

    @property
    def redo_label(self) -> str | None:
        return self.undone[-1].label if self.undone else None

    @property
    def is_clean(self) -> bool:
        return self.clean_index == len(self.done)


Listener = Callable[[list[Event]], None]
"""A follower of a document: called with the events of every step, in order."""


class Stage(IntEnum):
    """When a follower hears of a step: every follower of an earlier stage first.

    The one place that fixes the order of a document's followers:

    * ``ANALYSIS``: the analysis runner takes its snapshot and starts the worker
      first, so the analysis runs while the views update;
    * ``VIEWS``: the canvas (scene, then view) brings its items up to date;
    * ``PANELS``: properties, history and other panels re-read the model;
    * ``WINDOW``: the window's title, actions and status bar, last.

    Followers of one stage are called in the order they subscribed.
    """

    ANALYSIS = 0
    VIEWS = 1
    PANELS = 2
    WINDOW = 3


class Document:
    """One open design with its history; the single place edits go through."""

    def __init__(self, design: Design | None = None) -> None:
        self.design = design if design is not None else Design()
        self.history = History()
        self.revision = 0
        self._listeners: list[tuple[Stage, Listener]] = []

    def subscribe(self, listener: Listener, stage: Stage = Stage.PANELS) -> None:
        """Call ``listener(events)`` after every edit, undo, redo or reset, in
        the order :class:`Stage` sets."""
        at = sum(1 for s, _ in self._listeners if s <= stage)
        self._listeners.insert(at, (stage, listener))

    def unsubscribe(self, listener: Listener) -> None:
        """Stop calling ``listener``."""
        for i, (_, known) in enumerate(self._listeners):
            if known == listener:
                del self._listeners[i]
                return
        raise ValueError("not a follower of this document")

    def _notify(self, events: list[Event]) -> None:
        self.revision += 1
        for _, listener in list(self._listeners):
            listener(events)

    def execute(self, command: Command) -> list[Event]:
        """Do ``command`` and push it on the history (clears redo)."""
        changes = command.do(self.design)
        self.history.done.append(command)
        if (
            self.history.clean_index is not None
            and self.history.clean_index > len(self.history.done) - 1
        ):
            self.history.clean_index = None
        self.history.undone.clear()
        self._notify(changes)
        return changes

    def undo(self) -> list[Event]:
        """Undo the last step; nothing when there is none."""
        if not self.history.done:
            return []
        command = self.history.done.pop()
        changes = command.undo(self.design)
        self.history.undone.append(command)
        self._notify(changes)
        return changes

    def redo(self) -> list[Event]:
        """Redo the last undone step."""
        if not self.history.undone:
            return []
        command = self.history.undone.pop()
        changes = command.do(self.design)
        self.history.done.append(command)
        self._notify(changes)
        return changes

    def reset(self, design: Design) -> None:
        """Replace the design (open, new); clears the history."""
        self.design = design
        self.history = History()
        self._notify([DesignReplaced()])

    def mark_clean(self) -> None:
        """The current state is saved."""
        self.history.clean_index = len(self.history.done)

    def mark_unsaved(self) -> None:
        """The current state was never saved (a generated or recovered design):
        no step of the history is clean, so closing asks first."""
        self.history.clean_index = None
