"""The integration's pure parts on the app's own response shapes: what Assist says for each
outcome, and the permissions form and the policy rules it stands for."""

from __future__ import annotations

from typing import Any

from homeassistant.helpers import intent
import pytest

from botpsy_agent.agent.protocol import ActionReport, AgentResponse, ErrorInfo, Outcome, Status
from custom_components.botpsy.answers import answer_for
from custom_components.botpsy.contract import AppResponse
from custom_components.botpsy.permissions import (
    VOICE_DEFAULTS,
    BoundsError,
    form_from_rules,
    rules_from_form,
)

Code = intent.IntentResponseErrorCode


def response(status: Status, speech: str, code: str | None = None, **extra: Any) -> AppResponse:
    """The app's answer as the integration reads it: the app's JSON, through the contract."""
    error = ErrorInfo(code, speech) if code else None
    wire = AgentResponse("r1", status, speech=speech, error=error, **extra).to_json()
    return AppResponse.from_json(wire)


@pytest.mark.parametrize(
    ("wire", "speech", "error", "key", "follow_up"),
    [
        (response(Status.DONE, "Done."), "Done.", None, None, False),
        (response(Status.NEEDS_CLARIFICATION, "Which one"), "Which one", None, None, True),
        (
            response(
                Status.REFUSED,
                "Sorry, I can't help with that: weather.",
                actions=[
                    ActionReport("no_tool_fits", {"reason": "weather"}, outcome=Outcome.REFUSED)
                ],
            ),
            "Sorry, I can't help with that: weather.",
            Code.NO_INTENT_MATCH,
            None,
            False,
        ),
        (
            response(Status.ERROR, "The model is not available.", "model_unavailable"),
            "The model is not available.",
            Code.FAILED_TO_HANDLE,
            None,
            False,
        ),
        (
            response(Status.ERROR, "bad", "invalid_json"),
            "",
            Code.FAILED_TO_HANDLE,
            "agent_error",
            False,
        ),
        (response(Status.ERROR, ""), "", Code.FAILED_TO_HANDLE, "agent_error", False),
        (response(Status.BUSY, "busy", "busy"), "", Code.FAILED_TO_HANDLE, "agent_busy", False),
        (  # the app's words say how far the warm-up is and how long it takes
            response(Status.WARMING_UP, "ready in 40 s (60 %)", "warming_up"),
            "ready in 40 s (60 %)",
            Code.FAILED_TO_HANDLE,
            None,
            False,
        ),
        (
            response(Status.WARMING_UP, "", "warming_up"),
            "",
            Code.FAILED_TO_HANDLE,
            "agent_warming_up",
            False,
        ),
        (
            response(Status.REFUSED, "no", "stale_timestamp"),
            "",
            Code.FAILED_TO_HANDLE,
            "not_authorized",
            False,
        ),
    ],
)
def test_what_assist_says(
    wire: AppResponse, speech: str, error: Code | None, key: str | None, follow_up: bool
) -> None:
    answer = answer_for(wire)
    assert (answer.speech, answer.error, answer.translation_key) == (speech, error, key)
    assert answer.continue_conversation is follow_up


def test_assist_lists_the_entities_acted_on_and_those_that_failed() -> None:
    answer = answer_for(
        response(
            Status.DONE,
            "Done.",
            actions=[
                ActionReport("turn_on", {}, ["light.a", "light.b"]),
                ActionReport("turn_on", {}, ["light.a"]),
                ActionReport("turn_off", {}, ["switch.fan"], outcome=Outcome.FAILED),
                ActionReport("unlock", {}, ["lock.door"], outcome=Outcome.PENDING_CONFIRMATION),
                ActionReport("turn_on", {}, ["light.c"], outcome=Outcome.REFUSED),
            ],
        )
    )
    assert (answer.executed, answer.failed) == (("light.a", "light.b"), ("switch.fan",))
    asked = answer_for(
        response(
            Status.NEEDS_CONFIRMATION,
            "Sure?",
            actions=[
                ActionReport("unlock", {}, ["lock.door"], outcome=Outcome.PENDING_CONFIRMATION)
            ],
        )
    )
    assert (asked.executed, asked.failed, asked.continue_conversation) == ((), (), True)


def test_the_form_and_the_rules_stand_for_each_other() -> None:
    form = {
        "inherit": False,
        "allow": {"access": ["read", "control"]},
        "deny": {"access": ["control"], "labels": ["night"], "entities": ["lock.back_door"]},
        "confirm": {"floors": ["upstairs"]},
        "bounds": {"temperature_min": 18, "temperature_max": 24, "volume_max": 40},
    }
    rules = rules_from_form(form)
    assert rules == [
        {"id": "ui-allow", "allow": ["read", "control"]},
        {"id": "ui-deny-labels", "deny": ["control"], "labels": ["night"]},
        {"id": "ui-deny-entities", "deny": ["control"], "entities": ["lock.back_door"]},
        {"id": "ui-confirm-floors", "confirm": ["control"], "floors": ["upstairs"]},
        {
            "id": "ui-limit",
            "limit": {"temperature": {"min": 18.0, "max": 24.0}, "volume_pct": {"max": 40.0}},
        },
    ]
    hand_written = {"id": "kids", "allow": ["read"], "areas": ["kids_room"]}
    unknown = [{"id": "ui-bogus"}, {"id": "ui-allow-devices", "allow": ["read"], "devices": ["x"]}]
    shown = form_from_rules([hand_written, *rules, *unknown], inherit=False)
    assert shown["inherit"] is False
    assert shown["allow"] == {"access": ["control", "read"]}
    assert shown["deny"] == {
        "access": ["control"],
        "labels": ["night"],
        "entities": ["lock.back_door"],
    }
    assert shown["confirm"] == {"floors": ["upstairs"]}
    assert shown["bounds"] == {"temperature_min": 18.0, "temperature_max": 24.0, "volume_max": 40.0}
    with pytest.raises(BoundsError):
        rules_from_form({"bounds": {"temperature_min": 25, "temperature_max": 20}})


def test_the_satellites_own_area_in_the_form_and_back() -> None:
    """Issue 30, item 4: "the satellite's own area" is one rule the form shows as it is, so
    saving the form unchanged keeps it (and never widens it to the whole home)."""
    rules = [dict(rule) for rule in VOICE_DEFAULTS["own_area"]]
    assert rules == [{"id": "ui-allow-own_area", "allow": ["read", "control"], "own_area": True}]
    form = form_from_rules(rules, inherit=True)
    assert form["allow"] == {"access": ["control", "read"], "own_area": True}
    assert rules_from_form(form) == [
        {"id": "ui-allow-own_area", "allow": ["control", "read"], "own_area": True}
    ]
    unticked = {**form, "allow": {"access": ["control", "read"], "own_area": False}}
    assert rules_from_form(unticked) == [{"id": "ui-allow", "allow": ["control", "read"]}]
