"""What only Home Assistant's Assist can do, for the request's own voice device: a
satellite's timers and broadcasts (carried out by HA's intent handlers through the
integration), and the time and date (answered by the app).

Recognised by the fast path from HA's own sentences; never offered to the model (they are
not in the catalogue's `TOOLS`), yet typed and authorised like every call: timers and the
clock are reads, a broadcast is a message.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Annotated, Any, ClassVar

from pydantic import Field

from tool_schemas.actions import AssistIntent, HaAction, TargetState
from tool_schemas.base import Access, LongText, MappingContext, ShortText, Tool

Amount = Annotated[int, Field(ge=0, le=10_000)]


class TimerIntent(StrEnum):
    """HA's timer intents (homeassistant/components/intent/timers.py)."""

    START = "HassStartTimer"
    CANCEL = "HassCancelTimer"
    CANCEL_ALL = "HassCancelAllTimers"
    STATUS = "HassTimerStatus"
    PAUSE = "HassPauseTimer"
    UNPAUSE = "HassUnpauseTimer"
    INCREASE = "HassIncreaseTimer"
    DECREASE = "HassDecreaseTimer"


class DeviceTimer(Tool):
    """Start, ask about, pause, resume, change or cancel the timers of the voice device that
    heard the request. Commands run when a timer ends ("turn off the oven in 5 minutes")
    are not taken: HA's agent would run them past this app's permissions."""

    name: ClassVar[str] = "device_timer"
    access: ClassVar[Access] = Access.READ

    intent: TimerIntent
    hours: Amount | None = None
    minutes: Amount | None = None
    seconds: Amount | None = None
    start_hours: Amount | None = None
    """Which timer, by its starting length ("cancel the 5 minute timer")."""
    start_minutes: Amount | None = None
    start_seconds: Amount | None = None
    timer_name: ShortText | None = None
    """The timer's own name ("the pizza timer"); HA's slot `name`."""
    area: ShortText | None = None
    """The timer started in that area ("cancel the kitchen timer"); HA's slot `area`."""

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        fields = self.model_dump(exclude_none=True, exclude={"intent", "timer_name"})
        slots: dict[str, Any] = dict(fields)
        if self.timer_name is not None:
            slots["name"] = self.timer_name
        return (AssistIntent(self.intent.value, slots),)


class Broadcast(Tool):
    """Say a message on every voice device in the home (HA's broadcast)."""

    name: ClassVar[str] = "broadcast"
    access: ClassVar[Access] = Access.CONTROL

    message: LongText

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        return (AssistIntent("HassBroadcast", {"message": self.message}),)


class ClockQuestion(StrEnum):
    TIME = "time"
    DATE = "date"


class CurrentTime(Tool):
    """The current time or date in the home's time zone: answered by the app, nothing is
    read from or sent to HA."""

    name: ClassVar[str] = "current_time"
    access: ClassVar[Access] = Access.READ

    what: ClockQuestion = ClockQuestion.TIME

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        return ()


ASSIST_TOOLS: tuple[type[Tool], ...] = (DeviceTimer, Broadcast, CurrentTime)
HANDED_TO_HA = frozenset({DeviceTimer.name, Broadcast.name})
"""Tools whose action HA's Assist carries out, for the voice device that heard the request."""
