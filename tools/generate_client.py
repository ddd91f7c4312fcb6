"""Write `cogmem_graph/client/generated.py`: the `RemoteAgent` methods, made from the operations table.

    python tools/generate_client.py           # write the file
    python tools/generate_client.py --check   # exit 1 when the file is not what it would write

One method per entry of `cogmem_graph/operations.py` that names a `client` method, but the few
in `HAND_WRITTEN`. Its parameters are the fields of the entry's argument model: their names,
their defaults, and their types as a Python caller gives them (`annotation`: a moment may be a
datetime, a duration a timedelta, a filter a dict). Each value is converted as
`client/arguments.py` `converter_for` decides by the field's type. Required fields are taken by
position and the rest by keyword, and the answer is returned as its JSON, unless the method's
entry in `METHODS` says otherwise.

`METHODS` sits here rather than on the table's entries: how the Python client lays out a method
and what type its result is are the client's concern, read by nothing but this generator, and
the table sits below the client (the server and MCP read it too). An operation whose method
takes the default layout and answers JSON needs no line here.
"""

from __future__ import annotations

import argparse
import inspect
import sys
import textwrap
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pydantic import BaseModel  # noqa: E402 - after the repository joins the path
from pydantic.fields import FieldInfo  # noqa: E402

from cogmem_graph.api.governance import EraseReceipt, ForgetReceipt, MemoryPage, MemoryRecord  # noqa: E402
from cogmem_graph.client import arguments, wire  # noqa: E402
from cogmem_graph.cognition.prospective import Intention  # noqa: E402
from cogmem_graph.model import MemoryTrace  # noqa: E402
from cogmem_graph.operations import OPERATIONS, Operation  # noqa: E402
from cogmem_graph.results import AssembledContext, RetrievalResult  # noqa: E402

TARGET = ROOT / "cogmem_graph" / "client" / "generated.py"
WIDTH = 120  # ruff's line length (pyproject.toml)


@dataclass(frozen=True)
class Reads:
    """How the answer becomes the result: `read(answer)`, `read(answer[key])` with `key`, a list
    of `read(item)` for each item with `each`. `read` returns a `type` (the type itself when
    `read` is None: `bool`, `str`)."""

    type: type
    read: Callable[[Any], Any] | None = None
    key: str | None = None
    each: bool = False


@dataclass(frozen=True)
class Method:
    """Where a method differs from the default layout.

    positional: the fields taken by position, in order (default: the required ones).
    names: the method's own name for a field, where the model's reads worse in Python.
    rest: the name of a `**` parameter taking every field not taken by position (`encode`'s
        many optional fields), converted at the call (`arguments.converted`).
    reads: the result, when it is not the answer's JSON.
    """

    positional: tuple[str, ...] | None = None
    names: Mapping[str, str] = field(default_factory=dict)
    rest: str | None = None
    reads: Reads | None = None


METHODS: dict[str, Method] = {
    "encode": Method(rest="fields", reads=Reads(MemoryTrace, wire.trace_from_json)),
    "neighbourhood": Method(positional=("trace_id", "limit")),
    "get": Method(reads=Reads(MemoryRecord, wire.record_from_json)),
    "list": Method(positional=("where",), reads=Reads(MemoryPage, wire.page_from_json)),
    "update": Method(reads=Reads(MemoryRecord, wire.record_from_json)),
    "history": Method(reads=Reads(MemoryRecord, wire.record_from_json, each=True)),
    "forget": Method(positional=("ids",), reads=Reads(ForgetReceipt, wire.forget_receipt_from_json)),
    "pin": Method(names={"ids": "trace_ids"}, reads=Reads(str, key="pinned", each=True)),
    "unpin": Method(names={"ids": "trace_ids"}, reads=Reads(str, key="unpinned", each=True)),
    "retrieve": Method(positional=("query", "top_k"), reads=Reads(RetrievalResult, wire.retrieval_from_json)),
    "assemble_for_prompt": Method(positional=("query", "token_budget"),
                                  reads=Reads(AssembledContext, wire.context_from_json)),
    "multi_hop": Method(positional=("query", "hops", "top_k", "where")),
    "remind": Method(reads=Reads(Intention, wire.intention_from_json)),
    "reminders": Method(reads=Reads(Intention, wire.intention_from_json, each=True)),
    "cancel_reminder": Method(reads=Reads(bool, key="cancelled")),
    "consolidation_report": Method(positional=("runs", "schemas", "members", "contradictions")),
    "repair": Method(positional=("reembed",)),
    "erase": Method(reads=Reads(EraseReceipt, wire.erase_receipt_from_json)),
    "users": Method(reads=Reads(str, key="users", each=True)),
}
"""The methods that differ from the default layout, by name."""

