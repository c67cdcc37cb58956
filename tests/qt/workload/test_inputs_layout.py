"""Issue 16 item 9: the Workload Inputs tab fits its dock at 1280x800 (no
sideways scroll, preset and source text whole), units said once, placeholders
formatted, no command-line wording in the panel."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QFormLayout, QLabel, QScrollArea

from designer.core.workload import Job
from designer.view.workload.fields import FIELDS, field_label
from designer.view.workload.summary import summary, value_text
from tests.qt.helpers import settle
from tests.qt.workload.helpers import SAMPLES, wait_estimate
from tests.workload.conftest import dgx_tree, run


@pytest.mark.slow
def test_inputs_tab_fits_the_dock_at_1280x800(qtbot: Any, main_window: Any) -> None:
    window = main_window()
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280)
    window._default_dock_sizes()
    assert window.open_path(SAMPLES / "dgx-h100-superpod-4su.json")
    wait_estimate(qtbot, window)
    window.workload_dock.show()
    window.workload_dock.raise_()
    panel = window.workload_panel
    panel.tabs.setCurrentIndex(panel.tabs.indexOf(panel.tabs.widget(1)))
    settle(qtbot, window)
    QApplication.processEvents()
    form = panel.form
    area = form.parentWidget().parentWidget()
    assert isinstance(area, QScrollArea)
    assert not area.horizontalScrollBar().isVisible()
    assert form.width() <= area.viewport().width()
    right = area.viewport().width()
    # the preset's name and its source are whole, inside the visible width
    combo = form.model
    text_width = combo.fontMetrics().horizontalAdvance(combo.currentText())
    assert combo.width() > text_width + 20
    assert combo.mapTo(form, combo.rect().topRight()).x() <= right
    source = form.model_source
    assert source.text().startswith("Source: Llama 3 paper")
    assert source.mapTo(form, source.rect().topRight()).x() <= right
    assert source.height() >= source.heightForWidth(source.width())
    # every field lies inside the visible width
    for name, edit in form.edits.items():
        if edit.isVisible():
            assert edit.mapTo(form, edit.rect().topRight()).x() <= right, name


@pytest.mark.slow
def test_serving_tab_fits_the_dock_at_1280x800(qtbot: Any, main_window: Any) -> None:
    """No sideways scroll on the Serving tab either: its box title once made it
    wider than the dock and cut every line at the right edge."""
    window = main_window()
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280)
    window._default_dock_sizes()
    assert window.open_path(SAMPLES / "inference-ethernet.json")
    wait_estimate(qtbot, window)
    window.workload_dock.show()
    window.workload_dock.raise_()
    panel = window.workload_panel
    panel.tabs.setCurrentIndex(
        panel.tabs.indexOf(panel.serving.parentWidget().parentWidget())
    )
    settle(qtbot, window)
    QApplication.processEvents()
    view = panel.serving
    area = view.parentWidget().parentWidget()
    assert isinstance(area, QScrollArea)
    assert panel.tabs.currentWidget() is area
    assert not area.horizontalScrollBar().isVisible()
    right = area.viewport().width()
    assert view.width() <= right
    for name, edit in view.edits.items():
        assert edit.mapTo(view, edit.rect().topRight()).x() <= right, name


@pytest.mark.slow
def test_units_are_said_once_and_placeholders_are_formatted(
    qtbot: Any, main_window: Any
) -> None:
    window = main_window()
    assert window.open_path(SAMPLES / "dgx-h100-superpod-4su.json")
    wait_estimate(qtbot, window)
    form = window.workload_panel.form
    labels = []
    for box_form in form.findChildren(QFormLayout):
        for row in range(box_form.rowCount()):
            item = box_form.itemAt(row, QFormLayout.ItemRole.LabelRole)
            if item is not None and isinstance(item.widget(), QLabel):
                labels.append(item.widget().text())
    assert "Training tokens" in labels
    assert not [t for t in labels if t.count("tokens") > 1], labels
    for spec in FIELDS:
        assert field_label(spec).lower().count(spec.unit.lower() or "\0") <= 1
    capex = form.edits["capex_per_gpu"].placeholderText()
    assert capex.endswith("(design)")
    assert capex.split()[0].replace(",", "").isdigit(), capex  # "39,823", not 39823.44…
    assert "," in capex.split()[0]
    assert form.edits["tokens"].placeholderText() == "15T (preset)"


def test_no_command_line_options_in_the_panels_words() -> None:
    """What the panel says about a fine-tune without tokens, a model-less
    design and a GPU without a peak names inputs, not CLI options."""
    cases = [
        run(dgx_tree(2), model="llama3-8b", job=Job.FINETUNE),
        run(dgx_tree(2)),
    ]
    for est in cases:
        texts = [value_text(r) for r in est.rows()]
        texts += [line.text for line in summary(est)]
        texts += [f.message for f in est.findings]
        offending = [t for t in texts if " --" in t or "(--" in t]
        assert offending == []
    days = cases[0].unknown["days"]
    assert days == "no token count: give the number of training tokens"
