"""Stage 1, read: the one reader of every input form, behind every command.

``check`` (:func:`errdocs.pipeline.check`) and every other command
(:func:`errdocs.catalog.scan.scan`) read records with
:func:`read_file` and turn each :class:`Line` into a JSON value with :func:`decode`, so they
accept the same records and report the same problems for any input.

Every input is cut into lines of one record each:

- JSON Lines (``.jsonl``/``.ndjson`` always; any other file unless it starts with ``[`` or is
  one pretty-printed value): read in pieces of :data:`CHUNK_BYTES`, so memory never grows with
  the file or with one line. A line ends with LF, CRLF or a lone CR (as in Python's text mode
  and any editor). A line longer than :data:`~errdocs.records.schema.MAX_RECORD_BYTES` is
  reported and skipped as it is read, without ever being held whole.
- A JSON array (a ``.json`` file starting with ``[``) or one pretty-printed value (the first
  non-blank line is a lone ``{``): read whole, then cut into one line per value (line ends
  between JSON tokens are blanks).
- Any of them gzipped (``.gz``).

Bytes that are not UTF-8 cost their own record only: they are reported with the line and
column of the first bad byte.
"""

from __future__ import annotations

import codecs
import enum
import gzip
import io
import json
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from errdocs.errors import InputError
from errdocs.records.problems import Problem, shown
from errdocs.records.record import Origin
from errdocs.records.schema import MAX_RECORD_BYTES

SUFFIXES = (".json", ".jsonl", ".ndjson")
"""File endings read from a directory (each also with ``.gz``)."""
LINES_SUFFIXES = (".jsonl", ".ndjson")
"""File endings that always mean JSON Lines."""
CHUNK_BYTES = 1 << 20
"""How much of a file is read at a time (1 MiB)."""

_BOM = codecs.BOM_UTF8
_BLANKS = b" \t\r\n\x0b\x0c"
"""What ``bytes.strip`` removes: the blanks around a line's record."""
_LINE_END = re.compile(rb"\r\n?|\n")
_CR = ord("\r")
_ESCAPED = re.compile("[\udc80-\udcff]")
"""A byte that is not UTF-8, as ``surrogateescape`` decoding keeps it."""
_DECODER = json.JSONDecoder()

Sink = Callable[[bytes], object]
"""Given the bytes of a file as they are read (``hashlib``'s ``update``)."""


@dataclass(frozen=True, slots=True)
class Line:
    """One record's JSON text, as read, not yet decoded."""

    raw: bytes
    """The text without blanks or byte-order marks around it, all on one line."""
    origin: Origin
    """The file and the line where it starts."""
    offset: int | None
    """Where ``raw`` starts in the file, when the file can be read again there (uncompressed
    JSON Lines); ``None`` for anything else."""


@dataclass(frozen=True)
class RawItem:
    """One JSON value read from the input, not yet validated."""

    origin: Origin
    """Where it starts."""
    value: object
    """The decoded JSON value: an envelope, a bare record, or anything else."""


class _Form(enum.Enum):
    LINES = "JSON Lines"
    ARRAY = "a JSON array"
    SINGLE = "one JSON value"


@dataclass
class _Cursor:
    """The line being read, for a message when reading fails half-way."""

    line: int = 0
    """1-based; 0 before the first line (or in a file read whole)."""


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


def read(paths: Iterable[Path]) -> Iterator[Line | Problem]:
    """Every record's line (or what is wrong instead) of every input file, in order."""
    for path in iter_files(paths):
        yield from read_file(path)


