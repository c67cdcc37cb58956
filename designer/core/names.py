"""One naming rule for devices: what the canvas, the docks and the report call one.

A device is called by its label when the label names something, and by its id
(its hostname, unique in the design) otherwise. A label that only repeats the
catalog model and the id's number ("DGX H100 #4" on ``dgx-0004``, "Lustre
parallel-FS appliance (AI400X2-class) 1" on ``lustre-appliance-1``) names
nothing the id does not; showing it in one view and the id in another (where
the label did not fit) made one node read as two. Such a device is called by
its id everywhere; the model is shown beside it where there is room.
"""

from __future__ import annotations

import re

_TRAILING_NUMBER = re.compile(r"(\d+)$")
_MODEL_NUMBER = re.compile(r"^(?P<model>.*?)\s*#?\s*(?P<n>\d+)$")


def is_generic_label(label: str, device_id: str, model: str | None) -> bool:
    """Whether ``label`` is only the model and the id's number."""
    text = label.strip()
    if not text or text == device_id:
        return True
    if model is None:
        return False
    match = _MODEL_NUMBER.match(text)
    number = _TRAILING_NUMBER.search(device_id)
    if match is None or number is None:
        return False
    if int(match.group("n")) != int(number.group(1)):
        return False
    return _squash(match.group("model")) == _squash(model)


def device_name(label: str | None, device_id: str, model: str | None = None) -> str:
    """What every view calls the device: its label, or its id when the label
    is empty or only the model and the id's number."""
    text = (label or "").strip()
    if not text or is_generic_label(text, device_id, model):
        return device_id
    return text


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip()).lower()


__all__ = ["device_name", "is_generic_label"]
