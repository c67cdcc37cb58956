"""The status bar never cuts a message mid-word, and undo/redo say what they did
(issue 16, item 10: "68 too man" at 1280x800; undo said nothing)."""

from __future__ import annotations

from typing import Any

import pytest

from designer.core.commands import SetSettings
from tests.qt.helpers import add_dgx

LONG = (
    "dgx-h100-2: port group 'compute' has 8 ports (4 twin-port cages), 8 cabled "
    "to leaf-1 (4) and leaf-2 (4), but 76 would be in use by 76 cables on 3 links "
    "across the compute fabric of this scalable unit and the next (68 too many)"
)


@pytest.mark.slow
def test_a_long_refusal_is_elided_whole_words_and_kept_in_the_tooltip(
    main_window: Any, qtbot: Any
) -> None:
    window = main_window()
    window.resize(1280, 800)
    qtbot.waitExposed(window)
    bar = window.statusBar()
    window.canvas.status_message.emit(LONG)
    shown = bar.currentMessage()
    assert window.last_message == LONG
    # it fits beside the permanent widgets, and says it was cut
    assert bar.fontMetrics().horizontalAdvance(shown) <= bar.width()
    if shown != LONG:
        assert shown.endswith("…")
        assert bar.toolTip() == LONG
    # a short one is shown whole, with no stale tooltip
    window.canvas.status_message.emit("Connected 1 cable, oob, 1G")
    assert bar.currentMessage() == "Connected 1 cable, oob, 1G"
    assert bar.toolTip() == ""


@pytest.mark.slow
def test_at_1280_the_long_refusal_is_cut_with_an_ellipsis(
    main_window: Any, qtbot: Any
) -> None:
    window = main_window()
    window.resize(1280, 800)
    qtbot.waitExposed(window)
    window.gpus_label.setText("GPUs: 100,000")
    window.bisection_label.setText("Bisection: 20 Pb/s (exact)")
    window.cost_label.setText("Cost: $4.21B")
    window.canvas.status_message.emit(LONG * 2)
    shown = window.statusBar().currentMessage()
    assert shown.endswith("…") and len(shown) < len(LONG * 2)
    assert "\n" not in shown


@pytest.mark.slow
def test_multi_line_messages_read_on_one_line(main_window: Any) -> None:
    window = main_window()
    window.canvas.status_message.emit("Autosave failed:\n  first\n  second")
    assert window.last_message == "Autosave failed: first second"


@pytest.mark.slow
def test_undo_and_redo_say_what_they_did(main_window: Any, qtbot: Any) -> None:
    window = main_window()
    add_dgx(window, 2)
    settings = window.document.design.settings.model_copy(update={"name": "B"})
    window.document.execute(SetSettings(settings, "Rename design"))
    bar = window.statusBar()
    window.actions_.undo.trigger()
    assert bar.currentMessage() == "Undid Rename design"
    window.actions_.undo.trigger()
    assert bar.currentMessage().startswith("Undid Add")
    assert not window.actions_.undo.isEnabled()  # nothing left to undo
    window.actions_.redo.trigger()
    assert bar.currentMessage().startswith("Redid Add")
    window.actions_.redo.trigger()
    assert bar.currentMessage() == "Redid Rename design"


@pytest.mark.slow
def test_the_panel_shows_the_bisection_with_an_unwired_node_exact(
    main_window: Any, qtbot: Any
) -> None:
    """Issue 16, item 3: one unwired DGX dropped beside a wired fabric showed
    "bound: 0 Gb/s-..." and "refining bisection bounds..." for minutes."""
    from designer.core.device_commands import AddDevices
    from designer.core.model import Device
    from designer.generate import fat_tree
    from tests.qt.helpers import settle

    window = main_window()
    window.document.reset(fat_tree("dgx-h100", 256, "qm9700"))
    settle(qtbot, window)
    window.document.execute(AddDevices([Device(id="late", catalog_id="dgx-h100")]))
    qtbot.waitUntil(
        lambda: (
            window.latest_report is not None
            and window.latest_report.compute_nodes == 257
            and not window.runner.busy
        ),
        timeout=60_000,
    )
    b = window.latest_report.bisection
    # 257 nodes: the smaller side holds the unwired one and 127 wired nodes
    assert b.exact and b.lower_gbps == b.upper_gbps == 127 * 3200.0
    text = window.validator_panel.values["bisection"].text()
    assert text.endswith("· exact") and "bound" not in text
    assert "refining" not in window.validator_panel.state.text()
