"""Inference serving templates (New from Template; here rather than in
:mod:`designer.generate` because sizing needs the serving model, a layer
above the generators): HGX/DGX nodes on a 400GbE leaf-spine, or GB200
NVL72 racks, sized by the serving model (docs/serving-model.md) to serve a
requests/s target for a model and request mix.

The size is the fewest nodes (racks) whose replicas, found by the serving SLO
search on one node's NVLink domain (or on the fewest nodes that hold one
replica), serve the target; the design carries an inference ``workload``
block with the target, so the estimate (panel, CLI, PDF) checks it on the
generated fabric.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from designer.catalog.schema import Category
from designer.core.model import Design, Purpose
from designer.core.workload import Job, Precision, Workload
from designer.generate import GeneratorError, fat_tree
from designer.generate.parts import CatalogLike, entry, resolve
from designer.workload.collectives import FabricView
from designer.workload.presets import preset
from designer.workload.serving import Load, ReplicaModel
from designer.workload.serving_facts import (
    OUTPUT_TOKENS,
    PROMPT_TOKENS,
    TPOT_MS,
    TTFT_MS,
)
from designer.workload.serving_inputs import gpu_from_catalog
from designer.workload.serving_search import search

SERVING_SYSTEMS: dict[str, tuple[str, str]] = {
    "hgx-h100": ("HGX H100 on 400GbE", "generic-400g-64"),
    "dgx-h200": ("DGX H200 on 400GbE", "generic-400g-64"),
    "dgx-b200": ("DGX B200 on 400GbE", "generic-400g-64"),
    "gb200-nvl72": ("GB200 NVL72 racks on 800GbE", "sn5600"),
}
"""Compute entry -> (title, scale-out switch)."""
NIC_BYTES_S = 50e9
"""One 400G NIC per GPU while sizing (the generated fabric is then checked by
the estimate itself)."""
MAX_NODES = 20_000


@dataclass(frozen=True)
class Sizing:
    """What the template is sized to."""

    nodes: int
    gpus: int
    requests_per_s: float
    """What that many nodes serve (at least the target)."""
    nodes_per_unit: int
    """Nodes one sized unit spans (1 unless a replica needs more than a node)."""
    replica: str


def size(
    system: str,
    model: str,
    requests_per_s: float,
    *,
    precision: Precision = Precision.FP8,
    prompt_tokens: int | None = None,
    output_tokens: int | None = None,
    ttft_ms: float | None = None,
    tpot_ms: float | None = None,
    catalog: CatalogLike | None = None,
) -> Sizing:
    """The fewest ``system`` nodes that serve ``requests_per_s`` of ``model``."""
    if not math.isfinite(requests_per_s) or requests_per_s <= 0:
        raise GeneratorError(f"requests/s must be > 0, got {requests_per_s!r}")
    cat = resolve(catalog)
    c = entry(cat, system, Category.COMPUTE, "compute model")
    g = c.ext.gpu
    if g is None:
        raise GeneratorError(f"{system} has no GPUs")
    peaks = (
        {"bf16": g.peak_tflops.bf16, "fp8": g.peak_tflops.fp8, "fp4": g.peak_tflops.fp4}
        if g.peak_tflops is not None
        else {}
    )
    gpu = gpu_from_catalog(g.model, g.memory_gb, peaks, precision)
    if gpu is None:
        raise GeneratorError(
            f"no serving facts for {g.model} at {precision.value.upper()} "
            "(HBM bandwidth, peak or efficiency)"
        )
    try:
        spec = preset(model)
    except KeyError as exc:
        raise GeneratorError(str(exc.args[0])) from None
    load = Load(
        int(prompt_tokens or PROMPT_TOKENS.value),
        int(output_tokens or OUTPUT_TOKENS.value),
        (ttft_ms or TTFT_MS.value) / 1000.0,
        (tpot_ms or TPOT_MS.value) / 1000.0,
    )
    kv = Precision.BF16 if precision is Precision.BF16 else Precision.FP8
    per_node = g.count
    unit = 1
    while unit <= 64:
        gpus = unit * per_node
        view = FabricView(
            gpus, g.nvlink_domain, g.nvlink_gbytes_s / 2 * 1e9, NIC_BYTES_S
        )
        m = ReplicaModel(spec, gpu, view, precision, kv, load)
        plan = search(m, gpus, g.nvlink_domain)
        if plan.best is not None and plan.best.best is not None:
            rate = plan.best.tokens_per_s / load.output
            units = math.ceil(requests_per_s / rate - 1e-9)
            nodes = units * unit
            if nodes > MAX_NODES:
                raise GeneratorError(
                    f"{requests_per_s:,.0f} requests/s of {spec.name} needs "
                    f"{nodes:,} nodes of {c.model}; at most {MAX_NODES:,}"
                )
            s = plan.best.shape
            return Sizing(
                nodes,
                nodes * per_node,
                units * rate,
                unit,
                f"TP {s.tp} x PP {s.pp}" + (f", EP {s.ep}" if s.ep > 1 else ""),
            )
        unit *= 2
    raise GeneratorError(
        f"no replica of {spec.name} on up to 64 x {c.model} meets TTFT "
        f"{(load.ttft_s or 0) * 1000:,.0f} ms and TPOT "
        f"{(load.tpot_s or 0) * 1000:,.0f} ms"
    )


def serving(
    system: str,
    model: str,
    requests_per_s: float,
    *,
    precision: Precision = Precision.FP8,
    prompt_tokens: int | None = None,
    output_tokens: int | None = None,
    ttft_ms: float | None = None,
    tpot_ms: float | None = None,
    catalog: CatalogLike | None = None,
) -> Design:
    """An inference design of ``system`` nodes sized for ``requests_per_s`` of
    ``model``, with its workload block (the target included)."""
    if system not in SERVING_SYSTEMS:
        raise GeneratorError(
            f"unknown serving system {system!r}; expected one of: "
            + ", ".join(SERVING_SYSTEMS)
        )
    cat = resolve(catalog)
    sized = size(
        system,
        model,
        requests_per_s,
        precision=precision,
        prompt_tokens=prompt_tokens,
        output_tokens=output_tokens,
        ttft_ms=ttft_ms,
        tpot_ms=tpot_ms,
        catalog=cat,
    )
    title, switch = SERVING_SYSTEMS[system]
    design = fat_tree(system, sized.nodes, switch, catalog=cat)
    spec = preset(model)
    settings = design.settings.model_copy(
        update={
            "name": f"Serving {spec.name} at {requests_per_s:,.0f} requests/s: "
            f"{sized.gpus:,} GPUs ({title})",
            "purpose": Purpose.INFERENCE,
        }
    )
    block = Workload(
        model=spec.key,
        job=Job.INFERENCE,
        precision=precision,
        prompt_tokens=prompt_tokens,
        output_tokens=output_tokens,
        ttft_ms=ttft_ms,
        tpot_ms=tpot_ms,
        requests_per_s=requests_per_s,
    )
    return design.model_copy(update={"settings": settings, "workload": block})
