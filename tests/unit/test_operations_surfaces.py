"""The client's methods and the CLI's commands take each operation's arguments as its table
entry declares them: the same names (or a declared other name), the same defaults (or a
declared own default) and the same limits. The client methods generated from the table
(`tools/generate_client.py`) take the entry's fields by construction, and
`test_client_generated.py` fails when the generated module is stale; the few client methods
and the commands written by hand (a method streams or batches, a command words its options for
a shell) are what these tests keep from drifting from `cogmem_graph.operations`: change a
field's default or limit there and a method or an option that still says the old one fails here.
"""

from __future__ import annotations

import inspect
import io
from typing import Any

import pytest
import typer
from pydantic import ValidationError

from cogmem_graph.cli import app as cli_app
from cogmem_graph.client import RemoteAgent
from cogmem_graph.client.aio import AsyncRemoteAgent
from cogmem_graph.client.wire import BATCH
from cogmem_graph.operations import MAX_BATCH, OPERATIONS, Operation
from tests.client_generator import generator
from tests.operation_fields import EMPTY, beyond, bounds, default_of, field_of, same

# ---------------------------------------------------------------- the client

# A method's own name for an operation's argument, as the generator declares it (`METHODS`).
CLIENT_NAMES = {(client, own): name for client, method in generator().METHODS.items()
                for name, own in method.names.items()}
# A method's parameters that are no argument of its operation: how the client sends it.
CLIENT_ONLY = {("encode_many", "batch_size"), ("export", "out"), ("export_user", "out")}
CLIENT_ENTRIES = [pytest.param(op, id=op.name) for op in OPERATIONS.values() if op.client]


def client_parameters(op: Operation) -> dict[str, inspect.Parameter]:
    """The method's parameters by the argument each stands for; a `**fields` one under "**"."""
    assert op.client is not None
    found: dict[str, inspect.Parameter] = {}
    for name, parameter in inspect.signature(getattr(RemoteAgent, op.client)).parameters.items():
        if name == "self" or (op.client, name) in CLIENT_ONLY:
            continue
        key = "**" if parameter.kind is parameter.VAR_KEYWORD else CLIENT_NAMES.get((op.client, name), name)
        found[key] = parameter
    return found


@pytest.mark.parametrize("op", CLIENT_ENTRIES)
def test_each_client_method_takes_its_operation_s_arguments_and_defaults(op: Operation) -> None:
    parameters = client_parameters(op)
    forwards_the_rest = parameters.pop("**", None) is not None
    fields = op.args.model_fields
    assert set(parameters) <= set(fields), f"RemoteAgent.{op.client} takes what {op.name} does not"
    if not forwards_the_rest:
        assert set(parameters) == set(fields), f"RemoteAgent.{op.client} misses {set(fields) - set(parameters)}"
    for name, parameter in parameters.items():
        declared = default_of(fields[name])
        if declared is EMPTY:
            assert parameter.default is EMPTY, f"RemoteAgent.{op.client}({name}) has a default; {op.name} requires it"
        else:
            assert parameter.default is not EMPTY and same(parameter.default, declared), (
                f"RemoteAgent.{op.client}({name}={parameter.default!r}); the table's default is {declared!r}")


def test_the_async_client_has_the_same_methods_as_the_sync_one() -> None:
    for op in OPERATIONS.values():
        if op.client:
            sync = inspect.signature(getattr(RemoteAgent, op.client))
            assert inspect.signature(getattr(AsyncRemoteAgent, op.client)) == sync, op.client


class Sent(Exception):  # noqa: N818 - a signal, not an error
    pass


class Recorder(RemoteAgent):
    """A RemoteAgent whose transport records what a method sends and stops there."""

    def __init__(self) -> None:  # no HTTP client: nothing is sent
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self._whoami = None

    def call(self, op: str, args: Any = None, **options: Any) -> Any:
        self.sent.append((op, dict(args or {})))
        raise Sent  # the method's work ends here


