"""Scenario compare: the same workload on several designs, side by side (no Qt).

:func:`column` runs the validator's analysis and :func:`~designer.workload.estimate`
once for one design and keeps what an architect compares: GPUs, bisection and
its ratio, oversubscription, cost, power, MFU, tokens/s, days, dollars per run
(owned and cloud) and TCO. :func:`comparison` puts columns side by side and says
where they are not like for like (GPU counts, GPU models, different workloads,
figures that could not be computed and why). The ``compare --json`` object is
:meth:`Comparison.model_dump` (docs/estimate-json.md, "compare --json"); its
rows and the CLI's table are :mod:`designer.workload.compare_rows`.

Every figure is read from the estimate's result, never recomputed here, so a
better estimate (a step-time model whose MFU depends on the fabric, its
``nonblocking_days``) shows in the comparison without a change to this module.
The only arithmetic of its own is the dollars per run:

* owned: the design's GPUs x training hours x the owned cost per busy GPU-hour
  (``tco.owned_usd_per_used_gpu_hour``): the run occupies the cluster you own;
* cloud: the GPUs the plan uses x training hours x the cloud rate
  (``gpu_hours`` x ``tco.cloud_usd_per_gpu_hour``): you rent what you use.

Training hours are the estimate's ``days`` x 24 (no failures; the days with
failures and checkpoints are a row of their own).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from designer.catalog.loader import Catalog
from designer.core.model import Design
from designer.core.workload import Workload
from designer.workload.engine import estimate
from designer.workload.fabric import read_design
from designer.workload.result import Estimate

__all__ = [
    "Column",
    "Comparison",
    "column",
    "compare",
    "comparison",
    "from_estimate",
    "headers",
]

HOURS_PER_DAY = 24.0


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Column(_Out):
    """One design of a comparison (one entry of ``designs`` in ``compare --json``)."""

    file: str = Field(description="the file as given, or the scenario's name")
    name: str = Field(description="the design's name (settings.name)")
    gpus: int
    gpu_model: str | None
    compute_nodes: int
    bisection_gbps: float
    bisection_ratio: float | None
    bisection_ratio_lower: float | None = Field(
        description="proven floor of the ratio (equal to it when exact)"
    )
    bisection_exact: bool
    oversubscription: dict[str, float | None] = Field(
        description="tier -> down:up ratio (null: the top tier)"
    )
    cost_usd: float = Field(description="hardware capex build-up")
    cost_per_gpu_usd: float | None
    power_kw: float
    model: str | None = Field(description="the model estimated (null: none given)")
    job: str
    precision: str | None
    tokens: float | None
    plan: str | None = Field(
        description="TP x PP x DP and the GPUs left idle (inference: GPUs per "
        "replica x replicas)"
    )
    zero_recompute: str | None = Field(description="ZeRO stage, recompute")
    gpus_used: int | None
    fits: bool | None
    mfu: float | None
    mfu_source: str | None = Field(description="model, given or default")
    tokens_per_s: float | None
    exposed_comm_fraction: float | None
    days: float | None
    nonblocking_days: float | None
    effective_days: float | None
    usd_per_run_owned: float | None
    usd_per_run_cloud: float | None
    owned_usd_per_gpu_hour: float | None
    cloud_usd_per_gpu_hour: float | None
    tco_owned_5y: float | None
    tco_cloud_5y: float | None
    bisection_ratio_after_n1: float | None
    unknown: dict[str, str] = Field(description="field -> why it is null")


class Comparison(_Out):
    """The ``compare --json`` object."""

    designs: list[Column]
    baseline: str | None = Field(description="the first design's file")
    like_for_like: bool = Field(description="same GPU count and GPU model")
    workload: str = Field(description="what was estimated, in words")
    notes: list[str]


def column(
    label: str,
    design: Design,
    catalog: Catalog | None = None,
    *,
    overrides: Workload | None = None,
    origin: str = "command line",
) -> Column:
    """Analyse and estimate ``design`` (its workload block with ``overrides``).

    Raises :class:`~designer.workload.EstimateInputError` when the inputs
    cannot be used (an unknown preset, say), as ``estimate`` does.
    """
    facts = read_design(design, catalog)
    est = estimate(
        design, catalog, overrides=overrides, origin=origin, design_facts=facts
    )
    report = facts.report
    return from_estimate(
        label,
        design.settings.name,
        est,
        compute_nodes=report.compute_nodes,
        bisection_gbps=report.bisection.gbps,
        bisection_ratio=report.bisection.ratio,
        bisection_ratio_lower=(
            report.bisection.lower_gbps / report.bisection.full_gbps
            if report.bisection.ratio is not None and report.bisection.full_gbps > 0
            else None
        ),
        bisection_exact=report.bisection.exact,
        oversubscription=dict(report.oversubscription),
        cost_usd=report.cost_usd.total,
        power_kw=report.power_kw,
    )


def from_estimate(
    label: str,
    name: str,
    est: Estimate,
    *,
    compute_nodes: int,
    bisection_gbps: float,
    bisection_ratio: float | None,
    bisection_ratio_lower: float | None,
    bisection_exact: bool,
    oversubscription: dict[str, float | None],
    cost_usd: float,
    power_kw: float,
) -> Column:
    """A column from an estimate and the validator's figures of its design."""
    unknown: dict[str, str] = {}

    def why(key: str, path: str, default: str) -> None:
        unknown[key] = est.unknown.get(path) or default

    p = est.parallelism
    trains = est.job != "inference"
    has_model = est.model.name != "none"
    plan = zero = None
    if not est.gpus:
        unknown["plan"] = unknown["zero_recompute"] = "the design has no GPUs"
    elif has_model and trains:
        idle = est.gpus - p.gpus_used
        plan = f"{p.tp} x {p.pp} x {p.dp:,}" + (f", {idle:,} idle" if idle > 0 else "")
        zero = f"ZeRO {p.zero_stage}, {p.recompute}"
    elif has_model:
        plan = f"{p.tp * p.pp} x {p.dp:,} replicas"
    mfu, mfu_source = _mfu(est) if trains and has_model else (None, None)
    days = est.days
    hours = None if days is None else days * HOURS_PER_DAY
    tokens = _tokens(est)
    tokens_per_s = _tokens_per_s(est, tokens)
    tco = est.tco
    owned_rate = tco.owned_usd_per_used_gpu_hour
    cloud_rate = tco.cloud_usd_per_gpu_hour
    owned_run = (
        None if hours is None or owned_rate is None else est.gpus * hours * owned_rate
    )
    cloud_run = (
        None
        if hours is None or cloud_rate is None
        else p.gpus_used * hours * cloud_rate
    )
    nonblocking = getattr(est, "nonblocking_days", None)
    effective = est.reliability.effective_days
    if days is None:
        for key in ("days", "tokens_per_s", "usd_per_run_owned", "usd_per_run_cloud"):
            if key == "tokens_per_s" and tokens_per_s is not None:
                continue  # a serving estimate's output tokens/s
            why(key, "days", "no training time")
    else:
        if tokens_per_s is None:
            why("tokens_per_s", "step.tokens_per_s", "no token count")
        if owned_run is None:
            why("usd_per_run_owned", "tco.owned_usd_per_gpu_hour", "no owned cost")
        if cloud_run is None:
            why("usd_per_run_cloud", "tco.cloud_usd_per_gpu_hour", "no cloud rate")
    if mfu is None:
        why(
            "mfu",
            "step.mfu",
            "no model given" if not has_model else "inference: no training MFU",
        )
    if nonblocking is None:
        why(
            "nonblocking_days",
            "nonblocking_days",
            "no training time"
            if days is None
            else "this estimate does not give the days on a non-blocking fabric",
        )
    if effective is None:
        why("effective_days", "reliability.effective_days", "no training time")
    if est.step.exposed_comm_fraction is None:
        why("exposed_comm_fraction", "step.exposed_comm_fraction", "no training step")
    for key, path in (
        ("owned_usd_per_gpu_hour", "tco.owned_usd_per_gpu_hour"),
        ("cloud_usd_per_gpu_hour", "tco.cloud_usd_per_gpu_hour"),
        ("tco_owned_5y", "tco.total_usd.owned_5y"),
        ("tco_cloud_5y", "tco.total_usd.cloud_5y"),
        ("bisection_ratio_after_n1", "n_minus_1.bisection_ratio_after"),
    ):
        value = est.value(path)
        if value is None:
            why(key, path, "unknown")
    if not has_model:
        for key in ("model", "plan", "zero_recompute", "gpus_used", "fits"):
            unknown[key] = "no model given"
    if tokens is None and trains:
        why("tokens", "days", "no token count")
    if bisection_ratio is None:
        unknown["bisection_ratio"] = "fewer than two compute nodes: no bisection"
    return Column(
        file=label,
        name=name,
        gpus=est.gpus,
        gpu_model=est.gpu_model,
        compute_nodes=compute_nodes,
        bisection_gbps=bisection_gbps,
        bisection_ratio=bisection_ratio,
        bisection_ratio_lower=bisection_ratio_lower,
        bisection_exact=bisection_exact,
        oversubscription=oversubscription,
        cost_usd=cost_usd,
        cost_per_gpu_usd=cost_usd / est.gpus if est.gpus else None,
        power_kw=power_kw,
        model=est.model.name if has_model else None,
        job=est.job,
        precision=_precision(est),
        tokens=tokens,
        plan=plan,
        zero_recompute=zero,
        gpus_used=p.gpus_used if has_model and est.gpus else None,
        fits=est.fits if has_model else None,
        mfu=mfu,
        mfu_source=mfu_source,
        tokens_per_s=tokens_per_s,
        exposed_comm_fraction=est.step.exposed_comm_fraction,
        days=days,
        nonblocking_days=nonblocking,
        effective_days=effective,
        usd_per_run_owned=owned_run,
        usd_per_run_cloud=cloud_run,
        owned_usd_per_gpu_hour=tco.owned_usd_per_gpu_hour,
        cloud_usd_per_gpu_hour=cloud_rate,
        tco_owned_5y=tco.total_usd.owned_5y,
        tco_cloud_5y=tco.total_usd.cloud_5y,
        bisection_ratio_after_n1=est.n_minus_1.bisection_ratio_after,
        unknown=unknown,
    )


