"""The product brief's sizing questions ("How many GPUs do I need?"), asked
through the Workload panel on three samples: what the panel answers equals
``cluster-designer estimate`` with the same inputs."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt

from tests.qt.workload.helpers import SAMPLES, cli_json, open_sample, wait_estimate

# (sample, brief's question, preset, job, text fields, CLI options, chart GPUs)
CASES: tuple[tuple[str, str, str, str, dict[str, str], list[str], int | None], ...] = (
    (
        "minimum-viable-enterprise.json",
        "Fine-tune a 7B model: 1-2 GPUs",
        "llama3-8b",
        "finetune",
        {},
        [],
        None,
    ),
    (
        "minimum-viable-enterprise.json",
        "Fine-tune a 7B model (LoRA): 1-2 GPUs",
        "llama3-8b",
        "lora",
        {},
        [],
        None,
    ),
    (
        "minimum-viable-enterprise.json",
        "Fine-tune a 70B model: 4-8 GPUs",
        "llama3-70b",
        "finetune",
        {},
        [],
        None,
    ),
    (
        "dgx-h100-superpod-4su.json",
        "Train a 7B model from scratch: 8-32 GPUs, days to weeks",
        "llama3-8b",
        "pretrain",
        {"tokens": "1T"},
        ["--tokens", "1T"],
        32,
    ),
    (
        "dgx-h100-superpod-4su.json",
        "Train a 70B model from scratch: 64-256 GPUs, weeks",
        "llama3-70b",
        "pretrain",
        {},
        [],
        256,
    ),
    (
        "dgx-h100-superpod-4su.json",
        "Train a 405B model: 512-2,048 GPUs, weeks to months",
        "llama3-405b",
        "pretrain",
        {},
        [],
        2048,
    ),
    (
        "inference-ethernet.json",
        "Inference: 1 GPU per 70B instance at FP8",
        "llama3-70b",
        "inference",
        {"concurrent_sequences": "1"},
        ["--concurrent-sequences", "1"],
        None,
    ),
)


def _type(qtbot: Any, edit: Any, text: str) -> None:
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)
    qtbot.keyClick(edit, Qt.Key.Key_Return)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c[1] for c in CASES])
def test_panel_answers_the_sizing_question(
    qtbot: Any, main_window: Any, case: Any
) -> None:
    sample, question, model, job, fields, options, other = case
    window = open_sample(qtbot, main_window, sample)
    form = window.workload_panel.form
    form.model.setCurrentIndex(form.model.findData(model))
    form.job.setCurrentIndex(form.job.findData(job))
    for name, text in fields.items():
        _type(qtbot, form.edits[name], text)
    est = wait_estimate(qtbot, window)
    data = cli_json(SAMPLES / sample, "--model", model, "--job", job, *options)
    for path in ("fits", "min_gpus", "days", "gpu_hours", "memory_gb_total.total"):
        exact = data
        for part in path.split("."):
            exact = exact[part]
        value = est.value(path)
        assert value == (pytest.approx(exact) if isinstance(exact, float) else exact)
    panel = window.workload_panel
    answer = panel.summary_labels["Fits"].text()
    assert ("yes" if est.fits else "no") in answer
    if other is not None:
        point = dict(panel.charts.days)[other]
        assert point == pytest.approx(
            data["days"] * data["parallelism"]["gpus_used"] / other
        )
    thumb = est.rule_of_thumb
    print(
        f"\n{sample} | {question} | panel: fits {est.fits}, fewest GPUs "
        f"{est.min_gpus}, plan TP{est.parallelism.tp} PP{est.parallelism.pp} "
        f"DP{est.parallelism.dp}, state {est.memory_gb_total.total:,.0f} GB, days "
        f"{est.days if est.days is None else round(est.days, 1)}"
        + (
            f", days on {other:,} GPUs {dict(panel.charts.days)[other]:,.0f}"
            if other
            else ""
        )
        + f" | rule of thumb: {thumb.gpus if thumb else '-'}"
        + " | CLI agrees"
    )
