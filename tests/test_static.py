"""Static gates run with the tests: ruff lint and format, mypy strict everywhere."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str:
    local = Path(sys.executable).with_name(name)
    found = str(local) if local.exists() else shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (pip install -e '.[test]')")
    return found


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(args), cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_ruff_lint_is_clean() -> None:
    done = _run(_tool("ruff"), "check", ".")
    assert done.returncode == 0, done.stdout[-4000:]


def test_ruff_format_is_clean() -> None:
    done = _run(_tool("ruff"), "format", "--check", ".")
    assert done.returncode == 0, done.stdout[-4000:]


@pytest.mark.slow
def test_mypy_strict_on_every_package() -> None:
    """The pure layers and the Qt layer alike (PySide6 ships its own stubs)."""
    done = _run(_tool("mypy"), "--strict", "--follow-imports=silent", "designer")
    assert done.returncode == 0, done.stdout[-4000:]
