"""Benchmark of loading design files: time and peak memory against file size.

Plain script, not part of the test run::

    .venv/bin/python bench/bench_load.py [--gpus 1000,16000,100000]
        [--hostile-mb 300] [--naive-max-mb 40] [--repeat 3] [--baseline-src DIR]

Each measurement runs in a fresh Python process, which reads the file and loads
it once; the table shows the best of ``--repeat`` runs: wall time, CPU time,
and peak memory: the process's peak RSS (``VmHWM``, reset through
``/proc/self/clear_refs`` after the imports; Linux) less its RSS just before
the file is read, so the file's own bytes count. RSS, not tracemalloc: the
model is built by pydantic-core outside Python's allocator.

Rows:

* valid designs (rail-optimized fat trees of DGX H100 and QM9700, the sizes in
  ``--gpus``): ``load_design`` against the naive path (``json.loads`` then
  ``Design.model_validate``) in the same run, and against the loader of another
  source tree when ``--baseline-src`` names one (for example an older commit
  from ``git archive``);
* hostile files: a valid 100,000-GPU design plus an unknown key holding an
  array of ``--hostile-mb`` MB, ten million link ids, link columns of different
  lengths, and nesting 150 million levels deep. The naive path is run only on
  files up to ``--naive-max-mb`` (it needs tens of bytes per element: 12.5 GB
  for the 300 MB file), on a smaller file of the same kind for the ratio (the
  unknown key then beside a 1,000-GPU design).

Aim (issue 9): hostile files refused in seconds within about 3x their size;
valid designs no slower than before.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, os, resource, sys, time
mode, path = sys.argv[1], sys.argv[2]
from designer.catalog.loader import default_catalog
from designer.core.model import Design
from designer.io import DesignFileError, load_design
default_catalog()
def status(field):
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
def rss():
    return status("VmHWM")
with open("/proc/self/clear_refs", "w") as handle:
    handle.write("5")  # reset the peak: imports must not count
before = status("VmRSS")
wall, cpu = time.perf_counter(), time.process_time()
try:
    if mode == "naive":
        with open(path, "rb") as handle:
            Design.model_validate(json.loads(handle.read()))
    else:
        load_design(path)
    outcome = "loaded"
except DesignFileError as exc:
    outcome = "refused: " + str(exc).split(": ", 2)[-1][:60]
except Exception as exc:  # the naive path has no clear errors
    outcome = type(exc).__name__ + ": " + str(exc).splitlines()[0][:50]
print(json.dumps({
    "wall": time.perf_counter() - wall,
    "cpu": time.process_time() - cpu,
    "peak": rss() - before,
    "outcome": outcome,
}))
"""


def measure(mode: str, path: Path, repeat: int, src: Path = ROOT) -> dict[str, Any]:
    """Best of ``repeat`` fresh processes (by CPU time; peak is the lowest)."""
    runs = []
    env = {**os.environ, "PYTHONPATH": str(src)}
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", CHILD, mode, str(path)],
            capture_output=True,
            text=True,
            env=env,
            cwd=src,
            check=False,
        )
        if out.returncode != 0:
            return {"wall": 0.0, "cpu": 0.0, "peak": 0, "outcome": out.stderr[-80:]}
        runs.append(json.loads(out.stdout))
    best = min(runs, key=lambda r: r["cpu"])
    best["peak"] = min(r["peak"] for r in runs)
    return best


