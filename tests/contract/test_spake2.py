"""The pairing arithmetic (`contract/spake2.py`): a safe-prime group, and both sides of an
exchange reach one key from one code."""

from __future__ import annotations

from dataclasses import astuple
import random

import pytest

from botpsy_agent.contract import spake2

INSTANCE = "home"


def test_the_group_is_a_safe_prime_group() -> None:
    p, q = spake2.P, spake2.Q
    assert p.bit_length() == 3072 and p == 2 * q + 1
    rng = random.Random(7)
    for n in (p, q):  # Miller-Rabin, a few rounds: a typo in the constant would fail
        d, s = n - 1, 0
        while d % 2 == 0:
            d, s = d // 2, s + 1
        for _ in range(2):
            x = pow(rng.randrange(2, n - 2), d, n)
            if x in (1, n - 1):
                continue
            for _ in range(s - 1):
                x = pow(x, 2, n)
                if x == n - 1:
                    break
            else:
                pytest.fail("not prime")
    assert pow(spake2.G, q, p) == 1
    assert pow(spake2.M, q, p) == 1 and pow(spake2.N, q, p) == 1


def test_both_sides_agree_and_refuse_what_is_no_element() -> None:
    w = spake2.password_scalar("7K3M9QXD", INSTANCE)
    assert w != spake2.password_scalar("7K3M9QXD", "other")
    x, y = spake2.random_exponent(), spake2.random_exponent()
    t, s = spake2.share(x, w, spake2.M), spake2.share(y, w, spake2.N)
    k_a = spake2.shared_element(spake2.element_from_hex(spake2.element_to_hex(s)), w, spake2.N, x)
    k_b = spake2.shared_element(t, w, spake2.M, y)
    assert k_a == k_b
    assert astuple(spake2.session_keys(INSTANCE, t, s, k_a, w)) == astuple(
        spake2.session_keys(INSTANCE, t, s, k_b, w)
    )
    wrong = spake2.password_scalar("7K3M9QXE", INSTANCE)
    assert spake2.shared_element(t, wrong, spake2.M, y) != k_a  # another code, another key
    for bad in (None, "12", "zz" * 384, "00" * 384, f"{spake2.P - 1:0768x}"):
        with pytest.raises(spake2.Spake2Error):
            spake2.element_from_hex(bad)
    assert not spake2.tags_match("ab", None)
