"""The Home Assistant integration's own topics: pairing and permission updates.

They run on a broker connection of their own (`botpsy-<instance>-integration`), beside the
request front door, so neither can delay the other:

    botpsy/<instance>/pairing/open             HA -> app   `PRESS`: ask HA for the code of an
                                                           admin's pairing (opens nothing itself)
    botpsy/<instance>/pairing/request          HA -> app   pairing messages (`pairing.py`)
    botpsy/<instance>/pairing/response/<s>     app -> HA   their answers
    botpsy/<instance>/pairing/revoke           HA -> app   signed: revoke a paired secret
    botpsy/<instance>/pairing/status           app -> HA   retained `open` while a window is
                                                           open, else `closed` (also the will)
    botpsy/<instance>/pairing/state            app -> HA   retained, signed: the paired secrets
                                                           (ids and labels, never the secrets)
    botpsy/<instance>/policy/set/<key>         HA -> app   retained, signed rules (`policy_sync.py`)
    botpsy/<instance>/policy/state             app -> HA   retained: the file's users and classes

At start-up under the Supervisor, the channel also offers the integration to Home Assistant
through the Supervisor's discovery, with the shared secret.

A press on `pairing/open` is unsigned: anyone on the broker can send one. It only makes the
app ask Home Assistant, over its own authenticated connection, for the code of a pairing an
admin started in the config flow (`PairingCodes`); the window opens with that code, or not
at all. Nobody is shown a code. Pairing messages that arrive while no window is open are
answered at once, without the group arithmetic; at most `MAX_PAIRING_TASKS` run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
import contextlib
import json
import logging
from pathlib import Path
import time
from typing import Any, Protocol

from botpsy_agent.contract import sign_app_message
from botpsy_agent.ha import SupervisorAccess
from botpsy_agent.link.pairing import (
    SECRETS_FILE,
    Pairing,
    Revocations,
    SecretStore,
    is_code,
    offer_to_home_assistant,
)
from botpsy_agent.link.policy_sync import PolicyUpdates
from botpsy_agent.mqtt import (
    ApiSettings,
    BrokerSettings,
    MqttConnection,
    RateLimiter,
    Received,
    SecretFile,
    Topics,
    Will,
    json_payload,
)
from botpsy_agent.policy import PolicyStore

_LOGGER = logging.getLogger(__name__)
_SECURITY = logging.getLogger("botpsy_agent.security")
REVISIONS_FILE = "policy_revisions.json"
MAX_PAIRING_PAYLOAD = 4096
MAX_POLICY_PAYLOAD = 65_536
MAX_PAIRING_TASKS = 4
"""Pairing messages worked on at once; more are dropped (a flood must not pile up work)."""
PAIRING_MESSAGES_PER_MINUTE = 30
"""Pairing messages (starts, confirmations) read a minute; more are dropped unread. One
pairing takes two; a flood must not buy the arithmetic or an answer for each message."""
OPEN_PRESSES_PER_MINUTE = 6
"""`pairing/open` presses obeyed a minute, each one question to Home Assistant; a config
flow presses once per try."""


class PairingCodes(Protocol):
    """Where the code of a pairing an admin started comes from (`ha.pairing_codes`)."""

    def fetch(self, instance: str) -> Awaitable[str | None]: ...


class NoCodes:
    """No connection to Home Assistant: no admin's pairing can be seen, none opens."""

    async def fetch(self, instance: str) -> str | None:
        return None


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
        codes: PairingCodes | None = None,
        pairing_by_code: bool = True,
        is_admin: Callable[[str], bool] = lambda _user_id: False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.pairing = pairing
        self.revocations = Revocations(pairing.store, is_admin=is_admin)
        self.policy = policy
        self._supervisor = supervisor
        self._codes = codes or NoCodes()
        self.pairing_by_code = pairing_by_code
        """False: presses are ignored (under the Supervisor, unless an admin turned the
        `pairing_by_code` option on); the Supervisor's discovery shares the secret."""
        self._clock = clock
        self._fetching = False
        # Messages, not requesters: no share of these minutes is kept for HA users.
        self._pairing_limit = RateLimiter(
            None, PAIRING_MESSAGES_PER_MINUTE, clock=clock, ha_users_share=0
        )
        self._open_limit = RateLimiter(None, OPEN_PRESSES_PER_MINUTE, clock=clock, ha_users_share=0)
        self._window_task: asyncio.Task[None] | None = None
        self._topics = topics = Topics.of(api)
        client_id = broker.client_id or f"botpsy-{api.instance}"
        self.connection = MqttConnection(
            broker,
            f"{client_id}-integration",
            will=Will(topics.pairing_status, "closed"),
            subscriptions=[
                (topics.pairing_open, 1),
                (topics.pairing_request, 1),
                (topics.pairing_revoke, 1),
                (topics.policy_updates, 1),
            ],
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
        codes: PairingCodes | None = None,
        pairing_by_code: bool = True,
        is_admin: Callable[[str], bool] = lambda _user_id: False,
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
            broker,
            api,
            pairing=Pairing(api.instance, store),
            policy=updates,
            supervisor=supervisor,
            codes=codes,
            pairing_by_code=pairing_by_code,
            is_admin=is_admin,
        )

    async def start(self) -> None:
        """Connect (in the background) and offer the integration through the Supervisor
        when the app runs under one. Pairing stays closed until someone opens a window."""
        await self.connection.start()
        if self.pairing_by_code:
            _LOGGER.info(
                "Pairing with Home Assistant is closed until an admin adds the BotPsy "
                "integration there (its config flow opens a window)"
            )
        else:
            _LOGGER.info("Pairing by code is off (option pairing_by_code)")
        if self._supervisor is not None:
            await offer_to_home_assistant(
                self._supervisor, self.pairing.instance, self.pairing.store
            )

    async def wait_online(self) -> None:
        await self._online.wait()

    async def stop(self) -> None:
        if self._window_task is not None:
            self._window_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._window_task
        if self._tasks:
            await asyncio.wait(set(self._tasks))
        if self.connection.connected:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(3.0):
                    await self.connection.publish_and_wait(
                        self._topics.pairing_status, "closed", retain=True
                    )
        await self.connection.stop()
        self._online.clear()

    def publish_pairing_state(self) -> None:
        if self.connection.connected:
            status = "open" if self.pairing.is_open else "closed"
            self.connection.publish(self._topics.pairing_status, status, retain=True)
            secrets = [secret for secret, _ in self.pairing.store.entries()]
            listing = {"open": status == "open", "pairings": self.pairing.store.listing()}
            state = sign_app_message(listing, secrets)  # signed: HA raises issues from it
            self.connection.publish(self._topics.pairing_state, json_payload(state), retain=True)

    def publish_policy_state(self) -> None:
        if self.connection.connected:  # signed: the integration believes no verdict without
            secrets = [secret for secret, _ in self.pairing.store.entries()]
            state = sign_app_message(self.policy.state(), secrets)
            self.connection.publish(self._topics.policy_state, json_payload(state), retain=True)

    # --- what the broker brings ---------------------------------------------------------

    def _connected(self) -> None:
        self.publish_pairing_state()
        self.publish_policy_state()
        self._online.set()

    def _received(self, message: Received) -> None:
        pairing_topics = (
            self._topics.pairing_open,
            self._topics.pairing_request,
            self._topics.pairing_revoke,
        )
        if message.topic in pairing_topics and (
            message.retained or len(message.payload) > MAX_PAIRING_PAYLOAD
        ):
            _LOGGER.warning("Ignored a retained or oversized message on %s", message.topic)
        elif message.topic == self._topics.pairing_open:
            self._open_pressed(message.payload)
        elif message.topic == self._topics.pairing_revoke:
            self._revoke(message.payload)
        elif message.topic == self._topics.pairing_request:
            if _over(self._pairing_limit, "pairing messages"):
                pass
            elif not self.pairing.is_open:
                self._answer_closed(message.payload)
            elif len(self._tasks) >= MAX_PAIRING_TASKS:
                _LOGGER.debug("Dropped a pairing message: %d at work", len(self._tasks))
            else:
                self._spawn(self._pair(message.payload))
        elif (key := self._topics.policy_update_key(message.topic)) is not None:
            if len(message.payload) > MAX_POLICY_PAYLOAD:
                _LOGGER.warning("Ignored an oversized permission update for %s", key)
                return
            if self.policy.apply(key, message.payload) is not None:
                self.publish_policy_state()

    def _open_pressed(self, payload: bytes) -> None:
        if payload.strip() != b"PRESS":
            _LOGGER.warning("Ignored a pairing/open message: expected PRESS")
        elif not self.pairing_by_code:
            _LOGGER.info("Ignored a pairing/open press: pairing by code is off")
        elif self._fetching:
            _LOGGER.debug("Ignored a pairing/open press: Home Assistant is being asked already")
        elif not _over(self._open_limit, "pairing/open presses"):
            self._fetching = True
            self._spawn(self._open_for_admin())

    async def _open_for_admin(self) -> None:
        """Open a window with the code of the pairing an admin started, if HA has one."""
        try:
            code = await self._codes.fetch(self.pairing.instance)
        finally:
            self._fetching = False
        if code is None or not is_code(code):
            _SECURITY.warning(
                "Security event: a pairing/open press that no admin's pairing in Home "
                "Assistant asked for; no window opened"
            )
            return
        self.pairing.open_window(code)
        self.publish_pairing_state()
        if self._window_task is None or self._window_task.done():
            self._window_task = asyncio.create_task(self._close_when_due())

    async def _close_when_due(self) -> None:
        """When the window ends (time or use): say so on `pairing/status`."""
        while self.pairing.is_open:
            closes_at = self.pairing.closes_at or 0.0
            await asyncio.sleep(min(5.0, max(0.05, closes_at - self._clock())))
        self.publish_pairing_state()

    def _answer_closed(self, payload: bytes) -> None:
        """No window: the error answer, with no arithmetic and no task."""
        message = _json_object(payload)
        answer = self.pairing.handle(message) if message is not None else None
        if answer is not None:
            topic = self._topics.pairing_response(answer["session"])
            self.connection.publish(topic, json_payload(answer))

    async def _pair(self, payload: bytes) -> None:
        message = _json_object(payload)
        if message is None:
            _LOGGER.warning("Ignored a pairing message that is not a JSON object")
            return
        async with self._pairing_lock:  # the group arithmetic runs off the loop, one at a time
            answer = await asyncio.to_thread(self.pairing.handle, message)
        if answer is None:
            return
        topic = self._topics.pairing_response(answer["session"])
        self.connection.publish(topic, json_payload(answer))
        if answer["step"] == "paired":
            self.publish_pairing_state()

    def _revoke(self, payload: bytes) -> None:
        message = _json_object(payload)
        if message is not None and self.revocations.handle(message) is not None:
            self.publish_pairing_state()

    def _spawn(self, work: Any) -> None:
        task: asyncio.Task[None] = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _over(limit: RateLimiter, what: str) -> bool:
    """Take one from `limit`, or say it is used up (logged once per flood)."""
    limited = limit.admit("pairing")
    if limited is None:
        return False
    _SECURITY.log(
        logging.WARNING if limited.streak == 1 else logging.DEBUG,
        "Security event: more than %d %s a minute; dropping them for %.0f s",
        limited.limit,
        what,
        limited.retry_after_s,
    )
    return True


def _json_object(payload: bytes) -> dict[str, Any] | None:
    try:
        message = json.loads(payload)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None
