"""New from Template: the created design has exactly the previewed numbers."""

from __future__ import annotations

from typing import Any

import pytest

from designer.qt.template_dialog import KINDS, TemplateDialog
from tests.qt.helpers import settle


@pytest.mark.slow
def test_created_design_matches_the_preview(
    qtbot: Any, main_window: Any, monkeypatch: Any
) -> None:
    window = main_window()
    shown: list[TemplateDialog] = []

    def fake_exec(dialog: TemplateDialog) -> int:
        dialog.kind_combo.setCurrentIndex(KINDS.index("fat_tree"))
        dialog.ft_nodes.setValue(32)
        dialog.ft_oversub.setCurrentIndex(dialog.ft_oversub.findData("2.0"))
        dialog.update_preview()
        shown.append(dialog)
        return 1

    monkeypatch.setattr(TemplateDialog, "exec", fake_exec)
    window.actions_.new_template.trigger()
    preview = shown[0].report
    assert preview.gpus == 256  # 32 DGX H100 x 8 GPUs
    assert shown[0].preview_labels["gpus"].text() == "256 in 32 nodes"
    report = settle(qtbot, window)
    assert report.gpus == preview.gpus
    assert report.switches == preview.switches
    assert report.cables == preview.cables
    assert report.cost_usd.total == preview.cost_usd.total
    assert window.isWindowModified()  # a generated design is not saved yet
    assert window.path is None


@pytest.mark.slow
def test_k_ary_preview_counts(qtbot: Any) -> None:
    from designer.catalog.loader import default_catalog

    dialog = TemplateDialog(default_catalog())
    qtbot.addWidget(dialog)
    dialog.kind_combo.setCurrentIndex(KINDS.index("k_ary"))
    dialog.k_k.setValue(4)
    dialog.update_preview()
    assert dialog.design is not None
    # k=4: 16 hosts, 8 edge + 8 aggregation + 4 core switches
    tiers = [d.tier.value for d in dialog.design.devices if d.tier is not None]
    assert (tiers.count("leaf"), tiers.count("spine"), tiers.count("core")) == (8, 8, 4)
    assert sum(dialog.report.switches.values()) == 20
    assert dialog._ok_button().isEnabled()


@pytest.mark.slow
def test_refused_parameters_explain_and_disable_create(qtbot: Any) -> None:
    from designer.catalog.loader import default_catalog

    dialog = TemplateDialog(default_catalog())
    qtbot.addWidget(dialog)
    dialog.kind_combo.setCurrentIndex(KINDS.index("k_ary"))
    dialog.k_k.setValue(3)  # k must be even
    dialog.update_preview()
    assert dialog.design is None
    assert dialog.message.text().startswith("Cannot generate this design:")
    assert not dialog._ok_button().isEnabled()


@pytest.mark.slow
def test_fat_tree_with_three_tiers_has_a_core(qtbot: Any) -> None:
    from designer.catalog.loader import default_catalog

    dialog = TemplateDialog(default_catalog())
    qtbot.addWidget(dialog)
    dialog.kind_combo.setCurrentIndex(KINDS.index("fat_tree"))
    dialog.ft_nodes.setValue(64)
    dialog.ft_tiers.setCurrentIndex(dialog.ft_tiers.findData("3"))
    dialog.update_preview()
    assert dialog.report is not None
    assert dialog.report.switches.get("core", 0) > 0
    assert "core" in dialog.preview_labels["switches"].text()
