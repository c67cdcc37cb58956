"""The Workload panel shows the figures ``cluster-designer estimate --json``
gives, for every sample with a workload block (numbers, not strings)."""

from __future__ import annotations

from typing import Any

import pytest

from designer.qt.workload.results import PATH_ROLE, VALUE_ROLE
from tests.qt.workload.helpers import (
    SAMPLES,
    WITH_WORKLOAD,
    at,
    cli_json,
    close,
    open_sample,
    shown_number,
)


@pytest.mark.slow
def test_some_samples_have_a_workload_block() -> None:
    assert len(WITH_WORKLOAD) >= 3


@pytest.mark.slow
@pytest.mark.parametrize("name", WITH_WORKLOAD)
def test_panel_figures_equal_the_cli(qtbot: Any, main_window: Any, name: str) -> None:
    window = open_sample(qtbot, main_window, name)
    data = cli_json(SAMPLES / name)
    tree = window.workload_panel.tree
    assert set(tree.by_path) == set(data["figures"])  # every figure is shown
    compared = 0
    for path, item in tree.by_path.items():
        assert item.data(0, PATH_ROLE) == path
        exact = at(data, path)
        held = item.data(0, VALUE_ROLE)
        shown = shown_number(item.text(1), data["figures"][path]["unit"])
        if exact is None:
            assert held is None and shown is None, path
            assert data["unknown"][path] in item.text(1), path  # says why
            continue
        if isinstance(exact, bool):
            assert held is exact and shown is exact, path
        elif isinstance(exact, int | float):
            assert held == pytest.approx(exact, rel=1e-12), path
            assert isinstance(shown, float), (path, item.text(1))
            assert close(shown, exact), (path, item.text(1), exact)
            compared += 1
        else:
            assert held == exact and shown == exact, path
        fig = data["figures"][path]
        assert fig["source"] in item.toolTip(1), path
        assert item.text(1).startswith("≈") == fig["estimate"], path
    assert compared > 25
    # the answers at the top read the same numbers
    summary = window.workload_panel.summary_labels
    assert f"{data['gpus']:,} x" in summary["Job"].text()
    plan = data["parallelism"]
    if data["job"] == "inference":
        # the serving replica is an inference job's plan
        assert (
            summary["Replica"].text().startswith(f"TP {plan['tp']} x PP {plan['pp']}")
        )
    else:
        layout = f"TP {plan['tp']} x CP {plan['cp']} x PP {plan['pp']}"
        assert layout in summary["Plan"].text()
    if data["step"]["step_s"] is not None:  # the modelled step, MFU an output
        assert "MFU" in summary["Step"].text()
    # and the assumptions, each with its source
    assumptions = {
        str(tree.topLevelItem(i).child(j).data(0, PATH_ROLE)): tree.topLevelItem(
            i
        ).child(j)
        for i in range(tree.topLevelItemCount())
        for j in range(tree.topLevelItem(i).childCount())
        if str(tree.topLevelItem(i).child(j).data(0, PATH_ROLE)).startswith(
            "assumption."
        )
    }
    assert len(assumptions) == len(data["assumptions"])
    for a in data["assumptions"]:
        item = assumptions[f"assumption.{a['name']}"]
        assert item.data(0, VALUE_ROLE) == a["value"]
        assert a["source"] in item.toolTip(1)


@pytest.mark.slow
@pytest.mark.parametrize("name", WITH_WORKLOAD)
def test_findings_and_charts_follow_the_estimate(
    qtbot: Any, main_window: Any, name: str
) -> None:
    window = open_sample(qtbot, main_window, name)
    data = cli_json(SAMPLES / name)
    panel = window.workload_panel
    if data["findings"]:
        shown = [panel.findings.item(i).text() for i in range(panel.findings.count())]
        assert shown == [f["message"] for f in data["findings"]]
    charts = panel.charts
    if data["days"] is not None:
        used = data["parallelism"]["gpus_used"]
        assert charts.design_point == (used, pytest.approx(data["days"]))
        for n, days in charts.days:
            assert days == pytest.approx(data["days"] * used / n)
    else:
        assert charts.days == [] and charts.design_point is None
    tco = data["tco"]
    assert charts.breakeven == pytest.approx(tco["breakeven_utilization"])
    owned = tco["owned_usd_per_gpu_hour"]
    for u, per_busy_hour, cloud in charts.cost:
        assert per_busy_hour == pytest.approx(owned / u)
        assert cloud == pytest.approx(tco["cloud_usd_per_gpu_hour"])


def test_the_charts_are_drawn_when_their_tab_is_first_shown(
    qtbot: Any, main_window: Any
) -> None:
    """The Charts tab makes its plots the first time it is shown (most windows
    never open it); before, its figures and notes follow the estimate; when
    shown, the plots hold the days curve and point, the owned and cloud lines
    and the design's point, and they follow the next estimate."""
    from PySide6.QtWidgets import QApplication

    window = open_sample(qtbot, main_window, "dgx-h100-superpod-4su.json")
    panel = window.workload_panel
    charts = panel.charts
    assert charts.days_plot is None and charts.cost_plot is None
    assert charts.days and charts.design_point is not None  # the figures are there
    assert "this design" in charts.days_note.text()
    panel.tabs.setCurrentWidget(charts)
    QApplication.processEvents()
    assert charts.days_plot is not None and charts.cost_plot is not None
    days_items = charts.days_plot.getPlotItem().listDataItems()
    assert len(days_items) == 2  # the curve and the design's point
    xs, _ = days_items[0].getOriginalDataset()
    assert list(xs) == [float(n) for n, _ in charts.days]
    cost_items = charts.cost_plot.getPlotItem().listDataItems()
    assert len(cost_items) >= 2  # owned (and cloud) lines, the design's point
    charts.show_estimate(None)  # an estimate that has nothing to chart
    assert charts.days_plot.getPlotItem().listDataItems() == []
    assert charts.days == [] and charts.design_point is None
