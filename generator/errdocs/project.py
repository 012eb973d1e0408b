"""Where things are: the MkDocs config, the docs folder, the generated subtree, the site."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import yaml

from errdocs.errors import InputError

GENERATED_SUBTREE = "errors"
SAMPLE_DATASET = Path("data/sample.jsonl")
WORK_DIR = ".errdocs"
"""errdocs' own folder in the project: caches, unit outputs, scratch folders."""


@dataclass(frozen=True)
class Profile:
    """How the site's units are built: for the hosted site, or for the offline bundle.

    Each profile has its own units (keys and folder), so building one never makes the
    other's units stale.
    """

    name: str
    """Part of every unit's key."""
    folder: str
    """Its own folder inside :data:`WORK_DIR` ('' for the hosted site: the folder itself)."""
    site_url: bool
    """True keeps ``site_url`` (canonical links, sitemap); a bundle of a subset has none: its
    pages are not the hosted site's (it may hold records the hosted site has not)."""
    dropped: frozenset[str]
    """Plugins of ``mkdocs.yml`` its units leave out."""


HOSTED = Profile("hosted", "", True, frozenset())
OFFLINE = Profile("offline", "offline/work", False, frozenset({"errdocs-lastmod"}))
"""A bundle of a subset of the records (``errdocs bundle --repo/--tag``), built apart from the
hosted site: no ``site_url``, no sitemap dates (nothing reads them from disk)."""


@dataclass(frozen=True)
class Settings:
    """Paths of one errdocs project, all absolute."""

    config_file: Path
    """The project's ``mkdocs.yml``."""
    docs_dir: Path
    """MkDocs' ``docs_dir``: hand-written pages, and the generated subtree inside it."""
    site_dir: Path
    """Where the built site goes."""
    site_url: str | None = None
    """The hosted site's address (``--site-url``), overriding ``site_url`` of ``mkdocs.yml``;
    None keeps the config's. Canonical links, the sitemap and robots.txt are built from it."""
    subtree: str = GENERATED_SUBTREE
    """Folder under ``docs_dir`` that errdocs owns; git-ignored."""
    profile: Profile = HOSTED
    """How the units are built (the hosted site, or the offline bundle)."""

    @property
    def out_dir(self) -> Path:
        """The generated subtree on disk."""
        return self.docs_dir / self.subtree

    @property
    def project_dir(self) -> Path:
        return self.config_file.parent

    @property
    def work_dir(self) -> Path:
        """errdocs' own folder in the project (:data:`WORK_DIR`), or the profile's in it."""
        work = self.project_dir / WORK_DIR
        return work / self.profile.folder if self.profile.folder else work


def load_settings(config_file: Path = Path("mkdocs.yml"), site_dir: Path | None = None,
                  site_url: str | None = None) -> Settings:
    """Settings read from ``mkdocs.yml`` (its ``docs_dir`` and ``site_dir``)."""
    config_file = config_file.resolve()
    if not config_file.is_file():
        raise FileNotFoundError(f"{config_file}: no MkDocs config here; run errdocs from the "
                                "project folder or pass --config-file")
    data = read_config_data(config_file)
    docs = config_file.parent / str(data.get("docs_dir", "docs"))
    site = site_dir or config_file.parent / str(data.get("site_dir", "site"))
    return Settings(config_file, _resolve(docs), _resolve(Path(site)), check_site_url(site_url))


def _resolve(path: Path) -> Path:
    """``path`` made absolute, symbolic links followed; ValueError for a loop of them."""
    try:
        return path.resolve()
    except RuntimeError:  # Python 3.11-3.12 (later ones raise OSError ELOOP)
        raise ValueError(f"{path.absolute()}: a loop of symbolic links; point it at a "
                         "folder") from None


def check_site_url(url: str | None) -> str | None:
    """``url`` with a trailing slash if it is an absolute http(s) address; ValueError if not."""
    if url is None:
        return None
    if not _is_site_url(url):
        raise ValueError(f"--site-url: expected an address like https://errors.example.org/, "
                         f"got {url!r}")
    return url if url.endswith("/") else url + "/"


def _is_site_url(url: str) -> bool:
    if any(c.isspace() or c in "<>\"'\\" for c in url):
        return False
    try:
        parts = urlsplit(url)
        return (parts.scheme in ("http", "https") and bool(parts.hostname)
                and not parts.query and not parts.fragment)
    except ValueError:  # a malformed port or IPv6 address
        return False


def read_config_data(path: Path) -> dict[str, object]:
    """The top level of ``mkdocs.yml``, ignoring MkDocs' custom tags (``!ENV`` and such)."""
    return config_data(path, path.read_bytes())


def config_data(path: Path, text: bytes) -> dict[str, object]:
    """:func:`read_config_data` of ``text``, the bytes of ``path``."""

    class _Loader(yaml.SafeLoader):
        pass

    _Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    try:
        data = yaml.load(text.decode("utf-8"), Loader=_Loader)  # a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:  # where MkDocs itself would say it, in one line
        mark = exc.problem_mark
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise InputError(f"{where}: not valid YAML: {exc.problem or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    return data if isinstance(data, dict) else {}
