"""Fat-tree wiring OpenSM would reveal at bring-up (issue 18 item 5)."""

from __future__ import annotations

import pytest

from designer.analysis import analyze
from designer.analysis.report import Finding, Severity
from designer.catalog.loader import default_catalog
from designer.core.model import Design, Link
from designer.generate import fat_tree

CAT = default_catalog()


def _tree() -> Design:
    return fat_tree("dgx-h100", 16, "qm9700", catalog=CAT)


def _codes(design: Design) -> dict[str, Finding]:
    return {f.code: f for f in analyze(design, CAT).findings}


TREE_CODES = {"SAME_TIER_SWITCH_LINK", "COMPUTE_ABOVE_LEAF", "UPLINK_GROUPS_UNEVEN"}


def test_a_clean_fat_tree_raises_none() -> None:
    assert not TREE_CODES & set(_codes(_tree()))


def test_a_leaf_to_leaf_link_is_named() -> None:
    design = _tree()
    leaves = sorted({b for b in design.links.b if b.startswith("leaf")})
    design.links.append(
        Link(id="miswire", a=leaves[0], a_port="ports", b=leaves[1],
             b_port="ports", speed_gbps=400)
    )  # fmt: skip
    found = _codes(design)["SAME_TIER_SWITCH_LINK"]
    assert found.severity is Severity.WARNING
    assert set(found.items) == {leaves[0], leaves[1]}
    assert f"{leaves[0]} - {leaves[1]}" in found.message
    assert "sibling" in found.message and "OpenSM" in found.message


def test_a_spine_to_spine_link_is_named_too() -> None:
    design = _tree()
    spines = sorted({b for b in design.links.b if b.startswith("spine")})
    design.links.append(
        Link(id="miswire", a=spines[0], a_port="ports", b=spines[1],
             b_port="ports", speed_gbps=400)
    )  # fmt: skip
    found = _codes(design)["SAME_TIER_SWITCH_LINK"]
    assert set(found.items) == set(spines[:2]) and "spine" in found.message


def test_a_compute_node_on_a_spine_is_an_error_naming_node_and_spine() -> None:
    design = _tree()
    t = design.links
    i = next(k for k, a in enumerate(t.a) if a.startswith("dgx"))
    spine = next(b for b in t.b if b.startswith("spine"))
    moved = t.row(i).model_copy(update={"b": spine, "a_pins": None, "b_pins": None})
    t.replace(i, moved)
    found = _codes(design)["COMPUTE_ABOVE_LEAF"]
    assert found.severity is Severity.ERROR
    assert moved.a in found.items and spine in found.items
    assert f"{moved.a} on {spine}" in found.message and "AB26" in found.message


def test_uneven_up_port_groups_advise_updn_and_name_the_odd_switch() -> None:
    design = _tree()
    t = design.links
    i = next(
        k for k, (a, b) in enumerate(zip(t.a, t.b, strict=True))
        if a.startswith("leaf") and b.startswith("spine")
    )  # fmt: skip
    leaf = t.a[i]
    cables = t.cables[i]
    t.replace(i, t.row(i).model_copy(update={"cables": cables - 1, "a_pins": None,
                                              "b_pins": None}))  # fmt: skip
    found = _codes(design)["UPLINK_GROUPS_UNEVEN"]
    assert found.items == [leaf]
    assert "-R updn" in found.message and "AB0B" in found.message
    assert (
        f"{cables - 1} cables" in found.message
        and f"most have {cables}" in found.message
    )


def test_one_switch_tier_is_not_a_fat_tree() -> None:
    design = fat_tree("dgx-h100", 8, "qm9700", catalog=CAT)  # one leaf
    assert not TREE_CODES & set(_codes(design))


def test_a_mesh_sketch_is_no_fat_tree_and_gets_none_of_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A drawn-looking mesh (the bundle smoke's irregular sketch: switches
    joined at random, nodes on any of them) is not what OpenSM's ftree judges:
    no SAME_TIER_SWITCH_LINK, COMPUTE_ABOVE_LEAF or UPLINK_GROUPS_UNEVEN, and
    so no error that would fail ``validate`` on it."""
    import importlib
    import json
    from pathlib import Path

    from designer.analysis import analyze
    from designer.io import loads_design

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "packaging"))
    smoke = importlib.import_module("bundle_smoke")
    text = json.dumps(smoke.irregular_design())  # an old file: migrated on open
    design = loads_design(text, "irregular.json")
    codes = {f.code for f in analyze(design).findings}
    assert not codes & {
        "SAME_TIER_SWITCH_LINK",
        "COMPUTE_ABOVE_LEAF",
        "UPLINK_GROUPS_UNEVEN",
    }, codes


def test_a_partly_filled_leaf_is_a_leaf_and_a_spine_with_a_node_is_not() -> None:
    """Two-tier: leaf l0 full (4 hosts), leaf l1 with 1 host, each cabled to all
    3 spines. l1 has more uplinks than nodes and is still a leaf (OpenSM ranks
    it from the roots like l0: the 100K-GPU fat tree's last SU of 20 nodes on
    32 spines got a false ERR AB26 finding); a spine given one host is still a
    spine, since its links go to leaves."""
    from tests.analysis.builders import Spec, make_design

    def design(extra: list[tuple[str, str, str, str, int, int]]) -> Design:
        specs = [Spec(f"l{i}", "generic-switch", ports={"ports": 16}) for i in (0, 1)]
        specs += [
            Spec(f"s{j}", "generic-switch", ports={"ports": 16}) for j in range(3)
        ]
        specs += [Spec(f"h{k}", "generic-host") for k in range(6)]
        rows = [(f"h{k}", "compute", "l0", "ports", 1, 400) for k in range(4)]
        rows += [("h4", "compute", "l1", "ports", 1, 400)]
        rows += [
            (f"l{i}", "ports", f"s{j}", "ports", 1, 400)
            for i in (0, 1)
            for j in range(3)
        ]
        return make_design(specs, rows + extra)

    assert "COMPUTE_ABOVE_LEAF" not in _codes(design([]))
    found = _codes(design([("h5", "compute", "s0", "ports", 1, 400)]))
    assert "COMPUTE_ABOVE_LEAF" in found
    assert "h5 on s0" in found["COMPUTE_ABOVE_LEAF"].message
