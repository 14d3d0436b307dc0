"""The MQTT front door: the topic API of docs/mqtt-api.md around an `Agent`.

Announces the app (status, info, tools, stats, HA discovery) on every connect and whenever
HA comes online, answers each request through the `Dispatcher`, publishes every action on
the events topic, and presses the reload-model callback when HA's button is pressed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Sequence
import contextlib
import logging
import secrets as random
from typing import Any

from botpsy_agent.agent.protocol import Agent
from botpsy_agent.audit import DoorAudit
from botpsy_agent.contract import sign_app_message
from botpsy_agent.mqtt.announce import (
    AnnouncedModel,
    discovery_payload,
    info_payload,
    status_payload,
    tools_payload,
)
from botpsy_agent.mqtt.auth import Authenticator, UserDirectory, no_users
from botpsy_agent.mqtt.connection import MqttConnection, Received, Will
from botpsy_agent.mqtt.dispatch import (
    Answer,
    AnswerCheck,
    Dispatcher,
    PrincipalCheck,
)
from botpsy_agent.mqtt.settings import ApiSettings, BrokerSettings
from botpsy_agent.mqtt.signing import (
    ReplayGuard,
    SecretProvider,
    StaticSecrets,
)
from botpsy_agent.mqtt.topics import Topics
from botpsy_agent.mqtt.wire import json_payload

_LOGGER = logging.getLogger(__name__)
ONLINE, OFFLINE = "online", "offline"
STATS_MIN_INTERVAL_S = 1.0
WARMING_UP_STATS_INTERVAL_S = 2.0
NO_MODEL_STATS: dict[str, Any] = {
    "model_state": "none",
    "warming_up_percent": None,
    "warming_up_eta_s": None,
    "model_engine": None,
    "download_percent": None,
    "download_eta_s": None,
    "download_bytes": None,
    "download_total_bytes": None,
}
"""`model_engine`: which engine serves the model (`server`, `local`), None when none;
`download_*`: how far the model file's download is (`model_state` `downloading`)."""
OFFLINE_ACK_TIMEOUT_S = 3.0
SECRETS_CHECK_INTERVAL_S = 1.0
"""How often the app looks whether its paired secrets changed: a new pairing must find
`status` and `info` signed for it at once (its integration believes nothing else)."""
REANNOUNCE_MIN_INTERVAL_S = 10.0
"""HA's birth messages make the app announce again at most this often; births in between
are answered by one announcement when the interval ends (issue 18, finding 6: each 6-byte
`online` made the app republish ~38 KB)."""


