"""Unwired compute nodes do not collapse the bisection's lower bound (issue 16,
item 3: one unwired DGX dropped on the 100K design gave "bound: 0 Gb/s-20 Pb/s"
and a refinement that never finished).

The bound comes from the wired part's proof less what the unwired nodes can
change: a balanced split of all nodes is a few nodes off a balanced split of
the wired ones, and moving a node changes a cut by at most its links. Checked
against brute force on small designs (every balanced split, networkx
max-flow), exact on fat trees, and through the CLI and the worker's path.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from designer.analysis import analyze, build_index
from designer.analysis.bisection import _unwired_slack
from designer.analysis.engine import analyze_stages
from designer.cli.main import main
from designer.core.model import Design, Device
from designer.generate import fat_tree
from designer.io import save_design
from tests.analysis.builders import (
    Spec,
    balanced_splits,
    gpus_of,
    make_design,
    oracle_bisection,
    random_design,
    split_value,
)


def _with_unwired(design: Design, k: int, catalog_id: str, **ports: int) -> Design:
    extra = [
        Device(id=f"unwired-{i}", catalog_id=catalog_id, ports=ports or None)
        for i in range(k)
    ]
    return design.model_copy(update={"devices": [*design.devices, *extra]})


@pytest.mark.parametrize("seed", range(0, 40, 2))  # even seeds: equal GPUs per node
@pytest.mark.parametrize("k", [1, 2])
def test_bounds_bracket_brute_force_with_unwired_nodes(seed: int, k: int) -> None:
    wired = random_design(seed, hosts=4 + seed % 5, switches=2 + seed % 3)
    design = _with_unwired(wired, k, "generic-host", compute=16)
    b = analyze(design).bisection
    oracle = oracle_bisection(design)
    assert b.lower_gbps <= oracle + 1e-6 <= b.upper_gbps + 2e-6
    # the reported cut is a balanced split of every node, of the value shown
    gpus = gpus_of(design)
    a_nodes = {x for x in b.side_a if x in gpus}
    assert any(a_nodes in (sa, sb) for sa, sb in balanced_splits(gpus))
    assert split_value(design, b.side_a) == pytest.approx(b.upper_gbps)
    # small designs: the exact methods finish from the wired part's bounds
    assert b.exact and b.lower_gbps == pytest.approx(oracle) and oracle > 0


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(0, 40, 2))
def test_the_wired_parts_bounds_alone_bracket_brute_force(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the exact methods (as on a large fabric) the bounds derived from
    the wired part still bracket the brute-force value."""
    from designer.analysis import bisection

    monkeypatch.setattr(bisection, "EXACT_LIVE_COMPUTE", 0)
    monkeypatch.setattr(bisection, "EXACT_LIVE_LOCAL", 0)
    monkeypatch.setattr(bisection, "PLACEMENT_LIVE_DEVICES", -1)
    wired = random_design(seed, hosts=4 + seed % 5, switches=2 + seed % 3)
    design = _with_unwired(wired, 1 + seed % 3, "generic-host", compute=16)
    b = analyze(design).bisection
    oracle = oracle_bisection(design)
    assert b.lower_gbps <= oracle + 1e-6 <= b.upper_gbps + 2e-6
    # (half the nodes unwired: a side of them alone crosses nothing, exact 0)
    assert "unwired" in b.method or (b.exact and oracle == 0)


def test_slack_counts_the_nodes_a_balanced_split_can_be_off() -> None:
    inj = [3200.0] * 10
    import numpy as np

    a = np.array(inj)
    assert _unwired_slack(10, 1, a) == (1, 3200.0)  # 11 nodes: 5/6 vs 5/5
    assert _unwired_slack(11, 1, a[:11]) == (0, 0.0)  # 12 nodes: 6/6, wired 5/6
    assert _unwired_slack(10, 3, a) == (2, 6400.0)  # 13: wired 3..7 on a side


@pytest.mark.parametrize(("nodes", "k"), [(256, 1), (257, 1), (256, 3), (2000, 1)])
def test_fat_trees_with_unwired_nodes_are_exact(nodes: int, k: int) -> None:
    design = _with_unwired(fat_tree("dgx-h100", nodes, "qm9700"), k, "dgx-h100")
    b = analyze(design).bisection
    big = nodes + k
    # the smaller side holds every unwired node and its wired nodes' links cross
    want = (big // 2 - k) * 3200.0
    assert b.exact and b.lower_gbps == pytest.approx(want)
    assert b.upper_gbps == pytest.approx(want)


def test_the_cli_reports_it_exact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "one-unwired.json"
    save_design(_with_unwired(fat_tree("dgx-h100", 512, "qm9700"), 1, "dgx-h100"), path)
    assert main(["validate", str(path), "--json"]) in (0, 1)
    report = json.loads(capsys.readouterr().out)
    bis = report["bisection"]
    assert bis["exact"] is True
    assert bis["lower_gbps"] == bis["upper_gbps"] == 255 * 3200.0
    assert main(["validate", str(path)]) in (0, 1)
    assert "816,000 Gb/s (exact)" in capsys.readouterr().out


@pytest.mark.slow
def test_100k_with_one_unwired_dgx_is_exact_in_the_worker_path() -> None:
    """The stream the editor's worker reads: the first report is already exact,
    so nothing is left refining."""
    design = _with_unwired(fat_tree("dgx-h100", 12_500, "qm9700"), 1, "dgx-h100")
    index = build_index(design)
    stream = analyze_stages(
        index, design, deadline=time.perf_counter() + 30.0, should_stop=lambda: False
    )
    reports = list(stream)
    assert len(reports) == 1  # exact at once: no refinement stage runs
    b = reports[0].bisection
    assert b.exact and b.lower_gbps == b.upper_gbps == 6_249 * 3200.0
    assert "less what the 1 unwired node can change" in b.method


def test_an_oversubscribed_tree_keeps_a_sound_interval() -> None:
    """A 2:1 hand-built tree with a lone node: bounds from the wired proof,
    within 1 % (here the slack is one node's 400G link)."""
    specs = [Spec(f"leaf{i}", "generic-switch", ports={"ports": 64}) for i in range(4)]
    specs += [Spec("spine", "generic-switch", ports={"ports": 64})]
    rows = []
    for i in range(4):
        for h in range(8):
            specs.append(Spec(f"h{i}_{h}", "generic-host"))
            rows.append((f"h{i}_{h}", "compute", f"leaf{i}", "ports", 1, 400))
        rows.append((f"leaf{i}", "ports", "spine", "ports", 4, 400))
    design = _with_unwired(make_design(specs, rows), 1, "generic-host")
    b = analyze(design).bisection
    assert b.lower_gbps > 0
    assert (b.upper_gbps - b.lower_gbps) <= 0.01 * b.upper_gbps + 400.0
