"""The server's limits without a server: the `serve` options' defaults are the settings',
the bad-key limiter per address, binding a busy port, and the wording of a 503."""

from __future__ import annotations

import dataclasses
import inspect
import socket
from pathlib import Path
from types import SimpleNamespace

import pytest

from cogmem_graph.cli.server import serve
from cogmem_graph.server.app import ServerSettings, _ServedService
from cogmem_graph.server.guards import AddressLimiter
from cogmem_graph.server.runner import ServerStartError, bind

# `serve` option -> the settings field it sets
OPTIONS = {
    "host": "host", "port": "port", "max_body": "max_body_bytes", "rate": "rate_per_second",
    "consolidate_every": "consolidate_every_s", "max_in_flight": "max_in_flight_per_key",
    "bad_key_rate": "bad_key_rate", "header_timeout": "header_timeout_s", "body_timeout": "body_timeout_s",
    "keep_alive": "keep_alive_s", "max_connections": "max_connections",
}


def test_serve_option_defaults_are_the_server_settings_defaults() -> None:
    defaults = {f.name: f.default for f in dataclasses.fields(ServerSettings)}
    params = inspect.signature(serve).parameters
    for option, field in OPTIONS.items():
        assert params[option].default == defaults[field], f"--{option} and ServerSettings.{field} disagree"


def test_bad_keys_of_one_address_pass_a_burst_then_wait_and_other_addresses_are_apart() -> None:
    limiter = AddressLimiter(rate=1.0, burst=5)
    assert [limiter.check("10.0.0.1") for _ in range(5)] == [0.0] * 5
    wait = limiter.check("10.0.0.1")
    assert 0 < wait <= 1.0
    assert limiter.check("10.0.0.2") == 0.0, "another address has its own bucket"


def test_the_bad_key_limiter_tracks_a_bounded_number_of_addresses() -> None:
    limiter = AddressLimiter(rate=1.0, burst=3)
    for i in range(3 * AddressLimiter.MAX_TRACKED):
        limiter.check(f"10.{i // 65536}.{i // 256 % 256}.{i % 256}")
    assert len(limiter._buckets) <= AddressLimiter.MAX_TRACKED + 1


def test_binding_a_busy_port_names_it() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(ServerStartError, match=f"port {port} is already in use"):
            bind("127.0.0.1", port, 16)
    free = bind("127.0.0.1", port, 16)
    try:
        assert free and free[0].getsockname()[1] == port
    finally:
        for sock in free:
            sock.close()


def _service(uri: str | None) -> _ServedService:
    store = SimpleNamespace(config=SimpleNamespace(graph=SimpleNamespace(uri=uri)), home=Path("/srv/memory"),
                            graph=SimpleNamespace(url="falkor://127.0.0.1:44165"))
    return _ServedService(store)  # type: ignore[arg-type]


def test_a_503_names_the_embedded_graph_by_its_home_and_an_external_one_by_its_url() -> None:
    message = ("remember: falkordb graph at falkor://127.0.0.1:44165 is unreachable after 4 attempts "
               "(ConnectionError: Error 111 connecting to 127.0.0.1:44165. Connection refused.)")
    embedded = _service(None)._unaddressed(message)
    assert "44165" not in embedded and "127.0.0.1" not in embedded
    assert "the embedded graph server under /srv/memory" in embedded
    assert _service("falkor://127.0.0.1:44165")._unaddressed(message) == message
