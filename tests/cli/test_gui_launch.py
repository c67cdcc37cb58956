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


def _readme_apt_packages() -> set[str]:
    """The packages of the README's ``apt-get install`` for running from source."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("sudo apt-get install ")
    command = text[start : text.index("```", start)].replace("\\\n", " ")
    return set(command.split()[3:])


def test_readme_lists_the_system_packages_of_qts_platform_plugins() -> None:
    """Issue 16 item 6: the README names every package build.py knows."""
    from designer.qt.system_libs import debian_packages

    listed = _readme_apt_packages()
    assert set(debian_packages()) <= listed
    assert "python3-venv" in listed  # python3 -m venv on Debian
    blocks = (ROOT / "README.md").read_text(encoding="utf-8").split("```")
    assert blocks[1].strip() == (
        "sh\npython3 -m venv .venv && .venv/bin/pip install -e . && "
        ".venv/bin/cluster-designer samples/dgx-h100-superpod-4su.json"
    )
    assert blocks[3].strip() == "sh\nbash scripts/test.sh"


def test_platform_problem_names_every_missing_package(tmp_path: Path) -> None:
    from designer.qt.system_libs import platform_problem

    plugins = tmp_path / "plugins"
    (plugins / "platforms").mkdir(parents=True)
    for name in ("xcb", "wayland"):
        (plugins / "platforms" / f"libq{name}.so").write_bytes(b"")
    outputs = {
        "libqxcb.so": "\tlibxcb-icccm.so.4 => not found\n"
        "\tlibxcb-keysyms.so.1 => not found\n"
        "\tlibQt6XcbQpa.so.6 => not found\n"
        "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x1)\n",
        "libqwayland.so": "\tlibwayland-cursor.so.0 => not found\n",
    }

    def ldd(path: Path) -> str:
        return outputs[path.name]

    problem = platform_problem(["xcb"], plugins, ldd)
    assert problem is not None
    assert '"xcb"' in problem
    assert "apt-get install libxcb-icccm4 libxcb-keysyms1\n" in problem
    assert "libQt6" not in problem  # Qt's own libraries are the wheel's
    both = platform_problem(["wayland", "xcb"], plugins, ldd)
    assert both is not None and "libwayland-cursor0" in both
    outputs["libqwayland.so"] = ""  # Qt falls back to a plugin that loads
    assert platform_problem(["xcb", "wayland"], plugins, ldd) is None
    assert platform_problem(["offscreen"], plugins, ldd) is None  # not there: Qt says


def test_requested_platforms_follow_qt() -> None:
    from designer.qt.system_libs import requested_platforms

    assert requested_platforms({}, ["x"]) == ["xcb"]
    session = {"XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": "wayland-0"}
    assert requested_platforms(session, ["x"]) == ["wayland", "xcb"]
    assert requested_platforms({"QT_QPA_PLATFORM": "wayland;xcb"}, ["x"]) == [
        "wayland",
        "xcb",
    ]
    offscreen = {"QT_QPA_PLATFORM": "offscreen:configfile=/tmp/s.json"}
    assert requested_platforms(offscreen, ["x"]) == ["offscreen"]
    assert requested_platforms({}, ["x", "-platform", "vnc"]) == ["vnc"]


@pytest.mark.slow
def test_the_editor_names_the_packages_qts_platform_plugin_lacks() -> None:
    """Run where Qt's xcb plugin lacks a library (a minimal Debian): the editor
    exits 1 naming the packages, instead of Qt aborting with a guess."""
    from designer.qt.system_libs import (
        missing_for_platform,
        packages_for,
        qt_plugins_dir,
    )

    plugins = qt_plugins_dir()
    if plugins is None:
        pytest.skip("PySide6 is not installed")
    missing = missing_for_platform("xcb", plugins)
    if not missing:
        pytest.skip("every library of Qt's xcb plugin is installed here")
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env.update(DISPLAY=":97", XDG_SESSION_TYPE="x11")
    result = subprocess.run(
        [sys.executable, "-m", "designer.cli.main"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert "apt-get install " + " ".join(packages_for(missing)) in result.stderr
    assert "Could not load the Qt platform plugin" not in result.stderr
