"""Issue 16 item 4 in the panel: switching a 70B preset to a custom model and
typing 7B parameters gives a 7B-shaped model, not 70B's 80 layers."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt

from designer.qt.workload.form import CUSTOM
from tests.qt.workload.helpers import open_sample, wait_estimate


@pytest.mark.slow
def test_custom_model_takes_a_shape_from_its_parameters(
    qtbot: Any, main_window: Any
) -> None:
    window = open_sample(qtbot, main_window, "minimum-viable-enterprise.json")
    form = window.workload_panel.form
    messages: list[str] = []
    form.message.connect(messages.append)
    assert window.document.design.workload.model == "llama3-70b"
    form.model.setCurrentIndex(form.model.findData(CUSTOM))
    block = window.document.design.workload
    assert block.model is None and block.layers == 80  # starts from the preset
    edit = form.edits["params"]
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, "7B")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    block = window.document.design.workload
    assert block.params == 7e9
    assert (block.layers, block.hidden) == (32, 4096)  # not 80 x 8,192
    assert window.document.history.undo_label == "Set Parameters"
    assert any("Shape derived from 7B parameters" in m for m in messages)
    est = wait_estimate(qtbot, window)
    assert est.model.layers == 32
    codes = {f.code for f in est.findings}
    assert "WORKLOAD_MODEL_SHAPE_MISMATCH" not in codes
    # one undo step takes back the parameters and the shape together
    window.document.undo()
    assert window.document.design.workload.layers == 80
    assert window.document.design.workload.params == 70.6e9
