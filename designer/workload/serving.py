"""The serving model: memory, prefill, decode and latency of one model replica
on the design's GPUs and fabric (docs/serving-model.md has the formulas and
sources). Pure Python, no Qt.

A replica is ``TP x PP`` GPUs (MoE: experts split over ``EP`` of the TP GPUs).
Decode runs ``PP`` micro-batches of ``b`` sequences in flight; a step of one
stage reads its weights (the experts the batch touches) and the batch's KV
cache from HBM at an achievable share of its bandwidth, or is compute-bound,
whichever is longer, plus the tensor-, expert- and pipeline-parallel traffic
timed by :func:`~designer.workload.collectives.collective` on the design's
NVLink and fabric. Prefill is compute-bound at the serving efficiency of the
GPU generation and precision. With continuous batching and chunked prefill,
each round of decode also prefills the prompts that replace the finished
sequences: ``TPOT = PP x stage(b) + b / O x prefill(P)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from designer.core.workload import Precision
from designer.workload.collectives import FabricView, Group, Op, collective
from designer.workload.presets import ModelSpec
from designer.workload.serving_facts import ACTIVATION_BYTES_PER_TOKEN_HIDDEN
from designer.workload.step import expert_params

BYTES = {Precision.BF16: 2.0, Precision.FP8: 1.0, Precision.FP4: 0.5}
"""Bytes per weight or cached value (FP4 with its block scales ~0.5) [E]."""
ACT_BYTES = 2.0
"""Activations on the wire in BF16 (TP all-reduce, EP all-to-all, PP sends)."""


class Bound(StrEnum):
    """What limits a replica's throughput at its operating point."""

    COMPUTE = "compute"
    MEMORY = "memory"
    KV_CAPACITY = "kv_capacity"
    COMMUNICATION = "communication"


@dataclass(frozen=True)
class ServingGpu:
    """One GPU as the serving model sees it."""

    model: str
    memory_bytes: float
    hbm_bytes_s: float
    peak_flops: float
    """Dense peak of the precision the GEMMs run at."""
    bf16_flops: float
    efficiency: float
    hbm_efficiency: float
    attention_share: float
    moe_share: float
    """Grouped expert GEMMs run at this share of ``efficiency``."""
    reserve: float
    """Share of memory the runtime keeps (CUDA context, NCCL, framework)."""


@dataclass(frozen=True)
class Load:
    """A request mix and its latency targets (None: no limit)."""

    prompt: int
    output: int
    ttft_s: float | None = None
    tpot_s: float | None = None
    chunk: int = 8192

    @property
    def mean_context(self) -> float:
        """Average tokens cached per running sequence: the prompt and half the
        answer (sequences are at every point of their answer) [E]."""
        return self.prompt + self.output / 2.0


@dataclass(frozen=True)
class Shape:
    """A replica: TP x PP GPUs, experts over EP of the TP GPUs."""

    tp: int = 1
    pp: int = 1
    ep: int = 1

    @property
    def gpus(self) -> int:
        """GPUs of one replica."""
        return self.tp * self.pp


@dataclass(frozen=True)
class MemoryUse:
    """Bytes per GPU of one replica."""

    weights: float
    activations: float
    reserve: float
    kv_space: float
    kv_per_token: float
    """KV bytes per cached token on one GPU (its layers, its heads)."""
    capacity: float

    @property
    def fits(self) -> bool:
        """Whether the weights leave room for any KV cache."""
        return self.kv_space > self.kv_per_token > 0

    @property
    def kv_tokens(self) -> float:
        """Tokens the replica's KV cache holds."""
        return max(0.0, self.kv_space) / self.kv_per_token if self.kv_per_token else 0.0


@dataclass
class StepTime:
    """One decode step of one pipeline stage at micro-batch ``batch``."""

    batch: int
    memory_s: float
    compute_s: float
    comm_s: float
    weight_bytes: float
    kv_bytes: float

    @property
    def time_s(self) -> float:
        """The roofline of memory and compute, plus the exposed traffic."""
        return max(self.memory_s, self.compute_s) + self.comm_s


@dataclass
class Point:
    """A replica at one micro-batch: its latencies and throughput."""

    shape: Shape
    batch: int
    step: StepTime
    prefill_s: float
    ttft_s: float
    tpot_s: float
    tokens_per_s: float
    """Output tokens per second of the replica."""
    kv_full: bool
    output: int = 1
    """Output tokens per request."""

    @property
    def requests_per_s(self) -> float:
        """Requests per second of the replica (tokens / output length)."""
        return self.tokens_per_s / max(self.output, 1)

    @property
    def concurrency(self) -> int:
        """Sequences in flight in the replica."""
        return self.batch * self.shape.pp

    @property
    def bound(self) -> Bound:
        """What limits it: the KV cache when it is full and a larger batch would
        still pay (the step is memory-bound), else the largest part of a
        decode round."""
        s = self.step
        if self.kv_full and s.memory_s > s.compute_s:
            return Bound.KV_CAPACITY
        if s.comm_s > max(s.memory_s, s.compute_s):
            return Bound.COMMUNICATION
        if s.compute_s >= s.memory_s or self.prefill_share >= 0.5:
            return Bound.COMPUTE
        return Bound.MEMORY

    @property
    def prefill_share(self) -> float:
        """Share of a decode round spent prefilling new prompts."""
        if self.tpot_s <= 0:
            return 0.0
        return max(0.0, 1.0 - self.shape.pp * self.step.time_s / self.tpot_s)


