"""Validation reports every problem as PATH:LINE: record 'ID': field 'NAME': text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from errdocs.records import validate
from errdocs.records.problems import Severity
from errdocs.records.read import RawItem
from errdocs.records.record import Origin
from errdocs.records.validate import Validator

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


def test_an_excerpt_ending_with_a_newline_is_counted_either_way_without_a_warning() -> None:
    """Real excerpts end with a newline, and producers count their last line both ways: the
    last real line (``b`` is line 11), or one more (the empty rest after the newline)."""
    for end in (11, 12):
        for newline in ("\n", "\r\n"):
            [record], problems = _check(GOOD | {"sourceCode": f"a{newline}b{newline}",
                                                "sourceCodeStart": 10, "sourceCodeEnd": end,
                                                "lineNumber": 11})
            assert problems == []
            assert (record.source_code_end, record.line_number) == (11, 11)
    # Any other count is still reported.
    for code, end in (("a\nb", 12), ("a\nb\n\n", 14), ("a\nb\n", 13)):
        _, problems = _check(GOOD | {"sourceCode": code, "sourceCodeStart": 10,
                                     "sourceCodeEnd": end})
        assert len(problems) == 1 and "sourceCodeEnd" in problems[0]
    _, problems = _check(GOOD | {"sourceCode": "a\nb\n\n", "sourceCodeStart": 10,
                                 "sourceCodeEnd": 12})
    assert problems == []


def test_lone_surrogate_is_an_error() -> None:
    records, problems = _check(GOOD | {"documentation": "bad \ud800 text"})
    assert records == []
    assert problems[0].startswith("d.jsonl:1: record 'a1': field 'documentation': text "
                                  "contains a lone UTF-16 surrogate")


def test_booleans_are_not_integers() -> None:
    validator = Validator()
    assert validator.validate(RawItem(Origin("d", 1), GOOD | {"httpStatus": True})) is None
    assert validator.problems[0].severity is Severity.ERROR


def test_numbers_that_cannot_be_lines_are_left_out_with_a_warning() -> None:
    [record], problems = _check(GOOD | {"sourceCode": "a\nb", "sourceCodeStart": -3,
                                        "sourceCodeEnd": 0, "lineNumber": 10**12})
    assert (record.source_code_start, record.source_code_end, record.line_number) == (
        None, None, None)
    assert problems == [
        "d.jsonl:1: record 'a1': field 'lineNumber': warning: 1000000000000 is not a line number "
        "(1 to 10000000); left out",
        "d.jsonl:1: record 'a1': field 'sourceCodeStart': warning: -3 is not a line number "
        "(1 to 10000000); left out",
        "d.jsonl:1: record 'a1': field 'sourceCodeEnd': warning: 0 is not a line number "
        "(1 to 10000000); left out",
    ]


def test_a_missing_excerpt_end_or_start_is_derived_quietly() -> None:
    records, problems = _check(
        GOOD | {"sourceCode": "a\nb\nc", "sourceCodeStart": 7, "lineNumber": 8},
        GOOD | {"id": "b2", "sourceCode": "a\nb\nc", "sourceCodeEnd": 9, "lineNumber": 8})
    assert problems == []
    assert [(r.source_code_start, r.source_code_end) for r in records] == [(7, 9), (7, 9)]


def test_control_characters_are_dropped_and_newlines_normalised() -> None:
    [record], problems = _check(GOOD | {"errorMessage": "a\x00b\x1b[31mc\x02\x03\x85d\x0ce\r\nf",
                                        "solutions": ["x\ty\x7f\x9b"]})
    assert problems == []
    assert record.error_message == "ab[31mc d e\nf"
    assert record.solutions == ("x\ty",)


def test_duplicates_are_found_on_the_normalised_id() -> None:
    records, problems = _check(GOOD | {"id": "a\r\nb"}, GOOD | {"id": "a\nb", "slug": "t"})
    assert [r.id for r in records] == ["a\nb"]
    assert problems == [
        "d.jsonl:2: record 'a\\nb': field 'id': duplicate id with different content; keeping the "
        "record from d.jsonl:1"
    ]


def test_a_source_link_that_is_not_https_github_is_kept_as_text_with_a_warning() -> None:
    records, problems = _check(
        GOOD | {"githubUrl": "https://github.com/o/r/blob/a/f.py#L1"},
        GOOD | {"id": "b2", "githubUrl": "javascript:alert(1)"},
        GOOD | {"id": "c3", "githubUrl": "https://github.com@evil.example/"})
    assert [r.github_url for r in records] == [
        "https://github.com/o/r/blob/a/f.py#L1", "javascript:alert(1)",
        "https://github.com@evil.example/"]
    assert problems == [
        "d.jsonl:2: record 'b2': field 'githubUrl': warning: not an https://github.com/ link, "
        'shown as text: "javascript:alert(1)"',
        "d.jsonl:3: record 'c3': field 'githubUrl': warning: not an https://github.com/ link, "
        'shown as text: "https://github.com@evil.example/"',
    ]


def test_shown_values_cannot_drive_the_terminal() -> None:
    _, problems = _check(GOOD | {"lineNumber": "\x1b[2J\u202eevil\x9b"})
    assert problems == [
        "d.jsonl:1: record 'a1': field 'lineNumber': expected an integer, got "
        '"\\u001b[2J\\u202eevil\\u009b"; for example 658'
    ]


def test_a_broken_dataset_version_drops_the_record() -> None:
    records, problems = _check({"record": GOOD, "datasetVersion": "v\ud800"})
    assert records == []
    assert problems == ['d.jsonl:1: field \'datasetVersion\': text contains a lone UTF-16 '
                        'surrogate (broken Unicode): "v\\ud800"']


_DIGESTS = (st.text("0123456789abcdef", min_size=64, max_size=64)
            | st.text("0123456789abcdefABCDEF \t", min_size=64, max_size=64) | st.text(max_size=70))


@given(st.dictionaries(st.text(max_size=20), st.tuples(
    _DIGESTS, st.sampled_from(["a.jsonl", "b/c.jsonl", "é.jsonl"]), st.integers(1, 2**40)),
    max_size=40))
def test_the_first_record_of_each_id_is_kept_as_given(
        first: dict[str, tuple[str, str, int]]) -> None:
    """What duplicates are told by (the first of an id's digest and place) reads back as it
    was given, however the digest is written (kept as bytes when it is 64 lowercase hex
    digits, as errdocs makes it)."""
    seen = validate._Seen()
    for record_id, (digest, path, line) in first.items():
        seen.add(record_id, digest, Origin(path, line))
    for record_id, (digest, path, line) in first.items():
        assert record_id in seen
        assert seen.get(record_id) == (digest, Origin(path, line))
    assert seen.get("not an id of them") is None or "not an id of them" in first
