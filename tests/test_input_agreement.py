"""Property: ``check`` and ``build`` accept exactly the same records with the same messages.

The hostile fixture is corrupted at random, byte by byte (flipped, inserted and deleted bytes,
bytes 0x80-0xFF, CR, LF, NUL, a cut end), optionally gzipped, and read both ways:
:func:`errdocs.pipeline.check` (``check``, streaming) and :func:`tests.helpers.read_all` (the
offline bundle's list), and :func:`errdocs.catalog.scan.scan` then
:func:`errdocs.catalog.scan.read_records` (every other command), the scan cold, with the
catalogue of the intact fixture, and with its own (the file then taken from it whole). They
must give the same problems, line for line, and the same records, field for field (ids and
where each was read). The size limit and the reader's chunk size are drawn too, so records over
the limit and line ends split between chunks are part of every run.
"""

from __future__ import annotations

import gzip
import tempfile
from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from errdocs.catalog.scan import read_records, scan
from errdocs.pipeline import check
from errdocs.records import read as load

from .conftest import ROOT
from .helpers import read_all

HOSTILE = (ROOT / "tests" / "fixtures" / "hostile.jsonl").read_bytes()
SPECIAL = [b"\r", b"\n", b"\r\n", b"\x00", b"\xef\xbb\xbf", b"\xe9", b"\xc3", b"\xed\xa0\x80",
           b"\xff", b"{", b"}", b'"', b"\\", b"[", b","]
"""Bytes that end lines, break UTF-8 or JSON, or start another form of file."""

POSITION = st.floats(min_value=0, max_value=1)
INSERT = st.tuples(st.just("insert"), POSITION, st.one_of(
    st.sampled_from(SPECIAL), st.binary(min_size=1, max_size=4),
    st.integers(0x80, 0xFF).map(lambda b: bytes([b]))))
FLIP = st.tuples(st.just("flip"), POSITION, st.integers(1, 255))
DELETE = st.tuples(st.just("delete"), POSITION, st.integers(1, 40))
TRUNCATE = st.tuples(st.just("truncate"), POSITION, st.just(0))
CR_FOR_LF = st.tuples(st.just("cr"), POSITION, st.just(0))
EDITS = st.lists(st.one_of(INSERT, FLIP, DELETE, TRUNCATE, CR_FOR_LF), min_size=1, max_size=6)
LIMITS = st.sampled_from([load.MAX_RECORD_BYTES, 700, 3000, 6000])
"""The record size limit: the real one, and ones some of the fixture's lines are over."""
CHUNKS = st.sampled_from([load.CHUNK_BYTES, 3, 7, 64, 1000])


def corrupt(data: bytes, edits: list[tuple[str, float, object]]) -> bytes:
    for kind, where, arg in edits:
        at = min(int(where * len(data)), max(len(data) - 1, 0))
        if kind == "insert":
            data = data[:at] + arg + data[at:]  # type: ignore[operator]
        elif kind == "flip" and data:
            data = data[:at] + bytes([data[at] ^ arg]) + data[at + 1:]  # type: ignore[operator]
        elif kind == "delete":
            data = data[:at] + data[at + arg:]  # type: ignore[operator]
        elif kind == "truncate":
            data = data[:at]
        elif kind == "cr" and (lf := data.find(b"\n", at)) >= 0:
            data = data[:lf] + b"\r" + data[lf + 1:]
    return data


def both_ways(path: Path, work: Path) -> None:
    """Assert that check and the build's scan (with ``work``'s cache) agree on ``path``."""
    checked = read_all([path])
    streamed = check([path])  # `errdocs check`: the same, keeping no record
    assert (streamed.records, streamed.problems) == (len(checked.records), checked.problems)
    found = scan([path], work)
    assert [str(p) for p in found.problems] == [str(p) for p in checked.problems]
    assert [x.record.id for x in found.lights] == [r.id for r in checked.records]
    assert [x.record.origin for x in found.lights] == [r.origin for r in checked.records]
    # Pass 2 finds every kept record again, and it is the very record check gives.
    assert list(read_records(found.sources, found.lights)) == checked.records


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(edits=EDITS, gz=st.booleans(), limit=LIMITS, chunk=CHUNKS)
@example(edits=[("insert", 0.05, b"\xe9")], gz=False, limit=load.MAX_RECORD_BYTES,
         chunk=load.CHUNK_BYTES)  # finding 6: a Latin-1 byte in the first 8 KB
@example(edits=[("cr", 0.0, 0)] * 60, gz=False, limit=load.MAX_RECORD_BYTES,
         chunk=load.CHUNK_BYTES)  # issue 12: bare CR line ends
@example(edits=[("cr", 0.0, 0)] * 60, gz=True, limit=700, chunk=7)
def test_check_and_build_accept_the_same_records(edits: list[tuple[str, float, object]],
                                                 gz: bool, limit: int, chunk: int) -> None:
    data = corrupt(HOSTILE, edits)
    with tempfile.TemporaryDirectory() as tmp, \
            mock.patch.object(load, "MAX_RECORD_BYTES", limit), \
            mock.patch.object(load, "CHUNK_BYTES", chunk):
        folder = Path(tmp)
        path = folder / ("hostile.jsonl.gz" if gz else "hostile.jsonl")
        path.write_bytes(gzip.compress(data) if gz else data)
        both_ways(path, folder / "cold")
        # Warm: with the cache of the intact fixture the scan skips validating the lines it
        # knows (by their hash); it must still report exactly what check reports.
        warm, intact = folder / "warm", folder / "intact.jsonl"
        intact.write_bytes(HOSTILE)
        scan([intact], warm)
        both_ways(path, warm)
        # And again: a file read without any problem is now taken from the catalogue whole.
        both_ways(path, warm)
