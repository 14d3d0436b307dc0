"""The WebSocket client against a real HA on a loopback port."""

from __future__ import annotations

import asyncio
import logging
import random

from homeassistant.core import HomeAssistant, ServiceCall
import pytest

from botpsy_agent.ha.client import Backoff, ConnectionState, HaClient, HaEndpoint
from botpsy_agent.ha.errors import HaAuthFailed, HaCallError, HaNotConnected, HaTimeout
from tests.ha_bridge import TEST_BACKOFF, wait_until
from tests.ha_server import HomeAssistantApiServer


def our_log(caplog: pytest.LogCaptureFixture) -> str:
    """What the app logged (HA itself logs the auth message at debug level)."""
    return "\n".join(
        r.getMessage() for r in caplog.records if not r.name.startswith("homeassistant")
    )


def client_for(ha_api: HomeAssistantApiServer, token: str | None = None, **kw: object) -> HaClient:
    endpoint = HaEndpoint.from_base_url(ha_api.url, token or ha_api.token)
    return HaClient(endpoint, backoff=TEST_BACKOFF, **kw)  # type: ignore[arg-type]


async def test_connects_with_a_real_token_and_correlates_calls(
    hass: HomeAssistant, ha_api: HomeAssistantApiServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    hass.states.async_set("light.porch", "on", {"friendly_name": "Porch"})
    client = client_for(ha_api)
    seen: list[ConnectionState] = []
    client.add_state_listener(seen.append)
    await client.start()
    try:
        await client.wait_connected(5)
        # Many calls in flight at once each get their own answer.
        results = await asyncio.gather(
            client.call({"type": "get_config"}),
            client.call({"type": "get_states"}),
            *(client.call({"type": "ping"}) for _ in range(5)),
        )
        assert results[0]["location_name"] == hass.config.location_name
        assert {s["entity_id"] for s in results[1]} >= {"light.porch"}
        assert await client.ping() >= 0
        assert client.ha_version
    finally:
        await client.stop()
    assert seen == [ConnectionState.CONNECTING, ConnectionState.CONNECTED, ConnectionState.STOPPED]
    assert ha_api.token not in our_log(caplog)


# HA's server re-arms its heartbeat timer when our close arrives after it closed (foundation).
@pytest.mark.parametrize("expected_lingering_timers", [True])
async def test_wrong_token_is_auth_failed_without_a_retry_storm(
    ha_api: HomeAssistantApiServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    wrong = "not-the-token-" + "x" * 40
    client = client_for(ha_api, wrong)
    await client.start()
    try:
        with pytest.raises(HaAuthFailed) as raised:
            await client.wait_connected(5)
        assert raised.value.code == "auth_failed"
        assert client.state is ConnectionState.AUTH_FAILED
        # Ten backoff periods later it has still tried exactly once.
        await asyncio.sleep(10 * TEST_BACKOFF.maximum_s)
        assert client.attempts == 1
        assert client.state is ConnectionState.AUTH_FAILED
        with pytest.raises(HaNotConnected):
            await client.call({"type": "ping"})
    finally:
        await client.stop()
    assert "rejected the access token" in our_log(caplog)
    assert wrong not in our_log(caplog)


async def test_ha_rejecting_a_call_gives_its_code_and_text(
    hass: HomeAssistant, ha_api: HomeAssistantApiServer
) -> None:
    client = client_for(ha_api)
    await client.start()
    try:
        await client.wait_connected(5)
        with pytest.raises(HaCallError) as raised:
            await client.call({"type": "call_service", "domain": "light", "service": "explode"})
        assert raised.value.code == "not_found"
        assert raised.value.message == "Service light.explode not found."
        with pytest.raises(HaCallError) as raised:
            await client.call({"type": "no_such_command"})
        assert (raised.value.code, raised.value.message) == ("unknown_command", "Unknown command.")
        assert await client.ping() >= 0  # the connection survives HA's refusals
    finally:
        await client.stop()


async def test_a_call_ha_does_not_answer_in_time_times_out_with_unknown_outcome(
    hass: HomeAssistant, ha_api: HomeAssistantApiServer
) -> None:
    release = asyncio.Event()

    async def slow(call: ServiceCall) -> None:
        await release.wait()

    hass.services.async_register("test", "slow", slow)
    client = client_for(ha_api)
    await client.start()
    try:
        await client.wait_connected(5)
        with pytest.raises(HaTimeout) as raised:
            await client.call(
                {"type": "call_service", "domain": "test", "service": "slow"}, timeout_s=0.1
            )
        assert raised.value.outcome_unknown
        assert await client.ping() >= 0
    finally:
        release.set()
        await hass.async_block_till_done()
        await client.stop()


async def test_reconnects_after_ha_restarts_and_subscriptions_come_back(
    hass: HomeAssistant, ha_api: HomeAssistantApiServer
) -> None:
    client = client_for(ha_api)
    seen: list[ConnectionState] = []
    client.add_state_listener(seen.append)
    received: list[object] = []
    await client.start()
    try:
        await client.wait_connected(5)
        await client.subscribe_events("botpsy_test", lambda e: received.append(e["data"]["n"]))
        hass.bus.async_fire("botpsy_test", {"n": 1})
        await wait_until(lambda: received == [1])

        await ha_api.stop()
        await wait_until(lambda: client.state is ConnectionState.RECONNECTING)
        with pytest.raises(HaNotConnected):
            await client.call({"type": "ping"})
        hass.bus.async_fire("botpsy_test", {"n": 2})  # nobody is listening now
        await asyncio.sleep(3 * TEST_BACKOFF.maximum_s)  # a few failed attempts meanwhile
        await ha_api.start()
        await client.wait_connected(5)
        hass.bus.async_fire("botpsy_test", {"n": 3})
        await wait_until(lambda: received == [1, 3])
        assert client.attempts > 2
    finally:
        await client.stop()
    assert seen[:4] == [
        ConnectionState.CONNECTING,
        ConnectionState.CONNECTED,
        ConnectionState.RECONNECTING,
        ConnectionState.CONNECTED,
    ]


async def test_unsubscribed_events_stop_arriving(
    hass: HomeAssistant, ha_api: HomeAssistantApiServer
) -> None:
    client = client_for(ha_api, heartbeat_s=0.05)  # pings HA often; the connection stays up
    received: list[int] = []
    await client.start()
    try:
        await client.wait_connected(5)
        subscription = await client.subscribe_events(
            "botpsy_test", lambda e: received.append(e["data"]["n"])
        )
        hass.bus.async_fire("botpsy_test", {"n": 1})
        await wait_until(lambda: received == [1])
        await subscription.unsubscribe()
        hass.bus.async_fire("botpsy_test", {"n": 2})
        await asyncio.sleep(0.2)
        assert received == [1]
        assert client.state is ConnectionState.CONNECTED
        assert client.attempts == 1
    finally:
        await client.stop()


def test_endpoint_inside_the_app_and_outside() -> None:
    inside = HaEndpoint.from_environment({"SUPERVISOR_TOKEN": "s3cret"})
    assert inside.websocket_url == "ws://supervisor/core/websocket"
    assert inside.rest_url == "http://supervisor/core/api"
    outside = HaEndpoint.from_environment(
        {"BOTPSY_HA_URL": "https://ha.example:8123/", "BOTPSY_HA_TOKEN": "t0ken"}
    )
    assert outside.websocket_url == "wss://ha.example:8123/api/websocket"
    assert outside.rest_url == "https://ha.example:8123/api"
    assert "s3cret" not in repr(inside) and "t0ken" not in repr(outside)
    with pytest.raises(ValueError, match="BOTPSY_HA_URL"):
        HaEndpoint.from_environment({})
    with pytest.raises(ValueError, match="not an http"):
        HaEndpoint.from_base_url("ftp://ha", "t")


def test_backoff_grows_to_its_maximum_with_jitter() -> None:
    backoff = Backoff(initial_s=1, maximum_s=8)
    rng = random.Random(1)
    delays = [[backoff.delay(n, rng) for _ in range(50)] for n in range(1, 7)]
    for n, samples in enumerate(delays, start=1):
        ceiling = min(8, 2 ** (n - 1))
        assert all(ceiling / 2 <= d <= ceiling for d in samples)
        assert len(set(samples)) > 1  # jittered, not in step
    assert max(delays[-1]) <= 8
