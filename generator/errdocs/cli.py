"""The ``errdocs`` command: a thin shell over :mod:`errdocs.pipeline`."""

from __future__ import annotations

import gc
import os
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path

import click

from errdocs import pipeline
from errdocs.build import ShardedReport, Slice, StrictProblems, site_addresses
from errdocs.catalog.history import DEFAULT_KEEP
from errdocs.errors import BuildFailed, ErrdocsError, os_failure, sqlite_failure
from errdocs.lookup import lookup, report, store
from errdocs.lookup.extract import cut_notes
from errdocs.lookup.show import show as show_page
from errdocs.pages.exports import FORMATS, export_catalogue, schema_text
from errdocs.pages.permalinks import Addresses
from errdocs.pipeline import Preview, open_lookup_index, record_of
from errdocs.project import SAMPLE_DATASET, WORK_DIR, Settings, load_settings
from errdocs.records.problems import Problem, summary
from errdocs.site.bundle import BundleError, Selection, make_bundle
from errdocs.site.owner import check_site_dir
from errdocs.units import engine as engines
from errdocs.units import jobarray
from errdocs.units.workers import default_jobs

INPUTS = click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
CONFIG = click.option("--config-file", "-f", type=click.Path(dir_okay=False, path_type=Path),
                      default=Path("mkdocs.yml"), show_default=True, help="The MkDocs config.")



@dataclass(frozen=True)
class _FoundSlice(Slice):
    """A slice ``--shard auto`` read from a job array's environment."""

    source: str = ""
    """The variables it came from (printed when the slice is built)."""


class _SliceType(click.ParamType):
    name = "I/N|auto"

    def convert(self, value: object, param: click.Parameter | None,
                ctx: click.Context | None) -> Slice:
        if isinstance(value, Slice):
            return value
        if value == "auto":  # a NoSlice error is one line, exit 1, like any ErrdocsError
            found = jobarray.from_environment(os.environ)
            return _FoundSlice(found.index, found.count, found.source)
        index, _, count = str(value).partition("/")
        if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
            self.fail(f"{value!r} is not I/N with 1 <= I <= N, e.g. 2/4, or auto", param, ctx)
        return Slice(int(index), int(count))


SLICE = _SliceType()
SITE_DIR = click.option("--site-dir", "-d", type=click.Path(file_okay=False, path_type=Path),
                        help="Where to put the site (default: site_dir of mkdocs.yml).")
SITE_URL = click.option("--site-url", metavar="URL",
                        help="The hosted site's address, e.g. https://errors.example.org/ "
                             "(default: site_url of mkdocs.yml); canonical links, sitemap and "
                             "robots.txt use it.")
KEEP_VERSIONS = click.option(
    "--keep-versions", type=click.IntRange(min=1), default=DEFAULT_KEEP, show_default=True,
    help="Dataset versions whose \"what changed\" and \"removed\" pages the site keeps.")
RESET_HISTORY = click.option(
    "--reset-history", is_flag=True,
    help="Forget what earlier builds saw (dataset versions, removed records, old addresses) "
         "and start the history from this build's records.")
FULL_TEXT = click.option("--full-text", is_flag=True,
                         help="Also index the records' whole text with Pagefind (site/pagefind/),"
                              " which the search box offers after its own results. Without it "
                              "the search box finds records by message, class, tags, category "
                              "and repository only.")
JOBS = click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
                    help="Worker processes (default: one per core).")
ENGINE = click.option(
    "--engine", type=click.Choice(engines.ENGINES), default=engines.MKDOCS, show_default=True,
    envvar=engines.ENV, help="What builds the pages: MkDocs, or ProperDocs (its maintained "
    "continuation, same config and plugins). Also ERRDOCS_ENGINE.")


_KEPT = {"build": BuildFailed.consequence, "merge": BuildFailed.consequence,
         "bundle": BundleError.consequence}
"""What a command's operating-system failure left as it was (every step that can fail comes
before the one that replaces the site or the zip)."""


class _Guarded(click.Group):
    """The one place errdocs' exception family is caught: a failure is one line and exit 1.

    ``--debug`` lets the exception through, traceback and all.
    """

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            # The reader of stdout left (`errdocs export | head`): nothing to say, and the
            # interpreter must not fail flushing stdout at exit either.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise SystemExit(1) from None
        except sqlite3.Error as exc:
            # A worker's own database write failing (a full disk): its error comes back
            # through the pool as SQLite's, not as an OSError nor one of errdocs'.
            failure = sqlite_failure(exc, WORK_DIR)
            if failure is None or ctx.params.get("debug"):
                raise
            raise click.ClickException(_os_line(ctx, failure)) from exc
        except (ErrdocsError, OSError) as exc:
            if ctx.params.get("debug"):
                raise
            line = _os_line(ctx, exc) if isinstance(exc, OSError) else exc.line()
            raise click.ClickException(line) from exc


