"""Resolve the estimate's inputs: given values, presets and defaults, each
recorded as an :class:`~designer.workload.result.Assumption` with its source."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from designer.core.workload import Job, Precision, Recompute, Workload
from designer.workload import facts
from designer.workload.facts import Fact
from designer.workload.presets import ModelSpec, custom, params_from_shape, preset
from designer.workload.result import Assumption, Figure

SHAPE_FIELDS = (
    "params",
    "active_params",
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "seq_len",
    "vocab",
)


class EstimateInputError(ValueError):
    """An input that cannot be used (unknown preset, inconsistent plan)."""


@dataclass
class Ledger:
    """Collects the assumptions, figure descriptions, unknowns and findings."""

    block: Workload
    over: Workload
    over_origin: str
    assumptions: list[Assumption] = field(default_factory=list)
    figures: dict[str, Figure] = field(default_factory=dict)
    unknown: dict[str, str] = field(default_factory=dict)

    def origin(self, name: str) -> str | None:
        """Where a set workload field came from (None: not set)."""
        if getattr(self.over, name) is not None:
            return self.over_origin
        if getattr(self.block, name) is not None:
            return "design file"
        return None

    def given(self, name: str) -> Any:
        """The set value of a workload field (override first), or None."""
        value = getattr(self.over, name)
        return value if value is not None else getattr(self.block, name)

    def pick(self, name: str, default: Fact | None, unit: str = "") -> Any:
        """A workload input: given, else ``default``; recorded either way."""
        origin = self.origin(name)
        if origin is not None:
            value = self.given(name)
            self.note(
                name,
                value,
                unit or (default.unit if default else ""),
                "as given",
                False,
                origin,
            )
            return value
        if default is None:
            return None
        self.note(
            name,
            default.value,
            unit or default.unit,
            default.source,
            default.estimate,
            "default",
        )
        return default.value

    def note(
        self,
        name: str,
        value: float | int | str | bool | None,
        unit: str,
        source: str,
        estimate: bool,
        origin: str,
    ) -> None:
        """Record one assumption."""
        if isinstance(value, Job | Precision | Recompute):
            value = value.value
        self.assumptions.append(
            Assumption(
                name=name,
                value=value,
                unit=unit,
                source=source,
                estimate=estimate,
                origin=origin,
            )
        )

    def fig(
        self, path: str, label: str, unit: str, source: str, estimate: bool
    ) -> None:
        """Describe the figure at ``path``."""
        self.figures[path] = Figure(
            label=label, unit=unit, source=source, estimate=estimate
        )

    def why(self, path: str, reason: str, *, replace: bool = False) -> None:
        """Say why the figure at ``path`` is null (``replace``: over an earlier
        reason)."""
        if replace:
            self.unknown[path] = reason
        else:
            self.unknown.setdefault(path, reason)


def resolve_model(led: Ledger) -> ModelSpec | None:
    """The model: a preset (optionally modified) or a custom one; None if neither."""
    name = led.given("model")
    base: ModelSpec | None = None
    if name is not None:
        try:
            base = preset(str(name))
        except KeyError as exc:
            raise EstimateInputError(str(exc.args[0])) from None
        led.note("model", base.name, "", base.source, False, led.origin("model") or "")
    fields = {k: led.given(k) for k in SHAPE_FIELDS}
    for k, v in fields.items():
        if v is not None:
            led.note(k, v, "", "as given", False, led.origin(k) or "")
    spec = custom(base, **fields)
    if spec.params is None:
        derived = params_from_shape(spec)
        if derived is not None:
            spec = custom(spec, params=derived)
            led.note(
                "params",
                derived,
                "",
                "N = 12 L h^2 + V h from the shape (Kaplan et al. 2020) [E]",
                True,
                "default",
            )
    if spec.params is None:
        return None
    if spec.active_params is not None and spec.active_params > spec.params:
        raise EstimateInputError(
            f"active parameters ({spec.active_params:,.3g}) exceed the total "
            f"({spec.params:,.3g}); expected active <= total"
        )
    return spec


def lora_params(spec: ModelSpec, rank: int) -> tuple[float, str]:
    """Trainable adapter parameters and how they were obtained."""
    if spec.layers and spec.hidden:
        n = 8.0 * rank * spec.hidden * spec.layers
        return n, (
            f"LoRA rank {rank} on q, k, v, o: 8 r h L = {n:,.3g} parameters "
            "(k, v taken as h x h) [E]"
        )
    share = facts.LORA_SHARE
    return share.value * (spec.params or 0.0), share.source
