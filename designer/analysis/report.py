"""The analysis report: the one set of numbers the panel, CLI and exports all show.

``Report.model_dump(mode="json")`` is the documented, stable ``validate --json``
format (see README "Validation report").
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class Severity(StrEnum):
    """How bad a finding is."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Finding(_Out):
    """Something an architect can act on; ``code`` is stable across releases."""

    code: str
    severity: Severity
    message: str
    items: list[str] = Field(
        default_factory=list, description="device and link ids involved"
    )


class Bisection(_Out):
    """Bisection bandwidth of the compute fabric (a capacity cut, Gb/s one direction).

    ``gbps`` is the best known cut (the upper bound); ``exact`` is true when the
    lower bound meets it. ``ratio`` = gbps / (injection of the smaller half);
    None when there is no bisection (fewer than two compute nodes) or no
    injection to compare with.
    ``side_a``/``side_b`` list the device ids of the cut reaching ``upper_gbps``;
    ``cut_links`` the link ids crossing it.
    """

    gbps: float
    ratio: float | None
    exact: bool
    lower_gbps: float
    upper_gbps: float
    full_gbps: float = Field(description="what a non-blocking fabric would give")
    method: str = Field(description="how the bounds were obtained, in words")
    side_a: list[str] = Field(default_factory=list)
    side_b: list[str] = Field(default_factory=list)
    cut_links: list[str] = Field(default_factory=list)


class TierOversubscription(_Out):
    """Down vs up capacity of one switch tier (compute fabric)."""

    switches: int
    down_gbps: float
    up_gbps: float
    ratio: float | None = Field(
        description="down/up; None for the top tier (no uplinks)"
    )
    worst_ratio: float | None = None
    ports_used: int = 0
    ports_total: int = 0


class CostLine(_Out):
    """One line of the bill of materials behind the cost."""

    category: str
    catalog_id: str
    description: str
    quantity: int
    unit_usd: float
    extended_usd: float
    estimate: bool
    source: str


class Cost(_Out):
    """Capex build-up in USD by category, with the lines behind it."""

    total: float
    compute: float
    fabric: float
    cables_optics: float
    storage: float
    management: float
    lines: list[CostLine] = Field(default_factory=list)
    per_gpu: float | None = None


class TierClass(_Out):
    """The cluster's scale tier (product brief) and why."""

    name: str
    reason: str
    typical_cost_usd: tuple[float, float | None]
    typical_cost_note: str


class CoolingCounts(_Out):
    """Racks per cooling class."""

    air: int = 0
    containment: int = 0
    liquid: int = 0


class MediaCounts(_Out):
    """Cables per medium (``cables_by_media``)."""

    dac: int = 0
    acc: int = 0
    aoc: int = 0
    multimode: int = 0
    singlemode: int = 0
    copper: int = 0


class PhysicalReport(_Out):
    """Racks, floor, power, cooling and cable media of the design.

    Without a ``physical`` block (``placed`` false) the rack figures are zero or
    None, lengths are unknown, and ``cables_by_media`` counts the default medium
    of each speed class (what the BOM prices then).
    """

    placed: bool = False
    racks: int = 0
    racks_by_cooling: CoolingCounts = Field(default_factory=CoolingCounts)
    max_rack_kw: float | None = None
    rows: int = 0
    halls: int = 0
    floor_m2: float | None = Field(default=None, description="area of the data halls")
    rack_footprint_m2: float = 0.0
    devices_placed: int = 0
    devices_unplaced: int = 0
    it_kw: float = Field(default=0.0, description="maximum power of the racked devices")
    pue: float | None = None
    facility_kw: float | None = Field(default=None, description="it_kw x PUE")
    hall_budget_kw: float | None = None
    cables_by_media: MediaCounts = Field(default_factory=MediaCounts)
    cables_without_length: int = 0
    longest_cable_m: float | None = None
    cable_m: float = Field(default=0.0, description="metres of cable with a length")
    optics_kw: float = Field(
        default=0.0,
        description="pluggable modules and active cables (estimates for most); "
        "devices' maximum power already budgets for their own modules",
    )
    note: str = ""


class Report(_Out):
    """Everything the validator computes for one design."""

    gpus: int
    compute_nodes: int
    nvlink_domains: int
    nvlink_domain_size: int
    switches: dict[str, int] = Field(
        description="tier -> count: leaf, spine, core (compute fabric, declared or "
        "inferred, wired into the compute fabric); switches off the compute "
        "fabric under their fabric (storage, inband, oob); unwired (no link at "
        "all); other"
    )
    cables: dict[str, int] = Field(
        description="fabric -> cable count, in lanes: one per link lane, a "
        "breakout splitter once per leg (the NetBox export counts it once)"
    )
    transceivers: int
    transceivers_by_type: dict[str, int] = Field(
        default_factory=dict,
        description="pluggable module id -> count: one per fibre cable end, a "
        "twin-port cage carries two links (designer.catalog.optics)",
    )
    bisection: Bisection
    oversubscription: dict[str, float | None] = Field(
        description="tier -> down/up ratio"
    )
    tiers: dict[str, TierOversubscription] = Field(default_factory=dict)
    switch_oversubscription: dict[str, float | None] = Field(
        default_factory=dict, description="switch id -> down/up ratio"
    )
    cost_usd: Cost
    power_kw: float
    power_kw_by_rack: dict[str, float] = Field(default_factory=dict)
    rack_units: float
    racks: int = 0
    tier: TierClass
    findings: list[Finding] = Field(default_factory=list)
    switch_floor: int | None = Field(
        default=None, description="(2t-1)N/k non-blocking Clos floor"
    )
    physical: PhysicalReport = Field(default_factory=PhysicalReport)

    def errors(self) -> list[Finding]:
        """Findings of severity error."""
        return [f for f in self.findings if f.severity is Severity.ERROR]
