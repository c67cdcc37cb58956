"""Pins checked: every pinned cable end names a port of its group, held once.

:func:`check_pins` refuses an edit's pins (:class:`~designer.core.errors.PortTaken`)
before a command runs; :func:`pin_problems` lists what is wrong with the pins of
a whole design (a hand-edited file), with a numpy fast pass for the common case
that nothing is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from designer.core.errors import PortTaken
from designer.core.link_model import PIN_PENDING_TEXT, Link
from designer.core.model import Design
from designer.core.occupancy import Kind, Occupancy, split_lane, tolerant
from designer.core.specs import Lookup, as_lookup

__all__ = ["check_pins", "pin_problems", "taken_message"]


def check_pins(design: Design, link: Link, lookup: Any, position: int | None) -> None:
    """Refuse (:class:`PortTaken`) pins of ``link`` that name no port of its
    group, repeat, or are held by another link; ``position``: the link's own
    row, whose current pins count as free."""
    look = as_lookup(lookup)
    occ = Occupancy(design, look)
    occ.load({link.a, link.b}, skip=() if position is None else (position,))
    for dev, grp, pins in (
        (link.a, link.a_port, link.a_pins),
        (link.b, link.b_port, link.b_pins),
    ):
        if pins is None:
            continue
        g = occ.group(dev, grp)
        if g is None:
            continue
        if len(pins) != link.cables:
            raise PortTaken(
                f"link {link.id!r}: {len(pins)} ports named at {dev} for "
                f"{link.cables} cable{'s' if link.cables != 1 else ''}",
                device=dev,
                port="",
                link_id=link.id,
            )
        for pin in pins:
            if not pin or pin == PIN_PENDING_TEXT:
                continue
            port, lane, problem = g.locate(pin, link.speed_gbps)
            if problem:
                raise PortTaken(problem, device=dev, port=pin, link_id=link.id)
            why = g.blocker(port, lane, link.speed_gbps)
            if why:
                holder = g.holder.get(port)
                raise PortTaken(
                    taken_message(design, dev, pin, why, holder, link.id),
                    device=dev,
                    port=pin,
                    link_id=link.id,
                    holder=holder,
                )
            g.occupy(port, lane, link.speed_gbps, link.id)


def taken_message(
    design: Design, device: str, pin: str, why: str, holder: str | None, link_id: str
) -> str:
    """The one sentence every entry point refuses a taken port with."""
    if holder == link_id:
        return f"{device} port {pin} is named twice for link {link_id!r}"
    if why == "taken":
        other = design.links.get(holder) if holder else None
        to = ""
        if other is not None:
            far = other.b if other.a == device else other.a
            to = f" (to {far})"
        return f"{device} port {pin} is taken by link {holder!r}{to}"
    return (
        f"{device} port {pin} shares a cage with ports running another module "
        f"(a cage holds one module)"
    )


def _pins_all_fine(design: Design, look: Lookup, full: Lookup | None = None) -> bool:
    """Fast pass of :func:`pin_problems`: every pinned cable end names a port
    (lane) of its group, no port is held twice (lanes of one port only by
    cables of one speed, each lane once) and every cage holds one module kind.
    Distinct (device type, group, pin, speed) combinations are looked up once;
    the rest is numpy. False: some end may be wrong (the exact pass says)."""
    s = design.links.arrays
    owner = np.repeat(np.arange(len(s), dtype=np.int64), s.cables)
    dev = np.concatenate((s.a[owner], s.b[owner])).astype(np.int64)
    grp = np.concatenate((s.a_port[owner], s.b_port[owner])).astype(np.int64)
    pin = np.concatenate((s.a_pins, s.b_pins)).astype(np.int64)
    speed = np.concatenate((s.speed[owner], s.speed[owner])).astype(np.int64)
    keep = pin >= 0
    dev, grp, pin, speed = dev[keep], grp[keep], pin[keep], speed[keep]
    if not len(pin):
        return True
    devices = design.device_map()
    types: dict[str, int] = {}
    dev_type = np.asarray(
        [
            types.setdefault(devices[n].catalog_id, len(types)) if n in devices else -1
            for n in s.names
        ],
        dtype=np.int64,
    )
    type_names = list(types)
    speeds, speed_code = np.unique(speed, return_inverse=True)
    n_g, n_p, n_s = len(s.port_names) + 1, len(s.pin_names) + 1, len(speeds)
    key = ((dev_type[dev] * n_g + grp) * n_p + pin) * n_s + speed_code.reshape(-1)
    keys, inv = np.unique(key, return_inverse=True)
    inv = inv.reshape(-1)
    rest, sp_code = np.divmod(keys, n_s)
    rest, p_codes = np.divmod(rest, n_p)
    t_codes, g_codes = np.divmod(rest, n_g)
    uniq = np.stack((t_codes, g_codes, p_codes, speeds[sp_code]), axis=1)
    port = np.zeros(len(uniq), dtype=np.int64)
    lane = np.zeros(len(uniq), dtype=np.int64)
    cage = np.zeros(len(uniq), dtype=np.int64)
    kind = np.zeros(len(uniq), dtype=np.int64)
    kinds: dict[Kind, int] = {}
    for k, (t, g_code, p_code, sp) in enumerate(uniq.tolist()):
        if t < 0:
            return False
        spec = look(type_names[t])
        g = spec.port_group(s.port_names[g_code]) if spec is not None else None
        if g is None:
            continue  # unknown hardware: the catalog check reports it
        name = s.pin_names[p_code]
        split = max(1, g.split(sp))
        whole = name in (g.port_names or ())
        if split <= 1:
            if not whole and g.port_format is None:
                return False
            base, ln = name, -1
        else:
            base, ln = split_lane(name)
            if ln < 0 or ln >= split:
                return False
        if g.port_names:
            try:
                idx = g.port_names.index(base)
            except ValueError:
                return False
        else:
            return False  # a configurable group: the exact pass
        port[k], lane[k] = idx, ln
        cage[k] = idx // max(1, g.ports_per_cage)
        kind[k] = sp  # a cage's module follows its speed (the exact kind below)
    # one use per port, or lanes of one speed each once
    where = dev * n_g + grp  # a device's port group
    p_of, l_of = port[inv], lane[inv]
    order = np.argsort((where * 65_536 + p_of) * 16 + (l_of + 1), kind="stable")
    w_s, p_s, l_s, sp_s = where[order], p_of[order], l_of[order], speed[order]
    same_port = (w_s[1:] == w_s[:-1]) & (p_s[1:] == p_s[:-1])
    if same_port.any():
        clash = same_port & (
            (l_s[1:] < 0)
            | (l_s[:-1] < 0)
            | (l_s[1:] == l_s[:-1])
            | (sp_s[1:] != sp_s[:-1])
        )
        if clash.any():
            return False
    # one module kind per cage: only a device type's group running two speeds
    # can mix kinds (then the kinds are read from the optics table)
    group_of = uniq[:, 0] * n_g + uniq[:, 1]
    pair = np.unique(group_of * (int(speeds.max()) + 1) + kind)
    if len(np.unique(pair // (int(speeds.max()) + 1))) == len(pair):
        return True
    rich = full if full is not None else look
    for k, (t, g_code, _, sp) in enumerate(uniq.tolist()):
        spec = rich(type_names[t])
        g = spec.port_group(s.port_names[g_code]) if spec is not None else None
        kind[k] = kinds.setdefault(g.module_kind(sp), len(kinds)) if g else -1
    c_of, k_of = cage[inv], kind[inv]
    order = np.argsort(where * 65_536 + c_of, kind="stable")
    w_s, c_s, k_s = where[order], c_of[order], k_of[order]
    same_cage = (w_s[1:] == w_s[:-1]) & (c_s[1:] == c_s[:-1])
    return not bool((same_cage & (k_s[1:] != k_s[:-1])).any())


def pin_problems(design: Design, lookup: Any, limit: int = 50) -> list[PortTaken]:
    """Pins that name no port of their group or a port another link holds
    (a hand-edited file), in link order; at most ``limit``."""
    look = as_lookup(lookup)
    arrays = design.links.arrays
    if not bool((arrays.a_pins >= 0).any() or (arrays.b_pins >= 0).any()):
        return []  # nothing pinned yet
    plain = as_lookup(lookup.get) if isinstance(lookup, Mapping) else look
    if _pins_all_fine(design, tolerant(plain), tolerant(look)):
        return []
    occ = Occupancy(design, look)
    s = design.links.arrays
    out: list[PortTaken] = []
    if not len(s) or not bool((s.a_pins >= 0).any() or (s.b_pins >= 0).any()):
        return out
    offsets = s.pin_offsets()
    for i in range(len(s)):
        lo, hi = int(offsets[i]), int(offsets[i + 1])
        speed = int(s.speed[i])
        lid = str(s.ids[i])
        for dev, grp, pins in (
            (s.a[i], s.a_port[i], s.a_pins),
            (s.b[i], s.b_port[i], s.b_pins),
        ):
            did = s.names[dev]
            g = occ.group(did, s.port_names[grp])
            if g is None:
                continue
            for code in pins[lo:hi].tolist():
                if code < 0:
                    continue
                pin = s.pin_names[code]
                port, lane, problem = g.locate(pin, speed)
                if not problem:
                    why = g.blocker(port, lane, speed)
                    if not why:
                        g.occupy(port, lane, speed, lid)
                        continue
                    problem = taken_message(
                        design, did, pin, why, g.holder.get(port), lid
                    )
                out.append(
                    PortTaken(
                        f"link {lid!r}: {problem}", device=did, port=pin, link_id=lid
                    )
                )
                if len(out) >= limit:
                    return out
    return out
