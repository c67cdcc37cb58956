"""The estimate's use of the serving model: the SLO search on the design's GPU
and fabric (inputs from :mod:`.serving_inputs`), and the ``inference`` object
with its figures and findings."""

from __future__ import annotations

import math

from designer.core.formatting import noun, plural, quantity
from designer.core.workload import Precision
from designer.workload.fabric import DesignFacts, Finding, Severity
from designer.workload.inputs import Ledger
from designer.workload.presets import ModelSpec
from designer.workload.result import Estimate
from designer.workload.serving import Bound, Point, ReplicaModel
from designer.workload.serving_inputs import kv_precision, serving_gpu, serving_load
from designer.workload.serving_result import (
    DisaggregatedOut,
    Inference,
    Pool,
    Replica,
    ServingMemory,
    StepParts,
    SweepPoint,
    Target,
)
from designer.workload.serving_search import (
    ServingPlan,
    disaggregate,
    gpus_for,
    replicas,
    search,
)

_GB = 1e9
BOUND_WORDS = {
    Bound.COMPUTE: "compute, not memory bandwidth, is the limit",
    Bound.MEMORY: "HBM bandwidth (weights and KV cache reads), not compute, is "
    "the limit",
    Bound.KV_CAPACITY: "the KV cache, not compute, is the limit",
    Bound.COMMUNICATION: "tensor- and expert-parallel traffic, not compute, is "
    "the limit",
}


PREFILL_WORDS = (
    "prefill compute (the new prompts chunked into each decode round), not "
    "the decode's memory reads, is the limit"
)


def bound_words(out: Inference) -> str:
    """What limits the design, in words (prefill named when it dominates)."""
    if out.bound == Bound.COMPUTE.value and out.prefill_share >= 0.5:
        return PREFILL_WORDS
    return BOUND_WORDS[Bound(out.bound)]


def _sweep(model: ReplicaModel, point: Point, cap: int, n: int) -> list[SweepPoint]:
    """The chosen shape from batch 1 to the KV cache's limit (powers of two,
    the chosen batch and the limit)."""
    batches = {1, point.batch, cap}
    b = 2
    while b < cap:
        batches.add(b)
        b *= 2
    out = []
    load = model.load
    pf = model.prefill(point.shape)
    for b in sorted(x for x in batches if 1 <= x <= cap):
        p = model.point(point.shape, b, prefill=pf)
        ok = (load.tpot_s is None or p.tpot_s <= load.tpot_s) and (
            load.ttft_s is None or p.ttft_s <= load.ttft_s
        )
        out.append(
            SweepPoint(
                batch=b,
                tpot_ms=p.tpot_s * 1000.0,
                ttft_ms=p.ttft_s * 1000.0,
                tokens_per_s_per_gpu=p.tokens_per_s / point.shape.gpus,
                requests_per_s=p.requests_per_s * n,
                meets_slo=ok,
            )
        )
    return out


