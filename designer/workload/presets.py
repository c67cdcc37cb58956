"""Model presets (published shapes, with sources) and custom models.

A custom model gives its parameters, or its shape (layers, hidden, heads, ...),
or both; the preset's fields are the defaults a workload block overrides.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class ModelSpec:
    """A transformer's size and shape (None: not known)."""

    key: str
    name: str
    params: float | None
    active_params: float | None = None
    layers: int | None = None
    hidden: int | None = None
    heads: int | None = None
    kv_heads: int | None = None
    seq_len: int | None = None
    vocab: int | None = None
    tokens: float | None = None
    kv_elements_per_layer: int | None = None
    """Cached elements per token and layer when not 2 x KV heads x head dim
    (multi-head latent attention caches one compressed vector)."""
    experts: int | None = None
    """Routed experts per MoE layer (None: a dense model)."""
    top_k: int | None = None
    """Routed experts each token goes to."""
    moe_layers: int | None = None
    """Layers with experts (the rest dense); None: all layers."""
    route_nodes: int | None = None
    """Nodes a token is sent to at most (node-limited routing), if limited."""
    attention_head_dim: int | None = None
    """Head dim of the attention products when not hidden / heads (MLA)."""
    source: str = "custom model"

    @property
    def active(self) -> float | None:
        """Parameters that work on each token (all of them unless MoE)."""
        return self.active_params if self.active_params is not None else self.params

    @property
    def is_moe(self) -> bool:
        """Whether the model routes tokens to experts."""
        return bool(self.experts and self.top_k)

    @property
    def head_dim(self) -> int | None:
        """Hidden size per attention head."""
        if self.hidden is None or self.heads is None:
            return None
        return self.hidden // self.heads

    @property
    def has_shape(self) -> bool:
        """Whether layers, hidden size, heads and sequence length are known."""
        return None not in (self.layers, self.hidden, self.heads, self.seq_len)


_LLAMA3 = "Llama 3 paper (Meta 2024) Table 3 and the model config [P]"

PRESETS: dict[str, ModelSpec] = {
    p.key: p
    for p in (
        ModelSpec(
            "llama3-8b",
            "Llama 3 8B",
            8.03e9,
            layers=32,
            hidden=4096,
            heads=32,
            kv_heads=8,
            seq_len=8192,
            vocab=128_256,
            tokens=15e12,
            source=f"{_LLAMA3}; 15T+ training tokens",
        ),
        ModelSpec(
            "llama3-70b",
            "Llama 3 70B",
            70.6e9,
            layers=80,
            hidden=8192,
            heads=64,
            kv_heads=8,
            seq_len=8192,
            vocab=128_256,
            tokens=15e12,
            source=f"{_LLAMA3}; 15T+ training tokens",
        ),
        ModelSpec(
            "llama2-70b",
            "Llama 2 70B",
            68.98e9,
            layers=80,
            hidden=8192,
            heads=64,
            kv_heads=8,
            seq_len=4096,
            vocab=32_000,
            tokens=2e12,
            source="Touvron et al. 2023 (Llama 2) and the model config: 80 layers, "
            "hidden 8,192, 64 heads, 8 KV heads (GQA), 4K context, 2T tokens [P]; "
            "the MLPerf Inference LLM benchmark's model",
        ),
        ModelSpec(
            "llama3-405b",
            "Llama 3 405B",
            405e9,
            layers=126,
            hidden=16384,
            heads=128,
            kv_heads=8,
            seq_len=8192,
            vocab=128_256,
            tokens=15.6e12,
            source=f"{_LLAMA3}; 15.6T tokens, 3.8e25 FLOPs (model card)",
        ),
        ModelSpec(
            "gpt3-175b",
            "GPT-3 175B",
            175e9,
            layers=96,
            hidden=12288,
            heads=96,
            kv_heads=96,
            seq_len=2048,
            vocab=50_257,
            tokens=300e9,
            source="Brown et al. 2020 (GPT-3) Table 2.1; 300B training tokens [P]",
        ),
        ModelSpec(
            "mixtral-8x7b",
            "Mixtral 8x7B (MoE)",
            46.7e9,
            active_params=12.9e9,
            layers=32,
            hidden=4096,
            heads=32,
            kv_heads=8,
            seq_len=32768,
            vocab=32_000,
            experts=8,
            top_k=2,
            source="Jiang et al. 2024 (Mixtral of Experts): 46.7B total, 12.9B "
            "active per token, 8 experts, 2 per token [P]; training tokens not "
            "published",
        ),
        ModelSpec(
            "deepseek-v3",
            "DeepSeek-V3 671B (MoE, 37B active)",
            671e9,
            active_params=37e9,
            layers=61,
            hidden=7168,
            heads=128,
            kv_heads=128,
            seq_len=4096,
            vocab=129_280,
            tokens=14.8e12,
            kv_elements_per_layer=512 + 64,
            experts=256,
            top_k=8,
            moe_layers=58,
            route_nodes=4,
            attention_head_dim=160,
            source="DeepSeek-V3 technical report (2024): 671B total, 37B active, "
            "14.8T tokens, 2.788M H800-hours; MLA caches a 512 + 64 element "
            "latent per token and layer; 256 routed experts, 8 per token, in 58 "
            "of 61 layers, each token to at most 4 nodes; query/key head dim 192, "
            "value 128 [P]",
        ),
    )
}

_ALIASES = {re.sub(r"[^a-z0-9]", "", k): k for k in PRESETS} | {
    re.sub(r"[^a-z0-9]", "", p.name.lower().split("(")[0]): k
    for k, p in PRESETS.items()
}


