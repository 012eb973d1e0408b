"""Where things are: the MkDocs config, the docs folder, the generated subtree, the site."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

GENERATED_SUBTREE = "errors"
SAMPLE_DATASET = Path("data/sample.jsonl")


@dataclass(frozen=True)
class Settings:
    """Paths of one errdocs project, all absolute."""

    config_file: Path
    """The project's ``mkdocs.yml``."""
    docs_dir: Path
    """MkDocs' ``docs_dir``: hand-written pages, and the generated subtree inside it."""
    site_dir: Path
    """Where the built site goes."""
    subtree: str = GENERATED_SUBTREE
    """Folder under ``docs_dir`` that errdocs owns; git-ignored."""

    @property
    def out_dir(self) -> Path:
        """The generated subtree on disk."""
        return self.docs_dir / self.subtree

    @property
    def project_dir(self) -> Path:
        return self.config_file.parent


def load_settings(config_file: Path = Path("mkdocs.yml"), site_dir: Path | None = None) -> Settings:
    """Settings read from ``mkdocs.yml`` (its ``docs_dir`` and ``site_dir``)."""
    config_file = config_file.resolve()
    if not config_file.is_file():
        raise FileNotFoundError(f"{config_file}: no MkDocs config here; run errdocs from the "
                                "project folder or pass --config-file")
    data = _read_yaml(config_file)
    docs = config_file.parent / str(data.get("docs_dir", "docs"))
    site = site_dir or config_file.parent / str(data.get("site_dir", "site"))
    return Settings(config_file, docs.resolve(), Path(site).resolve())


def _read_yaml(path: Path) -> dict[str, object]:
    """The top level of ``mkdocs.yml``, ignoring MkDocs' custom tags (``!ENV`` and such)."""

    class _Loader(yaml.SafeLoader):
        pass

    _Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    data = yaml.load(path.read_text("utf-8"), Loader=_Loader)  # a SafeLoader subclass
    return data if isinstance(data, dict) else {}
