"""The record schema: which JSON fields exist, their types, and how they map onto ``Record``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from typing import Any

KNOWN_SCHEMA_VERSIONS = frozenset({1, 2})
"""Schema versions whose fields errdocs knows; others render what is known, with a warning."""


class Kind(Enum):
    """The JSON type a field must have."""

    TEXT = "a string"
    INT = "an integer"
    TEXT_LIST = "a list of strings"


@dataclass(frozen=True)
class Field:
    """One field of a record."""

    name: str
    """Name in the JSON data (camelCase)."""
    attr: str
    """Attribute of :class:`errdocs.records.record.Record` (snake_case)."""
    kind: Kind
    """Expected JSON type."""
    required: bool = False
    """Required fields must be present, non-null and (for text) non-empty."""
    example: str = ""
    """A valid value, shown in error messages."""


FIELDS: tuple[Field, ...] = (
    Field("id", "id", Kind.TEXT, True, '"2f61984c034089bc"'),
    Field("repo", "repo", Kind.TEXT, True, '"sgl-project/sglang"'),
    Field("slug", "slug", Kind.TEXT, True, '"unknown-mlx-async-mode"'),
    Field("errorMessage", "error_message", Kind.TEXT, True, '"Unknown mode: {mode}"'),
    Field("messagePattern", "message_pattern", Kind.TEXT, example='"Unknown mode: (.+?)"'),
    Field("errorType", "error_type", Kind.TEXT, example='"validation"'),
    Field("errorClass", "error_class", Kind.TEXT, example='"ValueError"'),
    Field("errorCode", "error_code", Kind.TEXT, example='"E0423"'),
    Field("httpStatus", "http_status", Kind.INT, example="404"),
    Field("severity", "severity", Kind.TEXT, example='"error"'),
    Field("filePath", "file_path", Kind.TEXT, example='"src/app/main.py"'),
    Field("lineNumber", "line_number", Kind.INT, example="658"),
    Field("sourceCode", "source_code", Kind.TEXT, example='"def f():\\n    raise ..."'),
    Field("sourceCodeStart", "source_code_start", Kind.INT, example="640"),
    Field("sourceCodeEnd", "source_code_end", Kind.INT, example="671"),
    Field("githubUrl", "github_url", Kind.TEXT,
          example='"https://github.com/o/r/blob/<sha>/f.py#L1-L9"'),
    Field("documentation", "documentation", Kind.TEXT, example='"What the error means."'),
    Field("triggerScenarios", "trigger_scenarios", Kind.TEXT, example='"When ..."'),
    Field("commonSituations", "common_situations", Kind.TEXT, example='"Often ..."'),
    Field("solutions", "solutions", Kind.TEXT_LIST, example='["Do this", "Or that"]'),
    Field("exampleFix", "example_fix", Kind.TEXT, example='"x = fixed()"'),
    Field("handlingStrategy", "handling_strategy", Kind.TEXT, example='"type-guard"'),
    Field("validationCode", "validation_code", Kind.TEXT, example='"assert ok"'),
    Field("typeGuard", "type_guard", Kind.TEXT, example='"def is_ok(x): ..."'),
    Field("tryCatchPattern", "try_catch_pattern", Kind.TEXT, example='"try: ..."'),
    Field("preventionTips", "prevention_tips", Kind.TEXT_LIST, example='["Check inputs"]'),
    Field("tags", "tags", Kind.TEXT_LIST, example='["config", "io"]'),
    Field("backgroundTag", "background_tag", Kind.TEXT, example='"invalid-input"'),
    Field("analyzedSha", "analyzed_sha", Kind.TEXT, example='"0132848349585cfe6aae51c4941c..."'),
    Field("analyzedAt", "analyzed_at", Kind.TEXT, example='"2026-08-28T05:10:05.995Z"'),
    Field("schemaVersion", "schema_version", Kind.INT, example="2"),
)

FIELDS_BY_NAME = {f.name: f for f in FIELDS}

_DROPPED = r"\x00-\x1f\x7f-\x9f\ufeff"
"""Control characters (and the byte-order mark): validation turns the blank-like ones into
spaces and drops the others."""
NON_BLANK_PATTERN = rf"[^\s{_DROPPED}]"
"""A character that is neither blank nor a control character: a required text needs one."""
_PART = rf"(?:(?![\s/])[{_DROPPED}])*[^/\s{_DROPPED}][^/\s]*"
REPO_PATTERN = rf"^{_PART}/{_PART}(?![\s\S])"
"""``owner/name``: exactly one slash, no blanks, each side keeping a character once control
characters are dropped (odd characters are made safe later). It ends with "no character
follows", not ``$``, which in Python also matches before a final newline: so it means the same
to ``re`` (check) and to JSON Schema validators (the exported schema), and no part of it can
backtrack (a character is either dropped or kept)."""
SURROGATE_PATTERN = r"[\ud800-\udfff]"
"""A lone UTF-16 surrogate, which no UTF-8 page can carry (JSON escapes can hold one)."""
ENVELOPE_VERSION = "datasetVersion"
"""The envelope's field naming the dataset release a record shipped in."""