def _assumption(est: Estimate, name: str) -> Any:
    for a in est.assumptions:
        if a.name == name:
            return a
    return None


def _mfu(est: Estimate) -> tuple[float | None, str | None]:
    """The estimate's MFU and where it came from: the step model's output
    (``step.mfu``) when the estimate has one, else the MFU it assumed."""
    modelled = getattr(est.step, "mfu", None)
    if modelled is not None:
        source = getattr(est.step, "mfu_source", None) or "model"
        return float(modelled), str(source)
    a = _assumption(est, "mfu")
    if a is None or a.value is None:
        return None, None
    return float(a.value), "default" if a.origin == "default" else "given"


def _precision(est: Estimate) -> str | None:
    a = _assumption(est, "precision")
    return None if a is None or a.value is None else str(a.value)


def _tokens(est: Estimate) -> float | None:
    a = _assumption(est, "tokens")
    return None if a is None or a.value is None else float(a.value)


def _tokens_per_s(est: Estimate, tokens: float | None) -> float | None:
    """The step's tokens/s when the estimate gives it, else the run's tokens
    over its days (the same figure under a fixed MFU); a serving estimate's
    output tokens/s of the design."""
    inf = getattr(est, "inference", None)
    if inf is not None:
        return float(inf.tokens_per_s)
    given = getattr(est.step, "tokens_per_s", None)
    if given is not None:
        return float(given)
    if tokens is None or not est.days:
        return None
    return tokens / (est.days * 86_400.0)


