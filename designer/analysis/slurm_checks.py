"""Findings about the hosts Slurm will schedule: NVL72 trays and NVLink blocks.

Only designs with a rack of compute trays (NVL72) are checked. Codes (see
:mod:`designer.analysis.findings` for the rest):

- ``TRAY_WITHOUT_COMPUTE_LINK`` [warning] a tray of a rack that has compute
  cables gets none of them (cables fill a rack's compute ports tray by tray, as
  the cabling plan lays them out): that host reaches no other rack, and Slurm's
  tree lists it under no leaf. Racks with no compute link at all are
  ``UNCONNECTED_COMPUTE``'s.
- ``NVLINK_DOMAINS_UNEQUAL`` [warning] NVLink domains of different host counts
  (the smallest is Slurm's base block), or multi-GPU hosts in no NVLink block
  next to NVL72 racks (slurmctld warns that the blocks lack access to them).
- ``BLOCK_SIZE_MISALIGNED`` [warning] a leaf group (racks on the same compute
  leaves) whose rack count is not the largest block size of Slurm's doubling
  series (:mod:`designer.analysis.blocks`): a job spanning the group cannot ask
  for it as one block, and a larger block would straddle leaf groups.
"""

from __future__ import annotations

from designer.analysis.blocks import cabled_trays, compute_leaves, plan_blocks
from designer.analysis.context import MAX_ITEMS, Context
from designer.analysis.report import Finding, Severity
from designer.catalog.hosts import DesignHosts
from designer.core.formatting import plural
from designer.core.hostnames import compress_hostlist

__all__ = ["check_slurm"]


def check_slurm(ctx: Context) -> list[Finding]:
    """The three checks above (nothing for a design without trays)."""
    idx = ctx.index
    if not any(e is not None and e.ext.trays is not None for e in idx.entries):
        return []
    hosts = DesignHosts(ctx.design, idx.catalog)
    racks = [d for d in hosts.device_names if hosts.has_trays(d)]
    if not racks:
        return []
    out: list[Finding] = []
    out += _uncabled_trays(ctx, hosts, racks)
    plan = plan_blocks(hosts, compute_leaves(idx, set(racks)))
    if plan is None:
        return out
    if plan.unequal or plan.outside:
        sizes: dict[int, int] = {}
        for b in plan.blocks:
            sizes[len(b.hosts)] = sizes.get(len(b.hosts), 0) + 1
        parts = [
            f"{plural(n, 'domain')} of {plural(k, 'host')}"
            for k, n in sorted(sizes.items(), reverse=True)
        ]
        text = (
            "NVLink domains differ: "
            + ", ".join(parts)
            + f". Slurm's block topology takes the smallest, {plan.base} hosts, "
            "as its base block"
        )
        if plan.outside:
            text += (
                f"; {plural(len(plan.outside), 'host')} "
                f"({compress_hostlist([h.name for h in plan.outside][:200])}) "
                "are in no NVLink block, and slurmctld warns that the blocks lack "
                "access to them: give them a partition on the tree topology "
                "(topology.yaml, Topology=tree)"
            )
        devices = sorted({h.device for h in plan.outside})
        if plan.unequal:
            devices += [b.device for b in plan.blocks if len(b.hosts) != plan.base]
        out.append(
            Finding(
                code="NVLINK_DOMAINS_UNEQUAL",
                severity=Severity.WARNING,
                message=text,
                items=devices[:MAX_ITEMS],
            )
        )
    bad = plan.misaligned
    if bad:
        largest = 1 << plan.levels
        sizes_text = ", ".join(str(x) for x in plan.sizes)
        worst = max(bad, key=lambda g: len(g.domains))
        n = len(worst.domains)
        group_racks = compress_hostlist(d.device for d in worst.domains)
        wired = [len(g.domains) for g in plan.groups if g.leaves]
        why = (
            f"{n} is no power of two"
            if n & (n - 1)
            else f"another leaf group has only {plural(min(wired), 'rack')}"
        )
        out.append(
            Finding(
                code="BLOCK_SIZE_MISALIGNED",
                severity=Severity.WARNING,
                message=(
                    f"The {n} racks {group_racks} "
                    "share their compute leaves, but Slurm's block sizes double "
                    f"from one NVLink domain ({sizes_text} hosts) and stop at "
                    f"{plural(largest, 'rack')}, the most that tiles every leaf "
                    f"group ({why}): a job of up to {n} racks on those leaves "
                    "cannot ask for them as one block, and a larger block would "
                    "straddle leaf groups. Make every leaf group the same "
                    "power-of-two number of racks (2, 4, 8, 16)."
                ),
                items=[d.device for g in bad for d in g.domains][:MAX_ITEMS],
            )
        )
    return out


def _uncabled_trays(
    ctx: Context, hosts: DesignHosts, racks: list[str]
) -> list[Finding]:
    cabled = cabled_trays(ctx.index, hosts)
    missing: dict[str, list[int]] = {}
    for rack in racks:
        got = cabled.get(rack, set())
        if not got:
            continue  # no compute link at all: UNCONNECTED_COMPUTE
        trays = [h.tray for h in hosts.of_device(rack) if h.tray is not None]
        lacking = [t for t in trays if t not in got]
        if lacking:
            missing[rack] = lacking
    if not missing:
        return []
    n = sum(len(v) for v in missing.values())
    names = [hosts.hostname(r, t) for r, trays in missing.items() for t in trays]
    return [
        Finding(
            code="TRAY_WITHOUT_COMPUTE_LINK",
            severity=Severity.WARNING,
            message=(
                f"{plural(n, 'compute tray')} on {plural(len(missing), 'rack')} "
                f"{'has' if n == 1 else 'have'} no compute-fabric cable: "
                f"{compress_hostlist(names[:500])} (cables fill a rack's compute "
                "ports tray by tray). Those hosts reach no other rack, and Slurm's "
                "tree lists them under no leaf; cable every tray's compute ports."
            ),
            items=list(missing)[:MAX_ITEMS],
        )
    ]
