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

It prints the seconds of each, the ratios and whether both found the same
requests/s (colocated / disaggregated, within 0.1 %). Every split of every
pair cannot be swept at 100K GPUs in a bench run: there the naive
disaggregated sweep is timed on the first ``--sample`` shapes (pairs of them,
with the closed form on the same pairs for the "same" column) and scaled by
the number of pairs, shown as "(xN)".
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
from designer.workload.serving_search import ServingPlan, disaggregate, search

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


def _disagg(
    m: ReplicaModel, gpus: int, domain: int, plan: ServingPlan, naive: bool
) -> tuple[float, float, int]:
    """(seconds, requests/s, evaluations) of the disaggregated search."""
    t0 = time.perf_counter()
    dis, n = disaggregate(m, gpus, domain, plan, naive=naive)
    return time.perf_counter() - t0, dis.requests_per_s if dis else 0.0, n


def run(gpus: int, models: list[str], sample: int) -> list[dict[str, str]]:
    rows = []
    for system, (gpu, domain, nvlink) in SYSTEMS.items():
        view = _view(gpus, domain, nvlink)
        for name in models:
            out: dict[str, str] = {"GPUs": f"{gpus:,}", "system": system, "model": name}

            def model(
                name: str = name, gpu: ServingGpu = gpu, view: FabricView = view
            ) -> ReplicaModel:
                return ReplicaModel(
                    preset(name), gpu, view, Precision.FP8, Precision.FP8, LOAD
                )

            # colocated: the SLO search against every TP/PP and every batch
            t0 = time.perf_counter()
            fast = search(model(), gpus, domain)
            t_fast = time.perf_counter() - t0
            t0 = time.perf_counter()
            slow = search(model(), gpus, domain, naive=True)
            t_slow = time.perf_counter() - t0
            rf = fast.best.tokens_per_s / LOAD.output if fast.best else 0.0
            rs = slow.best.tokens_per_s / LOAD.output if slow.best else 0.0
            out["colocated s"] = f"{t_fast:.3f}"
            out["naive s"] = f"{t_slow:.2f}"
            out["ratio"] = f"{t_slow / t_fast:,.0f}x"
            out["req/s"] = f"{rf:,.0f}"
            out["naive req/s"] = f"{rs:,.0f}"
            # disaggregated: every pair of the naive shapes, the split in closed
            # form against every split; at scale the naive sweep is timed on
            # the first ``sample`` shapes (both ways) and extrapolated by pairs
            d_fast, q_fast, _ = _disagg(model(), gpus, domain, slow, naive=False)
            shapes = slow.shapes
            part = ServingPlan(None, shapes[:sample], 0) if sample else slow
            _, q_pf, _ = _disagg(model(), gpus, domain, part, naive=False)
            p_slow, q_ps, _ = _disagg(model(), gpus, domain, part, naive=True)
            scale = (len(shapes) / len(part.shapes)) ** 2
            d_slow = p_slow * scale
            tag = "" if scale == 1 else f" (x{scale:,.0f})"
            out["disagg. s"] = f"{d_fast:.2f}"
            out["naive disagg. s"] = f"{d_slow:,.1f}{tag}"
            out["disagg. ratio"] = f"{d_slow / d_fast:,.0f}x"
            out["disagg. req/s"] = f"{q_fast:,.0f}"
            same_c = abs(rf - rs) <= 1e-3 * max(rs, 1e-9)
            same_d = abs(q_pf - q_ps) <= 1e-3 * max(q_ps, 1e-9)
            out["same"] = (
                ("yes" if same_c else "naive better")
                + " / "
                + ("yes" if same_d else "naive better")
            )
            rows.append(out)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,100000")
    ap.add_argument("--models", default="llama3-70b,mixtral-8x7b")
    ap.add_argument(
        "--sample",
        type=int,
        default=12,
        help="shapes the naive disaggregated sweep is timed on above 10K GPUs",
    )
    args = ap.parse_args()
    rows: list[dict[str, str]] = []
    for size in (int(s) for s in args.sizes.split(",")):
        rows += run(size, args.models.split(","), args.sample if size > 10_000 else 0)
    cols = list(rows[0])
    width = {c: max(len(c), *(len(r[c]) for r in rows)) for c in cols}
    print("  ".join(c.rjust(width[c]) for c in cols))
    for r in rows:
        print("  ".join(r[c].rjust(width[c]) for c in cols))


if __name__ == "__main__":
    main()
