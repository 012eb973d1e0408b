"""Stage 2, validate: turn raw JSON values into typed :class:`Record` objects.

Every problem is collected (none stops the run); a record with an error is dropped, a record
with only warnings is kept, possibly with corrected line numbers.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from .load import RawItem
from .problems import Problem, Severity
from .records import Origin, Record
from .schema import (
    FIELDS,
    FIELDS_BY_NAME,
    KNOWN_SCHEMA_VERSIONS,
    MAX_EXCERPT_LINES,
    MAX_LIST_ITEMS,
    MAX_TEXT_CHARS,
    Field,
    Kind,
)

REPO_FORM = re.compile(r"^[^/\s]+/[^/\s]+$")
"""``owner/name``: exactly one slash, no blanks. Odd characters are made safe later."""


@dataclass
class Validator:
    """Validates records one by one, remembering what must be reported only once."""

    problems: list[Problem] = field(default_factory=list)
    """Everything found so far, in input order."""
    _unknown_fields: set[str] = field(default_factory=set)
    _unknown_versions: set[int] = field(default_factory=set)
    _seen: dict[str, tuple[str, Origin]] = field(default_factory=dict)

    def validate_all(self, items: Iterable[RawItem | Problem]) -> Iterator[Record]:
        """Yield every good record; collect problems (including the loader's) on the way."""
        for item in items:
            if isinstance(item, Problem):
                self.problems.append(item)
                continue
            record = self.validate(item)
            if record is not None:
                yield record

    def validate(self, item: RawItem) -> Record | None:
        """Check one raw value; return its record, or ``None`` when it has an error."""
        unwrapped = _unwrap(item)
        if isinstance(unwrapped, Problem):
            self.problems.append(unwrapped)
            return None
        data, dataset_version = unwrapped
        context = _Context(item.origin, _record_id(data))
        values = {f.attr: _check_field(f, data.get(f.name), context) for f in FIELDS}
        self._check_extras(data, context)
        self._check_version(values["schema_version"], context)
        if context.has_errors or not self._first_of_id(data, context):
            self.problems.extend(context.problems)
            return None
        _check_lines(values, context)
        _check_sizes(values, context)
        self.problems.extend(context.problems)
        return Record(origin=item.origin, dataset_version=dataset_version, **values)

    def digest_of(self, record_id: str) -> str | None:
        """Content digest of the kept record with this id (what duplicates are compared by)."""
        seen = self._seen.get(record_id)
        return seen[0] if seen else None

    def accept_known(self, record_id: str, digest: str, origin: Origin) -> bool:
        """Register a record validated cleanly in an earlier run, without re-validating it.

        Duplicates are handled exactly as :meth:`validate` does: an identical repeat is
        merged (False), a different one is an error (False), a first one is kept (True).
        """
        context = _Context(origin, record_id)
        if record_id not in self._seen:
            self._seen[record_id] = (digest, origin)
            return True
        first_digest, first = self._seen[record_id]
        if first_digest != digest:
            context.error("id", f"duplicate id with different content; keeping the record "
                          f"from {first}")
            self.problems.extend(context.problems)
        return False

    def _check_extras(self, data: dict[str, object], context: _Context) -> None:
        for name in data:
            if name not in FIELDS_BY_NAME and name not in self._unknown_fields:
                self._unknown_fields.add(name)
                context.warn(name, "unknown field, left out of the pages (reported once)")

    def _check_version(self, version: object, context: _Context) -> None:
        if version is None or version in KNOWN_SCHEMA_VERSIONS:
            return
        if version not in self._unknown_versions:
            self._unknown_versions.add(version)  # type: ignore[arg-type]
            known = ", ".join(map(str, sorted(KNOWN_SCHEMA_VERSIONS)))
            context.warn("schemaVersion", f"unknown version {version!r} (known: {known}); "
                         "rendering the fields errdocs knows (reported once)")

    def _first_of_id(self, data: dict[str, object], context: _Context) -> bool:
        """Keep the first record of an id; merge identical repeats, report different ones."""
        digest = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()
        record_id = str(data["id"])
        if record_id not in self._seen:
            self._seen[record_id] = (digest, context.origin)
            return True
        first_digest, first = self._seen[record_id]
        if first_digest != digest:
            context.error("id", f"duplicate id with different content; keeping the record "
                          f"from {first}")
        return False


@dataclass
class _Context:
    """Problems of the record being checked."""

    origin: Origin
    record_id: str | None
    problems: list[Problem] = field(default_factory=list)

    @property
    def has_errors(self) -> bool:
        return any(p.severity is Severity.ERROR for p in self.problems)

    def error(self, name: str, message: str) -> None:
        self._add(name, message, Severity.ERROR)

    def warn(self, name: str, message: str) -> None:
        self._add(name, message, Severity.WARNING)

    def _add(self, name: str, message: str, severity: Severity) -> None:
        o = self.origin
        self.problems.append(Problem(o.path, o.line, message, self.record_id, name, severity))


def _unwrap(item: RawItem) -> tuple[dict[str, object], str | None] | Problem:
    """Accept ``{"record": {...}, "datasetVersion": ...}`` or a bare record object."""
    value = item.value
    where = (item.origin.path, item.origin.line)
    if not isinstance(value, dict):
        return Problem(*where, f"expected a JSON object (a record), got {_json_type(value)}")
    if "record" not in value:
        return value, None
    record, version = value["record"], value.get("datasetVersion")
    if not isinstance(record, dict):
        return Problem(*where, f"expected an object, got {_json_type(record)}", field="record")
    if version is not None and not isinstance(version, str | int):
        return Problem(*where, f"expected a string, got {_json_type(version)}",
                       field="datasetVersion")
    return record, None if version is None else str(version)


def _record_id(data: dict[str, object]) -> str | None:
    value = data.get("id")
    return value if isinstance(value, str) and value and _is_clean(value) else None


def _check_field(spec: Field, value: object, context: _Context) -> object:
    """Return the typed value (``None``/``()`` when absent); report a wrong type."""
    if value is None:
        if spec.required:
            context.error(spec.name, f"required field is missing; for example {spec.example}")
        return () if spec.kind is Kind.TEXT_LIST else None
    problem = _type_problem(spec, value)
    if problem:
        context.error(spec.name, f"{problem}, got {_shown(value)}; for example {spec.example}")
        return None
    if spec.kind is Kind.TEXT:
        return _check_text(spec, str(value), context)
    if spec.kind is Kind.TEXT_LIST:
        return tuple(_normalise_newlines(v) for v in value)  # type: ignore[union-attr]
    return value


def _type_problem(spec: Field, value: object) -> str | None:
    if spec.kind is Kind.TEXT and not isinstance(value, str):
        return "expected a string"
    if spec.kind is Kind.INT and (isinstance(value, bool) or not isinstance(value, int)):
        return "expected an integer"
    if spec.kind is Kind.TEXT_LIST and not (
        isinstance(value, list) and all(isinstance(v, str) for v in value)
    ):
        return "expected a list of strings"
    if spec.kind is not Kind.INT and not _is_clean(value):
        return "text contains a lone UTF-16 surrogate (broken Unicode)"
    return None


def _check_text(spec: Field, value: str, context: _Context) -> str | None:
    if spec.required and not value.strip():
        context.error(spec.name, f"required field is empty; for example {spec.example}")
    if spec.name == "repo" and value.strip() and not REPO_FORM.match(value):
        context.error(spec.name, f"expected 'owner/name', got {_shown(value)}; "
                      f"for example {spec.example}")
    return _normalise_newlines(value)


def _check_lines(values: dict[str, object], context: _Context) -> None:
    """Make excerpt numbering consistent with the excerpt; warn about what was corrected."""
    code, start, end = values["source_code"], values["source_code_start"], values["source_code_end"]
    if not isinstance(code, str):
        return
    count = len(code.split("\n"))
    if isinstance(start, int) and end != start + count - 1:
        values["source_code_end"] = start + count - 1
        context.warn("sourceCodeEnd", f"{end!r} does not match the excerpt's {count} lines from "
                     f"line {start}; numbering lines {start}-{start + count - 1}")
    line, end = values["line_number"], values["source_code_end"]
    if isinstance(line, int) and isinstance(start, int) and not start <= line <= end:  # type: ignore[operator]
        context.warn("lineNumber", f"{line} is outside the excerpt ({start}-{end}); "
                     "the excerpt is shown without a marked line")


def _check_sizes(values: dict[str, object], context: _Context) -> None:
    """Oversized records still get a page, a bounded one; say what was cut."""
    code = values["source_code"]
    if isinstance(code, str) and (count := code.count("\n") + 1) > MAX_EXCERPT_LINES:
        context.warn("sourceCode", f"excerpt has {count} lines; the page shows "
                     f"{MAX_EXCERPT_LINES} around the raising line")
    for spec in FIELDS:
        value = values[spec.attr]
        if spec.kind is Kind.TEXT_LIST and len(value) > MAX_LIST_ITEMS:  # type: ignore[arg-type]
            context.warn(spec.name, f"{len(value)} items; the page shows the first "  # type: ignore[arg-type]
                         f"{MAX_LIST_ITEMS}")
        elif spec.attr != "source_code" and isinstance(value, str) and len(value) > MAX_TEXT_CHARS:
            context.warn(spec.name, f"{len(value)} characters; the page shows the first "
                         f"{MAX_TEXT_CHARS}")


def _is_clean(value: object) -> bool:
    """False when a string holds a lone surrogate, which no UTF-8 page can carry."""
    texts = value if isinstance(value, list) else [value]
    try:
        for text in texts:
            if isinstance(text, str):
                text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _json_type(value: object) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _shown(value: object) -> str:
    """The offending value, short enough for one line of output."""
    text = json.dumps(value, ensure_ascii=not _is_clean(value))
    return text if len(text) <= 60 else text[:57] + "..."
