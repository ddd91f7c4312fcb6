"""The dashboard at /ui through a real HTTP client against a real `cogmem serve`: the
login exchanges a key for a session cookie, each key sees only its own memories, every
change needs the session's CSRF token from the dashboard's own origin, content is
escaped, and an owner key sees counts, not content."""

from __future__ import annotations

import re
from contextlib import closing

import httpx
import pytest

from .dashboard_harness import CSRF, XSS, logged_in
from .server_harness import auth

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


def test_login_sets_an_httponly_strict_cookie_that_is_not_the_key(seeded) -> None:
    url, key = seeded.server.url, seeded.keys["maya"]
    with httpx.Client(base_url=url) as client:
        assert client.get("/ui/memories").headers["location"] == "/ui/login"
        answer = client.post("/ui/login", data={"key": key}, headers={"Origin": url})
        assert answer.status_code == 303
        cookie = answer.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/ui" in cookie
        assert key not in cookie and key[4:12] not in cookie
        page = client.get("/ui/memories")
        assert page.status_code == 200 and "user_id=maya" in page.text
        assert "default-src 'none'" in page.headers["content-security-policy"]
        assert key not in page.text


def test_a_bad_key_or_a_cross_site_login_opens_no_session(seeded) -> None:
    url = seeded.server.url
    with httpx.Client(base_url=url) as client:
        wrong = client.post("/ui/login", data={"key": seeded.keys["maya"][:-3] + "xyz"}, headers={"Origin": url})
        assert wrong.status_code == 401 and "set-cookie" not in wrong.headers
        forged = client.post("/ui/login", data={"key": seeded.keys["maya"]}, headers={"Origin": "https://evil.example"})
        assert forged.status_code == 403 and "set-cookie" not in forged.headers
        assert client.get("/ui/memories").status_code == 303


def test_each_key_sees_only_its_own_memories(seeded) -> None:
    maya, _ = logged_in(seeded.server.url, seeded.keys["maya"])
    tom, _ = logged_in(seeded.server.url, seeded.keys["tom"])
    with closing(maya), closing(tom):
        for listing in (maya.get("/ui/memories"), maya.get("/ui/memories", params={"q": "Docker vault secrets"})):
            assert "Docker Compose" in listing.text and "Nightjar" not in listing.text
        assert maya.get(f"/ui/memories/{seeded.ids['tom']}").status_code == 404
        assert tom.get(f"/ui/memories/{seeded.ids['docker']}").status_code == 404
        theirs = tom.get("/ui/memories")
        assert "Nightjar" in theirs.text and "Biscuit" not in theirs.text and "Docker Compose" not in theirs.text


def test_filters_narrow_the_list_and_a_bad_one_names_its_field(seeded) -> None:
    client, _ = logged_in(seeded.server.url, seeded.keys["maya"])
    with closing(client):
        semantic = client.get("/ui/memories", params={"type": "semantic"}).text
        assert "Biscuit" in semantic and "Docker Compose" not in semantic
        tagged = client.get("/ui/memories", params={"tags": "infra"}).text
        assert "Docker Compose" in tagged and "Biscuit" not in tagged
        bad = client.get("/ui/memories", params={"created_after": "yesterday"})
        assert bad.status_code == 400 and "created_after" in bad.text
        wrong_type = client.get("/ui/memories", params={"type": "dream"})
        assert wrong_type.status_code == 400 and "type" in wrong_type.text


def test_content_is_escaped_never_markup(seeded) -> None:
    client, _ = logged_in(seeded.server.url, seeded.keys["maya"])
    with closing(client):
        for page in (client.get("/ui/memories"), client.get(f"/ui/memories/{seeded.ids['xss']}")):
            assert "<script>" not in page.text and "<b>bold" not in page.text
            assert "&lt;script&gt;alert(" in page.text
        assert XSS not in client.get("/ui/memories", params={"q": "Maya plan bold"}).text


