"""The app's own questions (agent/replies.py): built from the candidates, never the model's
words."""

from __future__ import annotations

from botpsy_agent.agent.replies import Replies
from botpsy_agent.agent.speech import Phrasebook
from devkit.homes import family_home
from tool_schemas.conversation import AskUser


def test_a_question_names_each_candidate_once() -> None:
    # The real 1.5B wrote one blind three times over (dev multi-blinds-and-message).
    home = family_home()
    blinds = sorted(e for e in home.entities if e.startswith("cover."))[:2]
    call = AskUser(missing="target", candidates=[blinds[0], blinds[1], blinds[0], blinds[0]])
    asked = Replies(Phrasebook()).clarify("en", call, home, blinds)
    names = [home.entities[b].name for b in blinds]
    assert [asked.count(name) for name in names] == [1, 1], asked


def test_a_calendar_asked_for_is_called_a_calendar() -> None:
    # reworded calendar-reminder-names-a-device~r4: "Which list: Family?"
    home = family_home()
    calendars = sorted(e for e in home.entities if e.startswith("calendar."))
    call = AskUser(missing="list", candidates=calendars)
    asked = Replies(Phrasebook()).clarify("en", call, home, calendars)
    assert asked.startswith("Which calendar: "), asked
    lists = sorted(e for e in home.entities if e.startswith("todo."))
    mixed = AskUser(missing="list", candidates=lists)
    assert Replies(Phrasebook()).clarify("en", mixed, home, lists).startswith("Which list: ")


def test_devices_asked_about_as_a_list_are_asked_about_as_devices() -> None:
    # reworded kitchen-then-off~r8: the 0.5B asked for a list among lights, and the app
    # said "Which list: Kitchen light?"
    home = family_home()
    lights = sorted(e for e in home.entities if e.startswith("light."))[:2]
    call = AskUser(missing="list", candidates=lights)
    asked = Replies(Phrasebook()).clarify("en", call, home, lights)
    assert asked.startswith("Which do you mean: "), asked
    assert all(home.entities[light].name in asked for light in lights), asked
    to_whom = AskUser(missing="recipient", candidates=lights)
    assert Replies(Phrasebook()).clarify("en", to_whom, home, lights).startswith("Which do you")
