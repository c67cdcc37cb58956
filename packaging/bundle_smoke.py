"""Smoke checks that run the BUILT bundle (``dist/cluster-designer``).

Each check runs the frozen binary as a user would, in a scratch folder with a
home of its own, and compares with the same command run from source where the
two must agree. ``packaging/build.py --smoke`` runs them all and prints one
line per check; ``tests/packaging/test_bundle.py`` runs each as a pytest test.
They need the project's virtual environment (PySide6 and numpy read the
screenshots; the source run is the oracle) but never import the bundle.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import traceback
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import bundle_install

ROOT = Path(__file__).resolve().parents[1]
DIST = ROOT / "dist"
BUNDLE = DIST / bundle_install.APP
INTERNAL = "_internal"
"""PyInstaller's folder of libraries and data beside the binary."""

SOURCE_STAMP = "source.sha256"
"""File in the bundle's ``share/`` naming the sources it was built from."""

SMALL = ROOT / "samples" / "development.json"
LARGE = ROOT / "samples" / "dgx-h100-superpod-4su.json"
SCREENSHOT_SIZE = (1600, 1000)  # designer.qt.app.SCREENSHOT_SIZE
TIMEOUT = 300

# Parts of the bundle the app needs on a desktop and headless (relative to
# _internal/); a hook change that drops one shows here before a user finds it.
REQUIRED_FILES = (
    "resources/catalog/optics.yaml",
    "resources/icons/app.svg",
    "resources/style.qss",
    "PySide6/Qt/plugins/platforms/libqxcb.so",
    "PySide6/Qt/plugins/platforms/libqoffscreen.so",
    "PySide6/Qt/plugins/platforms/libqwayland.so",
    "PySide6/Qt/plugins/imageformats/libqsvg.so",
    "PySide6/Qt/plugins/iconengines/libqsvgicon.so",
    "PySide6/Qt/plugins/xcbglintegrations/libqxcb-glx-integration.so",
)
REQUIRED_GLOBS = (
    "scipy/optimize/_highspy/_core*.so",
    "pymetis/_internal*.so",
    "PySide6/QtSvg*.so",
)
DROPPED_FILES = ("PySide6/Qt/plugins/platformthemes/libqgtk3.so",)


class Skipped(Exception):
    """A check that cannot run on this machine; the message says why."""


def source_digest(root: Path = ROOT) -> str:
    """SHA-256 over the files a bundle is built from (code, resources, spec)."""
    files = [
        *sorted((root / "designer").rglob("*.py")),
        *sorted(p for p in (root / "resources").rglob("*") if p.is_file()),
        root / "packaging" / "launch.py",
        root / "packaging" / "cluster-designer.spec",
        root / "packaging" / "cluster-designer.desktop",
    ]
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def built_from(bundle: Path) -> str | None:
    """The source digest recorded in a built bundle (None: not recorded)."""
    stamp = bundle / bundle_install.SHARE / SOURCE_STAMP
    try:
        return stamp.read_text(encoding="utf-8").strip()
    except OSError:
        return None


