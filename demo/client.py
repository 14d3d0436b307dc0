"""Talk to the app as the HA integration does: signed requests on the MQTT topic API.

A request names the HA user it speaks for and is signed with the shared secret; the app
checks the signature, the user's permissions and only then acts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
import itertools
import json
import threading
import time
from typing import Any
import uuid

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from botpsy_agent.contract import sign
from botpsy_agent.mqtt.connection import send_at_once

WARM_UP_RETRY_S = 5.0
"""How often a request answered `warming_up` is asked again."""


class AgentClient:
    def __init__(self, host: str, port: int, instance: str, secret: str) -> None:
        self._secret = secret
        self._instance = instance
        self._reply_to = f"botpsy/{instance}/response/demo-cli"
        self._ids = itertools.count(1)
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.last_arrival = 0.0
        """When the last answer reached paho's thread (perf_counter): a bench's round trip
        without the wait for its own event loop."""
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._subscribed = threading.Event()
        self._client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=f"demo-cli-{uuid.uuid4().hex[:6]}"
        )
        self._client.on_message = self._on_message
        self._client.on_socket_open = send_at_once  # no ~40 ms wait for Nagle's algorithm
        self._client.on_subscribe = lambda *args: self._subscribed.set()
        self._host, self._port = host, port

    async def connect(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._client.connect(self._host, self._port)
        self._client.loop_start()
        self._client.subscribe(self._reply_to, qos=1)
        await asyncio.to_thread(self._subscribed.wait, 10)

    async def close(self) -> None:
        self._client.disconnect()
        await asyncio.to_thread(self._client.loop_stop)

    async def ask_when_warm(
        self,
        text: str,
        user_id: str,
        *,
        conversation_id: str | None = None,
        on_wait: Callable[[dict[str, Any]], None] | None = None,
    ) -> dict[str, Any]:
        """`ask`, asked again while the app answers `warming_up` (its model is building its
        prompt; the answer carries progress and an estimate)."""
        answer = await self.ask(text, user_id, conversation_id=conversation_id)
        while answer["status"] == "warming_up":
            if on_wait is not None:
                on_wait(answer)
            await asyncio.sleep(WARM_UP_RETRY_S)
            answer = await self.ask(text, user_id, conversation_id=conversation_id)
        return answer

    async def ask(
        self,
        text: str,
        user_id: str,
        *,
        conversation_id: str | None = None,
        dry_run: bool = False,
        timeout_s: float = 300.0,
        language: str = "en",
    ) -> dict[str, Any]:
        assert self._loop is not None
        request_id = f"demo-{next(self._ids)}-{uuid.uuid4().hex[:6]}"
        document: dict[str, Any] = {
            "id": request_id,
            "text": text,
            "user_id": user_id,
            "reply_to": self._reply_to,
            "language": language,
        }
        if conversation_id:
            document["conversation_id"] = conversation_id
        if dry_run:
            document["dry_run"] = True
        future: asyncio.Future[dict[str, Any]] = self._loop.create_future()
        with self._lock:
            self._waiting[request_id] = future
        payload = json.dumps(sign(document, self._secret))
        self._client.publish(f"botpsy/{self._instance}/request", payload, qos=1)
        try:
            return await asyncio.wait_for(future, timeout_s)
        finally:
            with self._lock:
                self._waiting.pop(request_id, None)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        self.last_arrival = time.perf_counter()
        try:
            answer = json.loads(message.payload)
        except json.JSONDecodeError:
            return
        with self._lock:
            future = self._waiting.get(str(answer.get("id")))
        if future is not None and self._loop is not None:
            self._loop.call_soon_threadsafe(lambda: future.done() or future.set_result(answer))
