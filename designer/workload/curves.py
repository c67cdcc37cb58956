"""Chart series from an estimate: days vs GPU count, owned vs cloud vs utilisation.

Both follow from the estimate's own figures (no new assumptions), so a panel's
charts and a report page's agree with its numbers.
"""

from __future__ import annotations

from designer.workload.result import Estimate


def days_vs_gpus(est: Estimate, counts: list[int]) -> list[tuple[int, float]]:
    """Training days at other GPU counts: days scale as 1 / GPUs at the same
    MFU (workload.md §2). Empty when the estimate has no training time."""
    if est.days is None or est.parallelism.gpus_used <= 0:
        return []
    base = est.days * est.parallelism.gpus_used
    return [(n, base / n) for n in counts if n > 0]


def cost_vs_utilization(
    est: Estimate, points: list[float]
) -> list[tuple[float, float, float | None]]:
    """(utilisation, owned USD per busy GPU-hour, cloud USD per GPU-hour): owning
    costs the same every hour, so per busy hour it is owned / utilisation; the
    cloud bills busy hours only. Empty when the owned cost is unknown."""
    owned = est.tco.owned_usd_per_gpu_hour
    if owned is None:
        return []
    cloud = est.tco.cloud_usd_per_gpu_hour
    return [(u, owned / u, cloud) for u in points if 0 < u <= 1]
