"""What the Workload panel's Serving tab and the report page say about an
inference estimate, and the points of its throughput vs latency chart.

No Qt here. The text comes from the estimate's ``inference`` object (the
``estimate --json`` figures) through :mod:`designer.core.formatting`, so the
panel, the PDF and the CLI read the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.core.formatting import noun, plural, quantity
from designer.view.workload.lines import ESTIMATE_MARK, Line
from designer.workload import Estimate
from designer.workload.serving_estimate import bound_words, limit_text, pool_shape

NOT_INFERENCE = (
    "Serving figures are for inference jobs: set the job to Inference serving "
    "(Inputs) to size replicas, latency and requests/s on this design."
)


def _ms(value: float) -> str:
    return f"{quantity(value)} ms"


def serving_lines(est: Estimate) -> list[Line]:
    """The serving answers in a few lines (empty when not an inference job)."""
    inf = est.inference
    if inf is None:
        return []
    r = inf.replica
    m = ESTIMATE_MARK
    shape = f"TP {r.tp} x PP {r.pp}" + (f", EP {r.ep}" if r.ep > 1 else "")
    lines = [
        Line(
            "Replica",
            f"{shape} = {plural(r.gpus, 'GPU')}, {r.batch:,} sequences per "
            f"micro-batch; {plural(inf.replicas, 'replica')}"
            + (f", {plural(inf.idle_gpus, 'GPU')} idle" if inf.idle_gpus else "")
            + f" ({inf.weight_precision.upper()} weights, "
            f"{inf.kv_precision.upper()} KV cache)",
            ("inference.replica.tp", "inference.replicas"),
        )
    ]
    if inf.meets_slo:
        lines.append(
            Line(
                "Serves",
                f"{m} {quantity(inf.requests_per_s)} requests/s, "
                f"{quantity(inf.tokens_per_s)} output tokens/s "
                f"({quantity(inf.tokens_per_s_per_gpu)} per GPU), "
                f"{inf.max_concurrency:,} sequences in flight; {bound_words(inf)}",
                (
                    "inference.requests_per_s",
                    "inference.tokens_per_s",
                    "inference.bound",
                ),
            )
        )
    else:
        lines.append(Line("Serves", f"nothing within the limits: {inf.why_not}", ()))
    limits = (
        f"TTFT {m} {_ms(inf.ttft_ms)} of {_limit(inf.ttft_limit_ms)}, TPOT "
        f"{m} {_ms(inf.tpot_ms)} of {_limit(inf.tpot_limit_ms)} "
        f"(floor {_ms(inf.tpot_floor_ms)}) for {inf.prompt_tokens:,} prompt / "
        f"{inf.output_tokens:,} output tokens"
    )
    lines.append(
        Line(
            "Latency",
            limits,
            ("inference.ttft_ms", "inference.tpot_ms", "inference.tpot_floor_ms"),
        )
    )
    mg = inf.memory_gb
    lines.append(
        Line(
            "GPU memory",
            f"{quantity(mg.weights)} GB weights + {m} {quantity(mg.kv_cache)} GB KV "
            f"cache (room for {quantity(mg.kv_space)} GB, batch up to "
            f"{inf.max_batch:,}) + {quantity(mg.activations)} GB workspace + "
            f"{quantity(mg.reserve)} GB reserve of {quantity(mg.capacity)} GB",
            ("inference.memory_gb.weights", "inference.max_batch"),
        )
    )
    d = inf.disaggregated
    if d is not None:
        lines.append(
            Line(
                "Disaggregated",
                f"{m} {quantity(d.requests_per_s)} requests/s with "
                f"{d.prefill.replicas:,} x {pool_shape(d.prefill)} prefill and "
                f"{d.decode.replicas:,} x {pool_shape(d.decode)} decode "
                f"{noun(d.decode.replicas, 'replica')} (KV cache over {d.kv_link} in "
                f"{_ms(d.kv_transfer_ms)}; {d.gain:+.0%} against colocated)",
                ("inference.disaggregated.requests_per_s",),
            )
        )
    t = inf.target
    if t is not None:
        head = "met" if t.met else "not met"
        lines.append(
            Line(
                "Target",
                f"{quantity(t.requests_per_s)} requests/s {head}: {t.change}",
                ("inference.target.gpus_needed", "inference.target.change"),
            )
        )
    return lines


def _limit(value: float | None) -> str:
    return "no limit" if value is None else f"{limit_text(value)} ms"


@dataclass(frozen=True)
class SweepSeries:
    """The chart: output tokens/s per GPU against TPOT over the batch sweep."""

    points: list[tuple[float, float, int, bool]]
    """(TPOT ms, tokens/s per GPU, batch, meets both limits)."""
    chosen: tuple[float, float] | None
    tpot_limit_ms: float | None
    ttft_limit_ms: float | None


def sweep_series(est: Estimate) -> SweepSeries | None:
    """The chosen replica shape from batch 1 to the KV cache's limit (None when
    not an inference estimate)."""
    inf = est.inference
    if inf is None or not inf.sweep:
        return None
    pts = [(p.tpot_ms, p.tokens_per_s_per_gpu, p.batch, p.meets_slo) for p in inf.sweep]
    chosen = None
    for p in inf.sweep:
        if p.batch == inf.replica.batch:
            chosen = (p.tpot_ms, p.tokens_per_s_per_gpu)
    return SweepSeries(pts, chosen, inf.tpot_limit_ms, inf.ttft_limit_ms)
