"""InfiniBand port numbers of a switch's front-panel ports.

``ibnetdiscover``, OpenSM and ``ibsim`` name a switch port by number (1..N);
the design and the cabling plan name it as printed on the front panel
(``osfp3/2``, ``qsfp56-7``). A port group with ``ib_numbering`` in the catalog
(:class:`designer.catalog.schema.IbNumbering`) maps one to the other: its
ports, in the listed cage order, are IB ports ``first``, ``first + 1``, ...

Breakout lanes (``osfp8/2:1``, a 2 x 200G splitter on a 400G port): a switch in
split mode reports each lane as a port of its own; lane ``k`` (1-based) of the
port numbered ``n`` split ``s`` ways is taken as IB port ``s * (n - 1) + k``.
NVIDIA does not publish this numbering: it is assumed (:func:`numbering_note`
says so for every entry).

Used by the topology export (``--ibnetdiscover``) and ``verify``, which match a
live fabric by NodeDescription and port number.
"""

from __future__ import annotations

from designer.catalog.schema import CatalogEntry, IbNumbering, Interface
from designer.core.occupancy import split_lane

LANES_ASSUMED = (
    "breakout lanes: lane k of port n split s ways taken as IB port s(n-1)+k "
    "(assumed; the split numbering is not published)"
)

__all__ = [
    "LANES_ASSUMED",
    "ib_port_count",
    "ib_port_name",
    "ib_port_number",
    "ib_ports",
    "numbering_note",
]


def _numbered(entry: CatalogEntry) -> list[tuple[Interface, IbNumbering]]:
    return [(g, g.ib_numbering) for g in entry.interfaces if g.ib_numbering is not None]


def ib_ports(entry: CatalogEntry) -> dict[str, int]:
    """Front-panel name -> IB port number of every numbered port (no lanes)."""
    out: dict[str, int] = {}
    for group, numbering in _numbered(entry):
        for i, name in enumerate(group.ports):
            out[name] = numbering.first + i
    return out


def ib_port_count(entry: CatalogEntry, split: int = 1) -> int:
    """How many ports the switch reports (the ``Switch N`` of its stanza):
    the highest IB port number, times ``split`` in split mode."""
    numbers = ib_ports(entry).values()
    return max(numbers, default=0) * max(1, split)


def ib_port_number(entry: CatalogEntry, port_name: str, split: int = 1) -> int:
    """The InfiniBand port number of front-panel port ``port_name`` (a pin:
    ``osfp3/2``, or a lane ``osfp8/2:1``).

    ``split``: how many lanes the port is broken into (taken from a lane name
    when it has one but ``split`` is 1, as 2). Raises ``KeyError`` naming the
    entry and port when the entry has no numbering for it.
    """
    port, lane = split_lane(port_name)
    numbers = ib_ports(entry)
    n = numbers.get(port_name if lane < 0 else port)
    if n is None:
        if not numbers:
            raise KeyError(
                f"{entry.slug} has no InfiniBand port numbering in the catalog"
            )
        raise KeyError(
            f"{entry.slug} has no InfiniBand port {port_name!r} (its ports are "
            f"{next(iter(numbers))} to {next(reversed(numbers))})"
        )
    if lane < 0:
        return n
    s = max(2, split)
    if lane >= s:
        raise KeyError(f"{entry.slug} port {port_name!r}: lane {lane + 1} of {s}")
    return s * (n - 1) + lane + 1


def ib_port_name(entry: CatalogEntry, number: int) -> str | None:
    """The front-panel name of IB port ``number`` (None: not a port of it)."""
    for name, n in ib_ports(entry).items():
        if n == number:
            return name
    return None


def numbering_note(entry: CatalogEntry) -> tuple[str, bool]:
    """(where the numbering comes from, whether any of it is assumed)."""
    groups = _numbered(entry)
    if not groups:
        return "", True
    texts = [f"{g.name}: {n.source.text} [{n.source.quality}]" for g, n in groups]
    return "; ".join([*texts, LANES_ASSUMED]), any(n.assumed for _, n in groups)
