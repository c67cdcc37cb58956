"""The Workload panel's Serving tab: the same figures as ``estimate --json``'s
``inference``, edits of the request mix and targets as one undo step each, a
chart of the batch sweep with the TPOT limit, and sizing a serving cluster for
a requests/s target from the editor."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from designer.core.commands import SetWorkload
from designer.core.formatting import quantity
from designer.qt.workload.serving import ServingView
from tests.qt.workload.helpers import SAMPLES, cli_json, open_sample, wait_estimate

ETH = "inference-ethernet.json"


def _type(qtbot: Any, edit: Any, text: str) -> None:
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)
    qtbot.keyClick(edit, Qt.Key.Key_Return)


def _show(window: Any) -> Any:
    window.workload_dock.raise_()
    panel = window.workload_panel
    panel.tabs.setCurrentIndex(panel.tabs.count() - 1)
    assert panel.tabs.tabText(panel.tabs.currentIndex()) == "Serving"
    return panel.serving


def test_serving_tab_equals_the_cli(qtbot: Any, main_window: Any) -> None:
    window = open_sample(qtbot, main_window, ETH)
    view = _show(window)
    cli = cli_json(SAMPLES / ETH)["inference"]
    inf = window.workload_panel.estimate.inference
    assert inf is not None
    assert inf.requests_per_s == pytest.approx(cli["requests_per_s"])
    assert inf.replica.model_dump() == cli["replica"]
    serves = view.labels["Serves"].text()
    assert f"{quantity(cli['requests_per_s'])} requests/s" in serves
    assert f"{quantity(cli['tokens_per_s'])} output tokens/s" in serves
    r = cli["replica"]
    assert view.labels["Replica"].text().startswith(f"TP {r['tp']} x PP {r['pp']}")
    assert f"{quantity(cli['tpot_ms'])} ms" in view.labels["Latency"].text()
    # the chart is the sweep, with the TPOT limit drawn
    assert [p[2] for p in view.points] == [p["batch"] for p in cli["sweep"]]
    assert view.tpot_line == pytest.approx(cli["tpot_limit_ms"])
    codes = [view.findings.item(i).toolTip() for i in range(view.findings.count())]
    assert any("[INFERENCE_SERVES]" in c for c in codes)
    # the Results tab's answers carry the same serving lines
    assert "Serves" in window.workload_panel.summary_labels


def test_the_tab_is_built_when_first_shown_with_what_came_before(
    qtbot: Any, main_window: Any
) -> None:
    """Most windows never show the Serving tab, so it is built when first
    shown: with the estimate and the inputs of the design as they are then, and
    following both from there."""
    window = open_sample(qtbot, main_window, ETH)
    panel = window.workload_panel
    assert panel.findChildren(ServingView) == []
    # an edit before the tab exists: the tab shows it when built
    panel.document.execute(
        SetWorkload(panel.document.design.workload.model_copy(update={"tpot_ms": 30}))
    )
    est = wait_estimate(qtbot, window)
    panel.tabs.setCurrentIndex(panel.tabs.count() - 1)
    (view,) = panel.findChildren(ServingView)
    assert view is panel.serving
    assert view.estimate is est
    assert view.edits["tpot_ms"].text() == "30"
    # and it follows the next edit's inputs and estimate
    window.document.undo()
    assert view.edits["tpot_ms"].text() == ""
    after = wait_estimate(qtbot, window)
    assert est.inference.tpot_limit_ms == 30 != after.inference.tpot_limit_ms
    assert view.estimate is after


def test_edits_are_one_step_and_move_the_figures(qtbot: Any, main_window: Any) -> None:
    window = open_sample(qtbot, main_window, ETH)
    view = _show(window)
    before = window.workload_panel.estimate.inference.requests_per_s
    steps = len(window.document.history.done)
    _type(qtbot, view.edits["tpot_ms"], "20")
    assert len(window.document.history.done) == steps + 1
    assert window.document.history.undo_label == "Set tpot limit"
    assert window.document.design.workload.tpot_ms == 20
    est = wait_estimate(qtbot, window)
    assert est.inference.tpot_limit_ms == 20
    assert est.inference.requests_per_s < before
    assert est.inference.tpot_ms <= 20
    # a bad value is refused without a step, with the field named
    _type(qtbot, view.edits["output_tokens"], "many")
    assert len(window.document.history.done) == steps + 1
    assert "Output" in view.error.text()
    window.document.undo()
    assert window.document.design.workload.tpot_ms is None
    assert view.edits["tpot_ms"].text() == ""


def test_sizing_a_cluster_for_a_requests_target(qtbot: Any, main_window: Any) -> None:
    """The issue's 'done when': size a serving cluster for a requests/s target
    from the editor."""
    window = open_sample(qtbot, main_window, ETH)
    view = _show(window)
    have = window.workload_panel.estimate.inference.requests_per_s
    _type(qtbot, view.edits["requests_per_s"], f"{have * 4:.0f}")
    est = wait_estimate(qtbot, window)
    t = est.inference.target
    assert t is not None and t.met is False
    assert 4 * 128 * 0.9 <= t.gpus_needed <= 4 * 128 * 1.1
    text = view.labels["Target"].text()
    assert "not met" in text and f"{t.gpus_needed:,} in all" in text
    cli = cli_json(SAMPLES / ETH, "--requests-per-s", f"{have * 4:.0f}")
    assert cli["inference"]["target"]["gpus_needed"] == t.gpus_needed
    # the KV cache and disaggregation choices are workload fields too
    view.kv.setCurrentIndex(view.kv.findData("bf16"))
    assert window.document.design.workload.kv_precision.value == "bf16"
    est = wait_estimate(qtbot, window)
    assert est.inference.kv_precision == "bf16"
    view.disaggregated.setChecked(True)
    assert window.document.design.workload.disaggregated is True


def test_a_training_job_says_where_serving_is(qtbot: Any, main_window: Any) -> None:
    window = open_sample(qtbot, main_window, "minimum-viable-enterprise.json")
    view = _show(window)
    assert "inference jobs" in view.note.text()
    assert view.labels == {} and view.points == []


@pytest.mark.slow
@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_render_serving_tab(
    qtbot: Any, main_window: Any, tmp_path: Path, size: tuple[int, int]
) -> None:
    """Render the window with the Serving tab (kept when SERVING_PNG_DIR is
    set, to look at)."""
    window = open_sample(qtbot, main_window, ETH)
    _show(window)
    window.resize(*size)
    qtbot.wait(200)
    name = f"serving-{size[0]}x{size[1]}.png"
    out = Path(os.environ.get("SERVING_PNG_DIR", tmp_path)) / name
    assert window.grab().save(str(out))
    assert out.stat().st_size > 10_000
