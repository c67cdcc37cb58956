"""Bisection and counts equal the closed forms on generated fabrics (hardware.md)."""

from __future__ import annotations

from math import prod

import pytest

from designer.analysis import analyze
from designer.core.model import Fabric, LinkTable
from designer.generate import fat_tree, k_ary, superpod


def _closed_form(nodes: int, injection: float, ratios: tuple[float, ...]) -> float:
    """(N/2) x injection / worst prefix product of the oversubscription ratios."""
    worst = max(prod(ratios[: i + 1]) for i in range(len(ratios)))
    return (nodes // 2) * injection / max(worst, 1.0)


@pytest.mark.parametrize("k", [4, 6, 8])
def test_k_ary_full_bisection(k: int) -> None:
    report = analyze(k_ary(k))
    b = report.bisection
    assert report.compute_nodes == k**3 // 4
    assert sum(report.switches[t] for t in ("leaf", "spine", "core")) == 5 * k * k // 4
    assert b.exact
    assert b.gbps == k**3 / 8 * 400
    assert b.ratio == 1.0
    # Al-Fares is exactly the non-blocking folded-Clos floor (2t-1)N/k
    assert report.switch_floor == 5 * k * k // 4


@pytest.mark.parametrize(
    ("sus", "nodes", "leaf", "spine"),
    [(1, 31, 8, 4), (2, 63, 16, 8), (3, 95, 24, 16), (4, 127, 32, 16)],
)
def test_h100_superpod_table4(sus: int, nodes: int, leaf: int, spine: int) -> None:
    """RA-H100 Table 4 counts; bisection = (nodes // 2) x 8 x 400G, exact."""
    report = analyze(superpod("dgx-h100", sus))
    assert report.compute_nodes == nodes
    assert report.gpus == nodes * 8
    assert report.switches["leaf"] == leaf
    assert report.switches["spine"] == spine
    b = report.bisection
    assert b.exact
    assert b.gbps == (nodes // 2) * 3200
    assert b.ratio == 1.0


def test_h100_4su_transceivers_table8() -> None:
    """RA-H100 Table 8 (compute IB): 1,536 switch + 508 system twin OSFP, 4 UFM."""
    design = superpod("dgx-h100", 4)
    compute = LinkTable.from_links(
        link for link in design.links if link.fabric is Fabric.COMPUTE
    )
    report = analyze(design.model_copy(update={"links": compute}))
    assert report.transceivers_by_type["osfp-2x400g"] == 1536 + 508
    assert report.transceivers_by_type["qsfp56-200g"] == 4
    assert report.cables["compute"] == 2040 + 4


@pytest.mark.parametrize("sus", [2, 4, 8, 16])
def test_b200_superpod_table3(sus: int) -> None:
    report = analyze(superpod("dgx-b200", sus))
    nodes = 32 * sus
    assert report.compute_nodes == nodes
    b = report.bisection
    assert b.exact
    assert b.gbps == nodes // 2 * 8 * 400
    assert b.ratio == 1.0
    if sus == 16:
        assert (
            report.switches["leaf"],
            report.switches["spine"],
            report.switches["core"],
        ) == (128, 128, 64)
        assert report.switch_floor == 320


def test_gb200_su() -> None:
    report = analyze(superpod("gb200-nvl72", 1))
    assert report.gpus == 576
    assert report.nvlink_domains == 8
    assert report.nvlink_domain_size == 72
    assert report.bisection.exact
    assert report.bisection.ratio == 1.0


@pytest.mark.parametrize(
    ("nodes", "su", "ratios"),
    [
        (64, None, (1.0,)),
        (64, None, (2.0,)),
        (48, 24, (3.0,)),
        (512, None, (2.0,)),
        (512, None, (1.0, 2.0)),
        (512, None, (2.0, 1.0)),
    ],
)
def test_fat_tree_oversubscription_closed_form(
    nodes: int, su: int | None, ratios: tuple[float, ...]
) -> None:
    design = fat_tree("dgx-h100", nodes, "qm9700", su_size=su, oversubscription=ratios)
    report = analyze(design)
    b = report.bisection
    assert b.exact, b.method
    assert b.gbps == pytest.approx(_closed_form(nodes, 3200.0, ratios))
    assert report.oversubscription["leaf"] == pytest.approx(ratios[0])
    if max(ratios) > 1:
        assert any(f.code == "OVERSUBSCRIBED" for f in report.findings)


def test_non_rail_optimized_fat_tree() -> None:
    report = analyze(fat_tree("dgx-h100", 100, "qm9700", rail_optimized=False))
    assert report.bisection.exact
    assert report.bisection.gbps == 50 * 3200
