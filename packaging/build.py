"""Build the standalone bundle, smoke-test it, install it.

Run with the project's virtual environment (the README's first command)::

    .venv/bin/python packaging/build.py                 # dist/cluster-designer/
    .venv/bin/python packaging/build.py --smoke         # build, then run it
    .venv/bin/python packaging/build.py --install       # build, install to ~/.local

The build installs the pinned PyInstaller (pyproject's ``packaging`` extra)
into this environment if it is missing, runs ``packaging/cluster-designer.spec``
and adds what an install needs beside the binary: the desktop entry and the
icon rendered to PNG sizes (``share/``). Exit codes: 0 done, 1 a smoke check
failed, 2 the build could not run.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from types import ModuleType

import bundle_install
import bundle_smoke

ROOT = bundle_smoke.ROOT
SPEC = ROOT / "packaging" / "cluster-designer.spec"
BUILD = ROOT / "build"

# Kinds of Qt plugin PyInstaller bundles for the Qt modules the app uses:
# platforms (xcb, wayland, offscreen...), their GL and shell integrations, SVG
# icons and images. PyInstaller copies the system libraries they link to from
# this machine, so a library missing here is missing from the bundle.
PLUGIN_TYPES = (
    "platforms",
    "platforminputcontexts",
    "platformthemes",
    "xcbglintegrations",
    "egldeviceintegrations",
    "wayland-decoration-client",
    "wayland-graphics-integration-client",
    "wayland-shell-integration",
    "imageformats",
    "iconengines",
    "generic",
)
DROPPED = {"platformthemes/libqgtk3.so"}  # left out by the spec (see there)
# The Debian packages of the libraries those plugins need beyond a minimal
# system are the app's own table (designer.qt.system_libs.DEBIAN_PACKAGES): the
# editor names them when Qt's platform plugin cannot load, and the README lists
# them for running from source.


class BuildError(Exception):
    """The build cannot go on; the message says what to do."""


def packaging_requirements() -> list[str]:
    """The pinned build tools from pyproject's ``packaging`` extra."""
    with (ROOT / "pyproject.toml").open("rb") as f:
        extras = tomllib.load(f)["project"]["optional-dependencies"]
    return list(extras["packaging"])


def ensure_pyinstaller() -> None:
    """Install the pinned PyInstaller into this environment unless it is there."""
    wanted = packaging_requirements()
    for req in wanted:
        name, _, version = req.partition("==")
        try:
            if importlib.metadata.version(name) != version:
                break
        except importlib.metadata.PackageNotFoundError:
            break
    else:
        return
    print(f"installing {' '.join(wanted)}", flush=True)
    pip = [sys.executable, "-m", "pip", "install", "-q", *wanted]
    if subprocess.run(pip, check=False).returncode != 0:
        raise BuildError(f"could not install {' '.join(wanted)} with pip")


def check_environment() -> None:
    """Stop unless this interpreter has the app and its dependencies installed."""
    try:
        importlib.metadata.version("gpu-cluster-designer")
    except importlib.metadata.PackageNotFoundError:
        raise BuildError(
            f"the app is not installed for {sys.executable}: run this script with "
            "the project's environment (python3 -m venv .venv && .venv/bin/pip "
            "install -e .; then .venv/bin/python packaging/build.py)"
        ) from None


def _qt_plugins_dir() -> Path:
    try:
        import PySide6
    except ImportError:
        raise BuildError(
            f"PySide6 is not installed for {sys.executable}: run this script with "
            "the project's environment (.venv/bin/python packaging/build.py)"
        ) from None
    return Path(PySide6.__file__).parent / "Qt" / "plugins"


def _system_libs() -> ModuleType:
    """The app's table of system libraries (it must be installed here)."""
    check_environment()
    import designer.qt.system_libs as system_libs

    return system_libs


def missing_libraries() -> dict[str, list[str]]:
    """System libraries the bundled Qt plugins link to that this machine lacks.

    Qt's own libraries are left out: PyInstaller drops a plugin whose Qt
    library is missing, and the smoke test checks what remains.
    """
    ldd = shutil.which("ldd")
    if ldd is None:
        raise BuildError("ldd is not installed (Debian package libc-bin)")
    plugins = _qt_plugins_dir()
    missing: dict[str, list[str]] = {}
    for kind in PLUGIN_TYPES:
        for plugin in sorted((plugins / kind).glob("*.so")):
            rel = plugin.relative_to(plugins).as_posix()
            if rel in DROPPED:
                continue
            done = subprocess.run(
                [ldd, str(plugin)], capture_output=True, text=True, check=False
            )
            for lib in _system_libs().not_found(done.stdout):
                users = missing.setdefault(lib, [])
                if rel not in users:
                    users.append(rel)
    return missing


