"""Scenario compare as rows: one table for the CLI, the dialog and its chart (no Qt).

:func:`rows` turns a :class:`~designer.workload.compare.Comparison` into one
:class:`CompareRow` per figure (numbers for deltas and charts, and their text);
:func:`format_comparison` is the side-by-side table of ``cluster-designer
compare``; :func:`unknown_lines` says why figures are unknown.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from designer.core import formatting as fmt
from designer.workload.compare import Column, Comparison, headers

__all__ = [
    "CompareRow",
    "days_text",
    "delta",
    "format_comparison",
    "rows",
    "unknown_lines",
]


@dataclass(frozen=True)
class CompareRow:
    """One figure across the designs: numbers (for deltas and charts) and text."""

    key: str
    label: str
    values: tuple[float | None, ...]
    texts: tuple[str, ...]
    better: str | None = None
    """``lower`` or ``higher`` is better (None: neither, or not a number)."""
    sized: bool = False
    """Scales with the cluster's size: marked when GPU counts differ."""


def days_text(x: float) -> str:
    """Days as read, through the one formatter (``211 days``, ``15.2 h``)."""
    return fmt.duration(x)


def _tokens_rate(x: Any) -> str:
    if x >= 1e6:
        return f"{x / 1e6:,.3g}M tokens/s"
    if x >= 1e3:
        return f"{x / 1e3:,.3g}K tokens/s"
    return f"{x:,.0f} tokens/s"


def _share(x: Any) -> str:
    return f"{x:.1%}"


def _ratio_text(c: Column) -> str:
    if c.bisection_ratio is None:
        return "n/a"
    low = c.bisection_ratio_lower
    if c.bisection_exact or low is None or f"{low:.2f}" == f"{c.bisection_ratio:.2f}":
        return f"{c.bisection_ratio:.2f}" + (" exact" if c.bisection_exact else "")
    return f"{low:.2f}-{c.bisection_ratio:.2f} (bounds)"


def _over_text(c: Column) -> str:
    tiers = [(t, r) for t, r in c.oversubscription.items() if r is not None]
    if not tiers:
        return "single tier" if c.oversubscription else "no fabric"
    return ", ".join(f"{t} {fmt.ratio(r)}" for t, r in tiers)


def _worst_over(c: Column) -> float | None:
    values = [r for r in c.oversubscription.values() if r is not None]
    return max(values) if values else None


def _mfu_text(c: Column) -> str:
    assert c.mfu is not None
    return f"{c.mfu:.1%} ({c.mfu_source})"


def _money(key: str) -> Callable[[Column], str]:
    return lambda c: fmt.usd(getattr(c, key))


def _hourly(key: str) -> Callable[[Column], str]:
    return lambda c: f"${getattr(c, key):,.2f}"


def _in_days(key: str) -> Callable[[Column], str]:
    return lambda c: days_text(getattr(c, key))


_ROWS: tuple[tuple[str, str, Callable[[Column], str], str | None, bool], ...] = (
    # key, label, text of a known value, which way is better, scales with size
    ("gpus", "GPUs", lambda c: f"{c.gpus:,}", None, True),
    ("gpu_model", "GPU model", lambda c: str(c.gpu_model), None, False),
    (
        "bisection_gbps",
        "Bisection",
        lambda c: fmt.gbps(c.bisection_gbps),
        "higher",
        True,
    ),
    ("bisection_ratio", "Bisection ratio", _ratio_text, "higher", False),
    ("oversubscription", "Oversubscription", _over_text, "lower", False),
    (
        "bisection_ratio_after_n1",
        "Bisection ratio, worst switch lost",
        lambda c: f"{c.bisection_ratio_after_n1:.2f}",
        "higher",
        False,
    ),
    ("cost_usd", "Cost (hardware)", _money("cost_usd"), "lower", True),
    ("cost_per_gpu_usd", "Cost per GPU", _money("cost_per_gpu_usd"), "lower", False),
    ("power_kw", "Power", lambda c: fmt.kw(c.power_kw), "lower", True),
    ("plan", "Plan, TP x PP x DP", lambda c: str(c.plan), None, False),
    (
        "zero_recompute",
        "  ZeRO, recompute",
        lambda c: str(c.zero_recompute),
        None,
        False,
    ),
    ("mfu", "MFU", _mfu_text, "higher", False),
    (
        "tokens_per_s",
        "Tokens/s",
        lambda c: _tokens_rate(c.tokens_per_s),
        "higher",
        True,
    ),
    (
        "exposed_comm_fraction",
        "Communication share of a step",
        lambda c: _share(c.exposed_comm_fraction),
        "lower",
        False,
    ),
    ("days", "Training time", _in_days("days"), "lower", True),
    (
        "nonblocking_days",
        "Training time, non-blocking fabric",
        _in_days("nonblocking_days"),
        "lower",
        True,
    ),
    (
        "effective_days",
        "Training time with failures",
        _in_days("effective_days"),
        "lower",
        True,
    ),
    (
        "usd_per_run_owned",
        "$ per run, owned",
        _money("usd_per_run_owned"),
        "lower",
        False,
    ),
    (
        "usd_per_run_cloud",
        "$ per run, cloud",
        _money("usd_per_run_cloud"),
        "lower",
        False,
    ),
    (
        "owned_usd_per_gpu_hour",
        "Owned $ per GPU-hour",
        _hourly("owned_usd_per_gpu_hour"),
        "lower",
        False,
    ),
    (
        "cloud_usd_per_gpu_hour",
        "Cloud $ per GPU-hour",
        _hourly("cloud_usd_per_gpu_hour"),
        None,
        False,
    ),
    ("tco_owned_5y", "TCO owned, 5 years", _money("tco_owned_5y"), "lower", True),
    ("tco_cloud_5y", "TCO cloud, 5 years", _money("tco_cloud_5y"), "lower", True),
)
ROW_KEYS = tuple(r[0] for r in _ROWS)
"""The figures of a comparison, in the order an architect reads them."""


