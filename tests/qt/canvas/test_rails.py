"""Design > Wire rail-optimized on the canvas: complete, replace, or say why not."""

from __future__ import annotations

from collections import Counter

import pytest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from designer.core.model import Design, Link, LinkTable, Tier
from designer.qt.canvas import edits
from tests.qt.canvas.helpers import dev

RAILS = 8


def _pod(links: list[Link]) -> Design:
    """Two DGX H100 (8 NICs each), eight rail leaves and one other switch."""
    devices = [dev(f"dgx-{n}", "dgx-h100", 200.0 * n, 300) for n in range(2)]
    devices += [dev(f"rail-{r}", "qm9700", 100.0 * r, 0, Tier.LEAF) for r in range(8)]
    devices.append(dev("other", "qm9700", 1200, 0, Tier.LEAF))
    return Design(devices=devices, links=LinkTable.from_links(links))


def _rail(node: str, r: int, cables: int = 1) -> Link:
    return Link(
        id=f"{node}--rail-{r}",
        a=node,
        a_port="compute",
        b=f"rail-{r}",
        b_port="ports",
        cables=cables,
        speed_gbps=400,
        rail=r,
    )


def _cables_by_pair(design: Design) -> Counter[tuple[str, str]]:
    out: Counter[tuple[str, str]] = Counter()
    for link in design.links:
        out[(link.a, link.b)] += link.cables
    return out


def _select_pod(view) -> None:
    view.select_ids(
        ["dgx-0", "dgx-1", *(f"rail-{r}" for r in range(RAILS))], center=False
    )


def _no_dialog(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Fail if the Replace dialog is shown; return the reasons it was asked with."""
    asked: list[str] = []

    def refuse_to_ask(parent: object, reason: str) -> bool:
        asked.append(reason)
        raise AssertionError(f"no dialog expected, asked: {reason}")

    monkeypatch.setattr(edits, "ask_replace_rails", refuse_to_ask)
    return asked


@pytest.mark.slow
def test_completes_only_the_missing_rails_in_one_step(
    make_view, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_dialog(monkeypatch)
    view = make_view(_pod([_rail("dgx-0", r) for r in range(4)]))
    before = view.document.design.model_dump()
    _select_pod(view)
    with qtbot.waitSignal(view.status_message) as sig:
        assert view.edits.wire_rail_optimized()
    design = view.document.design
    assert len(view.document.history.done) == 1
    # dgx-0 gets rails 4..7, dgx-1 all eight; the four links it had are kept
    assert len(design.links) == 4 + 4 + 8
    pairs = _cables_by_pair(design)
    for node in ("dgx-0", "dgx-1"):
        assert [pairs[(node, f"rail-{r}")] for r in range(RAILS)] == [1] * RAILS
    rails = {(x.a, x.b): x.rail for x in design.links}
    assert all(
        rails[(n, f"rail-{r}")] == r for n in ("dgx-0", "dgx-1") for r in range(8)
    )
    assert sig.args[0] == view.document.history.done[-1].label
    assert sig.args[0].startswith("Complete the rails of 2 nodes")
    view.document.undo()
    assert view.document.design.model_dump() == before


def test_nothing_to_wire_says_so(
    make_view, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_dialog(monkeypatch)
    links = [_rail(n, r) for n in ("dgx-0", "dgx-1") for r in range(RAILS)]
    view = make_view(_pod(links))
    _select_pod(view)
    with qtbot.waitSignal(view.status_message) as sig:
        assert not view.edits.wire_rail_optimized()
    assert view.document.history.done == []
    assert sig.args[0] == (
        "Every selected node already has its 8 rails wired to these leaves; "
        "nothing to add."
    )
    assert view.canvas_message() == sig.args[0]


def _taken() -> Design:
    # dgx-0's eight NICs all go to a switch that is not one of its rail leaves
    taken = Link(
        id="dgx-0--other",
        a="dgx-0",
        a_port="compute",
        b="other",
        b_port="ports",
        cables=8,
        speed_gbps=400,
    )
    return _pod([taken, _rail("dgx-1", 0)])


def test_ports_cabled_elsewhere_offer_replace(
    make_view, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []

    def replace(parent: object, reason: str) -> bool:
        asked.append(reason)
        return True

    monkeypatch.setattr(edits, "ask_replace_rails", replace)
    view = make_view(_taken())
    before = view.document.design.model_dump()
    _select_pod(view)
    assert view.edits.wire_rail_optimized()
    (reason,) = asked
    assert "dgx-0" in reason and "8 to other" in reason and "replace" in reason
    design = view.document.design
    assert len(view.document.history.done) == 1  # removal and wiring: one step
    pairs = _cables_by_pair(design)
    assert ("dgx-0", "other") not in pairs
    for node in ("dgx-0", "dgx-1"):
        assert [pairs[(node, f"rail-{r}")] for r in range(RAILS)] == [1] * RAILS
    assert view.document.history.done[-1].label.startswith("Rewire 2 nodes")
    view.document.undo()
    assert view.document.design.model_dump() == before


def test_cancel_leaves_the_design_alone(
    make_view, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(edits, "ask_replace_rails", lambda parent, reason: False)
    view = make_view(_taken())
    before = view.document.design.model_dump()
    _select_pod(view)
    with qtbot.waitSignal(view.status_message) as sig:
        assert not view.edits.wire_rail_optimized()
    assert view.document.design.model_dump() == before
    assert view.document.history.done == []
    assert "cancelled" in sig.args[0]


def test_replace_dialog_offers_replace_and_cancel(make_view) -> None:
    view = make_view()
    box = edits.rail_replace_box(view, "dgx h100 dgx-0 has 8 compute ports")
    names = {b.text().replace("&", "") for b in box.buttons()}
    assert names == {"Replace", "Cancel"}
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    assert "dgx-0 has 8 compute ports" in box.informativeText()
    box.deleteLater()


@pytest.mark.slow
def test_design_menu_completes_rails_of_the_selection(
    main_window, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_dialog(monkeypatch)
    window = main_window()
    window.document.reset(_pod([_rail("dgx-1", r) for r in range(RAILS)]))
    _select_pod(window.canvas)
    window.actions_.rail.trigger()
    pairs = _cables_by_pair(window.document.design)
    assert [pairs[("dgx-0", f"rail-{r}")] for r in range(RAILS)] == [1] * RAILS
    assert window.document.history.undo_label == "Wire 1 node to 8 rails (8 links)"
    assert window.statusBar().currentMessage() == window.document.history.undo_label
