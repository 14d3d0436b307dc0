"""The MQTT link of one config entry to one BotPsy app instance.

Follows the app's retained `status`, `info`, `policy/state` and `pairing/state`, sends
requests (signed when they act for an HA user) and matches their answers by `id`, and turns
the app's `events` into events on Home Assistant's bus.
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
from homeassistant.util.ulid import ulid_now

from .answers import PAIRING_LOST_CODES, error_code_of
from .const import DOMAIN, LOGGER
from .events import Origin, fire_action_event
from .mqtt_util import Handler, async_publish_json, async_subscribe_ready, json_object
from .signing import app_message_valid, fingerprint, sign
from .topics import AgentTopics

REQUEST_TIMEOUT_S = 90.0
"""The app's model path may take its own 60 s on slow hardware."""
RECENT_EXCHANGES = 10
ORIGINS_KEPT = 256
EVENT_MAX_AGE_S = 300.0
"""Events are not retained: one signed longer ago than this is a replay."""
DEFAULT_LANGUAGES = ("en", "ko", "id")


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
        self.topics = AgentTopics(instance)
        self._reply_topic = self.topics.reply(reply_key)
        self.online: bool | None = None
        """None until the app's retained status arrived."""
        self.info: dict[str, Any] | None = None
        self.policy_state: dict[str, Any] | None = None
        self.pairings: list[dict[str, str]] | None = None
        """The secrets the app holds (`id`, `label`), from its signed `pairing/state`."""
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._origins: OrderedDict[str, Origin] = OrderedDict()
        self.recent: deque[dict[str, Any]] = deque(maxlen=RECENT_EXCHANGES)
        """The last exchanges, for diagnostics (which redact their content)."""
        self._listeners: list[Callable[[], None]] = []
        self.on_pairing_lost: Callable[[], None] | None = None
        """Called when the app refuses a signed request for want of our secret."""
        self._policy_waiters: list[Callable[[dict[str, Any]], None]] = []
        self._unsubscribe: list[CALLBACK_TYPE] = []

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
    def languages(self) -> list[str]:
        languages = (self.info or {}).get("languages")
        if isinstance(languages, list) and languages:
            return [str(language) for language in languages]
        return list(DEFAULT_LANGUAGES)

    @property
    def version(self) -> str | None:
        version = (self.info or {}).get("version")
        return str(version) if version is not None else None

    @property
    def model(self) -> str | None:
        model = (self.info or {}).get("model")
        return str(model.get("file")) if isinstance(model, dict) else None

    # --- requests ----------------------------------------------------------------------------

    async def async_request(
        self,
        ask: Ask,
        *,
        via: str,
        context: Context | None = None,
        timeout_s: float | None = None,
    ) -> dict[str, Any]:
        """Send `ask` and return the app's response (its JSON). Raises `AgentUnavailable`
        when the app is offline or does not answer in time."""
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
            document = sign(document, self._secret)
        self._remember_origin(request_id, Origin(via, context))
        answered: asyncio.Future[dict[str, Any]] = self.hass.loop.create_future()
        self._pending[request_id] = answered
        started = time.monotonic()
        try:
            await async_publish_json(self.hass, self.topics.request, document)
            async with asyncio.timeout(REQUEST_TIMEOUT_S if timeout_s is None else timeout_s):
                response = await answered
        except TimeoutError:
            raise AgentUnavailable(
                translation_domain=DOMAIN, translation_key="agent_timeout"
            ) from None
        except AgentUnavailable:
            raise
        except HomeAssistantError as err:  # HA's MQTT client is not connected
            raise AgentUnavailable(
                translation_domain=DOMAIN, translation_key="mqtt_unavailable"
            ) from err
        finally:
            self._pending.pop(request_id, None)
        if "sig" in document and error_code_of(response) in PAIRING_LOST_CODES:
            LOGGER.warning(
                "The BotPsy app %s refused our signature (%s): pair again",
                self.instance,
                error_code_of(response),
            )
            if self.on_pairing_lost is not None:
                self.on_pairing_lost()
        self.recent.append(
            {
                "via": via,
                "language": ask.language,
                "user_id": ask.user_id,
                "dry_run": ask.dry_run,
                "round_trip_ms": round((time.monotonic() - started) * 1000, 1),
                "response": response,
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

        def check(state: dict[str, Any]) -> None:
            last = state.get("last_update")
            if (
                isinstance(last, dict)
                and last.get("key") == key
                and last.get("revision") == revision
                and not verdict.done()
            ):
                verdict.set_result(last)

        self._policy_waiters.append(check)
        try:
            await async_publish_json(self.hass, self.topics.policy_set(key), document, retain=True)
            async with asyncio.timeout(timeout_s):
                return await verdict
        except TimeoutError:
            return None
        finally:
            self._policy_waiters.remove(check)

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
        pending = self._pending.get(request_id) if isinstance(request_id, str) else None
        if response is None or pending is None or pending.done():
            LOGGER.debug("Ignored an answer on %s that no request waits for", message.topic)
            return
        if error_code_of(response) in PAIRING_LOST_CODES and response.get("actions") == []:
            # An app that lost our secret cannot sign for us: the refusal that says so is
            # believed unsigned (at worst a fake one asks the user to pair again).
            response.pop("sigs", None)
            pending.set_result(response)
        elif self._from_app(response, message.topic):
            response.pop("sigs", None)
            pending.set_result(response)

    @callback
    def _status_received(self, message: mqtt.ReceiveMessage) -> None:
        online = message.payload == "online"
        if online == self.online:
            return
        self.online = online
        if not online:
            LOGGER.warning("The BotPsy app %s is offline", self.instance)
            self._fail_pending()
        else:
            LOGGER.info("The BotPsy app %s is online", self.instance)
        self._notify()

    @callback
    def _info_received(self, message: mqtt.ReceiveMessage) -> None:
        info = json_object(message.payload)
        if info is not None:
            self.info = info
            self._notify()

    @callback
    def _policy_received(self, message: mqtt.ReceiveMessage) -> None:
        state = json_object(message.payload)
        if not self._from_app(state, message.topic):
            return
        assert state is not None
        self.policy_state = state
        for waiter in list(self._policy_waiters):
            waiter(state)

    @callback
    def _pairings_received(self, message: mqtt.ReceiveMessage) -> None:
        state = json_object(message.payload)
        if not self._from_app(state, message.topic):
            return
        assert state is not None
        listed = state.get("pairings")
        if not isinstance(listed, list):
            return
        self.pairings = [
            {"id": str(p.get("id")), "label": str(p.get("label", ""))}
            for p in listed
            if isinstance(p, dict) and isinstance(p.get("id"), str)
        ]
        self._notify()

    @callback
    def _event_received(self, message: mqtt.ReceiveMessage) -> None:
        event = json_object(message.payload)
        if not self._from_app(event, message.topic, max_age_s=EVENT_MAX_AGE_S):
            return
        assert event is not None
        if event.get("type") != "action" or not isinstance(event.get("data"), dict):
            return
        data: dict[str, Any] = event["data"]
        request_id = data.get("request_id")
        origin = self._origins.get(request_id) if isinstance(request_id, str) else None
        fire_action_event(self.hass, self.instance, data, origin)

    # --- helpers -----------------------------------------------------------------------------

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
