"""*Design > Compare with...*: the real dialog, driven as a user would.

The dialog's figures are the CLI's (designer.workload.compare.column of the
same design); its work runs on the worker, so a call that adds a column returns
before the column is there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from designer.core.commands import SetWorkload
from designer.core.workload import Workload
from designer.io import save_design
from designer.workload.compare import column
from designer.workload.variants import apply_variant
from tests.qt.helpers import settle
from tests.workload.conftest import dgx_tree

JOB = Workload(model="llama3-8b", tokens=1e12)
ROW_OF = {
    "GPUs": "gpus",
    "Bisection ratio": "bisection_ratio",
    "Training time": "days",
    "$ per run, owned": "usd_per_run_owned",
}


@pytest.fixture
def tree_file(tmp_path: Path) -> Path:
    """A 64-node DGX H100 fat tree with a workload block, saved."""
    design = dgx_tree(64).model_copy(update={"workload": JOB})
    path = tmp_path / "tree.json"
    save_design(design, path)
    return path


def open_compare(qtbot: Any, main_window: Any, path: Path | None) -> Any:
    """A window (with ``path`` open) and its compare dialog, once it settled."""
    window = main_window()
    if path is not None:
        assert window.open_path(path)
    settle(qtbot, window)
    design_menu = window.actions_.menus.design
    assert window.actions_.compare in design_menu.actions()
    window.actions_.compare.trigger()
    dialog = window.compare_dialog
    assert dialog is not None and dialog.isVisible()
    qtbot.waitUntil(lambda: not dialog.runner.busy, timeout=60_000)
    return window, dialog


def cell(dialog: Any, label: str, col: int) -> str:
    """The text of the table cell in row ``label`` (a row header), column ``col``."""
    table = dialog.table
    for r in range(table.rowCount()):
        head = table.verticalHeaderItem(r)
        if head is not None and head.text().rstrip(" *") == label:
            return str(table.item(r, col).text())
    raise AssertionError(f"no row {label!r}")


@pytest.mark.slow
def test_variant_columns_fill_off_the_gui_thread(
    qtbot: Any, main_window: Any, tree_file: Path
) -> None:
    _, dialog = open_compare(qtbot, main_window, tree_file)
    assert dialog.table.columnCount() == 1
    assert dialog.scenarios[0].label == "tree.json"
    dialog.add_variant("leaf-2:1")
    # the call returned at once: the column is being estimated on the worker
    assert dialog.runner.busy
    assert dialog.table.columnCount() == 1
    assert "Estimating 1 of 2" in dialog.status.text()
    assert dialog.progress.isVisibleTo(dialog)
    qtbot.waitUntil(lambda: not dialog.runner.busy, timeout=60_000)
    assert dialog.table.columnCount() == 2
    assert not dialog.progress.isVisibleTo(dialog)
    # the figures are the CLI's for the same designs
    base = dgx_tree(64).model_copy(update={"workload": JOB})
    changed, what = apply_variant(base, "leaf-2:1")
    expected = [column("tree.json", base), column("v", changed)]
    shown = dialog.comparison.designs
    assert shown[0].model_dump() == expected[0].model_dump()
    assert shown[1].model_dump(exclude={"file"}) == expected[1].model_dump(
        exclude={"file"}
    )
    assert shown[1].file == "tree.json (leaf uplinks 2:1)"
    assert cell(dialog, "Bisection ratio", 0).startswith("1.00")
    assert cell(dialog, "Bisection ratio", 1).startswith("0.50")
    assert cell(dialog, "Oversubscription", 1) == "leaf 2:1"
    assert "%" in cell(dialog, "Communication share of a step", 1)  # a change
    assert any(what in n for n in dialog.comparison.notes)
    # the chart draws the same days and dollars
    bars = dialog.chart.bars
    assert bars.days == [c.days for c in shown]
    assert bars.owned == [c.usd_per_run_owned for c in shown]
    assert len(dialog.chart.labels) == 2 * 2 + 2 * 2  # names + days, owned + cloud
    dialog.close()
    assert not dialog.runner.busy


@pytest.mark.slow
def test_files_bad_files_and_removing(
    qtbot: Any, main_window: Any, tree_file: Path, tmp_path: Path
) -> None:
    _, dialog = open_compare(qtbot, main_window, tree_file)
    small = tmp_path / "small.json"
    save_design(dgx_tree(16), small)  # no workload block: gets the open design's
    broken = tmp_path / "broken.json"
    broken.write_text('{"schema_version": 3, "devices": [', encoding="utf-8")
    dialog.add_files([str(small), str(broken)])
    qtbot.waitUntil(lambda: not dialog.runner.busy, timeout=60_000)
    assert [s.label for s in dialog.scenarios] == ["tree.json", str(small), str(broken)]
    assert dialog.table.columnCount() == 2  # the broken file is no column
    assert "cannot be compared" in dialog.list.item(2).text()
    assert str(broken) in dialog.list.item(2).toolTip()
    assert str(broken) in dialog.notes.text()
    # 512 vs 128 GPUs: said, and the size-bound rows marked
    assert "Not like for like" in dialog.notes.text()
    assert dialog.table.verticalHeaderItem(0).text() == "GPUs *"
    assert cell(dialog, "GPUs", 1) == "128   -75.0%"
    small_col = dialog.comparison.designs[1]
    assert small_col.model == "Llama 3 8B"  # the open design's workload
    # the same file again is not another column
    dialog.add_files([str(small)])
    assert len(dialog.scenarios) == 3
    assert "compared already" in dialog.status.text()
    # remove the broken one
    dialog.list.item(2).setSelected(True)
    assert dialog.remove_button.isEnabled()
    dialog.remove_button.click()
    assert [s.label for s in dialog.scenarios] == ["tree.json", str(small)]
    assert str(broken) not in dialog.notes.text()


@pytest.mark.slow
def test_one_workload_for_all_or_each_its_own(
    qtbot: Any, main_window: Any, tree_file: Path, tmp_path: Path
) -> None:
    lora = tmp_path / "lora.json"
    job = Workload(model="llama3-70b", job="lora", tokens=1e9)
    save_design(dgx_tree(16).model_copy(update={"workload": job}), lora)
    _, dialog = open_compare(qtbot, main_window, tree_file)
    assert dialog.workload_combo.currentData() == "open"
    dialog.add_files([str(lora)])
    qtbot.waitUntil(lambda: not dialog.runner.busy, timeout=60_000)
    base, other = dialog.comparison.designs
    assert (other.model, other.job, other.tokens) == (base.model, "pretrain", 1e12)
    assert not any("different workloads" in n for n in dialog.comparison.notes)
    dialog.workload_combo.setCurrentIndex(1)  # each design's own block
    assert dialog.runner.busy
    qtbot.waitUntil(lambda: not dialog.runner.busy, timeout=60_000)
    base, other = dialog.comparison.designs
    assert (other.model, other.job) == ("Llama 3 70B", "lora")
    assert "different workloads" in dialog.notes.text()


@pytest.mark.slow
def test_each_designs_own_block_and_a_design_without_one(
    qtbot: Any, main_window: Any, tmp_path: Path
) -> None:
    bare = tmp_path / "bare.json"
    save_design(dgx_tree(16), bare)
    _, dialog = open_compare(qtbot, main_window, bare)
    # no workload block: the open design's workload cannot be given to all
    assert dialog.workload_combo.currentData() == "own"
    assert not dialog.workload_combo.model().item(0).isEnabled()
    assert "no workload block" in dialog.workload_note.text()
    assert "No workload for bare" in dialog.notes.text()
    assert cell(dialog, "Training time", 0) == "unknown"
    assert cell(dialog, "Bisection ratio", 0).startswith("1.00")


@pytest.mark.slow
def test_edits_make_it_stale_and_refresh_takes_the_design_again(
    qtbot: Any, main_window: Any, tree_file: Path
) -> None:
    window, dialog = open_compare(qtbot, main_window, tree_file)
    before = dialog.comparison.designs[0]
    window.document.execute(
        SetWorkload(JOB.model_copy(update={"tokens": 2e12}), "tokens")
    )
    assert dialog.stale
    assert "changed since" in dialog.status.text()
    dialog.refresh_button.click()
    assert dialog.runner.busy
    qtbot.waitUntil(lambda: not dialog.runner.busy, timeout=60_000)
    after = dialog.comparison.designs[0]
    assert not dialog.stale
    assert after.days == pytest.approx(2 * before.days)
    assert after.usd_per_run_cloud == pytest.approx(2 * before.usd_per_run_cloud)
    # another file opened in the window: Refresh compares it, under its name
    other = tree_file.with_name("other.json")
    save_design(dgx_tree(16).model_copy(update={"workload": JOB}), other)
    window.document.mark_clean()
    assert window.open_path(other)
    assert dialog.stale
    dialog.refresh()
    qtbot.waitUntil(lambda: not dialog.runner.busy, timeout=60_000)
    assert dialog.scenarios[0].label == "other.json"
    assert dialog.comparison.designs[0].gpus == 128
    assert dialog.windowTitle() == "Compare — other.json"


@pytest.mark.slow
def test_save_json_and_copy(
    qtbot: Any, main_window: Any, tree_file: Path, tmp_path: Path
) -> None:
    _, dialog = open_compare(qtbot, main_window, tree_file)
    dialog.add_variant("half-spines")
    qtbot.waitUntil(lambda: not dialog.runner.busy, timeout=60_000)
    out = tmp_path / "comparison.json"
    dialog.save_json(out)
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [d["file"] for d in data["designs"]] == [
        "tree.json",
        "tree.json (half the spines)",
    ]
    assert data["designs"][1]["cost_usd"] < data["designs"][0]["cost_usd"]
    dialog.copy_button.click()
    from PySide6.QtGui import QGuiApplication

    text = QGuiApplication.clipboard().text()
    assert text.splitlines()[0].split("\t") == ["", "tree", "tree (half the spines)"]
    assert any(line.startswith("Training time\t") for line in text.splitlines())


@pytest.mark.slow
@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_every_row_is_visible_at_common_sizes(
    qtbot: Any, main_window: Any, tree_file: Path, tmp_path: Path, size: Any
) -> None:
    """Rendered offscreen: the whole table shows without scrolling, and the
    chart keeps at least 200 px; the picture is written for a person to see."""
    _, dialog = open_compare(qtbot, main_window, tree_file)
    dialog.add_variant("leaf-2:1")
    dialog.add_variant("minus-spine")
    qtbot.waitUntil(lambda: not dialog.runner.busy, timeout=60_000)
    dialog.resize(*size)
    qtbot.wait(50)
    table = dialog.table
    last = table.rowCount() - 1
    bottom = table.rowViewportPosition(last) + table.rowHeight(last)
    assert bottom <= table.viewport().height()
    assert table.columnCount() == 3
    right = table.columnViewportPosition(2) + table.columnWidth(2)
    assert right <= table.viewport().width()
    assert dialog.chart.height() >= 200
    image = dialog.grab()
    assert (image.width(), image.height()) == size
    image.save(str(tmp_path / f"compare-{size[0]}x{size[1]}.png"))


@pytest.mark.slow
def test_variants_that_do_not_apply_are_disabled_with_the_reason(
    qtbot: Any, main_window: Any
) -> None:
    sample = Path(__file__).resolve().parents[2] / "samples"
    _, dialog = open_compare(
        qtbot, main_window, sample / "minimum-viable-enterprise.json"
    )
    actions = {a.data(): a for a in dialog.variant_menu.actions()}
    assert not actions["half-spines"].isEnabled()
    assert "no spine tier" in actions["half-spines"].toolTip()
    assert not actions["spine-2:1"].isEnabled()
    _, dialog = open_compare(qtbot, main_window, sample / "dgx-h100-superpod-4su.json")
    actions = {a.data(): a for a in dialog.variant_menu.actions()}
    assert actions["half-spines"].isEnabled() and actions["leaf-2:1"].isEnabled()
    assert "no core tier" in actions["spine-2:1"].toolTip()
