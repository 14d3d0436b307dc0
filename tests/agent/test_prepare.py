"""The app's own listing before a change to an event (agent/prepare.py): which events the
request names, and what an update of one keeps."""

from __future__ import annotations

import copy
from datetime import UTC, datetime

from botpsy_agent.agent.prepare import (
    Event,
    calendar_words,
    for_events,
    listed_events,
    named_events,
    needs_listing,
    with_whole_uids,
)
from botpsy_agent.llm.conformance import outside_grammar
from botpsy_agent.llm.parse import RawCall
from botpsy_agent.words.grounding import Request
from botpsy_agent.words.values import said_values
from devkit.homes import family_home
from tool_schemas.catalog import catalog

NOW = datetime(2026, 12, 3, 12, tzinfo=UTC)
DENTIST = Event("d1", "Dentist", "2026-12-04T15:00:00+01:00", "2026-12-04T16:00:00+01:00")
PIANO = Event("p1", "Piano lesson", "2026-12-05T17:00:00+01:00", "2026-12-05T17:45:00+01:00")
DINNER = Event("f1", "Family dinner", "2026-12-03", "2026-12-04")
EVENTS = [DENTIST, PIANO, DINNER]


def _update(uid_enum: list[str] | None = None) -> dict[str, object]:
    properties: dict[str, object] = {
        "calendar_id": {"type": "string"},
        "uid": {"type": "string", **({"enum": uid_enum} if uid_enum else {})},
        "summary": {"type": "string", "x-words": ["dentist"]},
        "start": {"type": "string", "pattern": "^x$"},
        "minutes": {"type": "integer"},
    }
    return {"name": "update_event", "parameters": {"properties": properties}}


def test_the_events_named_by_a_word_of_their_title() -> None:
    words = Request("move my dentist appointment to 5 pm", "en")
    assert named_events(EVENTS, words, frozenset(), frozenset()) == [DENTIST]
    # "lesson" and "appointment" name no event: they are what most events are
    assert named_events(EVENTS, Request("cancel the lesson", "en"), frozenset(), frozenset()) == []


def test_it_names_what_the_conversation_last_listed() -> None:
    words = Request("cancel it", "en")
    assert named_events(EVENTS, words, frozenset({"p1"}), frozenset()) == [PIANO]
    assert named_events(EVENTS, words, frozenset(), frozenset()) == []


def test_one_named_event_keeps_its_title_and_length_and_moves_by_what_was_said() -> None:
    words = Request("push the piano lesson back by an hour", "en")
    (schema,) = for_events((_update(),), [PIANO], words, said_values(words, NOW))
    properties = schema["parameters"]["properties"]  # type: ignore[index]
    assert properties["uid"]["enum"] == ["p1"]
    assert properties["summary"]["enum"] == ["Piano lesson"]
    assert properties["minutes"]["enum"] == [45]
    assert properties["start"]["enum"] == ["2026-12-05T18:00"]


def test_a_named_event_with_its_new_time_known_leaves_no_other_change_on_offer() -> None:
    """Dev calendar-move-later: the real 0.5B chose the TV's "back" for "push the piano
    lesson back by an hour"."""
    media = {"name": "control_media", "access": "control", "parameters": {"properties": {}}}
    read = {"name": "get_state", "access": "read", "parameters": {"properties": {}}}
    update = {**_update(), "access": "control"}
    words = Request("push the piano lesson back by an hour", "en")
    kept = for_events((update, media, read), [PIANO], words, said_values(words, NOW))
    assert [s["name"] for s in kept] == ["update_event", "get_state"]
    # Its new time not known: the model may still choose among the changes.
    words = Request("do something about the piano lesson", "en")
    kept = for_events((update, media), [PIANO], words, said_values(words, NOW))
    assert [s["name"] for s in kept] == ["update_event", "control_media"]