REQUIRED_SAMPLES = {"ids": ["x1"], "items": [{"content": "x1"}], "out": io.StringIO(), "content": "x1"}


@pytest.mark.parametrize("op", [p for p in CLIENT_ENTRIES
                                if any(beyond(f) for f in p.values[0].args.model_fields.values())])
def test_each_client_method_sends_a_value_beyond_the_table_s_limit_as_given(op: Operation) -> None:
    """The client keeps no limit of its own: it neither clamps nor refuses, the table's model refuses."""
    parameters = client_parameters(op)
    by_argument = {name: p for name, p in parameters.items() if name != "**"}
    limited = {name: field for name, field in op.args.model_fields.items() if beyond(field)}
    assert op.client is not None
    checked = 0
    for name, field in limited.items():
        parameter = by_argument.get(name)
        if parameter is None and "**" not in parameters:
            continue
        keyword = parameter.name if parameter is not None else name
        for value in beyond(field):
            agent = Recorder()
            required = {p.name: REQUIRED_SAMPLES.get(n, "x1") for n, p in parameters.items()
                        if n != "**" and p.default is EMPTY and p.name != keyword}
            required.update({n: REQUIRED_SAMPLES[n] for n in ("out",)
                             if n in inspect.signature(getattr(RemoteAgent, op.client)).parameters})
            with pytest.raises(Sent):
                getattr(agent, op.client)(**required, **{keyword: value})
            sent_op, sent = agent.sent[-1]
            assert sent_op == op.name and sent[name] == value, f"RemoteAgent.{op.client} changed {name}={value}"
            with pytest.raises(ValidationError):
                op.args.model_validate({**{n: v for n, v in sent.items() if v is not None}, name: value})
            checked += 1
    assert checked, f"RemoteAgent.{op.client} takes none of {sorted(limited)}"


def test_a_method_made_from_the_table_sends_its_fields_with_the_model_s_defaults() -> None:
    agent = Recorder()
    with pytest.raises(Sent):
        agent.multi_hop("who", where={"tags_any": ["x"]})
    assert agent.sent[-1] == ("multi_hop", {"query": "who", "hops": None, "top_k": None,
                                            "where": {"tags_any": ["x"]}})
    with pytest.raises(Sent):
        agent.consolidation_report(schemas=3)
    assert agent.sent[-1] == ("consolidation_report", {"runs": 20, "schemas": 3, "members": 10, "contradictions": 50})
    with pytest.raises(TypeError, match="shemas"):
        agent.consolidation_report(shemas=3)  # a misspelt argument fails here, before any request
    with pytest.raises(ValueError, match="where.colour"):
        agent.multi_hop("who", where={"colour": 1})  # a filter is checked before it is sent
    description = OPERATIONS["consolidation_report"].description
    assert (RemoteAgent.consolidation_report.__doc__ or "").split() == description.split()


def test_the_client_s_batches_are_the_table_s() -> None:
    assert BATCH == MAX_BATCH


# ---------------------------------------------------------------- the CLI

# A command's own name for an operation's argument (filter options stand for fields of `where`).
CLI_NAMES = {
    ("recall", "no_reinforce"): "record_access",
    ("context", "budget"): "token_budget",
    ("pin", "trace_ids"): "ids", ("unpin", "trace_ids"): "ids", ("forget", "trace_ids"): "ids",
    ("list", "tags"): "tags_any", ("list", "types"): "type", ("list", "states"): "state", ("list", "scopes"): "scope",
    ("update", "memory_type"): "type",
    ("erase", "user"): "user_id", ("erase", "org"): "organization_id", ("users", "org"): "organization_id",
}
INVERTED = {("recall", "no_reinforce")}  # a flag saying "not" the argument
# A command's own default, where the table's is None ("the configured one") and the command
# shows the number it comes to.
CLI_DEFAULTS = {("recall", "top_k"): 10}
# A command's options that are no argument of its operation: how it reads, prints or pages.
CLI_ONLY = {"as_json", "json_out", "file", "fmt", "strict", "batch_size", "target", "memory_type", "scope",
            "user", "org"}
