"""SVG and PNG drawings: every visible device is drawn; selections draw a subset."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from PySide6.QtGui import QImage

from designer.qt.export import write_png, write_svg
from tests.io.export.designs import rail_design

SVG = "{http://www.w3.org/2000/svg}"


def _svg_texts(path: Path) -> list[str]:
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"
    return ["".join(t.itertext()).strip() for t in root.iter(f"{SVG}text")]


def test_svg_has_every_device(tmp_path: Path) -> None:
    design = rail_design()
    out = write_svg(tmp_path / "d.svg", design)
    texts = _svg_texts(out)
    for d in design.devices:
        assert d.label in texts, d.label


def test_svg_selection_only(tmp_path: Path) -> None:
    design = rail_design()
    ids = {"dgx-01", "leaf-1"}
    texts = _svg_texts(write_svg(tmp_path / "s.svg", design, ids=ids))
    assert "DGX 01" in texts
    assert "Leaf 1" in texts
    assert "DGX 02" not in texts
    assert "Spine 1" not in texts


def test_png_is_drawn(tmp_path: Path) -> None:
    design = rail_design()
    out = write_png(tmp_path / "d.png", design, long_side=800)
    image = QImage(str(out))
    assert max(image.width(), image.height()) == 800
    # the DGX boxes are NVIDIA green somewhere on the picture
    greens = sum(
        1
        for y in range(0, image.height(), 4)
        for x in range(0, image.width(), 4)
        if image.pixelColor(x, y).name() == "#76b900"
    )
    assert greens > 50
