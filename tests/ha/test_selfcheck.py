"""The start-up self-check through homeassistant-api's REST client, against a real HA."""

from __future__ import annotations

from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component

from botpsy_agent.ha.client import HaEndpoint
from botpsy_agent.ha.selfcheck import self_check
from devkit.mosquitto import free_port
from tests.ha_server import HomeAssistantApiServer


async def test_self_check_reports_the_running_ha(
    hass: HomeAssistant, ha_api: HomeAssistantApiServer
) -> None:
    assert await async_setup_component(hass, "api", {})
    report = await self_check(HaEndpoint.from_base_url(ha_api.url, ha_api.token))
    assert report.ok, report.problem
    assert report.version and report.location_name == hass.config.location_name
    assert report.time_zone == hass.config.time_zone


async def test_self_check_with_a_wrong_token_says_so(
    hass: HomeAssistant, ha_api: HomeAssistantApiServer
) -> None:
    assert await async_setup_component(hass, "api", {})
    report = await self_check(HaEndpoint.from_base_url(ha_api.url, "wrong-token"))
    assert not report.ok
    assert report.problem is not None and report.problem.code == "auth_failed"


async def test_self_check_without_ha_is_unreachable(socket_enabled: None) -> None:
    report = await self_check(HaEndpoint.from_base_url(f"http://127.0.0.1:{free_port()}", "t"), 2)
    assert not report.ok
    assert report.problem is not None and report.problem.code == "unreachable"
