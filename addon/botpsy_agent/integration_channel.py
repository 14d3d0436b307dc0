"""The Home Assistant integration's own topics: pairing and permission updates.

They run on a broker connection of their own (`botpsy-<instance>-integration`), beside the
request front door, so neither can delay the other:

    botpsy/<instance>/pairing/request          HA -> app   pairing messages (`pairing.py`)
    botpsy/<instance>/pairing/response/<s>     app -> HA   their answers
    botpsy/<instance>/pairing/status           app -> HA   retained `open` (will: `closed`)
    botpsy/<instance>/policy/set/<key>         HA -> app   retained, signed rules (`policy_sync.py`)
    botpsy/<instance>/policy/state             app -> HA   retained: the file's users and classes

At start-up under the Supervisor, the channel also offers the integration to Home Assistant
through the Supervisor's discovery, with the shared secret.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
import contextlib
import json
import logging
from pathlib import Path
from typing import Any

from botpsy_agent.mqtt.connection import MqttConnection, Received, Will
from botpsy_agent.mqtt.settings import ApiSettings, BrokerSettings
from botpsy_agent.mqtt.signing import SecretFile
from botpsy_agent.mqtt.wire import json_payload
from botpsy_agent.pairing import SECRETS_FILE, Pairing, SecretStore, offer_to_home_assistant
from botpsy_agent.policy.store import PolicyStore
from botpsy_agent.policy_sync import PolicyUpdates
from botpsy_agent.supervisor import SupervisorAccess

_LOGGER = logging.getLogger(__name__)
REVISIONS_FILE = "policy_revisions.json"
MAX_PAIRING_PAYLOAD = 4096
MAX_POLICY_PAYLOAD = 65_536


class IntegrationChannel:
    """Serves pairing and permission updates for one app instance."""

    def __init__(
        self,
        broker: BrokerSettings,
        api: ApiSettings,
        *,
        pairing: Pairing,
        policy: PolicyUpdates,
        supervisor: SupervisorAccess | None = None,
    ) -> None:
        self.pairing = pairing
        self.policy = policy
        self._supervisor = supervisor
        root = f"{api.base_topic}/{api.instance}"
        self._pairing_request = f"{root}/pairing/request"
        self._pairing_response = f"{root}/pairing/response"
        self._pairing_status = f"{root}/pairing/status"
        self._policy_set = f"{root}/policy/set/"
        self._policy_state = f"{root}/policy/state"
        client_id = broker.client_id or f"botpsy-{api.instance}"
        self.connection = MqttConnection(
            broker,
            f"{client_id}-integration",
            will=Will(self._pairing_status, "closed"),
            subscriptions=[(self._pairing_request, 1), (self._policy_set + "+", 1)],
            on_connect=self._connected,
            on_message=self._received,
        )
        self._online = asyncio.Event()
        self._pairing_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        policy.store.on_change.append(lambda _: self.publish_policy_state())

    @classmethod
    def for_app(
        cls,
        broker: BrokerSettings,
        api: ApiSettings,
        *,
        data_dir: Path,
        policies: PolicyStore,
        known_user_ids: Callable[[], Iterable[str] | None],
        supervisor: SupervisorAccess | None = None,
    ) -> IntegrationChannel:
        """The channel as the app runs it: secrets and revisions in the data folder."""
        store = SecretStore(data_dir / SECRETS_FILE)
        updates = PolicyUpdates(
            api.instance,
            policies,
            SecretFile(data_dir / SECRETS_FILE),
            data_dir / REVISIONS_FILE,
            known_user_ids,
        )
        return cls(
            broker, api, pairing=Pairing(api.instance, store), policy=updates, supervisor=supervisor
        )

    async def start(self) -> None:
        """Connect (in the background), show the pairing code, and offer the integration
        through the Supervisor when the app runs under one."""
        await self.connection.start()
        self.pairing.announce()
        if self._supervisor is not None:
            await offer_to_home_assistant(
                self._supervisor, self.pairing.instance, self.pairing.store
            )

    async def wait_online(self) -> None:
        await self._online.wait()

    async def stop(self) -> None:
        if self._tasks:
            await asyncio.wait(set(self._tasks))
        if self.connection.connected:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(3.0):
                    await self.connection.publish_and_wait(
                        self._pairing_status, "closed", retain=True
                    )
        await self.connection.stop()
        self._online.clear()

    def publish_policy_state(self) -> None:
        if self.connection.connected:
            payload = json_payload(self.policy.state())
            self.connection.publish(self._policy_state, payload, retain=True)

    # --- what the broker brings ---------------------------------------------------------

    def _connected(self) -> None:
        self.connection.publish(self._pairing_status, "open", retain=True)
        self.publish_policy_state()
        self._online.set()

    def _received(self, message: Received) -> None:
        if message.topic == self._pairing_request:
            if message.retained or len(message.payload) > MAX_PAIRING_PAYLOAD:
                _LOGGER.warning("Ignored a retained or oversized pairing message")
                return
            self._spawn(self._pair(message.payload))
        elif message.topic.startswith(self._policy_set):
            key = message.topic.removeprefix(self._policy_set)
            if len(message.payload) > MAX_POLICY_PAYLOAD:
                _LOGGER.warning("Ignored an oversized permission update for %s", key)
                return
            if self.policy.apply(key, message.payload) is not None:
                self.publish_policy_state()

    async def _pair(self, payload: bytes) -> None:
        try:
            message = json.loads(payload)
        except ValueError:
            message = None
        if not isinstance(message, dict):
            _LOGGER.warning("Ignored a pairing message that is not a JSON object")
            return
        async with self._pairing_lock:  # the group arithmetic runs off the loop, one at a time
            answer = await asyncio.to_thread(self.pairing.handle, message)
        if answer is not None:
            topic = f"{self._pairing_response}/{answer['session']}"
            self.connection.publish(topic, json_payload(answer))

    def _spawn(self, work: Any) -> None:
        task: asyncio.Task[None] = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
