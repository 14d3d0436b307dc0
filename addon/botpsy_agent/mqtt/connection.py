"""The broker connection: paho-mqtt 2 with its network loop in paho's own thread.

Everything paho reports (connected, message, disconnected, acknowledged) is handed to the
asyncio loop with `call_soon_threadsafe`; the loop never waits on the network. Publishing
from the loop only queues bytes for paho's thread. paho reconnects by itself with an
exponential backoff; every (re)connect resubscribes and, once the broker confirms the
subscriptions, tells the owner, which re-announces.
QoS 1 messages published while the connection is down are kept and sent after reconnecting.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
import contextlib
from dataclasses import dataclass, field
import logging
import socket
import ssl
import time
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from botpsy_agent.mqtt.settings import BrokerSettings, MqttVersion

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class Received:
    """One message from the broker, copied out of paho's types in paho's thread: what the
    service routes and the dispatcher answers."""

    topic: str
    payload: bytes
    retained: bool = False
    qos: int = 0
    response_topic: str | None = None
    """MQTT 5 Response Topic property."""
    correlation_data: bytes | None = None
    """MQTT 5 Correlation Data property; returned unchanged with the answer."""
    received: float = field(default_factory=time.monotonic)
    """When it arrived (monotonic): a request's timings count from here."""


@dataclass(frozen=True)
class Will:
    topic: str
    payload: str | bytes
    qos: int = 1
    retain: bool = True


