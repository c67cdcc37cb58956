"""The panel's fields read counts as ``cluster-designer estimate`` does, and
show set values so that they read back the same."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.cli.estimate_cmd import parse_count
from designer.core.workload import Workload
from designer.view.workload.fields import BY_NAME, FieldError, display, parse, updated

PARAMS = BY_NAME["params"]


@pytest.mark.parametrize("text", ["405e9", "15.6e12", "70B", "15.6T", "4M", "8k", "7"])
def test_counts_read_as_the_cli_reads_them(text: str) -> None:
    assert parse(PARAMS, text) == parse_count(text)


@given(st.floats(min_value=1, max_value=1e15, allow_nan=False))
def test_a_shown_count_reads_back_the_same(value: float) -> None:
    assert parse(PARAMS, display(PARAMS, value)) == pytest.approx(value, rel=1e-11)


def test_shares_whole_numbers_and_errors() -> None:
    assert parse(BY_NAME["mfu"], "40%") == pytest.approx(0.4)
    assert parse(BY_NAME["mfu"], " ") is None
    assert parse(BY_NAME["layers"], "8k") == 8000
    with pytest.raises(FieldError, match="Layers: expected a whole number"):
        parse(BY_NAME["layers"], "80.5")
    with pytest.raises(FieldError, match="PUE: expected a number"):
        parse(BY_NAME["pue"], "12%")
    with pytest.raises(FieldError, match="MFU: input should be less than or equal"):
        updated(Workload(model="llama3-8b"), mfu=1.5)
    block = updated(Workload(model="llama3-8b", mfu=0.5), mfu=None, years=4)
    assert block == Workload(model="llama3-8b", years=4)
