"""An event added on a day said, at a time or all day, names the home's one calendar (dev,
reworded calendar-create-tomorrow, -in-days and -allday): "I've got a haircut tomorrow at
11am, add it please" was asked about ("Did you want me to add … to Family?") though the
home has no other calendar, and the time the model wrote was never checked.

The "model" is a scripted planner making the real 0.5B's call (the start written as now);
the agent, policy, checks, executor and HA's local calendar are real.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from homeassistant.core import HomeAssistant
from homeassistant.util import dt as dt_util

from botpsy_agent.agent.protocol import Status
from tests.agent.support import ScriptedPlanner, admin, ask, calendar_events, call, make_agent
from tests.ha_bridge import HaBridge
from tests.ha_home import CALENDAR


def _once(**arguments: Any) -> ScriptedPlanner:
    move = call("create_event", calendar_id=CALENDAR, **arguments)
    return ScriptedPlanner(lambda request: [move] if request.step == 0 else "Done.")


async def test_a_timed_event_is_added_at_the_time_said(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    now = dt_util.now().strftime("%Y-%m-%dT%H:%M")
    agent = make_agent(ha_bridge, _once(summary="Haircut", start=now, minutes=30))

    answer = await agent.handle(
        ask("I've got a haircut tomorrow at 11am, add it please", admin(ha_bridge))
    )

    assert answer.status is Status.DONE, answer
    tomorrow = dt_util.now().date() + timedelta(days=1)
    at = datetime.fromisoformat((await calendar_events(hass))["Haircut"])
    assert (at.date(), at.hour, at.minute) == (tomorrow, 11, 0)


async def test_an_all_day_entry_is_added_on_the_day_said(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    today = dt_util.now().date()
    friday = today + timedelta(days=(4 - today.weekday()) % 7 or 7)
    agent = make_agent(
        ha_bridge, _once(summary="Grandma's birthday", start_date=friday.isoformat(), days=1)
    )

    answer = await agent.handle(
        ask("could you make an all day entry on Friday for grandma's birthday", admin(ha_bridge))
    )

    assert answer.status is Status.DONE, answer
    assert date.fromisoformat((await calendar_events(hass))["Grandma's birthday"]) == friday


async def test_an_event_for_a_list_said_is_still_asked_about(
    hass: HomeAssistant, ha_bridge: HaBridge
) -> None:
    """A list spoken of: the event is not what was plainly asked for."""
    agent = make_agent(ha_bridge, _once(summary="Milk", start="2030-01-01T09:00", minutes=30))

    answer = await agent.handle(
        ask("add milk to the shopping list tomorrow at 9 am", admin(ha_bridge))
    )

    assert answer.status is not Status.DONE, answer
    assert "Milk" not in await calendar_events(hass)
