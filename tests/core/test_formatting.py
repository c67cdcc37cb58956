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