def test_deleting_the_one_event_named_leaves_nothing_to_ask() -> None:
    """Dev calendar-delete-dinner: the real 0.5B answered "take the family dinner off the
    calendar" with "For when?", the dinner listed before it."""
    asking = {"name": "ask_user", "access": "read", "parameters": {"properties": {}}}
    delete = {
        "name": "delete_event",
        "access": "control",
        "parameters": {"properties": {"uid": {"type": "string"}}},
    }
    words = Request("take the family dinner off the calendar", "en")
    kept = for_events((delete, asking), [DINNER], words, said_values(words, NOW))
    assert [s["name"] for s in kept] == ["delete_event"]
    # "calendar" is a word of an update too, so the update is on offer beside it (the
    # 0.5B asked "For when?" again at 3a223bd): the delete said still leaves no question.
    update = {**_update(), "access": "control"}
    kept = for_events((delete, update, asking), [DINNER], words, said_values(words, NOW))
    assert "ask_user" not in [s["name"] for s in kept]
    # Two events named: which one is still the user's to say.
    kept = for_events((delete, asking), [DINNER, PIANO], words, said_values(words, NOW))
    assert [s["name"] for s in kept] == ["delete_event", "ask_user"]


def test_a_time_said_without_a_day_is_that_time_of_the_events_own_day() -> None:
    """Dev followup-piano-move: the real 1.5B moved the piano lesson, two days ahead, to
    today at 18:00 for "move it to 6 pm"."""
    words = Request("move the dentist to 5 pm", "en")
    (schema,) = for_events((_update(),), [DENTIST], words, said_values(words, NOW))
    assert schema["parameters"]["properties"]["start"]["enum"] == ["2026-12-04T17:00"]  # type: ignore[index]
    words = Request("move it to 6 pm", "en")
    (schema,) = for_events((_update(),), [PIANO], words, said_values(words, NOW))
    assert schema["parameters"]["properties"]["start"]["enum"] == ["2026-12-05T18:00"]  # type: ignore[index]


def test_a_day_said_or_an_unclear_hour_is_left_to_the_checks() -> None:
    for text in ("move the dentist to Friday at 5 pm", "move the dentist to 5"):
        words = Request(text, "en")
        (schema,) = for_events((_update(),), [DENTIST], words, said_values(words, NOW))
        assert "enum" not in schema["parameters"]["properties"]["start"], text  # type: ignore[index]


def test_a_listing_is_needed_only_beside_a_change_to_an_event_the_words_ask_for() -> None:
    cancel = Request("cancel the dentist", "en")
    assert needs_listing([{"name": "list_events"}, {"name": "delete_event"}], cancel)
    assert not needs_listing([{"name": "list_events"}, {"name": "create_event"}], cancel)
    assert not needs_listing([{"name": "delete_event"}], cancel)
    # Every tool is offered to words that name nothing to do: no month of events for them.
    flight = Request("book me a flight to Paris", "en")
    assert not needs_listing([{"name": "list_events"}, {"name": "delete_event"}], flight)


def test_a_move_by_what_was_said_asks_nothing_and_may_not_say_nothing_fits() -> None:
    words = Request("push the piano lesson back by an hour", "en")
    schemas = (_update(), {"name": "ask_user"}, {"name": "no_tool_fits"})
    names = [s["name"] for s in for_events(schemas, [PIANO], words, said_values(words, NOW))]  # type: ignore[arg-type]
    assert names == ["update_event"]


def _real_update() -> dict[str, object]:
    """update_event as the catalogue offers it, with its shapes."""
    return copy.deepcopy(next(s for s in catalog() if s["name"] == "update_event"))


def test_a_timed_event_moved_stays_timed_and_keeps_its_details() -> None:
    """Dev calendar-followup: the real 1.5B made "move it an hour later" an all-day event
    with "An hour later" as its description and location."""
    words = Request("move it an hour later", "en")
    (schema,) = for_events((_real_update(),), [DENTIST], words, said_values(words, NOW))
    shapes = schema["x-shapes"]
    assert shapes == ["calendar_id, uid, recurrence_id?, summary, start, minutes"], shapes


