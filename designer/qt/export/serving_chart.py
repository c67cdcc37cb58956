"""The report's serving chart: output tokens/s per GPU against TPOT over the
batch sweep of the chosen replica, the TPOT limit and the chosen batch marked
(the Workload panel's Serving chart, from the same points)."""

from __future__ import annotations

import math

from PySide6.QtGui import QColor

from designer.qt.export.workload_charts import MARK, Chart
from designer.view.workload.serving import sweep_series
from designer.workload import Estimate
from designer.workload.serving_estimate import limit_text

SWEEP = QColor("#4a7fb5")
"""The sweep, as the panel's Serving chart draws it."""
MISS = QColor("#b8c1ca")
"""Points over a latency limit (grey, as in the panel)."""


def serving_chart(est: Estimate) -> Chart | None:
    """Throughput vs latency of the batch sweep (None: not an inference job)."""
    series = sweep_series(est)
    if series is None or not series.points:
        return None
    xs = [p[0] for p in series.points if p[0] > 0]
    ys = [p[1] for p in series.points]
    if not xs:
        return None
    lo, hi = min(xs), max(xs)
    if series.tpot_limit_ms is not None:
        lo, hi = min(lo, series.tpot_limit_ms), max(hi, series.tpot_limit_ms)
    chart = Chart(
        "Throughput vs latency, batch sweep (estimate)",
        "TPOT, ms (log)",
        "tokens/s per GPU",
        (10 ** math.floor(math.log10(lo)), 10 ** math.ceil(math.log10(hi))),
        (0.0, max(ys) * 1.1 or 1.0),
        x_log=True,
    )
    chart.lines.append(([(p[0], p[1]) for p in series.points], SWEEP, "sweep"))
    for x, y, _, ok in series.points:
        if not ok:
            chart.dots.append((x, y, MISS, ""))
    if series.tpot_limit_ms is not None:
        chart.verticals.append(
            (
                series.tpot_limit_ms,
                MARK,
                f"TPOT limit {limit_text(series.tpot_limit_ms)} ms",
            )
        )
    if series.chosen is not None:
        inf = est.inference
        assert inf is not None
        chart.dots.append((*series.chosen, MARK, f"chosen batch {inf.replica.batch:,}"))
    return chart
