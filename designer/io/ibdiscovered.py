"""Read ``ibnetdiscover`` output: the nodes and cables of a live fabric.

The format is the one :mod:`designer.io.export.ibnetdiscover` writes and
``ibsim`` reads: per node a header ``Switch N "S-<guid>" # "<description>"
...`` or ``Ca N "H-<guid>" # "<description>"``, optionally preceded by
``switchguid=`` / ``caguid=`` / ``vendid=`` lines, then one line per cabled
port::

    [3]     "H-0002c9030001e1a2"[1](2c9030001e1a3)   # "dgx-0001 mlx5_6" lid 7 4xNDR
    [1](2c9030001e1a3)  "S-0002c90300a1b2c3"[3]  # lid 7 lmc 0 "leaf-1" lid 2 4xNDR

Every cable appears at both ends; :func:`parse_ibnetdiscover` keeps each once.
A file the reader cannot use raises :class:`DiscoveredFileError` naming the
file, the line and what was expected there.

NodeDescriptions are kept as the nodes report them; :func:`node_name` gives
the name verification matches by (a Quantum switch's
``MF0;leaf-1:MQM9700/U1`` is ``leaf-1``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "Discovered",
    "DiscoveredFileError",
    "DiscoveredLink",
    "DiscoveredNode",
    "node_name",
    "parse_ibnetdiscover",
    "read_ibnetdiscover",
]

_HEADER = re.compile(
    r'^(Switch|Ca|Hca|Rt)\s+(\d+)\s+"([^"]*)"\s*(?:#\s*(?:"([^"]*)".*|(.*)))?$'
)
_PORT = re.compile(
    r'^\[(\d+)\](?:\(([0-9A-Fa-fx]+)\))?\s*"([^"]*)"\[(\d+)\]'
    r"(?:\(([0-9A-Fa-fx]+)\))?\s*(.*)$"
)
_RATE = re.compile(r"\b(\d+)x([A-Z][A-Z0-9]*)\s*(?:\(|$)")
_GUID_LINE = re.compile(r"^(switchguid|caguid|hcaguids|rtguid)\s*=\s*(0x[0-9A-Fa-f]+)")
_ASSIGN = re.compile(r"^[a-z][a-z_]*\s*=")
_QUANTUM = re.compile(r"^MF0;([^:]+):.*$")
_FQDN_HCA = re.compile(r"^([^.\s]+)\.\S+ (mlx\d+_\d+)$")


class DiscoveredFileError(ValueError):
    """A discovered-topology file that cannot be read; says file, line, why."""

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path, self.line, self.message = path, line, message
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {message}")


def node_name(desc: str) -> str:
    """The name a NodeDescription matches by: Quantum switches'
    ``MF0;<name>:<model>/U1`` is ``<name>``; a host that reports its full
    domain name (``dgx-0001.cluster.local mlx5_0``) is its short name
    (``dgx-0001 mlx5_0``); other descriptions as reported, runs of spaces
    made one."""
    text = " ".join(desc.split())
    m = _QUANTUM.match(text)
    if m:
        return m.group(1)
    m = _FQDN_HCA.match(text)
    return f"{m.group(1)} {m.group(2)}" if m else text


@dataclass(frozen=True, slots=True)
class DiscoveredNode:
    """One node of the file: its name there (``S-...``), kind and description."""

    node_id: str
    kind: str  # "Switch", "Ca" or "Rt"
    ports: int
    desc: str
    guid: int | None
    line: int

    @property
    def name(self) -> str:
        """The NodeDescription as verification matches it (:func:`node_name`)."""
        return node_name(self.desc)


@dataclass(frozen=True, slots=True)
class DiscoveredLink:
    """One cable seen: two (node id, port) ends and the rate it came up at."""

    a: tuple[str, int]
    b: tuple[str, int]
    width: int | None
    speed: str | None
    line: int

    @property
    def rate(self) -> str:
        """``4xNDR`` (empty when the file does not say)."""
        return f"{self.width}x{self.speed}" if self.width and self.speed else ""


@dataclass(slots=True)
class Discovered:
    """The fabric of one ``ibnetdiscover`` file."""

    path: str
    nodes: dict[str, DiscoveredNode] = field(default_factory=dict)
    links: list[DiscoveredLink] = field(default_factory=list)
    remote_desc: dict[str, str] = field(default_factory=dict)

    def desc(self, node_id: str) -> str:
        """The description of a node (from its stanza, else a port line's)."""
        node = self.nodes.get(node_id)
        if node is not None:
            return node.desc
        return self.remote_desc.get(node_id, node_id)

    def kind(self, node_id: str) -> str:
        """``Switch``/``Ca`` (a node seen only as a far end: from its name)."""
        node = self.nodes.get(node_id)
        if node is not None:
            return node.kind
        return "Switch" if node_id.startswith("S-") else "Ca"


def read_ibnetdiscover(path: str | Path) -> Discovered:
    """Parse the file at ``path`` (see :func:`parse_ibnetdiscover`)."""
    name = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise DiscoveredFileError(name, None, f"cannot read: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DiscoveredFileError(
            name, line, "not text: expected ibnetdiscover output (UTF-8/ASCII)"
        ) from None
    return parse_ibnetdiscover(text, name)


def _remote_desc(kind: str, tail: str) -> str:
    """The far end's description in a port line's comment."""
    if "#" not in tail:
        return ""
    comment = tail.split("#", 1)[1]
    quoted = re.findall(r'"([^"]*)"', comment)
    return quoted[-1] if quoted else ""


def parse_ibnetdiscover(text: str, path: str = "<text>") -> Discovered:
    """The nodes and cables of ``ibnetdiscover`` output ``text``.

    DiscoveredFileError (naming ``path`` and the line) for a line that is
    neither a comment, an assignment, a node header nor a port line; a port
    line before any header or beyond the node's port count; a port cabled to
    two different far ends; a file with no node at all.
    """
    out = Discovered(path)
    current: DiscoveredNode | None = None
    pending_guid: int | None = None
    seen: dict[tuple[str, int], tuple[tuple[str, int], int]] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if m := _GUID_LINE.match(line):
            pending_guid = int(m.group(2), 16)
            continue
        if _ASSIGN.match(line):
            continue
        if m := _HEADER.match(line):
            kind = {"Hca": "Ca"}.get(m.group(1), m.group(1))
            node_id = m.group(3)
            if not node_id:
                raise DiscoveredFileError(
                    path, number, "expected a node name in quotes"
                )
            if node_id in out.nodes:
                raise DiscoveredFileError(
                    path,
                    number,
                    f"node {node_id!r} listed twice (first on line "
                    f"{out.nodes[node_id].line})",
                )
            desc = m.group(4) if m.group(4) is not None else (m.group(5) or "")
            desc = re.split(r"\s+(?:enhanced|base) port 0", desc)[0].strip()
            current = out.nodes[node_id] = DiscoveredNode(
                node_id, kind, int(m.group(2)), desc or node_id, pending_guid, number
            )
            pending_guid = None
            continue
        if line.startswith("["):
            m = _PORT.match(line)
            if m is None:
                raise DiscoveredFileError(
                    path,
                    number,
                    'expected a port line such as [3] "S-..."[5] # ..., got '
                    f"{_clip(line)!r}",
                )
            if current is None:
                raise DiscoveredFileError(
                    path,
                    number,
                    "a port line before any Switch or Ca line: expected a node "
                    "header first",
                )
            port = int(m.group(1))
            if not 1 <= port <= current.ports:
                raise DiscoveredFileError(
                    path,
                    number,
                    f"port {port} of {current.node_id!r}, which has ports 1-"
                    f"{current.ports}",
                )
            far = (m.group(3), int(m.group(4)))
            here = (current.node_id, port)
            rate = None
            for rm in _RATE.finditer(m.group(6)):
                rate = rm
            width = int(rate.group(1)) if rate else None
            speed = rate.group(2) if rate else None
            rdesc = _remote_desc(current.kind, m.group(6))
            if rdesc:
                out.remote_desc.setdefault(far[0], rdesc)
            for a, b in ((here, far), (far, here)):
                got = seen.get(a)
                if got is not None and got[0] != b:
                    raise DiscoveredFileError(
                        path,
                        number,
                        f"{a[0]}[{a[1]}] is cabled to {got[0][0]}[{got[0][1]}] "
                        f"(line {got[1]}) and to {b[0]}[{b[1]}]",
                    )
            if here in seen:  # the far end's stanza already gave this cable
                continue
            seen[here] = (far, number)
            seen[far] = (here, number)
            out.links.append(DiscoveredLink(here, far, width, speed, number))
            continue
        raise DiscoveredFileError(
            path,
            number,
            "expected a 'Switch', 'Ca' or '[port]' line of ibnetdiscover output, "
            f"got {_clip(line)!r}",
        )
    if not out.nodes:
        raise DiscoveredFileError(
            path,
            None,
            "no Switch or Ca stanza: expected the output of ibnetdiscover",
        )
    return out


def _clip(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."
