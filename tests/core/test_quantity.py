"""``formatting.quantity``: rates and counts in three significant figures, the
way the serving figures read in the panel, the PDF and the findings."""

from __future__ import annotations

import math

import pytest

from designer.core.formatting import NOT_A_NUMBER, quantity


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1899.6, "1,900"),
        (31_302.7, "31,300"),
        (807_312.4, "807,000"),
        (2.449, "2.45"),
        (0.1254, "0.125"),
        (12.5, "12.5"),
        (99.96, "100"),
        (5, "5.00"),
        (0, "0"),
        (-1234.5, "-1,230"),
    ],
)
def test_three_significant_figures(value: float, text: str) -> None:
    assert quantity(value) == text


def test_not_a_number() -> None:
    assert quantity(math.inf) == NOT_A_NUMBER
    assert quantity(math.nan) == NOT_A_NUMBER