def inference(
    spec: ModelSpec | None,
    d: DesignFacts,
    led: Ledger,
    weights: Precision,
) -> tuple[Inference | None, list[Finding]]:
    """The ``inference`` object of the estimate and its findings."""
    if spec is None:
        _unknown(led, "no model given")
        return None, []
    if spec.layers is None or spec.hidden is None or spec.heads is None:
        _unknown(led, "the model's shape (layers, hidden, heads) is not known")
        return None, []
    if not d.gpus:
        _unknown(led, "the design has no GPUs")
        return None, []
    load = serving_load(led)
    kv = kv_precision(led, weights)
    gpu, why = serving_gpu(d, weights, led, led.given("peak_tflops"))
    if gpu is None:
        _unknown(led, why or "the GPU is not known")
        return None, []
    view = d.fabric()
    model = ReplicaModel(spec, gpu, view, weights, kv, load)
    domain = max(d.nvlink_domain, 1)
    plan = search(model, d.gpus, domain)
    out = _out(model, plan, d, led, weights, kv)
    if out is None:
        _unknown(led, plan_why(plan))
        return None, [_no_fit(spec, d, plan)]
    target = led.pick("requests_per_s", None, "requests/s")
    disagg_on = bool(led.given("disaggregated"))
    dis, _ = disaggregate(model, d.gpus, domain, plan)
    if dis is not None and plan.best is not None:
        colocated = out.requests_per_s
        out.disaggregated = DisaggregatedOut(
            prefill=Pool(
                tp=dis.prefill.tp,
                pp=dis.prefill.pp,
                ep=dis.prefill.ep,
                gpus=dis.prefill.gpus,
                replicas=dis.prefill_replicas,
                batch=1,
            ),
            decode=Pool(
                tp=dis.decode.shape.tp,
                pp=dis.decode.shape.pp,
                ep=dis.decode.shape.ep,
                gpus=dis.decode.shape.gpus,
                replicas=dis.decode_replicas,
                batch=dis.decode.batch,
            ),
            kv_transfer_ms=dis.kv_transfer_s * 1000.0,
            kv_link=dis.link,
            ttft_ms=dis.ttft_s * 1000.0,
            tpot_ms=dis.tpot_s * 1000.0,
            requests_per_s=dis.requests_per_s,
            tokens_per_s=dis.tokens_per_s,
            tokens_per_s_per_gpu=dis.tokens_per_s / max(d.gpus, 1),
            gpus_used=dis.gpus,
            gain=dis.requests_per_s / colocated - 1.0 if colocated > 0 else 0.0,
        )
    if target is not None:
        out.target = _target(float(target), model, plan, d, out, disagg_on)
    _figures(led, out)
    return out, _findings(out, d, spec)


def set_plan(est: Estimate) -> None:
    """An inference job's plan is the serving model's replica: TP x PP GPUs,
    one replica per DP rank (so ``parallelism`` and ``inference`` agree)."""
    inf = est.inference
    if inf is None:
        return
    p = est.parallelism
    r = inf.replica
    p.tp, p.pp, p.ep, p.dp = r.tp, r.pp, r.ep, max(inf.replicas, 1)
    p.gpus_used = inf.replicas * r.gpus
    p.idle_gpus = inf.idle_gpus
    p.micro_batch = r.batch
    p.tp_within_nvlink = r.tp <= p.nvlink_domain
    p.chosen = "searched"
    m = est.memory_gb_per_gpu
    mg = inf.memory_gb
    m.weights, m.kv_cache, m.activations = mg.weights, mg.kv_cache, mg.activations
    m.gradients = m.optimizer = 0.0
    m.transient = mg.reserve
    m.total = mg.weights + mg.kv_cache + mg.activations + mg.reserve
    m.capacity = mg.capacity


def plan_why(plan: ServingPlan) -> str:
    """Why no shape could be served."""
    reasons = [r.why for r in plan.shapes if r.why]
    return reasons[0] if reasons else "no replica shape fits the design"


