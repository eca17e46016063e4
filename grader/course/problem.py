"""A fault found by the course checker, printed as ``path:line: message``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, order=True)
class Problem:
    """One fault in one file; ``line`` is 1-based (0 when it concerns the whole file)."""

    path: Path
    line: int
    message: str

    def render(self, root: Path | None = None) -> str:
        path = self.path
        if root is not None:
            try:
                path = self.path.resolve().relative_to(root.resolve())
            except ValueError:
                pass
        return f"{path.as_posix()}:{self.line}: {self.message}"

    def __str__(self) -> str:
        return self.render()


# A check reads the course under `root` and returns the faults it found (never raises on a
# faulty course; a crash is reported as a fault of the checker by `check.run`).
Check = Callable[[Path], list[Problem]]
