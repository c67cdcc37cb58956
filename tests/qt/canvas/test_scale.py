"""A 100,000-GPU design stays usable: far fewer items than links, semantic zoom."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF

from designer.core.device_commands import move_devices
from designer.generate import fat_tree


@pytest.fixture(scope="module")
def big_design():
    """fat_tree("dgx-h100", 12500, "qm9700"): 100,000 GPUs, ~300k links."""
    return fat_tree("dgx-h100", 12500, "qm9700")


@pytest.mark.slow
def test_100k_gpus_scene_holds_far_fewer_items_than_links(
    make_view, big_design
) -> None:
    view = make_view(big_design.model_copy(deep=True))
    view.fit_all()
    scene = view.design_scene
    links = len(view.document.design.links)
    assert links > 250_000
    items = len(scene.items())
    assert items < links / 10
    # the whole-design view is the quotient: pods and a core block, one trunk each
    assert scene.overview
    blocks = scene.block_items()
    assert 10 <= len(blocks) + scene.trunk_count() < 200
    assert any("GPUs" in b.summary for b in blocks)
    assert (
        sum(
            int(b.summary.split(" GPUs")[0].split(" · ")[-1].replace(",", ""))
            for b in blocks
            if " GPUs" in b.summary
        )
        == 100_000
    )


@pytest.mark.slow
def test_100k_zoom_in_shows_devices_and_edits_stay_one_step(
    make_view, big_design
) -> None:
    view = make_view(big_design.model_copy(deep=True))
    view.fit_all()
    scene = view.design_scene
    su = next(g.id for g in view.document.design.groups if g.kind == "su")
    members = view.group_members(su)
    view.select_ids(members, center=True)
    assert not scene.overview
    first = scene.item_for(members[0])
    assert first is not None and first.isVisible()
    visible = view.mapToScene(view.viewport().rect()).boundingRect()
    assert visible.contains(first.pos())
    d = view.document.design.device_map()[members[0]]
    view.document.execute(move_devices({d.id: (d.x + 32, d.y)}))
    assert scene.item_for(d.id).pos().x() == d.x + 32
    view.document.undo()
    assert scene.item_for(d.id).pos().x() == d.x
    # the link layer only draws what meets the view
    g = scene.geometry
    r = view.mapToScene(view.viewport().rect()).boundingRect()
    shown = g.segments_in_rect(
        scene.link_mask(), (r.left(), r.top(), r.right(), r.bottom())
    )
    assert 0 < shown.size < len(g.link_ids) / 5
    assert isinstance(r, QRectF)
