"""Every sample's Slurm folder, read by a real slurmctld (marker ``slurm``).

The tree files run on every Slurm found (Debian 12's 22.05 in CI); the block
topology on 23.11+ and topology.yaml on 25.05+, given by
``CLUSTER_DESIGNER_SLURMCTLD`` (:mod:`tests.slurm.harness`). Each test starts
``slurmctld -D`` with its own munged, reads ``scontrol show topology`` and
fails on any error or warning in the log but the clean-start notes listed in
:data:`NOISE`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from designer.catalog.hosts import design_hosts
from designer.io import load_design
from designer.io.export.slurm_files import write_slurm_folder
from tests.io.export.test_slurm import expand_hostlist
from tests.slurm.harness import (
    UNUSABLE,
    Munge,
    Run,
    Slurm,
    find_slurms,
    munged,
    run_slurmctld,
    why_not_runnable,
)

pytestmark = pytest.mark.slurm

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.json"))
NVL72 = [p for p in SAMPLES if "nvl72" in p.stem]

SLURMS = find_slurms()
BLOCK = [s for s in SLURMS if s.has_block()]
YAML = [s for s in SLURMS if s.has_yaml()]

NOISE = (
    # a fresh state folder has no saved state yet (slurmctld -c on a new folder)
    re.compile(r"Could not open (job|reservation|node|trigger) state file"),
    re.compile(r"NOTE: Trying backup state save file"),
    # Debian's slurm-wlm 22.05 loads its mpi/pmix plugins, which look for the
    # unversioned libpmix.so of libpmix-dev (mpi is not what is tested here)
    re.compile(r"mpi/pmix|pmi/pmix|MPI: Cannot create context for mpi/pmix"),
    # slurmctld times 1000 gettimeofday() calls when it starts; on a busy
    # machine that check fails (the clock, not the configuration)
    re.compile(r"High latency for 1000 calls to gettimeofday"),
)


def _skip_reason(slurms: list[Slurm], what: str) -> str | None:
    why = why_not_runnable()
    if why:
        return why
    if not slurms:
        return (
            f"no slurmctld for {what}: set CLUSTER_DESIGNER_SLURMCTLD to the "
            "slurmctld of such a Slurm build (several separated by ':'), or "
            "install one on PATH" + "".join(f"; {x}" for x in UNUSABLE)
        )
    return None


def _ids(slurms: list[Slurm]) -> list[str]:
    return [s.name for s in slurms]


@pytest.fixture(scope="module")
def munge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Munge]:
    why = why_not_runnable()
    if why:
        pytest.skip(why)
    with munged(tmp_path_factory.mktemp("munge")) as m:
        yield m


def _complaints(run: Run) -> list[str]:
    return [
        line
        for line in run.complaints()
        if not any(pattern.search(line) for pattern in NOISE)
    ]


def _fields(text: str, key: str) -> list[dict[str, str]]:
    """``scontrol show topology`` records that start with ``key=``."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(key + "="):
            out.append(dict(f.split("=", 1) for f in line.split() if "=" in f))
    return out


def _conf_lines(text: str, key: str) -> dict[str, dict[str, str]]:
    out = {}
    for line in text.splitlines():
        if line.startswith(key + "="):
            fields = dict(f.split("=", 1) for f in line.split())
            out[fields[key]] = fields
    return out


