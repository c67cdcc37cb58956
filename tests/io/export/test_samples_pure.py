"""Every sample design: BOM, cabling plan and topology.conf agree with the analysis."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from designer.analysis import analyze
from designer.catalog.hosts import design_hosts
from designer.io import load_design
from designer.io.export import (
    slurm_topology,
    write_bom_csv,
    write_cabling_csv,
)
from tests.io.export.test_slurm import check_tree, expand_hostlist

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
    hosts = design_hosts(design)
    names = {h.name for h in hosts}
    unwired = re.search(r"^# Not on the compute fabric \(no leaf\): (\S+)$", text, re.M)
    off_fabric = set(expand_hostlist(unwired.group(1))) if unwired else set()
    assert not off_fabric - names
    check_tree(text, names - off_fabric)
    assert len(hosts.device_names) == report.compute_nodes


def test_b200_superpod_topology_is_one_leaf_per_su() -> None:
    design = load_design(
        SAMPLES[[p.stem for p in SAMPLES].index("dgx-b200-superpod-16su")]
    )
    text = slurm_topology(design)
    lines = [x for x in text.splitlines() if x.startswith("SwitchName=")]
    # 16 rail groups (one per SU), 4 pod spine groups, 1 core group
    assert len(lines) == 21
    assert "SwitchName=leaf-su01 Nodes=dgx-[0001-0032]" in lines
    assert "SwitchName=spine-p01 Switches=leaf-su[01-04]" in lines
    assert lines[-1] == "SwitchName=core Switches=spine-p[01-04]"
