"""Issue 16 item 13: what the 100K walkthrough found in the overview: pods
drawn as empty boxes with their titles set outside (past the grid), the
per-tier chart's labels run together, a row of new devices off-screen, and
the export dialog suggesting the samples' folder inside the installation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QApplication

from designer.analysis import analyze
from designer.generate import fat_tree
from designer.io.filenames import export_folder
from designer.qt.charts import TICK_PT, ChartsPanel
from tests.qt.helpers import settle

SAMPLES = Path(__file__).resolve().parents[3] / "samples"


@pytest.fixture(scope="module")
def pods() -> Any:
    return fat_tree("dgx-h100", 3000, "qm9700")  # 3 tiers: 24 pods in a grid


@pytest.mark.slow
def test_pod_titles_stay_in_their_blocks_in_the_overview(
    qtbot: Any, main_window: Any, pods: Any
) -> None:
    window = main_window()
    window.resize(1280, 800)
    window.adopt_generated(pods)
    settle(qtbot, window)
    window.canvas.fit_all()
    settle(qtbot, window)
    scene = window.canvas.design_scene
    assert scene.overview
    blocks = [b for b in scene.state.block_items if b.title.startswith("Pod")]
    assert len(blocks) >= 20
    transform = window.canvas.viewportTransform()
    for b in blocks:
        rect = transform.mapRect(b.rect)
        if b.shown_lines(rect):  # the title shows inside: it is drawn there
            assert not b.title_outside, b.title


def test_per_tier_labels_fit_side_by_side(qapp: Any) -> None:
    report = analyze(fat_tree("dgx-h100", 1280, "qm9700"))
    assert list(report.tiers) == ["leaf", "spine", "core"]
    panel = ChartsPanel()
    panel.resize(640, 200)
    panel.show()
    panel.show_report(report)
    QApplication.processEvents()
    axis = panel.tier_plot.getAxis("bottom")
    ticks = axis._tickLevels[0]  # what setTicks was given
    assert [t[1].split("\n")[0] for t in ticks] == ["leaf", "spine", "core"]
    font = QFont()
    font.setPointSizeF(TICK_PT)
    fm = QFontMetricsF(font)
    view = panel.tier_plot.getViewBox()
    low, high = view.viewRange()[0]
    px_per_tier = view.sceneBoundingRect().width() / (high - low)
    widest = max(fm.horizontalAdvance(line) for t in ticks for line in t[1].split("\n"))
    assert widest + 4 <= px_per_tier  # neighbours' labels do not touch
    panel.close()


def test_a_row_of_new_devices_lands_on_screen(qtbot: Any, main_window: Any) -> None:
    window = main_window()
    window.resize(1280, 800)
    settle(qtbot, window)
    window.canvas.zoom_to_rect(window.canvas.mapToScene(0, 0, 300, 200).boundingRect())
    settle(qtbot, window)
    window.add_catalog_item("dgx-h100", 8)
    settle(qtbot, window)
    ids = [d.id for d in window.document.design.devices]
    assert len(ids) == 8
    visible = window.canvas.mapToScene(window.canvas.viewport().rect()).boundingRect()
    target = window.canvas._ids_rect(ids)
    assert target is not None and visible.contains(target)


def test_export_folder_is_never_the_installations(tmp_path: Path) -> None:
    installed = [tmp_path / "app"]
    samples = tmp_path / "app" / "samples"
    samples.mkdir(parents=True)
    mine = tmp_path / "work"
    mine.mkdir()
    home = tmp_path / "home"
    sample = samples / "x.json"
    assert export_folder(sample, None, home, installed) == home
    assert export_folder(sample, str(samples), home, installed) == home
    assert export_folder(sample, str(mine), home, installed) == mine
    assert export_folder(mine / "d.json", str(samples), home, installed) == mine
    # the shipped samples' folder itself is among the installation's
    from designer.io.filenames import installation_folders

    assert export_folder(SAMPLES / "development.json", None, home) == home
    assert any(SAMPLES.resolve() == r for r in installation_folders())


def test_export_dialog_after_opening_a_sample_starts_outside_it(
    qtbot: Any, main_window: Any, monkeypatch: Any
) -> None:
    import designer.qt.export.dialog as dialog_module

    seen: dict[str, Any] = {}

    class Capture:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            seen.update(kwargs)

        def exec(self) -> int:
            return 0

    monkeypatch.setattr(dialog_module, "ExportDialog", Capture)
    window = main_window()
    assert window.open_path(SAMPLES / "development.json")
    window.export()
    folder = Path(seen["directory"]).resolve()
    assert folder != SAMPLES.resolve() and SAMPLES.resolve() not in folder.parents
