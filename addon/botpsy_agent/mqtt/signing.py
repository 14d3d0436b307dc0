"""The app's keeping of shared secrets and of signed requests seen (the signatures and seals
themselves are the contract's: `contract/signing.py`).

Secrets and signatures are never logged in full (`redact`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
import heapq
import logging
from pathlib import Path
import time
from typing import Protocol

_LOGGER = logging.getLogger(__name__)
MIN_SECRET_CHARS = 16


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
