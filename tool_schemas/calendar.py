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
    period: Period | None = Field(default=None, description="A common range, instead of start/end.")
    start: LocalDateTime | None = Field(default=None, description="Range start, local time.")
    end: LocalDateTime | None = Field(default=None, description="Range end, local time.")

    domains: ClassVar[frozenset[str]] = frozenset({"calendar"})

    @model_validator(mode="after")
    def _a_range(self) -> _CalendarRange:
        explicit = self.start is not None or self.end is not None
        if self.period is None and not (self.start and self.end):
            raise ValueError("give a period, or both start and end")
        if self.period is not None and explicit:
            raise ValueError("give a period or start/end, not both")
        if self.start and self.end and self.end <= self.start:
            raise ValueError("end must be after start")
        return self

    def target_fields(self) -> TargetSpec:
        if self.calendar_id:
            return TargetSpec(entity_id=list(self.calendar_id))
        return TargetSpec(domain=["calendar"])

    def range(self, context: MappingContext) -> tuple[datetime, datetime]:
        if self.period is not None:
            return period_range(self.period, context)
        assert self.start is not None and self.end is not None
        return _local(self.start, context), _local(self.end, context)

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
    start: LocalDateTime | None = Field(default=None, description="Start, local time.")
    end: LocalDateTime | None = Field(default=None, description="End, local time.")
    start_date: Day | None = Field(default=None, description="All-day event: first day.")
    end_date: Day | None = Field(
        default=None, description="All-day event: the day after the last day."
    )

    @model_validator(mode="after")
    def _one_kind_of_time(self) -> _EventTimes:
        timed = self.start is not None and self.end is not None
        all_day = self.start_date is not None and self.end_date is not None
        partial = {self.start, self.end, self.start_date, self.end_date} - {None}
        if timed == all_day or len(partial) != 2:
            raise ValueError("give start and end, or start_date and end_date")
        if timed and self.end and self.start and self.end <= self.start:
            raise ValueError("end must be after start")
        if all_day and self.end_date and self.start_date and self.end_date <= self.start_date:
            raise ValueError("end_date must be after start_date")
        return self

    def times(self, context: MappingContext) -> dict[str, str]:
        if self.start is not None and self.end is not None:
            return {
                "start_date_time": _local(self.start, context).isoformat(),
                "end_date_time": _local(self.end, context).isoformat(),
            }
        assert self.start_date is not None and self.end_date is not None
        return {"start_date": self.start_date.isoformat(), "end_date": self.end_date.isoformat()}


class CreateEvent(_EventTimes):
    """Create a calendar event (timed, or all-day with dates)."""

    name: ClassVar[str] = "create_event"
    access: ClassVar[Access] = Access.CONTROL
    domains: ClassVar[frozenset[str]] = frozenset({"calendar"})

    calendar_id: CalendarId = Field(description="The calendar to add to.")
    summary: ShortText = Field(description="Event title.")
    description: LongText | None = Field(default=None, description="Details.")
    location: ShortText | None = Field(default=None, description="Where.")

    def target_fields(self) -> TargetSpec:
        return TargetSpec(entity_id=[self.calendar_id])

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        data: dict[str, object] = {"summary": self.summary, **self.times(context)}
        if self.description:
            data["description"] = self.description
        if self.location:
            data["location"] = self.location
        return (
            ServiceCall("calendar", "create_event", (self.calendar_id,), data, idempotent=False),
        )


class UpdateEvent(_EventTimes):
    """Change an event found with list_events: give its uid and its new summary and times."""

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

    def target_fields(self) -> TargetSpec:
        return TargetSpec(entity_id=[self.calendar_id])

    def to_actions(
        self, targets: Sequence[TargetState], context: MappingContext
    ) -> tuple[HaAction, ...]:
        times = self.times(context)
        event: dict[str, object] = {
            "summary": self.summary,
            "dtstart": times.get("start_date_time") or times["start_date"],
            "dtend": times.get("end_date_time") or times["end_date"],
        }
        if self.description:
            event["description"] = self.description
        if self.location:
            event["location"] = self.location
        payload: dict[str, object] = {"uid": self.uid, "event": event}
        if self.recurrence_id:
            payload["recurrence_id"] = self.recurrence_id
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
        payload: dict[str, object] = {"uid": self.uid}
        if self.recurrence_id:
            payload["recurrence_id"] = self.recurrence_id
        return (CalendarCommand("calendar/event/delete", self.calendar_id, payload),)


CALENDAR_TOOLS: tuple[type[Tool], ...] = (
    ListEvents,
    CheckFreeBusy,
    CreateEvent,
    UpdateEvent,
    DeleteEvent,
)
