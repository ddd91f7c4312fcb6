"""A refused name says which one was meant: the literature's trait and mood names, and
close misspellings, point to this library's field."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

import cogmem_graph as cg


@pytest.mark.parametrize(("model", "given", "meant"), [
    (cg.Hexaco, "honesty_humility", "honesty"),
    (cg.Hexaco, "Honesty-Humility", "honesty"),
    (cg.Hexaco, "neuroticism", "emotionality"),
    (cg.Hexaco, "extroversion", "extraversion"),
    (cg.Hexaco, "conscientousness", "conscientiousness"),
    (cg.Mood, "pleasure", "valence"),
    (cg.Mood, "arousl", "arousal"),
    (cg.Mood, "control", "dominance"),
])
def test_an_unknown_field_names_the_one_meant(model, given: str, meant: str) -> None:
    with pytest.raises(ValidationError) as info:
        model.model_validate({given: 0.4})
    assert f"did you mean {meant!r}" in str(info.value)


def test_a_name_nothing_resembles_lists_the_fields() -> None:
    with pytest.raises(ValidationError) as info:
        cg.Mood.model_validate({"zzz": 0.1})
    assert "did you mean" not in str(info.value) and "valence, arousal, dominance" in str(info.value)


def test_an_empty_agent_id_is_one_line_naming_the_field(store: cg.MemoryStore) -> None:
    with pytest.raises(ValueError) as info:
        store.agent("")
    message = str(info.value)
    assert "agent_id" in message and "\n" not in message and "errors.pydantic.dev" not in message
    with pytest.raises(ValueError, match="user_id"):
        store.agent("helper", user_id="a/b")


def test_opening_a_home_with_another_embedder_says_which_made_its_vectors(tmp_path, caplog) -> None:
    home = tmp_path / "home"
    with cg.open(home=home, embedder="hash") as store:
        store.agent("a", user_id="u").encode("The boiler was serviced in March")
    with caplog.at_level("WARNING"), cg.open(home=home, embedder="hash:64") as store:
        pass
    warning = " ".join(r.getMessage() for r in caplog.records if r.levelname == "WARNING")
    assert "cogmem_hash-384_384" in warning and "hash-64" in warning and "not searchable" in warning
    caplog.clear()
    with caplog.at_level("WARNING"), cg.open(home=home, embedder="hash") as store:
        assert store.agent("a", user_id="u").retrieve("boiler serviced").traces
    assert not [r for r in caplog.records if "another embedder" in r.getMessage()]
