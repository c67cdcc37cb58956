"""A document: one open design, its history, and the followers of its edits.

Every edit goes through :meth:`Document.execute` (and undo, redo); the
document hands each step's events (:mod:`designer.core.events`) to its
followers in the order of :class:`Stage`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum

from designer.core.commands import Command
from designer.core.events import DesignReplaced, Event
from designer.core.model import Design


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
