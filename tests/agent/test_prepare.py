"""The app's own listing before a change to an event (agent/prepare.py): which events the
request names, and what an update of one keeps."""

from __future__ import annotations

from datetime import UTC, datetime

from botpsy_agent.agent.prepare import Event, for_events, named_events, needs_listing
from botpsy_agent.words.grounding import Request
from botpsy_agent.words.values import said_values

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
    assert named_events(EVENTS, words, frozenset()) == [DENTIST]
    # "lesson" and "appointment" name no event: they are what most events are
    assert named_events(EVENTS, Request("cancel the lesson", "en"), frozenset()) == []


def test_it_names_what_the_conversation_last_listed() -> None:
    words = Request("cancel it", "en")
    assert named_events(EVENTS, words, frozenset({"p1"})) == [PIANO]
    assert named_events(EVENTS, words, frozenset()) == []


def test_one_named_event_keeps_its_title_and_length_and_moves_by_what_was_said() -> None:
    words = Request("push the piano lesson back by an hour", "en")
    (schema,) = for_events((_update(),), [PIANO], words, said_values(words, NOW))
    properties = schema["parameters"]["properties"]  # type: ignore[index]
    assert properties["uid"]["enum"] == ["p1"]
    assert properties["summary"]["enum"] == ["Piano lesson"]
    assert properties["minutes"]["enum"] == [45]
    assert properties["start"]["enum"] == ["2026-12-05T18:00"]


def test_a_time_said_is_left_to_the_checks_not_moved() -> None:
    words = Request("move the dentist to 5 pm", "en")
    (schema,) = for_events((_update(),), [DENTIST], words, said_values(words, NOW))
    assert "enum" not in schema["parameters"]["properties"]["start"]  # type: ignore[index]


def test_a_listing_is_needed_only_beside_a_change_to_an_event() -> None:
    assert needs_listing([{"name": "list_events"}, {"name": "delete_event"}])
    assert not needs_listing([{"name": "list_events"}, {"name": "create_event"}])
    assert not needs_listing([{"name": "delete_event"}])


def test_a_move_by_what_was_said_asks_nothing_and_may_not_say_nothing_fits() -> None:
    words = Request("push the piano lesson back by an hour", "en")
    schemas = (_update(), {"name": "ask_user"}, {"name": "no_tool_fits"})
    names = [s["name"] for s in for_events(schemas, [PIANO], words, said_values(words, NOW))]  # type: ignore[arg-type]
    assert names == ["update_event"]
