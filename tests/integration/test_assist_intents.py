"""A voice satellite's timers with BotPsy as the Assist agent (issue 29), on real parts: HA's
`conversation` with our agent, the integration, a real broker, the real app runtime, and
HA's own intent timer manager. The satellite is a stand-in device registered in HA's device
registry with a timer handler, as the ESPHome and Wyoming integrations register theirs."""

from __future__ import annotations

from homeassistant.components import conversation
from homeassistant.components.intent import (
    TimerEventType,
    TimerInfo,
    async_register_timer_handler,
)
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import device_registry as dr
from pytest_homeassistant_custom_component.common import MockConfigEntry

from tests.ha_home import HaHome
from tests.ha_mqtt import wait_for

AGENT = "conversation.botpsy_test"


class SatelliteStandIn:
    """A voice satellite in the kitchen: a device in HA's registry whose timers HA's intent
    timer manager keeps, and which hears every timer event (as a real one rings)."""

    def __init__(self, hass: HomeAssistant) -> None:
        entry = MockConfigEntry(domain="assist_satellite_stand_in")
        entry.add_to_hass(hass)
        devices = dr.async_get(hass)
        device = devices.async_get_or_create(
            config_entry_id=entry.entry_id, identifiers={("test", "kitchen-satellite")}
        )
        devices.async_update_device(device.id, area_id="kitchen")
        self.device_id = device.id
        self.events: list[tuple[TimerEventType, TimerInfo]] = []
        async_register_timer_handler(hass, device.id, self._timer_event)

    def _timer_event(self, event_type: TimerEventType, timer: TimerInfo) -> None:
        self.events.append((event_type, timer))


async def say(
    hass: HomeAssistant, text: str, user_id: str, device_id: str | None
) -> conversation.ConversationResult:
    return await conversation.async_converse(
        hass, text, None, Context(user_id=user_id), "en", AGENT, device_id=device_id
    )


async def test_a_satellites_timer_runs_through_has_own_handlers(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, ha_home: HaHome
) -> None:
    satellite = SatelliteStandIn(hass)
    daniel = ha_home.users["Daniel"]

    started = await say(hass, "set a timer for 5 minutes", daniel, satellite.device_id)
    assert started.response.response_type.value == "action_done", started.response.speech
    assert started.response.speech["plain"]["speech"] == "Timer set for 5 minutes"
    await wait_for(lambda: len(satellite.events) == 1, "the timer started")
    kind, timer = satellite.events[0]
    assert kind is TimerEventType.STARTED
    assert (timer.device_id, timer.start_minutes, timer.seconds_left) == (
        satellite.device_id,
        5,
        300,
    )

    status = await say(hass, "how much time is left on my timer", daniel, satellite.device_id)
    assert "minute" in status.response.speech["plain"]["speech"], status.response.speech

    cancelled = await say(hass, "cancel my timer", daniel, satellite.device_id)
    assert cancelled.response.response_type.value == "action_done", cancelled.response.speech
    await wait_for(lambda: len(satellite.events) == 2, "the timer cancelled")
    assert satellite.events[1][0] is TimerEventType.CANCELLED


async def test_without_a_satellite_the_answer_says_timers_need_one(
    hass: HomeAssistant, botpsy_entry: MockConfigEntry, ha_home: HaHome
) -> None:
    result = await say(hass, "set a timer for 5 minutes", ha_home.users["Daniel"], None)
    assert result.response.response_type.value == "error"
    assert result.response.speech["plain"]["speech"].startswith(
        "Timers and broadcasts need a voice device"
    )