HAND_WRITTEN: dict[str, str] = {
    "whoami": "keeps the answer, which `visible_scope_keys` reads",
    "encode_many": "sends its items in batches, one `remember_many` request each",
    "export": "writes the streamed JSON Lines to a file as they arrive and returns the footer's counts",
    "export_user": "writes the streamed JSON Lines to a file as they arrive and returns the footer's counts",
}
"""The client methods written in `client/agent.py`, with why: not one request and one result."""

BODY_NAMES = frozenset({"self", "answer", "item", "arguments", "Send", "remote"})
"""Names a generated body uses: no parameter may take one."""


class Imports:
    """The imports the module needs: `run` for what the bodies call, `typing` for names only
    annotations use (imported for type checkers only, so loading the client loads no result
    type's module)."""

    def __init__(self) -> None:
        self.run: dict[str, set[str]] = {}
        self.typing: dict[str, set[str]] = {}

    def need(self, module: str, name: str | None = None, *, run: bool = False) -> None:
        (self.run if run else self.typing).setdefault(module, set()).update([name] if name else [])

    def block(self, which: dict[str, set[str]], indent: str = "") -> list[str]:
        """The import lines of `which`, grouped and ordered as ruff's isort orders them."""
        groups: list[list[str]] = [[], []]  # the standard library, then the package
        for module in sorted(which, key=lambda m: (bool(which[m]), m)):  # `import x` lines first
            group = groups[module.startswith("cogmem_graph")]
            names = sorted(which[module], key=lambda n: (not n.isupper(), not n[:1].isupper(), n))
            if not names:
                group.append(f"{indent}import {module}")
                continue
            line = f"{indent}from {module} import {', '.join(names)}"
            if len(line) > WIDTH:
                line = "\n".join([f"{indent}from {module} import (", *[f"{indent}    {n}," for n in names],
                                  f"{indent})"])
            group.append(line)
        return [line for lines in ([*g, ""] for g in groups if g) for line in lines][:-1]


