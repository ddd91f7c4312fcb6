"""A `cogmem serve` with keys of two users, a read-only key and an owner key, memories and
reminders written through REST and one consolidation run (a schema of each user's similar
memories; of Maya's two homes, the newer and more confident wins), for the dashboard tests;
plus an httpx login helper."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import httpx

from .server_harness import Server, add_key, auth, free_port

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
XSS = "<script>alert('owned')</script> Maya's plan & <b>bold</b>"


@dataclass
class Seeded:
    server: Server
    keys: dict[str, str]
    ids: dict[str, str]


def start(home: Path) -> Seeded:
    keys = {
        "maya": add_key(home, "--agent", "helper", "--user", "maya"),
        "tom": add_key(home, "--agent", "helper2", "--user", "tom"),
        "reader": add_key(home, "--agent", "helper", "--user", "maya", "--read-only"),
        "owner": add_key(home, "--owner", "--name", "operator"),
    }
    server = Server(home, free_port(), ("--consolidate-every", "0")).start()
    ids: dict[str, str] = {}
    for name, key, body in [
        ("docker", "maya", {"content": "Maya deploys everything with Docker Compose on one server.",
                            "tags": ["infra"]}),
        ("dog", "maya", {"content": "Biscuit is Maya's dog and loves hiking.", "type": "semantic"}),
        ("xss", "maya", {"content": XSS}),
        ("tom", "tom", {"content": "Tom keeps his Docker secrets in a vault called Nightjar."}),
    ]:
        answer = httpx.post(f"{server.url}/v1/memories", json=body, headers=auth(keys[key]), timeout=60)
        assert answer.status_code == 200, answer.text
        ids[name] = answer.json()["id"]
    for name, body in (("berlin", {"content": "Maya lives in Berlin.", "created_at": 1_700_000_000_000,
                                   "confidence": 0.4}),
                       ("paris", {"content": "Maya lives in Paris now.", "created_at": 1_760_000_000_000})):
        answer = httpx.post(f"{server.url}/v1/memories", json=body, headers=auth(keys["maya"]), timeout=60)
        assert answer.status_code == 200, answer.text
        ids[name] = answer.json()["id"]
    for key, items in (("maya", [{"content": f"Maya hiked the Alps trail with Biscuit, trip {i}, boots and trail maps."}
                                 for i in range(5)]),
                       ("tom", [{"content": f"Tom rotated the Nightjar vault keys, rotation {i}, Nightjar audit."}
                                for i in range(5)])):
        answer = httpx.post(f"{server.url}/v1/memories/batch", json={"items": items}, headers=auth(keys[key]),
                            timeout=120)
        assert answer.status_code == 200, answer.text
    for key, body in (("maya", {"content": "Ask Maya how the Paris move went", "on_keywords": ["Paris"]}),
                      ("tom", {"content": "Remind Tom to rotate the Nightjar keys", "on_keywords": ["Nightjar"]})):
        answer = httpx.post(f"{server.url}/v1/reminders", json=body, headers=auth(keys[key]), timeout=60)
        assert answer.status_code == 200, answer.text
    answer = httpx.post(f"{server.url}/v1/admin/consolidate", headers=auth(keys["owner"]), timeout=300)
    assert answer.status_code == 200, answer.text
    return Seeded(server, keys, ids)


def logged_in(url: str, key: str) -> tuple[httpx.Client, str]:
    """An httpx client holding a dashboard session of `key`, and the session's CSRF token."""
    client = httpx.Client(base_url=url, timeout=60)
    answer = client.post("/ui/login", data={"key": key}, headers={"Origin": url})
    assert answer.status_code == 303, answer.text
    page = client.get("/ui/", follow_redirects=True)
    assert page.status_code == 200, page.text
    return client, CSRF.search(page.text).group(1)
