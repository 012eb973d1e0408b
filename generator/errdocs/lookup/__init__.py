"""Find the page of an error from a pasted message or traceback.

:mod:`.extract` finds candidate messages in the paste, :mod:`.index` files every record under
its rarest words, :mod:`.match` ranks the records, :mod:`.store` keeps it on disk,
:mod:`.jsregex` converts patterns for the browser, :mod:`.sitedata` writes the site's lookup
data, and :mod:`.report` and :mod:`.show` print results in the terminal.
"""

from __future__ import annotations

from errdocs.lookup.index import LookupIndex, Target, build_index
from errdocs.lookup.match import How, Match, lookup

__all__ = ["How", "LookupIndex", "Match", "Target", "build_index", "lookup"]
