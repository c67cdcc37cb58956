"""Which entries the canvas's context menu offers (no Qt)."""

from __future__ import annotations

import random

import numpy as np

from designer.catalog.loader import default_catalog
from designer.core.model import Design, Device, Group, GroupKind, Tier
from designer.view.canvas.context_actions import (
    Action,
    Target,
    connected_rows,
    findings_naming,
    menu_actions,
)

CATALOG = default_catalog()


def _design() -> Design:
    return Design(
        groups=[Group(id="su01", label="SU 1", kind=GroupKind.SU)],
        devices=[
            Device(id="dgx-01", catalog_id="dgx-h100", group="su01"),
            Device(id="dgx-02", catalog_id="dgx-h100", group="su01"),
            Device(id="leaf-1", catalog_id="qm9700", tier=Tier.LEAF, group="su01"),
            Device(id="spine-1", catalog_id="qm9700", tier=Tier.SPINE),
        ],
    )


def _keys(entries: list[Action | None]) -> list[str]:
    return [e.key if e is not None else "-" for e in entries]


def test_one_device_offers_connect_from_here_and_its_group() -> None:
    target = Target("device", "dgx-01", "su01", "SU 1")
    entries = menu_actions(target, _design(), CATALOG, ["dgx-01"], [])
    keys = _keys(entries)
    assert keys[0] == "connect_from"
    for key in ("group_su", "group_pod", "collapse", "zoom_selection",
                "select_connected", "validator", "properties", "export_selection",
                "delete"):  # fmt: skip
        assert key in keys
    for key in ("connect", "connect_oob", "wire_rails", "all_to_all", "expand"):
        assert key not in keys
    texts = {e.key: e.text for e in entries if e is not None}
    assert texts["collapse"] == "Collapse SU 1"
    assert texts["delete"] == "Delete 1 device"
    assert keys[-1] != "-" and "-" in keys and "- -" not in " ".join(keys)


def test_two_devices_connect_and_nodes_with_leaves_wire() -> None:
    design = _design()
    pair = menu_actions(
        Target("device", "dgx-01"), design, CATALOG, ["dgx-01", "leaf-1"], []
    )
    keys = _keys(pair)
    assert keys[:3] == ["connect", "connect_oob", "wire_rails"]
    assert "connect_from" not in keys and "all_to_all" not in keys
    switches = menu_actions(
        Target("device", "leaf-1"), design, CATALOG, ["leaf-1", "spine-1"], []
    )
    assert "all_to_all" in _keys(switches) and "wire_rails" not in _keys(switches)


def test_group_targets_collapse_expand_or_zoom_in() -> None:
    design = _design()
    members = ["dgx-01", "dgx-02", "leaf-1"]
    frame = _keys(menu_actions(Target("frame", "su01", "su01", "SU 1"), design,
                               CATALOG, members, []))  # fmt: skip
    assert "collapse" in frame and "zoom_group" in frame and "ungroup" in frame
    block = menu_actions(Target("block", "su01", "su01", "SU 1"), design, CATALOG,
                         members, [])  # fmt: skip
    texts = {e.key: e.text for e in block if e is not None}
    assert texts["expand"] == "Expand SU 1" and texts["zoom_group"] == "Zoom to SU 1"
    assert texts["ungroup"] == "Ungroup SU 1"
    overview = menu_actions(Target("block", "su01", "su01", "SU 1"), design, CATALOG,
                            members, [], overview=True)  # fmt: skip
    texts = {e.key: e.text for e in overview if e is not None}
    assert "expand" not in texts and texts["zoom_group"] == "Zoom In to SU 1"
    assert _keys(overview).count("zoom_group") == 1


def test_links_and_trunks() -> None:
    design = _design()
    link = menu_actions(Target("link", "l1"), design, CATALOG, [], ["l1", "l2"])
    texts = {e.key: e.text for e in link if e is not None}
    assert texts["delete"] == "Delete 2 links"
    assert "export_selection" not in texts and "group_su" not in texts
    trunk = _keys(menu_actions(Target("trunk", "0"), design, CATALOG, [], ["l1"]))
    assert trunk[0] == "zoom_trunk"


def test_empty_canvas() -> None:
    entries = menu_actions(Target("canvas"), _design(), CATALOG, [], [])
    assert _keys(entries) == [
        "paste", "select_all", "-", "fit", "auto_layout", "-", "design_properties",
    ]  # fmt: skip
    assert entries[0] is not None and not entries[0].enabled
    pasting = menu_actions(Target("canvas"), _design(), CATALOG, [], [], can_paste=True)
    assert pasting[0] is not None and pasting[0].enabled


def test_connected_rows_match_a_loop_over_the_links() -> None:
    rng = random.Random(3)
    for _ in range(30):
        n = rng.randint(1, 40)
        m = rng.randint(0, 80)
        la = np.array([rng.randrange(n) for _ in range(m)], np.int64)
        lb = np.array([rng.randrange(n) for _ in range(m)], np.int64)
        rows = np.array(sorted(rng.sample(range(n), rng.randint(0, n))), np.int64)
        want = set(rows.tolist())
        for a, b in zip(la.tolist(), lb.tolist(), strict=True):
            if a in set(rows.tolist()):
                want.add(b)
            if b in set(rows.tolist()):
                want.add(a)
        assert connected_rows(la, lb, rows).tolist() == sorted(want)


def test_findings_naming() -> None:
    items = [["a", "b"], [], ["c"], ["b"]]
    assert findings_naming(items, ["b"]) == [0, 3]
    assert findings_naming(items, ["z"]) == []


def test_a_target_kind_is_checked() -> None:
    import pytest

    from designer.view.canvas.context_actions import TargetKind

    assert Target("trunk", "3", trunk=3).kind is TargetKind.TRUNK
    with pytest.raises(ValueError):
        Target("devices", "dgx-01")  # a typo is refused, not silently unmatched
