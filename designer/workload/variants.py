"""Fabric variants of a design, for scenario compare (no Qt).

The questions an architect asks of a drawn fabric: what does 2:1 at the leaves
cost me in days and what does it save, what if I buy half the spines, what if a
spine is missing. Each variant is the same design with its compute fabric
changed and nothing else (compute, storage, management and the workload block
are kept), so the comparison isolates the fabric.

Switch tiers are the analysis's own (declared, else the level from the compute
nodes: :func:`designer.analysis.metrics.switch_tiers`), so a hand-drawn fabric
without declared tiers gets the same variants as a generated one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.analysis import build_index
from designer.analysis.graph import compute_graph
from designer.analysis.index import DesignIndex
from designer.analysis.levels import hierarchy
from designer.analysis.metrics import TIER_NAMES, Tiers, switch_tiers
from designer.catalog.loader import Catalog
from designer.core.model import FABRIC_CODE, Design, Fabric, LinkTable

__all__ = ["VARIANTS", "Variant", "VariantError", "apply_variant", "offered"]

_COMPUTE = FABRIC_CODE[Fabric.COMPUTE]
_LEAF, _SPINE, _CORE = 1, 2, 3


class VariantError(ValueError):
    """The variant does not apply to this design (the message says why)."""


@dataclass(frozen=True)
class Variant:
    """A fabric change offered for comparison."""

    key: str
    label: str
    description: str


VARIANTS: tuple[Variant, ...] = (
    Variant(
        "leaf-2:1",
        "Leaf uplinks 2:1",
        "Every leaf keeps uplink capacity for half its downlinks (leaf-to-spine "
        "cables removed, spread over the spines); switches kept.",
    ),
    Variant(
        "leaf-4:1",
        "Leaf uplinks 4:1",
        "Every leaf keeps uplink capacity for a quarter of its downlinks; "
        "switches kept.",
    ),
    Variant(
        "half-spines",
        "Half the spines",
        "Every second spine removed with its cables: fewer switches and optics, "
        "the leaves' uplinks halved.",
    ),
    Variant(
        "minus-spine",
        "One spine fewer",
        "The first spine removed with its cables: a failed spine, or one not bought.",
    ),
    Variant(
        "spine-2:1",
        "Spine uplinks 2:1",
        "Every spine keeps uplink capacity for half its downlinks (spine-to-core "
        "cables removed); three-tier fabrics.",
    ),
)
_BY_KEY = {v.key: v for v in VARIANTS}


@dataclass
class _Fabric:
    index: DesignIndex
    tiers: Tiers


def _fabric(design: Design, catalog: Catalog | None) -> _Fabric:
    """The design's switch tiers as the validator assigns them."""
    index = build_index(design, catalog)
    g = compute_graph(index)
    h = hierarchy(g)
    level = np.full(index.n_devices, -1, dtype=np.int64)
    level[g.dev] = h.level
    return _Fabric(index, switch_tiers(index, level, g))


def offered(
    design: Design, catalog: Catalog | None = None
) -> list[tuple[Variant, str | None]]:
    """Every variant with None when it applies to ``design``, else why not."""
    f = _fabric(design, catalog)
    return [(v, _why_not(v.key, f)) for v in VARIANTS]


def _why_not(key: str, f: _Fabric) -> str | None:
    rank = f.tiers.rank
    count = {r: int((rank == r).sum()) for r in (_LEAF, _SPINE, _CORE)}
    if key.startswith("leaf-"):
        if not count[_SPINE]:
            return "the compute fabric has no spine tier above its leaves"
        target = float(key.split("-")[1].split(":")[0])
        if not _to_trim(f, _LEAF, target):
            return f"every leaf is already at {key[5:]} or more"
    if key == "spine-2:1":
        if not count[_CORE]:
            return "the compute fabric has no core tier above its spines"
        if not _to_trim(f, _SPINE, 2.0):
            return "every spine is already at 2:1 or more"
    if key in ("half-spines", "minus-spine") and count[_SPINE] < 2:
        return (
            "the compute fabric has no spine tier"
            if not count[_SPINE]
            else "one spine only: removing it would split the fabric"
        )
    return None


def apply_variant(
    design: Design, key: str, catalog: Catalog | None = None
) -> tuple[Design, str]:
    """``design`` with the variant ``key`` applied, and what changed in words.

    Raises :class:`VariantError` when it does not apply (no spine tier, say).
    """
    variant = _BY_KEY.get(key)
    if variant is None:
        raise VariantError(
            f"unknown variant {key!r}; expected one of {', '.join(_BY_KEY)}"
        )
    f = _fabric(design, catalog)
    why = _why_not(key, f)
    if why is not None:
        raise VariantError(f"{variant.label}: {why}")
    if key in ("leaf-2:1", "leaf-4:1", "spine-2:1"):
        tier = _LEAF if key.startswith("leaf") else _SPINE
        target = float(key.split("-")[1].split(":")[0])
        cables, removed = _trim_uplinks(f, tier, target)
        out = _with_links(design, cables, set())
        what = (
            f"{removed:,} {TIER_NAMES[tier]}-to-{TIER_NAMES[tier + 1]} cables removed"
        )
    else:
        spines = [i for i in range(f.index.n_devices) if f.tiers.rank[i] == _SPINE]
        gone = spines[1::2] if key == "half-spines" else spines[:1]
        ids = {f.index.device_ids[i] for i in gone}
        stranded = _stranded(f, set(gone))
        out = _with_links(design, f.index.cables.copy(), ids | stranded)
        shown = ", ".join(sorted(ids)[:3]) + (", ..." if len(ids) > 3 else "")
        what = f"{len(ids)} of {len(spines)} spines removed ({shown})"
        if stranded:
            what += (
                f", and {len(stranded)} switches above them left without a "
                "compute-fabric link"
            )
    name = f"{design.settings.name} ({variant.label.lower()})"
    out.settings = design.settings.model_copy(update={"name": name[:200]})
    return out, what


