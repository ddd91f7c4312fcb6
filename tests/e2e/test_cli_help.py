"""`cogmem --help` and every command's help on a narrow terminal, run as a user runs them
(one subprocess each, COLUMNS set): every line fits, and no word of a docstring, an
option's help or an option's name is cut across two lines."""

from __future__ import annotations

import inspect
import os
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from cogmem_graph.cli import app
from cogmem_graph.cli.help_layout import wrap

from .watched_run import run_python

NARROW = 60
PROG = "python -m cogmem_graph.cli"
UNWRAPPED = 100_000
FRAME = "─│╭╮╰╯"
"""Panel borders, not words (their length follows the terminal)."""


def _commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    yield path, command
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from _commands(sub, (*path, name))


COMMANDS = list(_commands(typer.main.get_command(app)))


def _source_words(command: Any) -> set[str]:
    """The words the help must show whole: the command's docstring, each option's help
    text and each option's names."""
    words = set(inspect.cleandoc(command.help or "").partition("\f")[0].split())
    for param in command.params:
        if param.param_type_name == "option":
            words.update(param.opts, param.secondary_opts)
        words.update((getattr(param, "help", None) or "").split())
    return words


def _help(path: tuple[str, ...], columns: int) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COGMEM_")}
    env["COLUMNS"] = str(columns)
    done = run_python(["-m", "cogmem_graph.cli", *path, "--help"], timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _unwrapped_help(path: tuple[str, ...]) -> str:
    """The same help on a terminal wide enough that nothing wraps."""
    done = CliRunner().invoke(app, [*path, "--help"], prog_name=PROG, env={"COLUMNS": str(UNWRAPPED)},
                              terminal_width=UNWRAPPED, max_content_width=UNWRAPPED)
    assert done.exit_code == 0, done.output
    return done.output


def test_every_command_is_checked() -> None:
    paths = {" ".join(path) for path, _ in COMMANDS}
    assert {"", "ingest", "recall", "context", "list", "serve", "keys", "keys add"} <= paths


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[" ".join(p) or "cogmem" for p, _ in COMMANDS])
def test_help_wraps_between_words_on_a_narrow_terminal(path: tuple[str, ...], command: Any) -> None:
    text = _help(path, NARROW)
    too_wide = [line for line in text.splitlines() if len(line) > NARROW]
    assert not too_wide, f"lines wider than {NARROW} columns:\n" + "\n".join(too_wide)
    shown = {word.rstrip(",/") for word in text.split()} | set(text.split())  # "-k, --top-k", "--pin / --unpin"
    cut = sorted(_source_words(command) - shown)
    assert not cut, f"words not shown whole (cut across lines?): {cut}\n{text}"
    whole = set(_unwrapped_help(path).split())
    pieces = sorted(w for w in set(text.split()) - whole if not set(w) & set(FRAME))
    assert not pieces, f"pieces of words (types, names, defaults cut or folded): {pieces}\n{text}"


@pytest.mark.parametrize("width", [12, 30, 60])
def test_wrap_breaks_only_at_spaces(width: int) -> None:
    text = "key file (default: server-keys.json in the memory home)\n\nsee COGMEM_KEYS_FILE for more"
    lines = wrap(text, width, "  ")
    assert " ".join(" ".join(lines).split()) == " ".join(text.split())
    assert "" in lines, "paragraphs stay apart"
    assert all(len(line) <= width or " " not in line.strip() for line in lines)
    assert {"server-keys.json", "COGMEM_KEYS_FILE"} <= {w for line in lines for w in line.split()}