def test_all_day_and_details_stay_on_offer_when_the_request_speaks_of_them() -> None:
    words = Request("make the dentist all day and add a note that it is at the new clinic", "en")
    (schema,) = for_events((_real_update(),), [DENTIST], words, said_values(words, NOW))
    assert schema["x-shapes"] == _real_update()["x-shapes"]
    # an all-day event moved keeps its all-day shape
    words = Request("move the family dinner to Friday", "en")
    (schema,) = for_events((_real_update(),), [DINNER], words, said_values(words, NOW))
    assert any("start_date" in shape for shape in schema["x-shapes"])  # type: ignore[attr-defined]


def test_the_narrowed_shape_is_what_the_call_must_fit() -> None:
    words = Request("move it an hour later", "en")
    (schema,) = for_events((_real_update(),), [DENTIST], words, said_values(words, NOW))
    timed = {
        "calendar_id": "calendar.family",
        "uid": "d1",
        "summary": "Dentist",
        "start": "2026-12-04T16:00",
        "minutes": 60,
    }
    assert outside_grammar(RawCall("update_event", timed), [schema]) is None
    all_day = {**timed, "start": None, "minutes": None, "start_date": "2026-12-04", "days": 1}
    all_day = {k: v for k, v in all_day.items() if v is not None}
    assert outside_grammar(RawCall("update_event", all_day), [schema]) is not None
    noted = {**timed, "description": "An hour later"}
    assert outside_grammar(RawCall("update_event", noted), [schema]) is not None


def test_the_calendars_name_names_no_event_on_it() -> None:
    """The demo's "put the plumber visit on the family calendar for Monday at 8 am" was shown
    the "Family dinner" (and evaluated its listing) before a new event."""
    calendars = calendar_words(family_home())
    assert "family" in calendars
    new = Request("put the plumber visit on the family calendar for Monday at 8 am", "en")
    assert named_events(EVENTS, new, frozenset(), calendars) == []
    dinner = Request("move the family dinner on the family calendar to 8 pm", "en")
    assert named_events(EVENTS, dinner, frozenset(), calendars) == [DINNER]


def test_the_model_is_shown_a_uid_by_its_first_characters_and_times_to_the_minute() -> None:
    """Issue 28: three events shown with whole uids and times were 320 tokens of a
    follow-up's request; a handle is the uid's first characters unless another listed uid
    starts the same way."""
    uids = ["5d5e4a2c-8a3f-11ef-9d7e-0242ac120002", "77aa01bc-1", "77aa01bc-2", "short"]
    listing = {
        "calendar.family": {
            "events": [
                {"uid": uid, "summary": "Dentist", "start": "2026-12-07T16:00:00+01:00"}
                for uid in uids
            ]
        }
    }
    events = listed_events(listing)
    assert [e.shown_uid for e in events] == ["5d5e4a2c", "77aa01bc-1", "77aa01bc-2", "short"]
    shown = events[0].shown()
    assert shown["uid"] == "5d5e4a2c" and shown["start"] == "2026-12-07T16:00", shown
    assert DINNER.shown()["start"] == "2026-12-03"  # a day stays a day


def test_the_whole_uid_is_put_back_into_the_models_call() -> None:
    events = listed_events({"events": [{"uid": "5d5e4a2c-8a3f", "summary": "Dentist"}]})
    calls = (
        RawCall("delete_event", {"calendar_id": "calendar.family", "uid": "5d5e4a2c"}),
        RawCall("delete_event", {"calendar_id": "calendar.family", "uid": "5d5e4a2d"}),
        RawCall("control_light", {"entity_id": ["5d5e4a2c"]}),
    )
    whole, unknown, other = with_whole_uids(calls, events)
    assert whole.arguments["uid"] == "5d5e4a2c-8a3f"
    assert unknown == calls[1] and other == calls[2]  # left for the checks to judge
