"""Layering: the pure packages import no Qt, and import-linter's contracts hold."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PURE = [
    "designer.core",
    "designer.catalog",
    "designer.analysis",
    "designer.io",
    "designer.generate",
    "designer.workload",
    "designer.physical",
    "designer.cli.main",
    "designer.cli.estimate_cmd",
    "designer.cli.place_cmd",
    "designer.cli.netbox_cmd",
    # every module of designer.view (a package's __init__ imports none of them)
    *sorted(
        ".".join(p.relative_to(ROOT).with_suffix("").parts)
        for p in (ROOT / "designer" / "view").rglob("*.py")
        if p.name != "__init__.py"
    ),
]
QT_PREFIXES = ("PySide6", "shiboken6", "pyqtgraph")

PROBE = """
import importlib, json, sys
loaded = []
for name in sys.argv[1:]:
    importlib.import_module(name)
    loaded.append(name)
qt = sorted(m for m in sys.modules if m.split(".")[0] in {prefixes})
print(json.dumps({{"loaded": loaded, "qt": qt}}))
"""


@pytest.mark.slow
def test_pure_packages_import_no_qt() -> None:
    code = PROBE.format(prefixes=repr(set(QT_PREFIXES)))
    result = subprocess.run(
        [sys.executable, "-c", code, *PURE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["loaded"] == PURE
    assert out["qt"] == []


@pytest.mark.slow
def test_cli_commands_other_than_gui_import_no_qt(tmp_path: Path) -> None:
    """Running ``schema`` through main() keeps Qt out of the process."""
    code = (
        "import sys, io, contextlib\n"
        "from designer.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['schema']) == 0\n"
        f"qt = {set(QT_PREFIXES)!r}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in qt))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def _lint_imports() -> str | None:
    local = Path(sys.executable).with_name("lint-imports")
    if local.exists():
        return str(local)
    return shutil.which("lint-imports")


def test_import_linter_contracts() -> None:
    exe = _lint_imports()
    if exe is None:
        pytest.skip("import-linter (lint-imports) is not installed")
    result = subprocess.run(
        [exe, "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for name in (
        "Layers",
        "No Qt below designer.qt",
        "Canvas parts",
        "Analysis parts",
    ):
        assert f"{name} KEPT" in result.stdout, name
    assert ", 0 broken." in result.stdout


def _imports(path: Path) -> set[str]:
    """Top-level package names a module imports (anywhere in it)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module.split(".")[0])
    return out


def test_every_module_under_designer_qt_imports_qt() -> None:
    """Qt-free logic belongs in a pure package (designer.view, designer.core...),
    where it is tested without a window; only Qt code lives in designer.qt."""
    qt_free = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "designer" / "qt").rglob("*.py"))
        if path.name != "__init__.py" and not _imports(path) & set(QT_PREFIXES)
    ]
    assert qt_free == []


def test_the_qt_check_sees_imports() -> None:
    """The check above can fail: a module without Qt imports is found."""
    assert (
        _imports(ROOT / "designer" / "view" / "canvas" / "geometry.py")
        & set(QT_PREFIXES)
        == set()
    )
    assert "PySide6" in _imports(ROOT / "designer" / "qt" / "canvas" / "items.py")


@pytest.mark.parametrize(
    ("container", "contract"),
    [("analysis", "Analysis parts"), ("qt/canvas", "Canvas parts")],
)
def test_every_module_is_inside_its_parts_contract(
    container: str, contract: str
) -> None:
    """A module left out of a "parts" contract may import anything: none is."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c for c in contracts if c["name"] == contract)["layers"]
    named = {m.strip() for layer in layers for m in layer.split("|")}
    modules = {
        p.stem
        for p in (ROOT / "designer" / container).glob("*.py")
        if p.stem != "__init__"
    }
    assert modules - named == set()


def test_every_view_module_is_in_a_view_subpackage_named_by_a_contract() -> None:
    """designer.view holds subpackages only, each under "View parts" or "View parts
    apart" (a subpackage named by neither could import any other)."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    contracts = {c["name"]: c for c in config["tool"]["importlinter"]["contracts"]}
    named = set(contracts["View parts"]["layers"]) | {
        m.removeprefix("designer.view.")
        for m in contracts["View parts apart"]["modules"]
    }
    view = ROOT / "designer" / "view"
    assert [p.name for p in view.glob("*.py")] == ["__init__.py"]
    subpackages = {p.parent.name for p in view.glob("*/__init__.py")}
    assert subpackages == named


MODULE_LINES_MAX = 600
"""Most lines a module under designer/ may hold (issue 21: smaller rooms)."""


def test_no_module_is_over_600_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in (ROOT / "designer").rglob("*.py")
        if (n := len(p.read_text("utf-8").splitlines())) > MODULE_LINES_MAX
    }
    assert long == {}
