"""The workload block's input fields: labels, kinds, parsing and display text.

No Qt here: the Workload panel's form (``designer.qt.workload.form``) lays
these out. Parsing accepts the forms ``cluster-designer estimate`` accepts
(``405e9``, ``15.6T``, ``70B``, ``4M``, ``8k``), and shares also as
percentages (``40%``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import ValidationError

from designer.core import formatting as fmt
from designer.core.workload import Workload


class Kind(StrEnum):
    """How a field's text reads."""

    COUNT = "count"  # a large count: 70B, 15.6T, 405e9
    WHOLE = "whole"  # a whole number: 80, 8k
    NUMBER = "number"  # a plain decimal
    SHARE = "share"  # 0-1, or a percentage


@dataclass(frozen=True)
class FieldSpec:
    """One text field of the workload form."""

    name: str
    label: str
    kind: Kind
    group: str
    unit: str = ""
    jobs: frozenset[str] | None = None
    """Jobs the field applies to (None: all); the form hides it for the rest."""


_TRAINING = frozenset({"pretrain", "finetune", "lora"})
_INFERENCE = frozenset({"inference"})

FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("params", "Parameters", Kind.COUNT, "model"),
    FieldSpec("active_params", "Active parameters (MoE)", Kind.COUNT, "model"),
    FieldSpec("layers", "Layers", Kind.WHOLE, "model"),
    FieldSpec("hidden", "Hidden size", Kind.WHOLE, "model"),
    FieldSpec("heads", "Attention heads", Kind.WHOLE, "model"),
    FieldSpec("kv_heads", "KV heads", Kind.WHOLE, "model"),
    FieldSpec("seq_len", "Sequence length", Kind.WHOLE, "model", "tokens"),
    FieldSpec("vocab", "Vocabulary", Kind.WHOLE, "model"),
    FieldSpec("tokens", "Training tokens", Kind.COUNT, "job", "tokens", _TRAINING),
    FieldSpec("lora_rank", "LoRA rank", Kind.WHOLE, "job", "", frozenset({"lora"})),
    FieldSpec(
        "context_length", "Context length", Kind.WHOLE, "job", "tokens", _INFERENCE
    ),
    FieldSpec(
        "concurrent_sequences",
        "Sequences in flight",
        Kind.WHOLE,
        "job",
        "per replica",
        _INFERENCE,
    ),
    FieldSpec("mfu", "MFU", Kind.SHARE, "training", "", _TRAINING),
    FieldSpec("peak_tflops", "Peak per GPU", Kind.NUMBER, "training", "TFLOP/s"),
    FieldSpec(
        "failure_rate_per_gpu_day",
        "Failure rate",
        Kind.NUMBER,
        "training",
        "per GPU-day",
        _TRAINING,
    ),
    FieldSpec(
        "restart_minutes", "Restart time", Kind.NUMBER, "training", "min", _TRAINING
    ),
    FieldSpec(
        "global_batch_tokens",
        "Global batch",
        Kind.COUNT,
        "training",
        "tokens",
        _TRAINING,
    ),
    FieldSpec(
        "micro_batch", "Micro-batch", Kind.WHOLE, "training", "sequences", _TRAINING
    ),
    FieldSpec("tp", "Tensor parallel", Kind.WHOLE, "plan"),
    FieldSpec("pp", "Pipeline parallel", Kind.WHOLE, "plan"),
    FieldSpec("dp", "Data parallel", Kind.WHOLE, "plan"),
    FieldSpec("capex_per_gpu", "Capex per GPU", Kind.NUMBER, "cost", "USD"),
    FieldSpec("years", "Depreciation", Kind.NUMBER, "cost", "years"),
    FieldSpec("utilization", "Utilisation", Kind.SHARE, "cost"),
    FieldSpec("pue", "PUE", Kind.NUMBER, "cost"),
    FieldSpec("usd_per_kwh", "Electricity", Kind.NUMBER, "cost", "USD/kWh"),
    FieldSpec("ops_usd_per_gpu_hour", "Operations", Kind.NUMBER, "cost", "USD/GPU-h"),
    FieldSpec("cloud_usd_per_gpu_hour", "Cloud rate", Kind.NUMBER, "cost", "USD/GPU-h"),
)
BY_NAME = {f.name: f for f in FIELDS}
GROUPS: tuple[tuple[str, str], ...] = (
    ("model", "Model"),
    ("job", "Job"),
    ("training", "Training"),
    ("plan", "Parallelism (empty: searched)"),
    ("cost", "Owned vs cloud"),
)
JOBS: tuple[tuple[str, str], ...] = (
    ("pretrain", "Pre-train"),
    ("finetune", "Full fine-tune"),
    ("lora", "LoRA fine-tune"),
    ("inference", "Inference serving"),
)
PRECISIONS: tuple[tuple[str, str], ...] = (
    ("bf16", "BF16"),
    ("fp8", "FP8"),
    ("fp4", "FP4 (inference weights)"),
)
RECOMPUTE: tuple[tuple[str, str], ...] = (
    ("none", "none"),
    ("selective", "selective"),
    ("full", "full"),
)

_SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
_NUMBER = re.compile(
    r"^\s*([+-]?(?:\d[\d,_]*(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)\s*([kmbgt%]?)\s*$",
    re.IGNORECASE,
)


class FieldError(ValueError):
    """Text that is not a value of the field (the message says what is)."""


def parse(spec: FieldSpec, text: str) -> float | int | None:
    """The value typed in a field (None: empty, the default applies)."""
    if not text.strip():
        return None
    match = _NUMBER.match(text)
    expected = {
        Kind.COUNT: "a count such as 70B, 405e9 or 15.6T",
        Kind.WHOLE: "a whole number such as 80 or 8k",
        Kind.NUMBER: "a number",
        Kind.SHARE: "a share such as 0.4 or 40%",
    }[spec.kind]
    if match is None:
        raise FieldError(f"{spec.label}: expected {expected}, got {text.strip()!r}")
    value = float(match.group(1).replace(",", "").replace("_", ""))
    suffix = match.group(2).lower()
    if suffix == "%":
        if spec.kind is not Kind.SHARE:
            raise FieldError(f"{spec.label}: expected {expected}, got {text.strip()!r}")
        value /= 100.0
    elif suffix:
        if spec.kind not in (Kind.COUNT, Kind.WHOLE):
            raise FieldError(f"{spec.label}: expected {expected}, got {text.strip()!r}")
        value *= _SUFFIX[suffix]
    if not math.isfinite(value):
        raise FieldError(f"{spec.label}: expected a finite number")
    if spec.kind is Kind.WHOLE:
        if value != int(value):
            raise FieldError(f"{spec.label}: expected a whole number, got {text!r}")
        return int(value)
    return value


def display(spec: FieldSpec, value: Any) -> str:
    """A set value as the field shows it (parses back to the same value)."""
    if value is None:
        return ""
    if spec.kind is Kind.WHOLE:
        return str(int(value))
    x = float(value)
    if spec.kind is Kind.COUNT:
        for suffix, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6)):
            if abs(x) >= scale:
                return f"{x / scale:.12g}{suffix}"
    return f"{x:.12g}"


def field_label(spec: FieldSpec) -> str:
    """The form's label: the unit in brackets unless the label says it already
    ("Training tokens", not "Training tokens (tokens)")."""
    if not spec.unit or spec.unit.lower() in spec.label.lower():
        return spec.label
    return f"{spec.label} ({spec.unit})"


def hint(spec: FieldSpec, value: Any) -> str:
    """A value the estimate used, as a placeholder shows it: rounded through
    the one formatter ("39,823", "15T", "4.19M", "8,192", "40%")."""
    if value is None:
        return ""
    x = float(value)
    if spec.kind is Kind.COUNT:
        return fmt.count(x)
    if spec.kind is Kind.WHOLE:
        return f"{int(x):,}"
    if spec.kind is Kind.SHARE:
        return f"{x * 100:.3g}%"
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.3g}"


def updated(block: Workload | None, **fields: Any) -> Workload:
    """``block`` with ``fields`` set (None clears one), checked by the model.

    Raises :class:`FieldError` naming the field and what it expects.
    """
    data = (block or Workload()).given()
    for name, value in fields.items():
        if value is None:
            data.pop(name, None)
        else:
            data[name] = value
    try:
        return Workload.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        name = str(err["loc"][0]) if err["loc"] else "workload"
        label = BY_NAME[name].label if name in BY_NAME else name.replace("_", " ")
        raise FieldError(f"{label}: {err['msg'].lower()}") from None
