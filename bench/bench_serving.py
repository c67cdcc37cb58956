"""Benchmark of the serving SLO search against a naive sweep.

Plain script, not part of the test run::

    .venv/bin/python bench/bench_serving.py [--sizes 1000,100000]

For each size (GPUs: HGX H100 in 8-GPU NVLink domains on 400G NICs, and GB200
NVL72 racks) and model, the best replica shape under TTFT 450 ms / TPOT 40 ms
for a 1,024 / 256-token mix is found two ways:

- ``search``: TP and PP powers of two, EP 1 or TP, the largest batch meeting
  the limits by bisection (TPOT and TTFT grow with the batch), then the best
  disaggregated pair with its prefill/decode split in closed form;
- ``naive``: every TP that divides the heads and every PP up to 16, every
  batch from 1 to the KV cache's limit, then every pair with every split.

It prints the points evaluated, the seconds, the ratio and whether both found
the same requests/s (colocated and disaggregated, within 0.1 %).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from designer.core.workload import Precision
from designer.workload.collectives import FabricView, Level
from designer.workload.presets import preset
from designer.workload.serving import Load, ReplicaModel, ServingGpu
from designer.workload.serving_search import disaggregate, search

_SHARES = (0.8, 0.5, 0.55, 0.1)
SYSTEMS = {
    "HGX H100 (8)": (
        ServingGpu("H100 SXM", 80e9, 3.35e12, 1979e12, 989e12, 0.43, *_SHARES),
        8,
        450e9,
    ),
    "GB200 NVL72": (
        ServingGpu("B200 (GB200)", 186e9, 8e12, 5000e12, 2500e12, 0.40, *_SHARES),
        72,
        900e9,
    ),
}
LOAD = Load(1024, 256, 0.45, 0.04)


def _view(gpus: int, domain: int, nvlink: float) -> FabricView:
    nic = 50e9
    leaf = Level("leaf", max(1, 256 // domain), 256, 256 * nic, 1.0)
    return FabricView(gpus, domain, nvlink, nic, (leaf,), gpus * nic / 2, True)


def run(gpus: int, models: list[str]) -> list[dict[str, str]]:
    rows = []
    for system, (gpu, domain, nvlink) in SYSTEMS.items():
        view = _view(gpus, domain, nvlink)
        for name in models:
            out: dict[str, str] = {"GPUs": f"{gpus:,}", "system": system, "model": name}
            res = {}
            for how, naive in (("search", False), ("naive", True)):
                m = ReplicaModel(
                    preset(name), gpu, view, Precision.FP8, Precision.FP8, LOAD
                )
                t0 = time.perf_counter()
                plan = search(m, gpus, domain, naive=naive)
                dis, n_dis = disaggregate(m, gpus, domain, plan, naive=naive)
                dt = time.perf_counter() - t0
                rps = (
                    plan.best.best.requests_per_s * plan.best.replicas
                    if (plan.best and plan.best.best)
                    else 0.0
                )
                res[how] = (
                    dt,
                    plan.evaluated + n_dis,
                    rps,
                    dis.requests_per_s if dis else 0.0,
                )
            (ts, ns, rs, ds), (tn, nn, rn, dn) = res["search"], res["naive"]
            out["evaluated"] = f"{ns:,} / {nn:,}"
            out["search s"] = f"{ts:.3f}"
            out["naive s"] = f"{tn:.2f}"
            out["ratio"] = f"{tn / ts:,.0f}x"
            out["req/s colocated"] = f"{rs:,.0f}"
            out["naive colocated"] = f"{rn:,.0f}"
            out["req/s disagg."] = f"{ds:,.0f}"
            out["naive disagg."] = f"{dn:,.0f}"
            same = abs(rs - rn) <= 1e-3 * max(rn, 1e-9) and abs(ds - dn) <= 1e-3 * max(
                dn, 1e-9
            )
            better = rn > rs * (1 + 1e-3) or dn > ds * (1 + 1e-3)
            out["same"] = (
                "yes" if same else ("naive better" if better else "search better")
            )
            rows.append(out)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,100000")
    ap.add_argument("--models", default="llama3-70b,mixtral-8x7b")
    args = ap.parse_args()
    rows: list[dict[str, str]] = []
    for size in (int(s) for s in args.sizes.split(",")):
        rows += run(size, args.models.split(","))
    cols = list(rows[0])
    width = {c: max(len(c), *(len(r[c]) for r in rows)) for c in cols}
    print("  ".join(c.rjust(width[c]) for c in cols))
    for r in rows:
        print("  ".join(r[c].rjust(width[c]) for c in cols))


if __name__ == "__main__":
    main()
