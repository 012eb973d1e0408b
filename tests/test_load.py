"""Every accepted input form yields the same records, each with its real line number; what
cannot be read costs its own line only."""

from __future__ import annotations

import gzip
import io
import json
import re
import tracemalloc
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errdocs.records import read as load_module
from errdocs.records.problems import Problem
from errdocs.records.read import Line, RawItem, decode, read
from errdocs.records.schema import MAX_RECORD_BYTES

REC_A = {"id": "a1", "repo": "o/r", "slug": "s", "errorMessage": "boom"}
REC_B = {"id": "b2", "repo": "o/r", "slug": "t", "errorMessage": "bang"}


def load(paths: list[Path]) -> list[RawItem | Problem]:
    """What the reader gives, each line decoded (as every command does)."""
    return [item if isinstance(item, Problem) else decode(item) for item in read(paths)]


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


def test_not_utf8_costs_its_line_only(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_bytes(json.dumps(REC_A).encode() + b'\n{"id": "caf\xe9"}\n'
                     + json.dumps(REC_B).encode() + b"\n")
    a, problem, b = load([path])
    assert str(problem) == (f'{path}:2: not UTF-8: byte 0xE9 at column 12, after "{{\\"id\\": '
                            '\\"caf"; save the file as UTF-8 (it may be Latin-1 or Windows-1252)')
    assert [a.value, b.value] == [REC_A, REC_B]  # type: ignore[union-attr]


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


def test_lf_crlf_and_a_lone_cr_each_end_a_line(tmp_path: Path) -> None:
    """A file saved with old Mac line ends (CR only) is as readable as any other (issue 12)."""
    path = tmp_path / "data.jsonl"
    a, b = json.dumps(REC_A).encode(), json.dumps(REC_B).encode()
    path.write_bytes(a + b"\r" + b + b"\r\n\r" + a + b"\n" + b + b"\r")
    assert _items(path) == [(1, REC_A), (2, REC_B), (4, REC_A), (5, REC_B)]


def _reference_split(data: bytes, limit: int) -> list[tuple[int, int, bytes | int]]:
    """Line number, offset and bytes (or length, over ``limit``) of each line, the plain way."""
    out: list[tuple[int, int, bytes | int]] = []
    start = 0
    for number, end in enumerate(re.finditer(rb"\r\n|\r|\n", data), start=1):
        piece = data[start:end.start()]
        out.append((number, start, piece if len(piece) <= limit else len(piece)))
        start = end.end()
    if start < len(data):
        piece = data[start:]
        out.append((len(out) + 1, start, piece if len(piece) <= limit else len(piece)))
    return out


@settings(max_examples=300, deadline=None)
@given(data=st.lists(st.sampled_from([b"\r", b"\n", b"\r\n", b"x", b"yz", b"\xe9", b" "]),
                     max_size=40).map(b"".join),
       chunk=st.integers(1, 9), limit=st.integers(0, 12))
def test_lines_are_cut_alike_whatever_the_chunks(data: bytes, chunk: int, limit: int) -> None:
    """Line ends split between two chunks (a CRLF too) and lines over the limit are found as
    if the file were read whole; a long line is counted, not kept."""
    cursor = load_module._Cursor()
    with mock.patch.object(load_module, "CHUNK_BYTES", chunk), \
            mock.patch.object(load_module, "MAX_RECORD_BYTES", limit):
        lines = [(cursor.line, start, piece)
                 for start, piece in load_module._split(io.BufferedReader(io.BytesIO(data)),
                                                        cursor)]
    assert lines == _reference_split(data, limit)


def test_a_record_over_the_limit_is_reported_and_skipped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(load_module, "MAX_RECORD_BYTES", 100)
    monkeypatch.setattr(load_module, "CHUNK_BYTES", 16)
    big = json.dumps({**REC_A, "documentation": "x" * 200})
    path = tmp_path / "data.jsonl"
    path.write_text(f"{json.dumps(REC_A)}\n{big}\n{json.dumps(REC_B)}\n")
    items = list(read([path]))
    assert [str(i) if isinstance(i, Problem) else i.origin.line for i in items] == [
        1, f"{path}:2: record too big: {len(big)} bytes of JSON, over the limit of 100 bytes; "
           "skipped. Shorten its longest field (the excerpt or a prose field)", 3]
    # The record after it is found again where the reader says it is.
    last = items[2]
    assert isinstance(last, Line) and last.offset is not None
    assert path.read_bytes()[last.offset:last.offset + len(last.raw)] == last.raw


def test_a_huge_line_is_never_held_whole(tmp_path: Path) -> None:
    """Finding 11: one 200 MB record took 3.8 GB. A line over the limit is counted as it is
    read and dropped: the reader holds about the limit, whatever the line's length."""
    path = tmp_path / "data.jsonl"
    size = 3 * MAX_RECORD_BYTES + 12345
    with path.open("wb") as out:
        out.write(b'{"id": "huge", "documentation": "')
        for _ in range(size // CHUNK):
            out.write(b"x" * CHUNK)
        out.write(b"x" * (size % CHUNK - len(b'{"id": "huge", "documentation": "') - 2) + b'"}')
        out.write(b"\n" + json.dumps(REC_B).encode() + b"\n")
    assert path.stat().st_size == size + 2 + len(json.dumps(REC_B))
    tracemalloc.start()
    try:
        problem, rec_b = load([path])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(problem).startswith(f"{path}:1: record too big: {size:,} bytes of JSON")
    assert isinstance(rec_b, RawItem) and rec_b.value == REC_B
    assert peak < MAX_RECORD_BYTES + 3 * load_module.CHUNK_BYTES, peak


CHUNK = 1 << 20


def test_a_bad_byte_in_an_array_costs_its_element_only(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_bytes(b"[\n" + json.dumps(REC_A).encode() + b',\n  {"id": "caf\xe9"},\n'
                     + json.dumps(REC_B, indent=1).encode() + b"\n]\n")
    items = load([path])
    assert [str(i) if isinstance(i, Problem) else (i.origin.line, i.value) for i in items] == [
        (2, REC_A),
        f'{path}:3: not UTF-8: byte 0xE9 at column 14, after "{{\\"id\\": \\"caf"; save the '
        "file as UTF-8 (it may be Latin-1 or Windows-1252)",
        (4, REC_B),
    ]


def test_values_over_the_limit_in_arrays_and_single_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(load_module, "MAX_RECORD_BYTES", 100)
    big = {**REC_A, "documentation": "x" * 200}
    array = tmp_path / "data.json"
    array.write_text(f"[\n{json.dumps(REC_A)},\n{json.dumps(big)},\n{json.dumps(REC_B)}]")
    single = tmp_path / "one.json"
    single.write_text("\n" + json.dumps(big, indent=2))
    items = load([array, single])
    assert [str(i).split(" bytes", 1)[0] if isinstance(i, Problem) else i.value
            for i in items] == [
        REC_A, f"{array}:3: record too big: {len(json.dumps(big))}", REC_B,
        f"{single}:2: record too big: {single.stat().st_size}"]  # the whole file


def test_a_gz_file_cut_short_keeps_the_records_before_the_cut(tmp_path: Path) -> None:
    whole = "".join(json.dumps({**REC_A, "id": f"r{n}"}) + "\n" for n in range(2000)).encode()
    path = tmp_path / "data.jsonl.gz"
    path.write_bytes(gzip.compress(whole)[:-2000])
    items = list(read([path]))
    *lines, problem = items
    assert all(isinstance(i, Line) and i.offset is None for i in lines)
    assert len(lines) > 1000
    assert str(problem) == (f"{path}:{len(lines) + 1}: the .gz file ends early here (cut short "
                            "while copying?); the records before this line were read")
    plain = tmp_path / "plain.jsonl.gz"
    plain.write_bytes(whole[:100])
    assert [str(i) for i in read([plain])] == [
        f"{plain}:1: not a gzip file (Not a gzipped file (b'{{\"')); rename it without .gz if "
        "it is plain JSON"]


def test_a_json_lines_file_whose_first_line_is_a_lone_brace_loses_only_that_line(
        tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text("{\n" + json.dumps(REC_A) + "\n")
    first, second = load([path])
    assert str(first) == (f"{path}:1: not valid JSON: Expecting property name enclosed in "
                          "double quotes (column 2: the text ends early, truncated?)")
    assert isinstance(second, RawItem) and second.value == REC_A
