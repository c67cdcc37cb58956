"""What a link's cables are: the cable class and the pluggable modules at its
ends, as the analysis counts them and the BOM prices them; in a placed design
the medium each link's routed length picks; and the ports those modules pin
(:mod:`designer.core.pins`). The cabling plan
(:mod:`designer.io.export.cabling`) writes them cable by cable.
"""

from __future__ import annotations

from designer.catalog.loader import Catalog as CatalogType
from designer.catalog.optics import MEDIA, Medium
from designer.catalog.schema import Interface, Media
from designer.core.model import Design
from designer.core.occupancy import Kinds
from designer.core.pins import pinned
from designer.io.export._common import Catalog, resolve_catalog

__all__ = [
    "end_module",
    "link_cable",
    "link_ends",
    "link_media",
    "pin_kinds",
    "pinned_design",
]


def _fallback_cable_type(a: Interface | None, b: Interface | None, speed: int) -> str:
    types = " ".join(i.type.lower() for i in (a, b) if i is not None)
    if "base-t" in types:
        return "Cat6 RJ45 copper"
    media = next((i.media.value for i in (a, b) if i is not None), "")
    media = {"infiniband": "InfiniBand", "ethernet": "Ethernet"}.get(media, media)
    return f"{speed}G {media} cable".replace("  ", " ")


_MEDIUM_TEXT = {
    "multimode": "MMF fiber",
    "singlemode": "SMF fiber",
    "aoc": "AOC",
    "dac": "DAC copper",
    "acc": "ACC copper",
    "copper": "RJ45",
}
_MEDIA = {"infiniband": "InfiniBand", "ethernet": "Ethernet"}


def end_module(
    cat: Catalog, iface: Interface | None, speed: int, medium: Medium | None = None
) -> str:
    """Id of the pluggable module at an end ("" when the cable has its own ends).

    As the analysis counts it: the port group's transceiver (or its variant of
    the link's ``medium``) when the cable is fibre; ``medium`` None: the
    default medium of the group's own media at this speed.
    """
    if iface is None:
        return ""
    optics = getattr(cat, "optics", None)
    if optics is None:
        return iface.transceiver or ""
    try:
        module = optics.module_for(iface, speed, medium=medium)
    except (KeyError, ValueError):
        return ""
    return module.id if module is not None else ""


def link_cable(
    cat: Catalog,
    a: Interface | None,
    b: Interface | None,
    speed: int,
    medium: Medium | None = None,
) -> tuple[str, str]:
    """``(cable type, cable class id)`` of a link, as the BOM prices it.

    The class is the optics table's for the speed and the a-end's media
    (Ethernet when the a-end is unknown) in ``medium`` (None: the default);
    without a table, a plain description.
    """
    optics = getattr(cat, "optics", None)
    if optics is not None:
        media = a.media if a is not None else None
        try:
            layer = media or Media.ETHERNET
            cable = optics.cable_class(speed, layer)
            if medium is not None:
                cable = optics.cable_for(speed, layer, medium) or cable
        except (KeyError, ValueError):
            pass
        else:
            kind = _MEDIUM_TEXT.get(cable.medium.value, cable.medium.value)
            m = cable.media.value
            return f"{kind} {cable.speed_gbps}G {_MEDIA.get(m, m)}", cable.id
    return _fallback_cable_type(a, b, speed), ""


def link_ends(
    cat: Catalog,
    a: Interface | None,
    b: Interface | None,
    speed: int,
    medium: Medium | None = None,
) -> tuple[str, str, str, str]:
    """``(cable type, cable id, module at a, module at b)`` of one cable of a link."""
    label, cable_id = link_cable(cat, a, b, speed, medium)
    return (
        label,
        cable_id,
        end_module(cat, a, speed, medium),
        end_module(cat, b, speed, medium),
    )


def link_media(
    design: Design, cat: Catalog
) -> tuple[list[Medium | None], list[str]] | None:
    """Per link: the medium its length picks and the length as text (placed
    only; None unplaced)."""
    if design.physical is None or not isinstance(cat, CatalogType):
        return None
    from designer.analysis.index import build_index
    from designer.analysis.lengths import media_of

    media = media_of(build_index(design, cat))
    if media is None:
        return None
    codes = media.medium.tolist()
    mediums = [MEDIA[c] if c >= 0 else None for c in codes]
    text = [
        "" if x != x else f"{x:.1f}"  # nan: an end outside every rack
        for x in media.length_m.tolist()
    ]
    return mediums, text


def pin_kinds(design: Design, catalog: Catalog | None = None) -> Kinds | None:
    """What each link end's cages hold in a placed design (the module the
    medium of its routed length picks, as this plan and the BOM count it), for
    choosing pins (:func:`designer.core.pins.pin_pending`); None unplaced (the
    default medium's module, which the pin rule knows from the catalog)."""
    cat = resolve_catalog(catalog)
    placed = link_media(design, cat)
    if placed is None:
        return None
    mediums = placed[0]
    devices = design.device_map()
    t = design.links
    cache: dict[tuple[str, str, int, Medium | None], tuple[int, str]] = {}
    out: tuple[list[tuple[int, str]], list[tuple[int, str]]] = ([], [])
    for end, (ids, groups) in enumerate(((t.a, t.a_port), (t.b, t.b_port))):
        for dev_id, group, speed, medium in zip(
            ids, groups, t.speed_gbps, mediums, strict=True
        ):
            catalog_id = devices[dev_id].catalog_id
            key = (catalog_id, group, speed, medium)
            kind = cache.get(key)
            if kind is None:
                entry = cat.get(catalog_id)
                iface = entry.interface(group) if entry is not None else None
                module = end_module(cat, iface, speed, medium)
                kind = cache[key] = (0, module) if module else (1, "")
            out[end].append(kind)
    return out


def pinned_design(design: Design, catalog: Catalog | None = None) -> Design:
    """``design``, or a copy whose cables waiting for ports have them, chosen
    by the pin rule with this plan's modules (what opening it would give)."""
    if not design.links.pins_pending():
        return design
    cat = resolve_catalog(catalog)
    return pinned(design, cat, pin_kinds(design, cat))
