"""``cluster-designer estimate --job inference``: the ``inference`` object, its
limits, the requests/s target and how the figures move with the design."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from designer.cli.main import main

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
ETH = str(SAMPLES / "inference-ethernet.json")
NVL = str(SAMPLES / "gb200-nvl72-su.json")
KEYS = {
    "replica", "replicas", "max_concurrency", "ttft_ms", "tpot_ms",
    "tokens_per_s_per_gpu", "tokens_per_s", "requests_per_s", "bound", "meets_slo",
}  # fmt: skip


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["estimate", *argv, "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_inference_object(capsys: pytest.CaptureFixture[str]) -> None:
    est = _run(capsys, ETH, "--job", "inference", "--model", "llama3-70b",
               "--precision", "fp8")  # fmt: skip
    inf = est["inference"]
    assert set(inf) >= KEYS
    assert set(inf["replica"]) == {"tp", "pp", "ep", "gpus", "batch"}
    r = inf["replica"]
    assert r["gpus"] == r["tp"] * r["pp"]
    assert inf["bound"] in {"compute", "memory", "kv_capacity", "communication"}
    assert inf["meets_slo"] is True
    assert inf["tpot_ms"] <= 40.0 and inf["ttft_ms"] <= 450.0
    assert inf["replicas"] * r["gpus"] + inf["idle_gpus"] == est["gpus"]
    assert inf["tokens_per_s"] == pytest.approx(
        inf["tokens_per_s_per_gpu"] * est["gpus"]
    )
    assert inf["requests_per_s"] == pytest.approx(inf["tokens_per_s"] / 256)
    assert inf["max_concurrency"] == inf["replicas"] * r["pp"] * r["batch"]
    codes = [f["code"] for f in est["findings"]]
    assert "INFERENCE_SERVES" in codes
    assert "inference.requests_per_s" in est["figures"]
    # a training job has no inference object
    train = _run(capsys, ETH, "--model", "llama3-8b", "--job", "lora")
    assert "inference" not in train


def test_limits_move_the_answer(capsys: pytest.CaptureFixture[str]) -> None:
    base = [ETH, "--job", "inference", "--model", "llama3-70b", "--precision", "fp8"]
    loose = _run(capsys, *base, "--tpot-ms", "100")["inference"]
    tight = _run(capsys, *base, "--tpot-ms", "20")["inference"]
    assert tight["requests_per_s"] < loose["requests_per_s"]
    assert tight["tpot_ms"] <= 20.0
    impossible = _run(capsys, *base, "--tpot-ms", "1")
    inf = impossible["inference"]
    assert inf["meets_slo"] is False and inf["requests_per_s"] == 0
    codes = {f["code"] for f in impossible["findings"]}
    assert "INFERENCE_SLO_UNMET" in codes and "TPOT" in inf["why_not"]
    # the fastest shape shown is above its own bandwidth floor
    assert inf["tpot_ms"] >= inf["tpot_floor_ms"]
    # BF16 weights hold a smaller batch than FP8 on the same GPUs
    bf16 = _run(capsys, ETH, "--job", "inference", "--model", "llama3-70b",
                "--precision", "bf16")["inference"]  # fmt: skip
    fp8 = _run(capsys, *base)["inference"]
    assert bf16["memory_gb"]["weights"] * bf16["replica"]["gpus"] == pytest.approx(
        2 * fp8["memory_gb"]["weights"] * fp8["replica"]["gpus"]
    )


def test_requests_target_sizes_the_cluster(capsys: pytest.CaptureFixture[str]) -> None:
    base = [ETH, "--job", "inference", "--model", "llama3-70b", "--precision", "fp8"]
    have = _run(capsys, *base)["inference"]["requests_per_s"]
    small = _run(capsys, *base, "--requests-per-s", str(have / 4))["inference"]
    assert small["target"]["met"] is True
    assert small["target"]["gpus_needed"] <= 128
    assert "the design serves it" in small["target"]["change"]
    big = _run(capsys, *base, "--requests-per-s", str(have * 3))
    t = big["inference"]["target"]
    assert t["met"] is False
    # three times the rate needs about three times the GPUs, in whole nodes
    assert 3 * 128 * 0.9 <= t["gpus_needed"] <= 3 * 128 * 1.1
    assert t["gpus_needed"] % 8 == 0
    assert t["change"].startswith("add ")
    assert "INFERENCE_TARGET_UNMET" in {f["code"] for f in big["findings"]}


def test_text_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["estimate", ETH, "--job", "inference", "--model", "mixtral-8x7b",
                 "--precision", "fp8"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "Serving" in out and "Requests/s (design)" in out
    assert main(["estimate", ETH, "--job", "inference", "--model", "llama3-70b",
                 "--tpot-ms", "-3"]) == 2  # fmt: skip
    assert "--tpot-ms" in capsys.readouterr().err


def test_nvl72_keeps_tp_inside_the_rack(capsys: pytest.CaptureFixture[str]) -> None:
    inf = _run(capsys, NVL, "--job", "inference", "--model", "llama3-405b",
               "--precision", "fp8")["inference"]  # fmt: skip
    assert inf["meets_slo"] is True
    assert inf["replica"]["tp"] <= 72
    assert inf["replicas"] >= 1


def test_compare_reads_the_serving_tokens_per_s(
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = ["--job", "inference", "--model", "llama3-70b", "--precision", "fp8"]
    est = _run(capsys, ETH, *base)["inference"]
    assert main(["compare", ETH, "--variant", "leaf-2:1", *base, "--json"]) == 0
    cmp = json.loads(capsys.readouterr().out)
    design = cmp["designs"][0]
    assert design["tokens_per_s"] == pytest.approx(est["tokens_per_s"])
    assert design["plan"] == f"{est['replica']['gpus']} x {est['replicas']} replicas"
