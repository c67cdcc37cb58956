"""``cluster-designer compare``: files, variants, options, errors and the JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from designer.cli.main import main
from designer.io import save_design
from designer.workload.variants import VARIANTS
from tests.workload.conftest import SAMPLES, dgx_tree
from tests.workload.test_compare import DESIGN_KEYS

DOC = Path(__file__).resolve().parents[2] / "docs" / "estimate-json.md"
README = Path(__file__).resolve().parents[2] / "README.md"
MINI = str(SAMPLES / "minimum-viable-enterprise.json")


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Design files: a 16-node tree (twice, same content), a 32-node tree."""
    folder = tmp_path_factory.mktemp("designs")
    out = {}
    for name, nodes in (("small", 16), ("small-copy", 16), ("large", 32)):
        path = folder / f"{name}.json"
        save_design(dgx_tree(nodes), path)
        out[name] = str(path)
    return out


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["compare", *argv, "--json"]) == 0, capsys.readouterr().err
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_a_file_with_itself_gives_equal_columns(
    capsys: pytest.CaptureFixture[str], trees: dict[str, str]
) -> None:
    small = trees["small"]
    data = run_json(capsys, small, small, "--model", "llama3-8b", "--tokens", "1T")
    a, b = data["designs"]
    assert a == b
    assert tuple(a) == DESIGN_KEYS
    assert a["file"] == small and data["baseline"] == small
    assert data["like_for_like"] is True
    assert a["days"] > 0 and a["usd_per_run_cloud"] > 0
    assert a["mfu_source"] == "model"  # the step model predicts it


def test_text_table_side_by_side(
    capsys: pytest.CaptureFixture[str], trees: dict[str, str]
) -> None:
    argv = [trees["small"], trees["large"], "--model", "llama3-8b", "--tokens", "1T"]
    assert main(["compare", *argv]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if "small" in line)
    assert re.search(r"small\s+large", header)
    for label in ("Bisection ratio", "Oversubscription", "Tokens/s", "MFU"):
        assert label in out
    # 128 vs 256 GPUs: said, and the size-bound rows marked
    assert "Not like for like" in out and "128 GPUs: small" in out
    assert re.search(r"^GPUs \*\s+128\s+256", out, re.MULTILINE)
    assert re.search(r"^Training time \*", out, re.MULTILINE)
    assert "All workload figures are estimates" in out


def test_variants_of_the_first_design(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "tree.json"
    save_design(dgx_tree(64), path)
    data = run_json(
        capsys,
        str(path),
        "--variant",
        "leaf-2:1",
        "--variant",
        "minus-spine",
        "--model",
        "llama3-8b",
        "--tokens",
        "1T",
    )
    base, half, minus = data["designs"]
    assert half["file"] == f"{path} (leaf uplinks 2:1)"
    assert half["oversubscription"]["leaf"] == pytest.approx(2.0, rel=0.02)
    assert half["bisection_ratio"] == pytest.approx(base["bisection_ratio"] / 2)
    assert minus["bisection_gbps"] < base["bisection_gbps"]
    assert half["days"] >= base["days"]
    assert any("leaf-to-spine cables removed" in n for n in data["notes"])
    assert any(n.startswith("tree (one spine fewer): 1 of 8") for n in data["notes"])


def test_one_design_alone_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", MINI]) == 2
    err = capsys.readouterr().err
    assert "one design given" in err and "--variant" in err


def test_a_variant_that_does_not_apply_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["compare", MINI, "--variant", "half-spines"]) == 2
    err = capsys.readouterr().err
    assert MINI in err and "no spine tier" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "no such file"),
        ('{"schema_version": 3, "devices": [', "expected"),
        ('{"schema_version": 3, "devices": [{"id": 1}]}', "devices"),
    ],
)
def test_a_bad_file_is_named(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    content: str | None,
    says: str,
) -> None:
    bad = tmp_path / "broken.json"
    if content is not None:
        bad.write_text(content, encoding="utf-8")
    assert main(["compare", MINI, str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert str(bad) in captured.err and says in captured.err
    assert "Traceback" not in captured.err


def test_every_bad_file_is_named_at_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    one.write_text("{", encoding="utf-8")
    assert main(["compare", str(one), MINI, str(two)]) == 2
    err = capsys.readouterr().err
    assert str(one) in err and str(two) in err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--model", "llama9-1t"], "unknown model 'llama9-1t'"),
        (["--mfu", "1.5"], "--mfu:"),
        (["--variant", "leaf-3:1"], "invalid choice"),
    ],
)
def test_bad_options_are_clear_errors(
    capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    assert main(["compare", MINI, MINI, *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and says in captured.err
    assert "Traceback" not in captured.err


def test_without_workload_it_says_what_is_missing(
    capsys: pytest.CaptureFixture[str], trees: dict[str, str]
) -> None:
    assert main(["compare", trees["small"], trees["small-copy"]]) == 0
    out = capsys.readouterr().out
    assert "No workload for small, small-copy" in out
    assert "no workload block and no workload options were given" in out
    assert "--model NAME" in out
    assert "Bisection ratio" in out  # the fabric is still compared


def test_every_json_key_and_the_command_are_documented(
    capsys: pytest.CaptureFixture[str], trees: dict[str, str]
) -> None:
    doc = DOC.read_text(encoding="utf-8")
    assert "## `compare --json`" in doc
    section = doc.split("## `compare --json`", 1)[1]
    data = run_json(capsys, trees["small"], trees["large"], "--model", "llama3-8b")
    keys = set(data) | set(data["designs"][0])
    assert sorted(k for k in keys if f"`{k}`" not in section) == []
    for v in VARIANTS:
        assert f"`{v.key}`" in section, v.key
    readme = README.read_text(encoding="utf-8")
    assert "cluster-designer compare " in readme
