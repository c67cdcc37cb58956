"""Cables and pluggable optics: what a link needs at each end, and what it costs.

Counting rules (RA-H100 Table 8 reproduces them: 127 DGX H100 x 4 twin-port
OSFP = 508 system transceivers; 48 QM9700 x 32 cages = 1,536 switch ones):

- Every link is ``Link.cables`` cables. The cable class is chosen by speed and
  media (:meth:`Optics.cable_class`): the exact speed, else the next faster
  class of that media, else the fastest.
- A ``fiber`` cable needs one pluggable transceiver at EACH end. ``aoc``
  (active optical), ``dac`` (direct-attach copper) and ``copper`` (RJ45) cables
  carry their own ends: zero transceivers.
- A transceiver fills one cage. A twin-port OSFP cage (``ports_per_cage: 2``)
  carries two links per transceiver, and a breakout speed multiplies that
  (QM9700 at 200G: 2 ports x 2 = 4 links per cage). So the modules at one end
  of ``n`` links on a port group are ``ceil(n / interface.links_per_cage(speed))``
  (:meth:`Optics.end_transceivers`). Count per device and port group, then sum.
  When one port group carries links of several speeds, fill the cages across
  speeds (:meth:`Optics.port_group_transceivers`): a leaf with 63 x 400G links
  and the UFM's 1 x 200G link needs 32 twin modules, not 33 (RA-H100: 1,536).
  A port carries one whole-port link or the lanes of one breakout speed, so
  lanes round up to whole ports first (one 200G and one 100G lane on an SN5600
  take two ports, two modules).
- The media of a link is what both ends share (``common_media(a, b)``: a VPI
  DGX port on an Ethernet switch runs Ethernet); pass it as ``media`` so both
  ends pick the same cable class.
- The module at an end is the port group's ``transceiver`` when it names one,
  else the cable class default (:meth:`Optics.module_for`). Twin-port groups
  always name theirs (the loader checks that ``links`` equals the cage size).

Media and reach (physical.md §1): a speed class may have several cable
classes, one per physical medium (:class:`Medium`: passive copper ``dac``,
active copper ``acc``, ``aoc``, ``multimode`` or ``singlemode`` fibre with
modules, ``copper`` RJ45), each with its ``reach_m``. When a design is placed,
a link's medium is the one of its class whose reach is the shortest that
still covers the link's length (:meth:`Optics.cable_for_length`), so a longer
cable never gets a shorter-reach medium; the class marked ``default`` is the
one used when the length is unknown (unplaced designs count as before). XDR
has no passive copper, multimode or AOC class at all, as NVIDIA's LinkX XDR
list says. A fibre end's module is the port group's module, or its variant
of the link's medium (same form factor, links per module and link layer:
:meth:`Optics.variant`).

Prices are estimates unless ``estimate: false``; NVIDIA publishes no list
prices (hardware.md §3).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from math import ceil

from pydantic import Field, model_validator

from designer.catalog.schema import Interface, Media, Price, Source, _Strict

_ID = r"^[a-z0-9][a-z0-9\-]*$"


class CableKind(StrEnum):
    """Physical cable type; only ``fiber`` needs pluggable transceivers."""

    FIBER = "fiber"
    AOC = "aoc"
    DAC = "dac"
    ACC = "acc"
    COPPER = "copper"


class Medium(StrEnum):
    """What carries a link (the ``cables_by_media`` keys of the report)."""

    DAC = "dac"
    ACC = "acc"
    AOC = "aoc"
    MULTIMODE = "multimode"
    SINGLEMODE = "singlemode"
    COPPER = "copper"

    @property
    def fiber(self) -> bool:
        """Whether the medium is fibre between pluggable modules."""
        return self in (Medium.MULTIMODE, Medium.SINGLEMODE)


MEDIA: tuple[Medium, ...] = tuple(Medium)
"""The media in code order (arrays store ``MEDIA.index(medium)``)."""

_KIND_OF: dict[Medium, CableKind] = {
    Medium.DAC: CableKind.DAC,
    Medium.ACC: CableKind.ACC,
    Medium.AOC: CableKind.AOC,
    Medium.MULTIMODE: CableKind.FIBER,
    Medium.SINGLEMODE: CableKind.FIBER,
    Medium.COPPER: CableKind.COPPER,
}


class Transceiver(_Strict):
    """A pluggable optical module type; ``links`` is 2 for twin-port OSFP."""

    id: str = Field(pattern=_ID)
    description: str = Field(min_length=3)
    form_factor: str = Field(min_length=2)
    speed_gbps: int = Field(ge=1, description="per link")
    links: int = Field(ge=1, le=8, description="links one module carries")
    media: list[Media] = Field(min_length=1)
    medium: Medium = Medium.MULTIMODE
    power_w: float | None = Field(default=None, gt=0)
    price: Price
    sources: list[Source] = Field(default_factory=list)
    estimates: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _fibre(self) -> Transceiver:
        if not self.medium.fiber:
            raise ValueError(
                f"transceiver {self.id!r}: medium {self.medium.value!r}; a pluggable "
                "module carries multimode or singlemode fibre"
            )
        return self


class CableClass(_Strict):
    """One cable for a speed, link layer and medium: reach, end module, price."""

    id: str = Field(pattern=_ID)
    description: str = Field(min_length=3)
    speed_gbps: int = Field(ge=1)
    media: Media
    kind: CableKind
    medium: Medium
    reach_m: float = Field(gt=0, le=100_000, description="longest cable, metres")
    default: bool = Field(
        default=False, description="the class used when the length is unknown"
    )
    transceiver: str | None = Field(default=None, pattern=_ID)
    power_w: float | None = Field(
        default=None, gt=0, description="an active cable's draw (both ends)"
    )
    price: Price
    sources: list[Source] = Field(default_factory=list)
    estimates: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _kind_and_medium(self) -> CableClass:
        if _KIND_OF[self.medium] is not self.kind:
            raise ValueError(
                f"cable class {self.id!r}: a {self.kind.value} cable cannot be "
                f"medium {self.medium.value!r}"
            )
        return self

    @property
    def needs_transceivers(self) -> bool:
        """Whether each end needs a pluggable module (fiber only)."""
        return self.kind is CableKind.FIBER


class Optics(_Strict):
    """All transceiver types and cable classes (``resources/catalog/optics.yaml``)."""

    transceivers: list[Transceiver] = Field(min_length=1)
    cables: list[CableClass] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> Optics:
        ids = [t.id for t in self.transceivers] + [c.id for c in self.cables]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"optics ids repeat: {dup}")
        known = {t.id: t for t in self.transceivers}
        seen: set[tuple[int, Media, Medium]] = set()
        defaults: dict[tuple[int, Media], list[str]] = {}
        for c in self.cables:
            if (c.speed_gbps, c.media, c.medium) in seen:
                raise ValueError(
                    f"two cable classes for {c.speed_gbps}G {c.media.value} "
                    f"{c.medium.value}"
                )
            seen.add((c.speed_gbps, c.media, c.medium))
            got = defaults.setdefault((c.speed_gbps, c.media), [])
            if c.default:
                got.append(c.id)
            if c.needs_transceivers and c.transceiver not in known:
                raise ValueError(
                    f"cable class {c.id!r}: fiber needs a known transceiver, "
                    f"got {c.transceiver!r}"
                )
            module = known.get(c.transceiver or "")
            if module is not None and module.medium is not c.medium:
                raise ValueError(
                    f"cable class {c.id!r} is {c.medium.value}, but its module "
                    f"{module.id!r} is {module.medium.value}"
                )
            if not c.needs_transceivers and c.transceiver is not None:
                raise ValueError(
                    f"cable class {c.id!r}: a {c.kind.value} cable has no "
                    "pluggable transceiver"
                )
        for (speed, media), ids in defaults.items():
            if len(ids) != 1:
                raise ValueError(
                    f"{speed}G {media.value}: mark exactly one cable class "
                    f"'default: true' (the one used when the length is unknown), "
                    f"found {len(ids)}{': ' + ', '.join(ids) if ids else ''}"
                )
        return self

    def transceiver(self, transceiver_id: str) -> Transceiver:
        """The module type ``transceiver_id`` (KeyError naming the known ids)."""
        for t in self.transceivers:
            if t.id == transceiver_id:
                return t
        known = ", ".join(t.id for t in self.transceivers)
        raise KeyError(f"unknown transceiver {transceiver_id!r} (known: {known})")

    def class_speed(self, speed_gbps: int, media: Media) -> int:
        """Speed class of a link: exact speed, else next faster, else fastest."""
        speeds = sorted({c.speed_gbps for c in self.cables if c.media is media})
        if not speeds:
            raise KeyError(f"no cable class for media {media.value!r}")
        for s in speeds:
            if s >= speed_gbps:
                return s
        return speeds[-1]

    def ladder(self, speed_gbps: int, media: Media) -> list[CableClass]:
        """The classes of a link's speed class, shortest reach first (then price)."""
        speed = self.class_speed(speed_gbps, media)
        return sorted(
            (c for c in self.cables if c.media is media and c.speed_gbps == speed),
            key=lambda c: (c.reach_m, c.price.usd, c.id),
        )

    def cable_class(self, speed_gbps: int, media: Media) -> CableClass:
        """Class used when the length is unknown: the speed class's default."""
        return next(c for c in self.ladder(speed_gbps, media) if c.default)

    def cable_for(
        self, speed_gbps: int, media: Media, medium: Medium
    ) -> CableClass | None:
        """The class of a link's speed class in ``medium`` (None: no such class)."""
        for c in self.ladder(speed_gbps, media):
            if c.medium is medium:
                return c
        return None

    def cable_for_length(
        self, speed_gbps: int, media: Media, length_m: float
    ) -> CableClass | None:
        """The shortest-reach class that covers ``length_m`` (None: none does)."""
        for c in self.ladder(speed_gbps, media):
            if c.reach_m >= length_m:
                return c
        return None

    def variant(
        self, transceiver_id: str, medium: Medium, media: Media, speed_gbps: int
    ) -> Transceiver | None:
        """The module like ``transceiver_id`` for ``medium`` (None: none listed).

        Same form factor and links per module, carrying ``media``; the same
        speed as the given module first, else the slowest that runs the link.
        """
        base = self.transceiver(transceiver_id)
        if base.medium is medium and media in base.media:
            return base
        like = [
            t
            for t in self.transceivers
            if t.form_factor == base.form_factor
            and t.links == base.links
            and t.medium is medium
            and media in t.media
        ]
        for t in like:
            if t.speed_gbps == base.speed_gbps:
                return t
        fast = sorted((t for t in like if t.speed_gbps >= speed_gbps), key=_speed)
        return fast[0] if fast else None

    def module_for(
        self,
        interface: Interface,
        speed_gbps: int,
        media: Media | None = None,
        medium: Medium | None = None,
    ) -> Transceiver | None:
        """Module in ``interface`` for a link (None: the cable has its own ends).

        ``medium`` None: the speed class's default medium (length unknown).
        A fibre end takes the port group's module in that medium
        (:meth:`variant`), else the class's own module.
        """
        layer = media or interface.media
        if medium is None:
            cable: CableClass | None = self.cable_class(speed_gbps, layer)
            assert cable is not None
            medium = cable.medium
        else:
            cable = self.cable_for(speed_gbps, layer, medium)
        if not medium.fiber:
            return None
        if interface.transceiver is not None:
            found = self.variant(interface.transceiver, medium, layer, speed_gbps)
            if found is not None:
                return found
        if cable is not None and cable.transceiver is not None:
            return self.transceiver(cable.transceiver)
        # no module of that medium is listed for this cage: count the group's own
        return (
            self.transceiver(interface.transceiver) if interface.transceiver else None
        )

    def end_transceivers(
        self,
        interface: Interface,
        links: int,
        speed_gbps: int,
        media: Media | None = None,
    ) -> int:
        """Modules needed at one end for ``links`` links on one device's port group."""
        if links <= 0 or self.module_for(interface, speed_gbps, media) is None:
            return 0
        return ceil(links / interface.links_per_cage(speed_gbps))

    def port_group_transceivers(
        self,
        interface: Interface,
        links_by_speed: Mapping[int, int],
        media: Media | None = None,
    ) -> int:
        """Modules at one device's port group carrying links of several speeds.

        A port carries one whole-port link or the lanes of one breakout speed,
        so the lanes of each breakout speed round up to whole ports; the ports
        then fill cages (:mod:`designer.analysis.metrics` counts the same way).
        """
        ports = 0
        for speed, links in links_by_speed.items():
            if links > 0 and self.module_for(interface, speed, media) is not None:
                ports += ceil(links / max(1, interface.split(speed)))
        return ceil(ports / interface.ports_per_cage)

    def optics_price(self, speed_gbps: int, media: Media) -> Price:
        """Unit price of the speed class default module (0 when none is needed)."""
        cable = self.cable_class(speed_gbps, media)
        if cable.transceiver is None:
            return Price(
                usd=0.0,
                source=f"no pluggable module: a {cable.kind.value} cable "
                f"({cable.id}) carries its own ends",
                date=cable.price.date,
                estimate=False,
            )
        return self.transceiver(cable.transceiver).price

    def cable_price(self, speed_gbps: int, media: Media) -> Price:
        """Unit price of one cable of the speed class."""
        return self.cable_class(speed_gbps, media).price


def _speed(t: Transceiver) -> int:
    return t.speed_gbps