def _export(path: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "export"
    write_slurm_folder(load_design(path), folder)
    return folder


def _started(run: Run) -> None:
    assert run.started, "slurmctld did not come up:\n" + run.log[-4000:]
    assert not _complaints(run), "\n".join(_complaints(run))


@pytest.mark.skipif(
    bool(_skip_reason(SLURMS, "tree")), reason=str(_skip_reason(SLURMS, "tree"))
)
@pytest.mark.parametrize("slurm", SLURMS, ids=_ids(SLURMS))
@pytest.mark.parametrize("sample", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_tree_is_accepted_with_every_host(
    slurm: Slurm, sample: Path, munge: Munge, tmp_path: Path
) -> None:
    folder = _export(sample, tmp_path)
    run = run_slurmctld(slurm, munge, folder, tmp_path / "ctld", "tree")
    _started(run)
    written = _conf_lines((folder / "topology.conf").read_text(), "SwitchName")
    shown = {r["SwitchName"]: r for r in _fields(run.topology, "SwitchName")}
    assert set(shown) == set(written), run.topology
    for name, fields in written.items():
        for key in ("Nodes", "Switches"):
            if key in fields:
                got = sorted(expand_hostlist(shown[name][key]))
                assert got == sorted(expand_hostlist(fields[key])), name
    hosts = design_hosts(load_design(sample))
    listed = {
        h for r in shown.values() if "Nodes" in r for h in expand_hostlist(r["Nodes"])
    }
    assert listed == {h.name for h in hosts}


@pytest.mark.skipif(
    bool(_skip_reason(BLOCK, "topology/block (23.11+)")),
    reason=str(_skip_reason(BLOCK, "topology/block (23.11+)")),
)
@pytest.mark.parametrize("slurm", BLOCK, ids=_ids(BLOCK))
@pytest.mark.parametrize("sample", NVL72, ids=[p.stem for p in NVL72])
def test_one_block_per_nvlink_domain(
    slurm: Slurm, sample: Path, munge: Munge, tmp_path: Path
) -> None:
    folder = _export(sample, tmp_path)
    run = run_slurmctld(slurm, munge, folder, tmp_path / "ctld", "block")
    _started(run)
    _check_blocks(run.topology, sample)


def _check_blocks(shown_text: str, sample: Path) -> None:
    hosts = design_hosts(load_design(sample))
    domains = [d for d in hosts.nvlink_domains() if len(d.hosts) > 1]
    shown = _fields(shown_text, "BlockName")
    base = [r for r in shown if "AggregatedBlock" not in " ".join(r)]
    by_nodes = {
        frozenset(expand_hostlist(r["Nodes"])): r["BlockName"]
        for r in base
        if r.get("BlockSize") == str(len(domains[0].hosts))
    }
    assert len(by_nodes) == len(domains), shown_text
    for d in domains:
        names = frozenset(h.name for h in d.hosts)
        assert len(names) == 18
        assert names in by_nodes, (d.device, shown_text)


@pytest.mark.skipif(
    bool(_skip_reason(YAML, "topology.yaml (25.05+)")),
    reason=str(_skip_reason(YAML, "topology.yaml (25.05+)")),
)
@pytest.mark.parametrize("slurm", YAML, ids=_ids(YAML))
@pytest.mark.parametrize("sample", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_topology_yaml_is_accepted(
    slurm: Slurm, sample: Path, munge: Munge, tmp_path: Path
) -> None:
    folder = _export(sample, tmp_path)
    run = run_slurmctld(slurm, munge, folder, tmp_path / "ctld", "yaml", ("tree",))
    _started(run)
    if sample in NVL72:
        _check_blocks(run.topology, sample)  # the block topology is the default
    tree = run.named["tree"] if sample in NVL72 else run.topology
    written = _conf_lines((folder / "topology.conf").read_text(), "SwitchName")
    shown = {r["SwitchName"] for r in _fields(tree, "SwitchName")}
    assert shown == set(written), tree


@pytest.mark.skipif(
    bool(_skip_reason(SLURMS, "tree")), reason=str(_skip_reason(SLURMS, "tree"))
)
@pytest.mark.parametrize("slurm", SLURMS[:1], ids=_ids(SLURMS[:1]))
def test_a_tree_naming_an_unknown_host_is_reported(
    slurm: Slurm, munge: Munge, tmp_path: Path
) -> None:
    """The harness sees what slurmctld says: a leaf listing a host no NodeName has."""
    folder = _export(SAMPLES[0], tmp_path)
    tree = folder / "topology.conf"
    tree.write_text(tree.read_text() + "SwitchName=stray Nodes=no-such-host01\n")
    run = run_slurmctld(slurm, munge, folder, tmp_path / "ctld", "tree")
    assert any("no-such-host01" in line for line in _complaints(run)), run.log[-3000:]


@pytest.mark.skipif(
    bool(_skip_reason(BLOCK, "topology/block (23.11+)")),
    reason=str(_skip_reason(BLOCK, "topology/block (23.11+)")),
)
@pytest.mark.parametrize("slurm", BLOCK, ids=_ids(BLOCK))
@pytest.mark.parametrize("sizes", ["18,54", "36,72"])
def test_block_sizes_slurm_refuses(
    slurm: Slurm, sizes: str, munge: Munge, tmp_path: Path
) -> None:
    """What the export never writes, slurmctld refuses: sizes that do not double
    from the base (18,54), or a base larger than a block (36: fatal in 24.x)."""
    if sizes == "36,72" and slurm.version >= (25, 5, 0):
        pytest.skip("Slurm 25.05 accepts blocks smaller than the base")
    folder = _export(NVL72[0], tmp_path)
    conf = folder / "topology-block.conf"
    text = re.sub(
        r"^BlockSizes=.*$", f"BlockSizes={sizes}", conf.read_text(), flags=re.M
    )
    conf.write_text(text)
    run = run_slurmctld(slurm, munge, folder, tmp_path / "ctld", "block")
    assert not run.started or any("fatal" in x.lower() for x in run.complaints())
