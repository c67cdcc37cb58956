"""What a line of the Workload panel's summary is, shared by the training
summary (:mod:`designer.view.workload.summary`) and the serving lines
(:mod:`designer.view.workload.serving`)."""

from __future__ import annotations

from dataclasses import dataclass

ESTIMATE_MARK = "≈"
"""Put before a value that is an estimate (the legend says so)."""


@dataclass(frozen=True)
class Line:
    """One line of the summary: a label, its text, and the figure paths it
    shows (their sources are the line's tooltip)."""

    label: str
    text: str
    paths: tuple[str, ...] = ()


__all__ = ["ESTIMATE_MARK", "Line"]
