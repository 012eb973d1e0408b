"""Every accepted input form yields the same records, each with its real line number."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from errdocs.load import RawItem, load
from errdocs.problems import Problem

REC_A = {"id": "a1", "repo": "o/r", "slug": "s", "errorMessage": "boom"}
REC_B = {"id": "b2", "repo": "o/r", "slug": "t", "errorMessage": "bang"}


def _items(path: Path) -> list[tuple[int, object]]:
    out = []
    for item in load([path]):
        assert isinstance(item, RawItem), item
        out.append((item.origin.line, item.value))
    return out


def test_single_pretty_printed_envelope(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_text(json.dumps({"record": REC_A, "datasetVersion": "v1"}, indent=2))
    assert _items(path) == [(1, {"record": REC_A, "datasetVersion": "v1"})]


def test_json_lines_of_envelopes_and_bare_records(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text(json.dumps({"record": REC_A}) + "\n\n" + json.dumps(REC_B) + "\n")
    assert _items(path) == [(1, {"record": REC_A}), (3, REC_B)]


def test_json_array_keeps_each_elements_line(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_text("[\n" + json.dumps(REC_A) + ",\n\n  " + json.dumps(REC_B) + "\n]\n")
    assert _items(path) == [(2, REC_A), (4, REC_B)]


def test_gzip_and_directories(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    with gzip.open(tmp_path / "sub" / "b.jsonl.gz", "wt") as handle:
        handle.write(json.dumps(REC_B) + "\n")
    (tmp_path / "a.json").write_text(json.dumps(REC_A))
    (tmp_path / "notes.txt").write_text("not data")
    values = [item.value for item in load([tmp_path]) if isinstance(item, RawItem)]
    assert values == [REC_A, REC_B]


def test_bom_and_crlf(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(REC_A).encode() + b"\r\n"
                     + json.dumps(REC_B).encode() + b"\r\n")
    assert _items(path) == [(1, REC_A), (2, REC_B)]


def test_a_broken_line_is_reported_and_the_rest_still_load(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text('{"id": "a1", "repo": \n' + json.dumps(REC_B) + "\n")
    items = list(load([path]))
    assert isinstance(items[0], Problem)
    assert str(items[0]) == (f"{path}:1: not valid JSON: Expecting value (column 21: the text "
                             "ends early, truncated?)")
    assert isinstance(items[1], RawItem) and items[1].value == REC_B


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_bytes(b'{"id": "\xff"}\n')
    [problem] = list(load([path]))
    assert isinstance(problem, Problem)
    assert str(problem).startswith(f"{path}:0: not UTF-8 text")


def test_too_deeply_nested_json_is_reported_not_a_crash(tmp_path: Path) -> None:
    deep = "[" * 5000 + "]" * 5000
    lines = tmp_path / "data.jsonl"
    lines.write_text(deep + "\n" + json.dumps(REC_A) + "\n")
    array = tmp_path / "data.json"
    array.write_text("[\n" + json.dumps(REC_A) + ",\n" + deep + "\n]")
    single = tmp_path / "one.json"
    single.write_text("{\n" + '"x": ' + deep + "\n}")
    items = load([lines, array, single])
    assert [str(i) if isinstance(i, Problem) else i.value for i in items] == [
        f"{lines}:1: not valid JSON: nested too deeply",  # .jsonl: never read as one array
        REC_A,
        REC_A,
        f"{array}:3: not valid JSON: nested too deeply",
        f"{single}:1: not valid JSON: nested too deeply",
    ]


def test_a_number_with_too_many_digits(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text('{"httpStatus": ' + "9" * 5000 + "}\n" + json.dumps(REC_A) + "\n")
    items = list(load([path]))
    assert str(items[0]) == (f"{path}:1: not valid JSON: Exceeds the limit (4300 digits) for "
                             "integer string conversion")
    assert isinstance(items[1], RawItem) and items[1].value == REC_A


def test_a_byte_order_mark_inside_joined_files(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    bom = b"\xef\xbb\xbf"
    path.write_bytes(bom + json.dumps(REC_A).encode() + b"\n" + bom + json.dumps(REC_B).encode())
    assert _items(path) == [(1, REC_A), (2, REC_B)]


def test_a_json_lines_file_whose_first_line_is_an_array_loses_only_that_line(
        tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text("[1, 2]\n" + json.dumps(REC_A) + "\n")
    assert _items(path) == [(1, [1, 2]), (2, REC_A)]
