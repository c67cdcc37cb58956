"""File names a save dialog suggests, and the folder it opens in.

A design's name is written for people ("Fat tree: 64 x DGX H100 (512 GPUs) on
Quantum-2 QM9700"); a file name must survive every file system, shell and URL.
:func:`slug` keeps the words and drops the rest: lower case ASCII, digits and
hyphens, no colons, spaces or parentheses
(``fat-tree-64x-dgx-h100-on-quantum-2-qm9700``).
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

DESIGN_SUFFIX = ".json"
#: Longest slug; a longer one is cut at a word boundary.
MAX_SLUG = 60
FALLBACK = "design"

# Names Windows refuses for a file whatever the suffix.
_RESERVED = {"con", "prn", "aux", "nul"} | {
    f"{dev}{i}" for dev in ("com", "lpt") for i in range(1, 10)
}
_COUNTS_REMARK = re.compile(r"\([^()]*\d[^()]*\)|\[[^\[\]]*\d[^\[\]]*\]")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_TIMES = re.compile(r"(\d)\s*[x×]\s+(?=\S)", re.IGNORECASE)
_NOT_WORD = re.compile(r"[^a-z0-9]+")


def slug(name: str, max_length: int = MAX_SLUG) -> str:
    """A clean file stem: "DGX H100 SuperPOD, 4 SU" gives ``dgx-h100-superpod-4-su``.

    Parenthetical remarks with numbers go (counts: "(512 GPUs)"), other
    ones stay as words ("(Ethernet)" -> ``ethernet``),
    ``64 x DGX`` becomes ``64x-dgx``, thousands separators go (``1,152`` ->
    ``1152``), accents fold to ASCII; anything else that is not a letter or a
    digit becomes one hyphen. Empty or reserved results fall back to
    ``design``.
    """
    text = _COUNTS_REMARK.sub(" ", name)
    text = _THOUSANDS.sub("", text)
    text = _TIMES.sub(r"\1x ", text)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = [w for w in _NOT_WORD.split(text.lower()) if w]
    out = ""
    for word in words:
        longer = f"{out}-{word}" if out else word
        if len(longer) > max_length:
            if not out:  # one very long word: cut it
                out = word[:max_length]
            break
        out = longer
    if not out:
        return FALLBACK
    if out in _RESERVED:
        return f"{out}-{FALLBACK}"
    return out


def suggested_file_name(design_name: str, suffix: str = DESIGN_SUFFIX) -> str:
    """File name (with ``suffix``) a save dialog proposes for an unsaved design."""
    return slug(design_name) + suffix


def save_dialog_path(
    design_name: str,
    current: Path | None,
    last_folder: str | Path | None,
    fallback: Path,
) -> Path:
    """Where File > Save As starts: the file itself when the design has one, else
    a clean name in the last folder used (still there), else in ``fallback``."""
    if current is not None and current.parent.is_dir():
        return current
    return open_dialog_folder(None, last_folder, fallback) / suggested_file_name(
        design_name
    )


def open_dialog_folder(
    current: Path | None, last_folder: str | Path | None, fallback: Path
) -> Path:
    """Where File > Open starts: the last folder used (when it still exists),
    else the open design's folder, else ``fallback``."""
    if last_folder:
        folder = Path(last_folder)
        if folder.is_dir():
            return folder
    if current is not None and current.parent.is_dir():
        return current.parent
    return fallback


def installation_folders() -> list[Path]:
    """Folders of the installation: the shipped samples, the environment the
    app runs in, a bundle's own folder. Exports do not belong there."""
    import sys

    import designer

    roots = [
        Path(designer.__file__).resolve().parent.parent / "samples",
        Path(sys.prefix).resolve(),
    ]
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        roots.append(Path(bundle).resolve())
    return roots


def is_user_folder(folder: Path, installed: list[Path] | None = None) -> bool:
    """Whether ``folder`` is the user's own: it exists, can be written and
    lies outside the installation (the samples opened from it are not the
    user's, nor is a folder they cannot write)."""
    import os

    if not folder.is_dir() or not os.access(folder, os.W_OK):
        return False
    real = folder.resolve()
    roots = installation_folders() if installed is None else installed
    return not any(real == r or r in real.parents for r in roots)


def export_folder(
    current: Path | None,
    last_folder: str | Path | None,
    fallback: Path,
    installed: list[Path] | None = None,
) -> Path:
    """Where File > Export suggests saving: beside the design, else the last
    folder used, when that is the user's own (not a sample's folder inside
    the installation), else ``fallback``."""
    for folder in (
        current.parent if current is not None else None,
        Path(last_folder) if last_folder else None,
    ):
        if folder is not None and is_user_folder(folder, installed):
            return folder
    return fallback


__all__ = [
    "DESIGN_SUFFIX",
    "export_folder",
    "installation_folders",
    "is_user_folder",
    "open_dialog_folder",
    "save_dialog_path",
    "slug",
    "suggested_file_name",
]
