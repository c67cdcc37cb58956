"""General fat tree: invariants, options, validation, JSON and speed."""

from __future__ import annotations

import time
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import Catalog, Category, default_catalog
from designer.core.model import Design, GroupKind
from designer.generate import GeneratorError, fat_tree
from tests.generate.fabric_checks import (
    check_invariants,
    check_rails,
    compute_cables,
    device_counts,
)
from tests.generate.layout_checks import tier_order_problems
from tests.hypo import examples


def test_rail_optimized_2_to_1_leaves() -> None:
    d = fat_tree("dgx-h100", 128, "qm9700", oversubscription=(2.0,))
    counts = device_counts(d)
    # 32 down / 16 up per leaf: 32 leaves x 16 = 512 uplinks -> 8 spines
    assert (counts["leaf"], counts["spine"], counts["core"]) == (32, 8, 0)
    cables = compute_cables(d)
    assert cables["leaf-node"] == 1024
    assert cables["leaf-spine"] == 512
    check_invariants(d, (2.0, 1.0))
    check_rails(d)
    assert "2:1" in d.settings.notes


def test_three_tiers_with_2_to_1_spines() -> None:
    d = fat_tree("dgx-b200", 512, "qm9700", oversubscription=(1.0, 2.0))
    counts = device_counts(d)
    assert counts["core"] > 0
    cables = compute_cables(d)
    assert cables["leaf-spine"] == 4096
    assert cables["core-spine"] == 2048
    check_invariants(d, (1.0, 2.0))
    check_rails(d)


def test_not_rail_optimized_spreads_whole_nodes_over_leaves() -> None:
    d = fat_tree("dgx-h100", 64, "qm9700", rail_optimized=False)
    counts = device_counts(d)
    assert (counts["leaf"], counts["spine"]) == (16, 8)
    dev = d.device_map()
    per_leaf: Counter[str] = Counter()
    for a, b, c, r in zip(
        d.links.a, d.links.b, d.links.cables, d.links.rail, strict=True
    ):
        if dev[a].tier is None:
            assert (c, r) == (8, None)  # all 8 NICs of a node on one leaf
            per_leaf[b] += 1
    assert set(per_leaf.values()) == {4}
    check_invariants(d)


def test_hdr_design_runs_dgx_at_200g_on_qm8700() -> None:
    d = fat_tree("dgx-h100", 32, "qm8700")
    assert set(d.links.speed_gbps) == {200}
    # 40 ports -> 20 down: a 32-node SU needs 2 leaves per rail (16 + 16)
    counts = device_counts(d)
    assert counts["leaf"] == 16
    assert "leaf-su01-r0a" in d.device_map() and "leaf-su01-r0b" in d.device_map()
    check_invariants(d)
    check_rails(d)


def test_breakout_gives_sn5600_128_ports_at_400g() -> None:
    d = fat_tree("dgx-h100", 256, "sn5600")
    assert set(d.links.speed_gbps) == {400}
    counts = device_counts(d)
    # 64 down / 64 up: 2048 ports need 32 leaves and 16 spines of 128 ports
    assert (counts["leaf"], counts["spine"], counts["core"]) == (32, 16, 0)
    check_invariants(d)


def test_single_switch_when_everything_fits() -> None:
    d = fat_tree("dgx-h100", 2, "qm9700")
    counts = device_counts(d)
    assert (counts["leaf"], counts["spine"], counts["core"]) == (1, 0, 0)
    assert compute_cables(d)["leaf-node"] == 16
    # asking for 2:1 leaves needs a tier above them
    d2 = fat_tree("dgx-h100", 2, "qm9700", oversubscription=(2.0,))
    assert device_counts(d2)["spine"] > 0


def test_rack_scale_rail_is_a_compute_tray() -> None:
    """NVL72: the 4 NIC ports of tray r of every rack in the SU go to rail-r leaf."""
    d = fat_tree("gb200-nvl72", 16, "qm9700")
    dev = d.device_map()
    assert "leaf-su01-r04" in dev and "leaf-su02-r17" in dev
    node_links = [
        (b, c, r)
        for a, b, c, r in zip(
            d.links.a, d.links.b, d.links.cables, d.links.rail, strict=True
        )
        if dev[a].tier is None
    ]
    assert len(node_links) == 16 * 18
    assert {c for _, c, _ in node_links} == {4}
    assert all(b.endswith(f"-r{r:02d}") for b, _, r in node_links)
    check_invariants(d)
    check_rails(d)


def test_partial_last_su_keeps_the_su_structure() -> None:
    d = fat_tree("dgx-h100", 40, "qm9700")
    sus = [g for g in d.groups if g.kind is GroupKind.SU]
    assert len(sus) == 2
    counts = device_counts(d)
    assert counts["leaf"] == 16  # 8 rail leaves in the 8-node SU too
    check_invariants(d)
    check_rails(d)


def test_rail_planes_when_forced_tiers_cannot_hold_one_plane() -> None:
    d = fat_tree("dgx-h100", 512, "qm9700", tiers=2)
    counts = device_counts(d)
    assert counts["core"] == 0
    # two planes of 2048 ports: each 64 leaves under 32 spines
    assert (counts["leaf"], counts["spine"]) == (128, 64)
    assert "spine-a-01" in d.device_map() and "spine-b-32" in d.device_map()
    check_invariants(d)
    check_rails(d)
    assert "2 rail planes" in d.settings.notes
    assert Design.model_validate_json(d.model_dump_json()) == d


