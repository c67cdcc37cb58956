"""Shared by the Workload panel tests: the CLI's JSON, waiting for the estimate,
reading numbers back from what the panel and the report show."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

from designer.cli.main import main as cli_main

SAMPLES = Path(__file__).resolve().parents[3] / "samples"
WITH_WORKLOAD = sorted(
    p.name
    for p in SAMPLES.glob("*.json")
    if json.loads(p.read_text("utf-8")).get("workload") is not None
)


_ESTIMATES: dict[tuple[str, bytes, tuple[str, ...]], str] = {}


def cli_json(path: Path | str, *options: str) -> dict[str, Any]:
    """``cluster-designer estimate PATH --json [options]``, run in process.

    The output is kept by the file's path, its bytes and the options, so the
    tests that ask for the same estimate of the same file (the panel, the
    report and the serving tab, each against the CLI) run it once; a file
    that changed since is estimated again."""
    key = (str(path), Path(path).read_bytes(), options)
    if key not in _ESTIMATES:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = cli_main(["estimate", str(path), "--json", *options])
        assert code == 0, out.getvalue()
        _ESTIMATES[key] = out.getvalue()
    data: dict[str, Any] = json.loads(_ESTIMATES[key])
    return data


def at(data: dict[str, Any], path: str) -> Any:
    """The JSON value at a dotted figure path."""
    node: Any = data
    for part in path.split("."):
        node = node[part]
    return node


def wait_estimate(qtbot: Any, window: Any, timeout: int = 60_000) -> Any:
    """Wait until the panel shows the estimate of the design as it is now."""
    runner = window.estimate_runner
    qtbot.waitUntil(lambda: runner.current() is not None, timeout=timeout)
    qtbot.waitUntil(
        lambda: window.workload_panel.estimate is runner.current(), timeout=timeout
    )
    return runner.current()


def open_sample(qtbot: Any, main_window: Any, name: str) -> Any:
    """A window with ``samples/<name>`` open and its estimate shown."""
    window = main_window()
    assert window.open_path(SAMPLES / name)
    wait_estimate(qtbot, window)
    return window


UNITS = (
    r"(?:GB/s|Gb/s|GB|TB|B|ms|s|min|h|days|GPU-h|tokens/s|tokens|sequences|FLOP|kW"
    r"|TFLOP/s|years|requests/s|GPUs)"
)
"""The units a shown figure may end in."""
_NUMBER = re.compile(
    r"^(\$)?([-+]?[\d,]*\.?\d+(?:e[-+]?\d+)?)([KMBT])?\s*(%|" + UNITS + r")?$"
)
_SCALE = {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}
_IN_DAYS = {"s": 1 / 86_400, "min": 1 / 1_440, "h": 1 / 24, "days": 1.0}


def shown_number(text: str, unit: str = "") -> float | bool | str | None:
    """What a shown value says: a number (units and ``≈`` dropped, % as a
    share, K/M/B/T scaled, a duration in days when ``unit`` is days), yes/no,
    None for unknown, else the text itself."""
    text = text.strip().removeprefix("≈").strip()
    if text.startswith("unknown"):
        return None
    if text in ("yes", "no"):
        return text == "yes"
    match = _NUMBER.match(text)
    if match is None:
        return text
    value = float(match.group(2).replace(",", ""))
    if match.group(3):  # the one formatter's counts and money: 15T, $52.4M
        value *= _SCALE[match.group(3)]
    shown_unit = match.group(4)
    if unit == "days" and shown_unit in _IN_DAYS:  # 5.07 min of a days figure
        return value * _IN_DAYS[shown_unit]
    return value / 100 if shown_unit == "%" else value


def close(shown: float, exact: float) -> bool:
    """Whether ``shown`` is ``exact`` rounded as the formatting rounds (three
    significant figures or one decimal of a percentage at worst)."""
    if exact == 0:
        return abs(shown) < 1e-9
    return abs(shown - exact) <= max(abs(exact) * 6e-3, 5e-4 if abs(exact) < 1 else 0.5)
