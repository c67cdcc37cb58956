"""New from Template: inference serving designs sized from a requests/s target
and a model (issue 19 item 4); the generated design's estimate meets it."""

from __future__ import annotations

from typing import Any

import pytest

from designer.catalog.loader import default_catalog
from designer.generate import GeneratorError
from designer.qt.template_dialog import KINDS, TemplateDialog
from designer.workload import estimate
from designer.workload.serving_design import serving, size
from tests.qt.helpers import settle


@pytest.mark.parametrize("system", ["hgx-h100", "gb200-nvl72"])
def test_generated_design_meets_its_target(system: str) -> None:
    design = serving(system, "llama3-70b", 1500.0)
    est = estimate(design)
    inf = est.inference
    assert inf is not None and inf.target is not None
    assert inf.target.met, inf.target.change
    assert inf.requests_per_s >= 1500.0
    # the fewest nodes: one node (rack) fewer would not serve it
    sized = size(system, "llama3-70b", 1500.0)
    per_unit = sized.requests_per_s / (sized.nodes / sized.nodes_per_unit)
    assert (sized.nodes / sized.nodes_per_unit - 1) * per_unit < 1500.0
    assert design.workload is not None and design.workload.requests_per_s == 1500.0
    assert design.settings.purpose.value == "inference"


def test_a_larger_target_needs_more_gpus_and_bad_input_says_why() -> None:
    small = size("hgx-h100", "llama3-70b", 500.0)
    big = size("hgx-h100", "llama3-70b", 5000.0)
    assert big.gpus > small.gpus * 8
    with pytest.raises(GeneratorError, match="requests/s must be > 0"):
        size("hgx-h100", "llama3-70b", 0.0)
    with pytest.raises(GeneratorError, match="unknown model"):
        size("hgx-h100", "llama-9000", 10.0)


def test_dialog_creates_the_sized_serving_design(
    qtbot: Any, main_window: Any, monkeypatch: Any
) -> None:
    window = main_window()
    shown: list[TemplateDialog] = []

    def fake_exec(dialog: TemplateDialog) -> int:
        dialog.kind_combo.setCurrentIndex(KINDS.index("serving"))
        page = dialog.serving_page
        page.system.setCurrentIndex(page.system.findData("hgx-h100"))
        page.rate.setValue(400.0)
        dialog.update_preview()
        shown.append(dialog)
        return 1

    monkeypatch.setattr(TemplateDialog, "exec", fake_exec)
    window.actions_.new_template.trigger()
    dialog = shown[0]
    assert dialog._ok_button().isEnabled(), dialog.message.text()
    assert "Sized for 400 requests/s" in dialog.message.text()
    sized = size("hgx-h100", "llama3-70b", 400.0, catalog=default_catalog())
    assert dialog.report.gpus == sized.gpus
    report = settle(qtbot, window)
    assert report.gpus == sized.gpus
    assert window.document.design.workload.requests_per_s == 400.0
