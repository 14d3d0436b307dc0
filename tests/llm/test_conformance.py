"""The app's re-check that a parsed call is one its grammar allows (issue 25, finding 2):
what a model server that ignores the grammar writes is caught; what real llama.cpp writes
under the grammar passes (tests/llm/test_generation.py holds every generated call to it)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from botpsy_agent.agent.narrowing import narrowed_schemas
from botpsy_agent.agent.offer import build_offer
from botpsy_agent.llm.conformance import outside_grammar
from botpsy_agent.llm.llm_planner import held_to_grammar
from botpsy_agent.llm.parse import RawCall
from botpsy_agent.policy import scope
from botpsy_agent.words import grounding
from devkit.homes import family_home
from tests.policy.policies import admin, family_policy

NOON = datetime(2026, 11, 30, 12, tzinfo=UTC)
HOME = family_home()
ANNA = "notify.mobile_app_anna"
SAM = "notify.mobile_app_sam"
FRONT_DOOR = "lock.front_door"
TEXT = "tell Anna I will be late"


def schemas_for(text: str) -> tuple[dict[str, Any], ...]:
    offer = build_offer(scope(family_policy(), admin, HOME, NOON), HOME)
    return narrowed_schemas(offer, grounding.Request(text, "en"), HOME) or offer.schemas


def message(text: str, **extra: Any) -> RawCall:
    return RawCall("send_message", {"recipient": ANNA, "message": text, **extra})


def test_a_message_of_the_requests_words_passes() -> None:
    assert outside_grammar(message("I will be late"), schemas_for(TEXT)) is None


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        (message("I will be late", title="URGENT"), "'title' not offered"),
        (message("my phone died, text the alarm code"), "words the request did not say"),
        (message(" ".join(["late"] * 20)), "more words than the grammar allows"),
        (message("I will be <late"), "text the grammar cannot write"),
        (RawCall("send_message", {"recipient": SAM, "message": "late"}), "not offered"),
        (RawCall("control_lock", {"entity_id": [FRONT_DOOR], "action": "unlock"}), "not offered"),
    ],
)
def test_what_the_grammar_cannot_write_is_caught(call: RawCall, reason: str) -> None:
    problem = outside_grammar(call, schemas_for(TEXT))
    assert problem is not None and reason in problem, problem


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ({"entity_id": ["light.kitchen"], "area_id": ["kitchen"]}, "more than one target"),
        ({"entity_id": ["light.kitchen"], "domain": ["light"]}, "narrowed by a domain"),
        ({"domain": ["light"]}, "a bare domain"),
        ({}, "no target"),
        ({"entity_id": ["light.kitchen"] * 7}, "more than the grammar's 6 items"),
        ({"entity_id": ["light.kitchen"], "transition": 3}, "'transition' not offered"),
    ],
)
def test_one_target_as_the_grammar_gives_it(arguments: dict[str, Any], reason: str) -> None:
    offer = build_offer(scope(family_policy(), admin, HOME, NOON), HOME)
    problem = outside_grammar(RawCall("turn_on", arguments), offer.schemas)
    assert problem is not None and reason in problem, problem


def test_shapes_and_their_fixed_values_hold() -> None:
    offer = build_offer(scope(family_policy(), admin, HOME, NOON), HOME)
    timer = next(e for e in HOME.entities if e.startswith("timer."))
    five = {"entity_id": [timer], "duration": "0:05:00"}
    ok = RawCall("control_timer", {**five, "action": "start"})
    assert outside_grammar(ok, offer.schemas) is None
    paused = RawCall("control_timer", {**five, "action": "pause"})
    problem = outside_grammar(paused, offer.schemas)
    assert problem is not None and "no shape" in problem, problem


def test_one_call_outside_the_grammar_rejects_the_whole_turn() -> None:
    schemas = schemas_for(TEXT)
    good, bad = message("I will be late"), message("I will be late", title="URGENT")
    assert held_to_grammar((good,), schemas) == ((good,), ())
    calls, rejected = held_to_grammar((good, bad), schemas)
    assert calls == () and [r.call for r in rejected] == [good, bad]
    calls, rejected = held_to_grammar((good,) * 4, schemas)
    assert calls == () and "more than the grammar's 3 calls" in rejected[3].reason
