"""Talk to the app as the HA integration does: signed requests on the MQTT topic API.

A request names the HA user it speaks for and is signed with the shared secret; the app
checks the signature, the user's permissions and only then acts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
import itertools
import json
from typing import Any
import uuid

from botpsy_agent.contract import sign
from botpsy_agent.mqtt import BrokerSettings, MqttConnection, Received

WARM_UP_RETRY_S = 5.0
"""How often a request answered `warming_up` is asked again."""


class AgentClient:
    """The app's own broker connection (paho driven by this event loop, as HA's MQTT
    integration drives it), subscribed to one reply topic."""

    def __init__(self, host: str, port: int, instance: str, secret: str) -> None:
        self._secret = secret
        self._instance = instance
        self._reply_to = f"botpsy/{instance}/response/demo-cli"
        self._ids = itertools.count(1)
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.last_arrival = 0.0
        """When the last answer reached the client's network code (`time.monotonic`): a
        bench's round trip without the wait for the rest of its event loop's turn."""
        self._online = asyncio.Event()
        self._connection = MqttConnection(
            BrokerSettings(host, port),
            f"demo-cli-{uuid.uuid4().hex[:6]}",
            will=None,
            subscriptions=[(self._reply_to, 1)],
            on_connect=self._online.set,
            on_message=self._on_message,
            on_disconnect=self._online.clear,
        )

    async def connect(self) -> None:
        await self._connection.start()
        async with asyncio.timeout(10):
            await self._online.wait()

    async def close(self) -> None:
        await self._connection.stop()

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
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = future
        payload = json.dumps(sign(document, self._secret))
        self._connection.publish(f"botpsy/{self._instance}/request", payload, qos=1)
        try:
            return await asyncio.wait_for(future, timeout_s)
        finally:
            self._waiting.pop(request_id, None)

    def _on_message(self, message: Received) -> None:
        self.last_arrival = message.received
        try:
            answer = json.loads(message.payload)
        except json.JSONDecodeError:
            return
        future = self._waiting.get(str(answer.get("id")))
        if future is not None and not future.done():
            future.set_result(answer)
