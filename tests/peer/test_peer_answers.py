"""How the peer bench reads HA's answers into the evaluation's shape, and which cases it
picks: pure, on records shaped as HA 2026.10 writes them (chat log `as_dict`, intent
responses)."""

from __future__ import annotations

from typing import Any

from bench.peer import as_peer_case, no_tool_answers, pick
from devkit.ha_peer import _local_actions, _status, _turn_actions
from tests.eval.cases import load_cases
from tests.eval.scoring import executed_actions

KITCHEN_ON = {
    "speech": {},
    "response_type": "action_done",
    "data": {
        "targets": [],
        "success": [{"name": "Kitchen", "type": "entity", "id": "light.kitchen"}],
        "failed": [],
    },
}


def test_llm_tool_results_of_the_last_turn_are_actions() -> None:
    content: list[dict[str, Any]] = [
        {"role": "system", "content": "..."},
        {"role": "user", "content": "turn on the hall light"},
        {"role": "tool_result", "tool_name": "HassTurnOn", "tool_result": KITCHEN_ON},
        {"role": "user", "content": "and the kitchen?"},
        {"role": "assistant", "tool_calls": [{"tool_name": "GetLiveContext", "tool_args": {}}]},
        {"role": "tool_result", "tool_name": "GetLiveContext", "tool_result": {"success": True}},
        {"role": "tool_result", "tool_name": "HassTurnOn", "tool_result": KITCHEN_ON},
        {"role": "tool_result", "tool_name": "HassLightSet", "tool_result": {"error": "nope"}},
    ]

    actions = _turn_actions(content)

    assert [(a["tool"], a["outcome"], a["entity_ids"]) for a in actions] == [
        ("turn_on", "executed", ["light.kitchen"]),
        ("set_light", "failed", []),
    ]
    assert len(executed_actions({"actions": actions})) == 1  # the scoring counts the one


def test_a_local_intent_acts_on_its_targets_a_query_does_not() -> None:
    assert _local_actions(KITCHEN_ON)[0]["entity_ids"] == ["light.kitchen"]
    assert _local_actions({**KITCHEN_ON, "response_type": "query_answer"}) == []


def test_statuses_in_the_evaluations_words() -> None:
    error = {"response_type": "error", "data": {"code": "no_valid_targets"}}
    assert _status(error, "Sorry, no device called toaster", []) == "refused"
    assert _status(KITCHEN_ON, "Which light do you mean?", []) == "needs_clarification"
    assert _status(KITCHEN_ON, "Turned on the light", _local_actions(KITCHEN_ON)) == "done"


def test_the_peer_case_keeps_statuses_but_not_our_paths_and_wording() -> None:
    case = next(c for c in load_cases() if c.id == "unlock-front-yes")
    peer = as_peer_case(case)
    assert [t.path for t in peer.turns] == [None, None]
    assert [t.speech for t in peer.turns] == [None, None]
    assert [t.statuses for t in peer.turns] == [t.statuses for t in case.turns]


def test_pick_spreads_over_each_category() -> None:
    cases = load_cases()
    chosen = pick(cases, set(), 2)
    categories = {c.category for c in cases}
    for category in categories:
        group = [c for c in cases if c.category == category]
        assert len([c for c in chosen if c.category == category]) == min(2, len(group))
    assert pick(cases, {"calendar"}, None) == [c for c in cases if c.category == "calendar"]


def test_answers_where_no_tool_fits_are_read_by_status_then_words() -> None:
    def failure(speech: str, status: str = "done") -> dict[str, Any]:
        turn = {"say": "...", "status": status, "speech": speech, "actions": []}
        return {"id": speech[:8], "category": "no_tool_fits", "turns": [turn]}

    report = {
        "categories": {"no_tool_fits": {"cases": 6}},
        "failures": [
            failure("I\u2019m unable to book flights, but I can help with your home."),
            failure('```json\n{"name": "flight__book", "arguments": {"city": "Seoul"}}\n```'),
            failure('<tools>\n  <function name="HassTurnOn">\n    <name>taxi</name>'),
            failure("Why did the cat sit on the computer? To keep an eye on the mouse!"),
            failure("Which flight do you mean?", status="needs_clarification"),
            {"id": "unlock", "category": "permission", "turns": []},
        ],
    }
    assert no_tool_answers(report) == {
        "refused or asked": 2,  # the question back, and the one case that passed
        "declined in words": 1,
        "tool call as text": 2,
        "answered": 1,
    }
