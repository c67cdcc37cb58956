"""Findings' words (issue 16, item 10): no oversubscription without switches,
singular verbs for one item."""

from __future__ import annotations

from designer.analysis import analyze
from designer.core.formatting import switch_counts
from designer.core.model import Fabric, Tier
from tests.analysis.builders import Spec, make_design


def test_no_switches_no_oversubscription_warning() -> None:
    """Before: "oversubscribed: bisection 0.00 of full" for two lone DGX."""
    design = make_design([Spec("dgx1", "dgx-h100"), Spec("dgx2", "dgx-h100")], [])
    codes = {f.code for f in analyze(design).findings}
    assert "OVERSUBSCRIBED" not in codes
    assert "UNCONNECTED_COMPUTE" in codes  # what is really wrong


def test_a_real_oversubscription_still_warns() -> None:
    specs = [Spec(f"d{i}", "dgx-h100") for i in range(4)]
    specs += [Spec("l0", "qm9700", Tier.LEAF), Spec("l1", "qm9700", Tier.LEAF)]
    specs += [Spec("s", "qm9700", Tier.SPINE)]
    rows = [(f"d{i}", "compute", f"l{i // 2}", "ports", 8, 400) for i in range(4)]
    rows += [
        ("l0", "ports", "s", "ports", 4, 400),
        ("l1", "ports", "s", "ports", 4, 400),
    ]
    found = {f.code: f.message for f in analyze(make_design(specs, rows)).findings}
    assert "leaf 4.00:1" in found["OVERSUBSCRIBED"]


def test_one_unmanaged_server_reads_singular() -> None:
    specs = [Spec(f"d{i}", "dgx-h100") for i in range(3)]
    specs += [Spec("sw", "qm9700"), Spec("oob", "sn2201")]
    rows = [(f"d{i}", "compute", "sw", "ports", 8, 400) for i in range(3)]
    rows += [("d0", "bmc", "oob", "ports", 1, 1), ("d1", "bmc", "oob", "ports", 1, 1)]
    design = make_design(specs, rows, fabric={3: Fabric.OOB, 4: Fabric.OOB})
    f = next(f for f in analyze(design).findings if f.code == "NO_OOB_LINK")
    assert f.message.startswith("1 of 3 wired servers with a BMC port has no ")


def test_switch_counts_name_what_a_switch_is() -> None:
    """Before: "4 (1 leaf, 1 compute, 2 unwired)"."""
    assert switch_counts({"leaf": 1, "compute": 1, "unwired": 2}) == (
        "1 leaf, 1 off-path, 2 unwired"
    )
    assert switch_counts({"leaf": 32, "spine": 16, "oob": 2, "core": 0}) == (
        "32 leaves, 16 spines, 2 out-of-band"
    )
