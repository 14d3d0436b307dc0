"""An MQTT client for the API tests, usable from async tests without blocking their loop.

paho runs in its own thread and collects every message; the test awaits what it expects
(polling, so the agent's service keeps running in the same loop). It subscribes again
after every reconnect, like a well-behaved client must when the broker restarts.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
import json
import ssl
import threading
from typing import Any
import uuid

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from botpsy_agent.mqtt.connection import send_at_once
from devkit.mosquitto import MosquittoBroker


@dataclass(frozen=True)
class Message:
    topic: str
    payload: bytes
    retain: bool
    correlation_data: bytes | None = None

    def json(self) -> Any:
        return json.loads(self.payload)

    @property
    def state(self) -> str | None:
        """`online` / `offline` of a `status` message (signed JSON since issue 25)."""
        try:
            value = json.loads(self.payload)
        except ValueError:
            return None
        return value.get("state") if isinstance(value, dict) else None


class ApiClient:
    """One client of the topic API."""

    def __init__(
        self,
        broker: MosquittoBroker,
        *,
        username: str | None = None,
        password: str | None = None,
        protocol: mqtt.MQTTProtocolVersion = mqtt.MQTTv311,
        tls_context: ssl.SSLContext | None = None,
        client_id: str | None = None,
    ) -> None:
        self.broker = broker
        self._lock = threading.Lock()
        self._messages: list[Message] = []
        self._taken: set[int] = set()
        self._topics: list[str] = []
        self._acked: set[int] = set()
        self._connected = threading.Event()
        self.refused: Any = None
        self.connects = 0
        self._resubscribed: list[int] = []
        self.patience_s = 5.0
        """How long any wait of this client lasts before it raises TimeoutError."""
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id or f"test-{uuid.uuid4().hex[:8]}",
            protocol=protocol,
        )
        if username is not None:
            self.client.username_pw_set(username, password)
        if tls_context is not None:
            self.client.tls_set_context(tls_context)
        self.client.reconnect_delay_set(1, 2)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.on_subscribe = self._on_subscribe
        self.client.on_socket_open = send_at_once

    @property
    def v5(self) -> bool:
        return self.client.protocol == mqtt.MQTTv5

    async def connect(self) -> None:
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=10)
        self.client.loop_start()
        await self.until(self._connected.is_set, "no connection")
        if self.refused is not None:
            raise ConnectionError(f"broker refused: {self.refused}")

    async def close(self) -> None:
        self.client.disconnect()
        await asyncio.to_thread(self.client.loop_stop)

    async def subscribe(self, *topics: str) -> None:
        """Subscribe (now and after every reconnect) and wait for the broker's SUBACK."""
        self._topics += topics
        _, mid = self.client.subscribe([(t, 1) for t in topics])
        await self.until(lambda: mid in self._acked, f"no SUBACK for {topics}")

    def publish(
        self,
        topic: str,
        payload: dict[str, Any] | str | bytes,
        *,
        retain: bool = False,
        response_topic: str | None = None,
        correlation_data: bytes | None = None,
    ) -> None:
        if isinstance(payload, dict):
            payload = json.dumps(payload)
        properties = None
        if response_topic is not None or correlation_data is not None:
            properties = Properties(PacketTypes.PUBLISH)
            if response_topic is not None:
                properties.ResponseTopic = response_topic
            if correlation_data is not None:
                properties.CorrelationData = correlation_data
        self.client.publish(topic, payload, qos=1, retain=retain, properties=properties)

    async def expect(
        self,
        topic: str,
        where: Callable[[Message], bool] = lambda message: True,
    ) -> Message:
        """The first message on `topic` (matching `where`) not returned before."""
        found: list[Message] = []

        def take() -> bool:
            with self._lock:
                for index, message in enumerate(self._messages):
                    if index not in self._taken and message.topic == topic and where(message):
                        self._taken.add(index)
                        found.append(message)
                        return True
            return False

        await self.until(take, f"no message on {topic}")
        return found[0]

    async def response(self, topic: str, request_id: str | None) -> Any:
        """The next response on `topic` for `request_id`, as JSON."""
        message = await self.expect(topic, lambda m: _id_of(m) == request_id)
        return message.json()

    async def reconnected(self, times: int = 1) -> None:
        """Until this client has reconnected `times` times and subscribed again."""

        def done() -> bool:
            with self._lock:
                return len(self._resubscribed) >= times and self._resubscribed[-1] in self._acked

        await self.until(done, f"not reconnected {times} time(s)")

    def received(self, topic: str) -> list[Message]:
        with self._lock:
            return [m for m in self._messages if m.topic == topic]

    async def until(self, check: Callable[[], bool], what: str) -> None:
        """Poll `check` (paho fills our lists from its thread) for up to `patience_s`."""
        try:
            async with asyncio.timeout(self.patience_s):
                while not check():  # noqa: ASYNC110 - the condition changes in paho's thread
                    await asyncio.sleep(0.01)
        except TimeoutError:
            raise TimeoutError(what) from None

    # paho's thread

    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        if reason.is_failure:
            self.refused = reason
        else:
            self.connects += 1
            if self._topics:  # again after a reconnect
                _, mid = client.subscribe([(t, 1) for t in self._topics])
                with self._lock:
                    self._resubscribed.append(mid)
        self._connected.set()

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        self._connected.clear()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        props = message.properties
        correlation = getattr(props, "CorrelationData", None) if props else None
        with self._lock:
            self._messages.append(
                Message(message.topic, bytes(message.payload), bool(message.retain), correlation)
            )

    def _on_subscribe(
        self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any, props: Any
    ) -> None:
        with self._lock:
            self._acked.add(mid)

    def is_connected(self) -> bool:
        return self._connected.is_set() and self.refused is None


@asynccontextmanager
async def subscribed_client(
    broker: MosquittoBroker, *topics: str, **options: Any
) -> AsyncIterator[ApiClient]:
    """An `ApiClient` (`options`: its keyword arguments) connected and subscribed to
    `topics`; closed at the end."""
    client = ApiClient(broker, **options)
    await client.connect()
    try:
        await client.subscribe(*topics)
        yield client
    finally:
        await client.close()


def _id_of(message: Message) -> Any:
    try:
        return message.json().get("id")
    except ValueError, AttributeError:
        return object()
