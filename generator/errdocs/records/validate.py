"""Stage 2, validate: turn raw JSON values into typed :class:`Record` objects.

Every problem is collected (none stops the run); a record with an error is dropped, a record
with only warnings is kept, possibly with corrected line numbers.
"""

from __future__ import annotations

import hashlib
import json
import re
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, cast

from errdocs.pages.escape import safe_url
from errdocs.records.problems import Problem, Severity, shown
from errdocs.records.read import Line, RawItem, decode
from errdocs.records.record import Origin, Record, excerpt_lines
from errdocs.records.schema import (
    FIELDS,
    FIELDS_BY_NAME,
    KNOWN_SCHEMA_VERSIONS,
    MAX_EXCERPT_LINES,
    MAX_LINE_NUMBER,
    MAX_LIST_ITEMS,
    MAX_TEXT_CHARS,
    REPO_PATTERN,
    SOURCE_HOST,
    Field,
    Kind,
)

REPO_FORM = re.compile(REPO_PATTERN)

# Control characters show as nothing (or a box) and some are markers inside Python-Markdown:
# the blank-like ones become spaces, the others are dropped. Tab and newline stay. A byte-order
# mark is a left-over of the file the text came from, and the highlighter drops it anyway.
_CONTROLS = {c: " " if chr(c).isspace() else None
             for c in (*range(0x20), *range(0x7F, 0xA0), 0xFEFF) if chr(c) not in "\t\n"}


class _Seen:
    """The first record of each id: its content digest and where it was read. Held for the
    whole scan: as a tuple, a hex string and an :class:`Origin` a record, ~100 MB at 310,000
    records, scattered among what the scan keeps (the arenas it left were not given back);
    here a number a record in the table, the digest's bytes and the place in arrays."""

    __slots__ = ("_digests", "_files", "_lines", "_numbers", "_odd", "_paths", "_where")

    def __init__(self) -> None:
        self._numbers: dict[str, int] = {}
        self._digests = bytearray()
        self._odd: dict[int, str] = {}
        """Digests not of 64 hex digits (none that errdocs makes), by number."""
        self._paths: dict[str, int] = {}
        self._files: list[str] = []
        self._where = array("I")
        self._lines = array("q")

    def add(self, record_id: str, digest: str, origin: Origin) -> None:
        number = len(self._numbers)
        self._numbers[record_id] = number
        packed = _packed(digest)
        if packed is None:
            self._odd[number] = digest
            packed = bytes(_DIGEST_BYTES)
        self._digests += packed
        path = self._paths.setdefault(origin.path, len(self._files))
        if path == len(self._files):
            self._files.append(origin.path)
        self._where.append(path)
        self._lines.append(origin.line)

    def get(self, record_id: str) -> tuple[str, Origin] | None:
        number = self._numbers.get(record_id)
        if number is None:
            return None
        start = number * _DIGEST_BYTES
        digest = (self._odd[number] if number in self._odd
                  else self._digests[start:start + _DIGEST_BYTES].hex())
        return digest, Origin(self._files[self._where[number]], self._lines[number])

    def __contains__(self, record_id: str) -> bool:
        return record_id in self._numbers


_DIGEST_BYTES = 32
"""A record's content digest: SHA-256 (:meth:`Validator._first_of_id`), written as twice as
many hex digits."""


def _packed(digest: str) -> bytes | None:
    """The bytes of ``digest`` when it is 64 lowercase hex digits (those give it back)."""
    if len(digest) != 2 * _DIGEST_BYTES:
        return None
    try:
        packed = bytes.fromhex(digest)
    except ValueError:
        return None
    return packed if packed.hex() == digest else None