SOURCE_HOST = "github.com"
"""The only host a "view source" link may point to (over https); other URLs are shown as text."""

MAX_LINE_NUMBER = 10_000_000
"""Line numbers run from 1 to this; anything else is not a line of a real source file."""
MAX_EXCERPT_LINES = 200
"""Longer excerpts are cut to this many lines around the raising line."""
MAX_LIST_ITEMS = 100
"""Longer solution / prevention-tip lists are cut to this many items."""
MAX_TEXT_CHARS = 20_000
"""Longer prose or code fields are cut to this many characters."""
MAX_RECORD_BYTES = 10 * 1024 * 1024
"""A record's JSON text may be this long (10 MiB); a longer one is reported and skipped, read
in bounded pieces and never held whole, so one huge line cannot exhaust the memory."""

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def json_schema(schema_id: str | None = None) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of what ``errdocs check`` accepts as one record: a bare
    record or the dataset's ``{"record": ..., "datasetVersion": ...}`` envelope. Made from
    :data:`FIELDS` and the patterns above, the definition validation itself uses, so the two
    cannot drift apart; a test checks that they accept and reject the same records, field by
    field. ``schema_id`` is the schema's address (``$id``), when the site has one."""
    record = {
        "type": "object",
        "required": [f.name for f in FIELDS if f.required],
        "properties": {f.name: _property(f) for f in FIELDS},
        "$comment": "Other fields are allowed: errdocs reports each unknown field once, as a "
                    "warning, and leaves it out of the pages.",
    }
    envelope = {
        "type": "object",
        "required": ["record"],
        "properties": {"record": {"$ref": "#/$defs/record"},
                       ENVELOPE_VERSION: {"type": ["string", "integer", "null"],
                                          "not": _SURROGATE}},
    }
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        **({"$id": schema_id} if schema_id else {}),
        "title": "errdocs error record",
        "description": "One error record: a bare record, or the dataset's envelope "
                       "{\"record\": {...}, \"datasetVersion\": ...}. Text may hold anything "
                       "but a lone UTF-16 surrogate; control characters are dropped (tab and "
                       "newline kept) before a required text is found blank.",
        "$comment": "What one record's JSON cannot say: no two records may share an id with "
                    f"different content; a record's JSON text is at most {MAX_RECORD_BYTES} "
                    "bytes; JSON Schema counts 1.0 as an integer, errdocs does not. Warnings "
                    "(unknown fields and schemaVersion, impossible line numbers, a source link "
                    "off github.com, oversized texts) keep the record and are not errors here.",
        "$defs": {"record": record, "envelope": envelope},
        "if": {"required": ["record"]},
        "then": {"$ref": "#/$defs/envelope"},
        "else": {"$ref": "#/$defs/record"},
    }


_SURROGATE = {"type": "string", "pattern": SURROGATE_PATTERN}
"""A text holding a lone surrogate (under ``not``: a test of texts only, null passes)."""


def _property(spec: Field) -> dict[str, object]:
    """One field: its JSON type (``null`` counts as absent unless required), no lone
    surrogates in text, a visible character in required text, ``owner/name`` for ``repo``."""
    kinds = {Kind.TEXT: "string", Kind.INT: "integer", Kind.TEXT_LIST: "array"}
    value: dict[str, object] = {"type": kinds[spec.kind] if spec.required
                                else [kinds[spec.kind], "null"]}
    no_surrogate = {"not": _SURROGATE}
    if spec.kind is Kind.TEXT:
        value.update(no_surrogate)
        patterns = [NON_BLANK_PATTERN] * spec.required + [REPO_PATTERN] * (spec.name == "repo")
        if len(patterns) == 1:
            value["pattern"] = patterns[0]
        elif patterns:
            value["allOf"] = [{"pattern": p} for p in patterns]
    elif spec.kind is Kind.TEXT_LIST:
        value["items"] = {"type": "string", **no_surrogate}
    value["examples"] = [json.loads(spec.example)]
    return value
