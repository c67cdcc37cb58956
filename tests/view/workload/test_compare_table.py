"""The compare dialog's cells and bars (designer.view.workload.compare_table), no Qt."""

from __future__ import annotations

from functools import cache

import pytest

from designer.core import formatting as fmt
from designer.core.workload import Workload
from designer.view.workload.compare_table import bars, table
from designer.workload.compare import Column, compare, comparison
from tests.workload.conftest import dgx_tree


@cache
def _base() -> str:
    comp = compare([("a.json", dgx_tree(16))], overrides=Workload(model="llama3-8b"))
    return comp.designs[0].model_dump_json()


def base() -> Column:
    return Column.model_validate_json(_base())


def cells_of(t: object, key: str) -> list[object]:
    return t.cells[t.keys.index(key)]  # type: ignore[attr-defined]


def test_changes_against_the_first_design_and_which_way_is_better() -> None:
    a = base()
    assert a.days is not None and a.bisection_ratio is not None
    b = a.model_copy(
        update={
            "file": "b.json",
            "days": a.days * 1.1,
            "cost_usd": a.cost_usd * 0.9,
            "bisection_ratio": a.bisection_ratio / 2,
            "tokens_per_s": None,
            "unknown": {"tokens_per_s": "no token count"},
        }
    )
    t = table(comparison([a, b]))
    assert t.headers == ["a", "b"]
    days = cells_of(t, "days")
    assert days[0].change == "" and days[0].verdict == ""  # type: ignore[attr-defined]
    assert days[1].change == "+10.0%" and days[1].verdict == "worse"  # type: ignore[attr-defined]
    cost = cells_of(t, "cost_usd")[1]
    assert cost.change == "-10.0%" and cost.verdict == "better"  # type: ignore[attr-defined]
    ratio = cells_of(t, "bisection_ratio")[1]
    # a ratio's change is coloured, not given as a percentage of a percentage
    assert ratio.change == "" and ratio.verdict == "worse"  # type: ignore[attr-defined]
    tokens = cells_of(t, "tokens_per_s")[1]
    assert tokens.text == "unknown" and tokens.tip == "no token count"  # type: ignore[attr-defined]
    same = cells_of(t, "gpus")[1]
    assert same.change == "" and same.verdict == ""  # type: ignore[attr-defined]
    assert not any(t.sized)  # same GPU count


def test_rows_that_scale_with_size_are_marked_when_gpu_counts_differ() -> None:
    a = base()
    b = a.model_copy(update={"file": "b.json", "gpus": a.gpus * 2})
    t = table(comparison([a, b]))
    sized = dict(zip(t.keys, t.sized, strict=True))
    assert sized["gpus"] and sized["days"] and sized["cost_usd"]
    assert not sized["usd_per_run_owned"] and not sized["cost_per_gpu_usd"]


def test_bars_are_the_columns_figures() -> None:
    a = base()
    b = a.model_copy(update={"file": "b.json", "days": None, "usd_per_run_owned": None})
    chart = bars(comparison([a, b]))
    assert chart.names == ["a", "b"]
    assert chart.days == [a.days, None]
    assert chart.owned == [a.usd_per_run_owned, None]
    assert chart.cloud == [a.usd_per_run_cloud, a.usd_per_run_cloud]
    assert not chart.empty
    assert bars(comparison([b])).empty


@pytest.mark.parametrize(
    ("files", "shown"),
    [
        (["x/a.json", "y/b.json"], ["a", "b"]),
        (["x/a.json", "y/a.json"], ["x/a.json", "y/a.json"]),
        (["a.json", "a.json (leaf uplinks 2:1)"], ["a", "a (leaf uplinks 2:1)"]),
    ],
)
def test_headers_are_short_unless_they_would_read_the_same(
    files: list[str], shown: list[str]
) -> None:
    cols = [base().model_copy(update={"file": f}) for f in files]
    assert table(comparison(cols)).headers == shown


def test_the_workload_summary_gives_the_fabrics_price_when_the_estimate_has_it() -> (
    None
):
    """Issue 17: "on a non-blocking fabric of the same GPUs: N days", a line of
    the panel's summary (and the report page) once the estimate gives it."""
    from designer.view.workload.summary import fabric_price, summary
    from designer.workload import estimate
    from designer.workload.variants import apply_variant

    tree = dgx_tree(64)
    real = estimate(tree, overrides=Workload(model="llama3-8b", tokens=1e12))
    assert real.nonblocking_days is not None  # the step model gives it
    unknown = real.model_copy(update={"nonblocking_days": None})
    assert fabric_price(unknown) is None  # not given: no line
    moe = Workload(model="mixtral-8x7b", tokens=1e12, ep=8)  # all-to-all up the leaves
    flat = estimate(tree, overrides=moe)
    line = fabric_price(flat)
    assert line is not None and "this fabric costs no time" in line.text
    assert line in summary(flat)
    slow = estimate(apply_variant(tree, "leaf-4:1")[0], overrides=moe)
    line = fabric_price(slow)
    assert line is not None
    ideal = fmt.duration(slow.nonblocking_days)  # the one formatter's days
    assert f"{ideal} on a non-blocking fabric" in line.text
    assert "this fabric adds" in line.text and "(+" in line.text