def test_a_forged_cross_site_change_is_refused(seeded) -> None:
    url, target = seeded.server.url, seeded.ids["dog"]
    client, csrf = logged_in(url, seeded.keys["maya"])
    with closing(client):
        attempts = [
            ({"csrf": csrf}, {"Origin": "https://evil.example"}),  # right token, foreign origin
            ({"csrf": csrf}, {}),  # no Origin, no Referer
            ({"csrf": csrf}, {"Origin": "null"}),
            ({}, {"Origin": url}),  # own origin, no token
            ({"csrf": "forged"}, {"Origin": url}),
        ]
        for data, headers in attempts:
            answer = client.post(f"/ui/memories/{target}/pin", data=data, headers=headers)
            assert answer.status_code == 403, (data, headers)
        trace = httpx.get(f"{url}/v1/memories/{target}", headers=auth(seeded.keys["maya"])).json()["trace"]
        assert trace["pinned"] is False
        with httpx.Client(base_url=url) as stranger:  # no session at all
            assert stranger.post(f"/ui/memories/{target}/forget", data={"csrf": csrf},
                                 headers={"Origin": url}).status_code == 403
        done = client.post(f"/ui/memories/{target}/pin", data={"csrf": csrf}, headers={"Referer": f"{url}/ui/"})
        assert done.status_code == 303
        assert httpx.get(f"{url}/v1/memories/{target}", headers=auth(seeded.keys["maya"])).json()["trace"]["pinned"]
        client.post(f"/ui/memories/{target}/unpin", data={"csrf": csrf}, headers={"Origin": url})


def test_a_read_only_key_sees_no_actions_and_may_change_nothing(seeded) -> None:
    client, csrf = logged_in(seeded.server.url, seeded.keys["reader"])
    with closing(client):
        page = client.get(f"/ui/memories/{seeded.ids['docker']}")
        assert page.status_code == 200 and "Docker Compose" in page.text and "/pin" not in page.text
        refused = client.post(f"/ui/memories/{seeded.ids['docker']}/pin", data={"csrf": csrf},
                              headers={"Origin": seeded.server.url})
        assert refused.status_code == 403 and "read-only" in refused.text


def test_an_owner_key_sees_store_health_not_content(seeded) -> None:
    client, _ = logged_in(seeded.server.url, seeded.keys["owner"])
    with closing(client):
        home = client.get("/ui/", follow_redirects=True)
        assert home.url.path == "/ui/health" and home.status_code == 200
        assert "graph" in home.text and "vectors" in home.text
        for secret in ("Nightjar", "Biscuit", "Docker Compose"):
            assert secret not in home.text
        assert client.get("/ui/memories").status_code == 403
    maya, _ = logged_in(seeded.server.url, seeded.keys["maya"])
    with closing(maya):
        assert maya.get("/ui/health").status_code == 403


def test_logout_ends_the_session(seeded) -> None:
    url = seeded.server.url
    client, csrf = logged_in(url, seeded.keys["maya"])
    with closing(client):
        token = client.cookies["cogmem_session"]
        out = client.post("/ui/logout", data={"csrf": csrf}, headers={"Origin": url})
        assert out.status_code == 303 and out.headers["location"] == "/ui/login"
        replay = httpx.get(f"{url}/ui/memories", cookies={"cogmem_session": token})
        assert replay.status_code == 303 and replay.headers["location"] == "/ui/login"


