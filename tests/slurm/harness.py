"""Run a real ``slurmctld`` on an exported Slurm folder and read what it made of it.

Where the binaries come from:

- ``CLUSTER_DESIGNER_SLURMCTLD``: one or more ``slurmctld`` paths separated by
  ``os.pathsep`` (e.g. builds of Slurm 24.11 and 25.05); ``scontrol`` is looked
  for beside each (``../bin/scontrol``, the same folder) or on ``PATH``;
- ``slurmctld`` on ``PATH`` or in ``/usr/sbin`` (Debian 12's ``slurmctld`` is
  Slurm 22.05: topology/tree only).

Each run is private: its own ``munged`` (key, socket, log in a temporary
folder), a generated ``slurm.conf`` that includes the export's ``nodes.conf``,
ports picked free on 127.0.0.1, state folders of its own. The exported host
names must resolve, so ``slurmctld`` runs in a private mount namespace
(``unshare -m``, root only) whose ``/etc/hosts`` maps every host to 127.0.0.1;
nothing on the machine changes. Tests skip with the reason when something is
missing.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ENV = "CLUSTER_DESIGNER_SLURMCTLD"

_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")


@dataclass(frozen=True)
class Slurm:
    """One Slurm build: its daemon, its client and its version."""

    slurmctld: Path
    scontrol: Path
    version: tuple[int, int, int]

    @property
    def name(self) -> str:
        return f"slurm-{_dotted(self.version)}"

    def has_block(self) -> bool:
        """topology/block came in 23.11."""
        return self.version >= (23, 11, 0)

    def has_yaml(self) -> bool:
        """topology.yaml came in 25.05."""
        return self.version >= (25, 5, 0)


def _version(program: Path) -> tuple[int, int, int] | None:
    """``program -V`` (slurmctld, scontrol). scontrol reads a slurm.conf even
    for ``-V``: it gets a minimal one of its own."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        conf = Path(tmp, "slurm.conf")
        conf.write_text("ClusterName=probe\nSlurmctldHost=localhost\n")
        try:
            done = subprocess.run(
                [str(program), "-V"],
                capture_output=True,
                text=True,
                timeout=30,
                env={**os.environ, "SLURM_CONF": str(conf)},
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
    m = _VERSION.search(done.stdout + done.stderr)
    return (int(m[1]), int(m[2]), int(m[3])) if m else None


def _scontrol_for(slurmctld: Path) -> Path | None:
    for candidate in (
        slurmctld.parent.parent / "bin" / "scontrol",
        slurmctld.parent / "scontrol",
    ):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("scontrol")
    return Path(found) if found else None


UNUSABLE: list[str] = []
"""Why a ``slurmctld`` named in the environment was left out (set by
:func:`find_slurms`), for the tests' skip reasons."""


def find_slurms() -> list[Slurm]:
    """Every usable Slurm build: the environment's first, then the system's.

    A build is used with an ``scontrol`` of its own version (a client of
    another release cannot talk to it); one named in the environment that is
    missing, gives no version or has no such ``scontrol`` is listed in
    :data:`UNUSABLE` with the reason.
    """
    UNUSABLE.clear()
    given: set[Path] = set()
    paths: list[Path] = []
    for part in os.environ.get(ENV, "").split(os.pathsep):
        if part.strip():
            paths.append(Path(part.strip()))
            given.add(Path(part.strip()))
    system = shutil.which("slurmctld") or (
        "/usr/sbin/slurmctld" if Path("/usr/sbin/slurmctld").is_file() else None
    )
    if system:
        paths.append(Path(system))
    out: list[Slurm] = []
    seen: set[Path] = set()
    for path in paths:
        real = path.resolve()
        if real in seen:
            continue
        found = _build(real)
        if isinstance(found, str):
            if path in given:
                UNUSABLE.append(f"{ENV}: {path}: {found}")
            continue
        seen.add(real)
        out.append(found)
    return out


def _dotted(version: tuple[int, int, int]) -> str:
    return f"{version[0]}.{version[1]:02d}.{version[2]}"


def _build(slurmctld: Path) -> Slurm | str:
    """The build of ``slurmctld``, or why it cannot be used."""
    if not slurmctld.is_file():
        return "no such file"
    version = _version(slurmctld)
    if version is None:
        return "`slurmctld -V` gives no version"
    scontrol = _scontrol_for(slurmctld)
    if scontrol is None:
        return "no scontrol beside it (../bin/scontrol) or on PATH"
    client = _version(scontrol)
    if client is None or client[:2] != version[:2]:
        got = _dotted(client) if client else "no version"
        return (
            f"its scontrol ({scontrol}) is {got}, not {_dotted(version)}"
            " (a client of another release cannot talk to it)"
        )
    return Slurm(slurmctld, scontrol, version)


def why_not_runnable() -> str | None:
    """Why slurmctld cannot run here (None: it can)."""
    if os.name != "posix" or not hasattr(os, "geteuid"):
        return "slurmctld runs on Linux only"
    if os.geteuid() != 0:
        return (
            "slurmctld runs in a private mount namespace with its own /etc/hosts "
            "(unshare -m), which needs root"
        )
    for tool in ("unshare", "munged", "mungekey"):
        if not (shutil.which(tool) or Path("/usr/sbin", tool).is_file()):
            return f"{tool} not found (Debian: apt-get install munge util-linux)"
    return None


def _tool(name: str) -> str:
    return shutil.which(name) or str(Path("/usr/sbin", name))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Munge:
    """A private munged: its socket and process."""

    socket: Path
    process: subprocess.Popen[bytes]


@contextlib.contextmanager
def munged(workdir: Path) -> Iterator[Munge]:
    """Start a munged of our own (key, socket and log under ``workdir``)."""
    home = workdir / "munge"
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    key = home / "munge.key"
    subprocess.run(
        [_tool("mungekey"), "-c", "-f", "-k", str(key)], check=True, timeout=60
    )
    sock = home / "munge.socket"
    proc = subprocess.Popen(
        [
            _tool("munged"),
            "--foreground",
            "--force",
            f"--socket={sock}",
            f"--key-file={key}",
            f"--pid-file={home / 'munged.pid'}",
            f"--log-file={home / 'munged.log'}",
            f"--seed-file={home / 'munged.seed'}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while not sock.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                log = (home / "munged.log").read_text(errors="replace")
                raise RuntimeError(f"munged did not start:\n{log}")
            time.sleep(0.1)
        yield Munge(sock, proc)
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)


@dataclass
class Run:
    """What one slurmctld run left: its log and what scontrol showed."""

    log: str
    topology: str
    started: bool
    named: dict[str, str] = field(default_factory=dict)
    """``scontrol show topology NAME`` for each name asked for (topology.yaml)."""

    def complaints(self) -> list[str]:
        """Log lines with an error, a warning or a fatal message."""
        return [
            line
            for line in self.log.splitlines()
            if re.search(r"\b(error|warning|fatal)\b", line, re.IGNORECASE)
        ]


def _hostnames(nodes_conf: str) -> list[str]:
    """Every host of a nodes.conf, expanded as Slurm does (scontrol's oracle)."""
    from tests.io.export.test_slurm import expand_hostlist

    out: list[str] = []
    for line in nodes_conf.splitlines():
        m = re.match(r"NodeName=(\S+)", line)
        if m:
            out += expand_hostlist(m.group(1))
    return out


def run_slurmctld(
    slurm: Slurm,
    munge: Munge,
    folder: Path,
    workdir: Path,
    topology: str,
    names: tuple[str, ...] = (),
) -> Run:
    """Start ``slurmctld -D`` on the export in ``folder`` and run ``scontrol``.

    ``topology``: ``tree`` (topology.conf, TopologyPlugin=topology/tree),
    ``block`` (topology-block.conf as topology.conf, topology/block) or
    ``yaml`` (topology.yaml, no TopologyPlugin line). ``names``: topologies of
    topology.yaml to show besides the default.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    for sub in ("state", "spool"):
        (workdir / sub).mkdir(exist_ok=True)
    nodes = (folder / "nodes.conf").read_text(encoding="utf-8")
    shutil.copy(folder / "nodes.conf", workdir / "nodes.conf")
    shutil.copy(folder / "gres.conf", workdir / "gres.conf")
    plugin = ""
    if topology == "tree":
        shutil.copy(folder / "topology.conf", workdir / "topology.conf")
        plugin = "TopologyPlugin=topology/tree"
    elif topology == "block":
        shutil.copy(folder / "topology-block.conf", workdir / "topology.conf")
        plugin = "TopologyPlugin=topology/block"
    elif topology == "yaml":
        shutil.copy(folder / "topology.yaml", workdir / "topology.yaml")
    else:
        raise ValueError(topology)
    port = _free_port()
    log = workdir / "slurmctld.log"
    host = socket.gethostname().split(".")[0]
    conf = workdir / "slurm.conf"
    conf.write_text(
        "\n".join(
            [
                "ClusterName=cdtest",
                f"SlurmctldHost={host}(127.0.0.1)",
                f"SlurmctldPort={port}",
                f"SlurmdPort={_free_port()}",
                "AuthType=auth/munge",
                "CredType=cred/munge",
                f"AuthInfo=socket={munge.socket}",
                f"StateSaveLocation={workdir / 'state'}",
                f"SlurmdSpoolDir={workdir / 'spool'}",
                f"SlurmctldPidFile={workdir / 'slurmctld.pid'}",
                f"SlurmctldLogFile={log}",
                "SlurmctldDebug=info",
                "SlurmUser=root",
                "MailProg=/bin/true",
                "ProctrackType=proctrack/linuxproc",
                "TaskPlugin=task/none",
                "SelectType=select/cons_tres",
                "SchedulerType=sched/backfill",
                "MpiDefault=none",
                "JobAcctGatherType=jobacct_gather/none",
                "AccountingStorageType=accounting_storage/none",
                "ReturnToService=2",
                plugin,
                f"Include {workdir / 'nodes.conf'}",
                "PartitionName=all Nodes=ALL Default=YES",
                "",
            ]
        ),
        encoding="utf-8",
    )
    hosts = workdir / "hosts"
    hosts.write_text(
        "127.0.0.1 localhost\n"
        + "".join(f"127.0.0.1 {h}\n" for h in _hostnames(nodes))
        + f"127.0.0.1 {host}\n",
        encoding="utf-8",
    )
    env = {**os.environ, "SLURM_CONF": str(conf)}
    cmd = [
        _tool("unshare"),
        "-m",
        "sh",
        "-c",
        f'mount --bind "{hosts}" /etc/hosts && exec "{slurm.slurmctld}" -D -c '
        f'-f "{conf}"',
    ]
    out = workdir / "slurmctld.out"
    with out.open("wb") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env)
    started = False
    shown = ""
    named: dict[str, str] = {}
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None:
            ping = subprocess.run(
                [str(slurm.scontrol), "ping"],
                capture_output=True,
                text=True,
                env=env,
                timeout=60,
            )
            if "is UP" in ping.stdout:
                started = True
                break
            time.sleep(0.5)
        if started:
            for name in ("", *names):
                shown_run = subprocess.run(
                    [
                        str(slurm.scontrol),
                        "show",
                        "topology",
                        *([name] if name else []),
                    ],
                    capture_output=True,
                    text=True,
                    env=env,
                    timeout=60,
                )
                text = shown_run.stdout + shown_run.stderr
                if name:
                    named[name] = text
                else:
                    shown = text
    finally:
        _stop(proc)
    text = log.read_text(errors="replace") if log.exists() else ""
    text += out.read_text(errors="replace")
    return Run(text, shown, started, named)
