"""The estimate's result: the stable ``estimate --json`` object (docs/estimate-json.md).

Every number sits at a fixed path (``step.dp_comm_s``); ``figures`` gives, per
path, its unit, its source and whether it is an estimate; ``unknown`` says why a
figure is null; ``assumptions`` lists every input with where it came from.
:meth:`Estimate.rows` joins them for a panel or a report page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from designer.workload.fabric import Finding
from designer.workload.serving_result import Inference


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Assumption(_Out):
    """One input of the estimate: its value, source and where it came from."""

    name: str
    value: float | int | str | bool | None
    unit: str = ""
    source: str
    estimate: bool
    origin: str = Field(
        description="default, preset, design (computed from it), design file "
        "(its workload block) or command line"
    )


class Figure(_Out):
    """How to read one result figure."""

    label: str
    unit: str
    source: str
    estimate: bool


class ModelInfo(_Out):
    """The model the estimate is for."""

    name: str
    params: float | None
    active_params: float | None
    layers: int | None
    hidden: int | None
    heads: int | None
    kv_heads: int | None
    seq_len: int | None
    source: str


class MemoryTotal(_Out):
    """One unsharded copy of the job's state, GB."""

    weights: float | None
    gradients: float | None
    optimizer: float | None
    kv_cache: float | None
    total: float | None


class MemoryPerGpu(_Out):
    """Per GPU under the plan, GB."""

    weights: float | None
    gradients: float | None
    optimizer: float | None
    activations: float | None
    kv_cache: float | None
    total: float | None
    capacity: float | None
    transient: float | None = None


class Alternative(_Out):
    """A plan the search ranked after the chosen one."""

    tp: int
    pp: int
    dp: int
    zero_stage: int
    recompute: str
    gpus_used: int
    vpp: int
    cp: int
    ep: int
    micro_batch: int
    idle_gpus: int
    step_s: float
    tokens_per_s: float
    why: str = Field(description="why it loses, in words")


class Parallelism(_Out):
    """The parallelism plan (given or searched)."""

    tp: int
    pp: int
    dp: int
    zero_stage: int
    recompute: str
    gpus_used: int
    nvlink_domain: int
    tp_within_nvlink: bool
    chosen: str = Field(description="given or searched")
    vpp: int = 1
    cp: int = 1
    ep: int = 1
    micro_batch: int = 1
    idle_gpus: int = 0
    alternatives: list[Alternative] = Field(default_factory=list)


class Step(_Out):
    """One training step (communication assumed not overlapped)."""

    tokens: float | None = None
    compute_s: float | None = None
    dp_comm_s: float | None = None
    pp_comm_s: float | None = None
    exposed_comm_fraction: float | None = None
    bubble_fraction: float | None = None
    nic_gbytes_s_per_gpu: float | None = None
    scale_out_gbytes_s_per_gpu: float | None = None
    fabric_factor: float | None = None
    dp_crosses_leaves: bool | None = None
    mfu: float | None = None
    hfu: float | None = None
    tflops_per_gpu: float | None = None
    tokens_per_s: float | None = None
    step_s: float | None = None
    bubble_s: float | None = None
    tp_comm_s: float | None = None
    cp_comm_s: float | None = None
    ep_comm_s: float | None = None
    exposed_comm_s: float | None = None
    mfu_source: str | None = Field(
        default=None,
        description="model (the step model), given (--mfu) or default (no shape "
        "to model a step: the default MFU)",
    )


class CollectiveOut(_Out):
    """One collective timed on the design (``estimate --collective``)."""

    op: str
    bytes: float
    gpus: int
    algorithm: str
    time_s: float
    algbw_gbytes_s: float
    busbw_gbytes_s: float
    bottleneck: str = Field(description="nvlink, nic, a tier name or bisection")
    terms_s: dict[str, float] = Field(default_factory=dict)
    spans_nvlink_domains: bool = False


class Reliability(_Out):
    """Interruptions, checkpoints and goodput."""

    interruptions_per_day: float | None = None
    mtbf_hours: float | None = None
    checkpoint_tb: float | None = None
    storage_write_gbytes_s: float | None = None
    checkpoint_write_s: float | None = None
    checkpoint_interval_min: float | None = None
    lost_fraction: float | None = None
    goodput: float | None = None
    effective_days: float | None = None


