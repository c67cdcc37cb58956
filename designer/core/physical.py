"""The physical layer of a design: rack types, racks in rows of data halls, facility.

Optional in the design file (``Design.physical``, schema version 3): a design
without it is a logical graph as before. With it, every ``Device.placement``
names a rack of this block and the lowest rack unit the device takes.

Coordinates are metres, to scale. A hall has an origin on the site
(``x_m``, ``y_m``) and a size; a row starts at (``x_m``, ``y_m``) inside its
hall and runs along +x in floor slots of :data:`SLOT_M` (600 mm, one
raised-floor tile); a rack takes ``ceil(width / 600 mm)`` slots from its
``slot``, and its depth runs along +y from the row's line. Rack units count
from 1 at the bottom; one unit is :data:`RACK_UNIT_M` (EIA-310, 1.75 in).
The hierarchy follows NVIDIA's Cable Validation Tool: data hall, scalable unit
(``Rack.group``), row, rack (physical.md §3).

Cooling classes and what a rack of each can remove by default (physical.md §2,
all [S]): ``air`` to about 30 kW, ``containment`` (hot/cold-aisle containment
or rear-door heat exchangers) to about 40-60 kW, ``liquid`` (direct liquid
cooling) above that; the facility settings hold the limits a design assumes.

:func:`physical_problems` is the strict check the design runs on load
(duplicate ids, unknown rack type/row/hall/rack, racks sharing a floor slot,
a placement above the top of its rack). Checks that need the catalog (device
heights and power: U overlap and overflow, rack power and cooling, liquid
devices in air racks) are findings of :mod:`designer.analysis`, because a
catalog change must not make a saved design unreadable.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from math import ceil

from pydantic import BaseModel, ConfigDict, Field

from designer.core.ids import Id

RACK_UNIT_M = 0.04445
"""Height of one rack unit in metres (EIA-310: 1.75 in = 44.45 mm)."""

SLOT_M = 0.6
"""Pitch of the floor slots along a row (one 600 mm raised-floor tile)."""

MAX_RACK_U = 60
"""Tallest rack type accepted (placements are at most U 60)."""


class Cooling(StrEnum):
    """How a rack's heat is removed (physical.md §2)."""

    AIR = "air"
    CONTAINMENT = "containment"
    LIQUID = "liquid"


COOLING_ORDER: tuple[Cooling, ...] = (Cooling.AIR, Cooling.CONTAINMENT, Cooling.LIQUID)
"""Cooling classes from the least to the most capable."""


class RackRole(StrEnum):
    """What a rack holds (set by the placement; the views colour by it)."""

    COMPUTE = "compute"
    NETWORK = "network"
    STORAGE = "storage"
    MANAGEMENT = "management"
    MIXED = "mixed"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


_Metres = Field(default=0.0, ge=0, le=100_000, allow_inf_nan=False)


class RackType(_Strict):
    """A kind of rack: height in U, footprint, power its feeds deliver, cooling."""

    id: Id
    label: str = Field(default="", max_length=200)
    u: int = Field(ge=1, le=MAX_RACK_U)
    width_mm: int = Field(default=600, ge=300, le=1500)
    depth_mm: int = Field(default=1200, ge=300, le=2000)
    max_kw: float = Field(gt=0, le=2000, allow_inf_nan=False)
    cooling: Cooling = Cooling.AIR
    source: str = Field(default="", max_length=500)
    estimate: bool = True

    @property
    def slots(self) -> int:
        """Floor slots of :data:`SLOT_M` the rack takes along its row."""
        return max(1, ceil(self.width_mm / 1000 / SLOT_M - 1e-9))


class Facility(_Strict):
    """Design-wide facility assumptions: kW per rack by cooling class, PUE, slack."""

    air_kw: float = Field(default=30.0, gt=0, le=2000, allow_inf_nan=False)
    containment_kw: float = Field(default=60.0, gt=0, le=2000, allow_inf_nan=False)
    liquid_kw: float = Field(default=142.0, gt=0, le=2000, allow_inf_nan=False)
    pue: float = Field(default=1.3, ge=1.0, le=5.0, allow_inf_nan=False)
    slack_m: float = Field(default=1.0, ge=0, le=50, allow_inf_nan=False)
    tray_m: float = Field(
        default=0.5,
        ge=0,
        le=10,
        allow_inf_nan=False,
        description="from a rack's top to the overhead cable tray",
    )

    def kw_for(self, cooling: Cooling) -> float:
        """kW one rack of a cooling class can have removed."""
        if cooling is Cooling.AIR:
            return self.air_kw
        if cooling is Cooling.CONTAINMENT:
            return self.containment_kw
        return self.liquid_kw


