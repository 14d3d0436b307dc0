"""Pairing with the app: the shared signing secret from a one-time code, over MQTT.

Only an admin pairs: the config flow (which HA runs for admins only) makes a one-time code
and keeps it here (`PairingCodes`), then presses `pairing/open`. The press opens nothing by
itself: the app asks Home Assistant for the code over its own authenticated connection, on
the WebSocket command `botpsy/pairing/code`, which only admins may call, and opens a pairing
window with it. Nobody is shown the code; it never passes the broker, a notification or a
log. Both sides then run SPAKE2 (`spake2.py`) on `botpsy/<instance>/pairing/…`: a listener
on the broker learns nothing, and without the code nobody can pair (one guess per session,
a few sessions per window). Then a signed test request shows that the app accepts the
secret. A signed `pairing/revoke` removes a secret from the app (the entry's own, when it
is removed; another one only for an admin).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
import contextlib
from dataclasses import dataclass, field
import secrets
from typing import Any, Final

from homeassistant.components import mqtt, websocket_api
from homeassistant.components.websocket_api.connection import ActiveConnection
from homeassistant.components.websocket_api.decorators import require_admin, websocket_command
from homeassistant.core import HomeAssistant, callback
from homeassistant.exceptions import HomeAssistantError
import probatio

from .contract import CONNECTION_TEST_USER, ErrorCode, InstanceTopics, sign, spake2
from .link import AgentLink, AgentUnavailable, Ask
from .mqtt_util import QOS, async_publish_json, async_subscribe_ready, json_object

PAIRING_TIMEOUT_S = 15.0
PROBE_TIMEOUT_S = 10.0
FETCH_TIMEOUT_S = 10.0
"""How long the flow waits for the app to fetch its code (it asks HA at once)."""
CODE_ALPHABET: Final = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH: Final = 8
CODE_COMMAND: Final = "botpsy/pairing/code"
DATA_CODES: Final = "botpsy_pairing_codes"


class PairingError(Exception):
    """Pairing or the test request failed; `reason` is the config flow's error key."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class _Offer:
    code: str = field(repr=False)
    fetched: asyncio.Event = field(default_factory=asyncio.Event)


class PairingCodes:
    """The codes of the pairings admins' config flows are making, one per instance, held
    only in memory until the app fetches them (once)."""

    def __init__(self) -> None:
        self._offers: dict[str, _Offer] = {}

    @classmethod
    def of(cls, hass: HomeAssistant) -> PairingCodes:
        """This HA's codes; the first call registers the WebSocket command that hands
        them out."""
        codes: PairingCodes | None = hass.data.get(DATA_CODES)
        if codes is None:
            codes = hass.data[DATA_CODES] = cls()
            websocket_api.async_register_command(hass, _ws_pairing_code)
        return codes

    @contextlib.asynccontextmanager
    async def offered(self, instance: str) -> AsyncIterator[_Offer]:
        """A fresh code for `instance` while the block runs (a newer flow's replaces it)."""
        offer = _Offer("".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH)))
        self._offers[instance] = offer
        try:
            yield offer
        finally:
            if self._offers.get(instance) is offer:
                del self._offers[instance]

    def fetch(self, instance: str) -> str | None:
        """The code waiting for `instance`, once; None when no flow is pairing with it."""
        offer = self._offers.get(instance)
        if offer is None or offer.fetched.is_set():
            return None
        offer.fetched.set()
        return offer.code


@require_admin
@websocket_command({probatio.Required("type"): CODE_COMMAND, probatio.Required("instance"): str})
@callback
def _ws_pairing_code(
    hass: HomeAssistant, connection: ActiveConnection, msg: dict[str, Any]
) -> None:
    """The app asks (over its admin connection) for the code of the pairing an admin
    started; only admins may: the code lets whoever has it pair and act as anyone."""
    code = PairingCodes.of(hass).fetch(msg["instance"])
    if code is None:
        connection.send_error(msg["id"], "not_found", "no pairing is waiting for this app")
    else:
        connection.send_result(msg["id"], {"code": code})


