"""HA's own intents on the fast path (issue 29), on the real HA test home: timers and
broadcasts are authorised here and handed to HA's Assist for the voice device that heard
them; over plain MQTT (no device) the answer says they need one; the time and date are
answered by the app; "hello" gets HA's own answer. Tested end to end through HA's intent
handlers with a satellite in tests/integration/test_assist_intents.py."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from homeassistant.util import dt as dt_util
import pytest

from botpsy_agent.agent.protocol import Outcome, Path, Status
from botpsy_agent.policy import Principal
from tests.agent.support import admin, ask, make_agent
from tests.ha_bridge import HaBridge

SATELLITE = "0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize(
    ("text", "intent", "slots"),
    [
        ("set a timer for 5 minutes", "HassStartTimer", {"minutes": 5}),
        ("set a 10 minute timer", "HassStartTimer", {"minutes": 10}),
        ("cancel my timer", "HassCancelTimer", {}),
        ("cancel all timers", "HassCancelAllTimers", {}),
        ("how much time is left on my timer", "HassTimerStatus", {}),
        ("pause the timer", "HassPauseTimer", {}),
        ("resume the timer", "HassUnpauseTimer", {}),
        ("add 2 minutes to my timer", "HassIncreaseTimer", {"minutes": 2}),
        ("remove 1 minute from my timer", "HassDecreaseTimer", {"minutes": 1}),
        ("broadcast dinner is ready", "HassBroadcast", {"message": "dinner is ready"}),
    ],
)
async def test_a_voice_devices_intent_is_authorised_and_handed_to_assist(
    ha_bridge: HaBridge, text: str, intent: str, slots: dict[str, object]
) -> None:
    agent = make_agent(ha_bridge, planner=None)
    request = replace(ask(text, admin(ha_bridge)), device_id=SATELLITE, area_id="kitchen")
    response = await agent.handle(request)
    assert (response.status, response.path) == (Status.DONE, Path.FAST_PATH), response
    assert response.handoff == {"type": "assist_intent", "intent": intent, "slots": slots}
    assert [a.outcome for a in response.actions] == [Outcome.HANDED_OFF]
    assert response.to_json()["handoff"]["intent"] == intent


async def test_without_a_voice_device_timers_say_they_need_one(ha_bridge: HaBridge) -> None:
    agent = make_agent(ha_bridge, planner=None)
    response = await agent.handle(ask("set a timer for 5 minutes", admin(ha_bridge)))
    assert response.path is Path.FAST_PATH, response
    assert response.status is Status.REFUSED  # nothing went wrong: not here, and why
    assert response.error is not None and response.error.code == "needs_voice_device"
    assert response.speech.startswith("Timers and broadcasts need a voice device")
    assert response.handoff is None
    assert "handoff" not in response.to_json()


async def test_a_timer_command_that_would_run_later_is_not_handed_on(ha_bridge: HaBridge) -> None:
    # HA's agent would run "turn off the lights" when the timer ends, past this policy.
    agent = make_agent(ha_bridge, planner=None)
    request = replace(
        ask("turn off the lights in 5 minutes", admin(ha_bridge)), device_id=SATELLITE
    )
    response = await agent.handle(request)
    assert response.handoff is None
    assert response.path is not Path.FAST_PATH or not response.actions


async def test_timers_pass_the_policy(ha_bridge: HaBridge) -> None:
    # The kids' tablet may read only the kids' room: no grant covers a device's timers.
    agent = make_agent(ha_bridge, planner=None)
    request = replace(
        ask("set a timer for 5 minutes", Principal.mqtt("kids-tablet")), device_id=SATELLITE
    )
    response = await agent.handle(request)
    assert response.status is Status.REFUSED, response
    assert response.handoff is None
    assert [a.outcome for a in response.actions] == [Outcome.REFUSED]


@pytest.mark.parametrize(
    ("language", "text", "expected"),
    [
        ("en", "what time is it", "It is {en_time}."),
        ("en", "what is the date today", "Today is {en_date}."),
        ("ko", "지금 몇 시야", "지금은 {ko_time}이에요."),
    ],
)
async def test_the_time_and_date_are_answered_by_the_app(
    ha_bridge: HaBridge, language: str, text: str, expected: str
) -> None:
    agent = make_agent(ha_bridge, planner=None)
    before = dt_util.now()
    response = await agent.handle(ask(text, admin(ha_bridge), language=language))
    assert (response.status, response.path) == (Status.DONE, Path.FAST_PATH), response
    assert [a.tool for a in response.actions] == ["current_time"]
    assert response.speech == expected.format(**_clock_words(before)), response.speech


def _clock_words(now: datetime) -> dict[str, str]:
    hour12 = now.hour % 12 or 12
    weekday = now.strftime("%A")
    half = "오전" if now.hour < 12 else "오후"
    minutes = f" {now.minute}분" if now.minute else ""
    return {
        "en_time": f"{hour12}:{now.minute:02d} {'AM' if now.hour < 12 else 'PM'}",
        "en_date": f"{weekday} {now.day} {now.strftime('%B')}",
        "ko_time": f"{half} {hour12}시{minutes}",
    }


async def test_hello_gets_has_own_answer(ha_bridge: HaBridge) -> None:
    agent = make_agent(ha_bridge, planner=None)
    response = await agent.handle(ask("hello", admin(ha_bridge)))
    assert (response.status, response.path) == (Status.DONE, Path.FAST_PATH), response
    assert response.speech == "Hello from Home Assistant."
    assert response.actions == []
