"""Keep a large open design out of the cyclic garbage collector's way.

A design of 100,000 GPUs is some 100,000 long-lived Python objects (devices,
their fields, the window's items). Every full collection rescans all of them
(~130 ms on 2 cores) and, falling due every few edits, lands inside one: the
edit's metrics come late and the canvas stalls. Once a design is open, one
collection clears what the previous design left, and freezing what survives
(:func:`gc.freeze`) leaves later collections only the objects edits create.
Objects frozen are still freed when their last reference goes (reference
counting); a cycle among them waits for the next design, whose :func:`settle`
unfreezes everything first.

A small design gains nothing from the freeze: its objects are few, and a full
collection on opening it costs the whole heap's scan (the program's own
objects: 0.1-0.3 s in a long-lived process) for nothing. It is settled only if
a large design froze the heap before (:func:`release`: unfreeze and collect
what the large one left, freeze nothing).
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QTimer

LARGE_DEVICES = 2_000
"""Devices from which an opened design is frozen (about 10,000 GPUs: 4-8 GPUs
a node plus the switches; a 1K-GPU design has some 200 devices)."""


def settle() -> None:
    """Collect once, then freeze what is left (see the module doc)."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def release() -> None:
    """Unfreeze and collect once, if anything is frozen; freeze nothing."""
    if gc.get_freeze_count():
        gc.unfreeze()
        gc.collect()


def settle_soon(devices: int) -> None:
    """Once the event loop is idle (after the first paint): :func:`settle` for
    a design of at least :data:`LARGE_DEVICES` devices, else :func:`release`."""
    QTimer.singleShot(0, settle if devices >= LARGE_DEVICES else release)


__all__ = ["LARGE_DEVICES", "release", "settle", "settle_soon"]
