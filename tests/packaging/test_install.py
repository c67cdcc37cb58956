"""Installing a bundle under a prefix, on a stand-in bundle (no build needed)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import bundle_install
import pytest
from hypothesis import given
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "packaging" / "cluster-designer.desktop"


def _unescape(value: str) -> str:
    """Undo a desktop entry string's backslash escapes (the spec's first pass)."""
    table = {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}
    return re.sub(r"\\(.)", lambda m: table.get(m.group(1), m.group(1)), value)


def _exec_argv(value: str) -> list[str]:
    """Split an Exec value as the Desktop Entry spec says a launcher does.

    Spaces separate arguments; inside double quotes a backslash escapes
    ``"`` `````` ``$`` ``\\``; ``%%`` stands for ``%``. (shlex does not do it:
    it keeps the backslash before ````` and ``$``.)
    """
    text, args, arg, quoted, started, i = _unescape(value), [], [], False, False, 0
    while i < len(text):
        c = text[i]
        if quoted and c == "\\" and text[i + 1 : i + 2] in ('"', "`", "$", "\\"):
            arg.append(text[i + 1])
            i += 1
        elif c == '"':
            quoted, started = not quoted, True
        elif c == " " and not quoted:
            if started:
                args.append("".join(arg))
            arg, started = [], False
        else:
            arg.append(c)
            started = True
        i += 1
    assert not quoted, f"unbalanced quotes in {value!r}"
    if started:
        args.append("".join(arg))
    return [a.replace("%%", "%") for a in args]


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    """A folder shaped like dist/cluster-designer whose binary echoes its args."""
    root = tmp_path / "dist" / "cluster-designer"
    (root / "_internal").mkdir(parents=True)
    (root / "_internal" / "data.txt").write_text("x", encoding="utf-8")
    binary = root / "cluster-designer"
    binary.write_text('#!/bin/sh\necho "ran:$*"\n', encoding="utf-8")
    binary.chmod(0o755)
    share = root / "share"
    (share / "applications").mkdir(parents=True)
    shutil.copyfile(TEMPLATE, share / "applications" / "cluster-designer.desktop")
    for rel in (
        "48x48/apps/cluster-designer.png",
        "scalable/apps/cluster-designer.svg",
    ):
        icon = share / "icons" / "hicolor" / rel
        icon.parent.mkdir(parents=True)
        icon.write_bytes(b"icon")
    return root


def _keys(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


def test_install_puts_every_part_under_the_prefix(bundle: Path, tmp_path: Path) -> None:
    prefix = tmp_path / 'my $HOME\'s "odd" prefix'
    where = bundle_install.install(bundle, prefix)
    assert (where.app_dir / "_internal" / "data.txt").is_file()
    assert not (where.app_dir / "share").exists()
    ran = subprocess.run(
        [str(where.launcher), "validate", "a b.json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert ran.stdout == "ran:validate a b.json\n"
    keys = _keys(where.desktop_file)
    assert _exec_argv(keys["Exec"]) == [str(where.launcher), "gui", "%f"]
    assert _unescape(keys["TryExec"]) == str(where.launcher)
    assert Path(_unescape(keys["Icon"])).is_file()
    assert keys["Name"] == _keys(TEMPLATE)["Name"]
    assert (where.icon_root / "48x48" / "apps" / "cluster-designer.png").is_file()


def test_the_entry_passes_desktop_file_validate(bundle: Path, tmp_path: Path) -> None:
    validator = shutil.which("desktop-file-validate")
    if validator is None:
        pytest.skip("desktop-file-validate is not installed (desktop-file-utils)")
    where = bundle_install.install(bundle, tmp_path / "with space")
    done = subprocess.run(
        [validator, str(where.desktop_file)], capture_output=True, text=True
    )
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout


def test_a_searched_prefix_names_the_icon_by_theme(
    bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prefix = tmp_path / "local"
    monkeypatch.setenv("XDG_DATA_HOME", str(prefix / "share"))
    where = bundle_install.install(bundle, prefix)
    assert _keys(where.desktop_file)["Icon"] == "cluster-designer"


def test_reinstall_replaces_and_uninstall_removes(bundle: Path, tmp_path: Path) -> None:
    prefix = tmp_path / "p"
    where = bundle_install.install(bundle, prefix)
    (where.app_dir / "stale.txt").write_text("old", encoding="utf-8")
    (prefix / "bin" / "other-tool").write_text("keep", encoding="utf-8")
    where = bundle_install.install(bundle, prefix)
    assert not (where.app_dir / "stale.txt").exists()
    removed = bundle_install.uninstall(prefix)
    assert where.launcher in removed and where.desktop_file in removed
    assert [p for p in prefix.rglob("*") if "cluster-designer" in p.name] == []
    assert (prefix / "bin" / "other-tool").read_text(encoding="utf-8") == "keep"
    assert not (where.icon_root / "48x48").exists()


def test_install_refuses_a_folder_without_a_build(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="build the bundle first"):
        bundle_install.install(tmp_path, tmp_path / "prefix")


@given(st.text(st.characters(codec="utf-8", exclude_characters="\0\n\r"), min_size=1))
def test_exec_arguments_round_trip(path: str) -> None:
    """Whatever the path, a launcher splitting Exec gets it back as one argument."""
    assert _exec_argv(bundle_install.exec_argument(path)) == [path]
