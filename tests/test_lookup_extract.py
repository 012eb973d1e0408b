"""Finding the message in a paste: bare messages, log lines and tracebacks of five languages."""

from __future__ import annotations

import pytest

from errdocs.lookup.extract import MAX_CANDIDATES, MAX_LINE, candidates

PY_TRACEBACK = """Traceback (most recent call last):
  File "/srv/app.py", line 9, in <module>
    main()
  File "/srv/app.py", line 5, in main
    raise ValueError(f"Unknown MLX async mode: {mode}")
ValueError: Unknown MLX async mode: speculative
"""
NODE = """/app/src/x.ts:41
    throw new TypeError(`bad ${x}`);
    ^

TypeError: Variable "user" must be a string or number, got object
    at interpolate (/app/src/x.ts:41:11)

Node.js v20.11.0"""
GO = """panic: gossip: member n1 registered twice [recovered]

goroutine 1 [running]:
main.main()
\t/src/main.go:12 +0x1d
exit status 2"""
CPP = """terminate called after throwing an instance of 'std::runtime_error'
  what():  CUDA error: out of memory at device.cc:88
Aborted (core dumped)"""
RUST_NEW = """thread 'main' panicked at src/stage.rs:212:13:
stage 3 polled after completion
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"""


@pytest.mark.parametrize(("text", "first"), [
    ("Unknown MLX async mode: speculative", "Unknown MLX async mode: speculative"),
    ("  ValueError: Unknown MLX async mode: x \n", "Unknown MLX async mode: x"),
    ("std::io::Error: shm segment a truncated", "shm segment a truncated"),
    ("error[E0423]: expected value, found struct `Foo`", "expected value, found struct `Foo`"),
    ("E       KeyError: 'Missing required setting: X'", "'Missing required setting: X'"),
    ("2024-05-01 12:00:03,120 ERROR boom happened", "boom happened"),
    ("2024/05/01 12:00:03 gridcache: invalid shard count 3", "gridcache: invalid shard count 3"),
    (PY_TRACEBACK, "Unknown MLX async mode: speculative"),
    (NODE, 'Variable "user" must be a string or number, got object'),
    (GO, "gossip: member n1 registered twice"),
    (CPP, "CUDA error: out of memory at device.cc:88"),
    (RUST_NEW, "stage 3 polled after completion"),
    ("thread 'main' panicked at 'stage 3 polled', src/stage.rs:1:2", "stage 3 polled"),
    ("Error: shape mismatch: expected [3, 4], got [4, 3]",
     "shape mismatch: expected [3, 4], got [4, 3]"),
])
def test_the_message_comes_first(text: str, first: str) -> None:
    assert candidates(text)[0] == first


def test_a_prefix_that_is_not_an_error_class_stays_first() -> None:
    # "gridcache:" may be part of the message itself: try it with and without.
    assert candidates("gridcache: invalid shard count 3") == [
        "gridcache: invalid shard count 3", "invalid shard count 3"]


def test_traceback_frames_and_code_lines_are_not_candidates() -> None:
    found = candidates(PY_TRACEBACK)
    assert found == ["Unknown MLX async mode: speculative",
                     "ValueError: Unknown MLX async mode: speculative"]
    assert not any("raise" in c or "File" in c for c in candidates(PY_TRACEBACK))


def test_empty_and_blank_input_have_no_candidates() -> None:
    assert candidates("") == []
    assert candidates(" \n\t \n") == []


def test_candidates_are_bounded() -> None:
    many = "\n".join(f"line {n}: " + "x" * 1200 for n in range(100))
    found = candidates(many)
    assert len(found) == MAX_CANDIDATES
    assert all(len(c) == MAX_LINE for c in found)
    assert found[0].startswith("line 99: ")  # the end of a paste is kept
