"""Validation reports every problem as PATH:LINE: record 'ID': field 'NAME': text."""

from __future__ import annotations

from errdocs.load import RawItem
from errdocs.problems import Severity
from errdocs.records import Origin
from errdocs.validate import Validator

GOOD = {"id": "a1", "repo": "o/r", "slug": "s", "errorMessage": "boom"}


def _check(*values: object) -> tuple[list, list[str]]:
    validator = Validator()
    items = [RawItem(Origin("d.jsonl", n), v) for n, v in enumerate(values, start=1)]
    records = list(validator.validate_all(items))
    return records, [str(p) for p in validator.problems]


def test_envelope_and_bare_record() -> None:
    records, problems = _check({"record": GOOD, "datasetVersion": "v9"}, GOOD | {"id": "b2"})
    assert problems == []
    assert [(r.id, r.dataset_version) for r in records] == [("a1", "v9"), ("b2", None)]
    assert records[0].origin == Origin("d.jsonl", 1)


def test_wrong_types_name_the_field_the_value_and_an_example() -> None:
    records, problems = _check(GOOD | {"tags": "a,b", "lineNumber": "658"})
    assert records == []
    assert problems == [
        "d.jsonl:1: record 'a1': field 'lineNumber': expected an integer, got \"658\"; "
        "for example 658",
        "d.jsonl:1: record 'a1': field 'tags': expected a list of strings, got \"a,b\"; "
        'for example ["config", "io"]',
    ]


def test_missing_required_field_and_bad_repo() -> None:
    records, problems = _check({"id": "a1", "repo": "just-a-name", "slug": "s"})
    assert records == []
    assert problems == [
        "d.jsonl:1: record 'a1': field 'repo': expected 'owner/name', got \"just-a-name\"; "
        'for example "sgl-project/sglang"',
        "d.jsonl:1: record 'a1': field 'errorMessage': required field is missing; "
        'for example "Unknown mode: {mode}"',
    ]


def test_not_an_object() -> None:
    assert _check([1, 2]) == ([], ["d.jsonl:1: expected a JSON object (a record), got a list"])


def test_unknown_fields_are_warned_about_once_per_name() -> None:
    records, problems = _check(GOOD | {"extra": 1}, GOOD | {"id": "b2", "extra": 2})
    assert len(records) == 2
    assert problems == [
        "d.jsonl:1: record 'a1': field 'extra': warning: unknown field, left out of the pages "
        "(reported once)"
    ]


def test_duplicate_ids() -> None:
    records, problems = _check(GOOD, dict(GOOD), GOOD | {"slug": "other"})
    assert [r.origin.line for r in records] == [1]
    assert problems == [
        "d.jsonl:3: record 'a1': field 'id': duplicate id with different content; keeping the "
        "record from d.jsonl:1"
    ]


def test_excerpt_numbering_is_corrected_with_a_warning() -> None:
    code = "a\nb\nc"
    [record], problems = _check(GOOD | {"sourceCode": code, "sourceCodeStart": 10,
                                        "sourceCodeEnd": 20, "lineNumber": 30})
    assert record.source_code_end == 12
    assert problems == [
        "d.jsonl:1: record 'a1': field 'sourceCodeEnd': warning: 20 does not match the "
        "excerpt's 3 lines from line 10; numbering lines 10-12",
        "d.jsonl:1: record 'a1': field 'lineNumber': warning: 30 is outside the excerpt "
        "(10-12); the excerpt is shown without a marked line",
    ]


def test_lone_surrogate_is_an_error() -> None:
    records, problems = _check(GOOD | {"documentation": "bad \ud800 text"})
    assert records == []
    assert problems[0].startswith("d.jsonl:1: record 'a1': field 'documentation': text "
                                  "contains a lone UTF-16 surrogate")


def test_booleans_are_not_integers() -> None:
    validator = Validator()
    assert validator.validate(RawItem(Origin("d", 1), GOOD | {"httpStatus": True})) is None
    assert validator.problems[0].severity is Severity.ERROR