class TierN1(_Out):
    """Worst single failure within one switch tier."""

    worst_device: str | None
    ratio: float
    ratio_lower: float
    exact: bool
    switches: int


class NMinus1(_Out):
    """Compute-fabric bisection after the worst single switch failure."""

    worst_device: str | None
    bisection_ratio_live: float | None
    bisection_ratio_after: float | None
    bisection_ratio_after_lower: float | None
    bisection_gbps_after: float | None
    exact: bool
    by_tier: dict[str, float]
    by_tier_detail: dict[str, TierN1]
    worst_leaf: str | None
    gpus_losing_rail: int
    gpus_losing_fabric_path: int
    switches: int
    analysed: int
    method: str


class CloudRateOut(_Out):
    """A cloud reference rate and the break-even utilisation against it."""

    name: str
    usd_per_gpu_hour: float
    source: str
    date: str | None
    breakeven_utilization: float | None


class TotalUsd(_Out):
    """Totals over 3 and 5 years (all GPUs)."""

    owned_3y: float | None
    owned_5y: float | None
    cloud_3y: float | None
    cloud_5y: float | None


class Tco(_Out):
    """Owned vs cloud cost."""

    capex_per_gpu: float | None
    kw_per_gpu: float | None
    owned_usd_per_gpu_hour: float | None
    owned_usd_per_used_gpu_hour: float | None
    cloud_usd_per_gpu_hour: float | None
    breakeven_utilization: float | None
    years: float
    utilization: float
    total_usd: TotalUsd
    cloud_reference_rates: list[CloudRateOut]
    cheaper: str | None = Field(description="owned or cloud at this utilisation")


class RuleOfThumb(_Out):
    """The product brief's sizing rule of thumb for a similar workload."""

    workload: str
    gpus: str
    source: str


class JobOnPlan(_Out):
    """The other fine-tuning job (full or LoRA) on the plan chosen for this one,
    so the two compare on one plan: each job's own plan is searched for it."""

    job: str = Field(description="finetune or lora")
    memory_gb_per_gpu: float = Field(description="its memory per GPU, GB")
    fits: bool | None = Field(description="whether it fits the GPUs (null: unknown)")


class Estimate(_Out):
    """Everything ``cluster-designer estimate`` computes for one design."""

    gpus: int
    gpu_model: str | None
    gpu_memory_gb: float | None
    model: ModelInfo
    job: str
    memory_gb_total: MemoryTotal
    memory_gb_per_gpu: MemoryPerGpu
    kv_cache_bytes_per_token: float | None
    fits: bool | None
    min_gpus: int | None
    parallelism: Parallelism
    flops_total: float | None
    flops_6nd: float | None
    days: float | None
    gpu_hours: float | None
    step: Step
    reliability: Reliability
    n_minus_1: NMinus1
    tco: Tco
    rule_of_thumb: RuleOfThumb | None
    assumptions: list[Assumption]
    figures: dict[str, Figure]
    unknown: dict[str, str]
    findings: list[Finding]
    nonblocking_days: float | None = None
    other_job_on_plan: JobOnPlan | None = None
    inference: Inference | None = Field(
        default=None,
        description="serving throughput, latency and capacity (inference jobs)",
    )

    @model_serializer(mode="wrap")
    def _inference_when_served(
        self, handler: SerializerFunctionWrapHandler
    ) -> dict[str, Any]:
        """``inference`` is in the JSON of inference jobs only."""
        data: dict[str, Any] = handler(self)
        if data.get("inference", 0) is None:
            del data["inference"]
        return data

    def value(self, path: str) -> Any:
        """The figure at a dotted path such as ``step.dp_comm_s`` (None below
        an absent block, such as ``inference`` of a training job)."""
        node: Any = self
        for part in path.split("."):
            if node is None:
                return None
            node = node[part] if isinstance(node, dict) else getattr(node, part)
        return node

    def rows(self) -> list[Row]:
        """Every documented figure with its value, unit, source and marks."""
        return [
            Row(
                path,
                fig.label,
                self.value(path),
                fig.unit,
                fig.source,
                fig.estimate,
                self.unknown.get(path),
            )
            for path, fig in self.figures.items()
        ]


@dataclass(frozen=True)
class Row:
    """One line of a figures table (panel, report page, CLI text)."""

    path: str
    label: str
    value: Any
    unit: str
    source: str
    estimate: bool
    why_unknown: str | None
