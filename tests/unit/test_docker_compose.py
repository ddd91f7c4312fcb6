"""The production-like stack file: services, plugins, ports, volumes and health checks."""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def compose():
    return yaml.safe_load((ROOT / "docker" / "compose.yml").read_text())


def test_neo4j_has_gds_and_apoc_ports_volume_and_healthcheck():
    neo4j = compose()["services"]["neo4j"]
    assert neo4j["image"].startswith("neo4j:5")
    plugins = yaml.safe_load(neo4j["environment"]["NEO4J_PLUGINS"])
    assert set(plugins) == {"graph-data-science", "apoc"}
    assert {"7474:7474", "7687:7687"} <= set(neo4j["ports"])
    assert any(v.endswith(":/data") for v in neo4j["volumes"])
    assert "healthcheck" in neo4j
    assert "NEO4J_PASSWORD" in neo4j["environment"]["NEO4J_AUTH"]  # no password in the file


def test_qdrant_has_port_volume_and_healthcheck():
    qdrant = compose()["services"]["qdrant"]
    assert qdrant["image"].startswith("qdrant/qdrant")
    assert "6333:6333" in qdrant["ports"]
    assert any(v.endswith(":/qdrant/storage") for v in qdrant["volumes"])
    assert "healthcheck" in qdrant


def test_named_volumes_are_declared_and_env_example_lists_the_variables():
    spec = compose()
    used = {v.split(":")[0] for s in spec["services"].values() for v in s.get("volumes", [])}
    assert used <= set(spec["volumes"])
    example = (ROOT / "docker" / ".env.example").read_text()
    for var in ("NEO4J_USER", "NEO4J_PASSWORD", "QDRANT_API_KEY", "OPENAI_API_KEY", "COHERE_API_KEY"):
        assert f"{var}=" in example


def test_the_server_runs_beside_neo4j_and_qdrant_on_loopback():
    spec = compose()["services"]["cogmem"]
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    assert spec["build"] == {"context": "..", "dockerfile": "docker/Dockerfile"}  # the repository root
    assert "'.[server,local]'" in dockerfile and 'ENTRYPOINT ["cogmem"]' in dockerfile
    assert spec["command"][0] == "serve" and "0.0.0.0" in spec["command"]
    assert spec["ports"] == ["127.0.0.1:8765:8765"], "plain HTTP stays on the host's loopback"
    assert {name: c["condition"] for name, c in spec["depends_on"].items()} == {
        "neo4j": "service_healthy", "qdrant": "service_healthy"}
    env = spec["environment"]
    assert env["COGMEM_GRAPH"] == "neo4j://neo4j:7687" and env["COGMEM_VECTORS"] == "http://qdrant:6333"
    assert env["NEO4J_PASSWORD"].startswith("${NEO4J_PASSWORD")  # no password in the file
    assert "/ready" in " ".join(spec["healthcheck"]["test"])
    assert any(v.endswith(":/data") for v in spec["volumes"])
