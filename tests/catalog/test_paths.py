"""The resources folder is found from a checkout and from a frozen bundle."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from designer.catalog import default_catalog_dir
from designer.catalog.paths import resources_dir

ROOT = Path(__file__).resolve().parents[2]


def test_a_source_run_reads_the_checkout_resources() -> None:
    assert resources_dir() == ROOT / "resources"
    assert default_catalog_dir() == ROOT / "resources" / "catalog"
    assert (default_catalog_dir() / "optics.yaml").is_file()


def test_a_frozen_run_reads_the_bundle_resources(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert resources_dir() == tmp_path / "resources"
    assert default_catalog_dir() == tmp_path / "resources" / "catalog"


def test_an_unfrozen_run_ignores_a_stray_meipass(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Only a frozen interpreter's bundle counts (PyInstaller sets both)."""
    monkeypatch.delattr(sys, "frozen", raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert resources_dir() == ROOT / "resources"
