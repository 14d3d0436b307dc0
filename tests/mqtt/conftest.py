"""Fixtures for the MQTT topic API: the service on a real broker, clients, a TLS broker."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from botpsy_agent.agent.protocol import Agent
from botpsy_agent.mqtt import ApiSettings, BrokerSettings, MqttService
from devkit.mosquitto import MosquittoBroker, TlsFiles
from tests.mqtt.client import ApiClient, subscribed_client
from tests.mqtt.pki import ThrowawayPki

INSTANCE = "test"
ROOT = f"botpsy/{INSTANCE}"

type StartService = Callable[..., Awaitable[MqttService]]


def plain_settings(broker: MosquittoBroker, **overrides: Any) -> BrokerSettings:
    return BrokerSettings(host=broker.host, port=broker.port, **overrides)


@pytest.fixture
async def start_service() -> AsyncIterator[StartService]:
    """Start an `MqttService` (instance "test") and wait until it is online; every service
    started is stopped at the end of the test."""
    services: list[MqttService] = []

    async def start(
        agent: Agent, broker: BrokerSettings, api: ApiSettings | None = None, **kwargs: Any
    ) -> MqttService:
        service = MqttService(agent, broker, api or ApiSettings(instance=INSTANCE), **kwargs)
        services.append(service)
        await service.start()
        async with asyncio.timeout(10):
            await service.wait_online()
        return service

    yield start
    for service in services:
        await service.stop()


@pytest.fixture
async def client(mosquitto: MosquittoBroker) -> AsyncIterator[ApiClient]:
    """An MQTT 3.1.1 client on the plain broker, subscribed to every response topic."""
    async with subscribed_client(mosquitto, f"{ROOT}/response/#") as api_client:
        yield api_client


@pytest.fixture
def mosquitto_tls(
    tmp_path: Path, pki: ThrowawayPki, socket_enabled: None
) -> Iterator[MosquittoBroker]:
    """A broker that speaks only TLS and requires a client certificate from our CA."""
    broker = MosquittoBroker(
        workdir=tmp_path / "mosquitto-tls",
        tls=TlsFiles(pki.server_cert, pki.server_key, pki.ca_cert, require_certificate=True),
    )
    broker.start()
    yield broker
    broker.stop()
