"""Suggested file names and the folders the file dialogs open in (no Qt)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.io.filenames import (
    MAX_SLUG,
    open_dialog_folder,
    save_dialog_path,
    slug,
    suggested_file_name,
)

CLEAN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@pytest.mark.parametrize(
    ("name", "stem"),
    [
        (
            "Fat tree: 64 x DGX H100 (512 GPUs) on Quantum-2 QM9700",
            "fat-tree-64x-dgx-h100-on-quantum-2-qm9700",
        ),
        ("DGX H100 SuperPOD, 4 SU", "dgx-h100-superpod-4-su"),
        ("k-ary fat tree, k = 8 (128 hosts, 80 switches)", "k-ary-fat-tree-k-8"),
        ("Vera Rubin NVL72 pod (16 racks, 1,152 GPUs)", "vera-rubin-nvl72-pod"),
        ("Inference cluster (Ethernet)", "inference-cluster-ethernet"),
        ("Crème brûlée: 1,000,000 nodes", "creme-brulee-1000000-nodes"),
        ("8 × B200", "8x-b200"),
        ("", "design"),
        ("::: ()", "design"),
        ("CON", "con-design"),
    ],
)
def test_slug(name: str, stem: str) -> None:
    assert slug(name) == stem
    assert suggested_file_name(name) == stem + ".json"


def test_long_names_are_cut_at_a_word() -> None:
    name = "A very long design name with many words " * 4
    out = slug(name)
    assert len(out) <= MAX_SLUG
    assert name.lower().replace(" ", "-").startswith(out + "-")
    assert slug("x" * 200) == "x" * MAX_SLUG


@given(st.text(max_size=120))
def test_any_name_gives_a_clean_stem(name: str) -> None:
    out = slug(name)
    assert CLEAN.match(out), out
    assert 1 <= len(out) <= MAX_SLUG + len("-design")


def test_save_dialog_starts_in_the_last_folder(tmp_path: Path) -> None:
    last = tmp_path / "designs"
    last.mkdir()
    home = tmp_path / "home"
    name = "Fat tree: 64 x DGX H100 (512 GPUs) on Quantum-2 QM9700"
    expected = last / "fat-tree-64x-dgx-h100-on-quantum-2-qm9700.json"
    assert save_dialog_path(name, None, str(last), home) == expected
    # a folder that is gone falls back
    assert save_dialog_path(name, None, tmp_path / "gone", home) == (
        home / expected.name
    )
    assert save_dialog_path(name, None, None, home) == home / expected.name
    # a design with a file starts at that file
    current = last / "mine.json"
    assert save_dialog_path(name, current, str(tmp_path), home) == current


def test_open_dialog_folder(tmp_path: Path) -> None:
    last = tmp_path / "last"
    last.mkdir()
    other = tmp_path / "other"
    other.mkdir()
    home = tmp_path / "home"
    assert open_dialog_folder(other / "a.json", last, home) == last
    assert open_dialog_folder(other / "a.json", tmp_path / "gone", home) == other
    assert open_dialog_folder(None, None, home) == home
