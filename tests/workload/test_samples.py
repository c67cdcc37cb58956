"""The estimate on every sample, for every job: no failure, every figure sourced,
every null explained."""

from __future__ import annotations

import json
from typing import Any

import pytest

from designer.core.workload import Job, Workload
from designer.io import load_design
from designer.workload import Estimate, estimate, read_design
from tests.workload.conftest import SAMPLES

NAMES = sorted(p.name for p in SAMPLES.glob("*.json"))
_LISTS = ("assumptions", "findings", "figures", "unknown", "model", "rule_of_thumb")


def numbers(data: Any, prefix: str = "") -> dict[str, Any]:
    """Leaf figures of the JSON by dotted path (inputs and lists left out)."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        path = f"{prefix}{key}"
        if (not prefix and key in _LISTS) or key in (
            "cloud_reference_rates",
            "by_tier_detail",
            "alternatives",
            "method",
            "sweep",  # the serving chart's points (inference.sweep)
        ):
            continue
        if isinstance(value, dict):
            out.update(numbers(value, path + "."))
        elif not isinstance(value, str):
            out[path] = value
    return out


def check(est: Estimate) -> None:
    data = est.model_dump(mode="json")
    json.dumps(data, allow_nan=False)  # plain JSON: no NaN or infinity
    leaves = numbers(data)
    for path, value in leaves.items():
        if path.startswith("parallelism.") and path.split(".")[1] in (
            "recompute",
            "nvlink_domain",
            "chosen",
        ):
            continue
        assert path in est.figures, f"{path} has no source"
        if value is None:
            assert path in est.unknown, f"{path} is null without a reason"
    for path in est.figures:
        est.value(path)  # every described figure exists
    for path, why in est.unknown.items():
        assert why, path
    for a in est.assumptions:
        assert a.source and a.origin, a
    n1 = est.n_minus_1
    if n1.bisection_ratio_after is not None:
        assert n1.bisection_ratio_after <= n1.bisection_ratio_live + 1e-12
        assert n1.bisection_ratio_after_lower is not None
        assert n1.bisection_ratio_after_lower <= n1.bisection_ratio_after + 1e-12


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_every_job_on_every_sample(name: str) -> None:
    design = load_design(SAMPLES / name)
    facts = read_design(design)
    for job in Job:
        for model in ("llama3-70b", "deepseek-v3", "llama3-8b"):
            est = estimate(
                design, overrides=Workload(model=model, job=job), design_facts=facts
            )
            check(est)
            assert est.gpus == facts.report.gpus
            assert est.job == job.value
    check(estimate(design, design_facts=facts))  # the sample's own block, if any
    design.workload = None
    bare = estimate(design, design_facts=facts)
    check(bare)
    assert bare.unknown["fits"].startswith("no model given")


@pytest.mark.parametrize("name", NAMES)
def test_checkpoint_figures_follow_the_storage(name: str) -> None:
    design = load_design(SAMPLES / name)
    est = estimate(design, overrides=Workload(model="llama3-8b", job=Job.PRETRAIN))
    has_storage = any(
        d.catalog_id.endswith(("appliance", "filer")) for d in design.devices
    )
    if has_storage:
        assert est.reliability.checkpoint_write_s is not None
    else:
        assert est.reliability.checkpoint_write_s is None
        assert "no storage" in est.unknown["reliability.checkpoint_write_s"]


def test_a_design_without_storage_says_why() -> None:
    design = load_design(SAMPLES / "dgx-h100-superpod-4su.json")
    design.devices = [d for d in design.devices if d.catalog_id != "lustre-appliance"]
    gone = {
        d.id
        for d in load_design(SAMPLES / "dgx-h100-superpod-4su.json").devices
        if d.catalog_id == "lustre-appliance"
    }
    keep = [
        i
        for i, (a, b) in enumerate(zip(design.links.a, design.links.b, strict=True))
        if a not in gone and b not in gone
    ]
    design.links = design.links.take(keep)
    est = estimate(design, overrides=Workload(model="llama3-70b"))
    assert est.reliability.checkpoint_tb is not None  # the size is still known
    for name in (
        "storage_write_gbytes_s",
        "checkpoint_write_s",
        "checkpoint_interval_min",
        "lost_fraction",
        "effective_days",
    ):
        assert getattr(est.reliability, name) is None
        assert "no storage appliances" in est.unknown[f"reliability.{name}"]
    assert est.days is not None  # the rest is unaffected
