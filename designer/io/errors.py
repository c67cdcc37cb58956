"""The one exception a design file can raise when it cannot be read."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a design file: where it is and what was expected there."""

    place: str
    message: str

    def __str__(self) -> str:
        return f"{self.place}: {self.message}" if self.place else self.message


class DesignFileError(Exception):
    """A design file cannot be read; the message names the file, the place and
    what was expected there (never a traceback)."""

    def __init__(self, source: str, problems: list[Problem], more: int = 0) -> None:
        self.source = source
        self.problems = list(problems)
        self.more = more
        super().__init__(self._text())

    @property
    def place(self) -> str:
        """Where the first problem is (JSON path or ``line L, column C``)."""
        return self.problems[0].place if self.problems else ""

    def _text(self) -> str:
        lines = [f"{self.source}: {p}" for p in self.problems]
        if self.more:
            lines.append(f"{self.source}: ... and {self.more} more problem(s)")
        return "\n".join(lines) if lines else f"{self.source}: cannot be read"


class UnsavableDesign(DesignFileError):
    """A save refused before writing: the file would be one the loader refuses.

    Nothing is written (the file on disk, if any, stays as it was) and the
    design in memory is unchanged; the problems are the loader's own words.
    """

    def _text(self) -> str:
        lines = [
            f"{self.source}: not saved, because the file would not open again "
            "(nothing was written; the design is still open):"
        ]
        lines += [f"  {p}" for p in self.problems]
        if self.more:
            lines.append(f"  ... and {self.more} more problem(s)")
        return "\n".join(lines)


class MigrationError(Exception):
    """Raised by a migration step for a structural problem at ``place``."""

    def __init__(self, place: str, message: str) -> None:
        self.problem = Problem(place, message)
        super().__init__(str(self.problem))
