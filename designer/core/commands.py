"""Edits as commands (do/undo with a label), a history with macros, and a document.

Commands change the model, never a view. A :class:`Document` owns one design and
its history, and tells subscribers what changed through :class:`Change` events.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from designer.core.model import Design, Device, Group, Link, Settings


@dataclass(frozen=True)
class Change:
    """What an edit touched; views use it to update only what they must.

    ``kind`` is one of: devices_added, devices_removed, devices_changed,
    links_added, links_removed, links_changed, groups_changed, settings_changed,
    reset (the whole design was replaced).
    """

    kind: str
    ids: tuple[str, ...] = ()


class Command:
    """An undoable edit of a design."""

    label: str = "Edit"

    def do(self, design: Design) -> list[Change]:
        """Apply the edit; return what changed."""
        raise NotImplementedError

    def undo(self, design: Design) -> list[Change]:
        """Revert the edit exactly; return what changed."""
        raise NotImplementedError


class Macro(Command):
    """Several commands as one history step."""

    def __init__(self, label: str, commands: Sequence[Command]) -> None:
        self.label = label
        self.commands = list(commands)

    def do(self, design: Design) -> list[Change]:
        changes: list[Change] = []
        for c in self.commands:
            changes += c.do(design)
        return changes

    def undo(self, design: Design) -> list[Change]:
        changes: list[Change] = []
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

    def do(self, design: Design) -> list[Change]:
        existing = {d.id for d in design.devices}
        for d in self.devices:
            if d.id in existing:
                raise ValueError(f"device id {d.id!r} already exists")
            existing.add(d.id)
        design.devices.extend(self.devices)
        return [Change("devices_added", tuple(d.id for d in self.devices))]

    def undo(self, design: Design) -> list[Change]:
        del design.devices[len(design.devices) - len(self.devices) :]
        return [Change("devices_removed", tuple(d.id for d in self.devices))]


class RemoveDevices(Command):
    """Remove devices and every link that touches them (one step)."""

    def __init__(self, device_ids: Iterable[str]) -> None:
        self.ids = set(device_ids)
        self.label = f"Delete {len(self.ids)} device" + (
            "s" if len(self.ids) != 1 else ""
        )
        self._devices: list[tuple[int, Device]] = []
        self._links: list[tuple[int, Link]] = []

    def do(self, design: Design) -> list[Change]:
        self._devices = [
            (i, d) for i, d in enumerate(design.devices) if d.id in self.ids
        ]
        table = design.links
        doomed = [
            i
            for i, (a, b) in enumerate(zip(table.a, table.b, strict=True))
            if a in self.ids or b in self.ids
        ]
        self._links = [(i, table.row(i)) for i in doomed]
        for i in reversed(doomed):
            table.pop(i)
        design.devices[:] = [d for d in design.devices if d.id not in self.ids]
        out = []
        if self._links:
            out.append(
                Change("links_removed", tuple(link.id for _, link in self._links))
            )
        out.append(Change("devices_removed", tuple(d.id for _, d in self._devices)))
        return out

    def undo(self, design: Design) -> list[Change]:
        for i, d in self._devices:
            design.devices.insert(i, d)
        for i, link in self._links:
            design.links.insert(i, link)
        out = [Change("devices_added", tuple(d.id for _, d in self._devices))]
        if self._links:
            out.append(Change("links_added", tuple(link.id for _, link in self._links)))
        return out


class UpdateDevices(Command):
    """Replace fields of devices (move, relabel, swap model, regroup, retier)."""

    def __init__(
        self, updates: dict[str, dict[str, object]], label: str = "Edit device"
    ) -> None:
        self.updates = updates
        self.label = label
        self._old: dict[int, Device] = {}

    def do(self, design: Design) -> list[Change]:
        self._old = {}
        for i, d in enumerate(design.devices):
            fields = self.updates.get(d.id)
            if fields is not None:
                self._old[i] = d
                design.devices[i] = Device.model_validate({**d.model_dump(), **fields})
        return [Change("devices_changed", tuple(self.updates))]

    def undo(self, design: Design) -> list[Change]:
        for i, d in self._old.items():
            design.devices[i] = d
        return [Change("devices_changed", tuple(self.updates))]


def move_devices(positions: dict[str, tuple[float, float]]) -> UpdateDevices:
    """A single "Move" step for a drag that moved several devices."""
    n = len(positions)
    return UpdateDevices(
        {i: {"x": x, "y": y} for i, (x, y) in positions.items()},
        label="Move " + (f"{n} devices" if n != 1 else "device"),
    )


# --- links -------------------------------------------------------------------


class AddLinks(Command):
    """Append links."""

    def __init__(self, links: Iterable[Link], label: str | None = None) -> None:
        self.links = list(links)
        self.label = label or (
            "Connect" if len(self.links) == 1 else f"Connect {len(self.links)} links"
        )

    def do(self, design: Design) -> list[Change]:
        index = design.links.index()
        for link in self.links:
            if link.id in index:
                raise ValueError(f"link id {link.id!r} already exists")
        design.links.extend(self.links)
        return [Change("links_added", tuple(link.id for link in self.links))]

    def undo(self, design: Design) -> list[Change]:
        n = len(self.links)
        for _ in range(n):
            design.links.pop(len(design.links) - 1)
        return [Change("links_removed", tuple(link.id for link in self.links))]


class RemoveLinks(Command):
    """Remove links by id."""

    def __init__(self, link_ids: Iterable[str]) -> None:
        self.ids = set(link_ids)
        self.label = (
            "Delete link" if len(self.ids) == 1 else f"Delete {len(self.ids)} links"
        )
        self._removed: list[tuple[int, Link]] = []

    def do(self, design: Design) -> list[Change]:
        table = design.links
        doomed = [i for i, lid in enumerate(table.id) if lid in self.ids]
        self._removed = [(i, table.row(i)) for i in doomed]
        for i in reversed(doomed):
            table.pop(i)
        return [Change("links_removed", tuple(link.id for _, link in self._removed))]

    def undo(self, design: Design) -> list[Change]:
        for i, link in self._removed:
            design.links.insert(i, link)
        return [Change("links_added", tuple(link.id for _, link in self._removed))]


class UpdateLink(Command):
    """Change fields of one link (cables, speed, fabric, rail)."""

    def __init__(
        self, link_id: str, fields: dict[str, object], label: str = "Edit link"
    ) -> None:
        self.link_id = link_id
        self.fields = fields
        self.label = label
        self._old: Link | None = None

    def do(self, design: Design) -> list[Change]:
        i = design.links.index()[self.link_id]
        old = design.links.row(i)
        self._old = design.links.replace(
            i, Link.model_validate({**old.model_dump(), **self.fields})
        )
        return [Change("links_changed", (self.link_id,))]

    def undo(self, design: Design) -> list[Change]:
        assert self._old is not None
        i = design.links.index()[self.link_id]
        design.links.replace(i, self._old)
        return [Change("links_changed", (self.link_id,))]


# --- groups and settings -----------------------------------------------------


class SetGroups(Command):
    """Replace the group list (add, remove, rename, collapse)."""

    def __init__(self, groups: Sequence[Group], label: str = "Edit groups") -> None:
        self.groups = list(groups)
        self.label = label
        self._old: list[Group] = []

    def do(self, design: Design) -> list[Change]:
        self._old = list(design.groups)
        design.groups[:] = self.groups
        return [Change("groups_changed")]

    def undo(self, design: Design) -> list[Change]:
        design.groups[:] = self._old
        return [Change("groups_changed")]


class SetSettings(Command):
    """Replace the design settings."""

    def __init__(self, settings: Settings, label: str = "Edit design settings") -> None:
        self.settings = settings
        self.label = label
        self._old: Settings | None = None

    def do(self, design: Design) -> list[Change]:
        self._old = design.settings
        design.settings = self.settings
        return [Change("settings_changed")]

    def undo(self, design: Design) -> list[Change]:
        assert self._old is not None
        design.settings = self._old
        return [Change("settings_changed")]


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


Listener = Callable[[list[Change]], None]


class Document:
    """One open design with its history; the single place edits go through."""

    def __init__(self, design: Design | None = None) -> None:
        self.design = design if design is not None else Design()
        self.history = History()
        self.revision = 0
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(changes)`` after every edit, undo, redo or reset."""
        self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        """Stop calling ``listener``."""
        self._listeners.remove(listener)

    def _notify(self, changes: list[Change]) -> None:
        self.revision += 1
        for listener in list(self._listeners):
            listener(changes)

    def execute(self, command: Command) -> list[Change]:
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

    def undo(self) -> list[Change]:
        """Undo the last step; nothing when there is none."""
        if not self.history.done:
            return []
        command = self.history.done.pop()
        changes = command.undo(self.design)
        self.history.undone.append(command)
        self._notify(changes)
        return changes

    def redo(self) -> list[Change]:
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
        self._notify([Change("reset")])

    def mark_clean(self) -> None:
        """The current state is saved."""
        self.history.clean_index = len(self.history.done)
