"""The charts panel keeps its bar items and gives them each report's values."""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg

from designer.analysis import analyze
from designer.analysis.report import Report
from designer.core.model import Design
from designer.generate import fat_tree
from designer.qt.charts import COST_CATEGORIES, ChartsPanel


def _bars(plot: pg.PlotWidget) -> list[pg.BarGraphItem]:
    return [i for i in plot.getPlotItem().items if isinstance(i, pg.BarGraphItem)]


def _check(panel: ChartsPanel, report: Report) -> None:
    """What the panel draws is what the report says (not what it drew last)."""
    cost = report.cost_usd
    scale = {"thousands": 1e3, "millions": 1e6, "billions": 1e9}[panel.cost_unit]
    want = [getattr(cost, k) / scale for k, _ in COST_CATEGORIES]
    (cost_bars,) = _bars(panel.cost_plot)
    assert list(cost_bars.opts["width"]) == want
    assert panel.cost_plot.getPlotItem().titleLabel.text.endswith(
        f"(USD {panel.cost_unit})"
    )
    tier_bars = _bars(panel.tier_plot)
    if not report.tiers:
        assert tier_bars == []
        return
    down, up = tier_bars
    names = list(panel.tier_values)
    assert set(names) == set(report.tiers)
    assert list(down.opts["height"]) == [report.tiers[n].down_gbps / 1e3 for n in names]
    assert list(up.opts["height"]) == [report.tiers[n].up_gbps / 1e3 for n in names]
    assert len(down.opts["x"]) == len(names)
    ticks = panel.tier_plot.getAxis("bottom")._tickLevels[0]
    assert [label.split("\n")[0] for _, label in ticks] == names


def test_bars_follow_reports_of_other_shapes_and_back(qtbot: Any) -> None:
    panel = ChartsPanel()
    qtbot.addWidget(panel)
    two_tier = analyze(fat_tree("dgx-h100", 32, "qm9700"))
    three_tier = analyze(fat_tree("dgx-h100", 256, "qm9700", tiers=3))
    oversubscribed = analyze(
        fat_tree("dgx-h100", 256, "qm9700", oversubscription=(2.0,))
    )
    empty = analyze(Design())
    assert len(two_tier.tiers) < len(three_tier.tiers)
    for report in (two_tier, three_tier, oversubscribed, two_tier, empty, three_tier):
        panel.show_report(report)
        _check(panel, report)
        # one set of bar items, whatever came before
        assert len(_bars(panel.cost_plot)) == 1
    assert panel.tier_values["leaf"][1] != 0
    panel.show_report(None)
    assert _bars(panel.cost_plot) == [] and _bars(panel.tier_plot) == []
    assert panel.cost_values == [] and panel.tier_values == {}
    panel.show_report(oversubscribed)
    _check(panel, oversubscribed)


def test_an_equal_report_leaves_the_bars_alone(qtbot: Any) -> None:
    panel = ChartsPanel()
    qtbot.addWidget(panel)
    design = fat_tree("dgx-h100", 32, "qm9700")
    panel.show_report(analyze(design))
    (cost_bars,) = _bars(panel.cost_plot)
    calls: list[dict[str, Any]] = []
    cost_bars.setOpts = lambda **opts: calls.append(opts)  # type: ignore[method-assign]
    panel.show_report(analyze(design))  # the same figures: nothing to draw
    assert calls == []
    panel.show_report(analyze(fat_tree("dgx-h100", 64, "qm9700")))
    assert len(calls) == 1 and "width" in calls[0]