def read_file(path: Path, seen: Sink | None = None) -> Iterator[Line | Problem]:
    """Every record's line of one file; a file that cannot be read is one problem, at the line
    where reading stopped (the lines before it are kept). ``seen`` is given every byte of a
    JSON Lines file read in place, once, in order (the scan hashes them as it reads)."""
    name = str(path)
    cursor = _Cursor()
    try:
        with _open(path) as stream:
            form = _form(stream, lines_only=path.name.removesuffix(".gz").endswith(LINES_SUFFIXES))
            if form is _Form.LINES:
                in_place = path.suffix != ".gz"
                yield from _lines(name, stream, cursor, in_place=in_place,
                                  seen=seen if in_place else None)
            else:
                yield from _whole(name, stream, form)
    except gzip.BadGzipFile as exc:
        yield Problem(name, cursor.line, f"not a gzip file ({exc}); rename it without .gz if "
                      "it is plain JSON")
    except EOFError:
        yield Problem(name, cursor.line, "the .gz file ends early here (cut short while copying?)"
                      "; the records before this line were read")
    except zlib.error as exc:
        yield Problem(name, cursor.line, f"the .gz file is damaged here ({exc}); the records "
                      "before this line were read")
    except OSError as exc:
        # Not a fault of the records: the input cannot be read (whole), and a site built from
        # what was read would replace a good one with fewer records, or none. Nothing goes on.
        where = f"{name}:{cursor.line}" if cursor.line else name
        raise InputUnreadable(f"{where}: cannot read it: {exc.strerror or exc}") from exc


class InputUnreadable(InputError):
    """An input file that cannot be opened or read to its end (missing, permissions, I/O)."""

    consequence = "nothing was built or changed"


def decode(line: Line) -> RawItem | Problem:
    """The JSON value of a line, or what is wrong with its text."""
    try:
        text = line.raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        column = len(line.raw[:exc.start].decode("utf-8")) + 1  # in characters, as in editors
        return _not_utf8(line.origin.path, line.origin.line, column, line.raw[exc.start],
                         line.raw[max(0, exc.start - 20):exc.start])
    try:
        return RawItem(line.origin, json.loads(text))
    except (ValueError, RecursionError) as exc:
        return Problem(line.origin.path, line.origin.line, f"not valid JSON: {json_error(exc)}")


def json_error(exc: ValueError | RecursionError) -> str:
    """What is wrong with a JSON text, without echoing it (it may be huge or hostile)."""
    if isinstance(exc, json.JSONDecodeError):
        if exc.pos >= len(exc.doc.rstrip()):
            return f"{exc.msg} (column {exc.colno}: the text ends early, truncated?)"
        return f"{exc.msg} (column {exc.colno})"
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    # An integer with more digits than Python converts; the rest of the text is advice on
    # raising the interpreter's limit, which is not the user's fix.
    return str(exc).split(":", 1)[0]


def _open(path: Path) -> io.BufferedIOBase:
    return gzip.open(path) if path.suffix == ".gz" else path.open("rb")


def _form(stream: io.BufferedIOBase, *, lines_only: bool) -> _Form:
    """What the file holds, from its first non-blank bytes; leaves the stream at the start.

    Reads only up to the first non-blank byte after the first ``{`` or ``[``: a file that is
    one huge line is not read whole to find out. A ``.jsonl``/``.ndjson`` file is always JSON
    Lines, so a broken first line (``[`` or a lone ``{``) costs that line only.
    """
    if lines_only:
        return _Form.LINES
    try:
        if stream.read(len(_BOM)) != _BOM:
            stream.seek(0)
        first = b""
        while chunk := stream.read1(4096):
            if not first:
                chunk = chunk.lstrip(b" \t\r\n")  # JSON's blanks, as _skip_space
                if not chunk:
                    continue
                first, chunk = chunk[:1], chunk[1:]
                if first == b"[":
                    return _Form.ARRAY
                if first != b"{":
                    return _Form.LINES
            # After a first "{": a lone "{" on its line starts one pretty-printed value.
            rest = chunk.lstrip(b" \t\x0b\x0c")
            if rest:
                return _Form.SINGLE if rest[:1] in b"\r\n" else _Form.LINES
        return _Form.SINGLE if first else _Form.LINES
    finally:
        stream.seek(0)


