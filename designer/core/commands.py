"""Edits as commands (do/undo with a label), several as one step (a macro).

Commands change the model, never a view. Each ``do``/``undo`` returns the typed
events of :mod:`designer.core.events` with the exact rows it touched. Here: the
:class:`Command` protocol, :class:`Macro` and the edits of the design as a
whole (groups, settings, workload, the whole content); the edits of devices are
in :mod:`designer.core.device_commands`, of links in
:mod:`designer.core.link_commands`, of the physical layer in
:mod:`designer.core.physical_commands`. A
:class:`~designer.core.document.Document` owns one design and its history.
"""

from __future__ import annotations

from collections.abc import Sequence

from designer.core.events import (
    DesignReplaced,
    Event,
    GroupsChanged,
    SettingsChanged,
    WorkloadChanged,
)
from designer.core.limits import model_problem, models_problem
from designer.core.model import (
    Design,
    Device,
    Group,
    LinkTable,
    Settings,
    reference_problems,
)
from designer.core.physical import Physical
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
