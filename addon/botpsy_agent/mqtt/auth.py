"""Who a request acts for: an HA user (signed), a named MQTT principal (its topic), or nobody.

* A request that names a `user_id` must be signed with a shared secret and be fresh; the
  user must exist in HA. Name and admin flag come from HA's user directory, never from the
  request. A signed request runs once: the replay rule (the window; the key of signer, id
  and timestamp) is kept here alone, and the dispatcher asks it after its outcome cache,
  which answers a retry from its first outcome.
* A request with `origin: homeassistant` is Home Assistant itself (a voice satellite, an
  automation): signed like a user's, it acts as `Principal.mqtt("homeassistant")`, placed in
  the signed `area_id` (a satellite's area) for rules of its `own_area`. Without
  that signature the `homeassistant` topic gives nothing (issue 25, finding 3: without a
  broker ACL any login could write it and act, and confirm, as Home Assistant).
* A request on `…/request/<name>` acts as `Principal.mqtt(<name>)`: the broker's ACL is what
  makes that topic trustworthy (docs/mqtt-api.md has the ACL).
* Everything else is `Principal.anonymous()`, which the default policy allows nothing.
"""

from __future__ import annotations

from collections.abc import Callable
import logging
from typing import Protocol

from botpsy_agent.contract import PRINCIPAL_PATTERN, ErrorCode, matching_secret
from botpsy_agent.mqtt.signing import ReplayGuard, ReplayKey, SecretProvider, redact
from botpsy_agent.mqtt.wire import HA_ORIGIN, Rejection, WireRequest
from botpsy_agent.policy import Principal

_LOGGER = logging.getLogger(__name__)


class KnownUser(Protocol):
    """What the front door needs of an HA user; `ha.registries.HaUser` and
    `policy.default.DefaultPolicyUser` both have it. A user with `is_active` false is refused."""

    @property
    def name(self) -> str: ...

    @property
    def is_admin(self) -> bool: ...


type UserDirectory = Callable[[str], KnownUser | None]
"""HA's users by id; the HA bridge provides it."""


def no_users(user_id: str) -> KnownUser | None:
    """A directory that knows nobody: every signed request is refused `unknown_user`."""
    return None


class Authenticator:
    """Turns a well-formed request and its topic into the principal it acts for."""

    def __init__(self, secrets: SecretProvider, users: UserDirectory, replay: ReplayGuard) -> None:
        self._secrets = secrets
        self._users = users
        self._replay = replay

    def principal(self, request: WireRequest, named: str | None) -> Principal | Rejection:
        """The principal for `request`, received on the topic of principal `named`
        (None: the plain request topic). A rejection says why it may not act at all."""
        if request.user_id is not None:
            return self._user(request)
        if request.origin is not None:
            return self._home_assistant(request, named)
        if named is None:
            return Principal.anonymous()
        if not PRINCIPAL_PATTERN.fullmatch(named):
            return self._reject(
                request,
                ErrorCode.INVALID_PRINCIPAL,
                f"principal name {named[:64]!r} must match {PRINCIPAL_PATTERN.pattern}",
            )
        if named == HA_ORIGIN:
            return self._reject(
                request,
                ErrorCode.UNAUTHENTICATED,
                f"requests as {HA_ORIGIN} must be signed (origin, ts, sig); "
                "update the BotPsy integration",
            )
        return Principal.mqtt(named)

    def replayed(self, request: WireRequest) -> Rejection | None:
        """The refusal of a signed request that was executed before inside the window (and
        whose outcome is no longer kept), or None."""
        key = _replay_key(request)
        if key is None or not self._replay.seen(key):
            return None
        return self._reject(
            request,
            ErrorCode.REPLAYED,
            "this signed request was already executed; sign a new request",
        )

    def remember(self, request: WireRequest) -> None:
        """An admitted signed request: never run again inside the window."""
        if (key := _replay_key(request)) is not None:
            self._replay.remember(key)

    def replays_full(self, request: WireRequest) -> bool:
        """Whether `request` is signed and the replay memory full: it then waits (`busy`)."""
        return _replay_key(request) is not None and self._replay.full()

    def signing_secret(self, request: WireRequest) -> str | None:
        """The shared secret that signed `request` (an accepted signed request), or None."""
        if request.sig is None or not request.signed:
            return None
        return matching_secret(request.document, request.sig, self._secrets.secrets())

    def _home_assistant(self, request: WireRequest, named: str | None) -> Principal | Rejection:
        if named not in (None, HA_ORIGIN):
            return self._reject(
                request,
                ErrorCode.INVALID_PRINCIPAL,
                f"a request of origin {HA_ORIGIN} belongs on request/{HA_ORIGIN}",
            )
        if refused := self._signature_problem(request, f"origin {HA_ORIGIN}"):
            return refused
        # The satellite's area is under HA's signature: rules of its `own_area` may use it.
        return Principal.mqtt(HA_ORIGIN, area_id=request.area_id)

    def _signature_problem(self, request: WireRequest, signer: str) -> Rejection | None:
        """Why the signature of a request that names a signer is not good, or None."""
        if request.sig is None or request.ts is None:
            return self._reject(
                request,
                ErrorCode.UNAUTHENTICATED,
                "a request that names a user_id or an origin must carry ts and sig",
            )
        secrets = self._secrets.secrets()
        if not secrets:
            return self._reject(
                request,
                ErrorCode.UNAUTHENTICATED,
                "signed requests are not set up (no shared secret); set up the integration",
            )
        if matching_secret(request.document, request.sig, secrets) is None:
            _LOGGER.warning(
                "Bad signature %s on request %s for %s", redact(request.sig), request.id, signer
            )
            return self._reject(request, ErrorCode.BAD_SIGNATURE, "the signature does not match")
        if not self._replay.is_fresh(request.ts):
            return self._reject(
                request,
                ErrorCode.STALE_TIMESTAMP,
                f"ts is more than {self._replay.window_s:g} s from the app's clock; "
                "sign with the current time (and check the clocks)",
            )
        return None

    def _user(self, request: WireRequest) -> Principal | Rejection:
        assert request.user_id is not None
        if refused := self._signature_problem(request, f"user {request.user_id}"):
            return refused
        user = self._users(request.user_id)
        if user is None or not getattr(user, "is_active", True):
            return self._reject(
                request, ErrorCode.UNKNOWN_USER, f"no active HA user {request.user_id}"
            )
        return Principal.user(request.user_id, user.name, is_admin=user.is_admin)

    @staticmethod
    def _reject(request: WireRequest, code: ErrorCode, message: str) -> Rejection:
        return Rejection(code, message, request.id, request.reply_to)


def _replay_key(request: WireRequest) -> ReplayKey | None:
    if not request.signed or request.ts is None:
        return None
    return ReplayKey(request.user_id or f"origin:{request.origin}", request.id, request.ts)
