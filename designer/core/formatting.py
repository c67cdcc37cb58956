"""How numbers read, everywhere: money, bandwidth, ratios and counts with plurals.

One module for the CLI summary, the window and the PDF report, so a figure
reads the same wherever it is shown ("$12.3M", "201.6 Tb/s", "1 node",
"2 nodes"). Non-finite values never reach text as "inf" or "nan": they read
"n/a (not a finite number)".
"""

from __future__ import annotations

import math

NOT_A_NUMBER = "n/a (not a finite number)"


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 node``, ``2 nodes``, ``12,500 nodes`` (``many``: an irregular plural)."""
    return f"{n:,} {word if n == 1 else many or word + 's'}"


def count_words(values: dict[str, int], words: dict[str, tuple[str, str]]) -> str:
    """``32 leaves, 16 spines`` from counts by key and (one, many) words per key."""
    shown = [plural(v, *words[k]) for k, v in values.items() if v]
    return ", ".join(shown) if shown else "none"


def _three(value: float) -> str:
    """Three significant figures, trailing zeros kept: 2.50, 12.3, 500."""
    if value < 10:
        return f"{value:.2f}"
    return f"{value:.1f}" if value < 100 else f"{value:,.0f}"


def usd(value: float) -> str:
    """Money in three significant figures: "$850K", "$2.50M", "$12.3M", "$1.20B"."""
    if not math.isfinite(value):
        return NOT_A_NUMBER
    sign = "-" if value < 0 else ""
    v = abs(value)
    if v >= 1e9:
        return f"{sign}${_three(v / 1e9)}B"
    if v >= 1e6:
        return f"{sign}${_three(v / 1e6)}M"
    if v >= 1e3:
        return f"{sign}${_three(v / 1e3)}K"
    return f"{sign}${v:.0f}"


def usd_exact(value: float) -> str:
    """Money to the dollar: "$1,234,567" (tables, the bill of materials)."""
    return NOT_A_NUMBER if not math.isfinite(value) else f"${value:,.0f}"


def usd_range(low: float, high: float | None) -> str:
    """A typical cost range; open-ended when ``high`` is None."""
    return f"{usd(low)}+" if high is None else f"{usd(low)}–{usd(high)}"


def gbps(value: float) -> str:
    """Bandwidth given in Gb/s: "800 Gb/s", "3,200 Gb/s", "51.2 Tb/s", "3.28 Pb/s"."""
    if not math.isfinite(value):
        return NOT_A_NUMBER
    if value >= 1e6:
        return f"{value / 1e6:,.3g} Pb/s"
    if value >= 1e4:
        return f"{value / 1e3:,.4g} Tb/s"
    return f"{value:,.0f} Gb/s" if value >= 10 else f"{value:.3g} Gb/s"


def ratio(value: float | None, top: str = "top tier") -> str:
    """Down:up ratio as "2:1", "1.5:1"; ``top`` when there is no uplink."""
    if value is None:
        return top
    if not math.isfinite(value):
        return NOT_A_NUMBER
    return f"{value:.3g}:1"


def kw(value: float) -> str:
    """Power in kW: "10.2 kW", "1,418 kW"."""
    if not math.isfinite(value):
        return NOT_A_NUMBER
    return f"{value:,.1f} kW" if value < 1000 else f"{value:,.0f} kW"


__all__ = [
    "NOT_A_NUMBER",
    "count_words",
    "gbps",
    "kw",
    "plural",
    "ratio",
    "usd",
    "usd_exact",
    "usd_range",
]
