"""The dashboard at /ui through a real HTTP client against a real `cogmem serve`: the
login exchanges a key for a session cookie, each key sees only its own memories, every
change needs the session's CSRF token from the dashboard's own origin, content is
escaped, and an owner key sees counts, not content."""

from __future__ import annotations

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
        assert httpx.get(f"{url}/v1/memories/{target}", headers=auth(seeded.keys["maya"])).json()["trace"]["pinned"] is False
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
