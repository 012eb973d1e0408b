"""The typed record model: one error message raised in one repository."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a record was read from."""

    path: str
    """The input file, as given on the command line."""
    line: int
    """1-based line where the record starts."""

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True, slots=True)
class Record:
    """A validated error record. Text fields are untrusted and must be escaped when rendered."""

    id: str
    """Stable identifier from the dataset, e.g. ``2f61984c034089bc``."""
    repo: str
    """Repository as ``owner/name``, e.g. ``sgl-project/sglang``."""
    slug: str
    """Kebab-case name derived from the message; unique per repository after collisions."""
    error_message: str
    """The message template, with ``{placeholders}`` for its variable parts."""
    origin: Origin
    """File and line the record came from."""
    message_pattern: str | None = None
    """A Python regex matching concrete messages, e.g. ``Unknown MLX async mode: (.+?)``."""
    error_type: str | None = None
    """Broad kind of error, e.g. ``validation``."""
    error_class: str | None = None
    """Exception or error class, e.g. ``ValueError``."""
    error_code: str | None = None
    """Project-specific error code, e.g. ``E0423``."""
    http_status: int | None = None
    """HTTP status the error maps to, if any."""
    severity: str | None = None
    """Severity as given by the producer, e.g. ``error``."""
    file_path: str | None = None
    """Path of the raising file inside the repository."""
    line_number: int | None = None
    """Line that raises the error, in the file's numbering."""
    source_code: str | None = None
    """Excerpt of the raising file."""
    source_code_start: int | None = None
    """File line number of the excerpt's first line."""
    source_code_end: int | None = None
    """File line number of the excerpt's last line."""
    github_url: str | None = None
    """Pinned link to the excerpt on GitHub."""
    documentation: str | None = None
    """Prose: what the error means."""
    trigger_scenarios: str | None = None
    """Prose: what makes the code raise it."""
    common_situations: str | None = None
    """Prose: where users usually meet it."""
    solutions: tuple[str, ...] = ()
    """Ways to fix it, best first."""
    example_fix: str | None = None
    """Code: before/after fix."""
    handling_strategy: str | None = None
    """How callers should handle it, e.g. ``type-guard``."""
    validation_code: str | None = None
    """Code: validate input before the call."""
    type_guard: str | None = None
    """Code: a predicate that rules the error out."""
    try_catch_pattern: str | None = None
    """Code: catching and handling the error."""
    prevention_tips: tuple[str, ...] = ()
    """How to avoid the error in the first place."""
    tags: tuple[str, ...] = ()
    """Free-form tags, as written in the data."""
    background_tag: str | None = None
    """One category, e.g. ``unhandled-dispatch-case``."""
    analyzed_sha: str | None = None
    """Commit the record was produced from."""
    analyzed_at: str | None = None
    """ISO timestamp of the analysis."""
    schema_version: int | None = None
    """Version of the record schema."""
    dataset_version: str | None = None
    """Version of the dataset the record shipped in (from the envelope)."""

    @property
    def owner(self) -> str:
        """The repository owner, e.g. ``sgl-project``."""
        return self.repo.split("/", 1)[0]

    @property
    def name(self) -> str:
        """The repository name, e.g. ``sglang``."""
        return self.repo.split("/", 1)[1]


def excerpt_lines(code: str) -> list[str]:
    """The lines of a ``sourceCode`` excerpt (newlines already normalised to ``\\n``).

    A final newline ends the last line; it does not start another: ``"a\\nb\\n"`` is two
    lines, as a file of those bytes is. Blank lines before it are lines of their own:
    ``"a\\n\\n"`` is ``a`` and a blank line.
    """
    lines = code.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines
