"""Problems found in the input, reported as ``PATH:LINE: record 'ID': field 'NAME': text``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum


class Severity(StrEnum):
    """How bad a problem is: an error drops the record, a warning only degrades its page."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input, located precisely enough to fix it."""

    path: str
    """The input file, as the user named it."""
    line: int
    """1-based line of the record (or of the broken text) in that file; 0 when unknown."""
    message: str
    """What is wrong, showing the offending value and what would be valid."""
    record_id: str | None = None
    """The record's ``id`` when it could be read."""
    field: str | None = None
    """The JSON field name (camelCase, as in the data) when one field is at fault."""
    severity: Severity = Severity.ERROR
    """Errors drop the record; warnings keep it."""

    def __str__(self) -> str:
        parts = [f"{self.path}:{self.line}"]
        if self.record_id is not None:
            parts.append(f"record {self.record_id!r}")
        if self.field is not None:
            parts.append(f"field {self.field!r}")
        prefix = ": ".join(parts)
        tag = "warning: " if self.severity is Severity.WARNING else ""
        return f"{prefix}: {tag}{self.message}"


def summary(problems: list[Problem]) -> str:
    """One closing line that counts errors and warnings."""
    errors = sum(p.severity is Severity.ERROR for p in problems)
    warnings = len(problems) - errors
    return f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}"


def shown(value: object) -> str:
    """The offending value as JSON, short enough for one line of output.

    Characters a terminal would act on or not show (escapes, bidi overrides, surrogates) are
    written as ``\\u`` escapes, so a message can never restyle or reorder the output.
    """
    text = json.dumps(value, ensure_ascii=False)
    text = text if len(text) <= 60 else text[:57] + "..."
    return "".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in text)
