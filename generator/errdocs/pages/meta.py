"""What a generated page says about itself: the ``errdocs`` front-matter key.

Material prints ``page.meta.title`` and ``page.meta.description`` unescaped, so record text
never goes there. Everything the templates in ``overrides/`` need (meta description, Open Graph,
JSON-LD, sitemap dates) goes under ``errdocs:`` as plain text, and the templates escape it where
they print it (``| e`` in HTML, ``| tojson`` in the JSON-LD script).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from datetime import UTC, datetime
from urllib.parse import quote

from errdocs.catalog.model import Group, GroupKind
from errdocs.pages.short import MESSAGE_CHARS, describe_record, shorten
from errdocs.records.record import Record

MAX_KEYWORDS = 10
"""Tags kept as keywords."""
_GITHUB_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
_KIND_WORDS = {GroupKind.TAG: "tagged", GroupKind.CATEGORY: "in the category",
               GroupKind.REPO: "raised in", GroupKind.FAMILY: "with the message"}


def record_meta(record: Record, tags: list[str], title: str | None = None) -> dict[str, object]:
    """The ``errdocs`` front matter of a record page; ``title`` when the page's title is not
    its message alone (see :func:`errdocs.catalog.model.record_titles`)."""
    meta: dict[str, object] = {
        "kind": "record",
        "id": record.id,
        "repo": record.repo,
        "message": shorten(record.error_message, MESSAGE_CHARS),
        "description": describe_record(record),
        "digest": record_digest(record),
    }
    optional = {"modified": iso_timestamp(record.analyzed_at),
                "repo_url": github_repo_url(record.repo),
                "keywords": [shorten(t, 60) for t in tags[:MAX_KEYWORDS]] or None,
                "title": title}
    meta.update({k: v for k, v in optional.items() if v})
    return meta


def group_meta(group: Group) -> dict[str, object]:
    """The ``errdocs`` front matter of a tag, category or repository page."""
    count = len(group.entries)
    noun = "error" if count == 1 else "errors"
    label = shorten(group.label, 80)
    text = f"{count} documented {noun} {_KIND_WORDS[group.kind]} “{label}”: what each means, " \
           "where it is raised and how to fix it."
    return {"kind": _kind_name(group.kind), "description": text}


def list_meta(kind: GroupKind, count: int) -> dict[str, object]:
    """The ``errdocs`` front matter of the page listing every tag, category or repository."""
    if kind is GroupKind.FAMILY:
        noun = "error" if count == 1 else "errors"
        return {"kind": kind.value, "description": f"The {count} {noun} of the catalogue "
                "raised in several projects, with their record counts."}
    what = {GroupKind.TAG: "tags", GroupKind.CATEGORY: "categories",
            GroupKind.REPO: "repositories"}[kind]
    return {"kind": kind.value,
            "description": f"All {count} {what} of the error catalogue, with their error counts."}


def record_digest(record: Record) -> str:
    """A hash of the record's content: it changes only when the record does.

    Where the record was read from and the dataset's version are left out: a new dataset
    release that did not change a record does not make its page look changed.
    """
    fields = dataclasses.asdict(record)
    for volatile in ("origin", "dataset_version"):
        fields.pop(volatile, None)
    body = json.dumps(fields, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def iso_timestamp(value: str | None) -> str | None:
    """``analyzedAt`` as an ISO 8601 UTC timestamp, or None when it is not one."""
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def github_repo_url(repo: str) -> str | None:
    """``https://github.com/owner/name`` when both parts are valid GitHub names."""
    parts = repo.split("/")
    if len(parts) != 2 or not all(_GITHUB_NAME.match(p) and p not in (".", "..") for p in parts):
        return None
    return "https://github.com/" + "/".join(quote(p) for p in parts)


def _kind_name(kind: GroupKind) -> str:
    return {GroupKind.TAG: "tag", GroupKind.CATEGORY: "category", GroupKind.REPO: "repo",
            GroupKind.FAMILY: "family"}[kind]
