"""Small builders shared by tests."""

from __future__ import annotations

from errdocs.records.record import Origin, Record


def record(id: str, repo: str = "o/r", slug: str = "s", **fields: object) -> Record:
    """A valid record with only the fields a test cares about."""
    fields.setdefault("error_message", f"message of {id}")
    return Record(id=id, repo=repo, slug=slug, origin=Origin("t.jsonl", 1), **fields)  # type: ignore[arg-type]