@dataclass
class Validator:
    """Validates records one by one, remembering what must be reported only once."""

    problems: list[Problem] = field(default_factory=list)
    """Everything found so far, in input order."""
    _unknown_fields: set[str] = field(default_factory=set)
    _unknown_versions: set[int] = field(default_factory=set)
    _seen: _Seen = field(default_factory=_Seen)
    last_clean: bool = False
    """The last record validated had no problem, and none was held back as reported already:
    its line alone would validate the same anywhere (the scan cache keeps only such lines)."""

    def validate_all(self, items: Iterable[Line | RawItem | Problem]) -> Iterator[Record]:
        """Yield every good record; collect problems (including the reader's) on the way."""
        for item in items:
            record = self.take(item)
            if record is not None:
                yield record

    def take(self, item: Line | RawItem | Problem) -> Record | None:
        """The one step from what the reader gives to a record, for every command: decode a
        line, validate it; a problem is kept. ``None`` when there is no record."""
        self.last_clean = False
        decoded = decode(item) if isinstance(item, Line) else item
        if isinstance(decoded, Problem):
            self.problems.append(decoded)
            return None
        return self.validate(decoded)

    def validate(self, item: RawItem) -> Record | None:
        """Check one raw value; return its record, or ``None`` when it has an error."""
        self.last_clean = False
        unwrapped = _unwrap(item)
        if isinstance(unwrapped, Problem):
            self.problems.append(unwrapped)
            return None
        data, dataset_version = unwrapped
        context = _Context(item.origin, _record_id(data))
        # each value has its field's type once _check_field accepted it; Record checks none
        values: dict[str, Any] = {f.attr: _check_field(f, data.get(f.name), context)
                                  for f in FIELDS}
        self._check_extras(data, context)
        self._check_version(values["schema_version"], context)
        if context.has_errors or not self._first_of_id(str(values["id"]), data, context):
            self.problems.extend(context.problems)
            return None
        _check_lines(values, context)
        _check_source_link(values, context)
        _check_sizes(values, context)
        self.problems.extend(context.problems)
        self.last_clean = not context.problems and not context.held_back
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
        seen = self._seen.get(record_id)
        if seen is None:
            self._seen.add(record_id, digest, origin)
            return True
        first_digest, first = seen
        if first_digest != digest:
            context.error("id", f"duplicate id with different content; keeping the record "
                          f"from {first}")
            self.problems.extend(context.problems)
        return False

    def _check_extras(self, data: dict[str, object], context: _Context) -> None:
        for name in data:
            if name in FIELDS_BY_NAME:
                continue
            if name in self._unknown_fields:
                context.held_back = True
                continue
            self._unknown_fields.add(name)
            context.warn(name, "unknown field, left out of the pages (reported once)")

    def _check_version(self, version: object, context: _Context) -> None:
        if version is None or version in KNOWN_SCHEMA_VERSIONS:
            return
        if version in self._unknown_versions:
            context.held_back = True
        else:
            self._unknown_versions.add(version)  # type: ignore[arg-type]
            known = ", ".join(map(str, sorted(KNOWN_SCHEMA_VERSIONS)))
            context.warn("schemaVersion", f"unknown version {version!r} (known: {known}); "
                         "rendering the fields errdocs knows (reported once)")

    def _first_of_id(self, record_id: str, data: dict[str, object], context: _Context) -> bool:
        """Keep the first record of an id; merge identical repeats, report different ones.

        ``record_id`` is the normalised id, the one pages are keyed on.
        """
        digest = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()
        seen = self._seen.get(record_id)
        if seen is None:
            self._seen.add(record_id, digest, context.origin)
            return True
        first_digest, first = seen
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
    held_back: bool = False
    """A warning was not repeated, having been reported for an earlier record."""

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
    if version is not None and (not isinstance(version, str | int) or isinstance(version, bool)):
        return Problem(*where, f"expected a string, got {_json_type(version)}",
                       field="datasetVersion")
    if not _is_clean(version):
        return Problem(*where, _surrogate_problem(version), field="datasetVersion")
    return record, None if version is None else _normalise(str(version))


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
        context.error(spec.name, problem)
        return None
    if spec.kind is Kind.TEXT:
        return _check_text(spec, _normalise(str(value)), context)
    if spec.kind is Kind.TEXT_LIST:
        return tuple(_normalise(v) for v in cast("list[str]", value))  # a list: checked above
    return value


