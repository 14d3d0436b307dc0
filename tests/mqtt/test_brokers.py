"""The service on a broker with users and an ACL, and on a TLS-only broker."""

from __future__ import annotations

import asyncio
import ssl

import pytest

from botpsy_agent.mqtt import ApiSettings, BrokerSettings, MqttService, TlsSettings
from devkit.mosquitto import MosquittoBroker
from tests.conftest import AGENT_USER, KITCHEN_USER
from tests.mqtt.agents import EchoAgent
from tests.mqtt.client import subscribed_client
from tests.mqtt.conftest import INSTANCE, ROOT, StartService, plain_settings
from tests.mqtt.pki import ThrowawayPki

PANEL_REQUEST = f"{ROOT}/request/kitchen-panel"
PANEL_RESPONSE = f"{ROOT}/response/kitchen-panel"


async def test_acl_the_agent_user_serves_and_a_principal_topic_is_only_its_users(
    mosquitto_acl: MosquittoBroker, start_service: StartService
) -> None:
    agent = EchoAgent()
    await start_service(
        agent,
        plain_settings(mosquitto_acl, username=AGENT_USER.username, password=AGENT_USER.password),
    )
    async with subscribed_client(
        mosquitto_acl,
        f"{ROOT}/response/#",  # the ACL narrows it
        f"{ROOT}/status",
        username=KITCHEN_USER.username,
        password=KITCHEN_USER.password,
    ) as panel:
        assert (await panel.expect(f"{ROOT}/status")).state == "online"

        panel.publish(f"{ROOT}/request/someone-else", {"id": "forged-1", "text": "unlock"})
        panel.publish(f"{ROOT}/request", {"id": "forged-2", "text": "unlock"})
        panel.publish(
            PANEL_REQUEST,
            {"id": "p0", "text": "hi", "reply_to": f"{ROOT}/response/someone-else"},
        )
        panel.publish(PANEL_REQUEST, {"id": "p1", "text": "kitchen light on"})

        refused = await panel.response(PANEL_RESPONSE, "p0")
        assert refused["error"]["code"] == "invalid_reply_to"
        answer = await panel.response(PANEL_RESPONSE, "p1")
        assert answer["speech"] == "mqtt:kitchen-panel said: kitchen light on"
        # The broker delivers one client's messages in order: the forged ones, published
        # first, would have been handled before p1. They never reached the agent.
        assert [request.id for request in agent.requests] == ["p1"]
        assert {m.topic for m in panel.received(f"{ROOT}/response")} == set()


async def test_acl_a_wrong_password_keeps_the_service_offline_and_it_still_stops_cleanly(
    mosquitto_acl: MosquittoBroker, caplog: pytest.LogCaptureFixture
) -> None:
    settings = plain_settings(mosquitto_acl, username=AGENT_USER.username, password="wrong")
    service = MqttService(EchoAgent(), settings, ApiSettings(instance=INSTANCE))
    await service.start()
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(1.5):
            await service.wait_online()
    await service.stop()
    assert "refused the connection" in caplog.text
    assert "wrong" not in caplog.text  # the password is never logged
    assert "wrong" not in repr(settings)


def _tls_client_context(pki: ThrowawayPki) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(pki.ca_cert))
    context.load_cert_chain(str(pki.client_cert), str(pki.client_key))
    return context


async def test_tls_round_trip_with_a_client_certificate(
    mosquitto_tls: MosquittoBroker, pki: ThrowawayPki, start_service: StartService
) -> None:
    tls = TlsSettings(ca_file=pki.ca_cert, cert_file=pki.client_cert, key_file=pki.client_key)
    await start_service(EchoAgent(), plain_settings(mosquitto_tls, tls=tls))
    async with subscribed_client(
        mosquitto_tls, f"{ROOT}/response/#", tls_context=_tls_client_context(pki)
    ) as client:
        client.publish(f"{ROOT}/request", {"id": "tls-1", "text": "over TLS"})
        answer = await client.response(f"{ROOT}/response", "tls-1")
        assert answer["speech"] == "anonymous:anonymous said: over TLS"


async def test_tls_an_untrusted_broker_certificate_is_refused(
    mosquitto_tls: MosquittoBroker, pki: ThrowawayPki, caplog: pytest.LogCaptureFixture
) -> None:
    # The system's CAs do not know our test CA: the broker must not be trusted.
    tls = TlsSettings(cert_file=pki.client_cert, key_file=pki.client_key)
    settings = BrokerSettings(host=mosquitto_tls.host, port=mosquitto_tls.port, tls=tls)
    service = MqttService(EchoAgent(), settings, ApiSettings(instance=INSTANCE))
    await service.start()
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(1.5):
            await service.wait_online()
    await service.stop()
    assert not service.connection.connected
    assert "TLS refused" in caplog.text