FACILITY_SOURCES: dict[str, str] = {
    "air_kw": "air cooling works to about 30 kW per rack (physical.md §2) [S]",
    "containment_kw": "containment or rear-door heat exchangers to about 40-60 kW "
    "(physical.md §2; upper end taken) [S]",
    "liquid_kw": "GB300 NVL72 draws up to 142 kW (NVIDIA ERA, physical.md §2) [P]; "
    "taken as what a direct-liquid rack position supplies [E]",
    "pue": "new large sites reach 1.3 or better; global average 1.56 (2024) "
    "(physical.md §4) [S]",
    "slack_m": "service loop per cable, an assumption [E]",
    "tray_m": "rack top to overhead tray, an assumption [E]",
}
"""Where each default of :class:`Facility` comes from."""


class Hall(_Strict):
    """A data hall: its origin on the site, size and power budget."""

    id: Id
    label: str = Field(default="", max_length=200)
    x_m: float = _Metres
    y_m: float = _Metres
    width_m: float = Field(gt=0, le=100_000, allow_inf_nan=False)
    depth_m: float = Field(gt=0, le=100_000, allow_inf_nan=False)
    power_budget_kw: float | None = Field(
        default=None,
        gt=0,
        allow_inf_nan=False,
        description="IT load the hall can feed and cool (facility power is "
        "this times the PUE)",
    )


class Row(_Strict):
    """A row of racks in a hall, from (``x_m``, ``y_m``) along +x."""

    id: Id
    label: str = Field(default="", max_length=200)
    hall: Id
    x_m: float = _Metres
    y_m: float = _Metres


class Rack(_Strict):
    """One rack: its type, its row and the first floor slot it takes."""

    id: Id
    label: str = Field(default="", max_length=200)
    type: Id
    row: Id
    slot: int = Field(ge=0, le=100_000)
    cooling: Cooling | None = Field(
        default=None, description="cooling class; None: the rack type's"
    )
    role: RackRole = RackRole.MIXED
    group: Id | None = Field(
        default=None, description="design group (scalable unit) the rack serves"
    )


class Physical(_Strict):
    """Racks, rows, halls, rack types and facility settings of a design."""

    facility: Facility = Field(default_factory=Facility)
    rack_types: list[RackType] = Field(default_factory=list)
    halls: list[Hall] = Field(default_factory=list)
    rows: list[Row] = Field(default_factory=list)
    racks: list[Rack] = Field(default_factory=list)

    def rack_type_map(self) -> dict[str, RackType]:
        """Rack types by id."""
        return {t.id: t for t in self.rack_types}

    def rack_map(self) -> dict[str, Rack]:
        """Racks by id."""
        return {r.id: r for r in self.racks}

    def cooling_of(
        self, rack: Rack, types: dict[str, RackType] | None = None
    ) -> Cooling:
        """The rack's cooling class (its own, else its type's)."""
        if rack.cooling is not None:
            return rack.cooling
        kinds = types if types is not None else self.rack_type_map()
        kind = kinds.get(rack.type)
        return kind.cooling if kind is not None else Cooling.AIR


def _std(
    rid: str, label: str, u: int, width: int, kw: float, cooling: Cooling, source: str
) -> RackType:
    return RackType(
        id=rid,
        label=label,
        u=u,
        width_mm=width,
        depth_mm=1200,
        max_kw=kw,
        cooling=cooling,
        source=source,
        estimate=True,
    )


_FEED = (
    "60 kW feeds: 'many [sites] can only support a maximum of 60 kW racks' "
    "(physical.md §2) [S]; 600 x 1,200 mm footprint [E]"
)

STANDARD_RACK_TYPES: tuple[RackType, ...] = (
    _std("rack-42u", "42U rack", 42, 600, 60.0, Cooling.AIR, _FEED),
    _std("rack-48u", "48U rack", 48, 600, 60.0, Cooling.AIR, _FEED),
    _std("rack-52u", "52U rack", 52, 600, 60.0, Cooling.AIR, _FEED),
    _std(
        "network-48u",
        "48U network rack, 800 mm wide",
        48,
        800,
        60.0,
        Cooling.AIR,
        "800 mm wide for cable management, an assumption [E]; " + _FEED,
    ),
    _std(
        "nvl72",
        "MGX NVL72 rack (GB200 / GB300)",
        48,
        600,
        142.0,
        Cooling.LIQUID,
        "GB200 NVL72 about 120 kW (RA-GB200) [P], GB300 NVL72 up to 142 kW "
        "(NVIDIA ERA) [P]; liquid-cooled compute trays (DGX GB200 user guide) "
        "[P]; 600 x 1,200 mm planning footprint incl. rear clearance [E]",
    ),
    _std(
        "nvl72-vr",
        "NVL72 rack, Vera Rubin class",
        48,
        600,
        230.0,
        Cooling.LIQUID,
        "Vera Rubin NVL72 190-230 kW reported, unverified (physical.md §2) [S]; "
        "footprint as the MGX NVL72 rack [E]",
    ),
)
"""Rack types the placement offers (a design file stores the ones it uses)."""


