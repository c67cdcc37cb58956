"""Every sample loads, validates and analyses to its expected headline numbers."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from designer.analysis import analyze
from designer.analysis.report import Severity
from designer.catalog.loader import Catalog, default_catalog
from designer.core.model import SCHEMA_VERSION, Design, Purpose
from designer.io import dumps_design, load_design

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


@dataclass(frozen=True)
class Expected:
    """Headline numbers of one sample (bisection in Gb/s, one direction)."""

    gpus: int
    nodes: int
    switches: dict[str, int]
    cables: dict[str, int]
    bisection_gbps: float
    tier: str
    purpose: Purpose = Purpose.TRAINING
    scheduler: str = "slurm"
    oversubscription: dict[str, float | None] = field(default_factory=dict)
    errors: frozenset[str] = frozenset()
    warnings: frozenset[str] = frozenset()


DEV = "Development cluster"
LARGE = "Large-scale training cluster"

EXPECTED: dict[str, Expected] = {
    # 2 DGX on one QM9700: one node per half, 8 x 400G crossing.
    "minimum-viable-enterprise.json": Expected(
        gpus=16,
        nodes=2,
        switches={"leaf": 1, "oob": 1},
        cables={"compute": 16, "storage": 14, "oob": 5},
        bisection_gbps=2 * 8 * 400 / 2,
        tier=DEV,
        oversubscription={"leaf": None},
        # one switch carries everything; there is no in-band management
        # network, so the head node has no in-band link (a real gap)
        warnings=frozenset({"SINGLE_POINT_OF_FAILURE", "HEAD_NODE_LINKS"}),
    ),
    # 4 L40S servers, 4 x 100GbE each: two servers per half.
    "development.json": Expected(
        gpus=32,
        nodes=4,
        switches={"leaf": 1, "oob": 1},
        cables={"compute": 16, "storage": 4, "inband": 8, "oob": 7},
        bisection_gbps=2 * 4 * 100,
        tier=DEV,
        purpose=Purpose.DEVELOPMENT,
        warnings=frozenset({"SINGLE_POINT_OF_FAILURE"}),
    ),
    # RA-H100 Table 4, 4 SU: 127 DGX, 32 leaf + 16 spine, 1,020 + 1,024 cables;
    # the smaller half has 63 DGX.
    "dgx-h100-superpod-4su.json": Expected(
        gpus=1016,
        nodes=127,
        switches={"leaf": 32, "spine": 16, "storage": 12, "inband": 8, "oob": 5},
        cables={"compute": 2044, "storage": 472, "inband": 312, "oob": 226},
        bisection_gbps=63 * 8 * 400,
        tier=LARGE,
    ),
    # RA-B200 Table 3, 16 SU: 128 leaf / 128 spine / 64 core, 3 x 4,096 cables.
    "dgx-b200-superpod-16su.json": Expected(
        gpus=4096,
        nodes=512,
        switches={
            "leaf": 128,
            "spine": 128,
            "core": 64,
            "storage": 56,
            "inband": 20,
            "oob": 24,
        },
        cables={"compute": 12288, "storage": 1866, "inband": 1194, "oob": 1005},
        bisection_gbps=4096 / 2 * 400,
        tier=LARGE,
        oversubscription={"leaf": 1.0, "spine": 1.0, "core": None},
    ),
    # GB200 SU: 8 NVL72 racks, one NDR port per GPU; four racks per half.
    "gb200-nvl72-su.json": Expected(
        gpus=576,
        nodes=8,
        switches={"leaf": 18, "spine": 16, "storage": 9, "inband": 2, "oob": 3},
        cables={"compute": 1152, "storage": 602, "inband": 26, "oob": 77},
        bisection_gbps=4 * 72 * 400,
        tier=LARGE,
        oversubscription={"leaf": 1.0, "spine": None},
    ),
    # 16 HGX H100 on 400GbE, 4 leaves (32 down / 32 up) and 2 spines.
    "inference-ethernet.json": Expected(
        gpus=128,
        nodes=16,
        switches={"leaf": 4, "spine": 2, "storage": 1, "oob": 1},
        cables={"compute": 256, "storage": 36, "oob": 25},
        bisection_gbps=8 * 8 * 400,
        tier="Inference cluster",
        purpose=Purpose.INFERENCE,
        scheduler="kubernetes",
        oversubscription={"leaf": 1.0, "spine": None},
        # drawn without head nodes or in-band network (issue 16, item 2)
        warnings=frozenset({"NO_HEAD_NODE", "NO_INBAND_NETWORK"}),
    ),
    # 16 Vera Rubin NVL72 racks on XDR (800G per GPU): 8 racks per half.
    "vera-rubin-nvl72-pod.json": Expected(
        gpus=1152,
        nodes=16,
        switches={"leaf": 16, "spine": 8, "storage": 18, "oob": 2},
        cables={"compute": 2304, "storage": 1240, "oob": 92},
        bisection_gbps=8 * 72 * 800,
        tier=LARGE,
        oversubscription={"leaf": 1.0, "spine": None},
        # management $0: no head node, no in-band network (issue 16, item 2)
        warnings=frozenset({"NO_HEAD_NODE", "NO_INBAND_NETWORK"}),
    ),
}


def _builders() -> dict[str, Callable[[Catalog], Design]]:
    """Each sample as samples/make_samples.py builds and places it (a script)."""
    spec = importlib.util.spec_from_file_location(
        "make_samples", SAMPLES / "make_samples.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    samples: dict[str, Callable[[Catalog], Design]] = module.SAMPLES

    def build(name: str) -> Callable[[Catalog], Design]:
        return lambda cat: module.pinned_design(
            module.placed(name, samples[name](cat), cat), cat
        )

    return {name: build(name) for name in samples}


def test_every_sample_is_listed() -> None:
    assert sorted(p.name for p in SAMPLES.glob("*.json")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_headline_numbers(name: str) -> None:
    want = EXPECTED[name]
    design = load_design(SAMPLES / name)
    report = analyze(design)
    assert design.settings.purpose is want.purpose
    assert design.settings.scheduler == want.scheduler
    assert "dcgm" in design.settings.monitoring
    assert report.gpus == want.gpus
    assert report.compute_nodes == want.nodes
    assert {k: v for k, v in report.switches.items() if v} == want.switches
    assert {k: v for k, v in report.cables.items() if v} == want.cables
    assert report.bisection.exact is True
    assert report.bisection.gbps == pytest.approx(want.bisection_gbps)
    assert report.bisection.ratio == pytest.approx(1.0)
    for tier, ratio in want.oversubscription.items():
        assert report.oversubscription[tier] == (
            None if ratio is None else pytest.approx(ratio)
        )
    assert report.tier.name == want.tier
    assert {f.code for f in report.errors()} == want.errors
    warned = {f.code for f in report.findings if f.severity is Severity.WARNING}
    assert warned == want.warnings
    assert report.cost_usd.total > 0 and report.power_kw > 0


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_round_trips_and_matches_the_script(name: str) -> None:
    """The committed file is what ``samples/make_samples.py`` writes."""
    path = SAMPLES / name
    design = load_design(path)
    assert dumps_design(design) == path.read_text(encoding="utf-8")
    rebuilt = _builders()[name](default_catalog())
    assert rebuilt == design, "run: python samples/make_samples.py"


def test_samples_are_valid_json_objects() -> None:
    for path in SAMPLES.glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["schema_version"] == SCHEMA_VERSION
