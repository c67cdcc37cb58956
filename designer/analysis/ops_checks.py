"""Findings on storage and operations: storage kind and bandwidth against
RA-H100 Table 6, the out-of-band network, scheduler and monitoring (the codes
are listed in :mod:`designer.analysis.findings`)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from designer.analysis.context import (
    Context,
    finding,
    first_listed,
    is_training,
    item_ids,
)
from designer.analysis.index import (
    KIND_STORAGE,
    DesignIndex,
    IntArray,
)
from designer.analysis.reasons import managed
from designer.analysis.report import Finding, Severity

TABLE6_READ = {"good": 15.0, "better": 40.0, "best": 125.0}  # GB/s per SU
TABLE6_NODE_READ = {"good": 4.0, "better": 8.0}
SU_GPUS = 256


def check_storage_and_ops(ctx: Context) -> list[Finding]:
    """Storage kind and bandwidth, OOB network, scheduler, monitoring."""
    out: list[Finding] = []
    idx, s = ctx.index, ctx.design.settings
    storage = np.flatnonzero(idx.kind == KIND_STORAGE)
    kinds: Counter[str] = Counter()
    read = 0.0
    for i in storage.tolist():
        entry = idx.entries[idx.dev_catalog[i]]
        if entry is not None and entry.ext.storage is not None:
            kinds[entry.ext.storage.kind] += 1
            if entry.ext.storage.kind != "nfs":
                read += entry.ext.storage.read_gbytes_s
    if is_training(ctx) and ctx.gpus >= 8:
        if not len(storage):
            out.append(
                finding(
                    "NO_STORAGE",
                    Severity.WARNING,
                    "a training cluster needs shared storage (a parallel file "
                    "system such as Lustre, GPFS, WEKA or VAST); none is in the "
                    "design",
                )
            )
        elif set(kinds) == {"nfs"} and ctx.gpus > 64:
            out.append(
                finding(
                    "NFS_ONLY_STORAGE",
                    Severity.WARNING,
                    f"NFS is the only storage of a {ctx.gpus:,}-GPU training "
                    "cluster; NFS is too slow for training I/O past 64 GPUs: add "
                    "a parallel file system",
                    item_ids(ctx, storage),
                )
            )
        if len(storage) and set(kinds) != {"nfs"}:
            sus = max(ctx.gpus / SU_GPUS, 1e-9)
            good = max(TABLE6_NODE_READ["good"], TABLE6_READ["good"] * sus)
            better = max(TABLE6_NODE_READ["better"], TABLE6_READ["better"] * sus)
            if read < better:
                sev = Severity.WARNING if read < good else Severity.INFO
                level = "good" if read < good else "better"
                out.append(
                    finding(
                        "STORAGE_BANDWIDTH_LOW",
                        sev,
                        f"parallel storage reads {read:g} GB/s; NVIDIA's "
                        f"guidance for {sus:.2g} SU is {good:g} GB/s (good) / "
                        f"{better:g} GB/s (better) (RA-H100 Table 6: 15/40/125 "
                        f"GB/s per SU); below '{level}'",
                        item_ids(ctx, storage),
                    )
                )
    if len(idx.device_ids) > 1 and not managed(idx).any():
        # out-of-band links that reach no management switch do not count
        bmc = _with_bmc(idx)
        out.append(
            finding(
                "NO_OOB_NETWORK",
                Severity.WARNING,
                "no out-of-band management network: without BMC links (IPMI/"
                "Redfish, e.g. SN2201 1G switches) nodes cannot be power-cycled "
                f"or reinstalled remotely ({len(bmc):,} servers with a BMC port "
                f"have none){first_listed(len(bmc))}",
                item_ids(ctx, bmc),
            )
        )
    if not (s.scheduler or "").strip():
        out.append(
            finding(
                "NO_SCHEDULER",
                Severity.WARNING,
                "no scheduler set (Slurm, Kubernetes, Base Command); multi-user "
                "clusters need one",
            )
        )
    if not s.monitoring:
        out.append(
            finding(
                "NO_MONITORING",
                Severity.WARNING,
                "no monitoring set (e.g. DCGM, Prometheus, Grafana); GPU and "
                "fabric health go unwatched",
            )
        )
    return out


def _with_bmc(idx: DesignIndex) -> IntArray:
    """Servers (compute, storage, management) whose entry has an OOB-role port."""
    per_cat = np.array(
        [
            e is not None
            and e.category.value != "switch"
            and any(i.role.value == "oob" for i in e.interfaces)
            for e in idx.entries
        ],
        dtype=np.bool_,
    )
    if not len(per_cat):
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(per_cat[idx.dev_catalog])


__all__ = ["SU_GPUS", "TABLE6_NODE_READ", "TABLE6_READ", "check_storage_and_ops"]
