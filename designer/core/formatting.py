"""How numbers read, everywhere: money, bandwidth, ratios and counts with plurals.

One module for the CLI summary, the window and the PDF report, so a figure
reads the same wherever it is shown ("$12.3M", "201.6 Tb/s", "1 node",
"2 nodes", "non-blocking"). Non-finite values never reach text as "inf" or
"nan": they read "n/a (not a finite number)". The JSON report keeps the
numbers as computed; only their text is rounded here.
"""

from __future__ import annotations

import math
import re

NOT_A_NUMBER = "n/a (not a finite number)"

#: A down:up ratio this close to 1:1 reads "non-blocking": one 200G UFM port on
#: a leaf of 32 x 400G downlinks moves the ratio by under 1 % (0.994:1), which
#: reads as a fault when it is none. The report's numbers stay exact.
NON_BLOCKING_TOLERANCE = 0.01
NON_BLOCKING = "non-blocking"

#: Plurals the -s / -es / -ies rules get wrong, by the last word of the noun.
_IRREGULAR = {
    "leaf": "leaves",
    "chassis": "chassis",
    "series": "series",
    "info": "info",
    "hardware": "hardware",
    "storage": "storage",
    "management": "management",
}
_ES = re.compile(r"(s|x|z|ch|sh)$")
_IES = re.compile(r"[^aeiou]y$")


def noun(n: int, word: str, many: str | None = None) -> str:
    """``word`` as it reads after the number ``n``: ``node`` / ``nodes``.

    The last word of a phrase takes the plural ("NVLink domain" -> "NVLink
    domains", "compute-fabric switch" -> "compute-fabric switches"); ``many``
    gives an irregular plural the rules do not know. Upper-case abbreviations
    take a plain ``s`` ("SU" -> "SUs", "GPU" -> "GPUs").
    """
    if n == 1:
        return word
    if many is not None:
        return many
    head, sep, last = word.rpartition(" ")
    if not last:
        return word
    lower = last.lower()
    if lower in _IRREGULAR:
        plural_last = _IRREGULAR[lower]
    elif last.isupper() or last[-1].isdigit():
        plural_last = last + "s"
    elif _ES.search(lower):
        plural_last = last + "es"
    elif _IES.search(lower):
        plural_last = last[:-1] + "ies"
    else:
        plural_last = last + "s"
    return f"{head}{sep}{plural_last}"


