"""What an edit changed, as typed events that commands emit and views apply.

Every command's ``do`` and ``undo`` return the events of that step, in the order
they happened, and :class:`~designer.core.document.Document` hands them to its
followers. Positions are exact: they are the rows the command itself touched,
so a follower never searches ids and never second-guesses an event.

* :class:`DevicesAdded` / :class:`LinksAdded`: ``positions`` are the new rows,
  ascending, in the list *after* the insertion;
* :class:`DevicesRemoved` / :class:`LinksRemoved`: ``positions`` are the rows,
  ascending, in the list *before* the removal;
* :class:`DevicesChanged` / :class:`LinksChanged`: rows edited in place
  (nothing moved); ``fields`` names what changed (a drag is ``{"x", "y"}``);
* device events that add or change rows carry the devices themselves, so a view
  that applies several steps at once never reads a later state of the design;
* :class:`GroupsChanged`, :class:`SettingsChanged`, :class:`WorkloadChanged`:
  the group list, the settings or the workload block were replaced;
* :class:`PhysicalChanged`: the physical block (racks, rows, halls, rack types,
  facility) changed; ``parts`` names which lists, ``racks`` the racks edited
  (a device moved between racks is a :class:`DevicesChanged` with
  ``fields={"placement"}``);
  :class:`DesignReplaced`: everything was.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import numpy as np
import numpy.typing as npt

from designer.core.model import Device
from designer.core.rows import with_rows, without_rows


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every edit event."""


@dataclass(frozen=True, slots=True)
class _Rows(Event):
    ids: tuple[str, ...]
    positions: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.ids) != len(self.positions):
            raise ValueError("an event names one position per id")
        rows = getattr(self, "devices", None)
        if rows is not None and len(rows) != len(self.ids):
            raise ValueError("an event carries one device per id")


@dataclass(frozen=True, slots=True)
class DevicesAdded(_Rows):
    """Devices inserted at ``positions`` (ascending, in the new device list)."""

    devices: tuple[Device, ...] = ()
    """The devices inserted, one per position (views need not read the design:
    when they apply several steps at once, it may have moved on)."""


@dataclass(frozen=True, slots=True)
class DevicesRemoved(_Rows):
    """Devices removed from ``positions`` (ascending, in the old device list)."""


@dataclass(frozen=True, slots=True)
class DevicesChanged(_Rows):
    """Devices at ``positions`` replaced in place; ``fields`` names what changed."""

    fields: frozenset[str] = field(default_factory=frozenset)
    devices: tuple[Device, ...] = ()
    """The devices as they are after this step, one per position."""


@dataclass(frozen=True, slots=True)
class LinksAdded(_Rows):
    """Links inserted at ``positions`` (ascending, in the new link table)."""


@dataclass(frozen=True, slots=True)
class LinksRemoved(_Rows):
    """Links removed from ``positions`` (ascending, in the old link table)."""


@dataclass(frozen=True, slots=True)
class LinksChanged(_Rows):
    """Links at ``positions`` replaced in place; ``fields`` names what changed."""

    fields: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True, slots=True)
class GroupsChanged(Event):
    """The group list was replaced (added, removed, renamed, collapsed)."""


@dataclass(frozen=True, slots=True)
class SettingsChanged(Event):
    """The design settings were replaced."""


@dataclass(frozen=True, slots=True)
class WorkloadChanged(Event):
    """The design's workload block was set, changed or removed."""


@dataclass(frozen=True, slots=True)
class PhysicalChanged(Event):
    """The physical block changed (see module doc)."""

    parts: frozenset[str] = field(default_factory=frozenset)
    """Which parts: ``facility``, ``rack_types``, ``halls``, ``rows``, ``racks``
    (``block``: the block was set or removed as a whole)."""
    racks: tuple[str, ...] = ()
    """Ids of the racks added, moved or edited (all of them for ``block``)."""


@dataclass(frozen=True, slots=True)
class DesignReplaced(Event):
    """The whole design was replaced (open, new, a template): rebuild."""


ROW_EVENTS: tuple[type[_Rows], ...] = (
    DevicesAdded,
    DevicesRemoved,
    DevicesChanged,
    LinksAdded,
    LinksRemoved,
    LinksChanged,
)

S = TypeVar("S", list[Any], npt.NDArray[Any])


