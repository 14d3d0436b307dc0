"""Requests per minute, per principal and for the whole app (the `rate_limits` option).

Token buckets: each holds up to a minute's allowance and refills continuously, so a
principal may send a short burst and then its steady rate. A request takes one token from
its principal's bucket and one from the global bucket, or none at all when either is empty
(a refused request costs nothing, so a client that backs off gets through). Idle buckets are
full, carry no information, and are dropped, which keeps memory bounded by the principals
active in the last minute.

A share of the global minute is kept for signed HA users (issue 25, finding 11): without a
broker ACL anyone can pose as a named MQTT principal, so the named ones together may not
take it all. HA users take from their reserve first and then from the common part; everyone
else only from the common part. Only a signed request acts as an HA user (`user:` keys), so
nobody can claim the reserve by posing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
import time

from botpsy_agent.policy import PrincipalKind

WINDOW_S = 60.0
HA_USERS_SHARE = 0.25
"""The part of the global limit kept for signed HA users (at least one request a minute
once the limit is 2 or more)."""
HA_USER_PREFIX = f"{PrincipalKind.USER.value}:"
MAX_TRACKED = 10_000
"""Principals tracked at once; beyond it full (idle) buckets go first, then the oldest."""


@dataclass
class _Bucket:
    tokens: float
    updated: float
    refused: int = 0
    """Requests refused since the last one admitted."""

    def refill(self, now: float, capacity: float, per_s: float) -> None:
        self.tokens = min(capacity, self.tokens + (now - self.updated) * per_s)
        self.updated = now


@dataclass(frozen=True)
class Limited:
    """Why a request may not run now, and when it may."""

    scope: str
    """`principal` or `global`."""
    limit: int
    """Requests per minute."""
    retry_after_s: float
    streak: int = 1
    """How many requests in a row this bucket has refused (1: the first; log only that)."""

    def message(self) -> str:
        who = "this principal" if self.scope == "principal" else "the app"
        return (
            f"more than {self.limit} requests a minute for {who}; "
            f"try again in {max(1, round(self.retry_after_s))} s"
        )


class RateLimiter:
    """Admits requests within `per_principal` and `global_` requests a minute (None: no limit)."""

    def __init__(
        self,
        per_principal: int | None,
        global_: int | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_tracked: int = MAX_TRACKED,
        ha_users_share: float = HA_USERS_SHARE,
    ) -> None:
        """`ha_users_share`: the part of `global_` kept for signed HA users; 0 where there
        are no principals (the pairing channel's limits count messages, not requesters)."""
        for name, value in (("per_principal", per_principal), ("global", global_)):
            if value is not None and value < 1:
                raise ValueError(f"rate limit {name} must be at least 1 a minute, got {value}")
        self.per_principal = per_principal
        self.global_ = global_
        self._clock = clock
        self._max_tracked = max_tracked
        now = clock()
        self.reserved = _reserve(global_, ha_users_share)
        """Requests a minute of the global limit that only signed HA users may take."""
        self._common = _Bucket(float((global_ or 0) - self.reserved), now)
        self._reserve = _Bucket(float(self.reserved), now)
        self._buckets: dict[str, _Bucket] = {}

    def __len__(self) -> int:
        """Principals currently tracked."""
        return len(self._buckets)

    def admit(self, principal_key: str) -> Limited | None:
        """Take a token for `principal_key` (and the app), or say which limit is reached."""
        now = self._clock()
        bucket = None
        if self.per_principal is not None:
            bucket = self._buckets.get(principal_key)
            if bucket is None:
                bucket = _Bucket(float(self.per_principal), now)
            else:
                bucket.refill(now, self.per_principal, self.per_principal / WINDOW_S)
            if bucket.tokens < 1:
                return _refuse(bucket, "principal", self.per_principal)
        if self.global_ is not None and (
            limited := self._take_global(principal_key, self.global_, now)
        ):
            return limited
        if bucket is not None:
            bucket.tokens -= 1
            bucket.refused = 0
            self._buckets.pop(principal_key, None)
            self._buckets[principal_key] = bucket  # most recently used last
            self._forget_idle(now)
        return None

    def _take_global(self, principal_key: str, global_: int, now: float) -> Limited | None:
        """One token of the app's minute: an HA user's from its reserve, else the common."""
        parts = [(self._common, global_ - self.reserved)]
        if self.reserved and principal_key.startswith(HA_USER_PREFIX):
            parts.insert(0, (self._reserve, self.reserved))
        for bucket, size in parts:
            bucket.refill(now, size, size / WINDOW_S)
        for bucket, _ in parts:
            if bucket.tokens >= 1:
                bucket.tokens -= 1
                bucket.refused = 0
                return None
        # Said with the soonest token of a part this principal may use.
        bucket, size = min(parts, key=lambda part: _wait(*part))
        bucket.refused += 1
        return Limited("global", global_, _wait(bucket, size), bucket.refused)

    def _forget_idle(self, now: float) -> None:
        if len(self._buckets) <= self._max_tracked:
            return
        horizon = now - WINDOW_S
        for key in [k for k, b in self._buckets.items() if b.updated < horizon]:
            del self._buckets[key]  # refilled by now: the same as no bucket
        while len(self._buckets) > self._max_tracked:
            del self._buckets[next(iter(self._buckets))]  # least recently used


def _reserve(global_: int | None, share: float) -> int:
    if global_ is None or global_ < 2 or share <= 0:
        return 0
    return max(1, round(global_ * share))


def _wait(bucket: _Bucket, per_minute: int) -> float:
    """Seconds until `bucket`, refilled at `per_minute`, holds a whole token."""
    return max(0.0, 1 - bucket.tokens) * WINDOW_S / per_minute


def _refuse(bucket: _Bucket, scope: str, per_minute: int) -> Limited:
    bucket.refused += 1
    return Limited(scope, per_minute, _wait(bucket, per_minute), bucket.refused)
