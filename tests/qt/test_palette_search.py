"""Catalog palette search: synonyms, filtered counts, a line when nothing matches."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt

from designer.catalog.loader import default_catalog
from designer.catalog.schema import Category
from designer.qt.palette import PalettePanel


@pytest.fixture
def palette(qtbot: Any) -> PalettePanel:
    panel = PalettePanel(default_catalog())
    qtbot.addWidget(panel)
    panel.resize(320, 700)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def _headers(panel: PalettePanel) -> dict[str, tuple[str, bool]]:
    tree = panel.tree
    out = {}
    for t in range(tree.topLevelItemCount()):
        top = tree.topLevelItem(t)
        out[top.text(0).split(" (")[0]] = (top.text(0), top.isHidden())
    return out


def _type(qtbot: Any, panel: PalettePanel, text: str) -> None:
    panel.search.clear()
    qtbot.keyClicks(panel.search, text)


@pytest.mark.slow
def test_oob_finds_the_management_switch(qtbot: Any, palette: PalettePanel) -> None:
    _type(qtbot, palette, "oob")
    assert palette.visible_ids() == ["sn2201"]
    item = palette.find_item("sn2201")
    assert item is not None and not item.isHidden()
    n_switches = len(default_catalog().by_category(Category.SWITCH))
    headers = _headers(palette)
    assert headers["Switches"] == (f"Switches (1 of {n_switches})", False)
    assert headers["Compute"][1]  # no match in the group: hidden
    assert palette.no_match.isHidden()


@pytest.mark.slow
def test_synonyms_and_counts(qtbot: Any, palette: PalettePanel) -> None:
    _type(qtbot, palette, "NFS")
    assert palette.visible_ids() == ["nfs-filer", "vast-appliance"]
    n_storage = len(default_catalog().by_category(Category.STORAGE))
    assert _headers(palette)["Storage"][0] == f"Storage (2 of {n_storage})"
    _type(qtbot, palette, "IB switch")
    assert set(palette.visible_ids()) == {"q3400", "qm8700", "qm9700"}
    _type(qtbot, palette, "management")
    assert set(palette.visible_ids()) == {
        "head-node",
        "ufm-appliance",
        "sn2201",
        "sn4600c",
    }


@pytest.mark.slow
def test_no_match_line_and_clearing(qtbot: Any, palette: PalettePanel) -> None:
    _type(qtbot, palette, "xyzzy")
    assert palette.visible_ids() == []
    assert palette.no_match.isVisible()
    assert "“xyzzy”" in palette.no_match.text()
    assert all(hidden for _, hidden in _headers(palette).values())
    palette.search.clear()
    assert not palette.no_match.isVisible()
    catalog = default_catalog()
    assert len(palette.visible_ids()) == len(catalog)
    n_compute = len(catalog.by_category(Category.COMPUTE))
    assert _headers(palette)["Compute"] == (f"Compute ({n_compute})", False)


@pytest.mark.slow
def test_enter_on_a_found_entry_adds_it(qtbot: Any, palette: PalettePanel) -> None:
    got: list[tuple[str, int]] = []
    palette.item_activated.connect(lambda i, n: got.append((i, n)))
    _type(qtbot, palette, "bmc")
    item = palette.find_item("sn2201")
    palette.tree.setCurrentItem(item)
    qtbot.keyClick(palette.tree, Qt.Key.Key_Return)
    assert got == [("sn2201", 1)]
