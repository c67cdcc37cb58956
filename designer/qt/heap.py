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

Small designs are settled too: with a 1K-GPU design open the editor tracks
some 127,000 objects of its own (Qt wrappers, modules), and a full collection
of them takes ~110 ms, several times a 1K edit's budget, were one to fall due
inside it. Settling costs that once, on opening.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QTimer


def settle() -> None:
    """Collect once, then freeze what is left (see the module doc)."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def settle_soon() -> None:
    """:func:`settle` once the event loop is idle (after the first paint)."""
    QTimer.singleShot(0, settle)


__all__ = ["settle", "settle_soon"]
