"""The two baselines every report carries, judged by the same scorer on a case's own readings
with nothing changed: a model path that refuses everything, and one that answers "done" and
does nothing. Both must score 0 on action cases: an action case whose expectation already
holds before the request measures nothing.

`starting_readings` builds what such a path leaves from the home's states at the start of a
case (after its `setup`) and the calendar and list as the evaluation seeds them, so the
baselines can be computed without a model (tests/eval/test_baselines.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from tests.eval.cases import ACTION, CALENDAR, SHOPPING_LIST, Case, EventSetup, ItemSetup
from tests.eval.scoring import Event, Item, Readings, judge
from tests.eval.when import resolve

REFUSE_ALL = {"status": "refused", "path": "model", "speech": "I can't help with that."}
DO_NOTHING = {"status": "done", "path": "model", "speech": "Okay."}
ANSWERS: Mapping[str, Mapping[str, Any]] = {"refuse_all": REFUSE_ALL, "do_nothing": DO_NOTHING}

SEEDED_EVENTS = (
    ("Dentist", "tomorrow 15:00", 60),
    ("Piano lesson", "in 2 days 17:00", 45),
    ("Family dinner", "today 19:00", 120),
)
"""The calendar as the demo seeds it (demo/home_setup.py, `_add_calendar_and_list`)."""
SEEDED_ITEMS = ("milk", "bread")


def baselines_passed(case: Case, unchanged: Readings) -> dict[str, bool]:
    """Whether each baseline passes `case`, judged on readings where nothing changed."""
    return {
        name: judge(case, [answer] * len(case.turns), unchanged).passed
        for name, answer in ANSWERS.items()
    }


def starting_readings(
    case: Case, states: Mapping[str, Mapping[str, Any]], now: datetime
) -> Readings:
    """What a path that does nothing leaves of `case`: the entity `states` as they are once
    its setup ran, the seeded calendar and list with what its setup adds, nothing called."""
    events = [_event(summary, when, minutes, now) for summary, when, minutes in SEEDED_EVENTS]
    events += [
        _event(s.summary, s.start, s.minutes, now, s.description or "")
        for s in case.setup
        if isinstance(s, EventSetup)
    ]
    items = [Item(name, "needs_action") for name in SEEDED_ITEMS]
    items += [Item(s.summary, "needs_action") for s in case.setup if isinstance(s, ItemSetup)]
    held = dict(states)
    held[SHOPPING_LIST] = _state(SHOPPING_LIST, str(len(items)))  # HA: open items
    held.setdefault(CALENDAR, _state(CALENDAR, "off"))
    return Readings(now, held, held, events, events, items, items)


def _event(summary: str, when: str, minutes: int, now: datetime, text: str = "") -> Event:
    start = resolve(when, now)
    end = start + (timedelta(minutes=minutes) if isinstance(start, datetime) else timedelta(1))
    return Event(summary, start, end, text)


def _state(entity_id: str, state: str) -> dict[str, Any]:
    return {"entity_id": entity_id, "state": state, "attributes": {}}


def action_cases_passed(
    cases: Sequence[Case], readings: Mapping[str, Readings]
) -> dict[str, list[str]]:
    """Per baseline, the action cases it passes (each case judged on `readings[case.id]`)."""
    passed: dict[str, list[str]] = {name: [] for name in ANSWERS}
    for case in cases:
        if case.kind != ACTION:
            continue
        for name, ok in baselines_passed(case, readings[case.id]).items():
            if ok:
                passed[name].append(case.id)
    return passed