def _split(stream: io.BufferedIOBase, cursor: _Cursor,
           seen: Sink | None = None) -> Iterator[tuple[int, bytes | int]]:
    """Each line's start offset and its bytes without the line end; for a line longer than
    :data:`MAX_RECORD_BYTES`, its length instead (its bytes are dropped as they are read).
    Sets ``cursor.line`` to the line being read; gives ``seen`` every chunk read."""
    start = base = size = 0  # the current line's offset; the chunk's offset; the line's length
    parts: list[bytes] = []
    after_cr = False
    cursor.line = 1
    # read1: a .gz file cut short gives every byte before the cut before it fails.
    while chunk := stream.read1(CHUNK_BYTES):
        if seen is not None:
            seen(chunk)
        pos = 0
        if after_cr and chunk.startswith(b"\n"):  # the chunks split a CRLF
            pos, start = 1, base + 1
        for end, after in _line_ends(chunk, pos):
            size += end - pos
            line = b"".join([*parts, chunk[pos:end]]) if size <= MAX_RECORD_BYTES else size
            parts = []  # dropped before the line is used: a long line is not held twice
            yield start, line
            size, pos = 0, after
            start = base + pos
            cursor.line += 1
        after_cr = chunk.endswith(b"\r")
        size += len(chunk) - pos
        if size <= MAX_RECORD_BYTES:
            parts.append(chunk[pos:])
        else:
            parts.clear()  # too long: only its length is still counted
        base += len(chunk)
    if size:
        yield start, b"".join(parts) if size <= MAX_RECORD_BYTES else size


def _line_ends(chunk: bytes, pos: int) -> Iterator[tuple[int, int]]:
    """Where each line end of ``chunk`` from ``pos`` on starts and stops."""
    crs = chunk.count(b"\r", pos)
    if crs and crs != chunk.count(b"\r\n", pos):
        # A lone CR (or one ending the chunk): the regular expression tells each end apart.
        for match in _LINE_END.finditer(chunk, pos):
            yield match.span()
        return
    # Only LF or CRLF ends: found with bytes.find, many times faster than the regular
    # expression (which cost 1 s a 90 MB input, 15 s at 310,000 records).
    while (end := chunk.find(b"\n", pos)) >= 0:
        yield (end - 1 if crs and end > pos and chunk[end - 1] == _CR else end), end + 1
        pos = end + 1


def _lines(name: str, stream: io.BufferedIOBase, cursor: _Cursor, *, in_place: bool,
           seen: Sink | None = None) -> Iterator[Line | Problem]:
    for start, data in _split(stream, cursor, seen):
        if isinstance(data, int):
            yield _too_big(name, cursor.line, data)
            continue
        lead, raw = _strip(data)
        if raw:  # blank lines separate nothing in JSON Lines: skipped silently
            yield Line(raw, Origin(name, cursor.line), start + lead if in_place else None)


def _strip(data: bytes) -> tuple[int, bytes]:
    """A line without the blanks and byte-order marks around its record (files joined with
    `cat` have a mark at any line), and how many bytes went from its start."""
    raw = data.lstrip(_BLANKS)
    while raw.startswith(_BOM):
        raw = raw[len(_BOM):].lstrip(_BLANKS)
    return len(data) - len(raw), raw.rstrip(_BLANKS)


def _whole(name: str, stream: io.BufferedIOBase, form: _Form) -> Iterator[Line | Problem]:
    """A JSON array or one value: read whole, cut into one line per value."""
    data = stream.read() if form is _Form.ARRAY else stream.read(MAX_RECORD_BYTES + 1)
    # Bytes that are not UTF-8 are kept as lone surrogates, and reported with their value.
    text = data.decode("utf-8", "surrogateescape").removeprefix("\ufeff")
    lines = _LineCount(text)
    if form is _Form.SINGLE and len(data) > MAX_RECORD_BYTES:
        size = len(data) + sum(len(chunk) for chunk in iter(lambda: stream.read(CHUNK_BYTES), b""))
        yield _too_big(name, lines.at(_skip_space(text, 0)), size)
        return
    spans = _array_spans(text) if form is _Form.ARRAY else _single_span(text)
    for first, second in spans:
        if isinstance(first, int):
            yield _value_line(name, text, lines, first, second)
        else:
            yield Problem(name, lines.at(second), f"not valid JSON: {json_error(first)}")


