"""A readable, per-question report of a graded submission (the command line's default output)."""

from __future__ import annotations

import textwrap
from typing import Any


def _indent(text: str, width: int = 96) -> str:
    """Indent feedback by four spaces, re-wrapping each paragraph and list item."""
    blocks: list[str] = []
    for paragraph in text.strip().split("\n\n"):
        items: list[str] = []
        for line in paragraph.splitlines():
            if items and not line.lstrip().startswith(("- ", "* ")) and not line.startswith("    "):
                items[-1] += " " + line.strip()
            else:
                items.append(line.rstrip())
        for item in items:
            lead = len(item) - len(item.lstrip())
            hang = " " * (lead + (2 if item.lstrip().startswith(("- ", "* ")) else 0))
            blocks += textwrap.wrap(
                item.strip(),
                width,
                initial_indent="    " + " " * lead,
                subsequent_indent="    " + hang,
            ) or [""]
        blocks.append("")
    return "\n".join(blocks).rstrip()


def render_report(results: dict[str, Any], *, explanations: bool = False) -> str:
    """Plain text: a header with the total, then one block per question."""
    extra = results.get("extra_data", {})
    out = [
        f"Lesson {extra.get('lesson', '?')}, learner {extra.get('learner', '?')}: "
        f"{results['score']:g} of {results['max_score']:g} points",
        "",
    ]
    for test in results["tests"]:
        mark = "✓" if test["status"] == "passed" else "✗"
        kind = (test.get("tags") or [""])[0].replace("_", " ")
        out.append(f"{mark} {test['name']} ({kind}): {test['score']:g}/{test['max_score']:g}")
        out.append(_indent(test["output"]))
        if explanations and test["status"] != "passed":
            explanation = extra.get("explanations", {}).get(test["name"])
            if explanation:
                out.append("    Model answer:")
                out.append(_indent(explanation))
        out.append("")
    unanswered = extra.get("unanswered") or []
    if unanswered:
        out.append("Not answered: " + ", ".join(unanswered))
    return "\n".join(out).rstrip() + "\n"