def _out(
    model: ReplicaModel,
    plan: ServingPlan,
    d: DesignFacts,
    led: Ledger,
    weights: Precision,
    kv: Precision,
) -> Inference | None:
    load = model.load
    best = plan.best
    meets = best is not None
    why_not: str | None = None
    if best is None:
        # nothing meets the limits: show the lowest-TPOT shape at batch 1
        fitting = [r for r in plan.shapes if r.first is not None and r.replicas > 0]
        if not fitting:
            return None
        r = min(fitting, key=lambda x: x.first.tpot_s if x.first else math.inf)
        assert r.first is not None
        point, shape_r = r.first, r
        why_not = (
            f"no replica shape meets TTFT {_ms(load.ttft_s)} and TPOT "
            f"{_ms(load.tpot_s)}; the fastest, TP {r.shape.tp} x PP {r.shape.pp}, "
            f"{r.why}"
        )
    else:
        assert best.best is not None
        point, shape_r = best.best, best
    shape = point.shape
    n = shape_r.replicas
    mem = model.memory(shape)
    kv_used = point.concurrency * load.mean_context * mem.kv_per_token
    tokens = point.tokens_per_s * n if meets else 0.0
    st = point.step
    out = Inference(
        replica=Replica(
            tp=shape.tp, pp=shape.pp, ep=shape.ep, gpus=shape.gpus, batch=point.batch
        ),
        replicas=n,
        max_concurrency=point.concurrency * n,
        ttft_ms=point.ttft_s * 1000.0,
        tpot_ms=point.tpot_s * 1000.0,
        tokens_per_s_per_gpu=tokens / max(d.gpus, 1),
        tokens_per_s=tokens,
        requests_per_s=tokens / max(load.output, 1),
        bound=point.bound.value,
        meets_slo=meets,
        prompt_tokens=load.prompt,
        output_tokens=load.output,
        ttft_limit_ms=None if load.ttft_s is None else load.ttft_s * 1000.0,
        tpot_limit_ms=None if load.tpot_s is None else load.tpot_s * 1000.0,
        weight_precision=weights.value,
        kv_precision=kv.value,
        kv_bytes_per_token=model.kv_per_token(),
        max_batch=shape_r.max_batch,
        tpot_floor_ms=model.tpot_floor(shape) * 1000.0,
        prefill_ms=point.prefill_s * 1000.0,
        prefill_share=point.prefill_share,
        idle_gpus=d.gpus - n * shape.gpus,
        memory_gb=ServingMemory(
            weights=mem.weights / _GB,
            kv_cache=kv_used / _GB,
            kv_space=max(mem.kv_space, 0.0) / _GB,
            activations=mem.activations / _GB,
            reserve=mem.reserve / _GB,
            capacity=mem.capacity / _GB,
        ),
        step=StepParts(
            compute_ms=st.compute_s * 1000.0,
            memory_ms=st.memory_s * 1000.0,
            comm_ms=st.comm_s * 1000.0,
            step_ms=st.time_s * 1000.0,
        ),
        sweep=_sweep(model, point, shape_r.max_batch, n),
        why_not=why_not,
        shapes_tried=len(plan.shapes),
    )
    return out


def _ms(seconds: float | None) -> str:
    return "no limit" if seconds is None else f"{limit_text(seconds * 1000.0)} ms"


def limit_text(value: float) -> str:
    """A limit as the user gave it: ``40``, ``2,000``, ``12.5``."""
    return f"{value:,.0f}" if value == int(value) else quantity(value)


def _target(
    rate: float,
    model: ReplicaModel,
    plan: ServingPlan,
    d: DesignFacts,
    out: Inference,
    disagg: bool,
) -> Target:
    node = max(1, round(d.gpus / max(d.compute_nodes, 1)))
    best = plan.best
    if best is None or best.best is None:
        return Target(
            requests_per_s=rate,
            replicas_needed=0,
            gpus_needed=0,
            met=False,
            change=f"no replica shape meets the latency limits ({out.why_not})",
        )
    point = best.best
    n, g = gpus_for(rate, point, node)
    # replicas of a shape inside a domain must not straddle domains
    domain = max(d.nvlink_domain, 1)
    while replicas(point.shape, g, domain) < n:
        g += node
    have = out.requests_per_s
    dis = out.disaggregated
    if have >= rate:
        spare = d.gpus - g
        change = (
            f"the design serves it: {quantity(rate)} requests/s need {g:,} of its "
            f"{d.gpus:,} GPUs ({plural(n, 'replica')} of TP {point.shape.tp} x PP "
            f"{point.shape.pp}); {plural(max(spare, 0), 'GPU')} to spare"
        )
        return Target(
            requests_per_s=rate,
            replicas_needed=n,
            gpus_needed=g,
            met=True,
            change=change,
        )
    more = g - d.gpus
    nodes = math.ceil(more / node)
    gpu = d.gpu_model or "GPU"
    change = (
        f"add {plural(nodes, 'node')} of {node} x {gpu} ({more:,} GPUs, {g:,} in "
        f"all: {plural(n, 'replica')} of TP {point.shape.tp} x PP {point.shape.pp} "
        f"at batch {point.batch:,})"
    )
    if dis is not None and dis.requests_per_s > have * 1.05:
        per_gpu = dis.requests_per_s / max(dis.gpus_used, 1)
        need = math.ceil(rate / per_gpu / node) * node if per_gpu > 0 else 0
        change += f"; or split prefill and decode pools: about {need:,} GPUs" + (
            "" if disagg else " (disaggregated serving)"
        )
    if model.weights is Precision.BF16:
        change += "; FP8 weights would halve the weight bytes per token"
    elif out.bound == Bound.KV_CAPACITY.value and model.kv is Precision.BF16:
        change += "; an FP8 KV cache would double the batch the memory holds"
    return Target(
        requests_per_s=rate, replicas_needed=n, gpus_needed=g, met=False, change=change
    )


