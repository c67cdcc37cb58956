"""Install a built bundle into XDG locations under a prefix (default ``~/.local``).

Layout under PREFIX:

- ``lib/cluster-designer/``: the PyInstaller folder (binary and ``_internal/``)
- ``bin/cluster-designer``: a launcher that runs the binary in that folder
- ``share/applications/cluster-designer.desktop``: the menu entry, ``Exec=`` the
  launcher
- ``share/icons/hicolor/<size>/apps/cluster-designer.{png,svg}``: the icon

Standard library only: it runs from the build script and from the tests.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

APP = "cluster-designer"
SHARE = "share"
"""Folder of the built bundle holding the desktop entry and icons to install."""

DESKTOP = f"{APP}.desktop"

# Characters that make the Desktop Entry spec's Exec key need a quoted argument.
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


@dataclass(frozen=True)
class Installed:
    """Where an install put its parts (all under one prefix)."""

    prefix: Path

    @property
    def app_dir(self) -> Path:
        """The copied PyInstaller folder."""
        return self.prefix / "lib" / APP

    @property
    def binary(self) -> Path:
        """The bundle's executable inside the copied folder."""
        return self.app_dir / APP

    @property
    def launcher(self) -> Path:
        """The command users run (``PREFIX/bin/cluster-designer``)."""
        return self.prefix / "bin" / APP

    @property
    def desktop_file(self) -> Path:
        """The installed menu entry."""
        return self.prefix / "share" / "applications" / DESKTOP

    @property
    def icon_root(self) -> Path:
        """The hicolor theme folder the icons go into."""
        return self.prefix / "share" / "icons" / "hicolor"


def exec_argument(arg: str) -> str:
    """``arg`` as one argument of a desktop entry's ``Exec=`` value.

    The spec quotes arguments with reserved characters in double quotes
    (escaping ``"`` `````` ``$`` ``\\`` inside), doubles ``%``, and then the
    value as a whole escapes each backslash once more.
    """
    arg = arg.replace("%", "%%")
    if any(c in _RESERVED for c in arg):
        escaped = "".join("\\" + c if c in '"`$\\' else c for c in arg)
        arg = f'"{escaped}"'
    return arg.replace("\\", "\\\\")


def _string_value(text: str) -> str:
    """``text`` as a desktop entry string value (backslash escapes)."""
    return text.replace("\\", "\\\\")


def _xdg_data_dirs() -> list[Path]:
    """Folders where desktops look up icon themes (XDG Base Directory defaults)."""
    home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    dirs = os.environ.get("XDG_DATA_DIRS") or "/usr/local/share:/usr/share"
    return [Path(p).resolve() for p in [home, *dirs.split(":")] if p]


def icon_value(where: Installed) -> str:
    """``Icon=``: the theme name when PREFIX/share is searched, else the file."""
    if (where.prefix / "share").resolve() in _xdg_data_dirs():
        return APP
    return _string_value(str(where.icon_root / "scalable" / "apps" / f"{APP}.svg"))


def desktop_entry(template: str, where: Installed) -> str:
    """The template's entry with ``Exec``/``TryExec``/``Icon`` for this install.

    ``Exec`` keeps the template's arguments (``gui %f``) and names the
    launcher by its full path: a desktop session's PATH may lack PREFIX/bin.
    """
    lines = []
    for line in template.splitlines():
        key, _, value = (part.strip() for part in line.partition("="))
        if key == "Exec":
            _command, _, arguments = value.partition(" ")
            launcher = exec_argument(str(where.launcher))
            line = f"Exec={launcher} {arguments}".rstrip()
        elif key == "TryExec":
            continue
        elif key == "Icon":
            line = f"Icon={icon_value(where)}"
        lines.append(line)
        if key == "Exec":
            lines.append(f"TryExec={_string_value(str(where.launcher))}")
    return "\n".join(lines) + "\n"


def _launcher_script(binary: Path) -> str:
    return (
        "#!/bin/sh\n"
        "# Starts the GPU Cluster Designer bundle installed beside this prefix.\n"
        f'exec {shlex.quote(str(binary))} "$@"\n'
    )


def install(bundle: Path, prefix: Path) -> Installed:
    """Copy ``bundle`` (a built ``dist/cluster-designer``) into ``prefix``."""
    bundle = bundle.resolve()
    if not (bundle / APP).is_file():
        raise FileNotFoundError(f"{bundle}: no {APP} binary (build the bundle first)")
    share = bundle / SHARE
    template = share / "applications" / DESKTOP
    if not template.is_file():
        raise FileNotFoundError(f"{template}: missing (build the bundle first)")
    where = Installed(prefix.expanduser().resolve())
    if where.app_dir.exists():
        shutil.rmtree(where.app_dir)
    shutil.copytree(
        bundle, where.app_dir, symlinks=True, ignore=shutil.ignore_patterns(SHARE)
    )
    where.launcher.parent.mkdir(parents=True, exist_ok=True)
    where.launcher.write_text(_launcher_script(where.binary), encoding="utf-8")
    where.launcher.chmod(0o755)
    icons = share / "icons" / "hicolor"
    for icon in sorted(icons.rglob(f"{APP}.*")):
        dest = where.icon_root / icon.relative_to(icons)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(icon, dest)
    where.desktop_file.parent.mkdir(parents=True, exist_ok=True)
    entry = desktop_entry(template.read_text(encoding="utf-8"), where)
    where.desktop_file.write_text(entry, encoding="utf-8")
    _refresh_menus(where)
    return where


def uninstall(prefix: Path) -> list[Path]:
    """Remove what :func:`install` put under ``prefix``; return what was removed."""
    where = Installed(prefix.expanduser().resolve())
    removed: list[Path] = []
    if where.app_dir.exists():
        shutil.rmtree(where.app_dir)
        removed.append(where.app_dir)
    icons = sorted(where.icon_root.glob(f"*/apps/{APP}.*"))
    for path in [where.launcher, where.desktop_file, *icons]:
        if path.exists():
            path.unlink()
            removed.append(path)
    for icon in icons:  # the theme's size folders this install made, if now empty
        for folder in (icon.parent, icon.parent.parent):
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
    _refresh_menus(where)
    return removed


def _refresh_menus(where: Installed) -> None:
    """Let the desktop see the entry's MIME types now (when the tool exists)."""
    tool = shutil.which("update-desktop-database")
    apps = where.desktop_file.parent
    if tool is not None and apps.is_dir():
        # Best effort: a stale cache only delays "Open with", it breaks nothing.
        subprocess.run([tool, "-q", str(apps)], check=False, timeout=60)


__all__ = [
    "APP",
    "DESKTOP",
    "SHARE",
    "Installed",
    "desktop_entry",
    "exec_argument",
    "icon_value",
    "install",
    "uninstall",
]
