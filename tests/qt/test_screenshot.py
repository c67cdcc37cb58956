"""Headless rendering: run_gui(FILE, screenshot=OUT) writes the real window to PNG."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QImage

from designer.generate import fat_tree
from designer.io import save_design
from designer.qt.app import SCREENSHOT_SIZE, run_gui

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.json"))


def _distinct_colours(image: QImage) -> int:
    colours = set()
    for y in range(0, image.height(), 17):
        for x in range(0, image.width(), 13):
            colours.add(image.pixel(x, y))
    return len(colours)


@pytest.mark.slow
def test_screenshot_of_a_generated_design(qapp: Any, tmp_path: Path) -> None:
    design_path = tmp_path / "pod.json"
    save_design(fat_tree("dgx-h100", 16, "qm9700"), design_path)
    out = tmp_path / "pod.png"
    assert run_gui(str(design_path), str(out)) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == SCREENSHOT_SIZE
    assert _distinct_colours(image) > 20  # panels, canvas and charts were drawn


@pytest.mark.slow
def test_screenshot_of_a_bad_file_fails_with_code_2(
    qapp: Any, tmp_path: Path, capsys: Any
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2", encoding="utf-8")
    out = tmp_path / "bad.png"
    assert run_gui(str(bad), str(out)) == 2
    assert not out.exists()
    assert "bad.json" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("sample", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_screenshot_of_every_sample(qapp: Any, tmp_path: Path, sample: Path) -> None:
    out = tmp_path / f"{sample.stem}.png"
    assert run_gui(str(sample), str(out)) == 0
    assert QImage(str(out)).width() == SCREENSHOT_SIZE[0]
