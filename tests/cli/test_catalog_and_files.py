"""``--catalog DIR`` and ``CLUSTER_DESIGNER_CATALOG``, strict JSON output, and the
messages for duplicate keys and hostile files: exit codes and stderr, never a
traceback.

The command runs in-process (:func:`cli`: ``main(argv)`` with stdout and stderr
captured and the environment as given), which is what the messages and exit
codes are about; whatever would start the editor runs the real command in a
subprocess (:func:`cli_process`), so a refusal that came too late would open a
window there, not in the test run, and the editor's launch is the real one."""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from designer.catalog.loader import CATALOG_ENV, default_catalog_dir, use_catalog_dir
from designer.cli.main import main
from designer.cli.summary import _usd
from designer.core.limits import MAX_PRICE_USD
from designer.generate import k_ary
from designer.io import save_design
from designer.io.export._common import csv_number, strict_json

ROOT = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def _environment(env: dict[str, str] | None) -> Iterator[None]:
    """The process environment without :data:`CATALOG_ENV`, plus ``env``; the
    old one back afterwards (as is the catalog folder ``--catalog`` chose)."""
    saved = dict(os.environ)
    os.environ.pop(CATALOG_ENV, None)
    os.environ.update(env or {})
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
        use_catalog_dir(None)


def cli(
    *args: str | Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The command in-process: its exit code, stdout and stderr."""
    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    with (
        _environment(env),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        code = main(argv)
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


def cli_process(
    *args: str | Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The real command in a subprocess."""
    clean = {k: v for k, v in os.environ.items() if k != CATALOG_ENV}
    result = subprocess.run(
        [sys.executable, "-m", "designer.cli.main", *map(str, args)],
        cwd=ROOT,
        env={**clean, "QT_QPA_PLATFORM": "offscreen", **(env or {})},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


@pytest.fixture
def design_file(tmp_path: Path) -> Path:
    path = tmp_path / "k4.json"
    save_design(k_ary(4), path)
    return path


@pytest.fixture
def own_catalog(tmp_path: Path) -> Path:
    """A copy of the shipped catalog."""
    folder = tmp_path / "catalog"
    shutil.copytree(default_catalog_dir(), folder)
    return folder


def total_cost(result: subprocess.CompletedProcess[str]) -> float:
    assert result.returncode in (0, 1), result.stderr
    return float(json.loads(result.stdout)["cost_usd"]["total"])


MISSING = "no such folder (from --catalog or CLUSTER_DESIGNER_CATALOG); expected "
MISSING += (
    "a catalog folder of YAML files, one per device type (like resources/catalog)"
)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("where", "run"),
    [
        (["--catalog", "{dir}", "validate", "{file}"], cli),
        (["validate", "{file}", "--catalog", "{dir}"], cli),
        (["validate", "--catalog={dir}", "{file}"], cli),
        (["export", "{file}", "--bom", "{out}", "--catalog", "{dir}"], cli),
        (["generate", "k-ary", "--k", "4", "-o", "{out}", "--catalog", "{dir}"], cli),
        # the editor: refused before Qt starts (a real process, in case it is not)
        (["{file}", "--catalog", "{dir}"], cli_process),
        (["--catalog", "{dir}", "{file}"], cli_process),
        (["gui", "--catalog", "{dir}"], cli_process),
    ],
)
def test_a_missing_catalog_folder_is_exit_2_with_a_clear_message(
    where: list[str], run: Any, design_file: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "nowhere"
    args = [
        a.format(dir=missing, file=design_file, out=tmp_path / "out") for a in where
    ]
    result = run(*args)
    assert result.returncode == 2
    assert result.stderr == f"cluster-designer: {missing}: {MISSING}\n"
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_the_environment_variable_names_the_catalog(
    design_file: Path, tmp_path: Path
) -> None:
    result = cli("validate", design_file, env={CATALOG_ENV: str(design_file)})
    assert result.returncode == 2
    assert result.stderr.startswith(f"cluster-designer: {design_file}: not a folder")


@pytest.mark.slow
def test_a_broken_catalog_file_names_file_and_place(
    design_file: Path, own_catalog: Path
) -> None:
    broken = own_catalog / "switch" / "qm9700.yaml"
    broken.write_text("slug: [qm9700\n", encoding="utf-8")
    result = cli("--catalog", own_catalog, "validate", design_file)
    assert result.returncode == 2
    assert result.stderr.startswith(
        f"cluster-designer: {broken}: not valid YAML at line"
    )


@pytest.mark.slow
def test_the_chosen_catalog_is_the_one_used(
    design_file: Path, own_catalog: Path
) -> None:
    shipped = total_cost(cli("validate", "--json", design_file))
    used = json.loads(design_file.read_text(encoding="utf-8"))["devices"][0]
    [entry] = own_catalog.rglob(f"{used['catalog_id']}.yaml")
    entry.unlink()  # our catalog does not have what the design uses
    gone = cli("validate", design_file, "--catalog", own_catalog)
    assert gone.returncode == 2
    assert f"unknown catalog id {used['catalog_id']!r}" in gone.stderr
    via_env = cli("validate", design_file, env={CATALOG_ENV: str(own_catalog)})
    assert via_env.returncode == 2 and via_env.stderr == gone.stderr
    flag_wins = cli(
        "validate", "--json", design_file, "--catalog", default_catalog_dir(),
        env={CATALOG_ENV: str(own_catalog)},
    )  # fmt: skip
    assert total_cost(flag_wins) == shipped


@pytest.mark.slow
def test_the_editor_opens_with_its_own_catalog(
    design_file: Path, own_catalog: Path, tmp_path: Path
) -> None:
    pytest.importorskip("PySide6")
    shot = tmp_path / "window.png"
    result = cli_process(design_file, "--catalog", own_catalog, "--screenshot", shot)
    assert result.returncode == 0, result.stderr
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _strict(text: str) -> Any:
    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in the output")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.slow
def test_validate_json_is_strict_at_the_price_limit(tmp_path: Path) -> None:
    design = k_ary(4)
    design.settings.price_overrides = {
        d.catalog_id: MAX_PRICE_USD for d in design.devices
    }
    path = tmp_path / "dear.json"
    save_design(design, path)
    result = cli("validate", "--json", path)
    report = _strict(result.stdout)
    assert math.isfinite(report["cost_usd"]["total"])
    assert report["cost_usd"]["total"] >= 36 * MAX_PRICE_USD
    summary = cli("validate", path).stdout
    assert not re.search(r"\b(inf|nan)\b", summary, re.IGNORECASE), summary
    assert re.search(r"Cost \(capex\)\s+\$36\.\dB", summary), summary


@pytest.mark.slow
def test_out_of_range_price_is_a_load_error(tmp_path: Path) -> None:
    data = json.loads(k_ary(4).model_dump_json())
    data["settings"]["price_overrides"] = {"generic-400g-64": 1e308}
    path = tmp_path / "inf.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = cli("validate", "--json", path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"cluster-designer: {path}: settings.price_overrides['generic-400g-64']: "
        "expected a number <= 1,000,000,000, found the number 1e+308\n"
    )


@pytest.mark.slow
def test_duplicate_key_message_from_the_command(tmp_path: Path) -> None:
    text = (
        '{"schema_version": 1,\n "devices": [{"id": "a", "label": "x",\n'
        '  "catalog_id": "qm9700", "label": "y"}]}'
    )
    path = tmp_path / "dup.json"
    path.write_text(text, encoding="utf-8")

    def at(pos: int) -> str:
        line = text.count("\n", 0, pos) + 1
        return f"line {line}, column {pos - text.rfind(chr(10), 0, pos)}"

    first, second = text.index('"label"'), text.rindex('"label"')
    result = cli("validate", path)
    assert result.returncode == 2
    assert result.stderr == (
        f"cluster-designer: {path}: devices[0].label ({at(second)}): duplicate "
        f"key 'label' (first at {at(first)}); expected each key once in an object\n"
    )
    assert at(second) == "line 3, column 27"


@pytest.mark.slow
def test_hostile_file_refused_quickly(tmp_path: Path) -> None:
    path = tmp_path / "ids.json"
    with path.open("w", encoding="utf-8") as handle:
        handle.write('{"schema_version": 1, "links": {"id": [')
        handle.write(", ".join(f'"l{i}"' for i in range(2_500_000)))
        handle.write("]}}")
    result = cli("validate", path)
    assert result.returncode == 2
    assert result.stderr == (
        f"cluster-designer: {path}: links.id: 2,500,000 entries; expected at most "
        "2,000,000 links (the most a design may hold)\n"
    )


def test_strict_json_replaces_and_names_non_finite_numbers() -> None:
    data, replaced = strict_json({"a": [1.0, math.inf], "b": {"c": math.nan}, "d": 2})
    assert data == {"a": [1.0, None], "b": {"c": None}, "d": 2}
    assert replaced == ["a[1]", "b.c"]
    json.dumps(data, allow_nan=False)


def test_numbers_for_people_and_csv_are_finite() -> None:
    assert _usd(math.inf) == "n/a (not a finite number)"
    assert _usd(2.5e9) == "$2.50B"
    assert csv_number(12.345) == "12.35"
    with pytest.raises(ValueError, match="not a finite number"):
        csv_number(math.nan)