def test_the_stylesheet_is_served_from_the_package(seeded) -> None:
    css = httpx.get(f"{seeded.server.url}/ui/static/dashboard.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert "http" not in css.text  # no external font or asset
    assert CSRF.pattern  # the harness's pattern is what the pages write


SCRIPT_TAG = re.compile(r"<script\b[^>]*>", re.I)


def test_the_graph_page_runs_only_its_own_nonced_script(seeded) -> None:
    client, _ = logged_in(seeded.server.url, seeded.keys["maya"])
    with closing(client):
        nonces = []
        for _ in range(2):
            page = client.get(f"/ui/memories/{seeded.ids['docker']}/graph")
            assert page.status_code == 200 and "Biscuit" in page.text
            policy = page.headers["content-security-policy"]
            nonce = re.search(r"script-src 'nonce-([A-Za-z0-9_-]+)';", policy).group(1)
            assert "unsafe-inline" not in policy and "unsafe-eval" not in policy and "http" not in policy
            assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
            tags = SCRIPT_TAG.findall(page.text)
            assert tags == ['<script type="application/json" id="neo4j-viz-data">',
                            f'<script type="module" nonce="{nonce}" src="/ui/static/nvl.js">',
                            f'<script type="module" nonce="{nonce}" src="/ui/static/graph.js">'], tags
            nonces.append(nonce)
        assert nonces[0] != nonces[1], "a nonce serves one response"
        xss = client.get(f"/ui/memories/{seeded.ids['xss']}/graph")
        assert xss.status_code == 200 and len(SCRIPT_TAG.findall(xss.text)) == 3 and "&lt;script&gt;" in xss.text
        other_pages = [client.get(p) for p in ("/ui/memories", f"/ui/memories/{seeded.ids['docker']}",
                                                "/ui/consolidation", "/ui/reminders", "/ui/stats")]
        for other in other_pages:
            assert other.status_code == 200 and "script-src" not in other.headers["content-security-policy"]
            assert not SCRIPT_TAG.search(other.text)
        assert client.get(f"/ui/memories/{seeded.ids['tom']}/graph").status_code == 404
    bundle = httpx.get(f"{seeded.server.url}/ui/static/nvl.js")
    assert bundle.status_code == 200 and bundle.headers["content-type"].startswith("text/javascript")
    assert httpx.get(f"{seeded.server.url}/ui/static/nvl.css").status_code == 200
    handler = httpx.get(f"{seeded.server.url}/ui/static/graph.js")
    assert handler.status_code == 200 and handler.headers["content-type"].startswith("text/javascript")
    assert "neo4j-viz-event" in handler.text and "http" not in handler.text


def test_the_new_pages_show_each_key_its_own_scopes_only(seeded) -> None:
    maya, _ = logged_in(seeded.server.url, seeded.keys["maya"])
    tom, _ = logged_in(seeded.server.url, seeded.keys["tom"])
    with closing(maya), closing(tom):
        consolidation = maya.get("/ui/consolidation").text
        assert "Maya hiked the Alps" in consolidation and "Nightjar" not in consolidation
        settled = consolidation.split("Contradictions settled")[1].split("Contradictions still open")[0]
        assert settled.index("Paris") < settled.index("won over") < settled.index("Berlin")
        assert "newer and more confident (1.00 against 0.40)" in settled
        reminders = maya.get("/ui/reminders").text
        assert "Paris move" in reminders and "Nightjar" not in reminders
        stats = maya.get("/ui/stats").text
        assert "What this key can see" in stats and "The whole store" not in stats
        theirs = " ".join(tom.get(p).text for p in ("/ui/consolidation", "/ui/reminders", "/ui/stats"))
        assert "Nightjar" in theirs
        for secret in ("Biscuit", "Maya", "Paris", "Berlin", "Docker Compose"):
            assert secret not in theirs, secret


def test_as_of_shows_what_held_true_that_day_and_the_timeline_runs_oldest_first(seeded) -> None:
    client, _ = logged_in(seeded.server.url, seeded.keys["maya"])
    with closing(client):
        then = client.get("/ui/memories", params={"as_of": "2024-06-01"}).text
        assert "Maya lives in Berlin." in then and "Paris" not in then and "Docker Compose" not in then
        now = client.get("/ui/memories", params={"as_of": "2099-01-01"}).text
        assert "Maya lives in Paris now." in now and "Maya lives in Berlin." not in now
        timeline = client.get("/ui/memories", params={"view": "timeline"}).text
        assert timeline.index("Maya lives in Berlin.") < timeline.index("Maya lives in Paris now.") \
            < timeline.index("Docker Compose")
        assert '<h3 class="day">2023-11-14</h3>' in timeline


def test_read_only_and_owner_keys_on_the_new_pages(seeded) -> None:
    reader, _ = logged_in(seeded.server.url, seeded.keys["reader"])
    with closing(reader):
        for path in ("/ui/consolidation", "/ui/reminders", "/ui/stats", f"/ui/memories/{seeded.ids['dog']}/graph"):
            assert reader.get(path).status_code == 200, path
        assert "Paris move" in reader.get("/ui/reminders").text
    owner, csrf = logged_in(seeded.server.url, seeded.keys["owner"])
    with closing(owner):
        pages_seen = {p: owner.get(p) for p in ("/ui/consolidation", "/ui/stats")}
        assert all(page.status_code == 200 for page in pages_seen.values())
        assert "Counts of the whole store" in pages_seen["/ui/consolidation"].text
        assert "<td>request</td>" in pages_seen["/ui/consolidation"].text, "the run the owner asked for"
        assert "The whole store" in pages_seen["/ui/stats"].text
        for page in pages_seen.values():
            for secret in ("Nightjar", "Biscuit", "Docker", "Paris", "Berlin", "Maya hiked"):
                assert secret not in page.text, secret
        assert owner.get("/ui/reminders").status_code == 403
        assert owner.get(f"/ui/memories/{seeded.ids['dog']}/graph").status_code == 403
        forged = owner.post("/ui/logout", data={"csrf": csrf}, headers={"Origin": "https://evil.example"})
        assert forged.status_code == 403
