"""Text cut short for a title, a meta description or a search result."""

from __future__ import annotations

MESSAGE_CHARS = 300
"""The error message kept for page titles, Open Graph and JSON-LD; the page shows all of it."""


def shorten(text: str, limit: int) -> str:
    """``text`` on one line, cut at a sentence or word end to at most ``limit`` characters."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    head = flat[: limit - 1]
    sentence = max(head.rfind(". "), head.rfind("; "))
    if sentence >= limit // 2:
        return head[: sentence + 1]
    word = head.rfind(" ")
    return (head[:word] if word >= limit // 2 else head).rstrip(" ,;:") + "…"
