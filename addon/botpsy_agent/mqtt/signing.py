"""Signed requests: HMAC-SHA256 over a canonical form, a timestamp window, a replay memory.

The canonical form of a request is the JSON object without its `sig` field, written with
keys sorted, no whitespace (separators `,` and `:`), characters beyond ASCII as themselves
(not `\\u` escapes), encoded as UTF-8 — in Python:

    json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()

`sig` is the lowercase hex HMAC-SHA256 of those bytes, keyed with the shared secret's UTF-8
bytes. Secrets and signatures are never logged in full (`redact`).

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
make it encrypt-then-MAC. Other logins on the broker see the answer's status, never what
was said or done.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
import hashlib
import heapq
import hmac
import json
import logging
from pathlib import Path
from secrets import token_bytes
import time
from typing import Any, Protocol

_LOGGER = logging.getLogger(__name__)
MIN_SECRET_CHARS = 16


APP_MESSAGE_DOMAIN = b"botpsy app message\n"


def canonical_bytes(document: Mapping[str, Any], without: str = "sig") -> bytes:
    """The bytes a signature covers: every field but `without`, canonical JSON, UTF-8."""
    unsigned = {key: value for key, value in document.items() if key != without}
    text = json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


def signature(document: Mapping[str, Any], secret: str) -> str:
    return hmac.new(secret.encode("utf-8"), canonical_bytes(document), hashlib.sha256).hexdigest()


def sign(document: Mapping[str, Any], secret: str, *, now: float | None = None) -> dict[str, Any]:
    """A copy of `document` with `ts` (now, unless it has one) and its `sig`: what a client
    such as the HA integration publishes."""
    signed = dict(document)
    signed.setdefault("ts", int(time.time() if now is None else now))
    signed["sig"] = signature(signed, secret)
    return signed


def signature_matches(document: Mapping[str, Any], sig: str, secrets: Iterable[str]) -> bool:
    """Constant-time check of `sig` against every secret (all are tried, match or not)."""
    matched = False
    for secret in secrets:
        matched |= hmac.compare_digest(signature(document, secret), sig)
    return matched


def matching_secret(document: Mapping[str, Any], sig: str, secrets: Iterable[str]) -> str | None:
    """The secret `sig` was made with, or None; every secret is tried, match or not."""
    found = None
    for secret in secrets:
        if hmac.compare_digest(signature(document, secret), sig):
            found = secret
    return found


def secret_fingerprint(secret: str) -> str:
    """A short public name of a secret (a hash: it tells secrets apart, reveals none)."""
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
    signed["sigs"] = {
        secret_fingerprint(secret): hmac.new(
            secret.encode("utf-8"), covered, hashlib.sha256
        ).hexdigest()
        for secret in secrets
    }
    return signed


SEAL_DOMAIN = b"botpsy answer seal\n"
SEALED_FIELDS = ("speech", "actions")
"""What of an answer only its requester may read."""
SEAL_NONCE_BYTES = 16


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


def redact(value: str) -> str:
    """Enough of a signature to tell two apart in a log, never enough to reuse."""
    return f"{value[:6]}…" if len(value) > 6 else "…"


class SecretProvider(Protocol):
    """Where the shared secrets come from. More than one allows rotating without downtime."""

    def secrets(self) -> Sequence[str]: ...


class StaticSecrets:
    """Secrets given in code (by the app's config, or a test)."""

    def __init__(self, *secrets: str) -> None:
        for secret in secrets:
            if len(secret) < MIN_SECRET_CHARS:
                raise ValueError(f"a shared secret needs at least {MIN_SECRET_CHARS} characters")
        self._secrets = tuple(secrets)

    def secrets(self) -> Sequence[str]:
        return self._secrets

    def __repr__(self) -> str:
        return f"StaticSecrets(<{len(self._secrets)} hidden>)"


class SecretFile:
    """Secrets in a file of the app's data folder, one per line (`#` starts a comment).

    Re-read when the file changes, so the integration can add a secret while the app runs.
    A missing file means no secrets: every signed request is refused.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: tuple[int, int] | None = None
        self._secrets: tuple[str, ...] = ()

    def secrets(self) -> Sequence[str]:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            if self._secrets or self._stamp is not None:
                _LOGGER.warning("Shared secret file %s is gone: signed requests refused", self.path)
            self._stamp, self._secrets = None, ()
            return ()
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stamp != self._stamp:
            self._stamp, self._secrets = stamp, self._read()
        return self._secrets

    def _read(self) -> tuple[str, ...]:
        secrets = []
        for number, line in enumerate(self.path.read_text("utf-8").splitlines(), start=1):
            secret = line.split("#", 1)[0].strip()
            if not secret:
                continue
            if len(secret) < MIN_SECRET_CHARS:
                _LOGGER.warning(
                    "%s line %d: secret shorter than %d characters, ignored",
                    self.path,
                    number,
                    MIN_SECRET_CHARS,
                )
                continue
            secrets.append(secret)
        _LOGGER.info("Loaded %d shared secret(s) from %s", len(secrets), self.path)
        return tuple(secrets)

    def __repr__(self) -> str:
        return f"SecretFile({self.path})"


@dataclass(frozen=True)
class ReplayKey:
    signer: str
    """The HA user id, or `origin:homeassistant` for Home Assistant's own requests."""
    request_id: str
    ts: int


class ReplayGuard:
    """Remembers each accepted signed request until its timestamp leaves the window.

    A request whose `ts` is more than `window_s` from now is stale; one seen before inside
    the window is a replay. Memory is bounded: each entry lives at most twice the window.
    """

    def __init__(
        self,
        window_s: float,
        *,
        capacity: int = 65_536,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.window_s = window_s
        self.capacity = capacity
        self._clock = clock
        self._seen: set[ReplayKey] = set()
        self._expiry: list[tuple[float, int, ReplayKey]] = []
        self._counter = 0  # tie-breaker: heap entries never compare keys

    def is_fresh(self, ts: int) -> bool:
        return abs(self._clock() - ts) <= self.window_s

    def seen(self, key: ReplayKey) -> bool:
        self._forget_expired()
        return key in self._seen

    def full(self) -> bool:
        self._forget_expired()
        return len(self._seen) >= self.capacity

    def remember(self, key: ReplayKey) -> None:
        if key in self._seen:
            return
        self._seen.add(key)
        self._counter += 1
        heapq.heappush(self._expiry, (key.ts + self.window_s, self._counter, key))

    def _forget_expired(self) -> None:
        now = self._clock()
        while self._expiry and self._expiry[0][0] < now:
            _, _, key = heapq.heappop(self._expiry)
            self._seen.discard(key)
