"""Properties of the serving model that hold for any model, GPU and shape:
more batch never lowers throughput until the KV cache is full; TPOT never
drops below the memory-bandwidth floor; FP8 weights never need more memory
than BF16; and the search finds what the naive sweep finds."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.core.workload import Precision
from designer.workload.collectives import FabricView
from designer.workload.presets import PRESETS
from designer.workload.serving import Load, ReplicaModel, ServingGpu, Shape
from designer.workload.serving_search import disaggregate, search, split

_SHARES = (0.8, 0.5, 0.55, 0.1)  # HBM, attention, MoE, reserve
GPUS = {
    "H100": ServingGpu("H100 SXM", 80e9, 3.35e12, 1979e12, 989e12, 0.43, *_SHARES),
    "H200": ServingGpu("H200 SXM", 141e9, 4.8e12, 1979e12, 989e12, 0.43, *_SHARES),
    "B200": ServingGpu("B200", 180e9, 8e12, 4500e12, 2250e12, 0.40, *_SHARES),
}
MODELS = ["llama3-8b", "llama3-70b", "llama2-70b", "mixtral-8x7b", "deepseek-v3"]


def _model(name: str, gpu: str, weights: Precision, load: Load) -> ReplicaModel:
    view = FabricView(gpus=64, domain_gpus=8, nvlink_bytes_s=450e9, nic_bytes_s=50e9)
    kv = Precision.BF16 if weights is Precision.BF16 else Precision.FP8
    return ReplicaModel(PRESETS[name], GPUS[gpu], view, weights, kv, load)


loads = st.builds(
    Load,
    st.integers(16, 32_000),
    st.integers(16, 4_000),
)
shapes = st.builds(Shape, st.sampled_from([1, 2, 4, 8, 16]), st.sampled_from([1, 2, 4]))
precisions = st.sampled_from([Precision.BF16, Precision.FP8, Precision.FP4])


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(MODELS),
    st.sampled_from(sorted(GPUS)),
    precisions,
    loads,
    shapes,
    st.integers(1, 4096),
)
def test_more_batch_never_lowers_throughput_until_kv_full(
    name: str, gpu: str, weights: Precision, load: Load, shape: Shape, batch: int
) -> None:
    m = _model(name, gpu, weights, load)
    cap = m.max_batch(shape)
    if cap < 2:
        return
    b = min(batch, cap - 1)
    a, z = m.point(shape, b), m.point(shape, b + 1)
    assert z.tokens_per_s >= a.tokens_per_s * (1 - 1e-9)
    # and the latencies only grow with the batch (the bisection relies on it)
    assert z.tpot_s >= a.tpot_s and z.ttft_s >= a.ttft_s


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(MODELS),
    st.sampled_from(sorted(GPUS)),
    precisions,
    loads,
    shapes,
    st.integers(1, 4096),
)
def test_tpot_never_below_memory_bandwidth_floor(
    name: str, gpu: str, weights: Precision, load: Load, shape: Shape, batch: int
) -> None:
    m = _model(name, gpu, weights, load)
    floor = m.tpot_floor(shape)
    assert floor > 0
    assert m.point(shape, batch).tpot_s >= floor
    assert m.decode_point(shape, batch).tpot_s >= floor


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(MODELS), st.sampled_from(sorted(GPUS)), loads, shapes)
def test_fp8_weights_never_need_more_memory_than_bf16(
    name: str, gpu: str, load: Load, shape: Shape
) -> None:
    bf16 = _model(name, gpu, Precision.BF16, load).memory(shape)
    fp8 = _model(name, gpu, Precision.FP8, load).memory(shape)
    fp4 = _model(name, gpu, Precision.FP4, load).memory(shape)
    assert fp8.weights <= bf16.weights and fp4.weights <= fp8.weights
    assert fp8.kv_space >= bf16.kv_space
    assert fp8.kv_per_token <= bf16.kv_per_token


def test_kv_per_token_is_gqa_and_mla_aware() -> None:
    load = Load(1000, 100)
    llama = _model("llama3-70b", "H100", Precision.BF16, load)
    # 2 x 80 layers x 8 KV heads x 128 x 2 B = 327,680 B; TP 8 holds one head each
    assert llama.kv_per_token() == 327_680
    assert llama.kv_per_token_gpu(Shape(8, 1)) == 327_680 / 8
    # TP 16 > 8 KV heads: heads are replicated, not split further
    assert llama.kv_per_token_gpu(Shape(16, 1)) == 327_680 / 8
    assert llama.kv_per_token_gpu(Shape(8, 2)) == 327_680 / 16
    ds = _model("deepseek-v3", "H100", Precision.BF16, load)
    # MLA: 61 layers x (512 + 64) x 2 B, whole on every TP rank
    assert ds.kv_per_token() == 61 * 576 * 2
    assert ds.kv_per_token_gpu(Shape(8, 1)) == 61 * 576 * 2


def test_tighter_tpot_serves_fewer_requests() -> None:
    """Figures move with the inputs: a 20 ms TPOT limit serves less than 50 ms,
    and 50 ms less than no limit."""
    rates = []
    for tpot in (0.02, 0.05, None):
        m = _model("llama3-70b", "H100", Precision.FP8, Load(1024, 256, 2.0, tpot))
        plan = search(m, 64, 8)
        assert plan.best is not None
        rates.append(plan.best.tokens_per_s)
    assert rates[0] < rates[1] < rates[2]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["llama3-70b", "mixtral-8x7b"])
def test_search_matches_the_naive_sweep(name: str) -> None:
    m = _model(name, "H100", Precision.FP8, Load(512, 128, 1.0, 0.05))
    fast = search(m, 64, 8)
    naive = search(m, 64, 8, naive=True)
    assert fast.best is not None and naive.best is not None
    # the naive sweep tries more shapes (every TP/PP that divides), so it can
    # only be at least as good; on powers of two it must find the same
    assert naive.best.tokens_per_s >= fast.best.tokens_per_s * (1 - 1e-9)
    same = next(r for r in naive.shapes if r.shape == fast.best.shape)
    assert same.best is not None and fast.best.best is not None
    assert same.best.batch == fast.best.best.batch
    assert fast.evaluated < naive.evaluated


def test_split_matches_the_naive_split() -> None:
    for gpus, gp, rp, gd, rd in ((1000, 1, 3.0, 2, 0.7), (100_000, 8, 40.0, 4, 9.5)):
        fast = split(gpus, gp, rp, gd, rd)
        naive = split(gpus, gp, rp, gd, rd, naive=True)
        assert fast[2] == pytest.approx(naive[2])
        assert fast[3] <= 4 < naive[3]


def test_disaggregated_pools_send_the_kv_cache() -> None:
    m = _model("llama3-70b", "H100", Precision.FP8, Load(4096, 256, 2.0, 0.05))
    plan = search(m, 64, 8)
    dis, _ = disaggregate(m, 64, 8, plan)
    assert dis is not None
    assert dis.gpus <= 64 and dis.prefill_replicas >= 1 and dis.decode_replicas >= 1
    # 4,096 prompt tokens x 163,840 B (FP8 KV) = 671 MB sent per request
    assert dis.kv_transfer_s > 0
    assert dis.ttft_s >= dis.kv_transfer_s
    assert dis.tpot_s <= 0.05
