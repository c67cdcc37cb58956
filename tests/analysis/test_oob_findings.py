"""Out-of-band links that make no physical sense are findings, and hide none.

The walkthrough's cases (issue 16, item 1): a DGX BMC cabled to another DGX's
BMC made the "no out-of-band network" warning go away; a BMC on a QM9700
leaf's management port made "dgx has no out-of-band link" go away; leaf to
leaf on the oob fabric carried 400G optics with no finding. Each is now an
``OOB_LINK_INVALID`` error in the rules' own words, and a BMC counts as
managed only when its link reaches a management switch.
"""

from __future__ import annotations

from designer.analysis import analyze
from designer.analysis.report import Report, Severity
from designer.catalog import default_catalog
from designer.core.checks import check_design
from designer.core.model import Design, Fabric, Tier
from designer.core.rules import OOB_RULE
from tests.analysis.builders import Spec, make_design

OOB = Fabric.OOB
COMPUTE = [
    ("dgx1", "compute", "leaf1", "ports", 8, 400),
    ("dgx2", "compute", "leaf1", "ports", 8, 400),
]
SPECS = [
    Spec("dgx1", "dgx-h100"),
    Spec("dgx2", "dgx-h100"),
    Spec("leaf1", "qm9700", Tier.LEAF),
    Spec("leaf2", "qm9700", Tier.LEAF),
]


def _design(extra: list[tuple[str, str, str, str, int, int]], more=()) -> Design:  # type: ignore[no-untyped-def]
    rows = [*COMPUTE, *extra]
    return make_design(
        [*SPECS, *more], rows, fabric={i: OOB for i in range(2, len(rows))}
    )


def _found(report: Report) -> dict[str, str]:
    return {f.code: f.message for f in report.findings}


def test_bmc_to_bmc_is_an_error_and_the_network_is_still_missing() -> None:
    report = analyze(_design([("dgx1", "bmc", "dgx2", "bmc", 1, 1)]))
    found = _found(report)
    assert "NO_OOB_NETWORK" in found  # the bad link hid it before
    bad = next(f for f in report.findings if f.code == "OOB_LINK_INVALID")
    assert bad.severity is Severity.ERROR and bad.items == ["l2"]
    assert (
        "l2: an out-of-band link joins a management port (a BMC or a switch's "
        "mgmt port) to a management switch's access port: dgx-h100 dgx1 port "
        "group 'bmc' and dgx-h100 dgx2 port group 'bmc' are both management ports"
    ) in bad.message


def test_bmc_on_a_leafs_mgmt_port_leaves_the_node_unmanaged() -> None:
    rows = [
        ("dgx1", "bmc", "oob", "ports", 1, 1),
        ("dgx2", "bmc", "leaf1", "mgmt", 1, 1),
    ]
    report = analyze(_design(rows, [Spec("oob", "sn2201")]))
    found = _found(report)
    assert (
        "OOB_LINK_INVALID" in found
        and "both management ports" in found["OOB_LINK_INVALID"]
    )
    missing = next(f for f in report.findings if f.code == "NO_OOB_LINK")
    assert "dgx2" in missing.items and "dgx1" not in missing.items
    assert missing.message.startswith("1 of 2 wired servers with a BMC port has no")


def test_leaf_to_leaf_on_the_oob_fabric_is_an_error() -> None:
    report = analyze(_design([("leaf1", "ports", "leaf2", "ports", 52, 400)]))
    message = _found(report)["OOB_LINK_INVALID"]
    assert "are data ports, and neither device is a management switch" in message


def test_a_real_oob_network_has_no_oob_finding() -> None:
    rows = [
        ("dgx1", "bmc", "oob", "ports", 1, 1),
        ("dgx2", "bmc", "oob", "ports", 1, 1),
        ("leaf1", "mgmt", "oob", "ports", 1, 1),
        ("leaf2", "mgmt", "oob", "ports", 1, 1),
        ("oob", "uplinks", "spine", "ports", 2, 100),
        ("oob", "ports", "oob2", "ports", 1, 1),
    ]
    more = [Spec("oob", "sn2201"), Spec("oob2", "sn2201"), Spec("spine", "sn4600c")]
    report = analyze(_design(rows, more))
    codes = _found(report)
    assert not {"OOB_LINK_INVALID", "NO_OOB_NETWORK", "NO_OOB_LINK"} & set(codes)


def test_the_finding_quotes_the_rule_check_design_gives() -> None:
    design = _design([("dgx1", "bmc", "leaf1", "mgmt", 1, 1)])
    (problem,) = check_design(design, default_catalog())
    assert str(problem).startswith(OOB_RULE)
    message = _found(analyze(design))["OOB_LINK_INVALID"]
    assert f"l2: {problem}" in message


def test_generated_superpods_keep_their_oob_network() -> None:
    """The generator's OOB (BMCs and mgmt ports on SN2201, SN2201 uplinks to
    the in-band spines) passes the rule."""
    from designer.generate.superpod import superpod

    design = superpod("dgx-h100", 1)
    assert check_design(design, default_catalog()) == []
    assert "OOB_LINK_INVALID" not in _found(analyze(design))