def _os_line(ctx: click.Context, failure: OSError) -> str:
    """The one line of an OS failure, with what the command left as it was."""
    kept = _KEPT.get(ctx.invoked_subcommand or "")
    return f"{os_failure(failure)}; {kept}" if kept else os_failure(failure)


@click.group(cls=_Guarded)
@click.version_option(package_name="errdocs")
@click.option("--debug", is_flag=True, help="Show the traceback of a failure.")
def main(debug: bool) -> None:
    """Turn error records into a documentation site built by MkDocs (Material)."""


@main.command("check")
@click.argument("paths", nargs=-1, required=True,
                type=click.Path(exists=True, path_type=Path))
def check_command(paths: tuple[Path, ...]) -> None:
    """Validate records only; exit 1 when anything is wrong."""
    checked = pipeline.check(paths)
    _echo_problems(checked.problems)
    click.echo(f"{checked.records} records checked: {summary(checked.problems)}")
    if checked.problems:
        raise SystemExit(1)


@main.command("generate")
@INPUTS
@CONFIG
def generate_command(paths: tuple[Path, ...], config_file: Path) -> None:
    """Write the Markdown pages and the search data only (no MkDocs build): plain `mkdocs
    build` then makes the site's pages. No PATH: the sample dataset."""
    settings = _settings(config_file)
    report = pipeline.generate(settings, paths or (settings.project_dir / SAMPLE_DATASET,))
    _echo_report(report)
    click.echo(f"{report.records} records, {summary(report.problems)}; pages: {report.written} "
               f"written, {report.unchanged} unchanged, {report.removed} removed")


@main.command("build")
@INPUTS
@CONFIG
@SITE_DIR
@SITE_URL
@click.option("--strict", is_flag=True,
              help="Fail on any problem in the records or the MkDocs build; the site is kept.")
@JOBS
@click.option("--shard", type=SLICE, default=None, metavar="I/N|auto",
              help="Build only the I-th of N slices of the units (I from 1), and do not "
                   "assemble the site (run `errdocs merge` once every slice is built). auto: "
                   "the slice of this task of a job array, from ERRDOCS_SHARD/ERRDOCS_SHARDS, "
                   "a Kubernetes Indexed Job or a Slurm job array (indexes from 0).")
@FULL_TEXT
@ENGINE
@KEEP_VERSIONS
@RESET_HISTORY
def build_command(paths: tuple[Path, ...], config_file: Path, site_dir: Path | None,
                  site_url: str | None, strict: bool, jobs: int | None,
                  shard: Slice | None, full_text: bool, engine: str, keep_versions: int,
                  reset_history: bool) -> None:
    """Generate the pages with their search data and build the site unit by unit (unchanged
    units are reused); --full-text also indexes it with Pagefind. No PATH: the sample
    dataset."""
    engines.require(engine)
    settings = _settings(config_file, site_dir, site_url)
    _sharded(paths, settings, strict=strict, jobs=jobs, selection=shard, full_text=full_text,
             history=(keep_versions, reset_history))
    if shard is not None:
        source = f" ({shard.source})" if isinstance(shard, _FoundSlice) else ""
        click.echo(f"Slice {shard.index}/{shard.count}{source} built; run `errdocs merge` "
                   "when every slice is built")


@main.command("merge")
@INPUTS
@CONFIG
@SITE_DIR
@SITE_URL
@FULL_TEXT
@ENGINE
@KEEP_VERSIONS
def merge_command(paths: tuple[Path, ...], config_file: Path, site_dir: Path | None,
                  site_url: str | None, full_text: bool, engine: str,
                  keep_versions: int) -> None:
    """Assemble the site from units built by `errdocs build --shard I/N` runs (pass the
    slices' --full-text, --engine and --keep-versions too)."""
    engines.require(engine)  # the units were built by it: their keys name it
    settings = _settings(config_file, site_dir, site_url)
    _sharded(paths, settings, strict=False, jobs=1, selection=None, merge_only=True,
             full_text=full_text, history=(keep_versions, False))


@main.command("bundle")
@INPUTS
@CONFIG
@click.option("--repo", "repos", multiple=True, metavar="OWNER/NAME",
              help="Only records of this repository (repeatable).")
@click.option("--tag", "tags", multiple=True, metavar="TAG",
              help="Only records with this tag (repeatable; with --repo: records matching both).")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("dist/errdocs-bundle.zip"), show_default=True,
              help="The zip file to write.")
