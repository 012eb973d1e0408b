"""The result of a lookup as terminal text or JSON. Record text is untrusted: control and
bidirectional-override characters are shown as escapes so they cannot drive the terminal."""

from __future__ import annotations

import json
import re

from errdocs.lookup.match import How, Match

_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e"
                     r"\u2066-\u2069\ufeff\ufff9-\ufffb]")
_WHY = {
    How.PATTERN: "its message pattern matches",
    How.TEMPLATE: "its message template matches",
    How.PATTERN_PART: "its message pattern matches part of",
    How.TEMPLATE_PART: "its message template matches part of",
}


def safe(text: str) -> str:
    """``text`` with terminal control characters made visible (``\\x1b``, ``\\u202e``)."""
    return _UNSAFE.sub(lambda m: json.dumps(m.group())[1:-1], text)


def one_line(text: str) -> str:
    """:func:`safe` text on one line: a newline is shown as ``\\n``."""
    return safe(text.replace("\n", "\\n"))


def why(match: Match) -> str:
    """Why a record was found, in words."""
    quoted = json.dumps(match.message, ensure_ascii=False)
    if match.how is How.SIMILAR:
        return f"similar wording (similarity {match.score:.2f}) to {one_line(quoted)}"
    return f"{_WHY[match.how]} {one_line(quoted)}"


def as_text(matches: list[Match]) -> str:
    """Numbered matches: URL path, repository, message and why it matched."""
    blocks = []
    for number, match in enumerate(matches, 1):
        target = match.target
        blocks.append(f"{number}. {target.url}\n"
                      f"   repository: {one_line(target.repo)}\n"
                      f"   message:    {one_line(target.message)}\n"
                      f"   why:        {why(match)}")
    return "\n".join(blocks)


def as_json(matches: list[Match]) -> str:
    """The matches as a JSON list (one object each, best first)."""
    return json.dumps([as_dict(m) for m in matches], indent=2)


def as_dict(match: Match) -> dict[str, object]:
    """One match as plain data."""
    target = match.target
    return {
        "url": target.url,
        "id": target.record_id,
        "repo": target.repo,
        "message": target.message,
        "pattern": target.pattern,
        "match": match.how.value,
        "score": round(match.score, 4),
        "matched": match.message,
    }
