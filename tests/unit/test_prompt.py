import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from cogmem_graph.clock import ManualClock
from cogmem_graph.cognition.prompt import (
    PromptItem,
    PromptSections,
    PromptStyle,
    assemble_prompt,
    cut_to_fit,
    estimate_tokens,
    prompt_style,
    section_budgets,
)
from cogmem_graph.cognition.working_memory import WorkingMemory
from cogmem_graph.config.prompt import SECTION_NAMES, PromptConfig
from cogmem_graph.model import Hexaco

# ---------------------------------------------------------------- tokens and budgets


def test_estimate_tokens_four_chars_per_token():
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1  # 4 / 4
    assert estimate_tokens("abcde") == 2  # ceil(5 / 4)
    assert estimate_tokens("a" * 10, chars_per_token=2.5) == 4  # 10 / 2.5


def test_default_split():
    assert PromptConfig().token_budget == 1000
    # 1000 x (0.15, 0.45, 0.25, 0.05, 0.05, 0.05)
    assert section_budgets(1000) == {
        "working_memory": 150,
        "semantic_recall": 450,
        "recent_episodic": 250,
        "prospective_alerts": 50,
        "graph_associations": 50,
        "observation_notes": 50,
    }
    # 30 x fractions: 4.5, 13.5, 7.5, 1.5, 1.5, 1.5 -> floors 4, 13, 7, 1, 1, 1 (27; 3 pooled)
    assert sum(section_budgets(30).values()) == 27


# ---------------------------------------------------------------- layout, hand computed


def test_single_short_section():
    out = assemble_prompt(PromptSections(semantic_recall=[PromptItem("hello")]))
    # "## Relevant Memories" (20) + "\n" + "- hello" (7) = 28 chars -> ceil(28/4) = 7 tokens
    assert out.text == "## Relevant Memories\n- hello"
    assert out.tokens_used == 7
    assert out.token_budget == 1000
    usage = out.sections["semantic_recall"]
    # the section is charged its separator too: 28 + 2 = 30 chars -> 8 tokens
    assert (usage.tokens_used, usage.items_included, usage.truncated) == (8, 1, False)
    assert out.sections["working_memory"].items_total == 0


def test_empty_sections_give_their_budget_to_semantic_recall():
    items = [PromptItem("x" * 50) for _ in range(10)]
    out = assemble_prompt(PromptSections(semantic_recall=items), token_budget=100)
    # own share 45 tokens; the five empty sections return 15+25+5+5+5 = 55 -> 100 tokens = 400 chars.
    # block cost: header 20 + separator 2 = 22, each line 1 + 52 = 53: 22 + 7*53 = 393 <= 400,
    # an 8th line would leave 400 - 393 - 1 - "- " - "…" = 4 chars < 16, so it is dropped.
    usage = out.sections["semantic_recall"]
    assert usage.items_included == 7 and usage.truncated
    assert usage.tokens_used == 99  # ceil(393 / 4)
    assert out.tokens_used == 98  # text is 391 chars (no trailing separator): ceil(391 / 4)
    # without the overflow only (180 - 22) // 53 = 2 items would have fit in 45 tokens
    assert out.text.count("\n- ") == 7


def test_unused_budget_flows_to_semantic_recall_first():
    big = [PromptItem("y" * 100) for _ in range(20)]
    out = assemble_prompt(
        PromptSections(working_memory=["- a"], semantic_recall=big, recent_episodic=big), token_budget=100
    )
    # working memory: "## Active Context" 17 + 1 + 3 + 2 = 23 chars -> 6 of its 15 tokens (9 back);
    # reminders, associations, observations empty: 5 + 5 + 5 back -> pool 24, all to semantic recall.
    budgets = {name: usage.budget for name, usage in out.sections.items()}
    assert budgets == {
        "working_memory": 6,
        "semantic_recall": 69,  # 45 + 24
        "recent_episodic": 25,  # its own share only
        "prospective_alerts": 0,
        "graph_associations": 0,
        "observation_notes": 0,
    }
    # semantic: 69 tokens = 276 chars; 22 + 2*103 = 228, 3rd line cut to 276-228-1-2-1 = 44 chars
    blocks = out.text.split("\n\n")
    lines = blocks[1].split("\n")
    assert lines[1:3] == ["- " + "y" * 100] * 2
    assert lines[3] == "- " + "y" * 44 + "…"
    # episodic: 25 tokens = 100 chars; "## Recent Experiences" 21 + 2 = 23; cut to 100-23-1-2-1 = 73
    assert blocks[2] == "## Recent Experiences\n- " + "y" * 73 + "…"
    # text: 23 + 276 + 100 = 399 chars charged, minus the last block's unused separator (2)
    # = 397 chars -> ceil(397 / 4) = 100 tokens
    assert len(out.text) == 397 and out.tokens_used == 100