@dataclass
class Context:
    """A built bundle and a scratch folder for one smoke run."""

    bundle: Path
    work: Path
    _homes: int = field(default=0, repr=False)

    @property
    def binary(self) -> Path:
        """The frozen executable."""
        return self.bundle / bundle_install.APP

    @property
    def internal(self) -> Path:
        """The bundle's library and data folder."""
        return self.bundle / INTERNAL

    def env(self, **extra: str) -> dict[str, str]:
        """A user's environment: own home, offscreen Qt, nothing of the venv."""
        self._homes += 1
        home = self.work / f"home-{self._homes}"
        home.mkdir(parents=True, exist_ok=True)
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "LD_LIBRARY_PATH")
            and not k.startswith(("QT_", "XDG_"))
        }
        env.update(
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_DATA_HOME=str(home / ".local" / "share"),
            XDG_CACHE_HOME=str(home / ".cache"),
            QT_QPA_PLATFORM="offscreen",
            LANG="C.UTF-8",
        )
        env.update(extra)
        return env

    def run(
        self,
        *args: str | Path,
        exe: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run the bundle (or ``exe``) with ``args`` from the scratch folder."""
        return subprocess.run(
            [str(exe or self.binary), *map(str, args)],
            cwd=self.work,
            env=env or self.env(),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )

    def run_source(self, *args: str | Path) -> subprocess.CompletedProcess[str]:
        """The same command from source (this interpreter, the checkout)."""
        env = self.env()
        env["PYTHONPATH"] = str(ROOT)
        return subprocess.run(
            [sys.executable, "-m", "designer.cli.main", *map(str, args)],
            cwd=self.work,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )


def _ok(done: subprocess.CompletedProcess[str], code: int = 0) -> None:
    assert done.returncode == code, (
        f"{shlex.join(done.args)} exited {done.returncode}, expected {code}:\n"
        f"{done.stderr[-3000:]}"
    )
    assert "Traceback" not in done.stderr, done.stderr[-3000:]


def check_layout(ctx: Context) -> None:
    """The binary, resources, Qt plugins and native extensions are in the bundle."""
    assert os.access(ctx.binary, os.X_OK), f"{ctx.binary}: not an executable"
    missing = [p for p in REQUIRED_FILES if not (ctx.internal / p).is_file()]
    missing += [g for g in REQUIRED_GLOBS if not list(ctx.internal.glob(g))]
    assert not missing, f"missing from {ctx.internal}: {missing}"
    shipped = sorted(
        p.relative_to(ROOT / "resources").as_posix()
        for p in (ROOT / "resources").rglob("*")
        if p.is_file()
    )
    bundled = sorted(
        p.relative_to(ctx.internal / "resources").as_posix()
        for p in (ctx.internal / "resources").rglob("*")
        if p.is_file()
    )
    assert bundled == shipped, (
        f"resources differ: {sorted(set(shipped) ^ set(bundled))}"
    )
    present = [p for p in DROPPED_FILES if (ctx.internal / p).exists()]
    assert not present, f"left out on purpose but bundled: {present}"
    dangling = [
        str(p) for p in ctx.bundle.rglob("*") if p.is_symlink() and not p.exists()
    ]
    assert not dangling, f"dangling links: {dangling}"


def check_libraries(ctx: Context) -> None:
    """Every shared library in the bundle resolves (bundle first, as it runs)."""
    ldd = shutil.which("ldd")
    if ldd is None:
        raise Skipped("ldd is not installed")
    env = {**os.environ, "LD_LIBRARY_PATH": str(ctx.internal)}
    unresolved: dict[str, list[str]] = {}
    for lib in sorted(ctx.internal.rglob("*.so*")):
        if lib.is_symlink() or not lib.is_file():
            continue
        done = subprocess.run(
            [ldd, str(lib)], capture_output=True, text=True, env=env, check=False
        )
        gone = re.findall(r"^\s*(\S+) => not found", done.stdout, re.MULTILINE)
        if gone:
            unresolved[str(lib.relative_to(ctx.internal))] = sorted(set(gone))
    assert not unresolved, f"unresolved libraries: {unresolved}"


def check_validate(ctx: Context) -> None:
    """``validate`` prints the summary, exits 0 and agrees with the source run."""
    done = ctx.run("validate", SMALL)
    _ok(done)
    out = done.stdout
    assert f"{SMALL}: 'Development cluster'" in out, out[:500]
    assert "Bisection        800 Gb/s (exact)" in out, out
    source = ctx.run_source("validate", SMALL)
    _ok(source)
    _same(out, source.stdout, "summaries")


def irregular_design(
    seed: int = 2, nodes: int = 30, switches: int = 20
) -> dict[str, object]:
    """A drawn-looking compute fabric too irregular for the closed forms, the
    certificate and the placement enumeration: only the integer program over
    the cut (scipy's milp, the bundled HiGHS) proves its bisection. Sized so
    that the integer program proves it in 0.3 s on an idle machine (40 nodes
    on 26 switches needed 3.4 s)."""
    rnd = random.Random(seed)
    names = ("id", "a", "a_port", "b", "b_port", "cables", "speed_gbps", "fabric")
    links: dict[str, list[object]] = {k: [] for k in (*names, "rail")}
    sw = [f"sw-{i:02d}" for i in range(switches)]
    devices = [
        {"id": s, "catalog_id": "tor-100g-32", "label": s, "x": 100.0 * i, "y": 0.0}
        for i, s in enumerate(sw)
    ]

    def link(a: str, a_port: str, b: str, b_port: str, cables: int) -> None:
        row = (f"{a}--{b}.{len(links['id'])}", a, a_port, b, b_port, cables, 100)
        for key, value in zip(names, (*row, "compute"), strict=True):
            links[key].append(value)
        links["rail"].append(None)

    for i in range(nodes):
        node = f"node-{i:02d}"
        devices.append(
            {"id": node, "catalog_id": "l40s-server", "label": node}
            | {"x": 40.0 * i, "y": 300.0}
        )
        first = rnd.randrange(switches)
        link(node, "compute", sw[first], "ports", rnd.randint(1, 3))
        if rnd.random() < 0.4:
            other = (first + 1 + rnd.randrange(switches - 1)) % switches
            link(node, "compute", sw[other], "ports", 1)
    for i in range(switches):
        for j in range(i + 1, switches):
            if rnd.random() < 4 / switches:
                link(sw[i], "ports", sw[j], "ports", rnd.randint(1, 2))
    return {
        "schema_version": 3,
        "settings": {"name": "Irregular sketch"},
        "devices": devices,
        "links": links,
    }


def _same(bundle: str, source: str, what: str) -> None:
    """Fail with the lines that differ, not just that they do."""
    if bundle != source:
        diff = difflib.unified_diff(
            source.splitlines(), bundle.splitlines(), "source", "bundle", lineterm=""
        )
        raise AssertionError(
            f"bundle and source print different {what}:\n" + "\n".join(diff)
        )


def check_milp(ctx: Context) -> None:
    """An irregular sketch is solved by the bundled HiGHS, as from source."""
    path = ctx.work / "irregular.json"
    path.write_text(json.dumps(irregular_design()), encoding="utf-8")
    # a generous limit: refinement stops as soon as the bounds meet (0.3 s idle)
    done = ctx.run("validate", path, "--refine-seconds", "30")
    _ok(done)
    assert "integer program over the cut, proven optimal" in done.stdout, done.stdout
    assert "(exact)" in done.stdout, done.stdout
    source = ctx.run_source("validate", path, "--refine-seconds", "30")
    _ok(source)
    # The method line names the stage that found each bound, and that depends
    # on the clock: when the first solve's 0.3 s run out on a busy machine,
    # METIS finds the cut and the refinement proves it. The figures do not.
    _same(_without_method(done.stdout), _without_method(source.stdout), "summaries")


def _without_method(summary: str) -> str:
    return "\n".join(
        line for line in summary.splitlines() if not line.lstrip().startswith("method:")
    )


def check_validate_json(ctx: Context) -> None:
    """``validate --json`` parses and equals the source run's report."""
    done = ctx.run("validate", LARGE, "--json")
    _ok(done)
    report = json.loads(done.stdout)
    assert report["gpus"] == 1016, report["gpus"]
    assert report["bisection"]["exact"] is True, report["bisection"]
    assert report["bisection"]["gbps"] == 201_600.0, report["bisection"]
    source = ctx.run_source("validate", LARGE, "--json")
    _ok(source)
    assert report == json.loads(source.stdout), "bundle and source reports differ"


def check_bad_input(ctx: Context) -> None:
    """A broken file and a missing file exit 2 with the file named, no traceback."""
    broken = ctx.work / "broken.json"
    broken.write_text('{"schema_version": 1, "devices": [', encoding="utf-8")
    done = ctx.run("validate", broken)
    _ok(done, 2)
    assert "broken.json" in done.stderr, done.stderr
    done = ctx.run("validate", ctx.work / "absent.json")
    _ok(done, 2)
    assert "absent.json" in done.stderr, done.stderr


def check_estimate(ctx: Context) -> None:
    """``estimate`` (text and JSON) runs and agrees with the source run."""
    args = ("estimate", LARGE, "--model", "llama3-70b", "--tokens", "15T")
    done = ctx.run(*args)
    _ok(done)
    assert "Llama 3 70B" in done.stdout, done.stdout[:500]
    source = ctx.run_source(*args)
    _ok(source)
    assert done.stdout == source.stdout, "bundle and source estimates differ"
    done = ctx.run(*args, "--json")
    _ok(done)
    report = json.loads(done.stdout)
    assert report["gpus"] == 1016, report["gpus"]


def _image(path: Path) -> tuple[int, int, object]:
    """Width, height and RGB pixels (numpy) of a PNG, read with Qt."""
    import numpy as np
    from PySide6.QtGui import QImage

    image = QImage(str(path))
    assert not image.isNull(), f"{path}: not an image Qt can read"
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    w, h = image.width(), image.height()
    # copy the bytes: the array must not outlive the QImage's buffer
    rows = np.frombuffer(bytes(image.constBits()), np.uint32)
    return w, h, rows.reshape(h, image.bytesPerLine() // 4)[:, :w]


def _not_blank(path: Path) -> object:
    import numpy as np

    w, h, px = _image(path)
    assert (w, h) == SCREENSHOT_SIZE, f"{path}: {w}x{h}, expected {SCREENSHOT_SIZE}"
    colours, counts = np.unique(px, return_counts=True)
    assert len(colours) > 200, f"{path}: only {len(colours)} colours: blank?"
    assert counts.max() < 0.8 * w * h, f"{path}: one colour covers most of it"
    return px


def check_screenshot(ctx: Context) -> None:
    """``gui --screenshot`` offscreen: a full window, the same as from source."""
    import numpy as np

    shot, ref = ctx.work / "bundle.png", ctx.work / "source.png"
    _ok(ctx.run("gui", LARGE, "--screenshot", shot))
    _ok(ctx.run_source("gui", LARGE, "--screenshot", ref))
    a, b = _not_blank(shot), _not_blank(ref)
    differ = int(np.count_nonzero(a != b))
    # Only the "analysed in N ms" text may differ; missing icons, style sheet
    # or fonts would change far more than 0.2 % of the window.
    limit = SCREENSHOT_SIZE[0] * SCREENSHOT_SIZE[1] // 500
    assert differ <= limit, f"{differ} pixels differ from the source run's window"


def check_screenshot_xcb(ctx: Context) -> None:
    """The same window through the xcb platform plugin on an X server (Xvfb)."""
    xvfb = shutil.which("xvfb-run")
    if xvfb is None:
        raise Skipped("xvfb-run is not installed (Debian package xvfb)")
    shot = ctx.work / "xcb.png"
    env = ctx.env(QT_QPA_PLATFORM="xcb")
    done = subprocess.run(
        [xvfb, "-a", "-s", "-screen 0 1920x1200x24", str(ctx.binary), "gui",
         str(LARGE), "--screenshot", str(shot)],
        cwd=ctx.work, env=env, capture_output=True, text=True, timeout=TIMEOUT,
        check=False,
    )  # fmt: skip
    _ok(done)
    _not_blank(shot)


def check_export(ctx: Context) -> None:
    """``export`` writes a PDF report, an SVG drawing and a PNG (Qt rendering)."""
    pdf, svg, png = (ctx.work / f"pod.{ext}" for ext in ("pdf", "svg", "png"))
    _ok(ctx.run("export", SMALL, "--pdf", pdf, "--svg", svg, "--png", png))
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-"), f"{pdf}: not a PDF"
    pages = len(re.findall(rb"/Type\s*/Page(?!s)", data))
    assert pages >= 1, f"{pdf}: no pages"
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg") and len(root) > 0, f"{svg}: empty drawing"
    w, h, _ = _image(png)
    assert w > 100 and h > 100, f"{png}: {w}x{h}"


def _desktop_keys(path: Path) -> dict[str, str]:
    keys: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            keys[key.strip()] = value.strip()
    return keys


def _unescape(value: str) -> str:
    """A desktop entry string value with its backslash escapes undone."""
    table = {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}
    return re.sub(r"\\(.)", lambda m: table.get(m.group(1), m.group(1)), value)


def check_install(ctx: Context) -> None:
    """Install into a temporary prefix: launcher, menu entry and icons work."""
    prefix = ctx.work / "prefix with space"
    where = bundle_install.install(ctx.bundle, prefix)
    launched = ctx.run("validate", SMALL, exe=where.launcher)
    _ok(launched)
    assert launched.stdout == ctx.run("validate", SMALL).stdout
    shot = ctx.work / "installed.png"
    _ok(ctx.run("gui", LARGE, "--screenshot", shot, exe=where.launcher))
    _not_blank(shot)

    keys = _desktop_keys(where.desktop_file)
    argv = shlex.split(_unescape(keys["Exec"]))
    assert argv == [str(where.launcher), "gui", "%f"], argv
    assert _unescape(keys["TryExec"]) == str(where.launcher), keys["TryExec"]
    icon = Path(_unescape(keys["Icon"]))  # a prefix no desktop searches: a path
    assert icon.is_file(), f"Icon={keys['Icon']}: no such file"
    validator = shutil.which("desktop-file-validate")
    if validator is not None:
        done = subprocess.run(
            [validator, str(where.desktop_file)], capture_output=True, text=True
        )
        assert done.returncode == 0 and not done.stdout.strip(), done.stdout
    for size in (16, 32, 48, 256):
        png = where.icon_root / f"{size}x{size}" / "apps" / f"{bundle_install.APP}.png"
        w, h, _ = _image(png)
        assert (w, h) == (size, size), f"{png}: {w}x{h}"

    removed = bundle_install.uninstall(prefix)
    assert where.app_dir in removed and where.launcher in removed
    left = [p for p in prefix.rglob("*") if bundle_install.APP in p.name]
    assert not left, f"left behind after uninstall: {left}"


CHECKS: tuple[Callable[[Context], None], ...] = (
    check_layout,
    check_libraries,
    check_validate,
    check_milp,
    check_validate_json,
    check_bad_input,
    check_estimate,
    check_screenshot,
    check_screenshot_xcb,
    check_export,
    check_install,
)


def run_all(bundle: Path, work: Path) -> int:
    """Run every check, print one line each and a summary; return the failures."""
    ctx = Context(bundle, work)
    passed = failed = skipped = 0
    for check in CHECKS:
        name = check.__name__.removeprefix("check_")
        try:
            check(ctx)
        except Skipped as why:
            skipped += 1
            print(f"SKIP {name}: {why}")
        except Exception as exc:
            failed += 1
            detail = (
                str(exc) if isinstance(exc, AssertionError) else traceback.format_exc()
            )
            print(f"FAIL {name}: {detail}")
        else:
            passed += 1
            print(f"PASS {name}: {(check.__doc__ or '').strip()}")
    print(f"smoke: {passed} passed, {failed} failed, {skipped} skipped")
    return failed