_Span = tuple[int, int] | tuple[ValueError | RecursionError, int]
"""Where a value starts and ends, or why none could be read and where."""


def _single_span(text: str) -> Iterator[_Span]:
    start = _skip_space(text, 0)
    try:
        _, end = _DECODER.raw_decode(text, start)
    except json.JSONDecodeError as exc:
        yield exc, exc.pos
        return
    except (ValueError, RecursionError) as exc:
        yield exc, start
        return
    if (rest := _skip_space(text, end)) < len(text):
        yield json.JSONDecodeError("Extra data", text, rest), rest
        return
    yield start, end


def _array_spans(text: str) -> Iterator[_Span]:
    """Where each element of the array is; a syntax error ends the array."""
    pos = _skip_space(text, 0) + 1
    while True:
        pos = _skip_space(text, pos)
        if pos < len(text) and text[pos] == "]":
            return
        try:
            _, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            yield exc, exc.pos
            return
        except (ValueError, RecursionError) as exc:
            yield exc, pos
            return
        yield pos, end
        pos = _skip_space(text, end)
        if pos < len(text) and text[pos] == ",":
            pos += 1
        elif pos >= len(text) or text[pos] != "]":
            yield json.JSONDecodeError("Expecting ',' or ']' after an element", text, pos), pos
            return


def _value_line(name: str, text: str, lines: _LineCount, start: int,
                end: int) -> Line | Problem:
    """One value of a file read whole, as a line (or why it cannot be one)."""
    line = lines.at(start)
    if end - start > MAX_RECORD_BYTES:
        return _too_big(name, line, len(text[start:end].encode("utf-8", "surrogateescape")))
    piece = text[start:end]
    if bad := _ESCAPED.search(piece):
        at = start + bad.start()
        column = at - max(text.rfind("\n", 0, at), text.rfind("\r", 0, at))
        before = text[max(start, at - 20):at].encode("utf-8", "surrogateescape")
        return _not_utf8(name, lines.at(at), column, ord(bad.group()) - 0xDC00, before)
    # A valid JSON text has line ends only between its tokens (never inside a string).
    raw = piece.replace("\r", " ").replace("\n", " ").encode("utf-8")
    if len(raw) > MAX_RECORD_BYTES:
        return _too_big(name, line, len(raw))
    return Line(raw, Origin(name, line), None)


class _LineCount:
    """Line numbers of positions in a text, counted on from the last position asked about
    (so numbering every value of a big array is linear, not quadratic)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._pos = 0
        self._line = 1

    def at(self, pos: int) -> int:
        if pos < self._pos:
            self._pos, self._line = 0, 1
        text, start = self._text, self._pos
        # LF, CRLF and a lone CR each end a line.
        self._line += (text.count("\n", start, pos) + text.count("\r", start, pos)
                       - text.count("\r\n", start, pos))
        self._pos = pos
        return self._line


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _too_big(name: str, line: int, size: int) -> Problem:
    return Problem(name, line, f"record too big: {size:,} bytes of JSON, over the limit of "
                   f"{MAX_RECORD_BYTES:,} bytes; skipped. Shorten its longest field (the excerpt "
                   "or a prose field)")


def _not_utf8(name: str, line: int, column: int, byte: int, before: bytes) -> Problem:
    after = before.decode("utf-8", "replace")
    context = f", after {shown(after)}" if after else ""
    return Problem(name, line, f"not UTF-8: byte 0x{byte:02X} at column {column}{context}; "
                   "save the file as UTF-8 (it may be Latin-1 or Windows-1252)")
