"""Every finding code: triggered by a minimal design, absent from a clean one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from designer.analysis import analyze
from designer.analysis.findings import __doc__ as FINDINGS_DOC
from designer.analysis.report import Report, Severity
from designer.catalog.loader import default_catalog
from designer.core.checks import check_design
from designer.core.model import Design, Fabric, Purpose, Tier
from tests.analysis.builders import (
    Spec,
    fat_tree_2tier,
    make_design,
    perturbed_fat_tree,
)

Row = tuple[str, str, str, str, int, int]


def clean() -> Design:
    """2 DGX H100 dual-homed on two QM9700 (which carry the Lustre storage too),
    OOB, Slurm, DCGM."""
    specs = [
        Spec("dgx1", "dgx-h100"),
        Spec("dgx2", "dgx-h100"),
        Spec("ib0", "qm9700", Tier.LEAF),
        Spec("ib1", "qm9700", Tier.LEAF),
        Spec("fs", "lustre-appliance"),
        Spec("oob", "sn2201"),
        Spec("head", "head-node"),
        Spec("inb", "sn4600c"),
    ]
    rows: list[Row] = [
        ("dgx1", "compute", "ib0", "ports", 4, 400),
        ("dgx1", "compute", "ib1", "ports", 4, 400),
        ("dgx2", "compute", "ib0", "ports", 4, 400),
        ("dgx2", "compute", "ib1", "ports", 4, 400),
        ("dgx1", "bmc", "oob", "ports", 1, 1),
        ("dgx2", "bmc", "oob", "ports", 1, 1),
        ("fs", "bmc", "oob", "ports", 1, 1),
        ("fs", "data", "ib0", "ports", 4, 200),
        ("fs", "data", "ib1", "ports", 4, 200),
        # a head node on the in-band and out-of-band networks
        ("head", "inband", "inb", "ports", 2, 100),
        ("dgx1", "inband", "inb", "ports", 2, 100),
        ("dgx2", "inband", "inb", "ports", 2, 100),
        ("head", "bmc", "oob", "ports", 1, 1),
    ]
    return make_design(
        specs,
        rows,
        fabric={
            4: Fabric.OOB,
            5: Fabric.OOB,
            6: Fabric.OOB,
            7: Fabric.STORAGE,
            8: Fabric.STORAGE,
            9: Fabric.INBAND,
            10: Fabric.INBAND,
            11: Fabric.INBAND,
            12: Fabric.OOB,
        },
    )


def _codes(report: Report) -> set[str]:
    return {f.code for f in report.findings}


def test_clean_design_has_no_warnings() -> None:
    report = analyze(clean())
    assert not [f for f in report.findings if f.severity is not Severity.INFO], [
        f.message for f in report.findings
    ]
    # dual-homed on two leaves with no spine: the PXN note (info) is right
    assert _codes(report) <= {"SWITCH_FLOOR", "CROSS_RAIL_THROUGH_NODES"}
    assert report.bisection.exact and report.bisection.ratio == 1.0


def _edit(design: Design, **update: object) -> Design:
    return Design.model_validate(design.model_dump() | update)


def _with_settings(**settings: object) -> Design:
    d = clean()
    return d.model_copy(update={"settings": d.settings.model_copy(update=settings)})


def _two_dgx(rows: list[Row], extra: list[Spec] | None = None, **kw: object) -> Design:
    specs = [Spec("dgx1", "dgx-h100"), Spec("dgx2", "dgx-h100"), Spec("sw", "qm9700")]
    return make_design(specs + (extra or []), rows, **kw)  # type: ignore[arg-type]


OK_ROWS: list[Row] = [
    ("dgx1", "compute", "sw", "ports", 8, 400),
    ("dgx2", "compute", "sw", "ports", 8, 400),
]


def _islands() -> Design:
    """Two DGX on two leaves that nothing joins."""
    return make_design(
        [
            Spec("dgx1", "dgx-h100"),
            Spec("dgx2", "dgx-h100"),
            Spec("sw1", "qm9700"),
            Spec("sw2", "qm9700"),
        ],
        [
            ("dgx1", "compute", "sw1", "ports", 8, 400),
            ("dgx2", "compute", "sw2", "ports", 8, 400),
        ],
    )


def _rails() -> Design:
    """Two DGX H100 on two rail leaves (4 ports each), no spine."""
    return make_design(
        [
            Spec("dgx1", "dgx-h100"),
            Spec("dgx2", "dgx-h100"),
            Spec("rail0", "qm9700", Tier.LEAF),
            Spec("rail1", "qm9700", Tier.LEAF),
        ],
        [
            ("dgx1", "compute", "rail0", "ports", 4, 400),
            ("dgx1", "compute", "rail1", "ports", 4, 400),
            ("dgx2", "compute", "rail0", "ports", 4, 400),
            ("dgx2", "compute", "rail1", "ports", 4, 400),
        ],
    )


def _many_dgx(n: int, **settings: object) -> list[Spec]:
    return [Spec(f"d{i}", "dgx-h100") for i in range(n)]


CASES: dict[str, Callable[[], Design]] = {
    "NO_COMPUTE": lambda: make_design([Spec("sw", "qm9700")], []),
    "UNKNOWN_CATALOG_ID": lambda: make_design(
        [Spec("x", "nope-9000"), Spec("dgx1", "dgx-h100")], []
    ),
    "UNKNOWN_PORT_GROUP": lambda: _two_dgx(
        [*OK_ROWS, ("dgx1", "bogus", "sw", "ports", 1, 400)]
    ),
    "PORT_OVERRIDE_IGNORED": lambda: make_design(
        [Spec("dgx1", "dgx-h100"), Spec("sw", "qm9700", ports={"ports": 128})],
        [("dgx1", "compute", "sw", "ports", 8, 400)],
    ),
    "UNCONNECTED_COMPUTE": lambda: _two_dgx(OK_ROWS[:1]),
    "PORT_BUDGET_EXCEEDED": lambda: _two_dgx(
        [("dgx1", "compute", "sw", "ports", 9, 400), OK_ROWS[1]]
    ),
    "SPEED_MISMATCH": lambda: _two_dgx(
        [("dgx1", "compute", "sw", "ports", 8, 800), OK_ROWS[1]]
    ),
    "MEDIA_MISMATCH": lambda: make_design(
        [Spec("l40s", "l40s-server"), Spec("sw", "qm9700")],
        [("l40s", "compute", "sw", "ports", 1, 200)],
    ),
    "FABRIC_ROLE_MISMATCH": lambda: _two_dgx(
        [*OK_ROWS, ("dgx1", "storage", "sw", "ports", 1, 400)]
    ),
    "OOB_LINK_INVALID": lambda: _two_dgx(
        [*OK_ROWS, ("dgx1", "bmc", "dgx2", "bmc", 1, 1)], fabric={2: Fabric.OOB}
    ),
    "RAIL_MISALIGNED": lambda: make_design(
        [
            Spec("dgx1", "dgx-h100"),
            Spec("dgx2", "dgx-h100"),
            Spec("leaf0", "qm9700"),
            Spec("leaf1", "qm9700"),
        ],
        [
            ("dgx1", "compute", "leaf0", "ports", 1, 400),
            ("dgx1", "compute", "leaf0", "ports", 1, 400),
            ("dgx2", "compute", "leaf1", "ports", 1, 400),
            ("dgx2", "compute", "leaf1", "ports", 1, 400),
        ],
        rails={0: 0, 1: 1, 2: 0, 3: 1},
    ),
    "TRAINING_FABRIC_SLOW": lambda: make_design(
        [
            Spec("h0", "generic-host"),
            Spec("h1", "generic-host"),
            Spec("sw", "generic-switch"),
        ],
        [
            ("h0", "compute", "sw", "ports", 1, 100),
            ("h1", "compute", "sw", "ports", 1, 100),
        ],
    ),
    "NO_STORAGE": lambda: _two_dgx(OK_ROWS),
    "NFS_ONLY_STORAGE": lambda: make_design(
        [*_many_dgx(9), Spec("nfs", "nfs-filer")], []
    ),
    "STORAGE_BANDWIDTH_LOW": lambda: make_design(
        [*_many_dgx(128), Spec("fs", "lustre-appliance")], []
    ),
    "NO_OOB_NETWORK": lambda: _two_dgx(OK_ROWS),
    "NO_SCHEDULER": lambda: _with_settings(scheduler=None),
    "NO_MONITORING": lambda: _with_settings(monitoring=[]),
    "OVERSUBSCRIBED": lambda: fat_tree_2tier(2, 1, 4, 2),
    "RADIX_EXCEEDED": lambda: make_design(
        [Spec(f"leaf{i}", "generic-switch", Tier.LEAF, {"ports": 4}) for i in range(4)]
        + [Spec("spine", "generic-switch", Tier.SPINE, {"ports": 4})]
        + [Spec(f"h{i}_{j}", "generic-host") for i in range(4) for j in range(3)],
        [
            (f"h{i}_{j}", "compute", f"leaf{i}", "ports", 1, 400)
            for i in range(4)
            for j in range(3)
        ]
        + [(f"leaf{i}", "ports", "spine", "ports", 1, 400) for i in range(4)],
    ),
    "SINGLE_POINT_OF_FAILURE": lambda: _two_dgx(OK_ROWS),
    "INFERENCE_TIER_SIZE": lambda: make_design(
        _many_dgx(65), [], purpose=Purpose.INFERENCE
    ),
    "COST_OUTSIDE_TIER_RANGE": lambda: make_design([Spec("h", "generic-host")], []),
    "SWITCH_FLOOR": lambda: _two_dgx(OK_ROWS),
    "BISECTION_BOUNDS": lambda: perturbed_fat_tree(1024, 0),
    "FABRIC_SPLIT": lambda: _islands(),
    "UNWIRED_DEVICE": lambda: _two_dgx(OK_ROWS, [Spec("fs", "lustre-appliance")]),
    "COMPUTE_PORTS_UNUSED": lambda: _two_dgx(
        [("dgx1", "compute", "sw", "ports", 1, 400), OK_ROWS[1]]
    ),
    "LEAF_WITHOUT_UPLINKS": lambda: _islands(),
    "NO_OOB_LINK": lambda: _two_dgx(
        [*OK_ROWS, ("dgx1", "bmc", "oob", "ports", 1, 1)],
        [Spec("oob", "sn2201")],
        fabric={2: Fabric.OOB},
    ),
    "HEAD_NODE_LINKS": lambda: _two_dgx(
        [*OK_ROWS, ("head", "storage", "sw", "ports", 2, 200)],
        [Spec("head", "head-node")],
        fabric={2: Fabric.STORAGE},
    ),
    "CROSS_RAIL_THROUGH_NODES": lambda: _rails(),
    "NO_HEAD_NODE": lambda: _two_dgx(OK_ROWS),
    "NO_INBAND_NETWORK": lambda: _two_dgx(OK_ROWS),
    "STORAGE_UNREACHABLE": lambda: _two_dgx(
        [*OK_ROWS, ("fs", "bmc", "oob", "ports", 1, 1)],
        [Spec("fs", "lustre-appliance"), Spec("oob", "sn2201")],
        fabric={2: Fabric.OOB},
    ),
    "NO_STORAGE_PATH": lambda: _two_dgx(
        [
            *OK_ROWS,
            ("dgx1", "storage", "st", "ports", 2, 400),
            ("fs", "data", "st", "ports", 8, 200),
        ],
        [Spec("fs", "lustre-appliance"), Spec("st", "qm9700")],
        fabric={2: Fabric.STORAGE, 3: Fabric.STORAGE},
    ),
}


def test_every_documented_code_has_a_case() -> None:
    assert FINDINGS_DOC is not None
    documented = {
        line.split("``")[1]
        for line in FINDINGS_DOC.splitlines()
        if line.startswith("- ``")
    }
    documented |= {"NO_MONITORING"}
    assert documented == set(CASES)


@pytest.mark.parametrize("code", sorted(CASES))
def test_code_triggered(code: str) -> None:
    report = analyze(CASES[code]())
    found = [f for f in report.findings if f.code == code]
    assert found, [(f.code, f.message) for f in report.findings]
    assert all(f.message for f in found)


def test_severities_and_items() -> None:
    report = analyze(_two_dgx([("dgx1", "compute", "sw", "ports", 9, 400), OK_ROWS[1]]))
    budget = next(f for f in report.findings if f.code == "PORT_BUDGET_EXCEEDED")
    assert budget.severity is Severity.ERROR
    assert "dgx1" in budget.items
    # the reason the rules give (check_design, and an edit in the present tense)
    assert budget.message.endswith(
        "worst: dgx-h100 dgx1: port group 'compute' has 8 ports (4 twin-port "
        "cages) but 9 are in use (1 too many): 9 to sw"
    )
    assert report.errors() and report.errors()[0].severity is Severity.ERROR
    spof = analyze(_two_dgx(OK_ROWS))
    single = next(f for f in spof.findings if f.code == "SINGLE_POINT_OF_FAILURE")
    assert single.items == ["sw"]


def test_storage_bandwidth_levels() -> None:
    report = analyze(CASES["STORAGE_BANDWIDTH_LOW"]())
    f = next(f for f in report.findings if f.code == "STORAGE_BANDWIDTH_LOW")
    # 1,024 GPUs = 4 SU: 80 GB/s is above 'good' (60) but below 'better' (160)
    assert f.severity is Severity.INFO


def test_every_code_is_in_the_json_doc() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "validate-json.md").read_text(
        encoding="utf-8"
    )
    rows = [line for line in doc.splitlines() if line.startswith("| `")]
    listed = {
        c for line in rows for c in line.split("|")[1].replace("`", "").split(", ")
    }
    assert set(CASES) <= {c.strip() for c in listed}


@pytest.mark.parametrize(
    ("code", "rows"),
    [
        ("SPEED_MISMATCH", [("dgx1", "compute", "sw", "ports", 8, 800), OK_ROWS[1]]),
        ("PORT_BUDGET_EXCEEDED", [("dgx1", "compute", "sw", "ports", 9, 400)]),
        (
            "FABRIC_ROLE_MISMATCH",
            [*OK_ROWS, ("dgx1", "storage", "sw", "ports", 1, 400)],
        ),
    ],
)
def test_findings_quote_the_rules_reason(code: str, rows: list[Row]) -> None:
    design = _two_dgx(rows)
    reasons = [str(p) for p in check_design(design, default_catalog())]
    finding = next(f for f in analyze(design).findings if f.code == code)
    assert any(r in finding.message for r in reasons), (finding.message, reasons)


def test_media_mismatch_quotes_the_rules_reason() -> None:
    design = CASES["MEDIA_MISMATCH"]()
    (reason,) = [str(p) for p in check_design(design, default_catalog())]
    finding = next(f for f in analyze(design).findings if f.code == "MEDIA_MISMATCH")
    assert finding.message.endswith(f"e.g. l0: {reason}")


def test_two_rail_leaves_without_a_spine_say_traffic_crosses_the_nodes() -> None:
    """Issue 16, item 5: "12.8 Tb/s, ratio 1.00, exact" said nothing of PXN."""
    report = analyze(_rails())
    note = next(f for f in report.findings if f.code == "CROSS_RAIL_THROUGH_NODES")
    assert note.severity is Severity.INFO and sorted(note.items) == ["rail0", "rail1"]
    assert "passes through the nodes" in note.message and "PXN" in note.message
    assert report.bisection.exact and report.bisection.gbps == 3_200  # 8 x 400G
    # with a spine the leaves are joined by switches: no note
    d = _rails()
    spined = make_design(
        [
            *(Spec(x.id, x.catalog_id, x.tier) for x in d.devices),
            Spec("spine", "qm9700", Tier.SPINE),
        ],
        [
            *((x.a, x.a_port, x.b, x.b_port, x.cables, x.speed_gbps) for x in d.links),
            ("rail0", "ports", "spine", "ports", 8, 400),
            ("rail1", "ports", "spine", "ports", 8, 400),
        ],
    )
    assert "CROSS_RAIL_THROUGH_NODES" not in _codes(analyze(spined))


def test_the_cost_finding_quotes_the_headline_figure() -> None:
    """The tier-range finding names the capex as the summary does (three
    significant figures, one formatter), not to another precision."""
    from designer.core.formatting import usd, usd_range

    report = analyze(CASES["COST_OUTSIDE_TIER_RANGE"]())
    (finding,) = [f for f in report.findings if f.code == "COST_OUTSIDE_TIER_RANGE"]
    lo, hi = report.tier.typical_cost_usd
    assert f"hardware capex {usd(report.cost_usd.total)} is outside" in finding.message
    assert usd_range(lo, hi) in finding.message