def test_truncates_a_huge_item_instead_of_showing_nothing():
    out = assemble_prompt(PromptSections(semantic_recall=[PromptItem("z" * 1000)]), token_budget=20)
    # 20 tokens = 80 chars: 80 - 22 (header + separator) - 1 (newline) - 2 ("- ") - 1 ("…") = 54
    assert out.text == "## Relevant Memories\n- " + "z" * 54 + "…"
    assert len(out.text) == 78 and out.tokens_used == 20
    assert out.sections["semantic_recall"].truncated


def test_zero_and_tiny_budgets():
    sections = PromptSections(semantic_recall=[PromptItem("fact")])
    assert assemble_prompt(sections, token_budget=0).text == ""
    tiny = assemble_prompt(sections, token_budget=5)  # 20 chars cannot hold header + line
    assert tiny.text == "" and tiny.tokens_used == 0
    assert tiny.sections["semantic_recall"].truncated


def test_whitespace_is_folded_and_empty_items_skipped():
    out = assemble_prompt(PromptSections(observation_notes=[PromptItem("a\n\n  b\tc"), PromptItem("   ")]))
    assert out.text == "## Observations\n- a b c"


def test_working_memory_block_feeds_the_first_section():
    wm = WorkingMemory(clock=ManualClock())
    wm.focus("mt_1", "deploy")
    sections = PromptSections(
        working_memory=wm.format_for_prompt(),
        semantic_recall=[PromptItem("User prefers TypeScript", "semantic", 0.82)],
        recent_episodic=[PromptItem("Discussed deployment on Tuesday", "episodic", 0.71)],
        prospective_alerts=[PromptItem("PR review is due", "time_based")],
        graph_associations=[PromptItem("CI/CD discussion", "associated", 0.45, score_label="activation")],
        observation_notes=["- User asks follow-ups about errors"],
    )
    out = assemble_prompt(sections, traits=Hexaco(conscientiousness=0.9))
    assert out.style is PromptStyle.STRUCTURED
    assert out.text == (
        "## Active Context\n- [ACTIVE] mt_1 (activation: 0.80): deploy\n\n"
        "## Relevant Memories\n- [semantic, score=0.82] User prefers TypeScript\n\n"
        "## Recent Experiences\n- [episodic, score=0.71] Discussed deployment on Tuesday\n\n"
        "## Reminders\n- [time_based] PR review is due\n\n"
        "## Related Context\n- [associated, activation=0.45] CI/CD discussion\n\n"
        "## Observations\n- User asks follow-ups about errors"
    )
    assert out.tokens_used == estimate_tokens(out.text)
    assert all(u.items_included == u.items_total for u in out.sections.values())


# ---------------------------------------------------------------- style


@pytest.mark.parametrize(
    ("traits", "style"),
    [
        (None, PromptStyle.PLAIN),
        (Hexaco(), PromptStyle.PLAIN),  # all 0.5: honesty wins the tie -> plain
        (Hexaco(conscientiousness=0.9), PromptStyle.STRUCTURED),
        (Hexaco(openness=0.9), PromptStyle.NARRATIVE),
        (Hexaco(emotionality=0.9), PromptStyle.EMOTIONAL),
        (Hexaco(extraversion=0.9), PromptStyle.PLAIN),
    ],
)
def test_style_follows_dominant_trait(traits, style):
    assert prompt_style(traits) is style


def test_forced_style_overrides_traits():
    assert prompt_style(Hexaco(openness=0.9), PromptConfig(style="structured")) is PromptStyle.STRUCTURED


def test_item_formats_per_style():
    item = PromptItem("Lost the demo", "episodic", 0.71, valence=-0.6)
    sections = PromptSections(recent_episodic=[item])

    def body(traits):
        return assemble_prompt(sections, traits=traits).text.split("\n", 1)[1]

    assert body(Hexaco(conscientiousness=0.9)) == "- [episodic, score=0.71] Lost the demo"
    assert body(Hexaco(emotionality=0.9)) == "- [episodic, score=0.71, feeling: negative] Lost the demo"
    assert body(Hexaco(openness=0.9)) == "I remember: Lost the demo (episodic, score=0.71)"
    assert body(None) == "- Lost the demo"


# ---------------------------------------------------------------- properties

entry = st.one_of(
    st.builds(
        PromptItem,
        text=st.text(max_size=300),
        kind=st.sampled_from(["", "semantic", "episodic", "time_based"]),
        score=st.none() | st.floats(-1, 1),
        valence=st.none() | st.floats(-1, 1),
    ),
    st.text(max_size=200),
)
unit = st.floats(min_value=0.0, max_value=1.0)
traits_st = st.none() | st.builds(Hexaco, honesty=unit, emotionality=unit, extraversion=unit,
                                  agreeableness=unit, conscientiousness=unit, openness=unit)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])  # big inputs, busy CI
