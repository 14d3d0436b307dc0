"""MQTT credentials and discovery through the Supervisor API, against a stand-in Supervisor."""

from __future__ import annotations

from collections.abc import AsyncIterator
import logging

import aiohttp
import pytest

from botpsy_agent.app.config import MqttOverride, Secret, parse_options
from botpsy_agent.app.startup import resolve_broker, resolve_mqtt
from botpsy_agent.ha.supervisor import SupervisorClient, SupervisorError
from botpsy_agent.mqtt.settings import MqttVersion, TlsSettings
from devkit.mosquitto import free_port
from devkit.supervisor import MqttServiceData, SupervisorStandIn


@pytest.fixture
async def supervisor(socket_enabled: None) -> AsyncIterator[SupervisorStandIn]:
    stand_in = SupervisorStandIn(mqtt=MqttServiceData(host="core-mosquitto", port=1883))
    await stand_in.start()
    yield stand_in
    await stand_in.stop()


def client_for(stand_in: SupervisorStandIn, session: aiohttp.ClientSession) -> SupervisorClient:
    """The client as the app makes it: token and address from its environment."""
    environment = {"SUPERVISOR_TOKEN": stand_in.token, "BOTPSY_SUPERVISOR_URL": stand_in.url}
    return SupervisorClient.from_environment(session, environment)


async def test_the_supervisors_broker_is_used_by_default(
    supervisor: SupervisorStandIn, session: aiohttp.ClientSession
) -> None:
    assert supervisor.mqtt is not None
    settings = await resolve_mqtt(MqttOverride(), client_for(supervisor, session))
    assert (settings.host, settings.port, settings.tls) == ("core-mosquitto", 1883, False)
    assert settings.username == "addons"
    assert settings.password == Secret(supervisor.mqtt.password)
    assert settings.protocol == "3.1.1"
    assert settings.source == "supervisor"
    assert supervisor.requests == ["GET /services/mqtt"]
    assert supervisor.mqtt.password not in repr(settings)
    service = await client_for(supervisor, session).mqtt_service()
    assert service.password == supervisor.mqtt.password
    assert supervisor.mqtt.password not in repr(service)


async def test_an_own_login_on_the_supervisors_broker(
    supervisor: SupervisorStandIn, session: aiohttp.ClientSession
) -> None:
    override = MqttOverride(username="botpsy", password=Secret("own-secret"))
    settings = await resolve_mqtt(override, client_for(supervisor, session))
    assert (settings.host, settings.username) == ("core-mosquitto", "botpsy")
    assert settings.password == Secret("own-secret")
    assert settings.source == "supervisor+options"


async def test_another_broker_in_the_options_skips_the_supervisor(
    supervisor: SupervisorStandIn, session: aiohttp.ClientSession
) -> None:
    override = MqttOverride(host="broker.lan", tls=True, username="me", password=Secret("x"))
    settings = await resolve_mqtt(override, client_for(supervisor, session))
    assert (settings.host, settings.port, settings.tls) == ("broker.lan", 8883, True)
    assert settings.source == "options"
    assert supervisor.requests == []


async def test_no_broker_app_installed_is_a_clear_error(
    supervisor: SupervisorStandIn, session: aiohttp.ClientSession
) -> None:
    supervisor.mqtt = None
    with pytest.raises(SupervisorError) as caught:
        await resolve_mqtt(MqttOverride(), client_for(supervisor, session))
    assert caught.value.code == "no_mqtt_service"
    assert caught.value.message == (
        "the Supervisor has no MQTT broker to offer (GET /services/mqtt: Service not enabled); "
        "install and start the Mosquitto broker app, or set another broker in the options "
        "(mqtt.host)"
    )


async def test_a_wrong_token_is_a_clear_error(
    supervisor: SupervisorStandIn, session: aiohttp.ClientSession
) -> None:
    client = SupervisorClient(session, "not-the-token", url=supervisor.url)
    with pytest.raises(SupervisorError) as caught:
        await client.mqtt_service()
    assert caught.value.code == "unauthorized"
    assert "HTTP 401: Unauthorized" in caught.value.message
    assert "not-the-token" not in repr(client)


async def test_an_unreachable_supervisor_is_retried_then_a_clear_error(
    session: aiohttp.ClientSession, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    client = SupervisorClient(session, "token", url=url, attempts=2, retry_delay_s=0.01)
    with pytest.raises(SupervisorError) as caught:
        await client.mqtt_service()
    assert caught.value.code == "unreachable"
    assert caught.value.message.startswith(f"cannot reach the Supervisor at {url} (")
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING] == [
        caught.value.message.join(["Supervisor not reachable (", "); trying again (2 of 2)"])
    ]


def test_outside_the_supervisor_there_is_no_token() -> None:
    with pytest.raises(SupervisorError) as caught:
        SupervisorClient.from_environment(None, {})  # type: ignore[arg-type]
    assert caught.value.code == "no_token"
    assert "set the MQTT broker in the options: mqtt.host" in caught.value.message


async def test_without_a_supervisor_a_broker_must_be_configured() -> None:
    with pytest.raises(SupervisorError) as caught:
        await resolve_mqtt(MqttOverride(), None)
    assert caught.value.code == "no_supervisor"


async def test_discovery_offers_the_integration(
    supervisor: SupervisorStandIn, session: aiohttp.ClientSession
) -> None:
    client = client_for(supervisor, session)
    uuid = await client.publish_discovery({"instance": "home", "base_topic": "botpsy"})
    assert len(uuid) == 32
    assert supervisor.discoveries == [
        {"service": "botpsy", "config": {"instance": "home", "base_topic": "botpsy"}}
    ]


async def test_discovery_for_an_undeclared_service_is_refused(
    supervisor: SupervisorStandIn, session: aiohttp.ClientSession
) -> None:
    supervisor.discovery_services = ()
    with pytest.raises(SupervisorError) as caught:
        await client_for(supervisor, session).publish_discovery({"instance": "home"})
    assert caught.value.code == "refused"
    assert "Apps must list services they provide via discovery" in caught.value.message


async def test_the_app_connects_to_the_broker_as_resolved(
    supervisor: SupervisorStandIn, session: aiohttp.ClientSession
) -> None:
    assert supervisor.mqtt is not None
    environment = {"SUPERVISOR_TOKEN": supervisor.token, "BOTPSY_SUPERVISOR_URL": supervisor.url}
    own = parse_options({"mqtt": {"host": "broker.lan", "tls": True, "username": "me"}})
    broker = await resolve_broker(own, session, environment)
    assert (broker.host, broker.port, broker.username, broker.password) == (
        "broker.lan",
        8883,
        "me",
        None,
    )
    assert (broker.tls, broker.version, broker.client_id) == (
        TlsSettings(),
        MqttVersion.V5,
        "botpsy-home",
    )
    assert supervisor.requests == []

    shared = await resolve_broker(parse_options({}), session, environment)
    assert (shared.host, shared.port, shared.username, shared.password) == (
        "core-mosquitto",
        1883,
        "addons",
        supervisor.mqtt.password,
    )
    assert (shared.tls, shared.version) == (None, MqttVersion.V311)
