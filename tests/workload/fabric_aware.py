"""A stand-in for issue 17's step-time model: the real estimate, with days
that grow as the design's fabric factor shrinks and the keys the step model
adds (``step.mfu``, ``step.mfu_source``, ``step.tokens_per_s``,
``nonblocking_days``). Tests use it to check that what reads the estimate
shows a fabric-aware model's figures without a change."""

from __future__ import annotations

from typing import Any

from designer.core.model import Design
from designer.workload import estimate
from designer.workload.result import Estimate, Step


class ModelStep(Step):
    """A step as a step-time model gives it (issue 17's new keys)."""

    mfu: float | None = None
    mfu_source: str | None = None
    tokens_per_s: float | None = None


class ModelEstimate(Estimate):
    """An estimate with the step model's keys."""

    step: ModelStep
    nonblocking_days: float | None = None


def fabric_aware(design: Design, *args: Any, **kwargs: Any) -> Estimate:
    """The real estimate, its days / sqrt(fabric factor), its MFU x sqrt(factor)
    and the real days as the days on a non-blocking fabric."""
    est = estimate(design, *args, **kwargs)
    data = est.model_dump()
    factor = est.step.fabric_factor or 1.0
    if est.days is None:
        return ModelEstimate.model_validate(data)
    days = est.days / factor**0.5
    data["days"] = days
    data["gpu_hours"] = days * 24 * est.parallelism.gpus_used
    data["nonblocking_days"] = est.days
    tokens = next((a.value for a in est.assumptions if a.name == "tokens"), None)
    data["step"].update(
        mfu=0.4 * factor**0.5,
        mfu_source="model",
        tokens_per_s=None if tokens is None else float(tokens) / (days * 86_400),
    )
    return ModelEstimate.model_validate(data)
