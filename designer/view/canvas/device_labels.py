"""Which text a device box shows at a given size: the whole label or a shorter form.

A label is never cut: the box shows the whole label (on one line, with the model
under it when there is room, or wrapped to two lines), else the first shorter
form that fits whole (the device id such as ``dgx-0127``, the label's tail such
as ``#127`` or ``rail 0``, or, inside a group frame that names the unit, the
number alone), else nothing. Text is measured by the caller (Qt font metrics on
screen and in print; a fixed advance in tests), so this module stays Qt-free.

Text keeps a readable size on screen: it follows the zoom between a floor and a
ceiling instead of scaling with the box (a label scaled with its box fits at no
zoom if it does not fit at 100 %).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

#: Device title size (reference px) at 1 px per scene unit; it follows the zoom
#: between the floor and the ceiling.
LABEL_PX = 10.0
#: Smallest title on screen (reference px): smaller text is not drawn at all.
MIN_LABEL_PX = 7.0
#: Smallest title in print: 8 reference px (1/96 in) = 6 pt.
PRINT_MIN_LABEL_PX = 8.0
#: Largest title (reference px): zoomed far in, the box grows, the text does not.
MAX_LABEL_PX = 13.0
#: Space kept free inside the box on each side (reference px).
PAD_PX = 2.0

_NUMBER = re.compile(r"(\d+)\D*$")
_TAIL_DIGIT = re.compile(r"\d")


def label_px(zoom: float, floor: float = MIN_LABEL_PX) -> float:
    """Title size in reference px at ``zoom`` reference px per scene unit."""
    return min(MAX_LABEL_PX, max(floor, LABEL_PX * zoom))


@dataclass(frozen=True)
class LabelForms:
    """A device's label and its shorter forms, in order of preference."""

    full: str
    """The label (the id when the device has none)."""
    shorter: tuple[str, ...]
    """Id, tail and number forms, each shorter than the one before."""
    detail: tuple[str, ...]
    """Second lines shown under a one-line label when there is room: the model
    and tier, then the model alone."""


def label_forms(
    label: str, device_id: str, *, grouped: bool, detail: tuple[str, ...] = ()
) -> LabelForms:
    """The forms of a device's label; ``grouped``: its group's frame is drawn
    around it (so the number alone still names it)."""
    full = label.strip() or device_id
    candidates: list[str] = []
    if device_id != full:
        candidates.append(device_id)
    words = full.split()
    if len(words) > 1:
        last = words[-1]
        if last.isdigit() and len(words) > 2:
            candidates.append(f"{words[-2]} {last}")  # "rail 0", "switch 2"
        elif _TAIL_DIGIT.search(last):
            candidates.append(last)  # "#127"
    if grouped:
        number = _NUMBER.search(full) or _NUMBER.search(device_id)
        if number is not None:
            candidates.append(number.group(1))
    shorter: list[str] = []
    for text in candidates:
        # each form must be shorter than the full label and every form before it
        if len(text) < min([len(full), *(len(s) for s in shorter)]):
            shorter.append(text)
    return LabelForms(full, tuple(shorter), tuple(d for d in detail if d))


class Metrics(Protocol):
    """Text measurement in the units of the box (device px on screen or page)."""

    def width(self, text: str, detail: bool = False) -> float:
        """Advance of ``text`` in the title font (``detail``: the smaller font)."""
        ...

    def line_height(self, detail: bool = False) -> float:
        """Height of one line of the title (or detail) font."""
        ...


@dataclass(frozen=True)
class LabelFit:
    """What a box shows: title lines, an optional detail line, and which form."""

    lines: tuple[str, ...] = ()
    detail: str = ""
    form: str = "none"
    """"full", "wrapped", "shorter" or "none"."""

    @property
    def shown(self) -> bool:
        """Whether any text is drawn."""
        return bool(self.lines)


NOTHING = LabelFit()


def split_two(text: str, width: float, metrics: Metrics) -> tuple[str, str] | None:
    """``text`` on two lines no wider than ``width``, broken at a space (or after
    a hyphen), the break that makes the wider line narrowest (the later one of
    equals: the number stays whole on the second line); None if none fits."""
    breaks: list[tuple[str, str]] = []
    for i, ch in enumerate(text):
        if ch == " ":
            breaks.append((text[:i], text[i + 1 :]))
        elif ch == "-" and 0 < i < len(text) - 1:
            breaks.append((text[: i + 1], text[i + 1 :]))
    best: tuple[float, tuple[str, str]] | None = None
    for first, second in breaks:
        first, second = first.rstrip(), second.lstrip()
        if not first or not second:
            continue
        wide = max(metrics.width(first), metrics.width(second))
        if wide <= width and (best is None or wide <= best[0]):
            best = (wide, (first, second))
    return best[1] if best is not None else None


def fit_label(
    forms: LabelForms, width: float, height: float, metrics: Metrics
) -> LabelFit:
    """The most complete text that fits whole in a ``width`` x ``height`` area."""
    line = metrics.line_height()
    if line > height or width <= 0:
        return NOTHING
    if metrics.width(forms.full) <= width:
        if line + metrics.line_height(True) <= height:
            for detail in forms.detail:
                if metrics.width(detail, True) <= width:
                    return LabelFit((forms.full,), detail, "full")
        return LabelFit((forms.full,), "", "full")
    two = 2 * line <= height
    if two:
        split = split_two(forms.full, width, metrics)
        if split is not None:
            return LabelFit(split, "", "wrapped")
    for text in forms.shorter:
        if metrics.width(text) <= width:
            return LabelFit((text,), "", "shorter")
        if two:
            split = split_two(text, width, metrics)
            if split is not None:
                return LabelFit(split, "", "shorter")
    return NOTHING


def label_range(labels: list[str]) -> str:
    """Labels of a run of devices as a range: "DGX H100 #1 – #32", "rail 0 – 7"."""
    if not labels:
        return ""
    first, last = labels[0], labels[-1]
    if len(labels) == 1 or first == last:
        return first
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    # the last label from its first word (or hyphenated part) that differs
    cut = max(first.rfind(" ", 0, n), first.rfind("-", 0, n)) + 1
    return f"{first} – {last[cut:]}"
