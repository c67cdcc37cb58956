"""Every sample design: BOM, cabling plan and topology.conf agree with the analysis."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from designer.analysis import analyze
from designer.io import load_design
from designer.io.export import (
    hostnames,
    slurm_topology,
    write_bom_csv,
    write_cabling_csv,
)
from tests.io.export.test_slurm import expand_hostlist

SAMPLES = sorted((Path(__file__).resolve().parents[3] / "samples").glob("*.json"))


@pytest.mark.parametrize("path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_sample_exports_agree(path: Path) -> None:
    design = load_design(path)
    report = analyze(design)

    bom = io.StringIO()
    write_bom_csv(report, bom)
    rows = list(csv.DictReader(io.StringIO(bom.getvalue())))
    assert rows[-1]["category"] == "TOTAL"
    assert float(rows[-1]["extended_price_usd"]) == pytest.approx(
        report.cost_usd.total, abs=0.005
    )
    assert sum(float(r["extended_price_usd"]) for r in rows[:-1]) == pytest.approx(
        report.cost_usd.total, abs=0.01 * len(rows)
    )

    cab = io.StringIO()
    n = write_cabling_csv(design, cab)
    assert n == sum(design.links.cables) == sum(report.cables.values())
    assert len(cab.getvalue().splitlines()) == n + 1

    text = slurm_topology(design)
    listed: list[str] = []
    for line in text.splitlines():
        m = re.match(r"^SwitchName=\S+ Nodes=(\S+)$", line)
        if m:
            listed += expand_hostlist(m.group(1))
    assert len(listed) == len(set(listed)), "a node is listed twice"
    names = set(hostnames(design).values())
    unwired = re.search(r"^# Not on the compute fabric \(no leaf\): (\S+)$", text, re.M)
    off_fabric = set(expand_hostlist(unwired.group(1))) if unwired else set()
    assert set(listed) | off_fabric == names
    assert not set(listed) & off_fabric
    assert len(names) == report.compute_nodes
