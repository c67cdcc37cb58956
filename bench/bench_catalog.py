"""Benchmark of loading the hardware catalog, against a naive loader.

Plain script, not part of the test run::

    .venv/bin/python bench/bench_catalog.py [--repeat 7]

Rows: ``load_catalog`` as the app calls it (libyaml's C parser where PyYAML has
it, one validation per entry) and the naive path in the same run (PyYAML's
pure-Python ``SafeLoader``, then the same validation), each the best and the
median of ``--repeat`` loads of the shipped catalog. The ratio is what to read:
the machine is shared and its absolute times move.

This replaced a timed test (``test_loads_fast``: under 250 ms per load), which
failed on a busy machine without any change to the code.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import yaml

from designer.catalog import loader


def _times(load: object, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        load()  # type: ignore[operator]
        out.append(time.perf_counter() - start)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    loader.load_catalog()  # warm imports
    entries = len(loader.load_catalog())
    ours = _times(loader.load_catalog, args.repeat)
    with mock.patch.object(loader, "_Loader", yaml.SafeLoader):
        naive = _times(loader.load_catalog, args.repeat)
    print(f"catalog: {entries} entries; best / median of {args.repeat} loads")
    print(f"{'path':<34} {'best ms':>9} {'median ms':>10} {'ratio':>7}")
    base = min(naive)
    for name, ts in (
        ("load_catalog (C parser)", ours),
        ("naive (pure-Python SafeLoader)", naive),
    ):
        print(
            f"{name:<34} {min(ts) * 1e3:>9.1f} {statistics.median(ts) * 1e3:>10.1f} "
            f"{base / min(ts):>6.1f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
