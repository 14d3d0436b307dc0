"""Calendar tools: list events, check free time, create, move and delete events."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from typing import Annotated, ClassVar, Literal

from pydantic import Field, WithJsonSchema, model_validator

from tool_schemas.actions import CalendarCommand, HaAction, ServiceCall, TargetState
from tool_schemas.base import (
    Access,
    EntityId,
    LongText,
    MappingContext,
    ShortText,
    TargetSpec,
    Tool,
    given,
)

# Local wall-clock times in the home's timezone, as people say them: no offsets.
LOCAL_DATETIME_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$"
DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"
LocalDateTime = Annotated[
    datetime,
    WithJsonSchema({"type": "string", "format": "date-time", "pattern": LOCAL_DATETIME_PATTERN}),
]
Day = Annotated[date, WithJsonSchema({"type": "string", "format": "date", "pattern": DATE_PATTERN})]
CalendarId = Annotated[EntityId, Field(pattern=r"^calendar\.[a-z0-9_]+$")]
EventUid = Annotated[str, Field(min_length=1, max_length=255, pattern=r"^[^\s<>]+$")]

Period = Literal["today", "tomorrow", "this_week", "next_7_days"]


def _local(moment: datetime, context: MappingContext) -> datetime:
    """Attach the home's timezone to a wall-clock time (times from people carry none)."""
    return moment if moment.tzinfo else moment.replace(tzinfo=context.now.tzinfo)


def period_range(period: Period, context: MappingContext) -> tuple[datetime, datetime]:
    today = datetime.combine(context.now.date(), time(), tzinfo=context.now.tzinfo)
    match period:
        case "today":
            return today, today + timedelta(days=1)
        case "tomorrow":
            return today + timedelta(days=1), today + timedelta(days=2)
        case "this_week":
            start = today - timedelta(days=today.weekday())
            return start, start + timedelta(days=7)
        case "next_7_days":
            return context.now, context.now + timedelta(days=7)


class _CalendarRange(Tool):
    calendar_id: list[CalendarId] | None = Field(
        default=None, max_length=10, description="Calendars to read; omit for all of them."
    )
    period: Period | None = Field(default=None, description="A common range, or give start.")
    start: LocalDateTime | None = Field(default=None, description="Range start, local time.")
    hours: int | None = Field(default=None, ge=1, le=744, description="Range length from start.")

    domains: ClassVar[frozenset[str]] = frozenset({"calendar"})
    shapes: ClassVar[tuple[str, ...]] = ("calendar_id?, period", "calendar_id?, start, hours")

    @model_validator(mode="after")
    def _a_range(self) -> _CalendarRange:
        explicit = self.start is not None or self.hours is not None
        if self.period is None and not (self.start is not None and self.hours is not None):
            raise ValueError("give a period, or start and hours")
        if self.period is not None and explicit:
            raise ValueError("give a period or start and hours, not both")
        return self

    def target_fields(self) -> TargetSpec:
        if self.calendar_id:
            return TargetSpec(entity_id=list(self.calendar_id))
        return TargetSpec(domain=["calendar"])

    def range(self, context: MappingContext) -> tuple[datetime, datetime]:
        if self.period is not None:
            return period_range(self.period, context)
        assert self.start is not None and self.hours is not None
        start = _local(self.start, context)
        return start, start + timedelta(hours=self.hours)

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        start, end = self.range(context)
        data = {"start_date_time": start.isoformat(), "end_date_time": end.isoformat()}
        ids = tuple(sorted(t.entity_id for t in targets))
        return (ServiceCall("calendar", "get_events", ids, data, return_response=True),)


class ListEvents(_CalendarRange):
    """List calendar events in a time range."""

    name: ClassVar[str] = "list_events"
    access: ClassVar[Access] = Access.READ


class CheckFreeBusy(_CalendarRange):
    """Check whether a time range is free in the calendars."""

    name: ClassVar[str] = "check_free_busy"
    access: ClassVar[Access] = Access.READ


