"""End-to-end tests (a package, so their module names never clash with tests/unit)."""
