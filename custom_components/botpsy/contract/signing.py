"""Signatures and seals: HMAC-SHA256 over a canonical form, both ways.

The canonical form of a message is the JSON object without its signature field, written
with keys sorted, no whitespace (separators `,` and `:`), characters beyond ASCII as
themselves (not `\\u` escapes), encoded as UTF-8 — in Python:

    json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()

A signed request carries `ts` and `sig`, the lowercase hex HMAC-SHA256 of those bytes keyed
with the shared secret's UTF-8 bytes.

The app signs what the integration relies on (answers, events, `policy/state`) the other
way round (issue 18, finding 12): `ts` and `sigs`, an object from each paired secret's
fingerprint to the HMAC-SHA256, keyed with that secret, of `APP_MESSAGE_DOMAIN` followed by
the canonical form of the message without `sigs`. The domain keeps an app message from ever
passing as a signed request, and the fingerprint lets each holder find its own signature.

An answer to a request that asks for it (`seal`, signed) carries its bodies — `speech` and
`actions` — sealed to the secret that signed the request (issue 25, finding 3): `sealed` is
base64 of a 16-byte random nonce and the JSON of those fields XOR a keystream of
HMAC-SHA256 blocks (`seal_key(secret)`, nonce, block counter). Only the standard library
is used (the app's image has no cryptography package); the `sigs` over the whole message
make it encrypt-then-MAC: check the signature before opening the seal.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
import hashlib
import hmac
import json
from secrets import token_bytes
import time
from typing import Any

APP_MESSAGE_DOMAIN = b"botpsy app message\n"
SEAL_DOMAIN = b"botpsy answer seal\n"
SEALED_FIELDS = ("speech", "actions")
"""What of an answer only its requester may read."""
SEAL_NONCE_BYTES = 16


def canonical_bytes(document: Mapping[str, Any], without: str = "sig") -> bytes:
    """The bytes a signature covers: every field but `without`, canonical JSON, UTF-8."""
    unsigned = {key: value for key, value in document.items() if key != without}
    text = json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


def _hmac_hex(secret: str, covered: bytes) -> str:
    return hmac.new(secret.encode("utf-8"), covered, hashlib.sha256).hexdigest()


def signature(document: Mapping[str, Any], secret: str) -> str:
    return _hmac_hex(secret, canonical_bytes(document))


def sign(document: Mapping[str, Any], secret: str, *, now: float | None = None) -> dict[str, Any]:
    """A copy of `document` with `ts` (now, unless it has one) and its `sig`: what a client
    such as the HA integration publishes."""
    signed = dict(document)
    signed.setdefault("ts", int(time.time() if now is None else now))
    signed["sig"] = signature(signed, secret)
    return signed


def signature_matches(document: Mapping[str, Any], sig: str, secrets: Iterable[str]) -> bool:
    """Constant-time check of `sig` against every secret (all are tried, match or not)."""
    return matching_secret(document, sig, secrets) is not None


def matching_secret(document: Mapping[str, Any], sig: str, secrets: Iterable[str]) -> str | None:
    """The secret `sig` was made with, or None; every secret is tried, match or not."""
    found = None
    for secret in secrets:
        if hmac.compare_digest(signature(document, secret), sig):
            found = secret
    return found


def fingerprint(secret: str) -> str:
    """A short public name of a secret (a hash: it tells secrets apart, reveals none), as
    the app lists and signs with it."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()[:12]


def sign_app_message(
    document: Mapping[str, Any],
    secrets: Iterable[str],
    *,
    now: float | None = None,
    timestamped: bool = True,
) -> dict[str, Any]:
    """A copy of an app message with `ts` (now, unless it has one or not `timestamped`) and
    `sigs` for every secret (none: `sigs` is empty and no integration believes it).
    Answers are not timestamped: their request's unique id already ties them to one
    request, and a retry must get the very same bytes."""
    signed = {key: value for key, value in document.items() if key != "sigs"}
    if timestamped:
        signed.setdefault("ts", int(time.time() if now is None else now))
    covered = APP_MESSAGE_DOMAIN + canonical_bytes(signed, without="sigs")
    signed["sigs"] = {fingerprint(secret): _hmac_hex(secret, covered) for secret in secrets}
    return signed


def app_message_valid(
    document: Mapping[str, Any], secret: str, *, max_age_s: float | None = None
) -> bool:
    """Whether the app signed `document` with `secret` (and, with `max_age_s`, its `ts` is
    that close to now): anyone else on the broker could have written it."""
    sigs = document.get("sigs")
    sig = sigs.get(fingerprint(secret)) if isinstance(sigs, dict) else None
    if not isinstance(sig, str):
        return False
    covered = APP_MESSAGE_DOMAIN + canonical_bytes(document, without="sigs")
    if not hmac.compare_digest(_hmac_hex(secret, covered), sig):
        return False
    if max_age_s is None:
        return True
    ts = document.get("ts")
    return isinstance(ts, int) and abs(time.time() - ts) <= max_age_s


def seal_key(secret: str) -> bytes:
    """The key answers are sealed with: derived from, never equal to, the signing secret."""
    return hmac.new(secret.encode("utf-8"), SEAL_DOMAIN, hashlib.sha256).digest()


def _keystream(key: bytes, nonce: bytes, length: int) -> bytes:
    blocks = (
        hmac.new(key, nonce + counter.to_bytes(4, "big"), hashlib.sha256).digest()
        for counter in range((length + 31) // 32)
    )
    return b"".join(blocks)[:length]


def seal_answer(answer: Mapping[str, Any], secret: str) -> dict[str, Any]:
    """A copy of `answer` whose `SEALED_FIELDS` only the holder of `secret` can read."""
    private = {key: answer[key] for key in SEALED_FIELDS if key in answer}
    sealed = {key: value for key, value in answer.items() if key not in SEALED_FIELDS}
    plain = json.dumps(private, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    nonce = token_bytes(SEAL_NONCE_BYTES)
    stream = _keystream(seal_key(secret), nonce, len(plain))
    cipher = bytes(a ^ b for a, b in zip(plain, stream, strict=True))
    sealed["sealed"] = base64.b64encode(nonce + cipher).decode("ascii")
    return sealed


def open_answer(answer: Mapping[str, Any], secret: str) -> dict[str, Any] | None:
    """`answer` with its sealed fields opened (as it is, when nothing is sealed); None when
    the seal is not one `secret` opens."""
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