def _write_valid(path: Path, gpus: int) -> None:
    from designer.generate import fat_tree
    from designer.io import save_design

    design = fat_tree("dgx-h100", -(-gpus // 8), "qm9700")
    try:  # a file as the program saves it: every cable's ports pinned
        from designer.io.export.cables import pinned_design
    except ImportError:
        try:  # a tree from before pinned_design moved to io.export.cables
            from designer.io.export.cabling import pinned_design
        except ImportError:  # a tree from before pinned ports
            pinned_design = None
    if pinned_design is not None:
        design = pinned_design(design)
    save_design(design, path)


def _write_unknown_key(path: Path, size_mb: int, base: Path) -> None:
    text = base.read_bytes()
    body = text.rstrip()[:-1].rstrip()  # drop the final '}'
    elements = max(1, size_mb * 1_000_000 // 2)
    with path.open("wb") as out:
        out.write(body + b',\n  "junk": [')
        block = b"1," * 1_000_000
        left = elements - 1
        while left > 0:
            n = min(left, 1_000_000)
            out.write(block[: 2 * n])
            left -= n
        out.write(b"1]\n}\n")


def _write_ids(path: Path, count: int) -> None:
    with path.open("wb") as out:
        out.write(b'{"schema_version": 1, "links": {"id": [')
        step = 1_000_000
        for start in range(0, count, step):
            ids = ", ".join(f'"l{i}"' for i in range(start, min(count, start + step)))
            out.write(ids.encode() + (b", " if start + step < count else b""))
        out.write(b"]}}\n")


def _write_uneven(path: Path, count: int) -> None:
    columns = {
        "id": lambda i: f'"l{i}"',
        "a": lambda i: '"dgx-1"',
        "a_port": lambda i: '"compute"',
        "b": lambda i: '"leaf-1"',
        "b_port": lambda i: '"ports"',
        "cables": lambda i: "1",
        "speed_gbps": lambda i: "400",
        "fabric": lambda i: '"compute"',
        "rail": lambda i: "0",
    }
    with path.open("wb") as out:
        out.write(b'{"schema_version": 1, "links": {')
        for k, (name, value) in enumerate(columns.items()):
            n = count + 1 if name == "rail" else count
            out.write(f'"{name}": ['.encode())
            out.write(", ".join(value(i) for i in range(n)).encode())
            out.write(b"]" + (b", " if k < len(columns) - 1 else b""))
        out.write(b"}}\n")


def _write_deep(path: Path, size_mb: int) -> None:
    depth = size_mb * 1_000_000 // 2
    with path.open("wb") as out:
        out.write(b'{"schema_version": 1, "settings": ')
        for chunk in (b"[", b"]"):
            left = depth
            while left > 0:
                n = min(left, 10_000_000)
                out.write(chunk * n)
                left -= n
        out.write(b"}\n")


def _row(
    name: str,
    path: Path,
    args: argparse.Namespace,
    naive_path: Path | None,
    baseline: str,
) -> list[str]:
    size = path.stat().st_size
    new = measure("load", path, args.repeat)
    cells = [
        name,
        f"{size / 1e6:,.1f}",
        f"{new['wall']:.2f}",
        f"{new['cpu']:.2f}",
        f"{new['peak'] / 1e6:,.0f}",
        f"{new['peak'] / size:.1f}x",
    ]
    if baseline == "yes":
        old = measure("load", path, args.repeat, Path(args.baseline_src))
        cells.append(f"{old['cpu']:.2f}")
        cells.append(f"{old['cpu'] / max(new['cpu'], 1e-9):.2f}x")
    elif baseline == "skip":
        cells += ["-", "-"]
    if naive_path is not None:
        naive = measure("naive", naive_path, args.repeat)
        small = new
        if naive_path != path:
            small = measure("load", naive_path, args.repeat)
        naive_size = naive_path.stat().st_size
        cells += [
            f"{naive_size / 1e6:,.1f}",
            f"{naive['cpu']:.2f}",
            f"{naive['peak'] / 1e6:,.0f}",
            f"{naive['peak'] / naive_size:.1f}x",
            f"{naive['cpu'] / max(small['cpu'], 1e-9):.1f}x",
            f"{naive['peak'] / max(small['peak'], 1):.1f}x",
        ]
    else:
        cells += ["-"] * 6
    cells.append(new["outcome"])
    return cells


def _table(rows: list[list[str]], head: list[str]) -> str:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines = ["  ".join(h.rjust(w) for h, w in zip(head, widths, strict=True))]
    for r in rows:
        lines.append("  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)))
    return "\n".join(lines)


def main() -> None:
    """Write the files, measure, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gpus", default="1000,16000,100000")
    parser.add_argument("--hostile-mb", type=int, default=300)
    parser.add_argument("--naive-max-mb", type=float, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline-src", default=None, metavar="DIR")
    args = parser.parse_args()
    baseline = args.baseline_src is not None
    sys.path.insert(0, str(ROOT))
    rows: list[list[str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        base = folder / "valid-100000.json"
        for gpus in [int(g) for g in args.gpus.split(",")]:
            path = folder / f"valid-{gpus}.json"
            if not path.exists():
                _write_valid(path, gpus)
            rows.append(
                _row(
                    f"valid {gpus:,} GPUs", path, args, path, "yes" if baseline else ""
                )
            )
        if not base.exists():
            _write_valid(base, 100_000)
        small_base = folder / "valid-1000.json"
        if not small_base.exists():
            _write_valid(small_base, 1000)
        hostile: list[tuple[str, Callable[[Path], None], Callable[[Path], None]]] = [
            (
                f"unknown key, {args.hostile_mb} MB array",
                lambda p: _write_unknown_key(p, args.hostile_mb, base),
                lambda p: _write_unknown_key(p, 30, small_base),
            ),
            (
                "10M link ids",
                lambda p: _write_ids(p, 10_000_000),
                lambda p: _write_ids(p, 2_100_000),
            ),
            (
                "uneven columns, 1.9M links",
                lambda p: _write_uneven(p, 1_900_000),
                lambda p: _write_uneven(p, 500_000),
            ),
            (
                f"nested {args.hostile_mb // 2}M deep",
                lambda p: _write_deep(p, args.hostile_mb),
                lambda p: _write_deep(p, 30),
            ),
        ]
        for name, write_big, write_small in hostile:
            big, small = folder / "hostile.json", folder / "hostile-small.json"
            write_big(big)
            naive: Path | None = big
            if big.stat().st_size > args.naive_max_mb * 1e6:
                write_small(small)
                naive = (
                    small if small.stat().st_size <= args.naive_max_mb * 1e6 else None
                )
            rows.append(_row(name, big, args, naive, "skip" if baseline else ""))
            big.unlink()
            small.unlink(missing_ok=True)
    head = ["file", "MB", "wall s", "cpu s", "peak MB", "x size"]
    if baseline:
        head += ["before cpu s", "before/now"]
    head += [
        "naive on MB",
        "naive cpu s",
        "naive peak",
        "x size",
        "naive/now cpu",
        "naive/now peak",
        "outcome",
    ]
    print(_table(rows, head))


if __name__ == "__main__":
    main()
