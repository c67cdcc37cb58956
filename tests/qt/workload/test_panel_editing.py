"""Editing the workload in the panel: one undo step per edit, saved in the
file, results that follow; the estimate runs off the GUI thread and drops
stale results; the N-1 worst switch selects on the canvas."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

import designer.workload
from designer.core.device_commands import AddDevices
from designer.core.model import Device
from designer.io import load_design
from designer.qt.workload.panel import NO_BLOCK
from designer.workload.facts import CLOUD_RATES
from tests.qt.helpers import settle
from tests.qt.workload.helpers import (
    SAMPLES,
    cli_json,
    open_sample,
    wait_estimate,
)

BIG = "dgx-h100-superpod-4su.json"


def _type(qtbot: Any, edit: Any, text: str) -> None:
    """Type into a field as a user does, then press Enter."""
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)
    qtbot.keyClick(edit, Qt.Key.Key_Return)


@pytest.mark.slow
def test_an_edit_is_one_undo_step_and_updates_the_results(
    qtbot: Any, main_window: Any
) -> None:
    window = open_sample(qtbot, main_window, BIG)
    before = window.document.design.model_dump()
    days = window.workload_panel.estimate.days
    steps = len(window.document.history.done)
    _type(qtbot, window.workload_panel.form.edits["mfu"], "50%")
    assert len(window.document.history.done) == steps + 1
    assert window.document.history.undo_label == "Set MFU"
    assert window.document.design.workload.mfu == 0.5
    est = wait_estimate(qtbot, window)
    # a given MFU overrides the modelled one and says so (issue 17)
    assert est.step.mfu_source == "given"
    assert est.flops_total is not None
    peak = 989e12  # H100 SXM BF16, the catalog's dense peak
    assert est.days == pytest.approx(
        est.flops_total / (est.parallelism.gpus_used * peak * 0.5 * 86_400)
    )
    assert est.days != pytest.approx(days)
    row = window.workload_panel.tree.by_path["days"]
    assert f"{est.days:,.0f} days" in row.text(1)
    window.document.undo()
    assert window.document.design.model_dump() == before
    assert window.workload_panel.form.edits["mfu"].text() == ""
    assert wait_estimate(qtbot, window).days == pytest.approx(days)
    window.document.redo()
    assert window.workload_panel.form.edits["mfu"].text() == "0.5"


@pytest.mark.slow
def test_the_edit_is_saved_in_the_file(
    qtbot: Any, main_window: Any, tmp_path: Path
) -> None:
    window = open_sample(qtbot, main_window, BIG)
    panel = window.workload_panel
    _type(qtbot, panel.form.edits["tokens"], "2T")
    job = panel.form.job
    job.setCurrentIndex(job.findData("finetune"))
    assert window.document.history.undo_label == "Set job"
    out = tmp_path / "saved.json"
    assert window.save_to(out)
    saved = load_design(out).workload
    assert saved is not None
    assert (saved.model, saved.tokens, saved.job.value) == (
        "llama3-70b",
        2e12,
        "finetune",
    )
    est = wait_estimate(qtbot, window)
    data = cli_json(out)
    assert est.days == pytest.approx(data["days"])
    assert est.fits == data["fits"]


@pytest.mark.slow
def test_a_bad_value_is_refused_without_a_step(qtbot: Any, main_window: Any) -> None:
    window = open_sample(qtbot, main_window, BIG)
    steps = len(window.document.history.done)
    form = window.workload_panel.form
    _type(qtbot, form.edits["mfu"], "1.5")
    assert len(window.document.history.done) == steps
    assert form.error.isVisibleTo(form)
    assert "MFU" in form.error.text() and "1" in form.error.text()
    _type(qtbot, form.edits["tokens"], "lots")
    assert "Training tokens: expected a count" in form.error.text()
    assert len(window.document.history.done) == steps
    _type(qtbot, form.edits["tokens"], "15.6T")
    assert window.document.design.workload.tokens == 15.6e12
    assert not form.error.isVisibleTo(form)


@pytest.mark.slow
def test_estimate_runs_off_the_gui_thread(
    qtbot: Any, main_window: Any, monkeypatch: Any
) -> None:
    real = designer.workload.estimate
    threads: list[threading.Thread] = []

    def recording(*args: Any, **kw: Any) -> Any:
        threads.append(threading.current_thread())
        return real(*args, **kw)

    monkeypatch.setattr(designer.workload, "estimate", recording)
    window = open_sample(qtbot, main_window, BIG)
    _type(qtbot, window.workload_panel.form.edits["years"], "3")
    wait_estimate(qtbot, window)
    assert len(threads) >= 2
    assert all(t is not threading.main_thread() for t in threads)


@pytest.mark.slow
def test_stale_results_are_dropped_and_estimating_is_shown(
    qtbot: Any, main_window: Any, monkeypatch: Any
) -> None:
    window = open_sample(qtbot, main_window, BIG)
    real = designer.workload.estimate
    seen: list[float | None] = []

    def slow(design: Any, *args: Any, **kw: Any) -> Any:
        time.sleep(0.3)
        est = real(design, *args, **kw)
        seen.append(design.workload.mfu)
        return est

    monkeypatch.setattr(designer.workload, "estimate", slow)
    panel = window.workload_panel
    shown: list[object] = []
    panel.runner.estimate_ready.connect(shown.append)
    _type(qtbot, panel.form.edits["mfu"], "0.3")
    assert panel.state.text() == "Estimating…"
    _type(qtbot, panel.form.edits["mfu"], "0.45")
    est = wait_estimate(qtbot, window)
    assert window.document.design.workload.mfu == 0.45
    assert [a.value for a in est.assumptions if a.name == "mfu"] == [0.45]
    # every result shown was the current one; the 0.3 job (if it ran) was dropped
    assert all(e is est for e in shown)
    assert seen[-1] == 0.45
    assert panel.state.text().startswith("Up to date")


@pytest.mark.slow
def test_workload_edits_reuse_the_design_facts(qtbot: Any, main_window: Any) -> None:
    window = open_sample(qtbot, main_window, BIG)
    runner = window.estimate_runner
    reads = runner.facts_reads
    analysed = window.runner.generation
    _type(qtbot, window.workload_panel.form.edits["pue"], "1.5")
    wait_estimate(qtbot, window)
    assert runner.facts_reads == reads  # no new analysis, no new N-1 search
    assert window.runner.generation == analysed  # the validator did not re-run
    window.document.execute(
        AddDevices([Device(id="extra-dgx", catalog_id="dgx-h100", x=0, y=900)])
    )
    est = wait_estimate(qtbot, window)
    assert runner.facts_reads == reads + 1
    assert est.gpus == 1016 + 8


@pytest.mark.slow
def test_worst_switch_selects_on_the_canvas(qtbot: Any, main_window: Any) -> None:
    window = open_sample(qtbot, main_window, BIG)
    panel = window.workload_panel
    worst = panel.estimate.n_minus_1.worst_device
    assert worst and panel.select_worst.isEnabled()
    assert panel.select_worst.text() == f"Select {worst}"
    qtbot.mouseClick(panel.select_worst, Qt.MouseButton.LeftButton)
    assert window.canvas.selected_ids() == [worst]
    window.canvas.select_ids([], center=False)
    # the figure row names it too: one click selects
    tree = panel.tree
    item = tree.by_path["n_minus_1.worst_device"]
    tree.scrollToItem(item)
    rect = tree.visualItemRect(item)
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.canvas.selected_ids() == [worst]


@pytest.mark.slow
def test_cut_off_finding_selects_its_leaf(qtbot: Any, main_window: Any) -> None:
    window = open_sample(qtbot, main_window, "minimum-viable-enterprise.json")
    findings = window.workload_panel.findings
    codes = [findings.item(i).toolTip() for i in range(findings.count())]
    index = next(i for i, tip in enumerate(codes) if "[N1_GPUS_CUT_OFF]" in tip)
    item = findings.item(index)
    rect = findings.visualItemRect(item)
    qtbot.mouseClick(findings.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.canvas.selected_ids() == ["leaf-01"]


@pytest.mark.slow
def test_a_design_without_a_block_starts_one_from_a_preset(
    qtbot: Any, main_window: Any
) -> None:
    window = main_window()
    assert window.open_path(SAMPLES / "development.json")
    settle(qtbot, window)
    panel = window.workload_panel
    assert window.document.design.workload is None
    assert panel.state.text() == NO_BLOCK
    assert panel.estimate is None and panel.tree.topLevelItemCount() == 0
    combo = panel.form.model
    combo.setCurrentIndex(combo.findData("llama3-8b"))
    assert window.document.history.undo_label == "Set model Llama 3 8B"
    assert len(window.document.history.done) == 1
    est = wait_estimate(qtbot, window)
    assert est.model.name == "Llama 3 8B"
    assert panel.form.edits["tokens"].placeholderText() == "15T (preset)"
    window.document.undo()
    assert window.document.design.workload is None
    qtbot.waitUntil(lambda: panel.state.text() == NO_BLOCK)


def test_without_a_block_design_edits_do_not_clear_the_panel_again(
    qtbot: Any, main_window: Any
) -> None:
    """No block: the panel is cleared once, not on every design edit (that
    redid the form's hints and rate table, ~1 ms of the GUI thread per edit,
    and sent the user back to the inputs tab)."""
    window = main_window()
    assert window.open_path(SAMPLES / "development.json")
    settle(qtbot, window)
    runner, panel = window.estimate_runner, window.workload_panel
    cleared: list[int] = []
    runner.cleared.connect(lambda: cleared.append(1))
    panel.tabs.setCurrentIndex(0)
    for k in range(3):
        window.document.execute(
            AddDevices([Device(id=f"extra-{k}", catalog_id="dgx-h100", x=k * 50.0)])
        )
        settle(qtbot, window)
    qtbot.wait(400)  # past the estimate's design debounce
    assert cleared == [] and panel.tabs.currentIndex() == 0
    assert panel.state.text() == NO_BLOCK
    combo = panel.form.model
    combo.setCurrentIndex(combo.findData("llama3-8b"))
    wait_estimate(qtbot, window)
    window.document.undo()  # the block goes: cleared again, once
    qtbot.waitUntil(lambda: panel.state.text() == NO_BLOCK)
    assert cleared == [1] and panel.estimate is None


@pytest.mark.slow
def test_cloud_rate_table_edits_are_one_step(qtbot: Any, main_window: Any) -> None:
    window = open_sample(qtbot, main_window, BIG)
    form = window.workload_panel.form
    table = form.rates
    assert table.rowCount() >= 3 and not form.builtin.isEnabled()
    table.item(0, 1).setText("3.0")  # the H100 market rate, the default
    assert window.document.history.undo_label == "Edit cloud rates"
    rates = window.document.design.workload.cloud_rates
    assert rates is not None and rates[0].usd_per_gpu_hour == 3.0
    # a rate in the design needs a date: the undated built-in one is left out
    assert [r.name for r in rates] == [r.name for r in CLOUD_RATES if r.date]
    est = wait_estimate(qtbot, window)
    assert est.tco.cloud_usd_per_gpu_hour == 3.0
    assert est.tco.breakeven_utilization == pytest.approx(
        est.tco.owned_usd_per_gpu_hour / 3.0
    )
    assert table.item(0, 5).text() == f"{est.tco.breakeven_utilization:.1%}"
    steps = len(window.document.history.done)
    table.item(0, 3).setText("May 2026")  # not a date: refused, table restored
    assert len(window.document.history.done) == steps
    assert "date" in form.error.text()
    assert table.item(0, 3).text() == rates[0].date
    qtbot.mouseClick(form.builtin, Qt.MouseButton.LeftButton)
    assert window.document.design.workload.cloud_rates is None


@pytest.mark.slow
@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_dock_is_tabbed_with_the_validator_and_the_canvas_keeps_half(
    qtbot: Any, tmp_path: Path, size: tuple[int, int]
) -> None:
    from designer.qt.main_window import MainWindow
    from tests.qt.helpers import window_png

    window = MainWindow(persist=False, autosave=False)
    qtbot.addWidget(window)
    window.resize(*size)
    assert window.open_path(SAMPLES / BIG)
    window.show()
    wait_estimate(qtbot, window)
    assert window.workload_dock in window.tabifiedDockWidgets(window.validator_dock)
    window.workload_dock.raise_()
    image = window_png(window, tmp_path / "window.png", size)
    assert (image.width(), image.height()) == size
    assert window.canvas.width() >= size[0] / 2
    panel = window.workload_panel
    assert panel.isVisible() and panel.tree.isVisible()
    assert panel.width() <= window.width() - window.canvas.width()
    window.document.mark_clean()
    window.close()


@pytest.mark.slow
def test_the_estimate_reads_the_validators_analysis(
    qtbot: Any, main_window: Any
) -> None:
    """Issue 17: the editor's estimate takes the worker's report and index of
    the current state; it never analyses the design a second time."""
    window = open_sample(qtbot, main_window, BIG)
    runner = window.estimate_runner
    reports: list[object] = []
    window.runner.report_ready.connect(reports.append)
    window.document.execute(
        AddDevices([Device(id="extra-dgx-2", catalog_id="dgx-h100", x=0, y=900)])
    )
    est = wait_estimate(qtbot, window)
    assert est.gpus == 1016 + 8
    assert runner.own_analyses == 0
    facts = runner._cache.facts
    # the very report object the validator showed (refinements may follow it)
    assert facts is not None and any(facts.report is r for r in reports)
    assert facts._index is window.runner.latest_index


def test_a_panel_deleted_before_its_deferred_fit_runs_is_left_alone(
    qtbot: Any, main_window: Any
) -> None:
    """Showing an estimate fits the panel's splitter on the next turn of the
    event loop; a window closed and deleted before that turn (a test's
    teardown, a window closed at once) must not have the fit reach its
    deleted splitter (that raised in the Qt event loop)."""
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication

    window = open_sample(qtbot, main_window, "minimum-viable-enterprise.json")
    panel = window.workload_panel
    panel.show_estimate(panel.estimate)  # the fit is now due on the next turn
    window.document.mark_clean()
    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
    QApplication.processEvents()  # the turn the fit was due in
