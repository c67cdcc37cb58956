"""The design file's optional ``workload`` block: what the cluster should run.

Every field is optional; an absent field means "use the estimator's default",
and the estimator (:mod:`designer.workload`) reports each default with its
source. Only inputs live here; results are computed from the design each time.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)


class Job(StrEnum):
    """What the workload does with the model."""

    PRETRAIN = "pretrain"
    FINETUNE = "finetune"
    LORA = "lora"
    INFERENCE = "inference"


class Precision(StrEnum):
    """Number format of the math (training) or of the weights (inference)."""

    BF16 = "bf16"
    FP8 = "fp8"
    FP4 = "fp4"


class Recompute(StrEnum):
    """Activation recomputation (Korthikanti et al., MLSys 2023)."""

    NONE = "none"
    SELECTIVE = "selective"
    FULL = "full"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


_Count = Annotated[int, Field(ge=1, le=10_000_000)]
_Positive = Annotated[float, Field(gt=0, allow_inf_nan=False)]
_Share = Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)]


class CloudRate(_Strict):
    """One cloud reference price per GPU-hour, with where and when it was seen."""

    name: str = Field(min_length=1, max_length=120)
    usd_per_gpu_hour: _Positive
    source: str = Field(min_length=3, max_length=500)
    date: str = Field(pattern=r"^\d{4}(-\d{2}){0,2}$")
    gpu: str | None = Field(
        default=None, max_length=64, description="GPU model the rate is for"
    )


class Workload(_Strict):
    """Inputs of the workload estimate; None everywhere means the defaults."""

    model: str | None = Field(
        default=None,
        max_length=64,
        description="preset name (see `cluster-designer estimate --help`); the "
        "shape fields below override the preset's",
    )
    params: _Positive | None = Field(default=None, description="parameters (total)")
    active_params: _Positive | None = Field(
        default=None, description="parameters active per token (MoE)"
    )
    layers: _Count | None = None
    hidden: _Count | None = None
    heads: _Count | None = None
    kv_heads: _Count | None = None
    seq_len: _Count | None = Field(default=None, description="training sequence")
    vocab: _Count | None = None
    job: Job | None = None
    tokens: _Positive | None = Field(default=None, description="training tokens")
    precision: Precision | None = None
    context_length: _Count | None = Field(default=None, description="inference")
    concurrent_sequences: _Count | None = Field(default=None, description="inference")
    prompt_tokens: _Count | None = Field(default=None, description="inference")
    output_tokens: _Count | None = Field(default=None, description="inference")
    ttft_ms: _Positive | None = Field(
        default=None, description="inference: time-to-first-token limit"
    )
    tpot_ms: _Positive | None = Field(
        default=None, description="inference: time-per-output-token limit"
    )
    requests_per_s: _Positive | None = Field(
        default=None, description="inference: requests/s target"
    )
    kv_precision: Precision | None = Field(
        default=None, description="inference: KV cache number format"
    )
    disaggregated: bool | None = Field(
        default=None, description="inference: separate prefill and decode pools"
    )
    mfu: _Share | None = None
    peak_tflops: _Positive | None = Field(
        default=None, description="dense peak per GPU at the precision used"
    )
    tp: _Count | None = None
    pp: _Count | None = None
    dp: _Count | None = None
    vpp: _Count | None = Field(
        default=None, description="virtual pipeline stages per GPU (interleaved 1F1B)"
    )
    cp: _Count | None = Field(default=None, description="context parallel")
    ep: _Count | None = Field(default=None, description="expert parallel (MoE)")
    zero_stage: Annotated[int, Field(ge=0, le=3)] | None = None
    recompute: Recompute | None = None
    micro_batch: _Count | None = Field(default=None, description="sequences")
    global_batch_tokens: _Positive | None = None
    lora_rank: _Count | None = None
    failure_rate_per_gpu_day: (
        Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)] | None
    ) = None
    restart_minutes: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    capex_per_gpu: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    years: Annotated[float, Field(gt=0, le=30, allow_inf_nan=False)] | None = None
    utilization: _Share | None = None
    pue: Annotated[float, Field(ge=1, le=5, allow_inf_nan=False)] | None = None
    usd_per_kwh: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    ops_usd_per_gpu_hour: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = (
        None
    )
    cloud_usd_per_gpu_hour: _Positive | None = None
    cloud_rates: list[CloudRate] | None = Field(
        default=None, description="replaces the built-in reference rates"
    )

    @model_serializer(mode="wrap")
    def _only_given(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Dump the fields that are set: an absent field reads as its default."""
        data: dict[str, Any] = handler(self)
        return {k: v for k, v in data.items() if v is not None}

    def given(self) -> dict[str, object]:
        """The fields that are set (not None), by name."""
        return {k: v for k, v in self.__dict__.items() if v is not None}

    def merged(self, over: Workload) -> Workload:
        """This block with every field set in ``over`` replaced by ``over``'s."""
        return self.model_copy(update=over.given())
