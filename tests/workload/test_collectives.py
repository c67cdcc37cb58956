"""Collectives on drawn designs: the physics, the CLI, and an independent
flow-level check (max-min fair rates of the collective's flows on the design's
own links, tests/workload/maxmin.py)."""

from __future__ import annotations

import contextlib
import io
import json
from functools import cache
from pathlib import Path

import pytest

from designer.cli.main import main as cli_main
from designer.core.model import Design
from designer.generate import fat_tree
from designer.workload import DesignFacts, read_design
from designer.workload.collectives import (
    NIC_EFFICIENCY,
    FabricView,
    Group,
    Op,
    collective,
)
from tests.workload.maxmin import LinkGraph, all_to_all_flows, flow_time, ring_flows

FLOW_TOLERANCE = 0.10
"""Model vs flow-level check: the scale-out time within 10 % (stated before
comparing; the model's per-tier shares are exact on symmetric fat trees)."""


@cache
def _facts(nodes: int, over: float, rail: bool, su: int | None) -> DesignFacts:
    design = fat_tree(
        "dgx-h100",
        nodes,
        "qm9700",
        su_size=su,
        rail_optimized=rail,
        oversubscription=(over,),
    )
    return read_design(design)


def _view(nodes: int, over: float, rail: bool = True, su: int | None = 8) -> FabricView:
    return _facts(nodes, over, rail, su).fabric()


def _net(view: FabricView, op: Op, size: float, n: int, algo: str | None) -> float:
    t = collective(view, op, size, Group(n, 1), concurrent=False, algorithm=algo)
    return max(v for k, v in t.terms.items() if k not in ("nvlink", "latency"))


@pytest.mark.parametrize(("rail", "nodes", "su"), [(True, 32, 8), (False, 16, None)])
@pytest.mark.parametrize("over", [1.0, 2.0])
def test_model_matches_max_min_fair_flows(
    rail: bool, nodes: int, su: int | None, over: float
) -> None:
    facts = _facts(nodes, over, rail, su)
    view = facts.fabric()
    graph = LinkGraph(facts, NIC_EFFICIENCY)
    n = nodes * 8
    for op, flows, size, algo in (
        (Op.ALL_REDUCE, ring_flows, 1e9, "ring"),
        (Op.ALL_TO_ALL, all_to_all_flows, 256e6, None),
    ):
        oracle = flow_time(graph, flows(graph, size, nodes))
        model = _net(view, op, size, n, algo)
        assert model == pytest.approx(oracle, rel=FLOW_TOLERANCE), (op, over)


def test_rail_local_ring_barely_notices_a_2_to_1_leaf_uplink() -> None:
    """The DP ring of TP-8 jobs: one GPU per node, rail-aligned, over 4 SUs."""
    ring = Group(32, 8)  # one GPU per node on 32 nodes of 4 leaf groups
    full = collective(_view(32, 1.0), Op.ALL_REDUCE, 1e9, ring, algorithm="ring")
    half = collective(_view(32, 2.0), Op.ALL_REDUCE, 1e9, ring, algorithm="ring")
    assert half.time_s == pytest.approx(full.time_s, rel=0.02)
    assert half.bottleneck == "nic"


def test_all_to_all_across_leaves_takes_about_twice_as_long_at_2_to_1() -> None:
    """16 leaf groups of 4 nodes: 60 of 63 peers sit under other leaves, so
    nearly all traffic climbs the halved uplinks; with 4 groups (24 of 31) less."""
    n = 64 * 8
    full = collective(_view(64, 1.0, su=4), Op.ALL_TO_ALL, 1e9, Group(n, 1))
    half = collective(_view(64, 2.0, su=4), Op.ALL_TO_ALL, 1e9, Group(n, 1))
    assert 1.8 <= half.time_s / full.time_s <= 2.05
    assert half.bottleneck == "leaf"
    few = collective(_view(32, 2.0), Op.ALL_TO_ALL, 256e6, Group(256, 1))
    few_full = collective(_view(32, 1.0), Op.ALL_TO_ALL, 256e6, Group(256, 1))
    assert 1.3 < few.time_s / few_full.time_s < half.time_s / full.time_s


def test_more_oversubscription_never_speeds_a_collective() -> None:
    for op in (Op.ALL_REDUCE, Op.ALL_GATHER, Op.REDUCE_SCATTER, Op.ALL_TO_ALL):
        times = [
            collective(_view(32, r), op, 1e8, Group(256, 1)).time_s
            for r in (1.0, 2.0, 4.0)
        ]
        assert times == sorted(times), op


def test_tp_group_spanning_nvlink_domains_is_slow() -> None:
    """Eight TP ranks on eight DGX (one per node) share one NIC each instead of
    NVLink: several times slower. Sixteen ranks on two DGX use all 16 NICs, so
    the collective alone is not much slower on a DGX H100 (8 x 50 GB/s out vs
    450 GB/s NVLink): the step model shows the cost (test_step_golden)."""
    view = _view(32, 1.0)
    inside = collective(view, Op.ALL_GATHER, 256e6, Group(8, 1))
    spread = collective(view, Op.ALL_GATHER, 256e6, Group(8, 8))
    two = collective(view, Op.ALL_GATHER, 256e6, Group(16, 1))
    assert not inside.spans_domains and inside.bottleneck == "nvlink"
    assert spread.spans_domains and spread.bottleneck == "nic"
    assert spread.time_s > 5 * inside.time_s
    assert two.spans_domains and two.time_s >= inside.time_s


def test_busbw_follows_nccl_tests_definitions() -> None:
    t = collective(_view(32, 1.0), Op.ALL_REDUCE, 1e9, Group(256, 1))
    assert t.algbw_bytes_s == pytest.approx(1e9 / t.time_s)
    assert t.busbw_bytes_s == pytest.approx(t.algbw_bytes_s * 2 * 255 / 256)
    # 8 x 400G per DGX H100: ~400 GB/s of bus bandwidth at best, NVLink near it
    assert 300e9 < t.busbw_bytes_s < 400e9


def _cli(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = cli_main(list(args))
    return code, out.getvalue()


def test_cli_collective_json(tmp_path: Path) -> None:
    design: Design = fat_tree("dgx-h100", 32, "qm9700", su_size=8)
    path = tmp_path / "d.json"
    path.write_text(design.model_dump_json(), encoding="utf-8")
    code, text = _cli(
        "estimate",
        str(path),
        "--collective",
        "all-to-all",
        "--bytes",
        "256M",
        "--gpus",
        "64",
        "--json",
    )
    assert code == 0
    c = json.loads(text)["collective"]
    assert set(c) >= {
        "op",
        "bytes",
        "gpus",
        "algorithm",
        "time_s",
        "algbw_gbytes_s",
        "busbw_gbytes_s",
        "bottleneck",
    }
    assert (c["op"], c["bytes"], c["gpus"]) == ("all-to-all", 256e6, 64)
    code, text = _cli(
        "estimate", str(path), "--collective", "all-reduce", "--bytes", "1G"
    )
    assert code == 0 and "bottleneck: nic" in text and "busbw" in text
    code, _ = _cli("estimate", str(path), "--collective", "all-reduce")
    assert code == 2  # no --bytes
    code, _ = _cli(
        "estimate",
        str(path),
        "--collective",
        "all-reduce",
        "--bytes",
        "1G",
        "--gpus",
        "100000",
    )
    assert code == 2
