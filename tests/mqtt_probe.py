"""A small synchronous MQTT client for tests: publish, subscribe, wait for messages."""

from __future__ import annotations

from dataclasses import dataclass
import queue
import threading
import time
from typing import Any
import uuid

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion


@dataclass(frozen=True)
class Received:
    topic: str
    payload: bytes
    retain: bool
    qos: int


class MqttProbe:
    """paho in its own network thread; every message received lands in a queue."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        username: str | None = None,
        password: str | None = None,
        client_id: str | None = None,
        protocol: mqtt.MQTTProtocolVersion = mqtt.MQTTv311,
    ) -> None:
        self.host, self.port = host, port
        self.messages: queue.Queue[Received] = queue.Queue()
        self._connected = threading.Event()
        self._subscribed: dict[int, threading.Event] = {}
        self._subscribe_lock = threading.Lock()  # SUBACK may arrive before we record its mid
        self.connect_reason: Any = None
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id or f"probe-{uuid.uuid4().hex[:8]}",
            protocol=protocol,
        )
        if username is not None:
            self.client.username_pw_set(username, password)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_subscribe = self._on_subscribe

    def connect(self, timeout: float = 5.0) -> None:
        self.client.connect(self.host, self.port, keepalive=30)
        self.client.loop_start()
        if not self._connected.wait(timeout):
            raise TimeoutError(f"no CONNACK from {self.host}:{self.port}")
        if self.connect_reason is not None and self.connect_reason.is_failure:
            raise ConnectionError(f"broker refused the connection: {self.connect_reason}")

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def subscribe(self, topic: str, qos: int = 1, timeout: float = 5.0) -> None:
        """Subscribe and wait for the SUBACK, so nothing published afterwards is missed."""
        done = threading.Event()
        with self._subscribe_lock:
            _, mid = self.client.subscribe(topic, qos)
            self._subscribed[mid] = done
        if not done.wait(timeout):
            raise TimeoutError(f"no SUBACK for {topic}")

    def publish(self, topic: str, payload: str | bytes, qos: int = 1, retain: bool = False) -> None:
        info = self.client.publish(topic, payload, qos=qos, retain=retain)
        info.wait_for_publish(timeout=5)

    def expect(self, topic: str | None = None, timeout: float = 5.0) -> Received:
        """The next message (on `topic`, when given); others that arrive first are skipped."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = self.messages.get(timeout=left)
            except queue.Empty:
                break
            if topic is None or message.topic == topic:
                return message
        raise TimeoutError(f"no message on {topic or 'any topic'} within {timeout} s")

    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        self.connect_reason = reason
        self._connected.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        self.messages.put(Received(msg.topic, msg.payload, bool(msg.retain), msg.qos))

    def _on_subscribe(
        self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any, props: Any
    ) -> None:
        with self._subscribe_lock:
            event = self._subscribed.pop(mid, None)
        if event is not None:
            event.set()