@SITE_DIR
@SITE_URL
@FULL_TEXT
@KEEP_VERSIONS
@JOBS
@ENGINE
def bundle_command(paths: tuple[Path, ...], config_file: Path, repos: tuple[str, ...],
                   tags: tuple[str, ...], output: Path, site_dir: Path | None,
                   site_url: str | None, full_text: bool, keep_versions: int,
                   jobs: int | None, engine: str) -> None:
    """Build an offline copy of the site (all records, or those chosen) as a zip that opens
    from disk, search included. All records: the site `errdocs build` makes (built first,
    nothing to do when it is current: give the options you give `build`), zipped. No PATH:
    the sample dataset."""
    engines.require(engine)
    settings = _settings(config_file, site_dir, site_url)
    inputs = paths or (settings.project_dir / SAMPLE_DATASET,)
    report = make_bundle(settings, inputs, output, selection=Selection(repos, tags),
                         jobs=jobs or default_jobs(), show_progress=True,
                         full_text=full_text, keep_versions=keep_versions)
    for problem in [*report.build.problems, *report.build.lookup_problems]:
        click.echo(str(problem), err=True)
    click.echo(f"Bundle written to {report.path}: {report.pages} pages ({report.records} "
               f"records), {_size(report.size)}. Unzip it and open "
               f"{report.folder}/index.html in a browser.")


@main.command("serve")
@INPUTS
@CONFIG
@click.option("--dev-addr", "-a", default="127.0.0.1:8000", show_default=True,
              help="Address to serve on.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Worker processes (default: one per core).")
@ENGINE
def serve_command(paths: tuple[Path, ...], config_file: Path, dev_addr: str,
                  jobs: int | None, engine: str) -> None:
    """Serve the site with live reload at once and build it as `errdocs build` does, then
    again when an input, a docs file, the config or the theme changes (only the units
    concerned are rebuilt). While a build runs, pages come from the previous site or from
    the units built so far, the home page's first. No PATH: the sample dataset."""
    engines.require(engine)
    host, _, port = dev_addr.rpartition(":")
    if not (host and port.isdigit()):
        raise click.BadParameter(f"{dev_addr!r} is not HOST:PORT, e.g. 127.0.0.1:8000",
                                 param_hint="--dev-addr")
    settings = _settings(config_file)
    check_site_dir(settings, settings.work_dir)
    preview = Preview(settings, paths or (settings.project_dir / SAMPLE_DATASET,),
                      jobs=jobs or default_jobs(), told=_echo_built)
    mount = preview.mount_path()
    where = dev_addr if mount == "/" else f"{dev_addr}{mount}"
    click.echo(f"Previewing with {engines.display()} on {where} (Ctrl+C stops it)")
    pipeline.serve(preview, host, int(port), lambda line: click.echo(line, err=True))


def _echo_built(report: ShardedReport) -> None:
    _echo_report(report)
    click.echo(f"{report.records} records, {summary(report.problems)}; pages: "
               f"{report.written} written; units: {report.built} built, {report.reused} reused")


def _sharded(paths: tuple[Path, ...], settings: Settings, *, strict: bool, jobs: int | None,
             selection: Slice | None, merge_only: bool = False,
             full_text: bool = False,
             history: tuple[int, bool] = (DEFAULT_KEEP, False)) -> ShardedReport:
    inputs = paths or (settings.project_dir / SAMPLE_DATASET,)
    try:
        report = pipeline.build(settings, inputs, jobs=jobs or default_jobs(), strict=strict,
                               selection=selection, merge_only=merge_only, full_text=full_text,
                               keep_versions=history[0], reset_history=history[1])
    except StrictProblems as exc:
        problems = exc.args[0]
        for problem in problems:
            click.echo(str(problem), err=True)
        raise click.ClickException(f"{summary(problems)} in the records; nothing was "
                                   "written (--strict)") from exc
    _echo_report(report)
    click.echo(f"{report.records} records, {summary(report.problems)}; pages: {report.written} "
               f"written, {report.unchanged} unchanged, {report.removed} removed; units: "
               f"{report.built} built, {report.reused} reused")
    for note in report.notes:
        click.echo(note, err=True)
    if report.merged:
        searchable = "" if report.searchable is None else (
            f"; {report.searchable} pages in the full-text index")
        click.echo(f"Site built in {settings.site_dir}{searchable}")
    return report


@main.command("schema")
@CONFIG
@SITE_URL
def schema_command(config_file: Path, site_url: str | None) -> None:
    """Print the JSON Schema (draft 2020-12) of a record: what `errdocs check` accepts, made
    from the same definition. The site serves it as /api/schema.json."""
    click.echo(schema_text(_addresses(config_file, site_url)), nl=False)


