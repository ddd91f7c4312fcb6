"""How `--help` is laid out: reflowed to the terminal, lines broken only between words.

Typer draws help as Rich panels by default: a table whose columns Rich squeezes below
their longest word on a narrow terminal, where it cuts words ("--consolida…") and folds
option types mid-word ("<list[ep" / "isodic|..."); it also keeps the docstrings' own line
breaks. The `cogmem` commands use click's plain layout instead (the app turns Rich help off),
through `HelpGroup`, which changes two things in it: a line breaks only at a space, never
at a hyphen inside a word ("server-keys.json") nor inside a long word, and the command list
shows each command's first sentence whole, wrapped, rather than cut to one line with "...".
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterable
from typing import Any

import typer
from typer.core import TyperGroup

NO_REWRAP = "\b"
"""Click's marker for a paragraph to print as written (its first line holds only this)."""


def wrap(text: str, width: int, indent: str = "") -> list[str]:
    """`text`'s paragraphs (blank-line separated) reflowed to `width` columns, each line
    broken at a space only; a word longer than the width stands alone on its line."""
    lines: list[str] = []
    for paragraph in textwrap.dedent(text).strip("\n").split("\n\n"):
        if lines:
            lines.append("")
        if paragraph.startswith(NO_REWRAP):
            lines += [indent + line for line in paragraph.splitlines()[1:]]
            continue
        lines += textwrap.wrap(" ".join(paragraph.split()), max(width, 1), initial_indent=indent,
                               subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)
    return lines


# The base is whatever formatter class typer's Context names (a class attribute, not a type mypy can follow).
class WordWrapFormatter(typer.Context.formatter_class):  # type: ignore[misc,valid-type]  # dynamic base
    """Click's help formatter with `wrap` for the prose and the definition lists."""

    def write_text(self, text: str) -> None:
        self.write("\n".join(wrap(text, self.width, " " * self.current_indent)) + "\n")

    def write_dl(self, rows: Iterable[tuple[str, str]], col_max: int = 30, col_spacing: int = 2) -> None:
        """Term and description side by side; a term wider than `col_max` puts its
        description on the lines below it, as click does."""
        rows = list(rows)
        first_col = min(max((len(term) for term, _ in rows), default=0), col_max) + col_spacing
        left = " " * (self.current_indent + first_col)
        for term, description in rows:
            self.write(" " * self.current_indent + term)
            if not description:
                self.write("\n")
                continue
            self.write(" " * (first_col - len(term)) if len(term) <= col_max else "\n" + left)
            lines = wrap(description, self.width - len(left))
            self.write(("\n" + left).join(lines) + "\n")


class WordWrapContext(typer.Context):
    formatter_class = WordWrapFormatter


def _use_word_wrap(command: Any) -> None:
    command.context_class = WordWrapContext
    for sub in getattr(command, "commands", {}).values():
        _use_word_wrap(sub)


class HelpGroup(TyperGroup):
    """A command group whose help, and every subcommand's, is laid out by `WordWrapFormatter`
    (typer builds the subcommands first, so they are all here when the group is made)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _use_word_wrap(self)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = [(name, command.get_short_help_str(sys.maxsize))
                for name in self.list_commands(ctx)
                if (command := self.get_command(ctx, name)) is not None and not command.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)