def _value(c: Column, key: str) -> float | None:
    """A row's number for deltas and charts (None: unknown or not a number)."""
    if key == "oversubscription":
        return _worst_over(c)
    raw = getattr(c, key)
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        return None
    return float(raw)


def rows(comp: Comparison) -> list[CompareRow]:
    """The figures of ``comp`` as rows (the days on a non-blocking fabric only
    when the estimate gives them)."""
    cols = comp.designs
    out: list[CompareRow] = []
    for key, label, text, better, sized in _ROWS:
        if key == "nonblocking_days" and all(c.nonblocking_days is None for c in cols):
            continue
        texts = tuple(
            text(c)
            if getattr(c, key) is not None
            else ("unknown" if key in c.unknown else "-")
            for c in cols
        )
        values = tuple(_value(c, key) for c in cols)
        out.append(CompareRow(key, label, values, texts, better, sized))
    return out


def delta(value: float | None, base: float | None) -> float | None:
    """Relative change of ``value`` against ``base`` (None when undefined)."""
    if value is None or base is None or base == 0 or not math.isfinite(base):
        return None
    return (value - base) / abs(base)


HEADER_WIDTH = 24
"""Column titles longer than this wrap onto more lines in the CLI table."""


def format_comparison(comp: Comparison, title: str = "") -> str:
    """The side-by-side table of ``cluster-designer compare``."""
    cols = comp.designs
    table = rows(comp)
    sized = len({c.gpus for c in cols}) > 1
    labels = [r.label + (" *" if sized and r.sized else "") for r in table]
    first = max([len(s) for s in labels] + [0]) + 2
    cells = [max([0] + [len(r.texts[i]) for r in table]) for i in range(len(cols))]
    heads = [
        textwrap.wrap(
            h,
            max(HEADER_WIDTH, cells[i]),
            break_on_hyphens=False,
            break_long_words=False,
        )
        or [""]
        for i, h in enumerate(headers(cols))
    ]
    widths = [max([cells[i]] + [len(x) for x in h]) + 2 for i, h in enumerate(heads)]
    lines = [title or f"Compare {len(cols)} designs: {comp.workload}"]
    lines.append("")
    for k in range(max(len(h) for h in heads) if heads else 0):
        line = "".join(
            (h[k] if k < len(h) else "").ljust(w)
            for h, w in zip(heads, widths, strict=True)
        )
        lines.append((" " * first + line).rstrip())
    for label, r in zip(labels, table, strict=True):
        row = "".join(t.ljust(w) for t, w in zip(r.texts, widths, strict=True))
        lines.append((label.ljust(first) + row).rstrip())
    if comp.notes:
        lines.append("")
        lines.append("Notes")
        lines.extend(_wrapped(n) for n in comp.notes)
    unknown = unknown_lines(comp, table)
    if unknown:
        lines.append("")
        lines.append("Unknown figures")
        lines.extend(_wrapped(u) for u in unknown)
    lines.append("")
    lines.append(_wrapped(FOOTNOTE, indent=""))
    return "\n".join(lines)


FOOTNOTE = (
    "All workload figures are estimates (cluster-designer estimate FILE lists every "
    "input and its source). $ per run: owned = the design's GPUs x days x 24 x the "
    "owned $ per busy GPU-hour; cloud = the GPUs used x days x 24 x the cloud rate."
)
TEXT_WIDTH = 100


def _wrapped(text: str, indent: str = "  ") -> str:
    return textwrap.fill(
        text,
        TEXT_WIDTH,
        initial_indent=indent,
        subsequent_indent=indent + "  ",
        break_on_hyphens=False,
        break_long_words=False,
    )


def unknown_lines(comp: Comparison, table: Sequence[CompareRow] = ()) -> list[str]:
    """Why figures are unknown, one line per design and reason (the figures
    named by their row labels; "no model given" is the notes' business)."""
    table = table or rows(comp)
    label = {r.key: r.label.strip() for r in table}
    out: list[str] = []
    for name, c in zip(headers(comp.designs), comp.designs, strict=True):
        by_reason: dict[str, list[str]] = {}
        for key, why in c.unknown.items():
            if key in label and why != "no model given":
                by_reason.setdefault(why, []).append(label[key])
        out.extend(
            f"{name}: {why} ({', '.join(keys)})" for why, keys in by_reason.items()
        )
    return out