@main.command("export")
@INPUTS
@CONFIG
@SITE_URL
@click.option("--format", "form", type=click.Choice(FORMATS), default="ndjson",
              show_default=True, help="JSON Lines, or an SQLite file (table `records`).")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
              help="The file to write (replaced only if it is an earlier export); JSON Lines "
                   "go to stdout without it.")
def export_command(paths: tuple[Path, ...], config_file: Path, site_url: str | None, form: str,
                   output: Path | None) -> None:
    """Write the catalogue: every good record with its page's address, as /api/records/
    serves each. No PATH: the sample dataset."""
    if form == "sqlite" and output is None:
        raise click.UsageError("--format sqlite needs --output FILE")
    addresses = _addresses(config_file, site_url)
    inputs = paths or (_settings(config_file).project_dir / SAMPLE_DATASET,)
    exported = export_catalogue(inputs, output, form, addresses)
    for problem in exported.problems:
        click.echo(str(problem), err=True)
    where = "stdout" if output is None else str(output)
    click.echo(f"{exported.records} records exported to {where} ({form}); "
               f"{summary(exported.problems)}", err=output is None)


def _addresses(config_file: Path, site_url: str | None) -> Addresses:
    settings = _settings(config_file, site_url=site_url)
    return site_addresses(settings)


@main.command("lookup")
@click.argument("text", nargs=-1, required=True)
@click.option("--records", "-r", "records", multiple=True,
              type=click.Path(exists=True, path_type=Path),
              help=f"Records to search (repeatable). Default: {SAMPLE_DATASET}.")
@click.option("--json", "as_json", is_flag=True, help="Print the matches as a JSON list.")
@click.option("--limit", "-n", type=click.IntRange(min=1), default=5, show_default=True,
              help="How many matches to print.")
@click.option("--show", is_flag=True, help="Print the best match's page in the terminal.")
@click.option("--cache/--no-cache", default=True, show_default=True,
              help=f"Keep the index of the records in {store.CACHE_DIR}/ between calls.")
def lookup_command(text: tuple[str, ...], records: tuple[Path, ...], as_json: bool, limit: int,
                   show: bool, cache: bool) -> None:
    """Find the page of an error message or a pasted traceback (TEXT, or - for stdin).

    Exits with 1 when nothing matches.
    """
    pasted = click.get_text_stream("stdin").read() if text == ("-",) else " ".join(text)
    opened = open_lookup_index(records or (_sample_dataset(),), store.CACHE_DIR if cache else None)
    gc.freeze()  # the index lives until exit: spare the collector from scanning it mid-lookup
    if opened.record_problems:
        click.echo(f"{summary(opened.record_problems)} in the records (errdocs check shows them)",
                   err=True)
    for problem in [*opened.index.problems, *opened.index.unusable]:  # once: not from cache
        click.echo(str(problem), err=True)
    for note in cut_notes(pasted):
        click.echo(f"Note: {note}", err=True)
    try:
        matches = lookup(opened.index, pasted, limit=limit)
    except store.DamagedCache as exc:
        raise click.ClickException(f"{exc}; run again with --no-cache, or delete "
                                   f"{store.CACHE_DIR}/") from exc
    if show and matches:
        record = record_of(records or (_sample_dataset(),), matches[0].target.record_id)
        if record is None:
            raise click.ClickException(f"{matches[0].target.origin}: the record is no longer "
                                       "there; run again with --no-cache")
        click.echo(show_page(record, matches[0]), nl=False)
    elif as_json:
        click.echo(report.as_json(matches))
    elif matches:
        click.echo(report.as_text(matches))
    if not matches:
        if not as_json:
            click.echo("No matching error found.", err=True)
        raise SystemExit(1)


def _sample_dataset() -> Path:
    if not SAMPLE_DATASET.is_file():
        raise click.UsageError(f"{SAMPLE_DATASET} not found here; pass --records PATH")
    return SAMPLE_DATASET


def _settings(config_file: Path, site_dir: Path | None = None,
              site_url: str | None = None) -> Settings:
    try:
        return load_settings(config_file, site_dir, site_url)
    except (FileNotFoundError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc


def _size(size: int) -> str:
    """Bytes the way a person reads them: ``1.3 MB``."""
    if size < 1000:
        return f"{size} bytes"
    if size < 1_000_000:
        return f"{size / 1000:.1f} kB"
    return f"{size / 1_000_000:.1f} MB"


def _echo_problems(problems: list[Problem]) -> None:
    for problem in problems:
        click.echo(str(problem), err=True)


def _echo_report(report: ShardedReport) -> None:
    """A build's problems, then the patterns the paste box cannot use (on stderr)."""
    _echo_problems([*report.problems, *report.lookup_problems])
    if report.unconverted:
        click.echo(f"{report.unconverted} message patterns have no JavaScript form or are too "
                   "slow there; the site's paste box matches those records by their message "
                   "template", err=True)