CLI_ENTRIES = [pytest.param(op, id=op.name) for op in OPERATIONS.values() if op.cli]


def cli_options(op: Operation) -> dict[str, Any]:
    """The command's parameters by the argument each stands for (the command's own ones left out)."""
    assert op.cli is not None
    command: Any = typer.main.get_command(cli_app)
    for word in op.cli.split():
        command = command.commands[word]
    found = {}
    for parameter in command.params:
        key = (op.cli, parameter.name)
        if key in CLI_NAMES:
            found[CLI_NAMES[key]] = parameter
        elif parameter.name in op.args.model_fields:
            found[parameter.name] = parameter
        else:
            assert parameter.name in CLI_ONLY, f"`cogmem {op.cli}` --{parameter.name} is no argument of {op.name}"
    return found


@pytest.mark.parametrize("op", CLI_ENTRIES)
def test_each_cli_command_takes_its_operation_s_arguments_with_its_defaults_and_limits(op: Operation) -> None:
    for name, parameter in cli_options(op).items():
        field = field_of(op, name)
        key = (op.cli, parameter.name)
        low, high = bounds(field)
        shown = (getattr(parameter, "min", None), getattr(parameter, "max", None))
        assert shown == (low, high), f"`cogmem {op.cli}` {parameter.name} takes {shown}; the table {(low, high)}"
        declared = default_of(field)
        if key in CLI_DEFAULTS:
            assert declared is None and parameter.default == CLI_DEFAULTS[key]
            assert low is None or low <= parameter.default, "the command's own default is within the table's limits"
            assert high is None or parameter.default <= high
        elif key in INVERTED:
            assert parameter.default is (not declared)
        elif declared is EMPTY:
            assert parameter.required or parameter.default is None, f"`cogmem {op.cli}` {name} is required"
        else:
            assert same(parameter.default, declared), (
                f"`cogmem {op.cli}` {parameter.name} defaults to {parameter.default!r}; the table's is {declared!r}")


def test_the_drift_tests_see_the_limits_they_compare() -> None:
    """The CLI check reads the bounds it compares (a test that read none would pass on anything)."""
    recall = cli_options(OPERATIONS["recall"])
    assert (recall["top_k"].min, recall["top_k"].max) == bounds(OPERATIONS["recall"].args.model_fields["top_k"])
    assert bounds(OPERATIONS["recall"].args.model_fields["top_k"]) == (1, 1000)
    assert bounds(OPERATIONS["remind"].args.model_fields["every"]) == (1, None)


def test_top_k_has_one_limit_on_every_surface() -> None:
    """REST, MCP, the client and the CLI take the table's limit; the facade's default limit
    (`RetrievalConfig.max_top_k`, which a deployment may lower) and the LangChain retriever's
    are the same declaration."""
    from cogmem_graph.config.retrieval import MAX_TOP_K, RetrievalConfig
    from cogmem_graph.integrations.langchain.retriever import CogmemRetriever

    limits = {(op.name, name): bounds(field)[1] for op in OPERATIONS.values()
              for name, field in op.args.model_fields.items() if name == "top_k"}
    assert len(limits) >= 3 and set(limits.values()) == {MAX_TOP_K}, limits
    assert RetrievalConfig().max_top_k == MAX_TOP_K
    with pytest.raises(ValidationError, match="max_top_k"):
        RetrievalConfig(max_top_k=MAX_TOP_K + 1)  # lowered by a deployment, never raised past the surfaces
    assert bounds(CogmemRetriever.model_fields["top_k"])[1] == MAX_TOP_K
    assert cli_options(OPERATIONS["recall"])["top_k"].max == MAX_TOP_K