def send_at_once(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    """Send small packets at once: an answer must not wait for the acknowledgement of the
    PUBACK before it (Nagle's algorithm against delayed ACKs costs ~40 ms a hop)."""
    with contextlib.suppress(OSError, AttributeError):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class MqttConnection:
    """One broker connection; the owner supplies what to subscribe and what to do on events.

    All owner callbacks run in the asyncio loop that called `start()`.
    """

    def __init__(
        self,
        settings: BrokerSettings,
        client_id: str,
        *,
        will: Will | Callable[[], Will],
        subscriptions: Sequence[tuple[str, int]],
        on_connect: Callable[[], None],
        on_message: Callable[[Received], None],
        on_disconnect: Callable[[], None] = lambda: None,
    ) -> None:
        self.settings = settings
        self.client_id = client_id
        self._will = will
        """A fixed will, or one made anew for every connection attempt (a signed one)."""
        self._subscriptions = list(subscriptions)
        self._on_connect = on_connect
        self._on_message = on_message
        self._on_disconnect = on_disconnect
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: mqtt.Client | None = None
        self._acks: dict[int, asyncio.Future[None]] = {}
        self._subscribe_mid: int | None = None
        self.connected = False
        self._failures = 0  # connection attempts failed since the last success
        self.connections = 0
        """Successful connects so far (1 + reconnects)."""

    @property
    def v5(self) -> bool:
        return self.settings.version is MqttVersion.V5

    async def start(self) -> None:
        """Begin connecting (in the background: a broker that is down is retried)."""
        self._loop = asyncio.get_running_loop()
        # Building the client reads certificate files: not on the loop.
        client = await asyncio.to_thread(self._build_client)
        self._client = client
        client.connect_async(
            self.settings.host, self.settings.port, keepalive=self.settings.keepalive_s
        )
        client.loop_start()
        _LOGGER.info(
            "Connecting to MQTT broker %s:%d as %s (MQTT %s%s)",
            self.settings.host,
            self.settings.port,
            self.client_id,
            self.settings.version.value,
            ", TLS" if self.settings.tls else "",
        )

    def publish(
        self,
        topic: str,
        payload: str | bytes,
        *,
        qos: int = 1,
        retain: bool = False,
        correlation_data: bytes | None = None,
    ) -> mqtt.MQTTMessageInfo:
        """Queue a message; with QoS 1 it survives a broken connection until reconnect."""
        if self._client is None:
            raise RuntimeError("not started")
        properties = None
        if correlation_data is not None and self.v5:
            properties = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
            properties.CorrelationData = correlation_data
        return self._client.publish(topic, payload, qos=qos, retain=retain, properties=properties)

    async def publish_and_wait(
        self, topic: str, payload: str | bytes, *, retain: bool = False
    ) -> None:
        """Publish with QoS 1 and wait for the broker's acknowledgement."""
        info = self.publish(topic, payload, qos=1, retain=retain)
        acked = asyncio.get_running_loop().create_future()
        self._acks[info.mid] = acked
        try:
            await acked
        finally:
            self._acks.pop(info.mid, None)

    async def stop(self) -> None:
        """Disconnect cleanly (no last will) and end paho's thread."""
        client, self._client = self._client, None
        if client is None:
            return
        client.disconnect()
        await asyncio.to_thread(client.loop_stop)
        self.connected = False
        for acked in self._acks.values():
            acked.cancel()
        self._acks.clear()

    # --- paho's thread ----------------------------------------------------------------

    def _build_client(self) -> mqtt.Client:
        settings = self.settings
        protocol = mqtt.MQTTv5 if self.v5 else mqtt.MQTTv311
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            protocol=protocol,
            reconnect_on_failure=True,
        )
        client.enable_logger(logging.getLogger(f"{__name__}.paho"))
        if settings.username is not None:
            client.username_pw_set(settings.username, settings.password)
        if settings.tls is not None:
            context = ssl.create_default_context(
                ssl.Purpose.SERVER_AUTH,
                cafile=str(settings.tls.ca_file) if settings.tls.ca_file else None,
            )
            if settings.tls.cert_file is not None:
                context.load_cert_chain(
                    str(settings.tls.cert_file),
                    str(settings.tls.key_file) if settings.tls.key_file else None,
                )
            client.tls_set_context(context)
        self._set_will(client)
        client.reconnect_delay_set(settings.reconnect_min_s, settings.reconnect_max_s)
        client.on_connect = self._paho_connect
        client.on_disconnect = self._paho_disconnect
        client.on_message = self._paho_message
        client.on_publish = self._paho_publish
        client.on_subscribe = self._paho_subscribe
        client.on_socket_open = send_at_once
        client.on_connect_fail = self._paho_connect_fail
        return client

    def _set_will(self, client: mqtt.Client) -> None:
        will = self._will() if callable(self._will) else self._will
        client.will_set(will.topic, will.payload, qos=will.qos, retain=will.retain)

    def _paho_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any
    ) -> None:
        if reason.is_failure:
            _LOGGER.warning("MQTT broker refused the connection: %s; retrying", reason)
            return
        self._failures = 0
        # The owner hears of the connection once the broker has confirmed the subscriptions,
        # so nothing published to us after "connected" can be missed.
        _, self._subscribe_mid = client.subscribe(self._subscriptions)

    def _paho_subscribe(
        self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any, properties: Any
    ) -> None:
        if mid != self._subscribe_mid:
            return
        for (topic, _), reason in zip(self._subscriptions, reasons, strict=False):
            if reason.is_failure:
                _LOGGER.warning("The broker refused our subscription to %s: %s", topic, reason)
        self._to_loop(self._connected)

    def _paho_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        # paho does not say why; the first failure in a row is worth a warning, the
        # retries after it are not.
        self._failures += 1
        level = logging.WARNING if self._failures == 1 else logging.DEBUG
        _LOGGER.log(
            level,
            "Cannot connect to the MQTT broker at %s:%d (down, wrong address, or TLS "
            "refused); retrying with backoff",
            self.settings.host,
            self.settings.port,
        )

    def _paho_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any
    ) -> None:
        if callable(self._will):  # the next connect carries a will of its own
            self._set_will(client)
        self._to_loop(self._disconnected, str(reason))

    def _paho_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            topic = message.topic
        except UnicodeDecodeError:
            _LOGGER.warning("Ignored a message whose topic is not UTF-8")
            return
        props = message.properties
        response_topic = getattr(props, "ResponseTopic", None) if props else None
        correlation = getattr(props, "CorrelationData", None) if props else None
        received = Received(
            topic,
            bytes(message.payload),
            bool(message.retain),
            message.qos,
            response_topic,
            bytes(correlation) if correlation is not None else None,
        )
        self._to_loop(self._on_message, received)

    def _paho_publish(
        self, client: mqtt.Client, userdata: Any, mid: int, reason: Any, properties: Any
    ) -> None:
        self._to_loop(self._acknowledged, mid)

    def _to_loop(self, callback: Callable[..., None], *args: Any) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(callback, *args)
        except RuntimeError:  # the loop closed between the check and the call
            return

    # --- back in the asyncio loop -------------------------------------------------------

    def _connected(self) -> None:
        self.connected = True
        self.connections += 1
        _LOGGER.info(
            "Connected to MQTT broker %s:%d (%s)",
            self.settings.host,
            self.settings.port,
            "first time" if self.connections == 1 else f"reconnect {self.connections - 1}",
        )
        self._on_connect()

    def _disconnected(self, reason: str) -> None:
        was_connected, self.connected = self.connected, False
        if was_connected and self._client is not None:
            _LOGGER.warning("Lost the MQTT broker (%s); reconnecting with backoff", reason)
        self._on_disconnect()

    def _acknowledged(self, mid: int) -> None:
        acked = self._acks.get(mid)
        if acked is not None and not acked.done():
            acked.set_result(None)