def _findings(out: Inference, d: DesignFacts, spec: ModelSpec) -> list[Finding]:
    res: list[Finding] = []
    if out.meets_slo:
        limit = (
            f"a {limit_text(out.tpot_limit_ms)} ms TPOT target"
            if out.tpot_limit_ms is not None
            else "no TPOT limit"
        )
        res.append(
            Finding(
                code="INFERENCE_SERVES",
                severity=Severity.INFO,
                message=(
                    f"at {limit} this design serves {quantity(out.requests_per_s)} "
                    f"requests/s ({quantity(out.tokens_per_s)} output tokens/s, "
                    f"{plural(out.replicas, 'replica')} of {out.replica.gpus} "
                    f"{noun(out.replica.gpus, 'GPU')}); {bound_words(out)}"
                ),
            )
        )
    else:
        res.append(
            Finding(
                code="INFERENCE_SLO_UNMET",
                severity=Severity.WARNING,
                message=f"{spec.name}: {out.why_not}",
            )
        )
    if out.tpot_limit_ms is not None and out.tpot_floor_ms > out.tpot_limit_ms:
        res.append(
            Finding(
                code="INFERENCE_BELOW_BANDWIDTH_FLOOR",
                severity=Severity.WARNING,
                message=(
                    f"the {limit_text(out.tpot_limit_ms)} ms TPOT target is below the "
                    f"memory-bandwidth floor of this replica "
                    f"({quantity(out.tpot_floor_ms)} ms: its weights read once per "
                    "token at the HBM peak); use more TP or lower-precision weights"
                ),
            )
        )
    dis = out.disaggregated
    if dis is not None and out.meets_slo and dis.gain > 0.10:
        res.append(
            Finding(
                code="INFERENCE_DISAGGREGATE",
                severity=Severity.INFO,
                message=(
                    f"separate prefill and decode pools ({dis.prefill.replicas:,} x "
                    f"{pool_shape(dis.prefill)} prefill, {dis.decode.replicas:,} x "
                    f"{pool_shape(dis.decode)} decode, KV sent over {dis.kv_link} in "
                    f"{quantity(dis.kv_transfer_ms)} ms) serve "
                    f"{quantity(dis.requests_per_s)} requests/s, "
                    f"{dis.gain:.0%} more"
                ),
            )
        )
    t = out.target
    if t is not None and not t.met:
        res.append(
            Finding(
                code="INFERENCE_TARGET_UNMET",
                severity=Severity.WARNING,
                message=(
                    f"{quantity(t.requests_per_s)} requests/s is more than the "
                    f"{quantity(out.requests_per_s)} this design serves: {t.change}"
                ),
            )
        )
    if out.replica.tp > d.nvlink_domain:
        res.append(
            Finding(
                code="INFERENCE_TP_SPANS_NVLINK",
                severity=Severity.INFO,
                message=(
                    f"the replica's TP {out.replica.tp} spans NVLink domains of "
                    f"{d.nvlink_domain}: its all-reduces cross the fabric"
                ),
            )
        )
    return res


def pool_shape(p: Pool) -> str:
    """``TP 4``, ``TP 1 x PP 8``, ``TP 8, EP 8``."""
    text = f"TP {p.tp}" + (f" x PP {p.pp}" if p.pp > 1 else "")
    return text + (f", EP {p.ep}" if p.ep > 1 else "")


def _no_fit(spec: ModelSpec, d: DesignFacts, plan: ServingPlan) -> Finding:
    return Finding(
        code="INFERENCE_SLO_UNMET",
        severity=Severity.WARNING,
        message=f"{spec.name} cannot be served on this design: {plan_why(plan)}",
    )