class _EventTimes(Tool):
    """An event's time: a start and a length in minutes, or all-day from a date for days.

    Start plus length (not start and end) so a generated event can never end before it starts.
    """

    start: LocalDateTime | None = Field(default=None, description="Start, local time.")
    minutes: int | None = Field(default=None, ge=5, le=1440, description="Length in minutes.")
    start_date: Day | None = Field(default=None, description="All-day event: first day.")
    days: int | None = Field(default=None, ge=1, le=31, description="All-day event: how many days.")

    TIME_SHAPES: ClassVar[tuple[str, str]] = ("start, minutes", "start_date, days")

    @model_validator(mode="after")
    def _one_kind_of_time(self) -> _EventTimes:
        timed = self.start is not None and self.minutes is not None
        all_day = self.start_date is not None and self.days is not None
        given = [v for v in (self.start, self.minutes, self.start_date, self.days) if v is not None]
        if timed == all_day or len(given) != 2:
            raise ValueError("give start and minutes, or start_date and days")
        return self

    def times(self, context: MappingContext) -> dict[str, str]:
        if self.start is not None and self.minutes is not None:
            start = _local(self.start, context)
            return {
                "start_date_time": start.isoformat(),
                "end_date_time": (start + timedelta(minutes=self.minutes)).isoformat(),
            }
        assert self.start_date is not None and self.days is not None
        end = self.start_date + timedelta(days=self.days)  # HA's end date is exclusive
        return {"start_date": self.start_date.isoformat(), "end_date": end.isoformat()}


class CreateEvent(_EventTimes):
    """Create a calendar event (timed, or all-day with dates)."""

    name: ClassVar[str] = "create_event"
    access: ClassVar[Access] = Access.CONTROL
    domains: ClassVar[frozenset[str]] = frozenset({"calendar"})

    calendar_id: CalendarId = Field(description="The calendar to add to.")
    summary: ShortText = Field(description="Event title.")
    description: LongText | None = Field(default=None, description="Details.")
    location: ShortText | None = Field(default=None, description="Where.")

    shapes: ClassVar[tuple[str, ...]] = tuple(
        f"calendar_id, summary, {times}, description?, location?"
        for times in _EventTimes.TIME_SHAPES
    )

    def target_fields(self) -> TargetSpec:
        return TargetSpec(entity_id=[self.calendar_id])

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        data = {
            "summary": self.summary,
            **self.times(context),
            **given(description=self.description, location=self.location),
        }
        return (
            ServiceCall("calendar", "create_event", (self.calendar_id,), data, idempotent=False),
        )


class UpdateEvent(_EventTimes):
    """Change an event found with list_events: give its uid, its summary and its new time."""

    name: ClassVar[str] = "update_event"
    access: ClassVar[Access] = Access.CONTROL
    domains: ClassVar[frozenset[str]] = frozenset({"calendar"})

    calendar_id: CalendarId = Field(description="The event's calendar.")
    uid: EventUid = Field(description="The event's uid from list_events.")
    recurrence_id: ShortText | None = Field(
        default=None, description="For one occurrence of a repeating event."
    )
    summary: ShortText = Field(description="Event title (keep the old one if unchanged).")
    description: LongText | None = Field(default=None, description="Details.")
    location: ShortText | None = Field(default=None, description="Where.")

    shapes: ClassVar[tuple[str, ...]] = tuple(
        f"calendar_id, uid, recurrence_id?, summary, {times}, description?, location?"
        for times in _EventTimes.TIME_SHAPES
    )

    def target_fields(self) -> TargetSpec:
        return TargetSpec(entity_id=[self.calendar_id])

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        times = self.times(context)
        event = {
            "summary": self.summary,
            "dtstart": times.get("start_date_time") or times["start_date"],
            "dtend": times.get("end_date_time") or times["end_date"],
            **given(description=self.description, location=self.location),
        }
        payload = {"uid": self.uid, "event": event, **given(recurrence_id=self.recurrence_id)}
        return (CalendarCommand("calendar/event/update", self.calendar_id, payload),)


class DeleteEvent(Tool):
    """Delete an event found with list_events, by its uid."""

    name: ClassVar[str] = "delete_event"
    access: ClassVar[Access] = Access.CONTROL
    domains: ClassVar[frozenset[str]] = frozenset({"calendar"})

    calendar_id: CalendarId = Field(description="The event's calendar.")
    uid: EventUid = Field(description="The event's uid from list_events.")
    recurrence_id: ShortText | None = Field(
        default=None, description="For one occurrence of a repeating event."
    )

    def target_fields(self) -> TargetSpec:
        return TargetSpec(entity_id=[self.calendar_id])

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        payload = {"uid": self.uid, **given(recurrence_id=self.recurrence_id)}
        return (CalendarCommand("calendar/event/delete", self.calendar_id, payload),)


CALENDAR_TOOLS: tuple[type[Tool], ...] = (
    ListEvents,
    CheckFreeBusy,
    CreateEvent,
    UpdateEvent,
    DeleteEvent,
)
