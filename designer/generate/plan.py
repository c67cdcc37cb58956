"""Fabric arithmetic for folded-Clos (fat-tree) generators, from first principles.

Nothing here looks a number up in a table. The rules:

* every leaf (and every spine of a pod) wires **equally** to every switch of the
  tier above it, so the number of upper switches must divide the lower switch's
  uplinks; among the divisors the smallest one with enough ports is taken. That
  is why NVIDIA's 3-SU DGX H100 row has 16 spines and not 12: 24 leaves x 32
  uplinks need 12 spines of 64 ports, but 12 does not divide 32, and 16 does;
* a leaf's uplinks are its downlinks divided by that tier's oversubscription
  (down:up ratio), and must come out whole;
* in three tiers, a pod holds the number of scalable units that gives the
  fewest pods among the pod sizes whose leaves wire equally to one set of
  spines (every size is tried: one that fails may be followed by one that
  fits), the smallest such size, so the SUs are spread evenly (only the last
  pod may be short; it keeps the full pod's spines and uplinks); spine ``j`` of
  every pod wires equally to core group ``j`` (Al-Fares), whose size is again
  the smallest divisor of the spine uplinks with enough core ports;
* a scalable unit that is not full keeps the full SU's leaves and uplinks
  (provisioned for growth, as NVIDIA provisions spines for 4 SU);
* a rail-optimized fabric that does not fit in three tiers of the chosen switch
  is split into independent rail planes (rails 0-3 in plane a, 4-7 in plane b,
  ...), each a fat tree of its own; per compute node, bisection stays the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import ceil, floor


class GeneratorError(ValueError):
    """Bad generator input; the message says what is wrong and how to fix it."""


class _Infeasible(GeneratorError):
    """Does not fit in this many tiers/planes; more may help."""


def divisors(n: int) -> list[int]:
    """Divisors of ``n`` in ascending order."""
    small = [d for d in range(1, int(n**0.5) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))


def smallest_divisor_at_least(n: int, lowest: int) -> int | None:
    """The smallest divisor of ``n`` that is >= ``lowest`` (None if none)."""
    for d in divisors(n):
        if d >= lowest:
            return d
    return None


def as_ratio(value: float, what: str) -> Fraction:
    """A down:up ratio as an exact fraction; it must be positive."""
    try:
        r = Fraction(value).limit_denominator(1000)
    except (TypeError, ValueError, OverflowError):
        raise GeneratorError(f"{what}: {value!r} is not a number") from None
    if r <= 0:
        raise GeneratorError(f"{what}: must be a positive down:up ratio, got {value}")
    return r


def uplinks_for(down: int, ratio: Fraction) -> int | None:
    """Uplinks giving exactly ``down``:``up`` = ``ratio`` (None if not whole)."""
    up = Fraction(down) / ratio
    return int(up) if up.denominator == 1 else None


def max_down(radix: int, ratio: Fraction) -> int:
    """The most downlinks a ``radix``-port switch can have at down:up ``ratio``."""
    return floor(Fraction(radix) * ratio / (1 + ratio))


def fmt_ratio(r: Fraction) -> str:
    """``2:1``, ``1.5:1``."""
    return f"{float(r):g}:1"


@dataclass(frozen=True)
class Attachment:
    """``cables`` from port ``rail`` (or all ports) of node ``node`` to ``leaf``."""

    node: int
    leaf: int
    cables: int
    rail: int | None


@dataclass(frozen=True)
class SuTemplate:
    """How one full scalable unit's nodes attach to its leaves (one plane)."""

    leaves: int
    attachments: tuple[Attachment, ...]
    leaf_rails: tuple[tuple[int, ...], ...]
    rails: int
    leaf_chunks: tuple[int, ...]
    chunked: bool
    leaf_down: int
    leaf_up: int