@given(
    st.fixed_dictionaries({name: st.lists(entry, max_size=8) for name in SECTION_NAMES}),
    st.integers(0, 1500),
    traits_st,
    st.floats(min_value=0.5, max_value=10.0),
)
def test_never_exceeds_the_budget(content, budget, traits, cpt):
    cfg = PromptConfig(chars_per_token=cpt)
    out = assemble_prompt(PromptSections(**content), token_budget=budget, traits=traits, config=cfg)
    assert out.tokens_used <= budget
    assert out.tokens_used == estimate_tokens(out.text, cpt)
    assert sum(u.tokens_used for u in out.sections.values()) <= budget
    assert all(u.tokens_used <= u.budget for u in out.sections.values())


@given(st.fixed_dictionaries({name: st.lists(entry, max_size=4) for name in SECTION_NAMES}))
def test_ample_budget_includes_everything(content):
    out = assemble_prompt(PromptSections(**content), token_budget=1_000_000)
    for name, usage in out.sections.items():
        shown = [e for e in content[name] if (e if isinstance(e, str) else e.text).split()]
        assert usage.items_included == len(shown)


# ---------------------------------------------------------------- invalid input and config


def test_invalid_prompt_config_names_the_field():
    with pytest.raises(ValidationError, match="budget_split fractions .* must sum to 1"):
        PromptConfig(budget_split={"semantic_recall": 0.5})  # 0.15+0.5+0.25+0.05*3 = 1.05
    with pytest.raises(ValidationError) as err:
        PromptConfig(budget_split={"working_memory": -0.15, "semantic_recall": 0.75})
    assert err.value.errors()[0]["loc"] == ("budget_split", "working_memory")
    with pytest.raises(ValidationError) as err:
        PromptConfig(budget_split={"recent_episodic": float("nan")})
    assert err.value.errors()[0]["loc"] == ("budget_split", "recent_episodic")
    with pytest.raises(ValidationError) as err:
        PromptConfig(chars_per_token=0)
    assert err.value.errors()[0]["loc"] == ("chars_per_token",)
    with pytest.raises(ValidationError, match="overflow_order"):
        PromptConfig(overflow_order=("semantic_recall", "schemas"))
    with pytest.raises(ValidationError, match="style"):
        PromptConfig(style="poetic")
    # a valid custom split
    cfg = PromptConfig(budget_split={"semantic_recall": 0.40, "observation_notes": 0.10})
    assert section_budgets(100, cfg)["observation_notes"] == 10


def test_invalid_arguments():
    with pytest.raises(ValueError, match="token_budget"):
        assemble_prompt(PromptSections(), token_budget=-1)
    with pytest.raises(ValueError, match="PromptItem.score"):
        PromptItem("x", score=float("nan"))
    with pytest.raises(ValueError, match="semantic_recall"):
        PromptSections(semantic_recall=[42])


# ---------------------------------------------------------------- cutting and notes


def test_cut_to_fit_ends_at_a_sentence_or_between_words():
    text = "The deploy runs at noon. Staging goes first, then the canary region."
    assert cut_to_fit(text, 200) == text
    assert cut_to_fit(text, 40) == "The deploy runs at noon. …"  # the last whole sentence
    assert cut_to_fit("Staging goes first, then the canary region.", 30) == "Staging goes first, then the…"
    assert cut_to_fit("z" * 80, 20) == "z" * 19 + "…"  # no boundary to cut at
    for n in range(1, len(text) + 2):
        assert len(cut_to_fit(text, n)) <= n


def test_a_cut_item_keeps_its_note_and_a_reference_shows_among_the_tags():
    item = PromptItem("Staging goes first, then the canary region, then every region one at a time.",
                      note="outdated: replaced on 2026-03-06 by the line above")
    out = assemble_prompt(PromptSections(semantic_recall=[item]), token_budget=30)
    line = out.text.splitlines()[1]
    assert line.endswith("… (outdated: replaced on 2026-03-06 by the line above)")
    assert line.startswith("- Staging goes first") and ", then…" not in line
    tagged = PromptItem("Lost the demo", "episodic", 0.71, ref="mt_1")
    body = assemble_prompt(PromptSections(recent_episodic=[tagged])).text.split("\n", 1)[1]
    assert body == "- [mt_1, score=0.71] Lost the demo"  # plain style: tags only with a reference
    structured = assemble_prompt(PromptSections(recent_episodic=[tagged]), traits=Hexaco(conscientiousness=0.9))
    assert structured.text.split("\n", 1)[1] == "- [episodic, score=0.71, mt_1] Lost the demo"


def test_far_below_best_is_relative_to_the_best_score() -> None:
    from cogmem_graph.cognition.prompt import far_below_best

    assert far_below_best([0.6, 0.5, 0.2, 0.08], 0.25) == [False, False, False, True]
    assert far_below_best([0.06, 0.05, 0.01], 0.25) == [False, False, True]
    assert far_below_best([0.6, 0.08], 0.0) == [False, False]
    assert far_below_best([], 0.25) == [] and far_below_best([0.0, 0.0], 0.25) == [False, False]