def preset(name: str) -> ModelSpec:
    """The preset called ``name`` (case, spaces and punctuation ignored)."""
    key = _ALIASES.get(re.sub(r"[^a-z0-9]", "", name.lower()))
    if key is None:
        raise KeyError(
            f"unknown model {name!r}; expected one of: {', '.join(PRESETS)} "
            "(or give the parameter count)"
        )
    return PRESETS[key]


def custom(base: ModelSpec | None, **fields: float | int | None) -> ModelSpec:
    """``base`` (or an empty custom model) with the given fields replacing its."""
    given = {k: v for k, v in fields.items() if v is not None}
    spec = base if base is not None else ModelSpec("custom", "custom model", None)
    if not given:
        return spec
    name = spec.name
    if base is not None:
        name = f"{base.name}, modified ({', '.join(sorted(given))})"
    return replace(spec, name=name, **given)  # type: ignore[arg-type]


def params_from_shape(spec: ModelSpec) -> float | None:
    """N ~ 12 L h^2 + V h (Kaplan et al. 2020, plus the embedding), or None."""
    if spec.layers is None or spec.hidden is None:
        return None
    return 12.0 * spec.layers * spec.hidden**2 + (spec.vocab or 0) * spec.hidden


#: Hidden size per layer of the published dense shapes (Llama 3 8B and 405B,
#: GPT-3 175B: h / L = 128; Llama 3 70B: 102): a custom model's shape is
#: derived at this aspect, with 128-wide attention heads.
HIDDEN_PER_LAYER = 128
HEAD_DIM = 128
#: The shape a parameter count implies when nothing else is given.
DEFAULT_VOCAB = 128_256
DEFAULT_SEQ_LEN = 8192
DEFAULT_KV_HEADS = 8
SHAPE_SOURCE = (
    "shape derived from the parameter count: N = 12 L h^2 + V h (Kaplan et al. "
    "2020) at h = 128 L and 128-wide heads, as the Llama 3 and GPT-3 shapes [E]"
)
#: Parameters given and the shape's 12 L h^2 + V h may differ by this factor
#: before the shape reads as another model's (published dense models fall
#: within 1.2x: the SwiGLU MLP is wider than 4 h).
SHAPE_TOLERANCE = 1.35


def _hidden_for(params: float, layers: int, vocab: int) -> int:
    """The hidden size (a multiple of 128) that gives ``params`` at ``layers``."""
    h = (-vocab + math.sqrt(vocab**2 + 48.0 * layers * params)) / (24.0 * layers)
    return max(HEAD_DIM, round(h / HEAD_DIM) * HEAD_DIM)


def shape_for_params(
    params: float,
    *,
    layers: int | None = None,
    hidden: int | None = None,
    vocab: int | None = None,
    seq_len: int | None = None,
) -> dict[str, int]:
    """A dense transformer shape consistent with ``params`` (an estimate).

    Given ``layers`` or ``hidden`` are kept and the other solved for; with
    neither, h = 128 L. Heads are 128 wide with at most 8 KV heads (GQA);
    vocabulary and sequence default to Llama 3's.
    """
    v = vocab or DEFAULT_VOCAB
    if hidden is None:
        if layers is None:
            # 12 (128 L)^2 L + V 128 L = N, solved for L (one real root)
            a, c = 12.0 * HIDDEN_PER_LAYER**2, float(v * HIDDEN_PER_LAYER)
            lo, hi = 0.0, 1e4
            for _ in range(100):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if a * mid**3 + c * mid < params else (lo, mid)
            layers = max(1, round(lo))
        hidden = _hidden_for(params, layers, v)
    elif layers is None:
        layers = max(1, round((params - v * hidden) / (12.0 * hidden**2)))
    head = HEAD_DIM if hidden % HEAD_DIM == 0 else math.gcd(hidden, 64) or 1
    heads = max(1, hidden // head)
    return {
        "layers": layers,
        "hidden": hidden,
        "heads": heads,
        # grouped-query attention: the most KV heads up to 8 that divide the heads
        "kv_heads": max(d for d in range(1, DEFAULT_KV_HEADS + 1) if heads % d == 0),
        "vocab": v,
        "seq_len": seq_len or DEFAULT_SEQ_LEN,
    }


def shape_mismatch(spec: ModelSpec) -> str | None:
    """Why the given parameters and shape describe different models, or None.

    Only a dense model is checked (an MoE's total counts its experts).
    """
    if spec.params is None or spec.is_moe or spec.active_params is not None:
        return None
    from_shape = params_from_shape(spec)
    if from_shape is None or from_shape <= 0:
        return None
    factor = max(from_shape / spec.params, spec.params / from_shape)
    if factor <= SHAPE_TOLERANCE:
        return None
    return (
        f"the model's shape ({spec.layers} layers x {spec.hidden:,} hidden) makes "
        f"about {from_shape / 1e9:,.3g}B parameters, not the {spec.params / 1e9:,.3g}B "
        "given: the memory and step use the shape; set both to one model, or clear "
        "layers and hidden size to derive the shape from the parameters"
    )


def missing_shape(spec: ModelSpec) -> list[str]:
    """The shape fields a model without a full shape lacks (layers, hidden
    size, heads, sequence length), in that order."""
    words = (
        ("layers", "layers"),
        ("hidden", "hidden size"),
        ("heads", "attention heads"),
        ("seq_len", "sequence length"),
    )
    return [word for name, word in words if getattr(spec, name) is None]