FIGURES: tuple[tuple[str, str, str, bool], ...] = (
    ("replica.tp", "Replica: tensor parallel", "", False),
    ("replica.pp", "Replica: pipeline parallel", "", False),
    ("replica.ep", "Replica: expert parallel", "", False),
    ("replica.gpus", "Replica: GPUs", "", False),
    ("replica.batch", "Replica: sequences per micro-batch", "", False),
    ("replicas", "Replicas the design holds", "", False),
    ("max_concurrency", "Sequences in flight (design)", "", True),
    ("ttft_ms", "Time to first token", "ms", True),
    ("tpot_ms", "Time per output token", "ms", True),
    ("tokens_per_s_per_gpu", "Output tokens/s per GPU", "tokens/s", True),
    ("tokens_per_s", "Output tokens/s (design)", "tokens/s", True),
    ("requests_per_s", "Requests/s (design)", "requests/s", True),
    ("bound", "What limits it", "", True),
    ("meets_slo", "Meets the TTFT and TPOT limits", "", True),
    ("max_batch", "Largest micro-batch the KV cache holds", "", True),
    ("kv_bytes_per_token", "KV cache per token (model)", "B", False),
    ("tpot_floor_ms", "TPOT floor (weights at the HBM peak)", "ms", False),
    ("prefill_ms", "Prefill of one prompt", "ms", True),
    ("memory_gb.weights", "Weights per GPU", "GB", False),
    ("memory_gb.kv_cache", "KV cache per GPU at the batch", "GB", True),
    ("memory_gb.activations", "Activation workspace per GPU", "GB", True),
    ("memory_gb.reserve", "Runtime reserve per GPU", "GB", True),
    ("step.step_ms", "Decode step of one stage", "ms", True),
    ("step.memory_ms", "Decode step: HBM reads", "ms", True),
    ("step.compute_ms", "Decode step: matrix math", "ms", True),
    ("step.comm_ms", "Decode step: TP/EP/PP traffic", "ms", True),
)
SOURCE = (
    "serving model (docs/serving-model.md): decode step = max(weights + KV read "
    "at 80 % of HBM, matrix math at the serving efficiency) + TP/EP/PP "
    "collectives on the design's fabric; TPOT = PP x step + batch / output x "
    "prefill; best replica shape by SLO search"
)


_LABELS = {
    f"inference.{path}": (label, unit, est) for path, label, unit, est in FIGURES
}
_NULL_WHY = {
    "inference.ttft_limit_ms": "no TTFT limit",
    "inference.tpot_limit_ms": "no TPOT limit",
    "inference.disaggregated": "no pair of prefill and decode pools meets the limits",
    "inference.target": "no requests/s target given (--requests-per-s)",
    "inference.why_not": "a replica shape meets the limits",
}
_EXACT = {"prompt_tokens", "output_tokens", "ttft_limit_ms", "tpot_limit_ms",
          "weight_precision", "kv_precision", "shapes_tried", "idle_gpus",
          "capacity"}  # fmt: skip


def _leaves(data: dict[str, object], prefix: str) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for key, value in data.items():
        path = f"{prefix}.{key}"
        if isinstance(value, dict):
            out += _leaves(value, path)
        else:
            out.append((path, value))
    return out


def _figures(led: Ledger, out: Inference) -> None:
    """Describe every figure of ``out`` (labels for the main ones; the rest
    named after their field) and say why a null one is null."""
    for path, value in _leaves(out.model_dump(mode="json"), "inference"):
        if path == "inference.sweep":
            continue  # the chart's points, not a figure
        label, unit, est = _LABELS.get(path, ("", "", True))
        name = path.rsplit(".", 1)[-1]
        if not label:
            where = path.split(".")[1] if path.count(".") > 1 else ""
            label = name.replace("_", " ").replace(" ms", "").capitalize()
            if where:
                label = f"{where.replace('_', ' ').capitalize()}: {label.lower()}"
            unit = "ms" if name.endswith("_ms") else unit
            est = name not in _EXACT
        led.fig(path, label, unit, SOURCE, est)
        if value is None:
            led.why(path, _NULL_WHY.get(path, "not computed"))


def _unknown(led: Ledger, reason: str) -> None:
    led.fig(
        "inference.requests_per_s", "Requests/s (design)", "requests/s", SOURCE, True
    )
    led.why("inference.requests_per_s", reason)
