"""Opening a design freezes the heap only when the design is large
(:mod:`designer.qt.heap`): a small one is opened without a full collection,
and one opened after a large one unfreezes what the large one froze."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from designer.core.model import Design, Device
from designer.qt import heap
from tests.qt.helpers import settle


def _design(n: int) -> Design:
    devices = [
        Device(id=f"n{i}", catalog_id="dgx-h100", label=f"N{i}", x=160.0 * i, y=0.0)
        for i in range(n)
    ]
    return Design(devices=devices)


@pytest.fixture
def collections(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every ``gc.collect`` the heap module makes, counted."""
    made: list[int] = []
    real = gc.collect

    def counted(*args: Any) -> int:
        made.append(1)
        return real(*args)

    monkeypatch.setattr(heap.gc, "collect", counted)
    yield made  # type: ignore[misc]
    gc.unfreeze()


def test_a_small_design_opens_without_a_collection(
    qtbot: Any, main_window: Any, collections: list[int]
) -> None:
    gc.unfreeze()
    window = main_window()
    window.files.adopt_generated(_design(8))
    settle(qtbot, window)
    qtbot.wait(20)
    assert collections == []
    assert gc.get_freeze_count() == 0


def test_a_large_design_freezes_and_a_small_one_after_it_unfreezes(
    qtbot: Any, main_window: Any, collections: list[int]
) -> None:
    window = main_window()
    window.files.adopt_generated(_design(heap.LARGE_DEVICES))
    settle(qtbot, window)
    qtbot.waitUntil(lambda: gc.get_freeze_count() > 0)
    assert len(collections) == 1
    window.files.adopt_generated(_design(8))
    settle(qtbot, window)
    qtbot.waitUntil(lambda: gc.get_freeze_count() == 0)
    assert len(collections) == 2
    # one device under the threshold is a small design
    window.files.adopt_generated(_design(heap.LARGE_DEVICES - 1))
    settle(qtbot, window)
    qtbot.wait(20)
    assert len(collections) == 2 and gc.get_freeze_count() == 0
