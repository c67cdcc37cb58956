"""What is selected on the canvas, and the bisection cut shown on it (no Qt).

View state only: the selection never changes the model. Ids of devices and
links are kept apart; ids that name neither are ignored, and ids whose device
or link is deleted are dropped (:meth:`Selection.forget`).
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Cut:
    """A bisection cut drawn on the canvas: side A's devices, the links across."""

    side_a: frozenset[str]
    links: frozenset[str]


@dataclass
class Selection:
    """Selected devices and links, and the cut overlay."""

    devices: set[str] = field(default_factory=set)
    links: set[str] = field(default_factory=set)
    cut: Cut | None = None

    def select(
        self,
        ids: Iterable[str],
        *,
        devices: Container[str],
        links: Container[str],
        add: bool = False,
        toggle: bool = False,
    ) -> None:
        """Select ``ids`` (replacing the selection, adding to it or toggling).

        ``devices`` and ``links`` say which ids exist (anything else is ignored).
        """
        if not add and not toggle:
            self.devices.clear()
            self.links.clear()
        for i in ids:
            target = (
                self.devices if i in devices else self.links if i in links else None
            )
            if target is None:
                continue
            if toggle and i in target:
                target.discard(i)
            else:
                target.add(i)

    def clear(self) -> None:
        """Nothing selected, no cut."""
        self.devices.clear()
        self.links.clear()
        self.cut = None

    def forget(self, device_ids: Iterable[str], link_ids: Iterable[str]) -> bool:
        """Drop deleted devices and links; True when the selection changed."""
        before = len(self.devices) + len(self.links)
        self.devices.difference_update(device_ids)
        self.links.difference_update(link_ids)
        return len(self.devices) + len(self.links) != before

    def set_cut(
        self, side_a: Iterable[str] | None, links: Iterable[str] | None = None
    ) -> None:
        """Show a cut (``side_a`` None: none)."""
        self.cut = (
            None if side_a is None else Cut(frozenset(side_a), frozenset(links or ()))
        )

    def __bool__(self) -> bool:
        return bool(self.devices or self.links)
