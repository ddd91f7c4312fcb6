"""Words are stemmed alike whatever thread asks: a server's request workers stem at once."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor

from cogmem_graph import text

WORDS = [f"{root}{suffix}" for root in ("deploy", "nation", "relat", "condition", "hope", "generous", "formal",
                                          "sensitiv", "adjust", "electric", "argu", "happi", "organiz", "rational")
         for suffix in ("ing", "ement", "ional", "ization", "fulness", "iveness", "icate", "alize", "ness", "ly",
                        "ations", "ators", "ically", "ousness")]


def test_stems_are_the_same_from_many_threads_as_from_one() -> None:
    expected = {word: text._snowball_stem.__wrapped__(word) for word in WORDS}
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch as often as the interpreter lets them

    def stem_all(round_: int) -> dict[str, str]:
        order = WORDS[round_ % len(WORDS):] + WORDS[:round_ % len(WORDS)]
        return {word: text._snowball_stem.__wrapped__(word) for word in order * 5}

    try:
        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(stem_all, range(16)))
    finally:
        sys.setswitchinterval(interval)
    for result in results:
        assert result == expected