def comparison(
    columns: Sequence[Column],
    *,
    options_given: bool = False,
    command_line: bool = True,
) -> Comparison:
    """Put ``columns`` side by side and say where they are not like for like.

    ``options_given``: workload options were given on top of the designs'
    blocks (else each design is estimated with its own block).
    ``command_line``: the notes name the CLI's options (``--model``); the
    compare dialog's notes name the inputs instead.
    """
    cols = list(columns)
    names = headers(cols)
    notes: list[str] = []

    def listed(pick: Sequence[int]) -> str:
        return ", ".join(names[i] for i in pick)

    def grouped(values: Sequence[str]) -> str:
        groups: dict[str, list[int]] = {}
        for i, v in enumerate(values):
            groups.setdefault(v, []).append(i)
        return "; ".join(f"{v}: {listed(ix)}" for v, ix in groups.items())

    gpus = {c.gpus for c in cols}
    models = {c.gpu_model for c in cols}
    like = len(gpus) <= 1 and len(models) <= 1
    if len(gpus) > 1:
        counts = grouped([f"{c.gpus:,} GPUs" for c in cols])
        notes.append(
            f"Not like for like: the designs differ in GPU count ({counts}). The "
            "rows marked * scale with the cluster's size (more GPUs: more bisection, "
            "cost, power and tokens/s, fewer days); cost per GPU, $ per GPU-hour and "
            "$ per run compare across sizes."
        )
    if len(models) > 1:
        which = grouped([c.gpu_model or "no GPUs" for c in cols])
        notes.append(f"Not like for like: different GPU models ({which}).")
    with_model = [i for i, c in enumerate(cols) if c.model is not None]
    jobs = {_job_words(cols[i]) for i in with_model}
    if len(jobs) > 1:
        what = grouped([_job_words(c) for c in cols])
        notes.append(
            f"The designs estimate different workloads ({what}): give the same "
            + (
                "--model (or --params), --job, --tokens and --precision for all."
                if command_line
                else "model (or parameter count), job, training tokens and "
                "precision for all."
            )
        )
    missing = [i for i, c in enumerate(cols) if c.model is None]
    if missing:
        where = (
            "the options name no model"
            if options_given
            else "no workload options were given"
        )
        notes.append(
            f"No workload for {listed(missing)}: "
            f"{'it has' if len(missing) == 1 else 'they have'} no workload block and "
            f"{where}. "
            + (
                "Give --model NAME (or --params N) and, for fine-tuning or a model "
                "without published training tokens, --tokens T"
                if command_line
                else "Give a model (a preset or its parameter count) and, for "
                "fine-tuning or a model without published training tokens, the "
                "training tokens"
            )
            + "; the fabric, cost "
            "and power rows are compared without it."
        )
    no_tokens = [
        i
        for i in with_model
        if cols[i].unknown.get("days", "").startswith("no token count")
    ]
    if no_tokens:
        notes.append(
            f"No training time for {listed(no_tokens)}: "
            + (
                "give --tokens T (training tokens)."
                if command_line
                else "give the number of training tokens."
            )
        )
    for i, c in enumerate(cols):
        if c.fits is False:
            notes.append(
                f"{names[i]}: {c.unknown.get('days', 'the job does not fit')}."
            )
    mfu_sources = {c.mfu_source for c in cols if c.mfu_source}
    if mfu_sources == {"default"}:
        notes.append(
            "MFU is the estimate's fixed default on every design: days and $ per run "
            "do not see the fabric; the communication share of the step does."
        )
    bounds = [
        i for i, c in enumerate(cols) if not c.bisection_exact and c.bisection_ratio
    ]
    if bounds:
        notes.append(
            f"Bisection of {listed(bounds)}: bounds, not exact; the true ratio lies "
            "in the range shown."
        )
    return Comparison(
        designs=cols,
        baseline=cols[0].file if cols else None,
        like_for_like=like,
        workload=_workload_words(cols),
        notes=notes,
    )


