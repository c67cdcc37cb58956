"""The report is a valid, JSON-round-tripping contract; the index can be reused."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from designer.analysis import Report, analyze, analyze_index, build_index
from designer.generate import fat_tree, k_ary, superpod
from tests.analysis.builders import random_design

DESIGNS = {
    "h100-2su": lambda: superpod("dgx-h100", 2),
    "gb200": lambda: superpod("gb200-nvl72", 1),
    "k4": lambda: k_ary(4),
    "oversubscribed": lambda: fat_tree(
        "dgx-h100", 64, "qm9700", oversubscription=(2.0,)
    ),
    "random": lambda: random_design(7),
}


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_report_validates_and_round_trips(name: str) -> None:
    report = analyze(DESIGNS[name]())
    data = json.loads(report.model_dump_json())
    again = Report.model_validate(data)
    assert again.model_dump(mode="json") == report.model_dump(mode="json")
    for key in (
        "gpus",
        "compute_nodes",
        "switches",
        "cables",
        "transceivers",
        "bisection",
        "oversubscription",
        "cost_usd",
        "power_kw",
        "rack_units",
        "tier",
        "findings",
    ):
        assert key in data
    for key in ("gbps", "ratio", "exact", "lower_gbps", "upper_gbps"):
        assert key in data["bisection"]
    b = report.bisection
    assert b.lower_gbps <= b.gbps == b.upper_gbps
    assert b.exact == (b.lower_gbps == b.upper_gbps)


def test_index_reused_across_settings_edits() -> None:
    design = superpod("dgx-h100", 1)
    index = build_index(design)
    first = analyze_index(index, design)
    edited = design.model_copy(
        update={"settings": design.settings.model_copy(update={"scheduler": None})}
    )
    second = analyze_index(index, edited)
    assert second.bisection == first.bisection
    assert "NO_SCHEDULER" in {f.code for f in second.findings}
    assert first.model_dump() == analyze(design).model_dump()


@pytest.mark.slow
def test_analysis_imports_no_qt() -> None:
    code = (
        "import sys, designer.analysis; "
        "qt = [m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph'))]; "
        "sys.exit(1 if qt else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
