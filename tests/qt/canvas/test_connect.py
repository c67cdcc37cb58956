"""The connect gesture makes the link the rules plan, and refuses with their reason."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QMimeData, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from designer.catalog import Catalog
from designer.core.connect import plan_connection
from designer.core.edits import copy_selection, paste
from designer.core.errors import ConnectionRefused
from designer.core.model import Design, Fabric, Link, Tier
from designer.qt.canvas.edits import FRAGMENT_MIME
from tests.qt.canvas.helpers import dev, drag, vp

Mod = Qt.KeyboardModifier


def _rack() -> Design:
    return Design(
        devices=[
            dev("dgx-01", "dgx-h100", 0, 200),
            dev("dgx-02", "dgx-h100", 200, 200),
            dev("leaf-1", "qm9700", 0, 0, Tier.LEAF),
            dev("filer", "nfs-filer", 400, 200),
            dev("oob-1", "sn2201", 400, 0),
        ]
    )


@pytest.mark.slow
def test_drag_dgx_to_leaf_takes_every_free_compute_port(
    make_view, qtbot: QtBot
) -> None:
    view = make_view(_rack())
    view.set_tool("connect")
    with qtbot.waitSignal(view.status_message) as sig:
        drag(qtbot, view, (0, 200), (0, 0))
    (link,) = list(view.document.design.links)
    assert (link.a_port, link.b_port, link.cables) == ("compute", "ports", 8)
    assert (link.speed_gbps, link.fabric.value) == (400, "compute")
    assert sig.args[0] == (
        "Connected 8 cables, compute, 400G: dgx-01 compute -> leaf-1 ports"
    )
    assert len(view.document.history.done) == 1


def test_shift_at_release_makes_one_cable(make_view, qtbot: QtBot) -> None:
    view = make_view(_rack())
    view.set_tool("connect")
    with qtbot.waitSignal(view.status_message) as sig:
        drag(qtbot, view, (0, 200), (0, 0), Mod.ShiftModifier)
    (link,) = list(view.document.design.links)
    assert link.cables == 1 and link.a_port == "compute"
    assert sig.args[0].startswith("Connected 1 cable, compute, 400G")
    # a plain drag after it takes the 7 ports still free, not 8
    drag(qtbot, view, (0, 200), (0, 0))
    assert [x.cables for x in view.document.design.links] == [1, 7]


def test_alt_drag_with_shift_makes_one_cable_and_moves_nothing(
    make_view, qtbot: QtBot
) -> None:
    view = make_view(_rack())
    drag(qtbot, view, (200, 200), (0, 0), Mod.AltModifier | Mod.ShiftModifier)
    (link,) = list(view.document.design.links)
    assert (link.a, link.b, link.cables) == ("dgx-02", "leaf-1", 1)
    assert view.document.design.device_map()["dgx-02"].x == 200


def test_filer_to_infiniband_leaf_is_refused_with_the_rules_reason(
    make_view, qtbot: QtBot, catalog: Catalog
) -> None:
    design = _rack()
    with pytest.raises(ConnectionRefused) as expected:
        plan_connection(design, "filer", "leaf-1", catalog)
    view = make_view(design)
    with qtbot.waitSignal(view.status_message) as sig:
        drag(qtbot, view, (400, 200), (0, 0), Mod.AltModifier)
    assert len(view.document.design.links) == 0
    assert view.document.history.done == []
    assert sig.args[0] == str(expected.value)
    # the reason names the mismatch (the management ports are no way out:
    # two management ports never make an out-of-band link)
    assert "Ethernet" in sig.args[0] and "InfiniBand" in sig.args[0]
    assert view.canvas_message() == sig.args[0]


@pytest.mark.slow
def test_ctrl_at_release_joins_a_bmc_to_the_management_switch(
    make_view, qtbot: QtBot
) -> None:
    view = make_view(_rack())
    with qtbot.waitSignal(view.status_message) as sig:
        drag(qtbot, view, (400, 200), (400, 0), Mod.AltModifier | Mod.ControlModifier)
    (link,) = list(view.document.design.links)
    assert (link.a_port, link.b_port, link.fabric.value) == ("bmc", "ports", "oob")
    assert (link.cables, link.speed_gbps) == (2, 1)  # the filer's two BMC ports
    assert sig.args[0] == "Connected 2 cables, oob, 1G: filer bmc -> oob-1 ports"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("start", "end", "ids"),
    [
        ((0, 200), (200, 200), ("dgx-01", "dgx-02")),  # BMC to BMC
        ((400, 200), (0, 0), ("filer", "leaf-1")),  # BMC to a leaf's mgmt port
    ],
)
def test_ctrl_at_release_refuses_an_out_of_band_link_without_a_management_switch(
    make_view, qtbot: QtBot, catalog: Catalog, start, end, ids
) -> None:
    """Before: "Connected 1 cable, oob, 1G" for a DGX BMC on another DGX's BMC
    (a Ctrl-click to multi-select in Connect mode made it)."""
    view = make_view(_rack())
    with qtbot.waitSignal(view.status_message) as sig:
        drag(qtbot, view, start, end, Mod.AltModifier | Mod.ControlModifier)
    assert len(view.document.design.links) == 0
    assert view.document.history.done == []
    with pytest.raises(ConnectionRefused) as expected:
        plan_connection(view.document.design, *ids, catalog, fabric=Fabric.OOB)
    assert sig.args[0] == str(expected.value)
    assert "are both management ports" in sig.args[0]
    assert view.canvas_message() == sig.args[0]


@pytest.mark.slow
def test_full_compute_ports_refuse_instead_of_using_the_bmc(
    make_view, qtbot: QtBot, catalog: Catalog
) -> None:
    view = make_view(_rack())
    view.set_tool("connect")
    drag(qtbot, view, (0, 200), (0, 0))
    with pytest.raises(ConnectionRefused) as expected:
        plan_connection(view.document.design, "dgx-01", "leaf-1", catalog, cables=1)
    with qtbot.waitSignal(view.status_message) as sig:
        drag(qtbot, view, (0, 200), (0, 0), Mod.ShiftModifier)
    assert [x.a_port for x in view.document.design.links] == ["compute"]
    assert sig.args[0] == str(expected.value)
    assert "9 would be in use" in sig.args[0]


@pytest.mark.slow
def test_connect_out_of_band_menu_joins_the_selected_pair(
    main_window, qtbot: QtBot
) -> None:
    window = main_window()
    window.document.reset(_rack())
    view = window.canvas
    view.select_ids(["dgx-01"], center=False)
    window.actions_.connect_oob.trigger()
    assert len(window.document.design.links) == 0
    assert "exactly two devices" in window.statusBar().currentMessage()
    view.select_ids(["dgx-01", "leaf-1"], center=False)
    window.actions_.connect_oob.trigger()
    assert len(window.document.design.links) == 0
    assert "are both management ports" in view.canvas_message()
    view.select_ids(["dgx-01", "oob-1"], center=False)
    window.actions_.connect_oob.trigger()
    (link,) = list(window.document.design.links)
    assert (link.a_port, link.b_port, link.fabric.value) == ("bmc", "ports", "oob")
    assert window.statusBar().currentMessage().startswith("Connected 1 cable, oob")


@pytest.mark.slow
def test_dragging_back_onto_the_source_says_why(make_view, qtbot: QtBot) -> None:
    """A drag that ends on its own device is refused with the reason (a click
    without a drag starts a click-click connection instead: test_habits.py)."""
    view = make_view(_rack())
    view.set_tool("connect")
    w = view.viewport()
    start = vp(view, 0, 200)
    qtbot.mousePress(w, Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(w, vp(view, 150, 200))
    qtbot.mouseMove(w, start)
    with qtbot.waitSignal(view.status_message) as sig:
        qtbot.mouseRelease(w, Qt.MouseButton.LeftButton, pos=start)
    assert "itself" in sig.args[0]
    assert len(view.document.design.links) == 0


def _overfull() -> Design:
    """A DGX with ten compute cables to its leaf (it has eight ports)."""
    design = _rack()
    design.links.append(
        Link(
            id="dgx-01--leaf-1",
            a="dgx-01",
            a_port="compute",
            b="leaf-1",
            b_port="ports",
            cables=10,
            speed_gbps=400,
        )
    )
    return design


@pytest.mark.slow
def test_paste_refuses_links_the_rules_refuse(
    make_view, qtbot: QtBot, catalog: Catalog
) -> None:
    source = _overfull()
    clip = copy_selection(source, ["dgx-01", "leaf-1"])
    with pytest.raises(ConnectionRefused) as expected:
        paste(Design(), clip, lookup=catalog)
    view = make_view(Design())
    mime = QMimeData()
    mime.setData(FRAGMENT_MIME, json.dumps(clip).encode("utf-8"))
    QApplication.clipboard().setMimeData(mime)
    with qtbot.waitSignal(view.status_message) as sig:
        view.edits.paste()
    assert sig.args[0] == str(expected.value)
    assert "10 would be in use" in sig.args[0]
    assert view.document.design.devices == []
    assert view.document.history.done == []


@pytest.mark.slow
def test_duplicate_refuses_with_the_same_reason(make_view, qtbot: QtBot) -> None:
    view = make_view(_overfull())
    before = view.document.design.model_dump()
    view.select_ids(["dgx-01", "leaf-1"], center=False)
    with qtbot.waitSignal(view.status_message) as sig:
        view.edits.duplicate_selection()
    assert "10 would be in use (2 too many)" in sig.args[0]
    assert view.document.design.model_dump() == before
