"""OpenSM's inputs for the InfiniBand fabrics of a design: GUID files, a GUID
map and the options that route each fabric with ``ftree`` as designed.

The GUIDs are the placeholders of :mod:`designer.io.export.ib_fabric` (the
ones the ``ibnetdiscover`` export makes ibsim use); replace them with the real
ones after bring-up.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from designer.core.model import Design
from designer.io.export._common import Catalog
from designer.io.export.ib_fabric import IbFabric, some_ib_fabrics

__all__ = ["write_opensm_files"]


OPENSM_FILES = ("root-guids.txt", "cn-guids.txt", "io-guids.txt", "guid-map.csv")


def write_opensm_files(
    design: Design,
    folder: str | Path,
    catalog: Catalog | None = None,
    fabrics: list[IbFabric] | None = None,
) -> list[tuple[IbFabric, list[Path]]]:
    """Write OpenSM's inputs per fabric into ``folder`` (made if missing).

    ``<fabric>-root-guids.txt``: the top tier's switch GUIDs (``-a`` /
    ``root_guid_file``); ``<fabric>-cn-guids.txt``: the compute hosts' HCA
    port GUIDs (``cn_guid_file``); ``<fabric>-io-guids.txt``: storage, UFM
    and other hosts' port GUIDs (``io_guid_file``); ``<fabric>-guid-map.csv``:
    every port's GUID with its device, port, host, rack and U;
    ``<fabric>-opensm.conf``: the options that route with ``ftree`` from these
    files. A GUID file that would be empty is not written (OpenSM refuses
    one, ``ERR AB29``). ``fabrics``: the design's :func:`ib_fabrics` when
    already made. ValueError when the design has no InfiniBand fabric.
    """
    if fabrics is None:
        fabrics = some_ib_fabrics(design, catalog)
    out_dir = Path(folder)
    out_dir.mkdir(parents=True, exist_ok=True)
    result = []
    for fab in fabrics:
        root, cn, io, gmap = (out_dir / f"{fab.name}-{n}" for n in OPENSM_FILES)
        files = {
            root: [n.guid for n in fab.roots],
            cn: [n.port_guid(1) for n in fab.cas if n.role == "compute"],
            io: [n.port_guid(1) for n in fab.cas if n.role == "io"],
        }
        written: list[Path] = []
        conf_lines = [
            "# OpenSM options routing this fabric as designed (fat tree); the GUIDs",
            "# are the export's placeholders: replace them with the real ones after",
            "# bring-up (see the guid-map file).",
            "routing_engine ftree",
        ]
        keys = {root: "root_guid_file", cn: "cn_guid_file", io: "io_guid_file"}
        for target, guids in files.items():
            # OpenSM refuses an empty GUID file (ERR AB29) and falls back to
            # minhop: a fabric without I/O nodes gets no io_guid_file
            if target.exists():
                target.unlink()
            if not guids:
                continue
            target.write_text("".join(f"0x{g:016x}\n" for g in guids), "utf-8")
            written.append(target)
            conf_lines.append(f"{keys[target]} {target.resolve()}")
        gmap.write_text(_guid_map(fab), encoding="utf-8")
        conf = out_dir / f"{fab.name}-opensm.conf"
        conf.write_text("\n".join(conf_lines) + "\n", encoding="utf-8")
        names = [*written, gmap]
        result.append((fab, [*names, conf]))
    return result


def _guid_map(fab: IbFabric) -> str:
    from designer.io.export.cabling import csv_field

    lines = [
        "node_guid,port_guid,kind,node_description,device,host,hca,port,"
        "port_name,rank,rack,u"
    ]
    ports: dict[str, set[tuple[int, str]]] = defaultdict(set)
    for link in fab.links:
        for end in (link.a, link.b):
            ports[end.node].add((end.port, end.port_name))
    for node in fab.nodes.values():
        for port, name in sorted(ports[node.desc]):
            fields = [
                f"0x{node.guid:016x}",
                f"0x{node.port_guid(port):016x}",
                node.kind,
                node.desc,
                node.device,
                node.host,
                node.hca,
                str(port),
                name,
                str(node.rank) if node.is_switch else "",
                node.rack,
                "" if node.u is None else str(node.u),
            ]
            lines.append(",".join(csv_field(f) for f in fields))
    return "\n".join(lines) + "\n"
