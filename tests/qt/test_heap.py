"""Opening a design collects once and freezes what survives
(:mod:`designer.qt.heap`), whatever its size: with a 1K-GPU design open the
editor tracks some 127,000 objects, and a full collection of them (~110 ms)
falling inside an edit would take the 15 ms budget many times over."""

from __future__ import annotations

import gc
from typing import Any

from designer.core.model import Design, Device
from tests.qt.helpers import settle


def test_opening_a_small_design_freezes_the_heap(qtbot: Any, main_window: Any) -> None:
    window = main_window()
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    devices = [
        Device(id=f"n{i}", catalog_id="dgx-h100", label=f"N{i}", x=160.0 * i, y=0.0)
        for i in range(4)
    ]
    try:
        window.files.adopt_generated(Design(devices=devices))
        settle(qtbot, window)
        qtbot.waitUntil(lambda: gc.get_freeze_count() > 0)
    finally:
        gc.unfreeze()
