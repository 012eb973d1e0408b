"""Values that repeat across records (repositories, classes, files...), kept once and taken
by number: what the light copies (:mod:`errdocs.catalog.lights`) and the catalogue's entries
(:mod:`errdocs.catalog.entries`) pack of them."""

from __future__ import annotations


class Numbered:
    """Strings numbered as they are first given (0 stands for none)."""

    def __init__(self) -> None:
        self.values: list[str | None] = [None]
        """The strings, by number."""
        self._numbers: dict[str, int] | None = {}
        """Each string's number, while strings are added (:meth:`settle`)."""

    def number(self, value: str | None) -> int:
        """``value``'s number (a new one if it has none yet; 0 for ``None``)."""
        if value is None:
            return 0
        if self._numbers is None:
            self._numbers = {text: n for n, text in enumerate(self.values) if text is not None}
        number = self._numbers.get(value)
        if number is None:
            number = self._numbers[value] = len(self.values)
            self.values.append(value)
        return number

    def settle(self) -> None:
        """Once every string is given: the table numbering them goes (~25 MB for the light
        copies at 310,000 records; made again should one more be given)."""
        self._numbers = None

    def __getstate__(self) -> list[str | None]:
        return self.values  # (the numbering table is made again when needed)

    def __setstate__(self, values: list[str | None]) -> None:
        self.values, self._numbers = values, None
