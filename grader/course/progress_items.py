"""The progress checkbox every warm-up question, practice question and rep carries.

Rendered as ElementTree elements by the Markdown extension; ``progress.js`` gives it memory
(localStorage key ``course:progress:<item-id>``). A native checkbox is keyboard operable; its
accessible name says what it marks as done.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree

LABEL_WORDS = 12


def short_label(text: str, words: int = LABEL_WORDS) -> str:
    """The first ``words`` words of ``text`` without Markdown markup, for an accessible name."""
    plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # [text](url) -> text
    plain = re.sub(r"[*_`]|\{#[^}]*\}", "", plain)
    parts = plain.split()
    head = " ".join(parts[:words])
    return head + ("…" if len(parts) > words else "")


def checkbox(parent: etree.Element, item_id: str, label: str) -> etree.Element:
    """Append the progress checkbox for ``item_id`` to ``parent``."""
    box = etree.SubElement(parent, "input")
    box.set("type", "checkbox")
    box.set("class", "course-check")
    box.set("id", f"done-{item_id}")
    box.set("data-item-id", item_id)
    box.set("aria-label", f"Done: {label}")
    box.set("title", "Mark as done (remembered in this browser)")
    return box