def splice(
    rows: S,
    *,
    removed: Sequence[int] = (),
    added: Sequence[int] = (),
    values: Sequence[Any] | npt.NDArray[Any] = (),
) -> S:
    """Per-row values of a view after rows were removed or added.

    The one routine every view uses to follow :class:`DevicesAdded` /
    :class:`DevicesRemoved` (or the link events) for the arrays it keeps per
    row: ``removed`` are positions before the removal, ``added`` final positions
    after the insertion, with their ``values`` (a list or an array along axis 0).
    Returns a new list or array; the one given is not changed.
    """
    if isinstance(rows, np.ndarray):
        out = without_rows(rows, np.asarray(removed, np.int64)) if removed else rows
        if added:
            at = np.asarray(added, np.int64) - np.arange(len(added))
            out = with_rows(out, at, np.asarray(values, dtype=rows.dtype))
        return out if (removed or added) else rows.copy()
    kept = list(rows)
    for p in reversed(removed):
        del kept[p]
    for p, value in zip(added, values, strict=True):
        kept.insert(p, value)
    return kept


EVENT_TYPES: tuple[type[Event], ...] = (
    *ROW_EVENTS,
    GroupsChanged,
    SettingsChanged,
    WorkloadChanged,
    PhysicalChanged,
    DesignReplaced,
)
"""Every kind of event a command emits (a follower's :class:`Reads` names each)."""

Handler = Callable[[Event], None]


def ignore(_event: Event) -> None:
    """The handler of an event kind a follower has nothing to do for."""


class Reads:
    """What one follower does with each kind of event: one handler per type.

    The table names every type of :data:`EVENT_TYPES` (:func:`ignore` for the
    ones it has nothing to do for) or it is refused when it is built, so a new
    kind of event stops every follower that does not say what it does with it.
    Calling it dispatches one step's events, in order, on their exact type.
    """

    __slots__ = ("_table", "follower")

    def __init__(self, follower: str, table: Mapping[type[Event], Handler]) -> None:
        missing = [t.__name__ for t in EVENT_TYPES if t not in table]
        unknown = [t.__name__ for t in table if t not in EVENT_TYPES]
        if missing or unknown:
            said = []
            if missing:
                said.append("does not say what it does with " + ", ".join(missing))
            if unknown:
                said.append("names events no command emits: " + ", ".join(unknown))
            raise TypeError(f"{follower} " + "; ".join(said))
        self.follower = follower
        self._table = dict(table)

    def __call__(self, events: Iterable[Event]) -> None:
        for event in events:
            self._table[type(event)](event)

    def handler(self, kind: type[Event]) -> Handler:
        """The handler of one kind of event."""
        return self._table[kind]


L = TypeVar("L", bound=enum.IntEnum)


class Most(Generic[L]):
    """The most one step asks of a follower, on the follower's own scale of
    levels (an ``IntEnum``, least first): handlers raise it, the follower
    reads it once per step (:meth:`take`) and acts once."""

    __slots__ = ("_least", "level")

    def __init__(self, least: L) -> None:
        self._least = least
        self.level = least

    def at_least(self, level: L) -> Handler:
        """A handler that raises the step's level to ``level``."""

        def handler(_event: Event) -> None:
            self.raise_to(level)

        return handler

    def raise_to(self, level: L) -> None:
        """Ask at least ``level`` of this step."""
        self.level = max(self.level, level)

    def take(self, reads: Reads, events: Iterable[Event]) -> L:
        """Dispatch one step's events through ``reads`` and return the most
        its handlers asked (the next step starts from the least again)."""
        self.level = self._least
        reads(events)
        level, self.level = self.level, self._least
        return level


def each(kinds: Iterable[type[Event]], handler: Handler) -> dict[type[Event], Handler]:
    """One handler for several kinds (spelled out: ``{**each((A, B), h), C: g}``)."""
    return dict.fromkeys(kinds, handler)


__all__ = [
    "EVENT_TYPES",
    "ROW_EVENTS",
    "DesignReplaced",
    "DevicesAdded",
    "DevicesChanged",
    "DevicesRemoved",
    "Event",
    "GroupsChanged",
    "LinksAdded",
    "LinksChanged",
    "LinksRemoved",
    "Most",
    "PhysicalChanged",
    "Reads",
    "SettingsChanged",
    "WorkloadChanged",
    "each",
    "ignore",
    "splice",
]
