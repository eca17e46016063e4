"""A picture of memory per device: one horizontal stacked bar per configuration, as an SVG string.

A pure function of its inputs (no I/O, no randomness), so a page, a Pyodide cell and a test all get
the same bytes. Accessible: ``role="img"`` with a ``<title>`` and a ``<desc>`` that lists every
bar's parts and total; every segment carries its own ``<title>``. The unit (GB = 10**9 bytes or
GiB = 2**30 bytes) is written on the axis. Colours are the Okabe-Ito palette (safe for colour
vision deficiencies), one colour per part name across all bars.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterable, Mapping, Sequence
from html import escape

from .breakdown import Breakdown
from .units import BYTE_UNITS, canonical_unit, format_bytes, parse_bytes

PALETTE = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#F0E442",
    "#999999",
    "#000000",
)
_DARK_TEXT = {"#E69F00", "#56B4E9", "#F0E442", "#999999"}

Bars = Mapping[str, Breakdown] | Sequence[Breakdown] | Sequence[tuple[str, Breakdown]]


def _labelled(bars: Bars) -> list[tuple[str, Breakdown]]:
    if isinstance(bars, Mapping):
        items = list(bars.items())
    else:
        items = []
        for item in bars:
            if isinstance(item, Breakdown):
                items.append((item.method, item))
            elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], Breakdown):
                items.append((str(item[0]), item[1]))
            else:
                raise ValueError("each bar must be a Breakdown or a (label, Breakdown) pair")
    if not items:
        raise ValueError("stacked_bar_svg needs at least one bar")
    return [(str(label), breakdown) for label, breakdown in items]


def _nice_step(span: float, target: int = 5) -> float:
    raw = span / target
    power = 10 ** math.floor(math.log10(raw))
    for multiple in (1, 2, 2.5, 5, 10):
        if raw <= multiple * power:
            return multiple * power
    return 10 * power  # pragma: no cover - the loop always returns


def _number(value: float) -> str:
    return f"{value:.6g}"


def _colours(names: Iterable[str]) -> dict[str, str]:
    colours: dict[str, str] = {}
    for name in names:
        if name not in colours:
            colours[name] = PALETTE[len(colours) % len(PALETTE)]
    return colours


def stacked_bar_svg(
    bars: Bars,
    *,
    unit: str = "GB",
    title: str = "Memory per device",
    capacity: int | float | str | None = None,
    capacity_label: str | None = None,
    width: int = 720,
    bar_height: int = 28,
) -> str:
    """One stacked bar per configuration (its parts side by side), as a standalone SVG string.

    ``bars``: a mapping label -> :class:`Breakdown`, a list of ``(label, Breakdown)`` pairs, or a
    list of breakdowns (labelled by their ``method``). ``unit``: "GB" (10**9 bytes) or "GiB" (2**30
    bytes), or any other byte unit; it is written on the axis. ``capacity`` (bytes or text such as
    "32 GB") draws a dashed line for the device's memory.
    """
    items = _labelled(bars)
    name = canonical_unit(unit)
    scale = BYTE_UNITS[name]
    cap = parse_bytes(capacity) if capacity is not None else None
    colours = _colours(part for _, b in items for part in b.parts)

    label_width = min(260, 16 + 7 * max(len(label) for label, _ in items))
    left, right, top = label_width, 80, 56
    plot_width = max(120, width - left - right)
    row = bar_height + 14
    axis_y = top + row * len(items)
    legend_rows = len(colours)
    height = axis_y + 44 + 20 * legend_rows + 10

    largest = max([b.total for _, b in items] + ([cap] if cap else []))
    largest = largest / scale if largest else 1.0
    step = _nice_step(largest)
    axis_max = step * math.ceil(largest / step - 1e-9)
    axis_max = axis_max or step

    def x(value_bytes: float) -> float:
        return left + plot_width * (value_bytes / scale) / axis_max

    rule = "10**" + {"B": "0", "KB": "3", "MB": "6", "GB": "9", "TB": "12", "PB": "15"}.get(
        name, ""
    )
    if name.endswith("iB"):
        rule = "2**" + {"KiB": "10", "MiB": "20", "GiB": "30", "TiB": "40", "PiB": "50"}[name]
    axis_label = f"{name} per device (1 {name} = {rule} bytes)" if name != "B" else "bytes"

    desc_lines = []
    for label, b in items:
        parts = "; ".join(f"{part} {format_bytes(v, name)}" for part, v in b.parts.items())
        desc_lines.append(f"{label}: total {format_bytes(b.total, name)} ({parts})")
    if cap is not None:
        desc_lines.append(f"device memory: {format_bytes(cap, name)}")
    desc = ". ".join(desc_lines) + "."
    uid = f"mm-{zlib.crc32((title + name + desc).encode()):08x}"

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-labelledby="{uid}-title {uid}-desc" '
        'class="memory-bars" font-family="system-ui, sans-serif" font-size="12">',
        f'<title id="{uid}-title">{escape(title)} ({escape(name)})</title>',
        f'<desc id="{uid}-desc">{escape(desc)}</desc>',
        f'<text x="{left}" y="20" font-size="14" font-weight="600">{escape(title)}</text>',
    ]
    # grid and ticks
    ticks = int(round(axis_max / step))
    for i in range(ticks + 1):
        value = i * step
        tx = left + plot_width * value / axis_max
        out.append(
            f'<line x1="{tx:.1f}" y1="{top - 6}" x2="{tx:.1f}" y2="{axis_y}" '
            'stroke="#ddd" stroke-width="1"/>'
        )
        out.append(
            f'<text x="{tx:.1f}" y="{axis_y + 16}" text-anchor="middle">{_number(value)}</text>'
        )
    out.append(
        f'<text x="{left + plot_width / 2:.1f}" y="{axis_y + 34}" text-anchor="middle">'
        f"{escape(axis_label)}</text>"
    )
    # bars
    for index, (label, b) in enumerate(items):
        y = top + row * index
        out.append(
            f'<text x="{left - 8}" y="{y + bar_height / 2 + 4:.1f}" text-anchor="end">'
            f"{escape(label)}</text>"
        )
        out.append(f'<g class="bar" data-total-bytes="{_number(b.total)}">')
        start = 0.0
        for part, value in b.parts.items():
            x0, x1 = x(start), x(start + value)
            colour = colours[part]
            out.append(
                f'<rect x="{x0:.2f}" y="{y}" width="{max(x1 - x0, 0):.2f}" height="{bar_height}" '
                f'fill="{colour}" data-part="{escape(part)}" data-bytes="{_number(value)}">'
                f"<title>{escape(label)}: {escape(part)} {format_bytes(value, name)}</title></rect>"
            )
            text = format_bytes(value, name)
            if x1 - x0 > 7 * len(text) + 8:
                fill = "#000" if colour in _DARK_TEXT else "#fff"
                out.append(
                    f'<text x="{(x0 + x1) / 2:.1f}" y="{y + bar_height / 2 + 4:.1f}" '
                    f'text-anchor="middle" fill="{fill}" aria-hidden="true">{escape(text)}</text>'
                )
            start += value
        total_text = format_bytes(b.total, name)
        out.append(
            f'<text x="{x(start) + 4:.1f}" y="{y + bar_height / 2 + 4:.1f}" font-weight="600">'
            f"{escape(total_text)}</text>"
        )
        out.append("</g>")
    if cap is not None:
        cx = x(cap)
        text = capacity_label or f"device memory {format_bytes(cap, name)}"
        out.append(
            f'<line x1="{cx:.1f}" y1="{top - 10}" x2="{cx:.1f}" y2="{axis_y}" stroke="#D55E00" '
            'stroke-width="2" stroke-dasharray="6 4" class="capacity"/>'
        )
        out.append(
            f'<text x="{cx:.1f}" y="{top - 16}" text-anchor="middle" fill="#D55E00">'
            f"{escape(text)}</text>"
        )
    # legend
    ly = axis_y + 50
    for i, (part, colour) in enumerate(colours.items()):
        out.append(
            f'<rect x="{left}" y="{ly + 20 * i - 10}" width="12" height="12" fill="{colour}"/>'
        )
        out.append(f'<text x="{left + 18}" y="{ly + 20 * i}">{escape(part)}</text>')
    out.append("</svg>")
    return "\n".join(out)
