"""Undoable edits of links: add (rows or a whole table), remove, update.

Connection rules are checked before a command is built
(:mod:`designer.core.checks`); a command checks what keeps the design whole
(ids, endpoints, limits) and keeps every link's pins where the edit leaves them
(:mod:`designer.core.pins`). See :mod:`designer.core.commands` for the protocol.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from designer.core.commands import Command
from designer.core.events import Event, LinksAdded, LinksChanged, LinksRemoved
from designer.core.limits import MAX_LINKS
from designer.core.model import Design, Link, LinkTable
from designer.core.pin_checks import check_pins
from designer.core.pins import pin_pending, repin_update


class AddLinks(Command):
    """Append links (rows or a whole :class:`LinkTable`, which bulk wiring uses).

    Refused (ValueError) when an id repeats or an endpoint is not in the design.
    Connection rules (ports, speed, fabric) are checked by ``designer.core.checks``
    before building the command, not here. With a ``lookup`` (the catalog) the
    cables still waiting for ports get them (:mod:`designer.core.pins`): the
    first free ones, no other link's ports touched.
    """

    def __init__(
        self,
        links: Iterable[Link] | LinkTable,
        label: str | None = None,
        *,
        lookup: Any = None,
    ) -> None:
        self.table = (
            links if isinstance(links, LinkTable) else LinkTable.from_links(links)
        )
        self.lookup = lookup
        n = len(self.table)
        self.label = label or ("Connect" if n == 1 else f"Connect {n} links")
        self._start = 0

    @property
    def links(self) -> list[Link]:
        """The links this command adds, as rows."""
        return list(self.table)

    def do(self, design: Design) -> list[Event]:
        new_ids = self.table.id
        if len(set(new_ids)) != len(new_ids):
            seen: set[str] = set()
            for lid in new_ids:
                if lid in seen:
                    raise ValueError(f"link id {lid!r} is used twice")
                seen.add(lid)
        existing = design.links.id_set()
        for lid in new_ids:
            if lid in existing:
                raise ValueError(f"link id {lid!r} already exists")
        device_ids = {d.id for d in design.devices}
        for end in (self.table.a, self.table.b):
            if not device_ids.issuperset(end):
                missing = next(x for x in end if x not in device_ids)
                raise ValueError(f"a link names device {missing!r}, not in the design")
        for a, b in zip(self.table.a, self.table.b, strict=True):
            if a == b:
                raise ValueError(f"a link cannot join {a!r} to itself")
        if len(design.links) + len(self.table) > MAX_LINKS:
            raise ValueError(f"a design holds at most {MAX_LINKS:,} links")
        self._start = len(design.links)
        span = design.links.extend(self.table)
        if self.lookup is not None and self.table.pins_pending():
            pin_pending(design, self.lookup, rows=span)
        return [LinksAdded(tuple(new_ids), tuple(span))]

    def undo(self, design: Design) -> list[Event]:
        design.links.truncate(self._start)
        span = range(self._start, self._start + len(self.table))
        return [LinksRemoved(tuple(self.table.id), tuple(span))]


class RemoveLinks(Command):
    """Remove links by id (unknown ids are ignored)."""

    def __init__(self, link_ids: Iterable[str]) -> None:
        self.ids = set(link_ids)
        self.label = (
            "Delete link" if len(self.ids) == 1 else f"Delete {len(self.ids)} links"
        )
        self._positions: list[int] = []
        self._removed: LinkTable = LinkTable()

    def do(self, design: Design) -> list[Event]:
        table = design.links
        self._positions = sorted(table.positions(self.ids).values())
        self._removed = table.delete(self._positions)
        if not self._positions:
            return []
        ids, at = tuple(self._removed.id), tuple(self._positions)
        return [LinksRemoved(ids, at)]

    def undo(self, design: Design) -> list[Event]:
        design.links.restore(self._positions, self._removed)
        if not self._positions:
            return []
        ids, at = tuple(self._removed.id), tuple(self._positions)
        return [LinksAdded(ids, at)]


class UpdateLinks(Command):
    """Change fields of links (cables, speed, fabric, rail, ports, pins).

    Each link keeps its pins where the edit leaves them (fewer cables keep
    their first ports; :func:`designer.core.pins.repin_update`); with a
    ``lookup`` the cables left waiting get the first free ports, and pins the
    edit names (``a_pins``, ``b_pins``) are checked first (refused with
    :class:`~designer.core.errors.PortTaken` when a port is another link's).
    """

    def __init__(
        self,
        updates: dict[str, dict[str, object]],
        label: str = "Edit link",
        *,
        lookup: Any = None,
    ) -> None:
        self.updates = updates
        self.label = label
        self.lookup = lookup
        self._old: dict[int, Link] = {}

    def do(self, design: Design) -> list[Event]:
        table = design.links
        index = table.positions(self.updates)
        device_ids: set[str] | None = None
        new: dict[int, Link] = {}
        for link_id, fields in self.updates.items():
            i = index.get(link_id)
            if i is None:
                raise ValueError(f"cannot edit link {link_id!r}: not in the design")
            if "id" in fields and fields["id"] != link_id:
                raise ValueError(f"cannot rename link {link_id!r}: ids are stable")
            try:
                link = Link.model_validate({**table.row(i).model_dump(), **fields})
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"])
                raise ValueError(
                    f"link {link_id!r}: field {where}: {first['msg']}"
                ) from None
            if "a" in fields or "b" in fields:
                if device_ids is None:
                    device_ids = {d.id for d in design.devices}
                for end in (link.a, link.b):
                    if end not in device_ids:
                        raise ValueError(
                            f"link {link_id!r}: device {end!r} is not in the design"
                        )
                if link.a == link.b:
                    raise ValueError(
                        f"link {link_id!r} cannot join {link.a!r} to itself"
                    )
            link = repin_update(table.row(i), link, fields)
            if self.lookup is not None and ("a_pins" in fields or "b_pins" in fields):
                check_pins(design, link, self.lookup, i)
            new[i] = link
        rows = sorted(new)
        old = table.replace_rows(rows, [new[i] for i in rows])
        self._old = dict(zip(rows, old, strict=True))
        if self.lookup is not None and table.pins_pending():
            pin_pending(design, self.lookup, rows=rows)
        return [self._event()]

    def undo(self, design: Design) -> list[Event]:
        rows = sorted(self._old)
        design.links.replace_rows(rows, [self._old[i] for i in rows])
        return [self._event()]

    def _event(self) -> LinksChanged:
        rows = sorted(self._old)
        fields = frozenset(k for f in self.updates.values() for k in f)
        return LinksChanged(tuple(self._old[i].id for i in rows), tuple(rows), fields)


class UpdateLink(UpdateLinks):
    """Change fields of one link (cables, speed, fabric, rail, pins)."""

    def __init__(
        self,
        link_id: str,
        fields: dict[str, object],
        label: str = "Edit link",
        *,
        lookup: Any = None,
    ) -> None:
        super().__init__({link_id: fields}, label, lookup=lookup)
        self.link_id = link_id
        self.fields = fields