def _uplinks(f: _Fabric, tier: int) -> dict[int, list[int]]:
    """Per switch of ``tier``: its compute-fabric links to the tier above."""
    idx, rank = f.index, f.tiers.rank
    cf = idx.fabric == _COMPUTE
    ra, rb = rank[idx.a], rank[idx.b]
    out: dict[int, list[int]] = {}
    for end, r_end, r_other in ((idx.a, ra, rb), (idx.b, rb, ra)):
        up = np.flatnonzero(cf & (r_end == tier) & (r_other > tier))
        for link, sw in zip(up.tolist(), end[up].tolist(), strict=True):
            out.setdefault(sw, []).append(link)
    return out


def _to_trim(f: _Fabric, tier: int, target: float) -> list[int]:
    """Switches of ``tier`` whose down:up ratio is below ``target``."""
    down, up = f.tiers.down, f.tiers.up
    return [
        s
        for s in _uplinks(f, tier)
        if up[s] > 0 and down[s] > 0 and down[s] / up[s] < target * (1 - 1e-9)
    ]


def _trim_uplinks(f: _Fabric, tier: int, target: float) -> tuple[np.ndarray, int]:
    """Cables per link after every switch of ``tier`` drops uplink cables until
    its down:up ratio reaches ``target`` (at least one uplink cable kept).

    A switch drops a cable from its fullest uplink first, and the switches start
    at different upper switches (a rotation), so the upper tier loses its ports
    evenly rather than a few switches losing all of them.
    """
    idx = f.index
    cables = idx.cables.copy()
    links = _uplinks(f, tier)
    removed = 0
    trim = set(_to_trim(f, tier, target))
    for turn, s in enumerate(sorted(links)):
        if s not in trim:
            continue
        mine = links[s]
        other = [int(idx.b[i] if idx.a[i] == s else idx.a[i]) for i in mine]
        order = sorted(range(len(mine)), key=lambda k: other[k])
        up = float(f.tiers.up[s])
        goal = float(f.tiers.down[s]) / target
        excess = up - goal
        per = [float(idx.speed[i]) for i in mine]
        want = round(excess / max(min(per), 1.0))
        shift = (turn * max(want, 1)) % len(order)
        order = order[shift:] + order[:shift]
        turn_of = {k: n for n, k in enumerate(order)}
        left = int(sum(int(cables[i]) for i in mine))
        while up > goal * (1 + 1e-9) and left > 1:
            # the fullest uplink, first in this switch's rotation on a tie
            k = max(order, key=lambda k: (int(cables[mine[k]]), -turn_of[k]))
            i = mine[k]
            if up - per[k] < goal * (1 - 1e-9) and up - goal < per[k] / 2:
                break  # one more cable would overshoot by more than it leaves
            cables[i] -= 1
            up -= per[k]
            left -= 1
            removed += 1
    return cables, removed


def _stranded(f: _Fabric, gone: set[int]) -> set[str]:
    """Upper-tier switches whose every compute-fabric link ends on ``gone``."""
    idx, rank = f.index, f.tiers.rank
    cf = np.flatnonzero(idx.fabric == _COMPUTE)
    a, b = idx.a[cf], idx.b[cf]
    lost = np.isin(a, list(gone)) | np.isin(b, list(gone))
    before = np.bincount(a, minlength=idx.n_devices) + np.bincount(
        b, minlength=idx.n_devices
    )
    after = np.bincount(a[~lost], minlength=idx.n_devices) + np.bincount(
        b[~lost], minlength=idx.n_devices
    )
    top = int(max(rank[list(gone)])) if gone else 0
    hit = np.flatnonzero((rank > top) & (before > 0) & (after == 0))
    return {idx.device_ids[i] for i in hit.tolist()}


def _with_links(design: Design, cables: np.ndarray, drop: set[str]) -> Design:
    """The design with these cable counts (0: the link goes) and without the
    devices ``drop`` and their links; a trimmed link keeps its first pinned
    ports, the others all of theirs."""
    cols = design.links.to_columns()
    keep = [
        i
        for i in range(len(cols["id"]))
        if cables[i] > 0 and cols["a"][i] not in drop and cols["b"][i] not in drop
    ]
    new = {name: [values[i] for i in keep] for name, values in cols.items()}
    new["cables"] = [int(cables[i]) for i in keep]
    # a trimmed bundle keeps its first ports, as an edit of its cables would
    # (designer.core.pins.repin_update); every other link keeps all of its own
    for end in ("a_pins", "b_pins"):
        new[end] = [
            None if pins is None else (*pins[:c], *(["?"] * (c - len(pins[:c]))))
            for pins, c in zip(new[end], new["cables"], strict=True)
        ]
    return design.model_copy(
        update={
            "devices": [d for d in design.devices if d.id not in drop],
            "links": LinkTable.from_columns(new),
            "settings": design.settings.model_copy(),
        },
        deep=False,
    )