def test_layout_puts_compute_lowest_and_groups_pods() -> None:
    d = fat_tree("dgx-h100", 1024, "qm9700")
    y: dict[str, set[float]] = {}
    for x in d.devices:
        y.setdefault(x.tier.value if x.tier else "node", set()).add(x.y)
    # pods wrap into rows (generate.layout): tiers are ordered within each
    # SU and pod, and the cores sit above everything
    assert max(y["core"]) < min(y["spine"])
    assert tier_order_problems(d) == []
    groups = d.group_map()
    for x in d.devices:
        if x.tier is not None and x.tier.value == "spine":
            assert x.group is not None and groups[x.group].kind is GroupKind.POD
        if x.tier is None or x.tier.value == "leaf":
            assert x.group is not None and groups[x.group].kind is GroupKind.SU
    assert len({(x.x, x.y) for x in d.devices}) == len(d.devices)


@pytest.mark.slow
def test_100k_gpu_design_generation_time() -> None:
    start = time.perf_counter()
    d = fat_tree("dgx-h100", 12_500, "qm9700", tiers=3)
    elapsed = time.perf_counter() - start
    counts = device_counts(d)
    print(
        f"\n100K-GPU fat tree (12,500 DGX H100, rail-optimized, 3 tiers QM9700): "
        f"{elapsed * 1000:.0f} ms, {len(d.devices):,} devices, {len(d.links):,} links"
    )
    assert counts["gpus"] == 100_000
    cables = compute_cables(d)
    assert cables["leaf-node"] == 100_000
    assert sum(d.links.cables) == sum(cables.values())


BAD = [
    ({"compute": "dgx-z900"}, "unknown catalog id 'dgx-z900'"),
    ({"compute": "qm9700"}, "switch entry, not a compute"),
    ({"switch": "dgx-h100"}, "compute entry, not a switch"),
    ({"switch": "tor-100g-32"}, "speed mismatch"),
    ({"switch": "sn4600c", "compute": "dgx-h100"}, "speed mismatch"),
    ({"nodes": 0}, "at least 1"),
    ({"nodes": 2.5}, "whole number"),
    ({"su_size": 0}, "at least 1"),
    ({"tiers": 4}, "tiers must be"),
    ({"oversubscription": (3.0,)}, "does not split"),
    ({"oversubscription": (0.0,)}, "positive"),
    ({"oversubscription": (1, 1, 1)}, "three tiers"),
    ({"oversubscription": (1.0, 2.0), "tiers": 2}, "tier 2"),
    ({"nodes": 12_500, "tiers": 2, "rail_optimized": False}, "do not fit"),
    ({"nodes": 10_000_000}, "more than the generator builds"),
]


@pytest.mark.parametrize(("change", "message"), BAD)
def test_bad_input_gets_a_clear_message(
    change: dict[str, object], message: str
) -> None:
    args: dict[str, object] = {"compute": "dgx-h100", "nodes": 64, "switch": "qm9700"}
    args.update(change)
    with pytest.raises(GeneratorError, match=message):
        fat_tree(**args)  # type: ignore[arg-type]


def test_generator_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unknown catalog id"):
        fat_tree("nope", 1, "qm9700")


def test_switch_too_small() -> None:
    cat = default_catalog()
    sw = cat["qm9700"]
    ports = sw.interfaces[0].model_copy(update={"count": 1})
    tiny = sw.with_port_groups([ports, *sw.interfaces[1:]])
    catalog = Catalog([tiny if e.slug == "qm9700" else e for e in cat.values()])
    with pytest.raises(GeneratorError, match="at least 2"):
        fat_tree("dgx-h100", 4, "qm9700", catalog=catalog)


def test_media_mismatch() -> None:
    with pytest.raises(GeneratorError, match="media mismatch"):
        fat_tree("l40s-server", 8, "qm9700")


def _pairs() -> list[tuple[str, str]]:
    cat = default_catalog()
    return [
        (c.slug, s.slug)
        for c in cat.by_category(Category.COMPUTE)
        for s in cat.by_category(Category.SWITCH)
    ]


@pytest.mark.parametrize(("compute", "switch"), _pairs())
def test_every_catalog_pair_builds_or_explains(compute: str, switch: str) -> None:
    """Any compute x switch pair gives a valid fat tree or a GeneratorError."""
    for nodes, rail in ((1, True), (37, True), (37, False)):
        try:
            d = fat_tree(compute, nodes, switch, rail_optimized=rail)
        except GeneratorError as exc:
            assert str(exc)
            continue
        check_invariants(d, exact=False)
        if rail and device_counts(d)["spine"]:
            check_rails(d)


@pytest.mark.slow
@settings(max_examples=examples(40), deadline=None)
@given(
    nodes=st.integers(1, 700),
    su_size=st.one_of(st.none(), st.integers(1, 80)),
    ratios=st.sampled_from([(1.0,), (2.0,), (0.5,), (1.0, 2.0), (4 / 3,), (3.0,)]),
    tiers=st.sampled_from([None, 1, 2, 3]),
    rail=st.booleans(),
    compute=st.sampled_from(["dgx-h100", "gb200-nvl72", "generic-host", "hgx-h100"]),
)
def test_random_fat_trees_hold_their_invariants(
    nodes: int,
    su_size: int | None,
    ratios: tuple[float, ...],
    tiers: int | None,
    rail: bool,
    compute: str,
) -> None:
    try:
        d = fat_tree(
            compute,
            nodes,
            "qm9700",
            su_size=su_size,
            oversubscription=ratios,
            tiers=tiers,
            rail_optimized=rail,
        )
    except GeneratorError as exc:
        assert str(exc)
        return
    full = ratios + (1.0,) * (2 - len(ratios))
    check_invariants(d, full, exact=False)
    if rail and device_counts(d)["spine"]:
        check_rails(d)
    assert compute_cables(d)["leaf-node"] == nodes * (
        default_catalog()[compute].interface("compute").count  # type: ignore[union-attr]
    )
