"""A cluster with no head node or no in-band network gets a finding (issue 16,
item 2: the Vera Rubin sample, management $0, had none)."""

from __future__ import annotations

from pathlib import Path

from designer.analysis import analyze
from designer.analysis.report import Severity
from designer.core.model import Fabric, Purpose
from designer.io import load_design
from tests.analysis.builders import Spec, make_design

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
PAIR = [
    ("dgx1", "compute", "sw", "ports", 8, 400),
    ("dgx2", "compute", "sw", "ports", 8, 400),
]
SPECS = [Spec("dgx1", "dgx-h100"), Spec("dgx2", "dgx-h100"), Spec("sw", "qm9700")]


def _codes(design) -> dict[str, Severity]:  # type: ignore[no-untyped-def]
    return {f.code: f.severity for f in analyze(design).findings}


def test_the_vera_rubin_sample_says_it_has_no_management() -> None:
    report = analyze(load_design(SAMPLES / "vera-rubin-nvl72-pod.json"))
    found = {f.code: f for f in report.findings}
    assert found["NO_HEAD_NODE"].severity is Severity.WARNING
    assert found["NO_HEAD_NODE"].message.startswith(
        "no head node for 16 compute nodes: nothing provisions them"
    )
    assert "RA-H100 Table 7" in found["NO_HEAD_NODE"].message
    assert found["NO_INBAND_NETWORK"].severity is Severity.WARNING
    assert "no link is on the in-band fabric" in found["NO_INBAND_NETWORK"].message


def test_a_head_node_on_the_in_band_network_clears_both() -> None:
    bare = _codes(make_design(SPECS, PAIR))
    assert {"NO_HEAD_NODE", "NO_INBAND_NETWORK"} <= set(bare)
    # a head node without its in-band link: HEAD_NODE_LINKS says it, once
    head = make_design(
        [*SPECS, Spec("head", "head-node")],
        [*PAIR, ("head", "storage", "sw", "ports", 2, 200)],
        fabric={2: Fabric.STORAGE},
    )
    codes = _codes(head)
    assert "HEAD_NODE_LINKS" in codes
    assert not {"NO_HEAD_NODE", "NO_INBAND_NETWORK"} & set(codes)
    wired = make_design(
        [*SPECS, Spec("head", "head-node"), Spec("inb", "sn4600c")],
        [*PAIR, ("head", "inband", "inb", "ports", 2, 100)],
        fabric={2: Fabric.INBAND},
    )
    assert not {"NO_HEAD_NODE", "NO_INBAND_NETWORK"} & set(_codes(wired))


def test_one_node_needs_no_head_node_and_a_dev_cluster_is_told_gently() -> None:
    one = make_design([Spec("dgx1", "dgx-h100"), Spec("sw", "qm9700")], PAIR[:1])
    assert "NO_HEAD_NODE" not in _codes(one)
    dev = _codes(make_design(SPECS, PAIR, purpose=Purpose.DEVELOPMENT))
    assert dev["NO_HEAD_NODE"] is Severity.INFO
    assert dev["NO_INBAND_NETWORK"] is Severity.INFO
