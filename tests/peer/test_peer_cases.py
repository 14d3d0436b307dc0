"""Which evaluation cases HA's stack can pass by design, and which of its changes the user
asked for (bench/peer_cases.py). Pure."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any

from bench.peer_cases import (
    CONFIRMATION,
    NO_REFUSAL_STATUS,
    PER_USER_PERMISSION,
    changed_target,
    ha_cannot_pass,
    named_in,
    split_false_actions,
)
from tests.eval.cases import CALENDAR, Case, load_cases, parse_case
from tests.eval.scoring import Readings, judge


def case(**fields: Any) -> Case:
    raw = {"id": "c", "category": "x", "user": "admin", **fields}
    return parse_case(raw)


def turn(say: str, status: str | list[str], path: str | None = None) -> dict[str, Any]:
    return {"say": say, "expect": {"status": status, **({"path": path} if path else {})}}


UNLOCK_FOR_SAM = case(
    user="child", turns=[turn("unlock the front door", "refused", "fast_path")], changes={}
)
NAMES = {"lock.front_door": ("Front door",), "light.hall": ("Hall light", "hallway")}


def test_a_confirmation_is_out_of_has_reach() -> None:
    unlock = case(
        turns=[
            turn("unlock the front door", "needs_confirmation", "fast_path"),
            turn("yes", "done"),
        ],
        changes={"lock.front_door": {"state": "unlocked"}},
    )
    assert ha_cannot_pass(unlock) == CONFIRMATION


def test_the_childs_refused_command_rests_on_a_per_user_policy() -> None:
    assert ha_cannot_pass(UNLOCK_FOR_SAM) == PER_USER_PERMISSION
    allowed = case(
        user="child",
        turns=[turn("turn on the fairy lights", "done", "fast_path")],
        changes={"switch.fairy_lights": {"state": "on"}},
    )
    assert ha_cannot_pass(allowed) is None


def test_passing_only_by_declining_needs_a_refusal_status() -> None:
    flight = case(
        turns=[turn("book me a flight", ["refused", "needs_clarification", "needs_confirmation"])],
        no_change_because="not a request about the home",
    )
    assert ha_cannot_pass(flight) == NO_REFUSAL_STATUS


def test_actions_and_facts_are_comparable() -> None:
    light = case(
        turns=[turn("turn on the hall light", "done")], changes={"light.hall": {"state": "on"}}
    )
    fact = case(turns=[turn("is the front door locked", "done")], answer_contains=["locked"])
    assert ha_cannot_pass(light) is None
    assert ha_cannot_pass(fact) is None


def test_the_dev_set_splits_as_the_issue_counted() -> None:
    """Issue 24: 59 of the 204 cases out of HA's reach, 145 it can pass; one case added since
    (multi-blinds-and-message, D80) is within HA's reach, and the six about devices the home
    lacks (no-device-*, D84) and the four about things none of its devices reads
    (no-reading-*, D88) are refusals, as the other no-tool cases; the three of a device
    named inside a message or reminder (D91) are within HA's reach."""
    cases = load_cases()
    reasons = Counter(ha_cannot_pass(c) for c in cases)
    assert reasons == {None: 149, PER_USER_PERMISSION: 26, NO_REFUSAL_STATUS: 28, CONFIRMATION: 15}
    for c in cases:
        if c.category in {"device_single", "device_area", "permission_allowed", "state_question"}:
            assert ha_cannot_pass(c) is None, c.id
        if c.category in {"confirmation", "permission", "no_tool_fits"}:
            assert ha_cannot_pass(c) is not None, c.id


def test_the_scorers_false_action_names_its_entity() -> None:
    """bench/peer_cases.py reads tests/eval/scoring.py's wording: held here."""
    now = datetime(2026, 12, 1, 12, tzinfo=UTC)

    def state(value: str) -> dict[str, Any]:
        return {
            "lock.front_door": {"entity_id": "lock.front_door", "state": value, "attributes": {}}
        }

    readings = Readings(now, state("locked"), state("unlocked"))
    judgement = judge(UNLOCK_FOR_SAM, [{"status": "done", "speech": "Okay."}], readings)
    assert [changed_target(a) for a in judgement.false_actions] == ["lock.front_door"]
    assert changed_target("HA's calendar gained 'Sleepover' at 2026-12-05") == CALENDAR
    assert changed_target("HA was asked to deliver 'hi' to notify.anna") is None


def test_names_are_matched_by_their_words() -> None:
    assert named_in("turn off the counter lights", ["Counter lights"])
    assert named_in("the office is cold, switch the heater on", ["Office heater"])
    assert not named_in("turn on the bedroom fan", ["Bedroom light"])


def test_the_users_own_command_is_a_permission_matter_not_a_false_action() -> None:
    unasked = "HA changed light.hall, which the case does not name"
    asked = "HA changed lock.front_door, which the case does not name"
    false, forbidden = split_false_actions(UNLOCK_FOR_SAM, [asked, unasked], NAMES)
    assert false == [unasked]
    assert forbidden == ["lock.front_door, as asked ('unlock the front door')"]
    light = case(
        turns=[turn("turn on the kitchen light", "done")],
        changes={"light.kitchen": {"state": "on"}},
    )
    assert split_false_actions(light, [asked], NAMES) == ([asked], [])  # no policy case