def standard_rack_type(rack_type_id: str) -> RackType:
    """One of :data:`STANDARD_RACK_TYPES` (KeyError naming the known ids)."""
    for t in STANDARD_RACK_TYPES:
        if t.id == rack_type_id:
            return t
    known = ", ".join(t.id for t in STANDARD_RACK_TYPES)
    raise KeyError(f"unknown rack type {rack_type_id!r} (known: {known})")


@dataclass(frozen=True, slots=True)
class PlacementRef:
    """What :func:`physical_problems` reads of one device's placement."""

    index: int
    device: str
    row: str | None
    rack: str | None
    u: int | None


def _dupes(kind: str, ids: Sequence[str]) -> list[tuple[str, str]]:
    first: dict[str, int] = {}
    out: list[tuple[str, str]] = []
    for i, x in enumerate(ids):
        if x in first:
            out.append(
                (
                    f"physical.{kind}[{i}].id",
                    f"duplicate id {x!r} (first at physical.{kind}[{first[x]}]); "
                    "expected unique ids",
                )
            )
        first.setdefault(x, i)
    return out


def _known(what: str, value: str, known: Iterable[str]) -> str:
    names = sorted(known)
    shown = ", ".join(repr(n) for n in names[:6]) + (" ..." if len(names) > 6 else "")
    return f"unknown {what} {value!r}; expected one of: {shown or '(none defined)'}"


def physical_problems(
    physical: Physical,
    placements: Iterable[PlacementRef],
    group_ids: Iterable[str] = (),
) -> list[tuple[str, str]]:
    """``(place, message)`` for every structural problem (empty when fine)."""
    out: list[tuple[str, str]] = []
    out += _dupes("rack_types", [t.id for t in physical.rack_types])
    out += _dupes("halls", [h.id for h in physical.halls])
    out += _dupes("rows", [r.id for r in physical.rows])
    out += _dupes("racks", [r.id for r in physical.racks])
    types = physical.rack_type_map()
    halls = {h.id for h in physical.halls}
    rows = {r.id for r in physical.rows}
    groups = set(group_ids)
    for i, row in enumerate(physical.rows):
        if row.hall not in halls:
            out.append((f"physical.rows[{i}].hall", _known("hall", row.hall, halls)))
    taken: dict[tuple[str, int], int] = {}
    for i, rack in enumerate(physical.racks):
        kind = types.get(rack.type)
        if kind is None:
            out.append(
                (f"physical.racks[{i}].type", _known("rack type", rack.type, types))
            )
        if rack.row not in rows:
            out.append((f"physical.racks[{i}].row", _known("row", rack.row, rows)))
            continue
        if rack.group is not None and rack.group not in groups:
            out.append(
                (f"physical.racks[{i}].group", _known("group", rack.group, groups))
            )
        span = kind.slots if kind is not None else 1
        for s in range(rack.slot, rack.slot + span):
            other = taken.get((rack.row, s))
            if other is not None:
                out.append(
                    (
                        f"physical.racks[{i}].slot",
                        f"rack {rack.id!r} takes slot {s} of row {rack.row!r}, "
                        f"already taken by rack {physical.racks[other].id!r}; "
                        "expected one rack per floor slot",
                    )
                )
                break
            taken[(rack.row, s)] = i
    racks = physical.rack_map()
    row_of = {r.id: r.row for r in physical.racks}
    for p in placements:
        if p.rack is None:
            continue
        where = f"devices[{p.index}].placement"
        placed = racks.get(p.rack)
        if placed is None:
            out.append((f"{where}.rack", _known("rack", p.rack, racks)))
            continue
        if p.row is not None and p.row != row_of[p.rack]:
            out.append(
                (
                    f"{where}.row",
                    f"row {p.row!r}, but rack {p.rack!r} stands in row "
                    f"{row_of[p.rack]!r}; expected the rack's row or no row",
                )
            )
        kind = types.get(placed.type)
        if kind is not None and p.u is not None and p.u > kind.u:
            out.append(
                (
                    f"{where}.u",
                    f"U {p.u} is above the top of rack {p.rack!r} ({kind.u}U "
                    f"{kind.id}); expected 1..{kind.u}",
                )
            )
    return out


__all__ = [
    "COOLING_ORDER",
    "FACILITY_SOURCES",
    "MAX_RACK_U",
    "RACK_UNIT_M",
    "SLOT_M",
    "STANDARD_RACK_TYPES",
    "Cooling",
    "Facility",
    "Hall",
    "Physical",
    "PlacementRef",
    "Rack",
    "RackRole",
    "RackType",
    "Row",
    "physical_problems",
    "standard_rack_type",
]
