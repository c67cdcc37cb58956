"""The ``inference`` object of ``estimate --json`` (docs/estimate-json.md)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Replica(_Out):
    """One model replica's shape and its micro-batch."""

    tp: int
    pp: int
    ep: int
    gpus: int
    batch: int = Field(description="sequences per micro-batch (PP micro-batches)")


class ServingMemory(_Out):
    """GB per GPU of the chosen replica."""

    weights: float
    kv_cache: float = Field(description="KV cache at the chosen batch")
    kv_space: float = Field(description="what is left for the KV cache")
    activations: float
    reserve: float
    capacity: float


class StepParts(_Out):
    """One decode step of one pipeline stage at the chosen batch, ms."""

    compute_ms: float
    memory_ms: float
    comm_ms: float
    step_ms: float


class SweepPoint(_Out):
    """The chosen shape at one batch (the throughput vs latency chart)."""

    batch: int
    tpot_ms: float
    ttft_ms: float
    tokens_per_s_per_gpu: float
    requests_per_s: float = Field(description="of the whole design")
    meets_slo: bool


class Pool(_Out):
    """One pool of a disaggregated design."""

    tp: int
    pp: int
    ep: int
    gpus: int
    replicas: int
    batch: int


class DisaggregatedOut(_Out):
    """Separate prefill and decode pools, the KV cache sent between them."""

    prefill: Pool
    decode: Pool
    kv_transfer_ms: float
    kv_link: str = Field(description="NVLink or fabric")
    ttft_ms: float
    tpot_ms: float
    requests_per_s: float
    tokens_per_s: float
    tokens_per_s_per_gpu: float
    gpus_used: int
    gain: float = Field(description="requests/s over the colocated design's, - 1")


class Target(_Out):
    """What a requests/s target needs."""

    requests_per_s: float
    replicas_needed: int
    gpus_needed: int
    met: bool
    change: str = Field(description="the design change that meets it, in words")


class Inference(_Out):
    """Serving throughput, latency and capacity of the design."""

    replica: Replica
    replicas: int
    max_concurrency: int
    ttft_ms: float
    tpot_ms: float
    tokens_per_s_per_gpu: float
    tokens_per_s: float
    requests_per_s: float
    bound: str = Field(description="compute, memory, kv_capacity or communication")
    meets_slo: bool
    prompt_tokens: int
    output_tokens: int
    ttft_limit_ms: float | None
    tpot_limit_ms: float | None
    weight_precision: str
    kv_precision: str
    kv_bytes_per_token: float
    max_batch: int = Field(description="largest micro-batch the KV cache holds")
    tpot_floor_ms: float = Field(
        description="weights read once per token at the HBM peak (no batch, "
        "no software does better)"
    )
    prefill_ms: float
    prefill_share: float = Field(
        description="share of a decode round spent prefilling the new prompts"
    )
    idle_gpus: int
    memory_gb: ServingMemory
    step: StepParts
    sweep: list[SweepPoint] = Field(default_factory=list)
    disaggregated: DisaggregatedOut | None = None
    target: Target | None = None
    why_not: str | None = Field(
        default=None, description="why no shape meets the limits (meets_slo false)"
    )
    shapes_tried: int = 0
