"""A simulated InfiniBand fabric: ibsim with OpenSM and ibnetdiscover attached.

Debian 12's ``ibsim-utils`` (ibsim 0.10), ``opensm`` (3.3.23) and
``infiniband-diags`` (44.0). Clients attach to the simulator through
``LD_PRELOAD`` of ``libumad2sim.so`` (found with ``dpkg -L libumad2sim0``),
``SIM_HOST`` naming the CA they run on and ``IBSIM_SOCKNAME`` the simulator's
socket; every run gets its own socket name and OpenSM cache folder. The
simulator and OpenSM run under ``nice -n 10`` (the machine is shared).

ibsim 0.10 does not parse the NDR rate: links designed at 4xNDR come up at
4xSDR there. :func:`ibsim_rate_items` picks out exactly those items of a
verification, so the tests account for the simulator, not the product.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

TOOLS = ("ibsim", "opensm", "ibnetdiscover")
NICE = ["nice", "-n", "10"]


def _find_libumad2sim() -> str | None:
    if shutil.which("dpkg") is None:
        return None
    try:
        listing = subprocess.run(
            ["dpkg", "-L", "libumad2sim0"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    for line in listing.splitlines():
        if line.endswith("/libumad2sim.so") and Path(line).exists():
            return line
    return None


def _which(tool: str) -> str | None:
    return shutil.which(tool) or shutil.which(tool, path="/usr/sbin:/sbin")


LIBUMAD2SIM = _find_libumad2sim()
PATHS = {t: _which(t) for t in TOOLS}
MISSING = [t for t, p in PATHS.items() if p is None] + (
    ["libumad2sim.so (libumad2sim0)"] if LIBUMAD2SIM is None else []
)
SKIP_REASON = (
    "InfiniBand tools missing: "
    + ", ".join(MISSING)
    + " (apt-get install ibsim-utils opensm infiniband-diags)"
)


class Sim:
    """A running ``ibsim`` with a console on its standard input."""

    def __init__(self, netfile: Path, workdir: Path, limits: tuple[int, int, int]):
        self.workdir = workdir
        self.sock = f"cd-ib-{os.getpid()}-{time.monotonic_ns() % 10**9}"
        self.log = workdir / "ibsim.log"
        nodes, switches, ports = limits
        self._log_fh = self.log.open("w")
        env = {**os.environ, "IBSIM_SOCKNAME": self.sock}
        assert PATHS["ibsim"] is not None
        self.proc = subprocess.Popen(
            [
                *NICE,
                PATHS["ibsim"],
                "-s",
                "-N",
                str(nodes),
                "-S",
                str(switches),
                "-P",
                str(ports),
                str(netfile),
            ],
            stdin=subprocess.PIPE,
            stdout=self._log_fh,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            cwd=workdir,
        )
        self.started = time.monotonic()
        deadline = self.started + 300
        while time.monotonic() < deadline:
            text = self.log.read_text(errors="replace")
            if "sim>" in text:
                break
            if self.proc.poll() is not None or "ibpanic" in text:
                raise RuntimeError(f"ibsim stopped:\n{text[-2000:]}")
            time.sleep(0.2)
        else:
            raise RuntimeError("ibsim did not come up in 300 s")
        self.load_s = time.monotonic() - self.started

    def env(self, sim_host: str) -> dict[str, str]:
        assert LIBUMAD2SIM is not None
        cache = self.workdir / "osm-cache"
        cache.mkdir(exist_ok=True)
        return {
            **os.environ,
            "IBSIM_SOCKNAME": self.sock,
            "LD_PRELOAD": LIBUMAD2SIM,
            "SIM_HOST": sim_host,
            "OSM_CACHE_DIR": str(cache),
        }

    def opensm(
        self, sim_host: str, *options: str, timeout: float = 900
    ) -> tuple[int, str, float]:
        """One sweep (``opensm -o``); the exit code, its log and the seconds."""
        logfile = self.workdir / f"opensm-{time.monotonic_ns()}.log"
        assert PATHS["opensm"] is not None
        t0 = time.monotonic()
        proc = subprocess.run(
            [*NICE, PATHS["opensm"], "-o", "-e", "-f", str(logfile), *options],
            env=self.env(sim_host),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            cwd=self.workdir,
        )
        took = time.monotonic() - t0
        log = logfile.read_text(errors="replace") if logfile.exists() else ""
        return proc.returncode, log + proc.stdout + proc.stderr, took

    def discover(self, sim_host: str, timeout: float = 900) -> str:
        """``ibnetdiscover`` output, as text."""
        assert PATHS["ibnetdiscover"] is not None
        proc = subprocess.run(
            [*NICE, PATHS["ibnetdiscover"]],
            env=self.env(sim_host),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            cwd=self.workdir,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"ibnetdiscover failed: {proc.stderr[-2000:]}")
        return proc.stdout

    def console(self, *commands: str) -> str:
        """Send console commands (``Unlink "S-..."[3]``); return what ibsim said."""
        assert self.proc.stdin is not None
        before = len(self.log.read_text(errors="replace"))
        for command in commands:
            self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        time.sleep(0.5)
        return self.log.read_text(errors="replace")[before:]

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.write("Quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait(timeout=10)
        if self.proc.stdin is not None:
            with suppress(OSError):
                self.proc.stdin.close()
        self._log_fh.close()


@contextmanager
def simulated(
    netfile: Path, workdir: Path, limits: tuple[int, int, int] = (2048, 256, 13312)
) -> Iterator[Sim]:
    """ibsim running ``netfile`` for the duration of the block."""
    sim = Sim(netfile, workdir, limits)
    try:
        yield sim
    finally:
        sim.close()


def limits_for(switches: int, cas: int, switch_ports: int) -> tuple[int, int, int]:
    """ibsim -N -S -P for a fabric: the defaults, raised where it needs more."""
    nodes = switches + cas
    ports = cas * 2 + switch_ports + switches
    return (
        max(2048, nodes + 16),
        max(256, switches + 16),
        max(13312, ports + 1024),
    )


def ibsim_rate_items(items: list[dict[str, object]]) -> list[dict[str, object]]:
    """The items ibsim 0.10 itself causes: links designed above HDR that it
    brings up at SDR (it parses no NDR/XDR rate)."""
    out = []
    for item in items:
        if item["kind"] != "degraded":
            continue
        expected, found = str(item["expected"]), str(item["found"])
        if "SDR" in found and ("NDR" in expected or "XDR" in expected):
            out.append(item)
    return out
