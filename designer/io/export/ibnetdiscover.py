"""InfiniBand fabrics of a design in the ``ibnetdiscover`` topology format.

``ibnetdiscover`` prints a live fabric as stanzas, one per node; ``ibsim``
reads the same format as its net file. This module writes each InfiniBand
fabric of a design (:func:`designer.io.export.ib_fabric.ib_fabrics`: the
compute fabric, and the storage fabric when it is InfiniBand) that way, so
that the fabric can be simulated, routed by OpenSM as intended
(:mod:`designer.io.export.opensm`), and compared cable by cable with what is
built (:mod:`designer.io.ibdiscovered`, ``cluster-designer verify``).

What is written
    One ``Switch`` stanza per switch, one ``Ca`` stanza per HCA port, each
    with the NodeDescription the node will report (see
    :mod:`designer.io.export.ib_fabric` for the names, port numbers and
    GUIDs). Every cable is a port line at both ends with its width and speed
    (``4xNDR``). ``switchguid=`` / ``caguid=`` lines before each stanza make
    ibsim use exactly the placeholder GUIDs, so OpenSM's GUID files
    (:func:`designer.io.export.opensm.write_opensm_files`) name the simulated
    nodes.

Use::

    fabrics = ib_fabrics(design)          # [IbFabric('compute'), ...]
    text = ibnetdiscover_text(fabrics[0])
    write_ibnetdiscover(design, "fabric.topo")
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from designer.core.model import Design
from designer.io.export._common import Catalog
from designer.io.export.ib_fabric import (
    IbEnd,
    IbFabric,
    IbLink,
    some_ib_fabrics,
)

__all__ = ["fabric_paths", "ibnetdiscover_text", "write_ibnetdiscover"]


def _q(text: str) -> str:
    """A name in the file's double quotes (a quote in a name would end it)."""
    return text.replace('"', "'")


def ibnetdiscover_text(fab: IbFabric, title: str = "") -> str:
    """The fabric as ``ibnetdiscover`` prints it (and ``ibsim`` reads it)."""
    by_node: dict[str, list[tuple[int, IbLink, IbEnd, IbEnd]]] = defaultdict(list)
    for link in fab.links:
        by_node[link.a.node].append((link.a.port, link, link.a, link.b))
        by_node[link.b.node].append((link.b.port, link, link.b, link.a))
    lids = {n.desc: i + 1 for i, n in enumerate(fab.nodes.values())}
    out = [
        "#",
        f"# Topology file: {title or 'design'}, fabric {fab.name}",
        "# written by cluster-designer: GUIDs are placeholders; devices are matched",
        "# by NodeDescription and port number (cluster-designer verify)",
        f"# {len(fab.switches)} switches, {len(fab.cas)} CA ports, "
        f"{len(fab.links)} cables",
        "#",
        "",
    ]
    for node in fab.nodes.values():
        ports = sorted(by_node[node.desc], key=lambda x: x[0])
        guid = f"0x{node.guid:016x}"
        if node.is_switch:
            out.append(f"switchguid={guid}")
            out.append(
                f'Switch\t{node.ports} "{node.node_id}"\t\t# "{_q(node.desc)}" '
                f"enhanced port 0 lid {lids[node.desc]} lmc 0"
            )
            for port, link, _, far in ports:
                rn = fab.nodes[far.node]
                out.append(
                    f'[{port}]\t"{rn.node_id}"[{far.port}]'
                    f"({rn.port_guid(far.port):x})\t\t"
                    f'# "{_q(rn.desc)}" lid {lids[rn.desc]} {link.rate}'
                )
        else:
            out.append(f"caguid={guid}")
            out.append(f'Ca\t{node.ports} "{node.node_id}"\t\t# "{_q(node.desc)}"')
            for port, link, _, far in ports:
                rn = fab.nodes[far.node]
                out.append(
                    f'[{port}]({node.port_guid(port):x})\t"{rn.node_id}"[{far.port}]'
                    f'\t\t# lid {lids[node.desc]} lmc 0 "{_q(rn.desc)}" '
                    f"lid {lids[rn.desc]} {link.rate}"
                )
        out.append("")
    return "\n".join(out)


def fabric_paths(path: str | Path, fabrics: list[IbFabric]) -> list[Path]:
    """Where each fabric goes: the first (compute) at ``path``, another at
    ``<stem>-<fabric><suffix>`` beside it (``fabric.topo``,
    ``fabric-storage.topo``)."""
    p = Path(path)
    out = []
    for i, fab in enumerate(fabrics):
        out.append(p if i == 0 else p.with_name(f"{p.stem}-{fab.name}{p.suffix}"))
    return out


def write_ibnetdiscover(
    design: Design,
    path: str | Path,
    catalog: Catalog | None = None,
    fabrics: list[IbFabric] | None = None,
) -> list[tuple[Path, IbFabric]]:
    """Write each InfiniBand fabric (see :func:`fabric_paths`); return them.

    ``fabrics``: the design's :func:`ib_fabrics` when already made (the
    OpenSM files are written from the same). ValueError when the design has
    no InfiniBand fabric.
    """
    if fabrics is None:
        fabrics = some_ib_fabrics(design, catalog)
    title = design.settings.name
    written = []
    for target, fab in zip(fabric_paths(path, fabrics), fabrics, strict=True):
        target.write_text(ibnetdiscover_text(fab, title), encoding="utf-8")
        written.append((target, fab))
    return written