def missing_debian_packages() -> list[str]:
    """Debian packages that would supply :func:`missing_libraries`."""
    return list(_system_libs().packages_for(missing_libraries()))


def check_system(allow_missing: bool) -> None:
    """Stop (or warn) when a required plugin's library is not on this machine."""
    missing = missing_libraries()
    if not missing:
        return
    libs = ", ".join(
        f"{lib} (for {', '.join(users[:2])}{', ...' if len(users) > 2 else ''})"
        for lib, users in missing.items()
    )
    packages = " ".join(missing_debian_packages())
    message = (
        f"this machine lacks libraries the bundle must carry: {libs}; "
        f"install them (Debian: apt-get install {packages})"
    )
    if not allow_missing:
        raise BuildError(message + ", or pass --allow-missing-libs")
    print(f"warning: {message}; the bundle will need them on the target machine")


def _icon_and_entry(bundle: Path) -> None:
    """``share/`` beside the binary: the desktop entry and the hicolor icons."""
    share = bundle / bundle_install.SHARE
    if share.exists():
        shutil.rmtree(share)
    apps = share / "applications"
    apps.mkdir(parents=True)
    shutil.copyfile(
        ROOT / "packaging" / bundle_install.DESKTOP, apps / bundle_install.DESKTOP
    )
    script = ROOT / "packaging" / "bundle_icons.py"
    svg = ROOT / "resources" / "icons" / "app.svg"
    hicolor = share / "icons" / "hicolor"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, str(script), str(svg), str(hicolor)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise BuildError(f"cannot render the icons:\n{done.stderr}")


def build(allow_missing: bool) -> Path:
    """Run PyInstaller on the spec; return the bundle folder."""
    check_environment()
    check_system(allow_missing)
    ensure_pyinstaller()
    command = [
        sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean",
        "--log-level", "WARN", "--distpath", str(bundle_smoke.DIST),
        "--workpath", str(BUILD), str(SPEC),
    ]  # fmt: skip
    started = time.perf_counter()
    if subprocess.run(command, cwd=ROOT, check=False).returncode != 0:
        raise BuildError("PyInstaller failed (see its messages above)")
    bundle = bundle_smoke.BUNDLE
    _icon_and_entry(bundle)
    stamp = bundle / bundle_install.SHARE / bundle_smoke.SOURCE_STAMP
    stamp.write_text(bundle_smoke.source_digest() + "\n", encoding="utf-8")
    seconds = time.perf_counter() - started
    size = sum(
        p.stat().st_size
        for p in bundle.rglob("*")
        if p.is_file() and not p.is_symlink()
    )
    print(f"built {bundle} in {seconds:.0f} s: {size / 2**20:.0f} MiB")
    return bundle


def main(argv: list[str] | None = None) -> int:
    """Command line of the build script."""
    parser = argparse.ArgumentParser(
        prog="packaging/build.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--no-build", action="store_true", help="use the bundle already in dist/"
    )
    parser.add_argument(
        "--smoke", action="store_true", help="run the smoke checks on the bundle"
    )
    parser.add_argument(
        "--install",
        nargs="?",
        const="~/.local",
        metavar="PREFIX",
        help="install under PREFIX (default ~/.local)",
    )
    parser.add_argument(
        "--uninstall", metavar="PREFIX", help="remove an install from PREFIX and stop"
    )
    parser.add_argument(
        "--allow-missing-libs",
        action="store_true",
        help="build even if a Qt plugin's system library is missing here",
    )
    parser.add_argument(
        "--missing-system-packages",
        action="store_true",
        help="print the Debian packages a complete bundle needs here, then stop",
    )
    args = parser.parse_args(argv)
    try:
        if args.missing_system_packages:
            print(" ".join(missing_debian_packages()))
            return 0
        if args.uninstall:
            for path in bundle_install.uninstall(Path(args.uninstall)):
                print(f"removed {path}")
            return 0
        bundle = bundle_smoke.BUNDLE
        if not args.no_build:
            bundle = build(args.allow_missing_libs)
        elif not (bundle / bundle_install.APP).is_file():
            raise BuildError(f"no bundle in {bundle}: build it first")
        if args.smoke:
            with tempfile.TemporaryDirectory(prefix="bundle-smoke-") as work:
                if bundle_smoke.run_all(bundle, Path(work)):
                    return 1
        if args.install:
            where = bundle_install.install(bundle, Path(args.install))
            print(f"installed {where.launcher} and {where.desktop_file}")
    except (BuildError, FileNotFoundError) as exc:
        print(f"packaging/build.py: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
