"""What a tool call becomes in Home Assistant: service calls, calendar commands, state reads.

These are plain values. The app's executor performs them; the policy inspects them, so what
is authorised is exactly what runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class TargetState:
    """What a mapping needs to know about one resolved target."""

    entity_id: str
    state: str = "unknown"
    attributes: Mapping[str, Any] = field(default_factory=dict)
    is_service: bool = False
    """A legacy notify service (`notify.mobile_app_x`), not an entity."""

    @property
    def domain(self) -> str:
        return self.entity_id.split(".", 1)[0]


@dataclass(frozen=True, slots=True)
class ServiceCall:
    """`call_service` on HA's WebSocket API."""

    domain: str
    service: str
    entity_ids: tuple[str, ...] = ()
    data: Mapping[str, Any] = field(default_factory=dict)
    return_response: bool = False
    idempotent: bool = True
    """False for actions that must never run twice (messages, new events, new items)."""

    def as_message(self) -> dict[str, Any]:
        """The WebSocket message body (without `id`)."""
        message: dict[str, Any] = {
            "type": "call_service",
            "domain": self.domain,
            "service": self.service,
            "service_data": dict(self.data),
        }
        if self.entity_ids:
            message["target"] = {"entity_id": list(self.entity_ids)}
        if self.return_response:
            message["return_response"] = True
        return message


@dataclass(frozen=True, slots=True)
class CalendarCommand:
    """A calendar WebSocket command (`calendar/event/update`, `calendar/event/delete`)."""

    type: str
    entity_id: str
    payload: Mapping[str, Any] = field(default_factory=dict)
    idempotent: bool = False

    def as_message(self) -> dict[str, Any]:
        return {"type": self.type, "entity_id": self.entity_id, **self.payload}


@dataclass(frozen=True, slots=True)
class ReadStates:
    """Read the current states of entities; changes nothing."""

    entity_ids: tuple[str, ...]
    names_only: bool = False
    idempotent: bool = True


@dataclass(frozen=True, slots=True)
class AssistIntent:
    """One of HA's own intents (a satellite's timer, a broadcast), carried out by HA's intent
    handlers for the device that heard it: the integration runs it, not the app's executor,
    because no HA service reaches a satellite's timers (docs/decisions.md, D70)."""

    intent: str
    slots: Mapping[str, Any] = field(default_factory=dict)
    idempotent: bool = False

    def as_message(self) -> dict[str, Any]:
        return {"type": "assist_intent", "intent": self.intent, "slots": dict(self.slots)}


type HaAction = ServiceCall | CalendarCommand | ReadStates | AssistIntent


def describe(action: HaAction) -> dict[str, Any]:
    """The action as plain JSON: the WebSocket message it sends, or what it reads."""
    if isinstance(action, ReadStates):
        return {"type": "read_states", "entity_ids": list(action.entity_ids)}
    return action.as_message()


class ToolMappingError(ValueError):
    """A valid call that cannot become an HA action for these targets."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
