"""One way to write money, bandwidth, ratios and counts."""

from __future__ import annotations

import math

import pytest

from designer.core import formatting as fmt


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "$0"),
        (999, "$999"),
        (8_500, "$8.50K"),
        (850_000, "$850K"),
        (2_500_000, "$2.50M"),
        (12_345_000, "$12.3M"),
        (40_470_000, "$40.5M"),
        (500_000_000, "$500M"),
        (1_204_000_000, "$1.20B"),
        (36_000_080_000, "$36.0B"),
        (-2_500_000, "-$2.50M"),
        (math.inf, "n/a (not a finite number)"),
        (math.nan, "n/a (not a finite number)"),
    ],
)
def test_usd(value: float, text: str) -> None:
    assert fmt.usd(value) == text


def test_exact_money_and_ranges() -> None:
    assert fmt.usd_exact(1_234_567.4) == "$1,234,567"
    assert fmt.usd_exact(math.inf) == fmt.NOT_A_NUMBER
    assert fmt.usd_range(5e6, 25e6) == "$5.00M–$25.0M"
    assert fmt.usd_range(5e5, 3e6) == "$500K–$3.00M"
    assert fmt.usd(4_050_000_000) == "$4.05B"
    assert fmt.gbps(20_000_000) == "20 Pb/s"
    assert fmt.usd_range(500e6, None) == "$500M+"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1, "1 Gb/s"),
        (400, "400 Gb/s"),
        (3_200, "3,200 Gb/s"),
        (51_200, "51.2 Tb/s"),
        (201_600, "201.6 Tb/s"),
    ],
)
def test_bandwidth(value: float, text: str) -> None:
    assert fmt.gbps(value) == text


def test_plurals_and_ratios() -> None:
    assert fmt.plural(1, "node") == "1 node"
    assert fmt.plural(2, "node") == "2 nodes"
    assert fmt.plural(12_500, "switch", "switches") == "12,500 switches"
    assert fmt.plural(0, "rail") == "0 rails"
    words = {"leaf": ("leaf", "leaves"), "spine": ("spine", "spines")}
    assert fmt.count_words({"leaf": 1, "spine": 16}, words) == "1 leaf, 16 spines"
    assert fmt.count_words({"leaf": 0}, words) == "none"
    assert fmt.ratio(2.0) == "2:1" and fmt.ratio(1.5) == "1.5:1"
    assert fmt.ratio(None) == "top tier"


@pytest.mark.parametrize(
    ("n", "word", "text"),
    [
        (1, "node", "1 node"),
        (0, "node", "0 nodes"),
        (1, "NVLink domain", "1 NVLink domain"),
        (2, "NVLink domain", "2 NVLink domains"),
        (1, "rail", "1 rail"),
        (3, "switch", "3 switches"),
        (2, "compute-fabric switch", "2 compute-fabric switches"),
        (32, "leaf", "32 leaves"),
        (2, "rack-scale system", "2 rack-scale systems"),
        (2, "SU", "2 SUs"),
        (2_048, "GPU", "2,048 GPUs"),
        (2, "entry", "2 entries"),
        (2, "day", "2 days"),
        (2, "box", "2 boxes"),
        (2, "info", "2 info"),
    ],
)
def test_plural_rules(n: int, word: str, text: str) -> None:
    assert fmt.plural(n, word) == text


def test_noun_keeps_the_word_for_one_and_takes_an_irregular_plural() -> None:
    assert fmt.noun(1, "cable") == "cable"
    assert fmt.noun(5, "cable") == "cables"
    assert fmt.noun(5, "person", "people") == "people"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "non-blocking"),
        (0.994140625, "non-blocking"),  # 32 x 400G down + one 200G UFM port
        (1.0059, "non-blocking"),
        (0.99, "non-blocking"),
        (1.01, "non-blocking"),
        (1.0101, "1.01:1"),
        (0.989, "0.989:1"),
        (0.5, "0.5:1"),
        (1.5, "1.5:1"),
        (2.0, "2:1"),
        (None, "top tier"),
        (math.inf, "n/a (not a finite number)"),
    ],
)
def test_ratio_reads_non_blocking_within_one_percent(
    value: float | None, text: str
) -> None:
    assert fmt.ratio(value) == text
    assert fmt.is_non_blocking(value) is (text == "non-blocking")


def test_exact_ratio_keeps_the_figures() -> None:
    assert fmt.ratio_exact(0.994140625) == "0.994:1"
    assert fmt.ratio_exact(None, top="–") == "–"


@pytest.mark.parametrize(
    ("days", "text"),
    [
        (5 / 1440, "5 min"),
        (0.00352, "5.07 min"),
        (30 / 86_400, "30 s"),
        (0.4, "9.6 h"),
        (1.5, "36 h"),
        (2.5, "2.50 days"),
        (63.24, "63.2 days"),
        (1234.4, "1,234 days"),
        (math.nan, "n/a (not a finite number)"),
    ],
)
def test_a_duration_reads_in_the_unit_that_fits(days: float, text: str) -> None:
    """Issue 16 item 9: a 5-minute job reads "5.07 min", not "0.00352 days"."""
    assert fmt.duration(days) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [(1.5e13, "15T"), (4_194_304, "4.19M"), (70.6e9, "70.6B"), (8192, "8,192")],
)
def test_counts_read_as_architects_say_them(value: float, text: str) -> None:
    assert fmt.count(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [(52_376_496, "$52.4M"), (2.25, "$2.25"), (3120.4, "$3,120"), (39823.44, "$39.8K")],
)
def test_money_in_three_figures_above_ten_thousand(value: float, text: str) -> None:
    assert fmt.money(value) == text


def test_the_workload_text_uses_the_one_formatter() -> None:
    """The CLI text, the panel and the PDF format workload figures through
    designer.core.formatting: days, money and token counts."""
    from designer.workload.result import Row
    from designer.workload.text import format_value

    def row(path: str, value: float, unit: str) -> Row:
        return Row(path, path, value, unit, "s", False, None)

    assert format_value(row("days", 0.00352, "days")) == "5.07 min"
    assert format_value(row("tco.total_usd.owned_3y", 52_376_496, "USD")) == "$52.4M"
    assert format_value(row("step.tokens", 1.5e13, "tokens")) == "15T tokens"
    assert format_value(row("gpu_hours", 3.81e6, "GPU-h")) == "3.81M GPU-h"