def compare(
    designs: Sequence[tuple[str, Design]],
    catalog: Catalog | None = None,
    *,
    overrides: Workload | None = None,
    origin: str = "command line",
) -> Comparison:
    """Estimate each ``(label, design)`` with the same overrides; compare them."""
    options = overrides is not None and bool(overrides.model_dump(exclude_none=True))
    cols = [
        column(label, d, catalog, overrides=overrides, origin=origin)
        for label, d in designs
    ]
    return comparison(cols, options_given=options)


def _job_words(c: Column) -> str:
    if c.model is None:
        return "no model"
    tokens = ""
    if c.tokens:
        tokens = (
            f", {c.tokens / 1e12:.3g}T tokens"
            if c.tokens >= 1e11
            else f", {c.tokens / 1e9:.3g}B tokens"
        )
    mfu = f", MFU {c.mfu:.0%} given" if c.mfu_source == "given" else ""
    return f"{c.model} {c.job}, {c.precision}{tokens}{mfu}"


def _workload_words(cols: Sequence[Column]) -> str:
    words = {_job_words(c) for c in cols}
    if len(words) == 1:
        return next(iter(words))
    return "different per design"


def headers(cols: Sequence[Column]) -> list[str]:
    """Short column titles: the file names without folder and ``.json`` (the
    paths as given when two names would read the same)."""

    def short(text: str) -> str:
        name = text.replace("\\", "/").rsplit("/", 1)[-1]
        return name.replace(".json", "", 1) if ".json" in name else name

    names = [short(c.file) for c in cols]
    files = [c.file for c in cols]
    return [
        files[i]
        if any(n == name and files[j] != files[i] for j, n in enumerate(names))
        else name
        for i, name in enumerate(names)
    ]
