"""Signing requests for the app: HMAC-SHA256 over the canonical JSON (docs/mqtt-api.md).

The canonical form is the object without `sig`, keys sorted, no whitespace, characters
beyond ASCII as themselves, UTF-8; `sig` is its lowercase hex HMAC-SHA256 keyed with the
shared secret.

The app signs its answers, events and `policy/state` back (`app_message_valid`): `sigs`
maps a secret's fingerprint (12 hex digits of its SHA-256) to the HMAC-SHA256 of
`APP_MESSAGE_DOMAIN` and the canonical form of the message without `sigs`.

Answers to requests sent with `seal` carry their speech and actions sealed to our secret
(`open_answer`): base64 of a 16-byte nonce and the JSON of those fields XOR HMAC-SHA256
blocks keyed with `seal_key(secret)`. Check the answer's signature first.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
import hashlib
import hmac
import json
import time
from typing import Any

APP_MESSAGE_DOMAIN = b"botpsy app message\n"
SEAL_DOMAIN = b"botpsy answer seal\n"
SEAL_NONCE_BYTES = 16


def canonical_bytes(document: Mapping[str, Any], without: str = "sig") -> bytes:
    unsigned = {key: value for key, value in document.items() if key != without}
    text = json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


def sign(document: Mapping[str, Any], secret: str) -> dict[str, Any]:
    """A copy of `document` with `ts` (now) and `sig`."""
    signed = dict(document)
    signed["ts"] = int(time.time())
    signed["sig"] = hmac.new(
        secret.encode("utf-8"), canonical_bytes(signed), hashlib.sha256
    ).hexdigest()
    return signed


def fingerprint(secret: str) -> str:
    """The public name of a secret, as the app lists and signs with it."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()[:12]


def app_message_valid(
    document: Mapping[str, Any], secret: str, *, max_age_s: float | None = None
) -> bool:
    """Whether the app signed `document` with our `secret` (and, with `max_age_s`, its
    `ts` is that close to now): anyone else on the broker could have written it."""
    sigs = document.get("sigs")
    sig = sigs.get(fingerprint(secret)) if isinstance(sigs, dict) else None
    if not isinstance(sig, str):
        return False
    covered = APP_MESSAGE_DOMAIN + canonical_bytes(document, without="sigs")
    expected = hmac.new(secret.encode("utf-8"), covered, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, sig):
        return False
    if max_age_s is None:
        return True
    ts = document.get("ts")
    return isinstance(ts, int) and abs(time.time() - ts) <= max_age_s


def seal_key(secret: str) -> bytes:
    """The key the app seals our answers with (derived from the secret, never equal)."""
    return hmac.new(secret.encode("utf-8"), SEAL_DOMAIN, hashlib.sha256).digest()


def _keystream(key: bytes, nonce: bytes, length: int) -> bytes:
    blocks = (
        hmac.new(key, nonce + counter.to_bytes(4, "big"), hashlib.sha256).digest()
        for counter in range((length + 31) // 32)
    )
    return b"".join(blocks)[:length]


def open_answer(answer: Mapping[str, Any], secret: str) -> dict[str, Any] | None:
    """`answer` with its sealed fields opened (as it is, when nothing is sealed); None when
    the seal is not one our secret opens."""
    opened = {key: value for key, value in answer.items() if key != "sealed"}
    sealed = answer.get("sealed")
    if sealed is None:
        return opened
    try:
        raw = base64.b64decode(str(sealed), validate=True)
    except ValueError:  # binascii.Error is one
        return None
    nonce, cipher = raw[:SEAL_NONCE_BYTES], raw[SEAL_NONCE_BYTES:]
    if len(nonce) != SEAL_NONCE_BYTES:
        return None
    stream = _keystream(seal_key(secret), nonce, len(cipher))
    try:
        private = json.loads(bytes(a ^ b for a, b in zip(cipher, stream, strict=True)))
    except ValueError:
        return None
    if not isinstance(private, dict):
        return None
    return opened | private
