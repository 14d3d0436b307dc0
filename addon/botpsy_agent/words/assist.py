"""HA's own intents that only HA's Assist can carry out (a satellite's timers, broadcasts) or
that need no device at all (the time and date, "hello"): recognised from HA's sentences and
turned into the typed calls of `tool_schemas/assist.py`, authorised like any call.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from hassil import RecognizeResult
from home_assistant_intents import get_intents

from tool_schemas.assist import Broadcast, ClockQuestion, CurrentTime, DeviceTimer, TimerIntent
from tool_schemas.base import Tool

FREE_TEXT = frozenset({"item", "message", "name"})
"""Wildcard slots taken as they were said: a list item, a broadcast, a timer's own name
(HA's timer intents fill `name` from a wildcard; entity names never are)."""
TIMER_AMOUNTS = ("hours", "minutes", "seconds", "start_hours", "start_minutes", "start_seconds")
ASSIST_INTENTS = frozenset(
    {*(t.value for t in TimerIntent), "HassBroadcast", "HassGetCurrentTime", "HassGetCurrentDate"}
)


def assist_call(result: RecognizeResult) -> Tool | None:
    """The typed call for one of HA's own intents; None for other intents, and for a timer
    with a command to run when it ends (HA's agent would run it past the policy)."""
    intent = result.intent.name
    slots = {name: entity.value for name, entity in result.entities.items()}
    if intent == "HassGetCurrentTime":
        return CurrentTime(what=ClockQuestion.TIME)
    if intent == "HassGetCurrentDate":
        return CurrentTime(what=ClockQuestion.DATE)
    if intent == "HassBroadcast":
        message = result.entities.get("message")
        return Broadcast(message=message.text.strip()) if message is not None else None
    if intent not in {t.value for t in TimerIntent} or "conversation_command" in slots:
        return None
    fields: dict[str, Any] = {k: int(slots[k]) for k in TIMER_AMOUNTS if k in slots}
    name = result.entities.get("name")
    if name is not None:
        fields["timer_name"] = name.text.strip()
    area = result.entities.get("area")
    if area is not None:
        fields["area"] = area.text.strip()
    return DeviceTimer(intent=TimerIntent(intent), **fields)


@cache
def _responses(language: str) -> dict[str, Any]:
    data = get_intents(language) or {}
    responses = data.get("responses", {}).get("intents", {}).get("HassRespond", {})
    return dict(responses)


def respond_text(language: str, key: str | None) -> str | None:
    """HA's own answer to a conversational sentence ("hello" → "Hello from Home Assistant.")."""
    text = _responses(language.split("-", maxsplit=1)[0].lower()).get(key or "default")
    return text.strip() if isinstance(text, str) and text.strip() else None
