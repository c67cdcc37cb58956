"""The formulas of ``reference/workload.md``, as plain functions (SI units).

Bytes, seconds, FLOPs; bandwidth in bytes per second. Each function names the
section it implements; the golden tests check them against the worked examples.
"""

from __future__ import annotations

import math

from designer.core.workload import Recompute

SECONDS_PER_DAY = 86_400.0
HOURS_PER_YEAR = 8_760.0


def training_flops(active_params: float, tokens: float) -> float:
    """C = 6 N D (Kaplan et al. 2020; §2)."""
    return 6.0 * active_params * tokens


def attention_flops_per_token(
    layers: int, heads: int, head_dim: int, seq: int
) -> float:
    """The attention term 12 L H Q T per token (PaLM appendix B; §2)."""
    return 12.0 * layers * heads * head_dim * seq


def training_days(flops: float, gpus: int, peak_flops: float, mfu: float) -> float:
    """days = C / (GPUs x peak x MFU x 86,400) (§2)."""
    return flops / (gpus * peak_flops * mfu * SECONDS_PER_DAY)


def gpu_hours(flops: float, peak_flops: float, mfu: float) -> float:
    """GPU-hours of C FLOPs at ``mfu`` of ``peak_flops`` per GPU."""
    return flops / (peak_flops * mfu * 3600.0)


def kv_bytes_per_token(
    layers: int, kv_heads: int, head_dim: int, bytes_per_value: float
) -> float:
    """2 x layers x KV heads x head dim x bytes (§3)."""
    return 2.0 * layers * kv_heads * head_dim * bytes_per_value


def activation_bytes_per_layer(
    seq: int, micro_batch: int, hidden: int, heads: int, tp: int, recompute: Recompute
) -> float:
    """Activation memory of one layer on one GPU, 16-bit (Korthikanti et al.,
    MLSys 2023, Table 2; TP with sequence parallelism)."""
    sbh = float(seq) * micro_batch * hidden
    if recompute is Recompute.FULL:
        return 2.0 * sbh
    if recompute is Recompute.SELECTIVE:
        return sbh * 34.0 / tp
    return sbh * (34.0 + 5.0 * heads * seq / hidden) / tp


def all_reduce_bytes(shard: float, ranks: int) -> float:
    """Bytes each rank moves in a ring all-reduce: S x 2(n-1)/n (nccl-tests; §4)."""
    return shard * 2.0 * (ranks - 1) / ranks if ranks > 1 else 0.0


def young_interval(write_s: float, mtbf_s: float) -> float:
    """Checkpoint interval tau = sqrt(2 delta M) (Young 1974; §5)."""
    return math.sqrt(2.0 * write_s) * math.sqrt(mtbf_s)  # no overflow for huge M


def lost_fraction(
    write_s: float, interval_s: float, mtbf_s: float, restart_s: float
) -> float:
    """delta / tau + tau / (2 M) + R / M (§5)."""
    return write_s / interval_s + interval_s / (2.0 * mtbf_s) + restart_s / mtbf_s


def owned_usd_per_gpu_hour(
    capex_per_gpu: float,
    years: float,
    kw_per_gpu: float,
    pue: float,
    usd_per_kwh: float,
    ops_usd_per_gpu_hour: float,
) -> float:
    """capex / (years x 8,760) + kW x PUE x price + operations (§6, at full use)."""
    return (
        capex_per_gpu / (years * HOURS_PER_YEAR)
        + kw_per_gpu * pue * usd_per_kwh
        + ops_usd_per_gpu_hour
    )


def breakeven_utilization(owned: float, cloud: float) -> float:
    """Share of hours a GPU must be busy before owning beats renting (§6)."""
    return owned / cloud