def verb(n: int, one: str, many: str) -> str:
    """The verb form that agrees with ``n``: ``verb(1, "has", "have")``."""
    return one if n == 1 else many


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 node``, ``2 nodes``, ``12,500 switches`` (``many``: an irregular plural)."""
    return f"{n:,} {noun(n, word, many)}"


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


def quantity(value: float) -> str:
    """A rate or count in three significant figures with thousands grouped:
    "1,900", "31,300", "2.45", "0.125" (requests/s, tokens/s, ms)."""
    if not math.isfinite(value):
        return NOT_A_NUMBER
    if value == 0:
        return "0"
    digits = 3 - math.floor(math.log10(abs(value))) - 1
    rounded = round(value, digits)
    if abs(rounded) >= 100:
        return f"{rounded:,.0f}"
    return f"{rounded:,.{max(digits, 0)}f}"


def is_non_blocking(value: float | None) -> bool:
    """Whether a down:up ratio reads as non-blocking (within 1 % of 1:1)."""
    return (
        value is not None
        and math.isfinite(value)
        # the epsilon: 0.99 and 1.01 themselves are within 1 % in floating point
        and abs(value - 1.0) <= NON_BLOCKING_TOLERANCE + 1e-12
    )


def ratio(value: float | None, top: str = "top tier") -> str:
    """Down:up ratio as "2:1", "1.5:1", "0.5:1"; "non-blocking" within 1 % of
    1:1; ``top`` when there is no uplink."""
    if value is None:
        return top
    if not math.isfinite(value):
        return NOT_A_NUMBER
    if is_non_blocking(value):
        return NON_BLOCKING
    return f"{value:.3g}:1"


def ratio_exact(value: float | None, top: str = "top tier") -> str:
    """The ratio to three figures even near 1:1 ("0.994:1"): tooltips, details."""
    if value is None:
        return top
    if not math.isfinite(value):
        return NOT_A_NUMBER
    return f"{value:.3g}:1"


def number(value: float) -> str:
    """A measured quantity to about three figures: "0", "0.0035", "2.50",
    "12.3", "1,418", "39,823"; huge values in powers of ten ("4.2e+22")."""
    if not math.isfinite(value):
        return NOT_A_NUMBER
    x = abs(value)
    if x == 0:
        return "0"
    if x >= 1e15:
        return f"{value:.3g}"
    if x >= 100 or float(value).is_integer():
        return f"{value:,.0f}"  # a whole number reads whole: "8", not "8.00"
    if x >= 10:
        return f"{value:,.1f}"
    if x >= 1:
        return f"{value:,.2f}"
    return f"{value:.3g}"


_SCALES = (("T", 1e12), ("B", 1e9), ("M", 1e6))


def count(value: float) -> str:
    """A large count the way architects say it: "15T", "4.19M", "70.6B";
    below a million with separators ("8,192"); beyond 1,000T in powers of ten."""
    if not math.isfinite(value):
        return NOT_A_NUMBER
    x = abs(value)
    if x >= 1e15:
        return f"{value:.3g}"
    for suffix, scale in _SCALES:
        if x >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:,.0f}" if x >= 1 or x == 0 else f"{value:.3g}"


def duration(days: float) -> str:
    """A duration given in days, in the unit that reads: "45 s", "5.07 min",
    "3.20 h", "1.50 days", "63.2 days", "1,234 days"."""
    if not math.isfinite(days):
        return NOT_A_NUMBER
    seconds = days * 86_400.0
    if abs(seconds) < 120:
        return f"{seconds:.3g} s"
    if abs(seconds) < 7_200:
        return f"{seconds / 60:.3g} min"
    if abs(days) < 2:
        return f"{seconds / 3600:.3g} h"
    return f"{number(days)} days"


def money(value: float) -> str:
    """A figure in USD: cents below $100 ("$2.50", an hourly rate), whole
    dollars below $10K ("$3,120"), else three figures ("$52.4M")."""
    if not math.isfinite(value):
        return NOT_A_NUMBER
    if abs(value) < 100:
        return f"${value:,.2f}" if value >= 0 else f"-${-value:,.2f}"
    if abs(value) < 1e4:
        return f"${value:,.0f}" if value >= 0 else f"-${-value:,.0f}"
    return usd(value)


def kw(value: float) -> str:
    """Power in kW: "10.2 kW", "1,418 kW"."""
    if not math.isfinite(value):
        return NOT_A_NUMBER
    return f"{value:,.1f} kW" if value < 1000 else f"{value:,.0f} kW"


__all__ = [
    "NON_BLOCKING",
    "NON_BLOCKING_TOLERANCE",
    "NOT_A_NUMBER",
    "count",
    "count_words",
    "duration",
    "gbps",
    "is_non_blocking",
    "kw",
    "money",
    "noun",
    "number",
    "plural",
    "ratio",
    "ratio_exact",
    "usd",
    "usd_exact",
    "usd_range",
    "verb",
]


#: How a switch count's key (the report's ``switches``) reads in text: a tier,
#: the fabric an untiered switch serves, or what keeps it out of the tiers.
SWITCH_WORDS = {
    "leaf": ("leaf", "leaves"),
    "spine": ("spine", "spines"),
    "core": ("core", "core"),
    "compute": ("off-path", "off-path"),
    "storage": ("storage", "storage"),
    "inband": ("in-band", "in-band"),
    "oob": ("out-of-band", "out-of-band"),
    "unwired": ("unwired", "unwired"),
    "other": ("other", "other"),
}
OFF_PATH_NOTE = (
    "off-path: on the compute fabric but on no path between two compute nodes "
    "(it hangs off one switch), so it has no tier and no part in the bisection"
)


def switch_counts(values: dict[str, int]) -> str:
    """'1 leaf, 1 off-path, 2 unwired' from the report's switch counts."""
    out = []
    for key, n in values.items():
        if n:
            one, many = SWITCH_WORDS.get(key, (key, key))
            out.append(f"{n:,} {one if n == 1 else many}")
    return ", ".join(out)


CABLE_LANES_NOTE = "cables count lanes: a breakout splitter counts once per leg"
"""What the design's, the report's, the BOM's and the CLI's cable counts count.

One cable per link lane (a link's ``cables``); the NetBox export and NetBox
count physical cables, where a splitter is one (its lanes' sum is these counts).
"""
