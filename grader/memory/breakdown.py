"""The result of every estimate: named parts in bytes, their total, the method and its source."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from .units import canonical_unit, format_bytes, to_unit


def whole(value: float) -> int | float:
    """Return an ``int`` when ``value`` is a whole number (so JSON shows ``120000000000``)."""
    if isinstance(value, int):
        return value
    if value == int(value):
        return int(value)
    return value


def _sum(values: Iterable[int | float]) -> int | float:
    items = list(values)
    if all(isinstance(v, int) for v in items):
        return sum(items)
    return whole(math.fsum(items))


class Breakdown:
    """Memory (or traffic) in named parts, all in bytes. Immutable.

    - ``parts``: ordered mapping part name -> bytes on one device (e.g. "fp16 parameters").
    - ``total``: the sum of ``parts``, in bytes.
    - ``method``: which model produced the numbers ("zero-paper", "korthikanti", ...).
    - ``source``: the citation (paper, section / equation) the formula comes from.
    - ``inputs``: the arguments the estimate was computed from.
    - ``host_parts``: bytes kept in host (CPU) memory per device process, e.g. an offloaded
      optimizer state; they are not in ``total``, which is device memory.
    - ``notes``: plain-language caveats the reader should see next to the numbers.
    - ``kind``: what is counted ("model states", "activations", "communication per step", ...).

    A plain class rather than a dataclass: ``dataclasses`` pulls in ``inspect``, which would
    double the import time in Pyodide.
    """

    __slots__ = (
        "parts",
        "method",
        "source",
        "inputs",
        "host_parts",
        "notes",
        "kind",
        "total",
        "host_total",
    )

    parts: Mapping[str, int | float]
    method: str
    source: str
    inputs: Mapping[str, object]
    host_parts: Mapping[str, int | float]
    notes: tuple[str, ...]
    kind: str
    total: int | float
    host_total: int | float

    def __init__(
        self,
        parts: Mapping[str, int | float],
        method: str,
        source: str,
        inputs: Mapping[str, object] | None = None,
        host_parts: Mapping[str, int | float] | None = None,
        notes: Iterable[str] = (),
        kind: str = "memory",
    ) -> None:
        host = host_parts or {}
        for name, value in list(parts.items()) + list(host.items()):
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise TypeError(f"part {name!r} must be a number of bytes, got {value!r}")
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"part {name!r} must be a finite, non-negative size ({value})")
        fixed = {k: whole(v) for k, v in parts.items()}
        fixed_host = {k: whole(v) for k, v in host.items()}
        setter = object.__setattr__
        setter(self, "parts", MappingProxyType(fixed))
        setter(self, "host_parts", MappingProxyType(fixed_host))
        setter(self, "method", method)
        setter(self, "source", source)
        setter(self, "inputs", MappingProxyType(dict(inputs or {})))
        setter(self, "notes", tuple(notes))
        setter(self, "kind", kind)
        setter(self, "total", _sum(fixed.values()))
        setter(self, "host_total", _sum(fixed_host.values()))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Breakdown is immutable; use .replace(...)")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("a Breakdown is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Breakdown):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"Breakdown(method={self.method!r}, kind={self.kind!r}, total={self.total!r}, "
            f"parts={dict(self.parts)!r})"
        )

    def replace(self, **changes: object) -> Breakdown:
        """A copy with some fields changed (parts, method, source, inputs, host_parts, notes,
        kind)."""
        fields = {
            "parts": self.parts,
            "method": self.method,
            "source": self.source,
            "inputs": self.inputs,
            "host_parts": self.host_parts,
            "notes": self.notes,
            "kind": self.kind,
        }
        unknown = set(changes) - set(fields)
        if unknown:
            raise TypeError(f"unknown Breakdown field(s): {', '.join(sorted(unknown))}")
        fields.update(changes)
        return Breakdown(**fields)  # type: ignore[arg-type]

    def __getitem__(self, name: str) -> int | float:
        return self.parts[name]

    def in_unit(self, unit: str = "GB") -> dict[str, float]:
        """Every part and the total expressed in ``unit`` (GB = 10**9, GiB = 2**30)."""
        values = {name: to_unit(value, unit) for name, value in self.parts.items()}
        values["total"] = to_unit(self.total, unit)
        return values

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict: every part in bytes, the total, the method, source and inputs."""
        data: dict[str, object] = {
            "kind": self.kind,
            "method": self.method,
            "source": self.source,
            "unit": "bytes",
            "inputs": dict(self.inputs),
            "parts": dict(self.parts),
            "total": self.total,
        }
        if self.host_parts:
            data["host_parts"] = dict(self.host_parts)
            data["host_total"] = self.host_total
        if self.notes:
            data["notes"] = list(self.notes)
        return data

    def format(self, unit: str = "GB", *, digits: int = 3) -> str:
        """A readable table of the parts and the total in one explicit unit ("GB" or "GiB")."""
        name = canonical_unit(unit)
        rows = [
            (part, format_bytes(value, name, digits=digits)) for part, value in self.parts.items()
        ]
        rows.append(("total", format_bytes(self.total, name, digits=digits)))
        if self.host_parts:
            rows.extend(
                (f"{part} (host memory)", format_bytes(value, name, digits=digits))
                for part, value in self.host_parts.items()
            )
        width = max(len(part) for part, _ in rows)
        vwidth = max(len(text) for _, text in rows)
        title = f"{self.kind} per device ({self.method}); {_unit_rule(name)}"
        lines = [title]
        for part, text in rows:
            if part == "total":
                lines.append("-" * (width + 2 + vwidth))
            lines.append(f"{part:<{width}}  {text:>{vwidth}}")
        lines.append(f"source: {self.source}")
        lines.extend(f"note: {note}" for note in self.notes)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()


def _unit_rule(unit: str) -> str:
    if unit.endswith("iB"):
        return (
            f"1 {unit} = 2**{ {'KiB': 10, 'MiB': 20, 'GiB': 30, 'TiB': 40, 'PiB': 50}[unit] } bytes"
        )
    if unit == "B":
        return "bytes"
    return f"1 {unit} = 10**{ {'KB': 3, 'MB': 6, 'GB': 9, 'TB': 12, 'PB': 15}[unit] } bytes"


def combine(
    breakdowns: Iterable[Breakdown], *, method: str = "sum", source: str | None = None
) -> Breakdown:
    """Add several breakdowns into one (parts keep their names; equal names are summed)."""
    items = list(breakdowns)
    parts: dict[str, int | float] = {}
    host: dict[str, int | float] = {}
    notes: list[str] = []
    for item in items:
        for name, value in item.parts.items():
            parts[name] = parts.get(name, 0) + value
        for name, value in item.host_parts.items():
            host[name] = host.get(name, 0) + value
        notes.extend(n for n in item.notes if n not in notes)
    return Breakdown(
        parts=parts,
        method=method if items else "empty",
        source=source or "; ".join(dict.fromkeys(item.source for item in items)),
        inputs={"of": [item.method for item in items]},
        host_parts=host,
        notes=tuple(notes),
    )
