"""Stage 1, load: read JSON, JSON Lines, JSON arrays, directories and ``.gz`` files.

Yields raw JSON values with their origin, or a :class:`Problem` for text that is not JSON.
JSON Lines files are streamed, so memory does not grow with the file.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from .problems import Problem
from .records import Origin

SUFFIXES = (".json", ".jsonl", ".ndjson")
"""File endings read from a directory (each also with ``.gz``)."""
LINES_SUFFIXES = (".jsonl", ".ndjson")
"""File endings that always mean JSON Lines."""


@dataclass(frozen=True)
class RawItem:
    """One JSON value read from the input, not yet validated."""

    origin: Origin
    """Where it starts."""
    value: object
    """The decoded JSON value: an envelope, a bare record, or anything else."""


def iter_files(paths: Iterable[Path]) -> Iterator[Path]:
    """Expand directories (sorted, recursive) into the data files they hold."""
    for path in paths:
        if path.is_dir():
            found = (p for p in path.rglob("*") if p.is_file() and _is_data_file(p))
            yield from sorted(found)
        else:
            yield path


def _is_data_file(path: Path) -> bool:
    name = path.name.removesuffix(".gz")
    return name.endswith(SUFFIXES) and not name.startswith(".")


def load(paths: Iterable[Path]) -> Iterator[RawItem | Problem]:
    """Read every value from every input file, in order."""
    for path in iter_files(paths):
        yield from load_file(path)


def load_file(path: Path) -> Iterator[RawItem | Problem]:
    """Read one file: a single JSON value, a JSON array, or JSON Lines.

    A ``.jsonl``/``.ndjson`` file is never read as one array, so a broken first line that
    happens to start with ``[`` costs that line only, not every record after it.
    """
    name = str(path)
    lines_only = path.name.removesuffix(".gz").endswith(LINES_SUFFIXES)
    try:
        with _open(path) as stream:
            head = _peek(stream)
            if head == "[" and not lines_only:
                yield from _load_array(name, stream.read())
            elif _first_line(stream) == "{":
                yield from _load_single(name, stream.read())
            else:
                yield from _load_lines(name, stream)
    except OSError as exc:
        yield Problem(name, 0, f"cannot read file: {exc.strerror or exc}")
    except (UnicodeDecodeError, EOFError) as exc:
        yield Problem(name, 0, f"not UTF-8 text (or a broken .gz): {exc}")


def is_plain_json_lines(path: Path) -> bool:
    """True for an uncompressed JSON Lines file, whose lines can be re-read by byte offset."""
    if path.suffix == ".gz":
        return False
    try:
        with _open(path) as stream:
            return _peek(stream) != "[" and _first_line(stream) != "{"
    except (OSError, UnicodeDecodeError):
        return False  # load_file reports it


def _open(path: Path) -> IO[str]:
    # The caller closes the wrapper, which closes the raw stream.
    raw: IO[bytes] = gzip.open(path) if path.suffix == ".gz" else path.open("rb")  # noqa: SIM115
    # utf-8-sig drops a byte-order mark; newline="" keeps CRLF so line counting stays exact.
    return io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")


def _peek(stream: IO[str]) -> str:
    """The first non-blank character, leaving the stream at the start."""
    while chunk := stream.read(4096):
        stripped = chunk.lstrip()
        if stripped:
            stream.seek(0)
            return stripped[0]
    stream.seek(0)
    return ""


def _first_line(stream: IO[str]) -> str:
    """The first non-blank line, stripped, leaving the stream at the start.

    A lone ``{`` means one pretty-printed value (like the seed record); anything else is
    read as JSON Lines, so one broken line never hides the records after it.
    """
    for line in stream:
        if line.strip():
            stream.seek(0)
            return line.strip()
    stream.seek(0)
    return ""


def _load_lines(name: str, stream: IO[str]) -> Iterator[RawItem | Problem]:
    for number, line in enumerate(stream, start=1):
        # A byte-order mark can start any line of files joined with `cat`; it is not data.
        text = line.strip().removeprefix("\ufeff")
        if not text:
            continue  # blank lines separate nothing in JSON Lines; skip them silently
        try:
            yield RawItem(Origin(name, number), json.loads(text))
        except (ValueError, RecursionError) as exc:
            yield Problem(name, number, f"not valid JSON: {_json_error(exc)}")


def _load_single(name: str, text: str) -> Iterator[RawItem | Problem]:
    try:
        yield RawItem(Origin(name, 1), json.loads(text))
    except (ValueError, RecursionError) as exc:
        yield Problem(name, _error_line(exc, 1), f"not valid JSON: {_json_error(exc)}")


def _load_array(name: str, text: str) -> Iterator[RawItem | Problem]:
    """Decode an array element by element so each record keeps its own line number."""
    decoder = json.JSONDecoder()
    pos = text.index("[") + 1
    while True:
        pos = _skip_space(text, pos)
        if pos < len(text) and text[pos] == "]":
            return
        line = text.count("\n", 0, pos) + 1
        try:
            value, pos = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError) as exc:
            yield Problem(name, _error_line(exc, line), f"not valid JSON: {_json_error(exc)}")
            return
        yield RawItem(Origin(name, line), value)
        pos = _skip_space(text, pos)
        if pos < len(text) and text[pos] == ",":
            pos += 1
        elif pos >= len(text) or text[pos] != "]":
            line = text.count("\n", 0, pos) + 1
            yield Problem(name, line, "not valid JSON: expected ',' or ']' in the array")
            return


def json_error(exc: ValueError | RecursionError) -> str:
    """What is wrong with a JSON text (for :mod:`errdocs.scan`, which reads lines itself)."""
    return _json_error(exc)


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _json_error(exc: ValueError | RecursionError) -> str:
    """What is wrong, without echoing the input (it may be huge or hostile)."""
    if isinstance(exc, json.JSONDecodeError):
        if exc.pos >= len(exc.doc.rstrip()):
            return f"{exc.msg} (column {exc.colno}: the text ends early, truncated?)"
        return f"{exc.msg} (column {exc.colno})"
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    # An integer with more digits than Python converts; the rest of the text is advice on
    # raising the interpreter's limit, which is not the user's fix.
    return str(exc).split(":", 1)[0]


def _error_line(exc: ValueError | RecursionError, default: int) -> int:
    return exc.lineno if isinstance(exc, json.JSONDecodeError) else default