def annotation(kind: Any, marks: typing.Sequence[Any], imports: Imports) -> str:
    """The parameter annotation for a field of type `kind`: what a Python caller may give,
    which is what its conversion (`arguments.converter_for`) takes."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is typing.Annotated:
        return annotation(args[0], [*marks, *args[1:]], imports)
    if origin is typing.Union or origin is types.UnionType:
        text = " | ".join(annotation(arg, marks, imports) for arg in args if arg is not type(None))
        return f"{text} | None" if type(None) in args else text
    convert = arguments.converter_for(kind, marks)
    if convert is arguments.epoch_ms:
        imports.need("datetime", "datetime")
        return "int | datetime | str"
    if convert is arguments.milliseconds:
        imports.need("datetime", "timedelta")
        return "int | timedelta"
    if convert is arguments.one_or_many:
        imports.need("collections.abc", "Sequence")
        return "str | Sequence[str]"
    if origin is Literal:
        return "str"  # as the facade takes it: a caller's str (or str enum) need not be the Literal
    if origin is list:
        imports.need("collections.abc", "Sequence")
        return f"Sequence[{annotation(args[0], (), imports)}]"
    if origin is dict:
        imports.need("collections.abc", "Mapping")
        return f"Mapping[{annotation(args[0], (), imports)}, {annotation(args[1], (), imports)}]"
    if kind is Any:
        imports.need("typing", "Any")
        return "Any"
    if kind in (str, int, float, bool):
        return kind.__name__
    if inspect.isclass(kind) and issubclass(kind, BaseModel):  # a filter, a mood: the model or a dict of its fields
        imports.need(kind.__module__, kind.__name__)
        imports.need("collections.abc", "Mapping")
        imports.need("typing", "Any")
        return f"{kind.__name__} | Mapping[str, Any]"
    if inspect.isclass(kind) and issubclass(kind, Enum):
        imports.need(kind.__module__, kind.__name__)
        return f"{kind.__name__} | str"
    raise TypeError(f"no client annotation for a field of type {kind!r}: add its rule to annotation()")


def default(value: Any) -> str:
    """A default as source: a list default is the empty tuple (a signature keeps no mutable default)."""
    if value is None or isinstance(value, bool | int | float):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list | tuple) and not value:
        return "()"
    raise TypeError(f"no source for the default {value!r}")


def result(op: Operation, reads: Reads | None, imports: Imports) -> tuple[str, list[str]]:
    """The method's result annotation and the lines that send the request and return the result."""
    if reads is None:
        imports.need("typing", "Any")
        if op.result is list:
            imports.need("builtins")
            return "builtins.list[Any]", ["answer: builtins.list[Any] = {send}", "return answer"]
        return "dict[str, Any]", ["answer: dict[str, Any] = {send}", "return answer"]
    kind = reads.type
    if kind.__module__ != "builtins":
        imports.need(kind.__module__, kind.__name__)
    read = reads.read
    if read is None:
        call = kind.__name__
    else:
        imports.need(read.__module__, read.__name__, run=True)
        call = read.__name__
    taken = "answer" if reads.key is None else f'answer["{reads.key}"]'
    if reads.each:
        imports.need("builtins")
        return f"builtins.list[{kind.__name__}]", ["answer = {send}", f"return [{call}(item) for item in {taken}]"]
    return kind.__name__, ["answer = {send}", f"return {call}({taken})"]


def signature_line(name: str, parameters: list[str], returns: str) -> list[str]:
    """`def name(...)`, on one line when it fits, otherwise one parameter a line."""
    line = f"    def {name}({', '.join(parameters)}) -> Plan[{returns}]:"
    if len(line) <= WIDTH:
        return [line]
    return [f"    def {name}(", *[f"        {p}," for p in parameters], f"    ) -> Plan[{returns}]:"]


def docstring(text: str) -> list[str]:
    if "\\" in text or '"""' in text or text.endswith('"'):
        raise ValueError(f"a description that cannot be a plain docstring: {text!r}")
    lines = textwrap.wrap(" ".join(text.split()), width=WIDTH - 3, initial_indent=' ' * 8 + '"""',
                          subsequent_indent=" " * 8, break_long_words=False, break_on_hyphens=False)
    lines[-1] += '"""'
    return lines


def method(op: Operation, imports: Imports) -> list[str]:
    """The source of `op`'s client method."""
    assert op.client is not None
    spec = METHODS.get(op.client, Method())
    fields: dict[str, FieldInfo] = dict(op.args.model_fields)
    where = f"{op.client} ({op.name})"
    unknown = (set(spec.positional or ()) | set(spec.names)) - set(fields)
    if unknown:
        raise ValueError(f"{where}: METHODS names fields {sorted(unknown)} its model does not have")
    positional = spec.positional if spec.positional is not None else tuple(
        name for name, f in fields.items() if f.is_required())
    keyword = [] if spec.rest else [name for name in fields if name not in positional]
    if spec.rest and [n for n in positional if not fields[n].is_required()]:
        raise ValueError(f"{where}: with `rest`, only required fields go by position")
    required = [fields[name].is_required() for name in positional]
    if required != sorted(required, reverse=True):
        raise ValueError(f"{where}: a required field cannot follow an optional one by position")
    parameters = ["self", "/"] if spec.rest else ["self"]
    sent: list[str] = []
    for index, name in enumerate([*positional, *keyword]):
        if index == len(positional):
            parameters.append("*")
        f = fields[name]
        own = spec.names.get(name, name)
        if own in BODY_NAMES or own == spec.rest:
            raise ValueError(f"{where}: a parameter may not be named {own!r}, which the body uses")
        text = f"{own}: {annotation(f.annotation, f.metadata, imports)}"
        if not f.is_required():
            text += f" = {default(f.get_default(call_default_factory=True))}"
        parameters.append(text)
        convert = arguments.converter_for(f.annotation, f.metadata)
        sent.append(f'"{name}": ' + (f'arguments.{convert.__name__}({own}, "{own}")' if convert else own))
    if spec.rest:
        imports.need("typing", "Any")
        parameters.append(f"**{spec.rest}: Any")
        sent.append(f'**arguments.converted("{op.name}", {spec.rest})')
    if any("arguments." in s for s in sent):
        imports.need("cogmem_graph.client", "arguments", run=True)
    returns, body = result(op, spec.reads, imports)
    send = f'yield Send("{op.name}", {{{", ".join(sent)}}})' if sent else f'yield Send("{op.name}")'
    lines = ["    @remote", *signature_line(op.client, parameters, returns), *docstring(op.description)]
    first = f"        {body[0].format(send=send)}"
    if len(first) > WIDTH:
        head = body[0].format(send=f'yield Send("{op.name}", {{')
        first = "\n".join([f"        {head}", *[f"            {s}," for s in sent], "        })"])
    return [*lines, first, *[f"        {line}" for line in body[1:]]]


