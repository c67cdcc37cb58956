"""A follower's table of what it does with each kind of event: every kind named."""

from __future__ import annotations

import enum

import pytest

import designer.core.events as ev
from designer.core.events import (
    EVENT_TYPES,
    DesignReplaced,
    Event,
    LinksAdded,
    Most,
    Reads,
    SettingsChanged,
    each,
    ignore,
)


def _concrete(cls: type[Event]) -> set[type[Event]]:
    out: set[type[Event]] = set()
    for sub in cls.__subclasses__():
        # dataclass(slots=True) makes a new class: the module's is the one
        if not sub.__name__.startswith("_") and getattr(ev, sub.__name__, None) is sub:
            out.add(sub)
        out |= _concrete(sub)
    return out


def test_event_types_are_every_event_a_command_can_emit() -> None:
    """EVENT_TYPES is every public event class of the module, once (a new
    kind of event must be added there, and then every follower's table fails
    until it says what it does with it)."""
    assert len(set(EVENT_TYPES)) == len(EVENT_TYPES)
    assert set(EVENT_TYPES) == _concrete(Event)
    assert {t.__name__ for t in EVENT_TYPES} <= set(ev.__all__)


def test_a_table_that_leaves_a_kind_out_is_refused_by_name() -> None:
    table = each(EVENT_TYPES, ignore)
    del table[SettingsChanged]
    with pytest.raises(
        TypeError, match=r"^Panel does not say what it does with SettingsChanged$"
    ):
        Reads("Panel", table)


def test_a_table_naming_an_unknown_kind_is_refused() -> None:
    class Stray(Event):
        pass

    with pytest.raises(TypeError, match="names events no command emits: Stray"):
        Reads("Panel", {**each(EVENT_TYPES, ignore), Stray: ignore})


def test_events_go_to_their_own_handler_in_order() -> None:
    heard: list[str] = []
    reads = Reads(
        "Panel",
        {
            **each(EVENT_TYPES, lambda e: heard.append("other")),
            LinksAdded: lambda e: heard.append("links"),
            DesignReplaced: lambda e: heard.append("replaced"),
        },
    )
    reads([LinksAdded(("l1",), (0,)), SettingsChanged(), DesignReplaced()])
    assert heard == ["links", "other", "replaced"]
    assert reads.handler(DesignReplaced) is not reads.handler(LinksAdded)


class _Asks(enum.IntEnum):
    NOTHING = 0
    REPLAY = 1
    ANALYSE = 2


def test_most_keeps_the_most_a_step_asks_and_starts_the_next_from_the_least() -> None:
    owed = Most(_Asks.NOTHING)
    reads = Reads(
        "Runner",
        {
            **each(EVENT_TYPES, ignore),
            SettingsChanged: owed.at_least(_Asks.ANALYSE),
            LinksAdded: owed.at_least(_Asks.REPLAY),
        },
    )
    # the most wins, whatever the order
    assert owed.take(reads, [SettingsChanged(), LinksAdded(("l1",), (0,))]) is (
        _Asks.ANALYSE
    )
    assert owed.take(reads, [LinksAdded(("l1",), (0,))]) is _Asks.REPLAY
    # a step of events that ask nothing: the least, not the last step's level
    assert owed.take(reads, [DesignReplaced()]) is _Asks.NOTHING
    assert owed.take(reads, []) is _Asks.NOTHING
    owed.raise_to(_Asks.REPLAY)  # a handler raising it by hand
    assert owed.level is _Asks.REPLAY
