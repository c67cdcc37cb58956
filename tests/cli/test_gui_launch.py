"""``cluster-designer FILE --screenshot OUT.png`` opens the real editor (in a
subprocess, offscreen) on a sample: the CLI -> designer.qt.app.run_gui path."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "minimum-viable-enterprise.json"


@pytest.mark.slow
def test_bare_file_argument_opens_the_editor(tmp_path: Path) -> None:
    if importlib.util.find_spec("PySide6") is None:  # find, do not import, Qt
        pytest.skip("PySide6 is not installed")
    shot = tmp_path / "window.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    code = (
        "import sys\nfrom designer.cli.main import main\n"
        "raise SystemExit(main(sys.argv[1:]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(SAMPLE), "--screenshot", str(shot)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 10_000
