"""Issue 16 item 4: a custom model's parameters and shape describe one model
(or the estimate says they do not, or which fields are missing), and full
fine-tuning and LoRA compare on one plan."""

from __future__ import annotations

import pytest

from designer.core.workload import Job
from designer.view.workload.summary import summary
from designer.workload.presets import (
    PRESETS,
    ModelSpec,
    params_from_shape,
    shape_for_params,
    shape_mismatch,
)
from tests.workload.conftest import dgx_tree, run


@pytest.mark.parametrize("params", [1e9, 7e9, 70e9, 405e9])
def test_a_shape_derived_from_the_parameters_makes_those_parameters(
    params: float,
) -> None:
    shape = shape_for_params(params)
    spec = ModelSpec("c", "c", params, **shape)
    assert params_from_shape(spec) == pytest.approx(params, rel=0.1)
    assert shape["hidden"] % shape["heads"] == 0
    assert shape["heads"] % shape["kv_heads"] == 0
    assert shape_mismatch(spec) is None


def test_the_shape_grows_with_the_parameters() -> None:
    small, big = shape_for_params(7e9), shape_for_params(70e9)
    assert big["layers"] > small["layers"] and big["hidden"] > small["hidden"]
    # a given layer count is kept and the hidden size solved for
    assert shape_for_params(7e9, layers=80)["layers"] == 80
    assert shape_for_params(7e9, layers=80)["hidden"] < small["hidden"]


def test_published_shapes_agree_with_their_parameters() -> None:
    for spec in PRESETS.values():
        assert shape_mismatch(spec) is None, spec.key


def test_70b_shape_with_7b_parameters_is_a_warning_naming_both() -> None:
    est = run(dgx_tree(8), params=7e9, layers=80, hidden=8192, heads=64, seq_len=8192)
    found = {f.code: f.message for f in est.findings}
    message = found["WORKLOAD_MODEL_SHAPE_MISMATCH"]
    assert "80 layers x 8,192 hidden" in message and "7B given" in message
    consistent = run(dgx_tree(8), params=7e9, **shape_for_params(7e9))
    assert "WORKLOAD_MODEL_SHAPE_MISMATCH" not in {f.code for f in consistent.findings}
    # the consistent shape holds a tenth of the 70B-shaped activations
    wrong = est.memory_gb_per_gpu.activations
    right = consistent.memory_gb_per_gpu.activations
    assert wrong is not None and right is not None and right < wrong / 2


def test_a_partial_shape_names_the_missing_fields() -> None:
    est = run(dgx_tree(8), params=7e9, layers=32)
    found = {f.code: f.message for f in est.findings}
    message = found["WORKLOAD_MODEL_SHAPE_INCOMPLETE"]
    assert "hidden size, attention heads and sequence length" in message
    why = est.unknown["memory_gb_per_gpu.activations"]
    assert "hidden size" in why and "layers" not in why.split("(")[1]


def test_full_and_lora_fine_tuning_compare_on_one_plan() -> None:
    design = dgx_tree(8)
    plan = {"tp": 2, "pp": 1, "zero_stage": 1}
    lora = run(design, model="llama3-8b", job=Job.LORA, **plan)
    full = run(design, model="llama3-8b", job=Job.FINETUNE, **plan)
    assert (lora.parallelism.tp, lora.parallelism.dp) == (
        full.parallelism.tp,
        full.parallelism.dp,
    )
    other = lora.other_job_on_plan
    assert other is not None and other.job == "finetune"
    assert other.memory_gb_per_gpu == pytest.approx(full.memory_gb_per_gpu.total)
    back = full.other_job_on_plan
    assert back is not None and back.job == "lora"
    assert back.memory_gb_per_gpu == pytest.approx(lora.memory_gb_per_gpu.total)
    assert back.memory_gb_per_gpu < full.memory_gb_per_gpu.total  # LoRA holds less
    line = next(x for x in summary(lora) if x.label == "Same plan")
    assert line.text.startswith("full fine-tune on this plan (TP 2 x PP 1)")
    assert "compare on one plan" in line.text
    assert run(design, model="llama3-8b").other_job_on_plan is None  # pre-training
