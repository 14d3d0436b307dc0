"""The MQTT link of one config entry to one BotPsy app instance.

Follows the app's retained `status`, `info`, `policy/state` and `pairing/state`, sends
requests (each signed: for an HA user, or as Home Assistant itself) and matches their
answers by `id`, and turns the app's `events` into events on Home Assistant's bus.

Without a broker ACL any login can write the app's topics, so nothing is believed unless
the app signed it with our secret (issue 18, finding 12; issue 25, findings 1 and 3):
answers, `status`, `info`, `policy/state`, `pairing/state`, and events, each of which is
believed once.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
import time
from typing import Any

from homeassistant.components import mqtt
from homeassistant.core import CALLBACK_TYPE, Context, HomeAssistant, callback
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers.event import async_call_later
from homeassistant.util.ulid import ulid_now

from .answers import PAIRING_LOST_CODES
from .const import DOMAIN, LOGGER
from .contract import (
    HA_PRINCIPAL,
    AppInfo,
    AppResponse,
    AppStatus,
    BrokerAcl,
    ContractError,
    InstanceTopics,
    Pairing,
    PolicyVerdict,
    app_message_valid,
    fingerprint,
    open_answer,
    pairings_from_json,
    sign,
)
from .events import Origin, fire_action_event
from .mqtt_util import Handler, async_publish_json, async_subscribe_ready, json_object

REQUEST_TIMEOUT_S = 90.0
"""The app's model path may take its own 60 s on slow hardware."""
RECENT_EXCHANGES = 10
ORIGINS_KEPT = 256
EVENT_MAX_AGE_S = 300.0
"""Events are not retained: one signed longer ago than this is a replay."""
EVENTS_REMEMBERED = 4096
"""Signatures of action events seen in the last `EVENT_MAX_AGE_S` (the app's rate limits
keep far fewer actions than this in that time); a second copy is a replay."""
ENDED_SESSIONS_KEPT = 32
PAIRING_CHECK_S = 30.0
"""A `status` the app signed for other pairings but not ours, and none for us this long
after: the app lost our secret (a restore, a reinstall). HA's birth makes the app announce
again within seconds, so a fake one alone cannot outlast this."""


class AgentUnavailable(HomeAssistantError):
    """The app cannot answer: offline, or no answer in time. `translation_key` says which."""


@dataclass(frozen=True)
class Ask:
    """One request, as the integration sends it."""

    text: str
    language: str
    user_id: str | None = None
    """The HA user it acts for (then it is signed); None: Home Assistant's principal."""
    conversation_id: str | None = None
    device_id: str | None = None
    area_id: str | None = None
    dry_run: bool = False


