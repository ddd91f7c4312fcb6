"""A noun that names an act and the verb of the act, read as one word.

"The Dublin *flight* was moved up" is about what "we *fly* to Dublin" states; "the *departure*
is at 9" about what "the coach *departs* at 9" does. The English stemmer already joins most
such pairs (arrival / arrive, completion / complete, renewal / renew, attendance / attend);
`act_key` joins the rest, on the stems a sentence's tokens carry: the endings the stemmer
leaves (-ure, -ment, -ery) and a closed set of nouns whose verb is spelt otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["act_key", "act_keys"]

_SPELT_OTHERWISE = {"flight": "fli", "sale": "sell", "choic": "choos", "loss": "lose", "growth": "grow",
                    "death": "die", "birth": "bear", "gift": "give", "proof": "prove", "sight": "see"}
"""Stems of nouns of an act whose verb is spelt otherwise, to the verb's stem."""
_ENDINGS = (("ment", 3), ("eri", 4), ("ur", 4))
"""An ending the stemmer leaves on a noun of an act, and the least stem length left without it
("payment" -> "pay", "deliveri" -> "deliv", "departur" -> "depart")."""


def act_key(key: str) -> str:
    """The stem `key` meets its act's verb at: the verb's stem for a noun of an act, else `key`."""
    if key in _SPELT_OTHERWISE:
        return _SPELT_OTHERWISE[key]
    for ending, least in _ENDINGS:
        if key.endswith(ending) and len(key) - len(ending) >= least:
            return key[: -len(ending)]
    return key


def act_keys(keys: Iterable[str]) -> frozenset[str]:
    """`act_key` of each of `keys`."""
    return frozenset(act_key(k) for k in keys)
