"""Pairing with the app: the shared signing secret from a one-time code, over MQTT.

The config flow opens a pairing window (`pairing/open`); the app then shows a one-time code
in Home Assistant's notifications (never in its log), and the user types it here. Both sides
run SPAKE2 (`spake2.py`) on `botpsy/<instance>/pairing/…`: a listener on the broker learns
nothing, and without the code nobody can pair (one guess per session, a few sessions per
window). Then a signed test request shows that the app accepts the secret. A signed
`pairing/revoke` removes a secret from the app (the entry's own, when it is removed).
"""

from __future__ import annotations

import asyncio
import re
import secrets
from typing import Any

from homeassistant.components import mqtt
from homeassistant.core import HomeAssistant, callback

from . import spake2
from .answers import error_code_of
from .link import AgentLink, AgentUnavailable, Ask
from .mqtt_util import QOS, async_publish_json, async_subscribe_ready, json_object
from .signing import sign
from .topics import AgentTopics

PAIRING_TIMEOUT_S = 15.0
PROBE_TIMEOUT_S = 10.0
CODE_PATTERN = re.compile(r"[0-9A-HJKMNP-TV-Z]{8}")
PROBE_USER = "botpsy-connection-test"
"""A user id no HA user has: the app answers a correctly signed request for it
`unknown_user` without running anything, and a wrongly signed one `bad_signature`."""


class PairingError(Exception):
    """Pairing or the test request failed; `reason` is the config flow's error key."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def normalize_code(text: str) -> str:
    """Case, spaces and dashes do not matter; O, I and L count as 0, 1 and 1."""
    cleaned = re.sub(r"[\s-]", "", text).upper()
    return cleaned.translate(str.maketrans("OIL", "011"))


async def async_pair(hass: HomeAssistant, instance: str, code: str) -> str:
    """The shared secret agreed with the app `instance` using `code`."""
    code = normalize_code(code)
    if not CODE_PATTERN.fullmatch(code):
        raise PairingError("invalid_code")
    topics = AgentTopics(instance)
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


async def async_open_window(hass: HomeAssistant, instance: str) -> None:
    """Ask the app to open a pairing window: it shows the code in HA's notifications."""
    await mqtt.async_publish(hass, AgentTopics(instance).pairing_open, "PRESS", qos=QOS)


async def async_revoke(hass: HomeAssistant, instance: str, secret: str, target: str) -> None:
    """Ask the app to forget a paired secret: `self` (the one signing) or a fingerprint."""
    message = sign({"v": 1, "revoke": target}, secret)
    await async_publish_json(hass, AgentTopics(instance).pairing_revoke, message)


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
            Ask("connection test", "en", user_id=PROBE_USER),
            via="setup",
            timeout_s=PROBE_TIMEOUT_S,
        )
    except TimeoutError, AgentUnavailable:
        raise PairingError("cannot_connect") from None
    finally:
        await link.async_stop()
    if error_code_of(response) != "unknown_user":
        raise PairingError("secret_rejected")
