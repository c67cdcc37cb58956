"""Owned vs cloud cost per GPU-hour from the design's capex and power."""

from __future__ import annotations

from designer.workload import facts
from designer.workload.fabric import DesignFacts
from designer.workload.formulas import (
    HOURS_PER_YEAR,
    breakeven_utilization,
    owned_usd_per_gpu_hour,
)
from designer.workload.inputs import Ledger
from designer.workload.result import CloudRateOut, Tco, TotalUsd


def tco_figures(d: DesignFacts, led: Ledger) -> Tco:
    """Owned cost (full use, workload.md §6), cloud rate, break-even, totals."""
    gpus = d.gpus
    years = float(led.pick("years", facts.YEARS))
    util = float(led.pick("utilization", facts.UTILIZATION))
    pue = float(led.pick("pue", facts.PUE))
    price = float(led.pick("usd_per_kwh", facts.USD_PER_KWH))
    ops = float(led.pick("ops_usd_per_gpu_hour", facts.OPS_USD_PER_GPU_HOUR))
    capex: float | None = led.given("capex_per_gpu")
    if capex is not None:
        led.note(
            "capex_per_gpu",
            capex,
            "USD",
            "as given",
            False,
            led.origin("capex_per_gpu") or "",
        )
    elif gpus:
        capex = d.capex_usd / gpus
        led.note(
            "capex_per_gpu",
            capex,
            "USD",
            "the design's capex build-up / GPUs (validator cost lines"
            + ("; catalog prices are estimates" if d.capex_estimate else "")
            + ")",
            d.capex_estimate,
            "design",
        )
    kw = d.power_kw / gpus if gpus else None
    if kw is not None:
        led.note(
            "kw_per_gpu",
            kw,
            "kW",
            "the design's maximum power (servers, switches, storage) / GPUs",
            True,
            "design",
        )
    owned = None
    if capex is not None and kw is not None:
        owned = owned_usd_per_gpu_hour(capex, years, kw, pue, price, ops)
    else:
        led.why("tco.owned_usd_per_gpu_hour", "the design has no GPUs")
    family = facts.GPU_FAMILY.get(d.gpu_model or "", None)
    rates = _rates(led, family)
    cloud = led.given("cloud_usd_per_gpu_hour")
    if cloud is not None:
        led.note(
            "cloud_usd_per_gpu_hour",
            cloud,
            "USD/GPU-h",
            "as given",
            False,
            led.origin("cloud_usd_per_gpu_hour") or "",
        )
    else:
        match = [
            r for r in rates if r[1] is None or (family is not None and r[1] == family)
        ]
        if match:
            cloud = match[0][0].usd_per_gpu_hour
            led.note(
                "cloud_usd_per_gpu_hour",
                cloud,
                "USD/GPU-h",
                f"{match[0][0].name}: {match[0][0].source}",
                True,
                "default",
            )
        else:
            led.why(
                "tco.cloud_usd_per_gpu_hour",
                f"no cloud reference rate for {d.gpu_model or 'these GPUs'}; give "
                "the cloud rate per GPU-hour",
            )
    breakeven = None
    if owned is not None and cloud is not None:
        breakeven = breakeven_utilization(owned, cloud)
    else:
        led.why("tco.breakeven_utilization", "needs the owned and the cloud rate")
    refs = [
        CloudRateOut(
            name=r.name,
            usd_per_gpu_hour=r.usd_per_gpu_hour,
            source=r.source,
            date=r.date,
            breakeven_utilization=(
                breakeven_utilization(owned, r.usd_per_gpu_hour)
                if owned is not None
                and (gpu is None or (family is not None and gpu == family))
                else None
            ),
        )
        for r, gpu in rates
    ]
    hours = HOURS_PER_YEAR * gpus

    def owned_total(y: float) -> float | None:
        if capex is None or kw is None:
            return None
        return float(capex * gpus + y * hours * (kw * pue * price + ops))

    def cloud_total(y: float) -> float | None:
        return None if cloud is None else y * hours * util * cloud

    if cloud is None:
        for y in (3, 5):
            led.why(f"tco.total_usd.cloud_{y}y", "no cloud rate")
    if owned is None:
        for y in (3, 5):
            led.why(f"tco.total_usd.owned_{y}y", "the design has no GPUs")
        led.why("tco.owned_usd_per_used_gpu_hour", "the design has no GPUs")
        led.why("tco.capex_per_gpu", "the design has no GPUs")
        led.why("tco.kw_per_gpu", "the design has no GPUs")
    cheaper = None
    if owned is not None and cloud is not None:
        cheaper = "owned" if owned < util * cloud else "cloud"
    return Tco(
        capex_per_gpu=capex,
        kw_per_gpu=kw,
        owned_usd_per_gpu_hour=owned,
        owned_usd_per_used_gpu_hour=None if owned is None else owned / util,
        cloud_usd_per_gpu_hour=cloud,
        breakeven_utilization=breakeven,
        years=years,
        utilization=util,
        total_usd=TotalUsd(
            owned_3y=owned_total(3),
            owned_5y=owned_total(5),
            cloud_3y=cloud_total(3),
            cloud_5y=cloud_total(5),
        ),
        cloud_reference_rates=refs,
        cheaper=cheaper,
    )


class _Rate:
    """A reference rate, built-in or from the workload block."""

    def __init__(self, name: str, usd: float, source: str, date: str | None) -> None:
        self.name = name
        self.usd_per_gpu_hour = usd
        self.source = source
        self.date = date


def _rates(led: Ledger, family: str | None) -> list[tuple[_Rate, str | None]]:
    """The reference table: the workload's own rates, else the built-in ones."""
    table = led.given("cloud_rates")
    if table is not None:
        return [
            (_Rate(r.name, r.usd_per_gpu_hour, r.source, r.date), r.gpu) for r in table
        ]
    return [
        (_Rate(r.name, r.usd_per_gpu_hour, r.source, r.date), r.gpu)
        for r in facts.CLOUD_RATES
    ]
