"""Scale-tier classifier (product brief) and the capex build-up."""

from __future__ import annotations

import pytest

from designer.analysis import analyze
from designer.analysis.cost import classify
from designer.core.model import Fabric, Purpose
from designer.generate import superpod
from tests.analysis.builders import Spec, make_design


@pytest.mark.parametrize(
    ("gpus", "name", "words"),
    [
        (8, "Development cluster", "8-32"),
        (32, "Development cluster", "8-32"),
        (4, "Development cluster", "below the smallest"),
        (40, "Development cluster", "gap"),
        (60, "Mid-scale training cluster", "gap"),
        (64, "Mid-scale training cluster", "64-256"),
        (256, "Mid-scale training cluster", "64-256"),
        (300, "Mid-scale training cluster", "gap"),
        (480, "Large-scale training cluster", "gap"),
        (512, "Large-scale training cluster", "512-4,096"),
        (4096, "Large-scale training cluster", "both"),
        (4097, "Hyperscale AI cluster", "4,096+"),
        (100_000, "Hyperscale AI cluster", "4,096+"),
    ],
)
def test_size_tiers(gpus: int, name: str, words: str) -> None:
    tier = classify(gpus, Purpose.TRAINING)
    assert tier.name == name
    assert words in tier.reason
    assert "all-in" in tier.typical_cost_note and "capex" in tier.typical_cost_note


def test_inference_is_a_purpose_not_a_size() -> None:
    small = classify(16, Purpose.INFERENCE)
    big = classify(2048, Purpose.INFERENCE)
    assert small.name == big.name == "Inference cluster"
    assert "purpose" in big.reason and "512" in big.reason
    assert small.typical_cost_usd == (1e6, 50e6)


def test_typical_costs() -> None:
    assert classify(16, Purpose.TRAINING).typical_cost_usd == (500e3, 3e6)
    assert classify(128, Purpose.TRAINING).typical_cost_usd == (5e6, 25e6)
    assert classify(1024, Purpose.MIXED).typical_cost_usd == (50e6, 300e6)
    assert classify(10_000, Purpose.TRAINING).typical_cost_usd == (500e6, None)


def _mvp(**settings: object):  # type: ignore[no-untyped-def]
    specs = [
        Spec("dgx1", "dgx-h100"),
        Spec("dgx2", "dgx-h100"),
        Spec("ib", "qm9700"),
        Spec("fs", "lustre-appliance"),
        Spec("oob", "sn2201"),
    ]
    rows = [
        ("dgx1", "compute", "ib", "ports", 8, 400),
        ("dgx2", "compute", "ib", "ports", 8, 400),
        ("dgx1", "bmc", "oob", "ports", 1, 1),
        ("dgx2", "bmc", "oob", "ports", 1, 1),
    ]
    return make_design(specs, rows, fabric={2: Fabric.OOB, 3: Fabric.OOB}, **settings)


def test_cost_lines_add_up_exactly() -> None:
    report = analyze(superpod("dgx-h100", 4))
    cost = report.cost_usd
    assert sum(line.extended_usd for line in cost.lines) == cost.total
    for cat in ("compute", "fabric", "cables_optics", "storage", "management"):
        assert sum(x.extended_usd for x in cost.lines if x.category == cat) == getattr(
            cost, cat
        )
    for line in cost.lines:
        assert line.extended_usd == pytest.approx(line.quantity * line.unit_usd)
    assert cost.per_gpu == pytest.approx(cost.total / report.gpus)
    dgx = next(x for x in cost.lines if x.catalog_id == "dgx-h100")
    assert dgx.quantity == 127 and dgx.unit_usd == 270_000 and dgx.estimate


def test_price_override_and_mvp_cost() -> None:
    base = analyze(_mvp())
    over = analyze(_mvp(price_overrides={"dgx-h100": 300_000.0}))
    assert over.cost_usd.compute - base.cost_usd.compute == pytest.approx(2 * 30_000)
    line = next(x for x in over.cost_usd.lines if x.catalog_id == "dgx-h100")
    assert not line.estimate and "override" in line.source
    # product brief: a component build-up of the minimum viable cluster is ~$0.7M-$1.4M
    assert 0.7e6 <= base.cost_usd.total <= 1.4e6
    assert base.tier.name == "Development cluster"


def test_power_and_racks() -> None:
    specs = [Spec("a", "dgx-h100", rack="r1"), Spec("b", "dgx-h100", rack="r2")]
    specs.append(Spec("sw", "qm9700", rack="r1"))
    rows = [
        ("a", "compute", "sw", "ports", 8, 400),
        ("b", "compute", "sw", "ports", 8, 400),
    ]
    report = analyze(make_design(specs, rows))
    assert report.power_kw_by_rack["r2"] == pytest.approx(10.2)
    assert report.power_kw == pytest.approx(sum(report.power_kw_by_rack.values()))
    assert report.racks == 2
    assert report.rack_units == 8 + 8 + 1


def test_h100_su_power_golden() -> None:
    """hardware.md §6.4: 32 DGX H100 x 10.2 kW = 326.4 kW per SU (DGX only)."""
    report = analyze(superpod("dgx-h100", 1))
    dgx_kw = 31 * 10.2
    assert report.power_kw >= dgx_kw


def test_an_unwired_duplicated_spine_is_no_spine() -> None:
    """A spine copied with Ctrl+D keeps its declared tier but has no link: it is
    reported unwired, not counted in the spine tier, its ports or the floor."""
    from designer.core.model import Device
    from tests.analysis.builders import fat_tree_2tier

    design = fat_tree_2tier(leaves=4, spines=2, hosts_per_leaf=4, up_per_leaf=4)
    before = analyze(design)
    spine = next(d for d in design.devices if d.id == "spine0")
    copy = Device(**{**spine.model_dump(), "id": "spine0-copy", "x": spine.x + 200})
    design.devices.append(copy)
    after = analyze(design)
    assert before.switches["spine"] == 2
    assert after.switches["spine"] == 2
    assert after.switches["unwired"] == 1
    assert "unwired" not in before.switches
    assert after.tiers["spine"].switches == 2
    assert after.tiers["spine"].ports_total == before.tiers["spine"].ports_total
    assert after.oversubscription == before.oversubscription
    assert after.switch_oversubscription.keys() == before.switch_oversubscription.keys()
    unwired = [f for f in after.findings if f.code == "UNWIRED_DEVICE"]
    assert [f.items for f in unwired] == [["spine0-copy"]]
    floor_before = next(f for f in before.findings if f.code == "SWITCH_FLOOR")
    floor_after = next(f for f in after.findings if f.code == "SWITCH_FLOOR")
    assert floor_after.message == floor_before.message


def test_a_declared_spine_on_the_oob_network_only_is_an_oob_switch() -> None:
    """Wired, but not into the compute fabric: counted by the fabric it serves."""
    from designer.core.model import Tier

    design = make_design(
        [
            Spec("h0", "generic-host"),
            Spec("h1", "generic-host"),
            Spec("leaf", "generic-switch", Tier.LEAF, {"ports": 8}),
            Spec("odd", "sn2201", Tier.SPINE),
            Spec("mgmt", "sn2201"),
        ],
        [
            ("h0", "compute", "leaf", "ports", 1, 800),
            ("h1", "compute", "leaf", "ports", 1, 800),
            ("odd", "ports", "mgmt", "ports", 1, 1),
        ],
        fabric={2: Fabric.OOB},
    )
    report = analyze(design)
    assert report.switches.get("spine", 0) == 0
    assert report.switches["leaf"] == 1
    assert report.switches["oob"] == 2
    assert "spine" not in report.tiers