class MqttService:
    """Serves one agent on `botpsy/<instance>/…` of one broker."""

    def __init__(
        self,
        agent: Agent,
        broker: BrokerSettings,
        api: ApiSettings | None = None,
        *,
        secrets: SecretProvider | None = None,
        users: UserDirectory = no_users,
        model: AnnouncedModel | None = None,
        on_reload_model: Callable[[], Awaitable[None]] | None = None,
        audit: DoorAudit | None = None,
        message_bodies: bool = False,
        known_principal: PrincipalCheck = lambda principal: True,
        answers_question: AnswerCheck = lambda request: False,
        broker_acl: str = "unknown",
    ) -> None:
        self.api = api or ApiSettings()
        self.topics = Topics.of(self.api)
        self._model = model
        self._broker_acl = broker_acl
        """What `info` says of the broker's ACL: `on`, `off` or `unknown` (D64)."""
        self._on_reload_model = on_reload_model
        replay = ReplayGuard(self.api.replay_window_s)
        self._secrets = secrets or StaticSecrets()
        authenticator = Authenticator(self._secrets, users, replay)
        self.dispatcher = Dispatcher(
            agent,
            self.api,
            authenticator,
            events=self._publish_event,
            audit=audit,
            message_bodies=message_bodies,
            known=known_principal,
            answers_question=answers_question,
        )
        self.dispatcher.stats.on_change = self._stats_changed
        self._session = random.token_hex(8)
        """Names this connection's `status` messages: its last will says `offline` for it,
        so HA can tell an old `offline` from another connection (issue 25, finding 3)."""
        self._announced_secrets: tuple[str, ...] = ()
        self.connection = MqttConnection(
            broker,
            broker.client_id or f"botpsy-{self.api.instance}",
            will=self._last_will,
            subscriptions=[
                (self.topics.request, 1),
                (self.topics.named_requests, 1),
                (self.topics.reload_model, 1),
                (self.topics.ha_status, 1),
            ],
            on_connect=self._connected,
            on_message=self._received,
            on_disconnect=self._disconnected,
        )
        self._tasks: set[asyncio.Task[None]] = set()
        self._reloading: asyncio.Task[None] | None = None
        """The reload in progress: one at a time (issue 18, finding 7: five presses left
        four loaded workers unreferenced)."""
        self._online = asyncio.Event()
        self._stats_dirty = asyncio.Event()
        self._stats_task: asyncio.Task[None] | None = None
        self._secrets_task: asyncio.Task[None] | None = None
        self.announcements = 0
        self._reannounced_at: float | None = None
        self._reannounce_later: asyncio.TimerHandle | None = None
        """How many times everything was announced (each connect, each HA birth)."""
        self.on_connection: list[Callable[[bool], None]] = []
        """Told True on every (re)connect, False on every loss of the broker."""
        self._problems: tuple[str, ...] = ()
        self.model_stats: Callable[[], dict[str, Any]] = lambda: dict(NO_MODEL_STATS)
        """The model's state for `stats` (the runtime points it at its worker)."""

    @property
    def online(self) -> bool:
        return self._online.is_set()

    async def start(self) -> None:
        """Start connecting; requests are served from the first successful connect on."""
        await self.connection.start()
        self._stats_task = asyncio.create_task(self._publish_stats_forever(), name="mqtt-stats")
        self._secrets_task = asyncio.create_task(self._follow_secrets(), name="mqtt-secrets")

    async def wait_online(self) -> None:
        """Until connected and subscribed (wrap it in `asyncio.timeout`)."""
        await self._online.wait()

    async def stop(self) -> None:
        """Finish or stop running requests (each still answered), say `offline`, disconnect."""
        dispatcher = self.dispatcher
        dispatcher.closing = True
        try:
            async with asyncio.timeout(self.api.shutdown_grace_s):
                await dispatcher.wait_idle()
        except TimeoutError:
            _LOGGER.warning("Stopping %d running request(s)", dispatcher.cancel_running())
        if self._tasks:
            await asyncio.wait(set(self._tasks))
        if self._reannounce_later is not None:
            self._reannounce_later.cancel()
            self._reannounce_later = None
        for task in (self._stats_task, self._secrets_task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._stats_task = self._secrets_task = None
        if self.connection.connected:
            try:
                async with asyncio.timeout(OFFLINE_ACK_TIMEOUT_S):
                    await self.connection.publish_and_wait(
                        self.topics.status, self._status(OFFLINE), retain=True
                    )
            except TimeoutError:
                _LOGGER.warning("The broker did not confirm 'offline' in time")
        await self.connection.stop()
        self._online.clear()
        _LOGGER.info("MQTT service stopped")

    def set_model(self, model: AnnouncedModel | None) -> None:
        """A (re)loaded model: the info topic (and HA's model sensor) follow."""
        self._model = model
        if self.online:
            self._publish_info()

    def set_broker_acl(self, broker_acl: str) -> None:
        """What the app found out about the broker's ACL (again): `info` follows."""
        if broker_acl != self._broker_acl:
            self._broker_acl = broker_acl
            if self.online:
                self._publish_info()

    def set_health(self, problems: Sequence[str]) -> None:
        """What is wrong with the app now (empty: nothing); the stats topic and HA's
        *Health* sensor show it."""
        problems = tuple(problems)
        if problems != self._problems:
            self._problems = problems
            self._stats_changed()

    # --- announcements ------------------------------------------------------------------

    def announce(self) -> None:
        """Publish status, info, tools, stats and HA discovery (again)."""
        self.announcements += 1
        publish = self.connection.publish
        self._announced_secrets = tuple(self._secrets.secrets())
        publish(self.topics.status, self._status(ONLINE), retain=True)
        self._publish_info()
        publish(self.topics.tools, json_payload(tools_payload()), retain=True)
        # Discovery is not retained: HA asks for it again by announcing itself online.
        publish(self.topics.discovery, json_payload(discovery_payload(self.api)))
        self._publish_stats()

    def _publish_info(self) -> None:
        info = info_payload(self.api, self._model, self._broker_acl)
        payload = json_payload(self._signed(info))
        self.connection.publish(self.topics.info, payload, retain=True)

    def _status(self, state: str) -> bytes:
        """`status`: online or offline, of this connection's session, signed for HA."""
        return json_payload(self._signed(status_payload(state, self._session)))

    def _last_will(self) -> Will:
        """A will for the next connection: a new session, signed with today's secrets (the
        connection asks before every connect)."""
        self._session = random.token_hex(8)
        return Will(self.topics.status, self._status(OFFLINE))

    async def _follow_secrets(self) -> None:
        """A pairing added or revoked a secret: sign `status` and `info` anew, so the new
        integration believes them at once. (The will of the live connection stays signed
        with the secrets it connected with until the next connect.)"""
        while True:
            await asyncio.sleep(SECRETS_CHECK_INTERVAL_S)
            secrets = tuple(self._secrets.secrets())
            if secrets != self._announced_secrets and self.connection.connected:
                self._announced_secrets = secrets
                _LOGGER.info("The paired secrets changed: signing status and info anew")
                self.connection.publish(self.topics.status, self._status(ONLINE), retain=True)
                self._publish_info()

    def stats(self) -> dict[str, Any]:
        """What the `stats` topic says now: the door's queue and latency, health, the model."""
        stats = self.dispatcher.stats.to_json()
        stats["health"] = "degraded" if self._problems else "ok"
        stats["problems"] = list(self._problems)
        stats.update(self.model_stats())
        return stats

    @property
    def model(self) -> AnnouncedModel | None:
        """The loaded model as announced to HA; None while none is loaded."""
        return self._model

    def _publish_stats(self) -> None:
        payload = json_payload(self.stats())
        self.connection.publish(self.topics.stats, payload, qos=0, retain=True)

    def _stats_changed(self) -> None:
        self._stats_dirty.set()

    async def _publish_stats_forever(self) -> None:
        """On change (at most once a second), and every `stats_interval_s` for the rate."""
        while True:
            interval = self.api.stats_interval_s
            if self.model_stats()["model_state"] in {"warming_up", "downloading"}:
                interval = min(interval, WARMING_UP_STATS_INTERVAL_S)  # the progress moves
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stats_dirty.wait(), interval)
            self._stats_dirty.clear()
            if self.connection.connected:
                self._publish_stats()
            await asyncio.sleep(STATS_MIN_INTERVAL_S)

    def _publish_event(self, event: dict[str, Any]) -> None:
        self.connection.publish(self.topics.events, json_payload(self._signed(event)))

    def _signed(self, message: dict[str, Any], *, timestamped: bool = True) -> dict[str, Any]:
        """Signed for the integration, which believes no answer or event without it
        (issue 18, finding 12: any client could fake them)."""
        return sign_app_message(message, self._secrets.secrets(), timestamped=timestamped)

    # --- what the broker brings ---------------------------------------------------------

    def _connected(self) -> None:
        self.announce()
        self._online.set()
        for callback in self.on_connection:
            callback(True)

    def _ha_online(self) -> None:
        """HA was (re)born: announce again now, or once when the minimum interval ends."""
        if self._reannounce_later is not None:
            return  # one announcement is already due
        loop = asyncio.get_running_loop()
        now = loop.time()
        due = (self._reannounced_at or -REANNOUNCE_MIN_INTERVAL_S) + REANNOUNCE_MIN_INTERVAL_S
        if now >= due:
            self._reannounce()
        else:
            _LOGGER.debug("Home Assistant is online again: announcing in %.1f s", due - now)
            self._reannounce_later = loop.call_later(due - now, self._reannounce)

    def _reannounce(self) -> None:
        self._reannounce_later = None
        self._reannounced_at = asyncio.get_running_loop().time()
        if self.connection.connected:
            _LOGGER.info("Home Assistant is online: announcing again")
            self.announce()

    def _disconnected(self) -> None:
        for callback in self.on_connection:
            callback(False)

    def _received(self, message: Received) -> None:
        topic = message.topic
        if topic == self.topics.ha_status:
            if message.payload.strip() == ONLINE.encode():
                self._ha_online()
            return
        if topic == self.topics.reload_model:
            if message.retained:  # a press left on the broker must not act at every start
                _LOGGER.warning("Ignored a retained reload_model command")
            elif message.payload.strip() != b"PRESS":
                _LOGGER.warning(
                    "Ignored reload_model command %r: expected PRESS", message.payload[:20]
                )
            elif self._reloading is not None and not self._reloading.done():
                _LOGGER.info("Reload model pressed again: the reload in progress goes on")
            else:
                self._reloading = self._spawn(self._reload_model())
            return
        self._spawn(self._answer(message))

    async def _answer(self, request: Received) -> None:
        try:
            answer: Answer = await self.dispatcher.dispatch(request)
        except Exception:  # a bug of ours: say so loudly, the client's timeout answers it
            _LOGGER.exception("No answer to a message on %s", request.topic)
            return
        self.connection.publish(
            answer.topic,
            json_payload(self._signed(answer.to_json(), timestamped=False)),
            correlation_data=answer.correlation_data,
        )

    async def _reload_model(self) -> None:
        if self._on_reload_model is None:
            _LOGGER.warning("Reload model pressed, but this app cannot reload its model")
            return
        _LOGGER.info("Reloading the model (HA's button)")
        try:
            await self._on_reload_model()
        except Exception:
            _LOGGER.exception("Reloading the model failed")
        self._publish_info()

    def _spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        # Started at once, not on the loop's next turn: a fast-path answer needs no wait.
        task = asyncio.create_task(work, eager_start=True)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task
