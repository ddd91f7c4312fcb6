"""`InvalidArgument`: the package's refusal of a caller's argument names it (`.argument`) and is
still a ValueError, whether the facade checks the argument itself or a model's validator does."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.filters import as_filter
from cogmem_graph.write.request import as_request


def test_a_filter_field_is_named_by_its_path() -> None:
    with pytest.raises(cg.InvalidArgument) as refused:
        as_filter({"created_after": "yesterday"})
    assert refused.value.argument == "where.created_after"
    assert isinstance(refused.value, ValueError) and isinstance(refused.value, cg.CogmemError)
    assert str(refused.value).startswith("where is not a valid filter: where.created_after")


def test_an_encode_item_is_named_by_its_index_and_field() -> None:
    with pytest.raises(ValueError) as refused:  # `except ValueError` still catches it
        as_request({"content": "x", "confidence": 2}, 3)
    assert isinstance(refused.value, cg.InvalidArgument) and refused.value.argument == "items[3].confidence"
    with pytest.raises(cg.InvalidArgument) as kind:
        as_request("not a mapping", 0)
    assert kind.value.argument == "items[0]"


def test_the_message_always_names_the_argument() -> None:
    assert str(cg.InvalidArgument("must be positive", argument="top_k")) == "top_k: must be positive"
    assert str(cg.InvalidArgument("top_k must be positive", argument="top_k")) == "top_k must be positive"


def test_an_identity_the_store_refuses_names_its_field() -> None:
    from cogmem_graph.identity import AgentIdentity

    with pytest.raises(cg.InvalidArgument) as refused:
        AgentIdentity(agent_id="a1", user_id="u1").scope_id("thread")
    assert refused.value.argument == "scope" and "thread_id" in str(refused.value)


# ---------------------------------------------------------------- no plain ValueError for bad input

PACKAGE = Path(cg.__file__).parent

INTERNAL = {
    ("operations.py", "__post_init__"): "checks the operations table's own declarations, at import",
    ("operations.py", "_table"): "checks the operations table's own declarations, at import",
    ("context.py", "visible_scope_keys"): "an owner context reaching an agent-only step is the package's fault",
    ("context.py", "caller"): "an owner context reaching an agent-only step is the package's fault",
    ("integrations/crewai/memory.py", "reset"): "refuses the operation itself, whatever its argument",
    ("cognition/encoding.py", "initial_strength"): "multiplies factors the package computed and checked",
    ("cognition/scoring.py", "__post_init__"): "the signal table the read path builds, not a caller's",
    ("cognition/observation.py", "_unit"): "parses the observer model's answer, not a caller's argument",
    ("cognition/observation.py", "_names"): "parses the observer model's answer, not a caller's argument",
    ("cognition/observation.py", "_index"): "parses the observer model's answer, not a caller's argument",
    ("cognition/observation.py", "parse_observer_answer"): "parses the model's answer, not a caller's argument",
    ("cognition/observation.py", "parse_reflector_answer"): "parses the model's answer, not a caller's argument",
    ("cognition/perspective.py", "parse_rewrite"): "parses the model's answer, not a caller's argument",
    ("language/caseless.py", "lowered_letters"): "compiles the package's own patterns, at import",
}
"""Functions whose plain ValueError no caller's input raises, with why."""

VALIDATORS = {"field_validator", "model_validator"}
"""A pydantic validator raises ValueError by design: pydantic turns it into a ValidationError
naming the field (and `model_from` into an `InvalidArgument`)."""


def _is_value_error(node: ast.expr | None) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return isinstance(target, ast.Name) and target.id == "ValueError"


def _catches_value_error(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(k, ast.Name) and k.id in {"ValueError", "Exception"} for k in kinds)


def _plain_value_errors(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, enclosing function) of each `raise ValueError` that can leave its function: not in
    a pydantic validator, not inside a `try` that catches it itself."""
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST, function: str, caught: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner, inner_caught = function, caught
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                decorators = {ast.unparse(d.func if isinstance(d, ast.Call) else d).rsplit(".", 1)[-1]
                              for d in child.decorator_list}
                if decorators & VALIDATORS:
                    continue
                inner, inner_caught = child.name, False
            if isinstance(child, ast.Try) and any(_catches_value_error(h) for h in child.handlers):
                for statement in child.body:
                    visit(statement, inner, True)
                for part in (*child.handlers, *child.orelse, *child.finalbody):
                    visit(part, inner, inner_caught)
                continue
            if isinstance(child, ast.Raise) and _is_value_error(child.exc) and not inner_caught:
                found.append((child.lineno, inner))
            visit(child, inner, inner_caught)

    visit(tree, "<module>", False)
    return found


def test_bad_input_is_refused_with_invalid_argument_not_a_plain_value_error() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        for line, function in _plain_value_errors(ast.parse(path.read_text(encoding="utf-8"))):
            if (relative, function) not in INTERNAL:
                offenders.append(f"{relative}:{line} in {function}")
    assert not offenders, (
        "a caller's bad argument is an InvalidArgument(message, argument=name), which the server "
        "answers 400 (a plain ValueError is a 500); if no caller input can reach it, add the function "
        f"to INTERNAL with the reason: {offenders}")


def test_every_internal_exception_still_raises_a_plain_value_error() -> None:
    """A listed function that no longer raises one must leave the list, so it cannot hide one later."""
    raising = set()
    for relative, _ in INTERNAL:
        tree = ast.parse((PACKAGE / relative).read_text(encoding="utf-8"))
        raising |= {(relative, function) for _, function in _plain_value_errors(tree)}
    assert set(INTERNAL) <= raising, sorted(set(INTERNAL) - raising)


def test_adapters_name_the_argument_they_refuse() -> None:
    from cogmem_graph.clock import ManualClock
    from cogmem_graph.providers.embedders import HashEmbedder, make_embedder

    with pytest.raises(cg.InvalidArgument) as dim:
        HashEmbedder(4)
    assert dim.value.argument == "dim" and "embedder" in str(dim.value)
    with pytest.raises(cg.InvalidArgument) as spec:
        make_embedder("nonsense:1:2:3")
    assert spec.value.argument == "spec"
    with pytest.raises(cg.InvalidArgument) as backwards:
        ManualClock(1_000).advance(-1)
    assert backwards.value.argument == "ms" and "backwards" in str(backwards.value)


def test_a_key_the_key_ring_refuses_names_its_field(tmp_path: Path) -> None:
    from cogmem_graph.server.keys import KeyRing

    ring = KeyRing(tmp_path / "keys.json")
    with pytest.raises(cg.InvalidArgument) as role:
        ring.add(role="superuser", agent_id="a1")
    assert role.value.argument == "role"
