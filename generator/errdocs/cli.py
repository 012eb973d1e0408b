"""The ``errdocs`` command: a thin shell over :mod:`errdocs.pipeline` and :mod:`errdocs.build`."""

from __future__ import annotations

from pathlib import Path

import click

from .merge import MergeError
from .parallel import default_jobs
from .pipeline import Checked, check, generate
from .problems import summary
from .scan import InputChanged
from .settings import SAMPLE_DATASET, Settings, load_settings
from .sitebuild import Selection, ShardedReport, StrictProblems, build_sharded
from .unitbuild import UnitFailed

INPUTS = click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
CONFIG = click.option("--config-file", "-f", type=click.Path(dir_okay=False, path_type=Path),
                      default=Path("mkdocs.yml"), show_default=True, help="The MkDocs config.")


class _ShardType(click.ParamType):
    name = "I/N"

    def convert(self, value: object, param: click.Parameter | None,
                ctx: click.Context | None) -> Selection:
        if isinstance(value, Selection):
            return value
        index, _, count = str(value).partition("/")
        if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
            self.fail(f"{value!r} is not I/N with 1 <= I <= N, e.g. 2/4", param, ctx)
        return Selection(int(index), int(count))


SHARD = _ShardType()


@click.group()
@click.version_option(package_name="errdocs")
def main() -> None:
    """Turn error records into a documentation site built by MkDocs (Material)."""


@main.command("check")
@click.argument("paths", nargs=-1, required=True,
                type=click.Path(exists=True, path_type=Path))
def check_command(paths: tuple[Path, ...]) -> None:
    """Validate records only; exit 1 when anything is wrong."""
    checked = _checked(paths)
    click.echo(f"{len(checked.records)} records checked: {summary(checked.problems)}")
    if checked.problems:
        raise SystemExit(1)


@main.command("generate")
@INPUTS
@CONFIG
def generate_command(paths: tuple[Path, ...], config_file: Path) -> None:
    """Write the Markdown pages only (no MkDocs build). No PATH: the sample dataset."""
    settings = _settings(config_file)
    _generate(paths, settings, strict=False)


@main.command("build")
@INPUTS
@CONFIG
@click.option("--site-dir", "-d", type=click.Path(file_okay=False, path_type=Path),
              help="Where to put the site (default: site_dir of mkdocs.yml).")
@click.option("--strict", is_flag=True,
              help="Fail on any problem in the records or the MkDocs build; the site is kept.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Worker processes (default: one per core).")
@click.option("--shard", type=SHARD, default=None, metavar="I/N",
              help="Build only the I-th of N slices of the units, and do not assemble the site "
                   "(run `errdocs merge` once every slice is built).")
def build_command(paths: tuple[Path, ...], config_file: Path, site_dir: Path | None,
                  strict: bool, jobs: int | None, shard: Selection | None) -> None:
    """Generate the pages and build the site, unit by unit; unchanged units are reused.

    No PATH: the sample dataset.
    """
    settings = _settings(config_file, site_dir)
    report = _sharded(paths, settings, strict=strict, jobs=jobs, selection=shard)
    if report.merged:
        click.echo(f"Site built in {settings.site_dir}")
    else:
        click.echo(f"Slice {shard.index}/{shard.count} built; run `errdocs merge` when every "
                   "slice is built")


@main.command("merge")
@INPUTS
@CONFIG
@click.option("--site-dir", "-d", type=click.Path(file_okay=False, path_type=Path),
              help="Where to put the site (default: site_dir of mkdocs.yml).")
def merge_command(paths: tuple[Path, ...], config_file: Path, site_dir: Path | None) -> None:
    """Assemble the site from units built by `errdocs build --shard I/N` runs."""
    settings = _settings(config_file, site_dir)
    _sharded(paths, settings, strict=False, jobs=1, selection=None, merge_only=True)
    click.echo(f"Site built in {settings.site_dir}")


@main.command("serve")
@INPUTS
@CONFIG
@click.option("--dev-addr", "-a", default="127.0.0.1:8000", show_default=True,
              help="Address to serve on.")
def serve_command(paths: tuple[Path, ...], config_file: Path, dev_addr: str) -> None:
    """Generate the pages, then preview the site with live reload (MkDocs' serve)."""
    from mkdocs.commands.serve import serve  # imported late: it pulls in the dev server

    settings = _settings(config_file)
    _generate(paths, settings, strict=False)
    serve(config_file=str(settings.config_file), dev_addr=dev_addr, livereload=True)


def _sharded(paths: tuple[Path, ...], settings: Settings, *, strict: bool, jobs: int | None,
             selection: Selection | None, merge_only: bool = False) -> ShardedReport:
    inputs = paths or (settings.project_dir / SAMPLE_DATASET,)
    try:
        report = build_sharded(settings, inputs, jobs=jobs or default_jobs(), strict=strict,
                               selection=selection, merge_only=merge_only)
    except StrictProblems as exc:
        problems = exc.args[0]
        for problem in problems:
            click.echo(str(problem), err=True)
        raise click.ClickException(f"{summary(problems)} in the records; nothing was "
                                   "written (--strict)") from exc
    except (UnitFailed, MergeError, InputChanged) as exc:
        raise click.ClickException(f"{exc}; the previous site was left as it was") from exc
    for problem in report.problems:
        click.echo(str(problem), err=True)
    click.echo(f"{report.records} records, {summary(report.problems)}; units: {report.built} "
               f"built, {report.reused} reused; pages: {report.written} written, "
               f"{report.removed} removed")
    return report




def _settings(config_file: Path, site_dir: Path | None = None) -> Settings:
    try:
        return load_settings(config_file, site_dir)
    except FileNotFoundError as exc:
        raise click.ClickException(str(exc)) from exc


def _checked(paths: tuple[Path, ...]) -> Checked:
    checked = check(paths)
    for problem in checked.problems:
        click.echo(str(problem), err=True)
    return checked


def _generate(paths: tuple[Path, ...], settings: Settings, *, strict: bool) -> None:
    inputs = paths or (settings.project_dir / SAMPLE_DATASET,)
    checked = _checked(inputs)
    if strict and checked.problems:
        raise click.ClickException(f"{summary(checked.problems)} in the records; nothing was "
                                   "written (--strict)")
    result = generate(checked, settings.out_dir)
    r = result.report
    click.echo(f"{len(checked.records)} records, {summary(checked.problems)}; pages: "
               f"{r.written} written, {r.unchanged} unchanged, {r.removed} removed")
