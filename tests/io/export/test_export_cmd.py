"""``cluster-designer export`` for the pure formats: no Qt, clear errors."""

from __future__ import annotations

import argparse
import csv
import io
import subprocess
import sys
from pathlib import Path

import pytest

from designer.cli import export_cmd
from designer.io import save_design
from tests.io.export.designs import rail_design


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    export_cmd.add_arguments(parser)
    return parser.parse_args(list(argv))


@pytest.fixture
def design_file(tmp_path: Path) -> Path:
    path = tmp_path / "rail.json"
    save_design(rail_design(), path)
    return path


def test_csv_and_slurm_exports(design_file: Path, tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    cab, slurm = tmp_path / "cab.csv", tmp_path / "topology.conf"
    code = export_cmd.run(
        _args(str(design_file), "--cabling", str(cab), "--slurm", str(slurm)), out, err
    )
    assert code == 0, err.getvalue()
    with cab.open() as fh:
        assert len(list(csv.DictReader(fh))) == sum(rail_design().links.cables)
    assert "SwitchName=leaf Nodes=dgx-[01-04]" in slurm.read_text()
    assert "cabling:" in out.getvalue()
    assert "slurm:" in out.getvalue()
    assert "(2 tree switches," in out.getvalue()  # logical leaf + spine


def test_nothing_to_export_is_exit_2(design_file: Path) -> None:
    err = io.StringIO()
    assert export_cmd.run(_args(str(design_file)), io.StringIO(), err) == 2
    assert "nothing to export" in err.getvalue()


def test_unreadable_design_is_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    err = io.StringIO()
    code = export_cmd.run(
        _args(str(bad), "--slurm", str(tmp_path / "t.conf")), io.StringIO(), err
    )
    assert code == 2
    assert "bad.json" in err.getvalue()
    assert "Traceback" not in err.getvalue()


def test_unwritable_output_is_exit_2(design_file: Path, tmp_path: Path) -> None:
    err = io.StringIO()
    target = tmp_path / "missing-dir" / "t.conf"
    code = export_cmd.run(_args(str(design_file), "--slurm", str(target)), None, err)
    assert code == 2
    assert "cannot write" in err.getvalue()


def test_unknown_only_ids_are_exit_2(design_file: Path, tmp_path: Path) -> None:
    err = io.StringIO()
    code = export_cmd.run(
        _args(str(design_file), "--svg", str(tmp_path / "x.svg"), "--only", "nope"),
        io.StringIO(),
        err,
    )
    assert code == 2
    assert "nope" in err.getvalue()


@pytest.mark.slow
def test_pure_exports_do_not_load_qt(design_file: Path, tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from designer.cli import export_cmd\n"
        "import argparse\n"
        "p = argparse.ArgumentParser(); export_cmd.add_arguments(p)\n"
        f"a = p.parse_args([{str(design_file)!r}, '--cabling', "
        f"{str(tmp_path / 'c.csv')!r}])\n"
        "assert export_cmd.run(a) == 0\n"
        "assert not any(m.startswith('PySide6') for m in sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