@dataclass(frozen=True)
class Plan:
    """Everything needed to wire a fat tree; counts are per rail plane."""

    tiers: int
    planes: int
    node_ports: int
    plane_ports: int
    radix: int
    su_size: int
    su_nodes: tuple[int, ...]
    rail_optimized: bool
    ratios: tuple[Fraction, ...]
    template: SuTemplate
    spines: int = 0
    leaf_spine_cables: int = 0
    sus_per_pod: int = 0
    pods: int = 0
    spines_per_pod: int = 0
    spine_down: int = 0
    spine_up: int = 0
    cores_per_group: int = 0
    spine_core_cables: int = 0
    notes: list[str] = field(default_factory=list, compare=False)

    @property
    def cores(self) -> int:
        """Core switches per plane."""
        return self.spines_per_pod * self.cores_per_group if self.tiers == 3 else 0

    @property
    def sus(self) -> int:
        """Scalable units."""
        return len(self.su_nodes)

    def pod_of(self, su: int) -> int:
        """Pod index of scalable unit ``su`` (three tiers)."""
        return su // self.sus_per_pod if self.tiers == 3 else 0


def su_template(
    su_size: int,
    ports: int,
    radix: int,
    leaf_ratio: Fraction,
    rail_optimized: bool,
) -> SuTemplate:
    """Leaves of one full SU and which node ports land on which leaf."""
    dmax = max_down(radix, leaf_ratio)
    if dmax < 1:
        raise GeneratorError(
            f"a {radix}-port switch has no downlinks left at {fmt_ratio(leaf_ratio)}"
        )
    att: list[Attachment] = []
    n_rails = 0
    rails: list[tuple[int, ...]] = []
    chunks: list[int] = []
    chunked = False
    if rail_optimized:
        if su_size <= dmax:
            # g NIC ports of a node form one rail, as many as fill a leaf: 1 on
            # a DGX, 4 (one compute tray) on an NVL72 rack in an SU of 8 racks
            g = max(d for d in divisors(ports) if d * su_size <= dmax)
            m, chunk = 1, su_size
        else:
            g, m = 1, ceil(su_size / dmax)
            if m > 26:
                raise GeneratorError(
                    f"su_size {su_size} needs {m} leaves per rail; at most 26 "
                    f"({26 * dmax} nodes per SU on this switch)"
                )
            chunk = ceil(su_size / m)
            chunked = True
        n_rails = ports // g
        leaves = n_rails * m
        for i in range(su_size):
            for r in range(n_rails):
                att.append(Attachment(i, r * m + i // chunk, g, r))
        for j in range(leaves):
            rails.append((j // m,))
            chunks.append(j % m)
        down = g * chunk
    elif ports <= dmax:
        per_leaf = dmax // ports
        leaves = ceil(su_size / per_leaf)
        chunk = ceil(su_size / leaves)
        att = [Attachment(i, i // chunk, ports, None) for i in range(su_size)]
        rails = [()] * leaves
        chunks = list(range(leaves))
        down = chunk * ports
    else:
        # a node with more ports than a leaf has downlinks spreads over m leaves
        m = ceil(ports / dmax)
        sizes = [ports // m + (1 if j < ports % m else 0) for j in range(m)]
        leaves = su_size * m
        for i in range(su_size):
            att.extend(Attachment(i, i * m + j, sizes[j], None) for j in range(m))
        rails = [()] * leaves
        chunks = list(range(leaves))
        down = max(sizes)
    up = uplinks_for(down, leaf_ratio)
    if up is None:
        raise GeneratorError(
            f"leaf oversubscription {fmt_ratio(leaf_ratio)} does not split "
            f"{down} downlinks into whole uplinks ({float(down / leaf_ratio):g}); "
            "choose a ratio that divides the leaf's downlinks"
        )
    if down + up > radix:
        raise GeneratorError(
            f"a leaf needs {down} down + {up} up ports but the switch has {radix}"
        )
    return SuTemplate(
        leaves=leaves,
        attachments=tuple(att),
        leaf_rails=tuple(rails),
        rails=n_rails,
        leaf_chunks=tuple(chunks),
        chunked=chunked,
        leaf_down=down,
        leaf_up=up,
    )


def _leaves_in_su(t: SuTemplate, nodes: int, extra_leaves: set[int]) -> int:
    used = {a.leaf for a in t.attachments if a.node < nodes} | extra_leaves
    return len(used)


def plan_fabric(
    *,
    su_nodes: tuple[int, ...],
    su_size: int,
    ports: int,
    radix: int,
    ratios: tuple[Fraction, ...],
    rail_optimized: bool,
    tiers: int,
    planes: int,
    extra_leaves: dict[int, set[int]] | None = None,
) -> Plan:
    """Wire ``su_nodes`` in ``tiers`` tiers and ``planes`` rail planes, or raise."""
    extra_leaves = extra_leaves or {}
    if ports % planes:
        raise _Infeasible(f"{ports} node ports do not split into {planes} planes")
    plane_ports = ports // planes
    total = sum(su_nodes) * plane_ports
    base = {
        "tiers": tiers,
        "planes": planes,
        "node_ports": ports,
        "plane_ports": plane_ports,
        "radix": radix,
        "su_size": su_size,
        "su_nodes": su_nodes,
        "rail_optimized": rail_optimized,
        "ratios": ratios,
    }
    if tiers == 1:
        endpoints = total + sum(len(v) for v in extra_leaves.values())
        if planes != 1 or endpoints > radix:
            raise _Infeasible(
                f"one switch has {radix} ports; this design has {endpoints} endpoints"
            )
        if rail_optimized:
            att = [Attachment(i, 0, 1, r) for i in range(su_size) for r in range(ports)]
        else:
            att = [Attachment(i, 0, ports, None) for i in range(su_size)]
        t = SuTemplate(1, tuple(att), ((),), ports, (0,), False, endpoints, 0)
        return Plan(template=t, **base)  # type: ignore[arg-type]
    t = su_template(su_size, plane_ports, radix, ratios[0], rail_optimized)
    leaves = sum(
        _leaves_in_su(t, n, extra_leaves.get(i, set())) for i, n in enumerate(su_nodes)
    )
    per = " per rail plane" if planes > 1 else ""
    notes = [
        f"leaves: {t.leaves} per SU of {su_size} nodes{per}, "
        f"{t.leaf_down} down / {t.leaf_up} up ({fmt_ratio(ratios[0])})"
    ]
    if tiers == 2:
        s = smallest_divisor_at_least(t.leaf_up, ceil(leaves * t.leaf_up / radix))
        if s is None:
            raise _Infeasible(
                f"two tiers cannot hold {leaves:,} leaves with {t.leaf_up} uplinks "
                f"each on {radix}-port spines (at most {radix} leaves)"
            )
        notes.append(
            f"spines{per}: {leaves:,} leaves x {t.leaf_up} uplinks need "
            f"{ceil(leaves * t.leaf_up / radix)} spines of {radix} ports; the "
            f"smallest count dividing {t.leaf_up} uplinks is {s}"
        )
        return Plan(
            template=t,
            spines=s,
            leaf_spine_cables=t.leaf_up // s,
            notes=notes,
            **base,  # type: ignore[arg-type]
        )
    return _plan_three(t, base, notes, extra_leaves)


def _pod_spines(
    leaves: int, up: int, radix: int, r2: Fraction
) -> tuple[int, int, int] | None:
    """Spines per pod, spine down and up ports for a pod of ``leaves``; or None."""
    for s in divisors(up):
        down = leaves * (up // s)
        sup = uplinks_for(down, r2)
        if sup is not None and down + sup <= radix:
            return s, down, sup
    return None


def _plan_three(
    t: SuTemplate,
    base: dict[str, object],
    notes: list[str],
    extra_leaves: dict[int, set[int]],
) -> Plan:
    ratios: tuple[Fraction, ...] = base["ratios"]  # type: ignore[assignment]
    radix: int = base["radix"]  # type: ignore[assignment]
    su_nodes: tuple[int, ...] = base["su_nodes"]  # type: ignore[assignment]
    r2 = ratios[1]
    n_su = len(su_nodes)
    # Feasibility is not monotonic in the pod size: at 7:1, 8 leaves of 32
    # uplinks find no spine count with whole uplinks, 56 leaves do. So every
    # pod size is tried; the fewest pods win, then the smallest pod giving
    # that count (it balances them; only the last may be short).
    pod_sizes = [
        (ceil(n_su / q), q, found)
        for q in range(1, n_su + 1)
        if (found := _pod_spines(q * t.leaves, t.leaf_up, radix, r2)) is not None
    ]
    if not pod_sizes:
        raise _Infeasible(
            f"no pod of 1 to {n_su} scalable units ({t.leaves} leaves x "
            f"{t.leaf_up} uplinks each) wires equally to {radix}-port spines at "
            f"{fmt_ratio(r2)}"
        )
    chosen = None
    for pods, q, (sp, sdown, sup) in sorted(pod_sizes, key=lambda x: x[:2]):
        c = smallest_divisor_at_least(sup, ceil(pods * sup / radix))
        if c is not None:
            chosen = pods, q, sp, sdown, sup, c
            break
    if chosen is None:
        pods = pod_sizes[0][0]
        raise _Infeasible(
            f"three tiers cannot join {pods} pods: each core would need a port to "
            f"every pod but has {radix}"
        )
    pods, q, sp, sdown, sup, c = chosen
    per = " per rail plane" if base["planes"] != 1 else ""
    notes.append(
        f"pods{per}: {q} SU ({q * t.leaves} leaves) under {sp} spines, "
        f"{sdown} down / {sup} up ({fmt_ratio(r2)}); {pods} pods"
    )
    notes.append(
        f"cores{per}: {pods} pods x {sup} uplinks per spine need {c} cores per "
        f"spine position (smallest divisor of {sup} with {radix} ports enough), "
        f"{sp * c} cores"
    )
    return Plan(
        template=t,
        leaf_spine_cables=t.leaf_up // sp,
        sus_per_pod=q,
        pods=pods,
        spines_per_pod=sp,
        spine_down=sdown,
        spine_up=sup,
        cores_per_group=c,
        spine_core_cables=sup // c,
        notes=notes,
        **base,  # type: ignore[arg-type]
    )


def choose_plan(
    *,
    su_nodes: tuple[int, ...],
    su_size: int,
    ports: int,
    radix: int,
    ratios: tuple[Fraction, ...],
    rail_optimized: bool,
    tiers: int | None,
    extra_leaves: dict[int, set[int]] | None = None,
) -> Plan:
    """The plan with fewest tiers (then fewest rail planes) that fits, or raise.

    ``ratios`` has one down:up ratio per tier below the top (leaf, spine); a
    ratio other than 1 needs the tier above it, so it raises the least tier.
    """
    needed = max([i + 2 for i, r in enumerate(ratios) if r != 1], default=1)
    if tiers is not None and needed > tiers:
        raise GeneratorError(
            f"oversubscription {[fmt_ratio(r) for r in ratios]} sets a ratio for "
            f"tier {needed - 1} but a {tiers}-tier fabric has uplinks only below "
            f"tier {tiers}"
        )
    plane_counts = divisors(ports) if rail_optimized else [1]
    if tiers is None:
        order = [(t, 1) for t in (1, 2, 3) if t >= needed]
        order += [(3, p) for p in plane_counts[1:]]
    else:
        order = [(tiers, p) for p in (plane_counts if tiers > 1 else [1])]
    full = ratios + (Fraction(1),) * (2 - len(ratios))
    reasons: list[str] = []
    for t, p in order:
        try:
            return plan_fabric(
                su_nodes=su_nodes,
                su_size=su_size,
                ports=ports,
                radix=radix,
                ratios=full,
                rail_optimized=rail_optimized,
                tiers=t,
                planes=p,
                extra_leaves=extra_leaves,
            )
        except _Infeasible as exc:
            reasons.append(str(exc))
    endpoints = sum(su_nodes) * ports
    planes = max(p for _, p in order)
    tried = f", even as {planes} rail planes" if planes > 1 else ""
    top = tiers or 3
    limit = 2 * (radix // 2) ** top
    raise GeneratorError(
        f"{endpoints:,} endpoint ports do not fit in {top} tier(s) of {radix}-port "
        f"switches (non-blocking limit 2(k/2)^t = {limit:,}; {reasons[-1]}"
        f"{tried}); use "
        "more tiers, oversubscription, rail optimization or a higher-radix switch"
    )
