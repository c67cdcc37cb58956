"""Hostnames: what a valid one is, and the rule that names the trays of a rack.

A hostname here is one DNS label as RFC 1123 allows it and every hand-off
takes it (Slurm node names, NetBox device names, InfiniBand node
descriptions): 1 to 63 lower-case letters, digits and hyphens, neither first
nor last a hyphen.

A rack of compute trays (GB200/GB300 or Vera Rubin NVL72) is one device in a
design but 18 hosts in the cluster. The design setting
``Settings.tray_hostnames`` names them with a *tray rule*, a hostname with two
placeholders, each exactly once:

- ``{rack}``: the rack's own hostname (``nvl72-0001``);
- ``{tray}``: the tray number, 1-based; ``{tray:02}`` pads it with zeros to
  two digits (``{tray:0N}``, N from 1 to 4).

The default ``{rack}-t{tray:02}`` names the trays ``nvl72-0001-t01`` ...
``nvl72-0001-t18``. :func:`tray_rule_problem` says why a rule cannot be used
(the model, the Properties panel and the CLI refuse with its words);
:func:`render_tray_name` applies one. Which devices have trays, and the names
made unique across a design, is :mod:`designer.catalog.hosts`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

__all__ = [
    "DEFAULT_TRAY_RULE",
    "HOSTNAME_MAX",
    "TRAY_RULE_MAX",
    "compress_hostlist",
    "is_hostname",
    "render_tray_name",
    "sanitize_hostname",
    "tray_name_format",
    "tray_rule_problem",
]

HOSTNAME_MAX = 63
"""Longest hostname: one DNS label (RFC 1123)."""

TRAY_RULE_MAX = 64
"""Longest tray rule, in characters."""

DEFAULT_TRAY_RULE = "{rack}-t{tray:02}"
"""Trays of rack ``nvl72-0001`` are ``nvl72-0001-t01`` ... ``nvl72-0001-t18``."""

_HOSTNAME = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_TRAY_FORMAT = re.compile(r"^tray(?::0([1-4]))?$")
_LITERAL = re.compile(r"^[a-z0-9-]*$")


def is_hostname(name: str) -> bool:
    """Whether ``name`` is a valid hostname (lower case, RFC 1123 label)."""
    return bool(_HOSTNAME.match(name))


def sanitize_hostname(text: str, fallback: str = "host") -> str:
    """``text`` made a hostname: lower case, runs of other characters one hyphen,
    no hyphen at either end, at most 63 characters (``fallback`` when nothing is
    left)."""
    s = re.sub(r"[^a-z0-9-]+", "-", text.lower())
    s = re.sub(r"-{2,}", "-", s).strip("-")
    s = s[:HOSTNAME_MAX].rstrip("-")
    return s or fallback


def tray_rule_problem(rule: str) -> str | None:
    """Why ``rule`` cannot name trays (None: it can).

    The words are those every editor shows when it refuses a rule.
    """
    if not rule:
        return "the tray hostname rule is empty; the default is " + DEFAULT_TRAY_RULE
    if len(rule) > TRAY_RULE_MAX:
        return f"the tray hostname rule is longer than {TRAY_RULE_MAX} characters"
    racks = trays = 0
    for m in _PLACEHOLDER.finditer(rule):
        inner = m.group(1)
        if inner == "rack":
            racks += 1
        elif _TRAY_FORMAT.match(inner):
            trays += 1
        else:
            return (
                f"the tray hostname rule has an unknown placeholder {m.group(0)}; "
                "use {rack} and {tray} (or {tray:02} for two digits)"
            )
    literal = _PLACEHOLDER.sub("", rule)
    if "{" in literal or "}" in literal:
        return "the tray hostname rule has an unmatched { or }"
    if not _LITERAL.match(literal):
        bad = sorted(set(re.sub(r"[a-z0-9-]", "", literal)))
        return (
            "a hostname holds lower-case letters, digits and hyphens only; the tray "
            f"hostname rule has {' '.join(repr(c) for c in bad)}"
        )
    if racks != 1 or trays != 1:
        return (
            "the tray hostname rule needs {rack} and {tray} once each, so that "
            f"every tray of every rack gets its own name (e.g. {DEFAULT_TRAY_RULE})"
        )
    if rule.startswith("-") or rule.endswith("-"):
        return "a hostname neither starts nor ends with a hyphen"
    return None


def tray_name_format(rule: str) -> str:
    """``rule`` as a :meth:`str.format` template over ``rack`` and ``tray``
    (``{rack}-t{tray:02d}``), for naming many trays fast; ``rule`` must be
    valid (:func:`tray_rule_problem` is None)."""

    def place(m: re.Match[str]) -> str:
        inner = m.group(1)
        if inner == "rack":
            return "{rack}"
        fmt = _TRAY_FORMAT.match(inner)
        if fmt is None:
            raise ValueError(f"unknown placeholder {m.group(0)} in {rule!r}")
        return f"{{tray:0{int(fmt.group(1) or 1)}d}}"

    literal = _PLACEHOLDER.split(rule)
    parts = _PLACEHOLDER.finditer(rule)
    out = [literal[0].replace("{", "{{").replace("}", "}}")]
    for k, m in enumerate(parts, start=1):
        out.append(place(m))
        out.append(literal[2 * k].replace("{", "{{").replace("}", "}}"))
    return "".join(out)


def render_tray_name(rule: str, rack: str, tray: int) -> str:
    """The name ``rule`` gives tray ``tray`` (1-based) of rack ``rack``.

    ``rule`` must be valid (:func:`tray_rule_problem` is None); the result is
    not yet checked for length or clashes (:mod:`designer.catalog.hosts` does).
    """

    def place(m: re.Match[str]) -> str:
        inner = m.group(1)
        if inner == "rack":
            return rack
        fmt = _TRAY_FORMAT.match(inner)
        if fmt is None:
            raise ValueError(f"unknown placeholder {m.group(0)} in {rule!r}")
        width = int(fmt.group(1) or 1)
        return f"{tray:0{width}d}"

    return _PLACEHOLDER.sub(place, rule)


_TRAILING_NUMBER = re.compile(r"^(.*?)(\d+)$")


def _ranges(nums: list[int], width: int) -> str:
    """``1-3,7`` for [1, 2, 3, 7], each number at ``width`` digits."""
    out: list[str] = []
    start = prev = nums[0]
    for x in [*nums[1:], None]:
        if x is not None and x == prev + 1:
            prev = x
            continue
        out.append(
            f"{start:0{width}d}"
            if start == prev
            else f"{start:0{width}d}-{prev:0{width}d}"
        )
        if x is not None:
            start = prev = x
    return ",".join(out)


def _number_groups(
    items: Iterable[tuple[tuple[str, ...], str]],
) -> dict[tuple[tuple[str, ...], int], list[int]]:
    """Numbers by (key, width): width 0 = unpadded; an unpadded number as wide
    as a padded group of its key joins it."""
    parsed = list(items)
    padded = {(key, len(d)) for key, d in parsed if len(d) > 1 and d[0] == "0"}
    groups: dict[tuple[tuple[str, ...], int], list[int]] = defaultdict(list)
    for key, digits in parsed:
        width = len(digits)
        group = (key, width) if (key, width) in padded else (key, 0)
        groups[group].append(int(digits))
    return groups


_MIDDLE_NUMBER = re.compile(r"^(.*?)(\d+)(\D+)$")


def compress_hostlist(names: Iterable[str]) -> str:
    """Slurm host list: ``dgx[001-032,040],login``, numbers kept at their width.

    Names with two numbers whose last numbers agree share one entry with a
    range for each, as Slurm reads it: ``nvl72-[0001-0008]-t[01-18]``.
    """
    plain: list[str] = []
    tails: list[tuple[tuple[str, ...], str]] = []
    for name in set(names):
        m = _TRAILING_NUMBER.match(name)
        if m is None:
            plain.append(name)
        else:
            tails.append(((m.group(1),), m.group(2)))
    groups = _number_groups(tails)
    # (prefix, width) -> its ranges; then prefixes ending in a number whose
    # ranges agree merge over that number
    level1 = {
        (key[0], width): _ranges(sorted(set(nums)), width)
        for (key, width), nums in groups.items()
    }
    heads: list[tuple[tuple[str, ...], str]] = []
    for (prefix, width), ranges in level1.items():
        m = _MIDDLE_NUMBER.match(prefix)
        if m is not None:
            heads.append(((m.group(1), m.group(3), str(width), ranges), m.group(2)))
    merged: dict[tuple[str, int], str] = {}  # first member -> entry
    absorbed: set[tuple[str, int]] = set()
    for (key, outer_width), nums in _number_groups(heads).items():
        if len(set(nums)) < 2:
            continue
        head, mid, width_text, ranges = key
        width = int(width_text)
        members = sorted((f"{head}{n:0{outer_width}d}{mid}", width) for n in set(nums))
        absorbed.update(members)
        outer = _ranges(sorted(set(nums)), outer_width)
        merged[members[0]] = f"{head}[{outer}]{mid}[{ranges}]"
    order: list[tuple[str, int] | str] = sorted(
        [*level1, *plain],
        key=lambda k: (k, 0, 0) if isinstance(k, str) else (k[0], 1, k[1]),
    )
    parts: list[str] = []
    for item in order:
        if isinstance(item, str):
            parts.append(item)
        elif item in merged:
            parts.append(merged[item])
        elif item not in absorbed:
            prefix, width = item
            nums = sorted(set(groups[((prefix,), width)]))
            if len(nums) == 1:
                parts.append(f"{prefix}{nums[0]:0{width}d}")
            else:
                parts.append(f"{prefix}[{level1[item]}]")
    return ",".join(parts)