class AgentLink:
    """Home Assistant's side of the topic API for one app instance."""

    def __init__(self, hass: HomeAssistant, instance: str, secret: str, reply_key: str) -> None:
        self.hass = hass
        self.instance = instance
        self._secret = secret
        self.topics = InstanceTopics(instance)
        self._request_topic = self.topics.request_of(HA_PRINCIPAL)
        self._reply_topic = f"{self.topics.response_of(HA_PRINCIPAL)}/{reply_key}"
        self.online: bool | None = None
        """None until the app's retained status arrived."""
        self.info: AppInfo | None = None
        self.policy_state: dict[str, Any] | None = None
        self.pairings: tuple[Pairing, ...] | None = None
        """The secrets the app holds, from its signed `pairing/state`."""
        self._pending: dict[str, asyncio.Future[AppResponse]] = {}
        self._origins: OrderedDict[str, Origin] = OrderedDict()
        self.recent: deque[dict[str, Any]] = deque(maxlen=RECENT_EXCHANGES)
        """The last exchanges, for diagnostics (which redact their content)."""
        self._listeners: list[Callable[[], None]] = []
        self.on_pairing_lost: Callable[[], None] | None = None
        """Called when the app refuses a signed request for want of our secret."""
        self._policy_waiters: list[Callable[[PolicyVerdict], None]] = []
        self._unsubscribe: list[CALLBACK_TYPE] = []
        self._session: str | None = None
        """The app connection whose signed `status` we believe now, and its `ts`."""
        self._status_ts = 0
        self._ended_sessions: deque[str] = deque(maxlen=ENDED_SESSIONS_KEPT)
        self._events_seen: OrderedDict[str, float] = OrderedDict()
        """Our signature of each action event believed, until its `ts` is too old anyway."""
        self._pairing_check: CALLBACK_TYPE | None = None
        self._unverified_refusals: dict[str, AppResponse] = {}
        """Refusals `bad_signature`/`unauthenticated` we cannot verify, by request: believed
        only when no signed answer came before the request's timeout."""

    # --- life cycle --------------------------------------------------------------------------

    async def async_start(self, *, follow: bool = True) -> None:
        """Subscribe to the app's answers and (`follow`) its status, info, events and policy;
        returns once the broker confirmed every subscription."""
        topics = self.topics
        subscriptions: list[tuple[str, Handler]] = [(self._reply_topic, self._answer_received)]
        if follow:
            subscriptions += [
                (topics.status, self._status_received),
                (topics.info, self._info_received),
                (topics.events, self._event_received),
                (topics.policy_state, self._policy_received),
                (topics.pairing_state, self._pairings_received),
            ]
        self._unsubscribe = await async_subscribe_ready(self.hass, subscriptions)

    async def async_stop(self) -> None:
        if self._pairing_check is not None:
            self._pairing_check()
            self._pairing_check = None
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        self._fail_pending()

    @callback
    def add_listener(self, listener: Callable[[], None]) -> CALLBACK_TYPE:
        """Call `listener` whenever the app's status or info changes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    # --- what the app reports ----------------------------------------------------------------

    @property
    def _info(self) -> AppInfo:
        return self.info or AppInfo()

    @property
    def languages(self) -> list[str]:
        return list(self._info.languages)

    @property
    def version(self) -> str | None:
        return self._info.version

    @property
    def broker_acl(self) -> BrokerAcl | None:
        """What the app found of the broker's ACL; None when its signed `info` does not say
        (an older app)."""
        return self._info.broker_acl

    @property
    def model(self) -> str | None:
        """The model file the app runs; None when it has none."""
        return self._info.model_file

    # --- requests ----------------------------------------------------------------------------

    async def async_request(
        self,
        ask: Ask,
        *,
        via: str,
        context: Context | None = None,
        timeout_s: float | None = None,
    ) -> AppResponse:
        """Send `ask` and return the app's response. Raises `AgentUnavailable` when the app
        is offline, does not answer in time, or answers what this version cannot read."""
        if self.online is False:
            raise AgentUnavailable(translation_domain=DOMAIN, translation_key="agent_offline")
        request_id = f"ha-{ulid_now()}"
        optional = {
            "conversation_id": ask.conversation_id,
            "device_id": ask.device_id,
            "area_id": ask.area_id,
        }
        document: dict[str, Any] = {
            "id": request_id,
            "text": ask.text,
            "language": ask.language,
            "reply_to": self._reply_topic,
        } | {field: value for field, value in optional.items() if value}
        if ask.dry_run:
            document["dry_run"] = True
        if ask.user_id is not None:
            document["user_id"] = ask.user_id
        else:  # a satellite, an automation: Home Assistant itself, signed as such
            document["origin"] = HA_PRINCIPAL
        document = sign(document | {"seal": True}, self._secret)
        self._remember_origin(request_id, Origin(via, context))
        answered: asyncio.Future[AppResponse] = self.hass.loop.create_future()
        self._pending[request_id] = answered
        started = time.monotonic()
        try:
            await async_publish_json(self.hass, self._request_topic, document)
            async with asyncio.timeout(REQUEST_TIMEOUT_S if timeout_s is None else timeout_s):
                response = await answered
        except TimeoutError:
            # Only an unsigned refusal came: an app that lost our secret looks like this,
            # and a faker who cannot also silence the real app's answer gains nothing.
            refusal = self._unverified_refusals.get(request_id)
            if refusal is None:
                raise AgentUnavailable(
                    translation_domain=DOMAIN, translation_key="agent_timeout"
                ) from None
            response = refusal
        except AgentUnavailable:
            raise
        except HomeAssistantError as err:  # HA's MQTT client is not connected
            raise AgentUnavailable(
                translation_domain=DOMAIN, translation_key="mqtt_unavailable"
            ) from err
        finally:
            self._pending.pop(request_id, None)
            self._unverified_refusals.pop(request_id, None)
        if response.error_code in PAIRING_LOST_CODES:
            self._pairing_lost(str(response.error_code))
        self.recent.append(
            {
                "via": via,
                "language": ask.language,
                "user_id": ask.user_id,
                "dry_run": ask.dry_run,
                "round_trip_ms": round((time.monotonic() - started) * 1000, 1),
                "response": response.document,
            }
        )
        return response

    @property
    def pairing_id(self) -> str:
        """This entry's own secret, by the id the app lists it under."""
        return fingerprint(self._secret)

    async def async_revoke_pairing(self, pairing_id: str, user_id: str) -> None:
        """Ask the app to forget the paired secret `pairing_id`, for the admin `user_id`
        (signed with this entry's secret; the app checks that the user is an admin)."""
        message = sign({"v": 1, "revoke": pairing_id, "user_id": user_id}, self._secret)
        await async_publish_json(self.hass, self.topics.pairing_revoke, message)

    async def async_publish_rules(
        self, key: str, body: dict[str, Any], timeout_s: float
    ) -> dict[str, Any] | None:
        """Send a permission update (retained, signed) and wait for the app's verdict:
        the `last_update` of its policy state, or None when none came in time."""
        revision = time.time_ns() // 1_000_000
        document = sign(
            {"key": key, "instance": self.instance, "revision": revision, **body}, self._secret
        )
        verdict: asyncio.Future[dict[str, Any]] = self.hass.loop.create_future()

        def check(last: PolicyVerdict) -> None:
            if (last.key, last.revision) == (key, revision) and not verdict.done():
                verdict.set_result(last.to_json())

        self._policy_waiters.append(check)
        try:
            await async_publish_json(self.hass, self.topics.policy_set(key), document, retain=True)
            async with asyncio.timeout(timeout_s):
                return await verdict
        except TimeoutError:
            return None
        finally:
            self._policy_waiters.remove(check)

    def _pairing_lost(self, why: str) -> None:
        LOGGER.warning(
            "The BotPsy app %s refused our signature (%s): pair again", self.instance, why
        )
        if self.on_pairing_lost is not None:
            self.on_pairing_lost()

    # --- what the broker brings ----------------------------------------------------------------

    def _from_app(self, document: dict[str, Any] | None, topic: str, **checks: Any) -> bool:
        """Whether the app signed `document` with our secret; anything else on the broker
        could have written it (a fake answer, verdict or event), so it is ignored."""
        if document is None:
            return False
        if app_message_valid(document, self._secret, **checks):
            return True
        LOGGER.warning("Ignored a message on %s that the app did not sign", topic)
        return False

    @callback
    def _answer_received(self, message: mqtt.ReceiveMessage) -> None:
        response = json_object(message.payload)
        request_id = response.get("id") if response else None
        if response is None or not isinstance(request_id, str):
            LOGGER.debug("Ignored an answer on %s without an id", message.topic)
            return
        pending = self._pending.get(request_id)
        if pending is None or pending.done():
            LOGGER.debug("Ignored an answer on %s that no request waits for", message.topic)
            return
        if not app_message_valid(response, self._secret):
            self._keep_unverified_refusal(request_id, response)
            LOGGER.warning("Ignored a message on %s that the app did not sign", message.topic)
            return
        opened = open_answer(response, self._secret)
        if opened is None:
            LOGGER.warning("Ignored an answer on %s whose seal is not ours", message.topic)
            return
        try:
            pending.set_result(AppResponse.from_json(opened))
        except ContractError as err:
            LOGGER.warning("Cannot read an answer of the BotPsy app %s: %s", self.instance, err)
            pending.set_exception(
                AgentUnavailable(translation_domain=DOMAIN, translation_key="invalid_answer")
            )

    def _keep_unverified_refusal(self, request_id: str, response: dict[str, Any]) -> None:
        """An app that lost our secret cannot sign for us, but neither can a faker: the
        request goes on waiting for a signed answer, and only then believes this refusal
        (issue 25, finding 3)."""
        try:
            refusal = AppResponse.from_json(response)
        except ContractError:
            return
        if refusal.error_code in PAIRING_LOST_CODES:
            self._unverified_refusals[request_id] = refusal

    @callback
    def _status_received(self, message: mqtt.ReceiveMessage) -> None:
        status = json_object(message.payload)
        if not self._from_app(status, message.topic):
            if status is not None and isinstance(status.get("sigs"), dict):
                self._maybe_unpaired()
            return
        assert status is not None
        try:
            news = AppStatus.from_json(status)
        except ContractError as err:
            LOGGER.warning("Ignored a status of the BotPsy app %s: %s", self.instance, err)
            return
        if not self._status_is_news(news):
            LOGGER.debug("Ignored an old status of the BotPsy app %s", self.instance)
            return
        online = news.online
        if online == self.online:
            return
        self.online = online
        if not online:
            LOGGER.info("The BotPsy app %s is offline", self.instance)
            self._fail_pending()
        else:
            LOGGER.info("The BotPsy app %s is online", self.instance)
        self._notify()

    def _maybe_unpaired(self) -> None:
        """The app signs its status, but not for us: unless a status signed for us comes
        soon, it no longer holds our secret."""
        if self._session is not None or self._pairing_check is not None:
            return

        @callback
        def check(_now: object) -> None:
            self._pairing_check = None
            if self._session is None:
                self._pairing_lost("its status is signed, but not with our secret")

        self._pairing_check = async_call_later(self.hass, PAIRING_CHECK_S, check)

    def _status_is_news(self, status: AppStatus) -> bool:
        """Whether a status the app signed is about now, not a copy of an older one: an
        `offline` counts for the connection we believe (its last will) or a later one; an
        `online` for no connection that said `offline` already, nor one older than ours."""
        session, ts = status.session, status.ts
        current = session == self._session
        if status.online:
            fresh = session not in self._ended_sessions and (current or ts >= self._status_ts)
        else:
            fresh = current or ts >= self._status_ts
            if fresh:
                self._ended_sessions.append(session)
        if fresh:
            self._session, self._status_ts = session, max(ts, self._status_ts)
        return fresh

    @callback
    def _info_received(self, message: mqtt.ReceiveMessage) -> None:
        info = json_object(message.payload)
        if not self._from_app(info, message.topic):
            return
        assert info is not None
        try:
            self.info = AppInfo.from_json(info)
        except ContractError as err:
            LOGGER.warning("Ignored an info of the BotPsy app %s: %s", self.instance, err)
            return
        self._notify()

    @callback
    def _policy_received(self, message: mqtt.ReceiveMessage) -> None:
        state = json_object(message.payload)
        if not self._from_app(state, message.topic):
            return
        assert state is not None
        try:
            verdict = PolicyVerdict.of_state(state)
        except ContractError as err:
            LOGGER.warning("Ignored a policy state of the BotPsy app %s: %s", self.instance, err)
            return
        self.policy_state = state
        if verdict is not None:
            for waiter in list(self._policy_waiters):
                waiter(verdict)

    @callback
    def _pairings_received(self, message: mqtt.ReceiveMessage) -> None:
        state = json_object(message.payload)
        if not self._from_app(state, message.topic):
            return
        assert state is not None
        try:
            self.pairings = pairings_from_json(state)
        except ContractError as err:
            LOGGER.warning("Ignored a pairing state of the BotPsy app %s: %s", self.instance, err)
            return
        self._notify()

    @callback
    def _event_received(self, message: mqtt.ReceiveMessage) -> None:
        event = json_object(message.payload)
        if not self._from_app(event, message.topic, max_age_s=EVENT_MAX_AGE_S):
            return
        assert event is not None
        if event.get("type") != "action" or not isinstance(event.get("data"), dict):
            return
        if not self._first_copy(event):
            LOGGER.warning("Ignored a copy of an event on %s seen before", message.topic)
            return
        data: dict[str, Any] = event["data"]
        request_id = data.get("request_id")
        origin = self._origins.get(request_id) if isinstance(request_id, str) else None
        fire_action_event(self.hass, self.instance, data, origin)

    # --- helpers -----------------------------------------------------------------------------

    def _first_copy(self, event: dict[str, Any]) -> bool:
        """Whether this signed event is new; remembered until its `ts` is too old anyway."""
        now = time.time()
        while self._events_seen and (
            next(iter(self._events_seen.values())) < now
            or len(self._events_seen) >= EVENTS_REMEMBERED
        ):
            self._events_seen.popitem(last=False)
        key = str(event["sigs"][fingerprint(self._secret)])
        if key in self._events_seen:
            return False
        self._events_seen[key] = float(event["ts"]) + EVENT_MAX_AGE_S
        return True

    def _remember_origin(self, request_id: str, origin: Origin) -> None:
        self._origins[request_id] = origin
        while len(self._origins) > ORIGINS_KEPT:
            self._origins.popitem(last=False)

    def _fail_pending(self) -> None:
        """The app went offline (or the entry unloads): no request waits for its timeout."""
        for pending in self._pending.values():
            if not pending.done():
                pending.set_exception(
                    AgentUnavailable(translation_domain=DOMAIN, translation_key="agent_offline")
                )

    def _notify(self) -> None:
        for listener in list(self._listeners):
            listener()
