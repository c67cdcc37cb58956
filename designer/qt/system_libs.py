"""The system libraries Qt's platform plugins need, and which are missing here.

PySide6's wheels carry Qt itself but not the X11/Wayland libraries its platform
plugins link to: on a minimal Debian the ``xcb`` plugin cannot load until
``libxcb-icccm4``, ``libxcb-keysyms1`` and the like are installed, and Qt then
names only one of them (or the wrong one) before it aborts. The editor checks
the plugin it is about to load first and says which packages to install
(:func:`platform_problem`); ``packaging/build.py --missing-system-packages``
and the README's list use the same table (:data:`DEBIAN_PACKAGES`).

No Qt module is imported here: the check runs before Qt is loaded.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

#: Debian packages of the libraries Qt's plugins need beyond a minimal system
#: (one per shared library, by its soname).
DEBIAN_PACKAGES = {
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-glx.so.0": "libxcb-glx0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libwayland-client.so.0": "libwayland-client0",
    "libwayland-cursor.so.0": "libwayland-cursor0",
    "libwayland-egl.so.1": "libwayland-egl1",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libOpenGL.so.0": "libopengl0",
    "libfontconfig.so.1": "libfontconfig1",
    "libdbus-1.so.3": "libdbus-1-3",
}

#: How ``ldd`` runs a file: tests give a fake.
Ldd = Callable[[Path], str]


def debian_packages() -> list[str]:
    """Every package of :data:`DEBIAN_PACKAGES`, sorted (the README lists them)."""
    return sorted(set(DEBIAN_PACKAGES.values()))


def packages_for(libraries: Iterable[str]) -> list[str]:
    """The Debian packages that supply ``libraries`` (an unknown one by its name)."""
    return sorted({DEBIAN_PACKAGES.get(lib, lib) for lib in libraries})


def not_found(ldd_output: str) -> list[str]:
    """Libraries ``ldd`` reports as "not found", Qt's own left out, in order."""
    out: list[str] = []
    for line in ldd_output.splitlines():
        if "=> not found" in line:
            lib = line.split()[0]
            if not lib.startswith("libQt6") and lib not in out:
                out.append(lib)
    return out


def _run_ldd(path: Path) -> str:
    ldd = shutil.which("ldd")
    if ldd is None:
        return ""
    done = subprocess.run(
        [ldd, str(path)], capture_output=True, text=True, check=False, timeout=30
    )
    return done.stdout


def qt_plugins_dir() -> Path | None:
    """PySide6's Qt plugin folder, or None when PySide6 is not installed."""
    try:
        import PySide6
    except ImportError:
        return None
    return Path(PySide6.__file__).parent / "Qt" / "plugins"


def requested_platforms(
    environ: dict[str, str] | None = None, argv: list[str] | None = None
) -> list[str]:
    """The platform plugins Qt will try, in order: ``-platform`` on the command
    line, else ``QT_QPA_PLATFORM`` (``wayland;xcb`` tries both), else Qt's
    default on Linux (Wayland in a Wayland session, then xcb)."""
    env = os.environ if environ is None else environ
    args = sys.argv if argv is None else argv
    if "-platform" in args[:-1]:
        chosen = args[args.index("-platform") + 1]
    else:
        chosen = env.get("QT_QPA_PLATFORM", "")
    if not chosen:
        wayland = env.get("XDG_SESSION_TYPE") == "wayland" and env.get(
            "WAYLAND_DISPLAY"
        )
        return ["wayland", "xcb"] if wayland else ["xcb"]
    # "offscreen:configfile=..." names the plugin before the colon
    return [p.split(":", 1)[0].strip() for p in chosen.split(";") if p.strip()]


def missing_for_platform(
    platform: str, plugins: Path, ldd: Ldd = _run_ldd
) -> list[str] | None:
    """Libraries the ``platform`` plugin needs that are not installed; None when
    the plugin is not there (Qt says so itself)."""
    plugin = plugins / "platforms" / f"libq{platform}.so"
    if not plugin.is_file():
        return None
    return not_found(ldd(plugin))


def platform_problem(
    platforms: list[str] | None = None,
    plugins: Path | None = None,
    ldd: Ldd = _run_ldd,
) -> str | None:
    """What to tell the user when no platform Qt will try can load, else None.

    Only Linux is checked (elsewhere Qt's platforms need no extra packages).
    """
    if platforms is None:
        if not sys.platform.startswith("linux"):
            return None
        platforms = requested_platforms()
    if plugins is None:
        plugins = qt_plugins_dir()
        if plugins is None:
            return None
    problems: list[tuple[str, list[str]]] = []
    for platform in platforms:
        missing = missing_for_platform(platform, plugins, ldd)
        if missing is None or not missing:
            return None  # Qt can load it (or reports a plugin it lacks itself)
        problems.append((platform, missing))
    if not problems:
        return None
    names = " or ".join(f'"{p}"' for p, _ in problems)
    libs = sorted({lib for _, missing in problems for lib in missing})
    packages = " ".join(packages_for(libs))
    return (
        f"Qt cannot load its {names} platform plugin: this system lacks "
        f"{', '.join(libs)}.\nInstall them (Debian/Ubuntu): "
        f"sudo apt-get install {packages}\n"
        "(the README lists every package the editor needs)"
    )


__all__ = [
    "DEBIAN_PACKAGES",
    "debian_packages",
    "missing_for_platform",
    "not_found",
    "packages_for",
    "platform_problem",
    "qt_plugins_dir",
    "requested_platforms",
]
