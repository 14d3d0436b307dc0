"""Hypothesis strategies shared by the fuzz tests: JSON of every shape, numbers far beyond
any range, text with look-alike letters, and valid things cut off at any point.

Every fuzz test runs a fixed number of examples from a fixed seed (`BOUNDED`), so `make test`
stays fast and a failure reproduces on every machine.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings, strategies as st

BOUNDED = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

CONFUSABLES = {
    "a": "\u0430",  # Cyrillic a
    "e": "\u0435",
    "o": "\u043e",
    "i": "\u0456",
    "c": "\u0441",
    "p": "\u0440",
    "l": "\u04cf",
    ".": "\u2024",  # one-dot leader
    "_": "\uff3f",  # fullwidth low line
    "<": "\uff1c",
    ">": "\uff1e",
}


def confusable(text: str) -> st.SearchStrategy[str]:
    """`text` with some letters swapped for look-alikes from other scripts."""
    positions = [i for i, ch in enumerate(text) if ch in CONFUSABLES]
    if not positions:
        return st.just(text)
    return st.sets(st.sampled_from(positions), min_size=1).map(
        lambda chosen: "".join(CONFUSABLES[ch] if i in chosen else ch for i, ch in enumerate(text))
    )


HUGE_NUMBERS = st.one_of(
    st.integers(min_value=-(2**200), max_value=2**200),
    st.sampled_from([2**53 + 1, -(2**63), 2**64, 10**400]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1e308, -1e308, 5e-324, float("inf"), float("nan")]),
)

ENTITY_IDS = st.sampled_from(
    ["light.kitchen_lights", "lock.back_door", "cover.garage_door", "notify.notifier"]
).flatmap(lambda eid: st.one_of(st.just(eid), confusable(eid)))

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    HUGE_NUMBERS,
    st.text(max_size=40),
    ENTITY_IDS,
)


def json_values(max_leaves: int = 20) -> st.SearchStrategy[Any]:
    return st.recursive(
        SCALARS,
        lambda children: st.one_of(
            st.lists(children, max_size=5),
            st.dictionaries(st.text(max_size=12), children, max_size=5),
        ),
        max_leaves=max_leaves,
    )


def truncations(text: str) -> st.SearchStrategy[str]:
    """`text` cut off at any point (the empty string and the whole text included)."""
    return st.integers(min_value=0, max_value=len(text)).map(lambda n: text[:n])
