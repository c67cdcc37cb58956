"""Issue 16 item 11: the canvas, the Racks dock and the report's unit key call
a device the same (dgx-0004, not "DGX H100 #4" in one and the id in another);
a storage or head node dropped from the catalog is named by its id."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from designer.catalog.loader import default_catalog
from designer.io import load_design
from designer.qt.export.su_pages import unit_key
from tests.qt.helpers import settle

SAMPLE = Path(__file__).resolve().parents[3] / "samples" / "dgx-h100-superpod-4su.json"


@pytest.mark.slow
def test_canvas_racks_and_report_use_one_name(qtbot: Any, main_window: Any) -> None:
    window = main_window()
    assert window.open_path(SAMPLE)
    settle(qtbot, window)
    item = window.canvas.design_scene.state.items["dgx-0004"]
    assert item.title == "dgx-0004"
    docks = window.physical_docks
    rack = docks.live.rack_of("dgx-0004")
    assert rack is not None
    slot = next(s for s in docks.live.rack(rack).devices if s.device == "dgx-0004")
    assert slot.label == "dgx-0004"
    design = load_design(SAMPLE)
    members = {d.id for d in design.devices if d.group == "su01"}
    key = unit_key(design, members, default_catalog())
    assert "dgx-0001 – 0031" in key and "#" not in key.split("·")[1]
    # a switch's own label still names it everywhere
    leaf = window.canvas.design_scene.state.items["leaf-su01-r0"]
    assert leaf.title == "Leaf SU1 rail 0"


def test_a_dropped_appliance_and_head_node_are_named_by_their_ids(
    qtbot: Any, main_window: Any
) -> None:
    window = main_window()
    for catalog_id in ("lustre-appliance", "head-node"):
        window.add_catalog_item(catalog_id, 1)
    settle(qtbot, window)
    devices = {d.catalog_id: d for d in window.document.design.devices}
    cat = default_catalog()
    for catalog_id in ("lustre-appliance", "head-node"):
        d = devices[catalog_id]
        title = window.canvas.design_scene.state.items[d.id].title
        assert title == d.id == f"{catalog_id}-1"
        assert "(" not in title
        assert cat[catalog_id].model not in title
