"""The dashboard's parts without a server: sessions expire and end, a revoked key ends its
sessions, the list's filter names the field it refuses, pages escape what users wrote,
and the setting turns `/ui` off."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from cogmem_graph.server.dashboard import forms, graph_page, pages, report_pages
from cogmem_graph.server.dashboard.routes import Dashboard
from cogmem_graph.server.dashboard.sessions import SessionStore, csrf_matches
from cogmem_graph.server.guards import RateLimiter
from cogmem_graph.server.keys import KeyRing


def test_a_session_ends_when_idle_past_its_lifetime_or_closed(monkeypatch) -> None:
    clock = [1000.0]
    monkeypatch.setattr("cogmem_graph.server.dashboard.sessions.time.monotonic", lambda: clock[0])
    sessions = SessionStore(idle_s=60, lifetime_s=300)
    token, session = sessions.open("k1")
    assert sessions.get(token) is session and sessions.get("guess") is None and sessions.get(None) is None
    clock[0] += 59
    assert sessions.get(token) is session  # seen again: its idle clock restarts
    clock[0] += 59
    assert sessions.get(token) is session
    clock[0] += 61
    assert sessions.get(token) is None
    token, _ = sessions.open("k1")
    for _ in range(6):
        clock[0] += 55
        sessions.get(token)
    assert sessions.get(token) is None, "a session busy all along still ends after its lifetime"
    token, _ = sessions.open("k1")
    sessions.close(token)
    assert sessions.get(token) is None


def test_sessions_are_bounded_and_their_tokens_random() -> None:
    sessions = SessionStore(max_sessions=3)
    opened = [sessions.open("k")[0] for _ in range(5)]
    assert len(sessions) == 3 and len(set(opened)) == 5
    assert sessions.get(opened[0]) is None and sessions.get(opened[-1]) is not None
    session = sessions.get(opened[-1])
    assert csrf_matches(session, session.csrf)
    assert not csrf_matches(session, "") and not csrf_matches(session, None) and not csrf_matches(session, "x")


def test_a_revoked_or_expired_key_has_no_principal(tmp_path: Path) -> None:
    keys = KeyRing(tmp_path / "keys.json")
    _, entry = keys.add(agent_id="helper", user_id="maya")
    dashboard = Dashboard(None, keys, max_body_bytes=1024, limiter=RateLimiter(None), bad_keys=None)  # type: ignore[arg-type]
    _, session = dashboard.sessions.open(entry.key_id)
    principal = dashboard.principal_of(session)
    assert principal is not None and principal.identity.user_id == "maya"
    keys.revoke(entry.key_id)
    assert dashboard.principal_of(session) is None


def test_the_filter_form_becomes_a_memory_filter_and_names_what_it_refuses() -> None:
    form = {"type": ["semantic", ""], "state": ["active"], "tags": ["infra, ops ,"], "metadata": ["team=core"],
            "created_after": ["2026-01-02"], "q": [""]}
    assert forms.where_of(form) == {"type": ["semantic"], "state": ["active"], "tags_any": ["infra", "ops"],
                                    "metadata": {"team": "core"}, "created_after": 1767312000000}
    assert forms.where_of({}) is None
    for name, value in (("created_before", "02/01/2026"), ("metadata", "team"), ("tags", "x" * 3000)):
        with pytest.raises(ValueError, match=f"^{name}:"):
            forms.where_of({name: [value]})


def test_pages_write_what_users_wrote_as_text() -> None:
    evil = '"><script>alert(1)</script>'
    trace = {"id": 'mt_"x', "content": evil, "tags": [evil], "metadata": {"k": evil}, "type": "episodic",
             "scope": "user", "pinned": False, "created_at": 0, "recorded_at": 0}
    record = {"trace": trace, "state": "active", "version": 1}
    hood = {"edges": [{"src": 'mt_"x', "dst": "mt_2", "type": "SHARED_ENTITY", "weight": 0.5}],
            "neighbours": [{"id": "mt_2", "content": evil}]}
    html = pages.memory(record, hood, [record], csrf='c"srf', may_change=True)
    html += pages.memory_list({"q": [evil]}, {"items": [record]}, None)
    html += pages.search_results({"tags": [evil]}, {"traces": [{"trace": trace, "score": 0.5,
                                                                "signals": {evil: 0.3}}]})
    html += pages.forget_confirm(record, hood, 1, csrf="t")
    html += pages.layout(evil, "", who={"role": "agent", "key_id": evil, "identity": {"user_id": evil}}, csrf="t")
    html += pages.graph({"trace": trace, **hood}, {"nodes": 2, "relationships": 1}, 25, "")
    html += report_pages.consolidation({"runs": [{"at": 0, "trigger": evil, "counts": {"merged": 1}}],
                                        "schemas": [{"summary": evil, "size": 1, "members": [{"id": evil,
                                                                                              "content": evil}]}],
                                        "contradictions": [{"winner": evil, "winnerContent": evil, "loser": "b",
                                                            "loserContent": evil}],
                                        "open_contradictions": [{"a": evil, "aContent": evil, "b": "b"}]})
    html += report_pages.reminders([{"content": evil, "kind": "event_based", "keywords": [evil]},
                                    {"content": evil, "kind": "context_based", "cue": evil}])
    html += report_pages.stats({"traces_by_type": {evil: 1}, "edges_by_type": {evil: 2}}, {"store": {}})
    assert "<script" not in html and "&lt;script&gt;" in html
    assert 'value="c&quot;srf"' in html and "/ui/memories/mt_%22x" in html


def test_the_as_of_day_narrows_the_list_to_what_held_true_then() -> None:
    end_of_day = 1767398399999  # 2026-01-02 23:59:59.999 UTC
    where = forms.listing_where({"as_of": ["2026-01-02"], "type": ["semantic"]})
    assert where == {"type": ["semantic"], "valid_after": end_of_day, "valid_before": end_of_day + 1,
                     "created_before": end_of_day + 1}
    assert forms.as_of_ms({"as_of": ["2026-01-02"]}) == end_of_day and forms.as_of_ms({}) is None
    assert forms.listing_where({"created_before": ["2025-01-01"], "as_of": ["2026-01-02"]})["created_before"] \
        == 1735689600000
    with pytest.raises(ValueError, match="^as_of:"):
        forms.as_of_ms({"as_of": ["now"]})


def test_the_graph_page_policy_allows_its_own_nonce_only() -> None:
    first, second = graph_page.new_nonce(), graph_page.new_nonce()
    assert first != second and len(first) >= 20
    policy = graph_page.graph_csp(first)
    assert f"script-src 'nonce-{first}';" in policy and "unsafe" not in policy and "http" not in policy
    body = graph_page.graph_body('{"nodes": []}', first, "neo4j-viz-abc", "mt_<1>")
    assert f'<script type="module" nonce="{first}" src="/ui/static/nvl.js">' in body
    assert f'<script type="module" nonce="{first}" src="/ui/static/graph.js">' in body
    assert '<div id="neo4j-viz-abc" class="graph" data-centre="mt_&lt;1&gt;">' in body


def test_the_nvl_bundle_comes_out_of_neo4j_viz_and_the_graph_data_is_escaped() -> None:
    assets = graph_page.nvl_assets()
    assert assets.container_id.encode() in assets.script and b"neo4j-viz-data" in assets.script
    assert b"</script" not in assets.script.lower() and assets.style
    model, element = graph_page.RENDER.findall(assets.script.decode())[-1]
    assert assets.script.rstrip().endswith(
        f'{model}.on("change:last_event",()=>{element}.dispatchEvent(new CustomEvent("{graph_page.EVENT}",'
        f'{{detail:{model}.get("last_event")}})));'.encode()), "NVL's clicks reach the page as DOM events"
    with pytest.raises(RuntimeError, match="neo4j-viz version"):
        graph_page.with_click_events("createRoot(el).render(widget);")
    evil = "</script><script>alert(1)</script>"
    centre = {"id": "mt_1", "content": evil, "type": "episodic"}
    data, counts = graph_page.graph_data(centre, {
        "edges": [{"src": "mt_1", "dst": "mt_2", "type": "SAME_TOPIC", "weight": 0.5},
                  {"src": "mt_1", "dst": "gone", "type": "SAME_TOPIC", "weight": 1}],
        "neighbours": [{"id": "mt_2", "content": "Biscuit", "type": "semantic"}]})
    assert counts == {"nodes": 2, "relationships": 1, "groups": {}, "expanded": {}}, \
        "an edge to a node not drawn is left out"
    assert "<" not in data and "Biscuit" in data and "\\u003c/script>" in data


def test_repeated_edges_of_one_type_are_drawn_as_one_group_until_expanded() -> None:
    import json

    centre = {"id": "c", "content": "Maya", "type": "episodic"}
    many = graph_page.GROUP_AT + 3
    hood = {"edges": [{"src": "c", "dst": f"n{i}", "type": "SHARED_ENTITY", "weight": 0.5} for i in range(many)]
            + [{"src": "n0", "dst": "c", "type": "SAME_TOPIC", "weight": 0.4}],
            "neighbours": [{"id": f"n{i}", "content": f"memory {i}", "type": "episodic"} for i in range(many)]}
    data, counts = graph_page.graph_data(centre, hood)
    drawn = json.loads(data)
    assert counts["groups"] == {"SHARED_ENTITY": many}
    assert {n["id"] for n in drawn["nodes"]} == {"c", "n0", "group:SHARED_ENTITY"}, "n0 has an edge of its own"
    assert [r["caption"] for r in drawn["relationships"]] == ["SAME_TOPIC 0.40", f"{many} × SHARED_ENTITY"]
    data, counts = graph_page.graph_data(centre, hood, ["SHARED_ENTITY"])
    assert counts["groups"] == {} and len(json.loads(data)["relationships"]) == many + 1
    assert counts["expanded"] == {"SHARED_ENTITY": many}


def test_the_graph_page_links_each_group_and_each_expanded_type_by_name() -> None:
    centre = {"id": "c", "content": "Maya", "type": "episodic"}
    hood = {"trace": centre, "neighbours": []}
    page = pages.graph(hood, {"groups": {"SHARED_ENTITY": 7}, "expanded": {"SAME_TOPIC": 5}}, 25, "", ["SAME_TOPIC"])
    assert ('<a class="group" data-group="SHARED_ENTITY" '
            'href="/ui/memories/c/graph?expand=SAME_TOPIC&amp;expand=SHARED_ENTITY">7 × SHARED_ENTITY</a>') in page
    assert ('<a class="collapse" data-group="SAME_TOPIC" href="/ui/memories/c/graph">'
            'Group the 5 SAME_TOPIC edges again</a>') in page
    assert "collapse" not in pages.graph(hood, {"groups": {"SHARED_ENTITY": 7}}, 25, ""), "nothing expanded"


def test_the_graph_data_is_what_neo4j_viz_itself_would_write() -> None:
    import json

    from cogmem_graph.viz import neighbourhood_graph

    centre = {"id": "mt_1", "content": "Maya deploys with Docker", "type": "episodic", "encoding_strength": 0.5,
              "created_at": 1_700_000_000_000}
    hood = {"edges": [{"src": "mt_1", "dst": "mt_2", "type": "SHARED_ENTITY", "weight": 0.5}],
            "neighbours": [{"id": "mt_2", "content": "Biscuit <b>", "type": "semantic"}]}
    data, _ = graph_page.graph_data(centre, hood)
    graph, _ = neighbourhood_graph(centre, hood["edges"], hood["neighbours"])
    page = graph.render(height=graph_page.HEIGHT, theme=graph_page.THEME).data
    assert json.loads(data) == json.loads(graph_page._data_block(page))


def _app(tmp_path: Path, dashboard: bool, keys: KeyRing | None = None) -> TestClient:
    from cogmem_graph.server.app import ServerSettings, create_app

    class Unused:
        closed = False

    app = create_app(Unused(), keys or KeyRing(tmp_path / "keys.json"),  # type: ignore[arg-type]
                     ServerSettings(consolidate_every_s=0, dashboard=dashboard))
    return TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)


def test_the_setting_turns_the_dashboard_off(tmp_path: Path) -> None:
    on = _app(tmp_path, True).get("/ui/login")
    assert on.status_code == 200 and 'name="key"' in on.text and on.headers["x-frame-options"] == "DENY"
    off = _app(tmp_path, False).get("/ui/login")
    assert off.status_code == 401 and "key" not in off.text.split("error")[0]


def test_on_a_loopback_address_only_loopback_host_names_reach_the_dashboard(tmp_path: Path) -> None:
    client = _app(tmp_path, True)
    for host in ("127.0.0.1:8765", "localhost", "[::1]:8765"):
        assert client.get("/ui/login", headers={"Host": host}).status_code == 200, host
    for host in ("evil.example:8765", "127.0.0.1.evil.example"):
        assert client.get("/ui/login", headers={"Host": host}).status_code == 403, host


def test_a_keys_pages_count_towards_its_rate(tmp_path: Path) -> None:
    keys = KeyRing(tmp_path / "keys.json")
    key, _ = keys.add(agent_id="helper", rate_per_second=1)
    client = _app(tmp_path, True, keys)
    login = client.post("/ui/login", data={"key": key}, headers={"Origin": "http://127.0.0.1"}, follow_redirects=False)
    assert login.status_code == 303
    answers = [client.get("/ui/", follow_redirects=False).status_code for _ in range(4)]
    assert answers[0] == 303 and 429 in answers, answers