def _type_problem(spec: Field, value: object) -> str | None:
    if not _has_kind(spec.kind, value):
        return f"expected {spec.kind.value}, got {shown(value)}; for example {spec.example}"
    if spec.kind is not Kind.INT and not _is_clean(value):
        return _surrogate_problem(value)
    return None


def _has_kind(kind: Kind, value: object) -> bool:
    if kind is Kind.TEXT:
        return isinstance(value, str)
    if kind is Kind.INT:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _surrogate_problem(value: object) -> str:
    return f"text contains a lone UTF-16 surrogate (broken Unicode): {shown(value)}"


def _check_text(spec: Field, value: str, context: _Context) -> str | None:
    if spec.required and not value.strip():
        context.error(spec.name, f"required field is empty; for example {spec.example}")
    if spec.name == "repo" and value.strip() and not REPO_FORM.match(value):
        context.error(spec.name, f"expected 'owner/name', got {shown(value)}; "
                      f"for example {spec.example}")
    return value


def _check_lines(values: dict[str, object], context: _Context) -> None:
    """Keep only line numbers a source file can have and that agree with the excerpt.

    A number that cannot be a line is left out; a wrong ``sourceCodeEnd`` is corrected from
    the excerpt's length; a ``lineNumber`` outside the excerpt is kept but not marked.
    """
    for name in ("lineNumber", "sourceCodeStart", "sourceCodeEnd"):
        attr = FIELDS_BY_NAME[name].attr
        number = values[attr]
        if isinstance(number, int) and not 1 <= number <= MAX_LINE_NUMBER:
            values[attr] = None
            context.warn(name, f"{number} is not a line number (1 to {MAX_LINE_NUMBER}); "
                         "left out")
    code, start, end = values["source_code"], values["source_code_start"], values["source_code_end"]
    if not isinstance(code, str):
        return
    count = len(excerpt_lines(code))
    if start is None and isinstance(end, int) and end >= count:
        start = values["source_code_start"] = end - count + 1
    if not isinstance(start, int):
        return  # the excerpt is shown without numbers: nothing says where it starts
    last = values["source_code_end"] = start + count - 1
    # An excerpt ending with a newline is counted both ways in real data: up to its last line,
    # or one more (the empty "line" after the final newline). Neither is worth a warning.
    counted_after_newline = code.endswith("\n") and end == last + 1
    if end is not None and end != last and not counted_after_newline:
        context.warn("sourceCodeEnd", f"{end!r} does not match the excerpt's {count} lines from "
                     f"line {start}; numbering lines {start}-{last}")
    line = values["line_number"]
    if isinstance(line, int) and not start <= line <= last:
        context.warn("lineNumber", f"{line} is outside the excerpt ({start}-{last}); "
                     "the excerpt is shown without a marked line")


def _check_source_link(values: dict[str, object], context: _Context) -> None:
    """Only an https link to GitHub becomes the "view source" link; say when it is not one."""
    url = values["github_url"]
    if isinstance(url, str) and url and safe_url(url, host=SOURCE_HOST) is None:
        context.warn("githubUrl", f"not an https://{SOURCE_HOST}/ link, shown as text: "
                     f"{shown(url)}")


def _check_sizes(values: dict[str, object], context: _Context) -> None:
    """Oversized records still get a page, a bounded one; say what was cut."""
    code = values["source_code"]
    if isinstance(code, str) and (count := len(excerpt_lines(code))) > MAX_EXCERPT_LINES:
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


def _normalise(text: str) -> str:
    """Newlines as ``\\n``; no control characters but tab and newline."""
    return text.replace("\r\n", "\n").replace("\r", "\n").translate(_CONTROLS)


def _json_type(value: object) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)
