"""generate -> validate --json reproduces the published tables through the report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from designer.cli.main import main
from designer.core.model import SCHEMA_VERSION

pytest.importorskip("designer.generate")


def run_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], *gen: str) -> Any:
    """Generate with ``gen`` arguments, validate --json, return (report, exit code)."""
    path = tmp_path / "design.json"
    assert main(["generate", *gen, "-o", str(path)]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {path}: ")
    code = main(["validate", str(path), "--json"])
    captured = capsys.readouterr()
    assert captured.err == ""
    return json.loads(captured.out), code


# RA-H100 Table 4: SU, nodes, GPUs, leaf, spine, compute+UFM cables, spine-leaf cables
TABLE_4 = [
    (1, 31, 248, 8, 4, 252, 256),
    (2, 63, 504, 16, 8, 508, 512),
    (3, 95, 760, 24, 16, 764, 768),
    (4, 127, 1016, 32, 16, 1020, 1024),
]


@pytest.mark.parametrize(
    ("sus", "nodes", "gpus", "leaf", "spine", "down", "up"), TABLE_4
)
def test_ra_h100_table_4(
    sus: int,
    nodes: int,
    gpus: int,
    leaf: int,
    spine: int,
    down: int,
    up: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    report, code = run_json(
        tmp_path, capsys, "superpod", "--system", "dgx-h100", "--sus", str(sus)
    )
    assert report["gpus"] == gpus
    assert report["compute_nodes"] == nodes
    assert report["switches"].get("leaf") == leaf
    assert report["switches"].get("spine") == spine
    assert report["switches"].get("core", 0) == 0
    assert report["cables"]["compute"] == down + up
    bis = report["bisection"]
    assert bis["exact"] is True
    assert bis["ratio"] == pytest.approx(1.0)
    # The smaller half holds floor(nodes / 2) DGX, 8 x 400G each.
    assert bis["gbps"] == pytest.approx(nodes // 2 * 8 * 400)
    # Leaves: DGX + 4 UFM (200G) ports down, 32 x 400G up; one DGX per design
    # removed for UFM leaves them just under 1:1.
    leaf_down = nodes * 8 * 400 + 4 * 200
    assert report["oversubscription"]["leaf"] == pytest.approx(
        leaf_down / (leaf * 32 * 400)
    )
    assert report["oversubscription"]["spine"] is None
    assert code in (0, 1)
    assert code == (
        1 if any(f["severity"] == "error" for f in report["findings"]) else 0
    )


# RA-B200 Table 3: SU, nodes, GPUs, leaf, spine, core, node-leaf, leaf-spine, spine-core
TABLE_3 = [
    (2, 64, 512, 16, 8, 0, 512, 512, 0),
    (4, 128, 1024, 32, 16, 0, 1024, 1024, 0),
    (8, 256, 2048, 64, 32, 0, 2048, 2048, 0),
    (16, 512, 4096, 128, 128, 64, 4096, 4096, 4096),
    (32, 1024, 8192, 256, 256, 128, 8192, 8192, 8192),
    (64, 2048, 16384, 512, 512, 256, 16384, 16384, 16384),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sus", "nodes", "gpus", "leaf", "spine", "core", "c1", "c2", "c3"), TABLE_3
)
def test_ra_b200_table_3(
    sus: int,
    nodes: int,
    gpus: int,
    leaf: int,
    spine: int,
    core: int,
    c1: int,
    c2: int,
    c3: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    report, _ = run_json(
        tmp_path, capsys, "superpod", "--system", "dgx-b200", "--sus", str(sus)
    )
    assert report["gpus"] == gpus
    assert report["compute_nodes"] == nodes
    assert report["switches"].get("leaf") == leaf
    assert report["switches"].get("spine") == spine
    assert report["switches"].get("core", 0) == core
    assert report["cables"]["compute"] == c1 + c2 + c3
    bis = report["bisection"]
    assert bis["exact"] is True
    assert bis["gbps"] == pytest.approx(gpus // 2 * 400)
    assert bis["ratio"] == pytest.approx(1.0)


@pytest.mark.parametrize("k", [4, 8])
def test_k_ary_fat_tree(
    k: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report, _ = run_json(tmp_path, capsys, "k-ary", "--k", str(k))
    hosts = k**3 // 4
    assert report["compute_nodes"] == hosts
    assert (
        sum(v for t, v in report["switches"].items() if t != "other") == 5 * k * k // 4
    )
    assert report["switches"].get("core") == k * k // 4
    assert report["bisection"]["exact"] is True
    assert report["bisection"]["gbps"] == pytest.approx(hosts // 2 * 400)


def test_fat_tree_two_to_one_at_the_leaves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report, _ = run_json(
        tmp_path, capsys, "fat-tree", "--compute", "dgx-h100", "--nodes", "64",
        "--switch", "qm9700", "--oversubscription", "2",
    )  # fmt: skip
    assert report["gpus"] == 512
    assert report["oversubscription"]["leaf"] == pytest.approx(2.0)
    assert report["bisection"]["ratio"] == pytest.approx(0.5)
    assert report["bisection"]["gbps"] == pytest.approx(256 * 400 / 2)
    codes = {f["code"] for f in report["findings"]}
    assert any("oversub" in c.lower() for c in codes), codes


def test_validate_human_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "pod.json"
    assert main(["generate", "superpod", "--system", "dgx-h100", "--sus", "4",
                 "-o", str(path)]) == 0  # fmt: skip
    capsys.readouterr()
    code = main(["validate", str(path)])
    out = capsys.readouterr().out
    assert code in (0, 1)
    assert "1,016 in 127 compute nodes" in out
    assert "Switches         32 leaves, 16 spines" in out
    assert "Gb/s (exact)" in out
    assert "Tier" in out and "typical cost" in out
    assert "Findings" in out


def test_validate_exit_one_on_error_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A DGX left unconnected beside a working pair is an error finding."""
    design = {
        "schema_version": 1,
        "devices": [
            {"id": "a", "catalog_id": "dgx-h100"},
            {"id": "b", "catalog_id": "dgx-h100"},
            {"id": "lonely", "catalog_id": "dgx-h100"},
            {"id": "sw", "catalog_id": "qm9700"},
        ],
        "links": {
            "id": ["l1", "l2"],
            "a": ["a", "b"],
            "a_port": ["compute", "compute"],
            "b": ["sw", "sw"],
            "b_port": ["ports", "ports"],
            "cables": [8, 8],
            "speed_gbps": [400, 400],
            "fabric": ["compute", "compute"],
            "rail": [None, None],
        },
    }
    path = tmp_path / "lonely.json"
    path.write_text(json.dumps(design), encoding="utf-8")
    assert main(["validate", str(path), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    errors = [f for f in report["findings"] if f["severity"] == "error"]
    assert any("lonely" in f["items"] for f in errors), errors
    assert main(["validate", str(path)]) == 1
    assert "ERROR" in capsys.readouterr().out


def test_generate_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "k-ary", "--k", "4", "-o", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema_version"] == SCHEMA_VERSION
    assert len(data["devices"]) == 16 + 20


def test_every_report_field_is_documented(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/validate-json.md names every key validate --json prints."""
    doc = (Path(__file__).parents[2] / "docs" / "validate-json.md").read_text(
        encoding="utf-8"
    )
    report, _ = run_json(tmp_path, capsys, "k-ary", "--k", "4")
    keys = set(report)
    for nested in ("bisection", "cost_usd", "tier"):
        keys |= set(report[nested])
    keys |= set(report["findings"][0]) if report["findings"] else set()
    keys |= set(next(iter(report["tiers"].values())))
    keys |= set(report["cost_usd"]["lines"][0])
    missing = sorted(k for k in keys if f"`{k}`" not in doc)
    assert missing == []


def test_refine_seconds_reaches_the_analysis(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--refine-seconds`` sets the refinement limit (default 2 s); a value that
    is not a positive number is refused by name."""
    import designer.analysis as analysis

    path = tmp_path / "pod.json"
    assert main(["generate", "k-ary", "--k", "4", "-o", str(path)]) == 0
    capsys.readouterr()
    seen: list[float | None] = []
    real = analysis.analyze

    def spy(design: Any, **kw: Any) -> Any:
        seen.append(kw.get("refine_seconds"))
        return real(design, **kw)

    monkeypatch.setattr(analysis, "analyze", spy)
    assert main(["validate", str(path)]) in (0, 1)
    assert main(["validate", str(path), "--refine-seconds", "7.5"]) in (0, 1)
    assert seen == [2.0, 7.5]
    capsys.readouterr()
    assert main(["validate", str(path), "--refine-seconds", "0"]) == 2
    assert "--refine-seconds: expected a number > 0, got '0'" in capsys.readouterr().err