def generated_methods() -> list[Operation]:
    """The entries whose client method this generator writes, in the table's order."""
    clients = {op.client for op in OPERATIONS.values() if op.client}
    strays = (set(METHODS) | set(HAND_WRITTEN)) - clients
    if strays:
        raise ValueError(f"METHODS or HAND_WRITTEN name {sorted(strays)}, which no entry's `client` names")
    if set(METHODS) & set(HAND_WRITTEN):
        raise ValueError(f"{sorted(set(METHODS) & set(HAND_WRITTEN))} is both generated and written by hand")
    chosen = [op for op in OPERATIONS.values() if op.client and op.client not in HAND_WRITTEN]
    streaming = [op.name for op in chosen if op.streams]
    if streaming:
        raise ValueError(f"{streaming} answer JSON Lines: their methods are written by hand (HAND_WRITTEN)")
    return chosen


HEADER = '''"""The `RemoteAgent` methods made from the operations table: one per entry naming `client`.

Written by `tools/generate_client.py` from `cogmem_graph/operations.py`: do not edit it; change
the table (or the generator's `METHODS`) and run `python tools/generate_client.py`.
`tests/unit/test_client_generated.py` fails when this file is not what the generator writes.

Each method is a plan (`client/plans.py`), run by `RemoteAgent` and `AsyncRemoteAgent`: its
parameters are its operation's argument fields, each converted by `client/arguments.py` as the
field's type says, and its result is the answer's JSON or what a reader of `client/wire.py`
makes of it. Written by hand in `client/agent.py`, as they are not one request and one result:
{hand_written}
"""'''


CLASS_DOC = '    """The methods of the table\'s entries, in its order; `RemoteMethods` adds those written by hand."""'


def source() -> str:
    """The text of `generated.py`."""
    imports = Imports()
    imports.need("cogmem_graph.client.plans", "Send", run=True)
    imports.need("cogmem_graph.client.plans", "remote", run=True)
    imports.need("cogmem_graph.client.plans", "Plan")
    bodies = [method(op, imports) for op in generated_methods()]
    imports.need("typing", "TYPE_CHECKING", run=True)
    hand = [f"- `{name}`: {why}." for name, why in HAND_WRITTEN.items()]
    lines = [HEADER.format(hand_written="\n".join(hand)), "", "from __future__ import annotations", ""]
    lines += [*imports.block(imports.run), "", "if TYPE_CHECKING:", *imports.block(imports.typing, "    ")]
    lines += ["", '__all__ = ["OperationMethods"]', "", "", "class OperationMethods:", CLASS_DOC]
    for body in bodies:
        lines += ["", *body]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the file is not what it would write")
    options = parser.parse_args(argv)
    text = source()
    if options.check:
        if TARGET.read_text(encoding="utf-8") != text:
            print(f"{TARGET.relative_to(ROOT)} is not what tools/generate_client.py writes: run it", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
