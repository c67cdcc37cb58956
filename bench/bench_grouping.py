"""Benchmark of grouping devices (Group as SU / Pod) against the old per-member way.

Plain script, not part of the test run::

    .venv/bin/python bench/bench_grouping.py [--gpus 100000] [--members 200,2000,20000]

The design is ``fat_tree("dgx-h100", GPUs / 8, "qm9700")`` (20,812 devices at
100K GPUs). For each member count it times, min of 3 (the naive way once):

* ``build``: :func:`designer.view.canvas.editing.group_devices` building the step
  (one device map, set lookups per member: linear);
* ``naive``: the same function as it was before issue 16 item 14, in this run
  (it rebuilt the set of every device id once per member and looked members
  up in a list: members x devices);
* ``execute``: the step run through a :class:`Document` (group list, every
  member's ``group`` field validated), then undone.

Both builds must give the same groups and device updates.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from designer.core.commands import Command, Macro, SetGroups
from designer.core.device_commands import UpdateDevices
from designer.core.document import Document
from designer.core.formatting import plural
from designer.core.model import Design, Group, GroupKind
from designer.generate import fat_tree
from designer.view.canvas.editing import EditRefused, fresh_ids, group_devices


def naive_group_devices(design: Design, ids: Iterable[str], kind: str) -> Command:
    """group_devices as it was (commit f73e63e), kept here as the baseline."""
    members = [i for i in ids if i in {d.id for d in design.devices}]
    if not members:
        raise EditRefused("select devices to group")
    gkind = GroupKind(kind)
    (gid,) = fresh_ids((g.id for g in design.groups), gkind.value, 1)
    number = gid.rsplit("-", 1)[1]
    name = {"su": "SU", "pod": "Pod"}.get(gkind.value, gkind.value.capitalize())
    groups = design.group_map()
    old_parents = {
        groups[d.group].id for d in design.devices if d.id in members and d.group
    }
    parent = None
    if len(old_parents) == 1:
        parent = groups[next(iter(old_parents))].parent
    new_group = Group(id=gid, label=f"{name} {number}", kind=gkind, parent=parent)
    return Macro(
        f"Group {plural(len(members), 'device')} as {name}",
        [
            SetGroups([*design.groups, new_group]),
            UpdateDevices({i: {"group": gid} for i in members}),
        ],
    )


def _best(fn: Callable[[], Any], reps: int) -> tuple[Any, float]:
    best, out = float("inf"), None
    for _ in range(reps):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return out, best


def _same(a: Command, b: Command) -> bool:
    assert isinstance(a, Macro) and isinstance(b, Macro)
    ga, ua = a.commands
    gb, ub = b.commands
    return (
        a.label == b.label
        and ga.groups == gb.groups  # type: ignore[attr-defined]
        and ua.updates == ub.updates  # type: ignore[attr-defined]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, default=100_000)
    parser.add_argument("--members", default="200,2000,20000")
    parser.add_argument(
        "--naive-max",
        type=int,
        default=2000,
        help="largest member count the naive way is timed at (it is quadratic)",
    )
    args = parser.parse_args()
    design = fat_tree("dgx-h100", args.gpus // 8, "qm9700")
    doc = Document(design)
    ids = [d.id for d in design.devices]
    print(f"{args.gpus:,} GPUs, {len(ids):,} devices")
    print(
        f"{'members':>8} {'build':>9} {'naive':>9} {'naive/build':>12} "
        f"{'execute':>9} {'undo':>8}"
    )
    for n in (int(x) for x in args.members.split(",")):
        chosen = ids[:: max(1, len(ids) // n)][:n]
        cmd, build = _best(lambda c=chosen: group_devices(design, c, "su"), 3)
        naive = float("nan")
        if n <= args.naive_max:
            old, naive = _best(lambda c=chosen: naive_group_devices(design, c, "su"), 1)
            assert _same(cmd, old), "the two builds differ"
        _, run = _best(lambda c=cmd: doc.execute(c), 1)
        _, undo = _best(doc.undo, 1)
        print(
            f"{len(chosen):>8,} {build * 1e3:>7.1f}ms {naive * 1e3:>7.0f}ms "
            f"{naive / build:>11,.0f}x {run * 1e3:>7.0f}ms {undo * 1e3:>6.1f}ms"
        )
    print(
        "build: group_devices (linear); naive: the per-member id set of before; "
        "execute/undo: the step through a Document."
    )


if __name__ == "__main__":
    main()