class ReplicaModel:
    """A model on a GPU and fabric: memory, step, prefill and latency of any
    replica shape (collective times memoised)."""

    def __init__(
        self,
        spec: ModelSpec,
        gpu: ServingGpu,
        view: FabricView,
        weights: Precision,
        kv: Precision,
        load: Load,
    ) -> None:
        if spec.params is None or spec.layers is None or spec.hidden is None:
            raise ValueError("the serving model needs parameters, layers and hidden")
        self.spec = spec
        self.gpu = gpu
        self.view = view
        self.weights = weights
        self.kv = kv
        self.load = load
        n = spec.params
        self.experts = expert_params(spec)
        self.dense = n - self.experts
        embed = (spec.vocab or 0) * spec.hidden
        # per token, the matrix math works on the active parameters less the
        # input embedding (a table lookup); the output head counts
        self.active_math = max(0.0, (spec.active or n) - embed)
        # the routed experts' share of it runs as grouped GEMMs
        routed = 0.0
        if spec.is_moe and spec.experts and spec.top_k:
            routed = self.experts * spec.top_k / spec.experts
        self.routed_math = min(routed, self.active_math)
        self._comm: dict[tuple[Op, float, int, int], float] = {}

    # --- memory ---------------------------------------------------------------

    def kv_per_token_gpu(self, shape: Shape) -> float:
        """KV bytes per token on one GPU: its stage's layers, its share of the
        KV heads (replicated when fewer heads than TP), the MLA latent whole."""
        s = self.spec
        layers = math.ceil((s.layers or 0) / shape.pp)
        b = BYTES[self.kv]
        if s.kv_elements_per_layer is not None:
            return float(layers * s.kv_elements_per_layer * b)
        heads = s.heads or 1
        head_dim = (s.hidden or 0) // heads
        kvh = s.kv_heads if s.kv_heads is not None else heads
        per_gpu = max(kvh / shape.tp, 1.0)
        return layers * 2.0 * per_gpu * head_dim * b

    def kv_per_token(self) -> float:
        """KV bytes per token of the whole model (what a disaggregated prefill
        sends to the decode pool)."""
        return self.kv_per_token_gpu(Shape(1, 1, 1))

    def memory(self, shape: Shape) -> MemoryUse:
        """Bytes per GPU of ``shape``."""
        g = self.gpu
        w = (self.dense + self.experts) * BYTES[self.weights] / shape.gpus
        act = (
            self.load.chunk
            * (self.spec.hidden or 0)
            * ACTIVATION_BYTES_PER_TOKEN_HIDDEN
            / shape.tp
        )
        reserve = g.memory_bytes * g.reserve
        space = g.memory_bytes - reserve - w - act
        return MemoryUse(
            w, act, reserve, space, self.kv_per_token_gpu(shape), g.memory_bytes
        )

    def max_batch(self, shape: Shape) -> int:
        """Largest micro-batch the KV cache holds at the load's mean context."""
        mem = self.memory(shape)
        if not mem.fits:
            return 0
        return int(mem.kv_tokens / self.load.mean_context / shape.pp)

    # --- time -----------------------------------------------------------------

    def _collective(self, op: Op, size: float, n: int, stride: int = 1) -> float:
        key = (op, size, n, stride)
        t = self._comm.get(key)
        if t is None:
            t = collective(self.view, op, size, Group(n, stride)).time_s
            self._comm[key] = t
        return t

    def comm_per_stage(self, shape: Shape, tokens: int) -> float:
        """Exposed TP, EP and PP traffic of one stage for ``tokens`` tokens."""
        s = self.spec
        layers = math.ceil((s.layers or 0) / shape.pp)
        moe = (s.moe_layers or s.layers or 0) if s.is_moe else 0
        moe = min(layers, math.ceil(moe / shape.pp))
        h = s.hidden or 0
        size = tokens * h * ACT_BYTES
        t = 0.0
        if shape.tp > 1:
            ar = self._collective(Op.ALL_REDUCE, size, shape.tp)
            # attention and MLP each end in an all-reduce; an EP MoE layer
            # swaps the MLP's for a dispatch and a combine all-to-all
            t += ar * layers
            dense_mlp = layers - (moe if shape.ep > 1 else 0)
            t += ar * dense_mlp
        if shape.ep > 1 and moe:
            k = s.top_k or 1
            a2a = self._collective(Op.ALL_TO_ALL, size * k, shape.ep)
            t += 2.0 * a2a * moe
        if shape.pp > 1:
            t += self._collective(Op.SEND_RECV, size / shape.tp, 2, shape.tp)
        return t

    def step(self, shape: Shape, batch: int) -> StepTime:
        """One decode step of one stage at micro-batch ``batch``."""
        s, g, load = self.spec, self.gpu, self.load
        b = max(batch, 1)
        share = 1.0
        if s.is_moe and s.experts and s.top_k:
            # distinct experts a batch touches per layer: E (1 - (1 - k/E)^b)
            share = 1.0 - (1.0 - s.top_k / s.experts) ** b
        wb = BYTES[self.weights] / shape.gpus
        weight_bytes = (self.dense + self.experts * share) * wb
        kv_bytes = b * load.mean_context * self.kv_per_token_gpu(shape)
        memory_s = (weight_bytes + kv_bytes) / (g.hbm_bytes_s * g.hbm_efficiency)
        attn = b * self._attention_per_token(load.mean_context) / shape.gpus
        compute_s = b * self._matrix_s() / shape.gpus + attn / (
            g.bf16_flops * g.attention_share
        )
        return StepTime(
            b,
            memory_s,
            compute_s,
            self.comm_per_stage(shape, b),
            weight_bytes,
            kv_bytes,
        )

    def _matrix_s(self) -> float:
        """Seconds of one token's matrix math on one GPU: the dense part at the
        serving share, the routed experts' at ``moe_share`` of it."""
        g = self.gpu
        rate = g.peak_flops * g.efficiency
        dense = self.active_math - self.routed_math
        return 2.0 * (dense / rate + self.routed_math / (rate * g.moe_share))

    def _attention_per_token(self, context: float) -> float:
        """QK^T and AV FLOPs of one token against ``context`` cached tokens:
        4 L H Q context (PaLM appendix B, forward)."""
        s = self.spec
        q = s.attention_head_dim or ((s.hidden or 0) // (s.heads or 1))
        return 4.0 * (s.layers or 0) * (s.heads or 0) * q * context

    def prefill(self, shape: Shape) -> tuple[float, float]:
        """(latency, work) of one prompt: ``latency`` alone on the replica (its
        stages one after another), compute-bound but at least one read of the
        weights; ``work`` the replica time it adds to a decode round when
        chunked into the batch (the weights are read for the round anyway)."""
        g, p = self.gpu, self.load.prompt
        # causal: each prompt token attends to half the prompt on average
        attn = p * self._attention_per_token(p / 2.0)
        compute = p * self._matrix_s() / shape.tp
        compute += attn / (g.bf16_flops * g.attention_share) / shape.tp
        weights = (self.dense + self.experts) * BYTES[self.weights] / shape.tp
        memory = weights / (g.hbm_bytes_s * g.hbm_efficiency)
        chunks = max(1, math.ceil(p / max(self.load.chunk, 1)))
        comm = chunks * self.comm_per_stage(shape, math.ceil(p / chunks)) * shape.pp
        return max(compute, memory) + comm, compute + comm

    def point(
        self,
        shape: Shape,
        batch: int,
        *,
        prefill: tuple[float, float] | None = None,
    ) -> Point:
        """The replica at micro-batch ``batch`` (colocated prefill and decode;
        ``prefill``: this shape's :meth:`prefill`, when already known)."""
        load = self.load
        st = self.step(shape, batch)
        latency, work = self.prefill(shape) if prefill is None else prefill
        round_s = shape.pp * st.time_s
        tpot = round_s + batch / max(load.output, 1) * work
        ttft = latency + round_s
        pf = latency
        tokens = shape.pp * batch / tpot if tpot > 0 else 0.0
        full = batch >= self.max_batch(shape)
        return Point(shape, batch, st, pf, ttft, tpot, tokens, full, load.output)

    def decode_point(self, shape: Shape, batch: int) -> Point:
        """The replica at ``batch`` decoding only (a disaggregated decode pool)."""
        st = self.step(shape, batch)
        tpot = shape.pp * st.time_s
        tokens = shape.pp * batch / tpot if tpot > 0 else 0.0
        full = batch >= self.max_batch(shape)
        return Point(shape, batch, st, 0.0, 0.0, tpot, tokens, full, self.load.output)

    def tpot_floor(self, shape: Shape) -> float:
        """The memory-bandwidth floor of a token: the replica's weights read once
        per token at the full HBM peak (no model can do better)."""
        w = (self.dense + self.experts) * BYTES[self.weights] / shape.gpus
        if self.spec.is_moe and self.spec.experts and self.spec.top_k:
            w = (
                (self.dense + self.experts * self.spec.top_k / self.spec.experts)
                * BYTES[self.weights]
                / shape.gpus
            )
        return shape.pp * w / self.gpu.hbm_bytes_s