async def async_pair(hass: HomeAssistant, instance: str) -> str:
    """The shared secret agreed with the app `instance`, by a code only HA and the app see."""
    async with PairingCodes.of(hass).offered(instance) as offer:
        try:
            await mqtt.async_publish(hass, InstanceTopics(instance).pairing_open, "PRESS", qos=QOS)
        except HomeAssistantError:  # HA's MQTT integration is not connected (or not set up)
            raise PairingError("cannot_connect") from None
        try:
            async with asyncio.timeout(FETCH_TIMEOUT_S):
                await offer.fetched.wait()
        except TimeoutError:
            # Not running, pairing by code off (under the Supervisor), or its HA token is
            # not an admin's.
            raise PairingError("pairing_unavailable") from None
        return await async_exchange_secret(hass, instance, offer.code)


async def async_exchange_secret(hass: HomeAssistant, instance: str, code: str) -> str:
    """SPAKE2 with the app's open window for `code`: the secret both sides derive."""
    topics = InstanceTopics(instance)
    session = secrets.token_hex(8)
    answers: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    @callback
    def answer_received(message: mqtt.ReceiveMessage) -> None:
        if (answer := json_object(message.payload)) is not None:
            answers.put_nowait(answer)

    try:
        unsubscribe = await async_subscribe_ready(
            hass, [(topics.pairing_response(session), answer_received)]
        )
    except TimeoutError:
        raise PairingError("cannot_connect") from None
    try:
        w = spake2.password_scalar(code, instance)
        x = spake2.random_exponent()
        t = await hass.async_add_executor_job(spake2.share, x, w, spake2.M)
        start = {"v": 1, "step": "start", "session": session, "share": spake2.element_to_hex(t)}
        await async_publish_json(hass, topics.pairing_request, start)
        reply = await _next(answers, "share")
        keys = await hass.async_add_executor_job(_keys, instance, t, reply, w, x)
        if not spake2.tags_match(keys.confirm_b, reply.get("confirm")):
            raise PairingError("invalid_code")
        confirm = {"v": 1, "step": "confirm", "session": session, "confirm": keys.confirm_a}
        await async_publish_json(hass, topics.pairing_request, confirm)
        await _next(answers, "paired")
    finally:
        for stop in unsubscribe:
            stop()
    return keys.secret


async def async_revoke(
    hass: HomeAssistant, instance: str, secret: str, target: str, *, user_id: str | None = None
) -> None:
    """Ask the app to forget a paired secret: `self` (the one signing) or a fingerprint
    (another's: the app wants `user_id`, an admin's, under the signature)."""
    document: dict[str, Any] = {"v": 1, "revoke": target}
    if user_id is not None:
        document["user_id"] = user_id
    await async_publish_json(hass, InstanceTopics(instance).pairing_revoke, sign(document, secret))


def _keys(instance: str, t: int, reply: dict[str, Any], w: int, x: int) -> spake2.SessionKeys:
    try:
        s = spake2.element_from_hex(reply.get("share"))
    except spake2.Spake2Error:
        raise PairingError("pairing_failed") from None
    k = spake2.shared_element(s, w, spake2.N, x)
    return spake2.session_keys(instance, t, s, k, w)


async def _next(answers: asyncio.Queue[dict[str, Any]], step: str) -> dict[str, Any]:
    try:
        async with asyncio.timeout(PAIRING_TIMEOUT_S):
            answer = await answers.get()
    except TimeoutError:
        raise PairingError("cannot_connect") from None
    if answer.get("step") == step:
        return answer
    reasons = {"wrong_code": "invalid_code", "pairing_closed": "pairing_closed"}
    raise PairingError(reasons.get(str(answer.get("code")), "pairing_failed"))


async def async_probe(hass: HomeAssistant, instance: str, secret: str, reply_key: str) -> None:
    """One signed round trip: returns when the app accepts `secret`, else `PairingError`."""
    link = AgentLink(hass, instance, secret, reply_key)
    try:
        await link.async_start(follow=False)
        response = await link.async_request(
            # No HA user has this id: the app answers a well-signed request for it
            # `unknown_user` without running anything, a wrongly signed one `bad_signature`.
            Ask("connection test", "en", user_id=CONNECTION_TEST_USER),
            via="setup",
            timeout_s=PROBE_TIMEOUT_S,
        )
    except TimeoutError, AgentUnavailable, HomeAssistantError:
        # HomeAssistantError: HA's MQTT integration is not set up yet (BotPsy discovered and
        # confirmed before Mosquitto's card): a form error, not "Unknown error".
        raise PairingError("cannot_connect") from None
    finally:
        await link.async_stop()
    if response.error_code != ErrorCode.UNKNOWN_USER:
        raise PairingError("secret_rejected")
