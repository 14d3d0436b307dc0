"""Pairing with the Home Assistant integration: a shared signing secret, never on the broker.

Both ways end with a secret in `<data>/integration_secrets` (one per line; the MQTT front
door re-reads the file when it changes, `mqtt.signing.SecretFile`):

* **Under the Supervisor** the app offers the integration to Home Assistant through the
  Supervisor's discovery (`POST /discovery`, service `botpsy`), secret included. Only Home
  Assistant reads discovery messages; MQTT clients never see them. Pairing by code is then
  off unless an admin turns the `pairing_by_code` option on.
* **Anywhere else** an HA admin pairs in the integration's config flow (only admins can
  run one). The flow makes a one-time code and keeps it in Home Assistant; the app fetches
  it over its own authenticated Home Assistant connection, through a WebSocket command
  only admins may call (`botpsy/pairing/code`), and opens a **pairing window** with it for
  `WINDOW_S`. Nobody sees the code: not in a notification, a log or on the broker. The two
  then run SPAKE2 (`spake2.py`) over MQTT, so a listener on the broker learns nothing, and
  an active attacker gets one guess per session and at most `MAX_SESSIONS_PER_WINDOW`
  sessions per window. A wrong confirmation ends only its own session; one pairing or the
  end of the time closes the window. While no window is open a pairing message costs
  nothing (no group arithmetic).

Paired secrets are listed (by a fingerprint and their label, never the secret) on the
retained, app-signed `pairing/state` topic; the integration raises a repair issue for each
one an admin has not acknowledged. A signed `revoke` message removes a secret: its own
with any secret (the integration sends it when it is removed), another one only when
signed with the Supervisor's secret or for an HA admin (`user_id`). Nothing is evicted
silently: at `MAX_PAIRED_SECRETS` pairing is refused until one is revoked.

The pairing messages (topics under `botpsy/<instance>/pairing/`, docs/mqtt-api.md):

    request            {"v": 1, "step": "start", "session": s, "share": T}
    response/<s>       {"v": 1, "step": "share", "session": s, "share": S, "confirm": cB}
    request            {"v": 1, "step": "confirm", "session": s, "confirm": cA}
    response/<s>       {"v": 1, "step": "paired", "session": s}
    (or, at any step)  {"v": 1, "step": "error", "session": s, "code": ..., "message": ...}

Secrets are never logged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
import hmac
import logging
import os
from pathlib import Path
import re
import secrets
import time
from typing import Any, Final

import aiohttp

from botpsy_agent.contract import fingerprint, signature, spake2
from botpsy_agent.ha import SupervisorAccess, SupervisorClient, SupervisorError

_LOGGER = logging.getLogger(__name__)

SECRETS_FILE: Final = "integration_secrets"
SUPERVISOR_LABEL: Final = "supervisor discovery"
PAIRED_LABEL: Final = "paired"
MAX_PAIRED_SECRETS: Final = 8
"""Paired secrets kept; at this many a new pairing is refused until one is revoked (an
attacker who pairs must not push Home Assistant's secret out)."""
CODE_ALPHABET: Final = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Crockford's base 32: no I, L, O or U to misread."""
CODE_LENGTH: Final = 8
MAX_SESSIONS_PER_WINDOW: Final = 3
WINDOW_S: Final = 300.0
REVOKE_WINDOW_S: Final = 300.0
"""How long a pairing window stays open: enough to type the code, not a standing door."""
SESSION_TTL_S: Final = 120.0
SESSION_PATTERN: Final = re.compile(r"[A-Za-z0-9_-]{8,64}")
PROTOCOL_VERSION: Final = 1
DISCOVERY_API_VERSION: Final = 1


def new_secret() -> str:
    return secrets.token_hex(32)


# --- the secrets file ---------------------------------------------------------------------


class SecretStore:
    """Writes `integration_secrets`: one secret per line, `# <label>` after it.

    The front door reads the same file (`SecretFile`), which ignores the labels.
    """

    HEADER = (
        "# Shared secrets of the BotPsy integration, written by the app. Keep this file\n"
        "# private: whoever has a secret can act as any Home Assistant user.\n"
    )

    def __init__(self, path: Path) -> None:
        self.path = path

    def entries(self) -> list[tuple[str, str]]:
        """(secret, label) for every secret in the file, in file order."""
        try:
            text = self.path.read_text("utf-8")
        except FileNotFoundError:
            return []
        found = []
        for line in text.splitlines():
            secret, _, label = line.partition("#")
            if secret.strip():
                found.append((secret.strip(), label.strip()))
        return found

    def find(self, label: str) -> str | None:
        return next((s for s, lab in self.entries() if lab == label), None)

    def paired_count(self) -> int:
        return sum(1 for _, label in self.entries() if label.startswith(PAIRED_LABEL))

    def listing(self) -> list[dict[str, str]]:
        """Every secret as its fingerprint and label: what may be shown (never the secret)."""
        return [{"id": fingerprint(s), "label": label} for s, label in self.entries()]

    def put(self, secret: str, label: str) -> None:
        """Add `secret`; the label `SUPERVISOR_LABEL` replaces the previous one."""
        entries = [(s, lab) for s, lab in self.entries() if not (label == lab == SUPERVISOR_LABEL)]
        entries.append((secret, label))
        self._write(entries)

    def revoke(self, secret_id: str) -> str | None:
        """Remove the secret whose fingerprint is `secret_id`; its label, or None when no
        secret has that fingerprint."""
        entries = self.entries()
        kept = [(s, lab) for s, lab in entries if fingerprint(s) != secret_id]
        if len(kept) == len(entries):
            return None
        self._write(kept)
        return next(lab for s, lab in entries if fingerprint(s) == secret_id) or "unlabelled"

    def _write(self, entries: list[tuple[str, str]]) -> None:
        lines = [f"{s}  # {lab}" if lab else s for s, lab in entries]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(self.path.name + ".part")
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(self.HEADER + "".join(line + "\n" for line in lines))
        partial.replace(self.path)


# --- the pairing code ---------------------------------------------------------------------


def is_code(text: str) -> bool:
    """Whether `text` is a pairing code: `CODE_LENGTH` of `CODE_ALPHABET` (the integration
    makes them alike; nobody types them)."""
    return len(text) == CODE_LENGTH and all(c in CODE_ALPHABET for c in text)


@dataclass
class _Session:
    keys: spake2.SessionKeys
    expires_at: float


@dataclass
class Pairing:
    """The app's side of pairing: the window, its sessions, and the secret they agree."""

    instance: str
    store: SecretStore
    clock: Callable[[], float] = time.monotonic
    code: str | None = field(default=None, init=False, repr=False)
    """The code of the open window, from Home Assistant; None while pairing is closed.
    Never logged, never on the broker."""
    closes_at: float | None = field(default=None, init=False)
    """When the open window closes (`clock` time); None: pairing is closed."""
    _sessions: dict[str, _Session] = field(default_factory=dict, init=False)
    _started: int = field(default=0, init=False)

    @property
    def sessions_started(self) -> int:
        """Sessions started in the open window (each one guess of its code)."""
        return self._started

    @property
    def is_open(self) -> bool:
        if self.closes_at is not None and self.clock() >= self.closes_at:
            self.close("the pairing window timed out")
        return self.closes_at is not None

    def open_window(self, code: str) -> None:
        """Open a window for `code` (an admin's config flow made it) for `WINDOW_S`. A
        window already open is replaced: its flow's code is the older one."""
        if not is_code(code):
            raise ValueError("not a pairing code")
        self.close("replaced by a new pairing")
        self.code, self.closes_at, self._started = code, self.clock() + WINDOW_S, 0
        _LOGGER.info("Pairing window open for %d minutes", WINDOW_S // 60)

    def close(self, reason: str) -> None:
        """Close the window (if open): its code and sessions are void from now on."""
        if self.closes_at is None:
            return
        self.closes_at, self.code, self._started = None, None, 0
        self._sessions.clear()
        _LOGGER.info("Pairing window closed: %s", reason)

    def handle(self, message: Mapping[str, Any]) -> dict[str, Any] | None:
        """The answer to one message on the pairing request topic; None when it names no
        usable session (there is nowhere to answer it)."""
        self._forget_expired()
        session = message.get("session")
        if not isinstance(session, str) or not SESSION_PATTERN.fullmatch(session):
            _LOGGER.warning("Ignored a pairing message without a usable session id")
            return None
        if message.get("v") != PROTOCOL_VERSION:
            return _error(session, "unsupported_version", f"pairing speaks v{PROTOCOL_VERSION}")
        if not self.is_open:
            return _error(
                session, "pairing_closed", "no pairing window is open; pair from HA's config flow"
            )
        match message.get("step"):
            case "start":
                return self._start(session, message)
            case "confirm":
                return self._confirm(session, message)
            case _:
                return _error(session, "invalid_message", "step must be start or confirm")

    def _start(self, session: str, message: Mapping[str, Any]) -> dict[str, Any]:
        if session in self._sessions:
            return _error(session, "session_exists", "start a new session with a new id")
        if self._started >= MAX_SESSIONS_PER_WINDOW:
            return _error(session, "pairing_closed", "this window had its sessions; open another")
        if self.store.paired_count() >= MAX_PAIRED_SECRETS:
            return _error(
                session, "too_many_pairings", "revoke a pairing first (see pairing/state)"
            )
        try:
            t = spake2.element_from_hex(message.get("share"))
        except spake2.Spake2Error as err:
            return _error(session, "invalid_message", f"share: {err}")
        assert self.code is not None  # the window is open
        w = spake2.password_scalar(self.code, self.instance)
        y = spake2.random_exponent()
        s = spake2.share(y, w, spake2.N)
        k = spake2.shared_element(t, w, spake2.M, y)
        keys = spake2.session_keys(self.instance, t, s, k, w)
        self._sessions[session] = _Session(keys, self.clock() + SESSION_TTL_S)
        self._started += 1
        answer = {
            "v": PROTOCOL_VERSION,
            "step": "share",
            "session": session,
            "share": spake2.element_to_hex(s),
            "confirm": keys.confirm_b,
        }
        if self._started >= MAX_SESSIONS_PER_WINDOW:
            # Each session is one offline guess of the code: no more for this window. The
            # sessions started stay answerable until the window would have closed.
            self.closes_at = min(self.closes_at or 0.0, self.clock() + SESSION_TTL_S)
        return answer

    def _confirm(self, session: str, message: Mapping[str, Any]) -> dict[str, Any]:
        pending = self._sessions.pop(session, None)
        if pending is None:
            return _error(session, "unknown_session", "no such session (expired?); start again")
        if not spake2.tags_match(pending.keys.confirm_a, message.get("confirm")):
            # Only this session ends: a stranger's wrong guess must not close the window an
            # admin is pairing through (the guesses are bounded by the sessions per window).
            _LOGGER.warning("A pairing attempt failed: the other side does not know the code")
            return _error(session, "wrong_code", "the pairing code does not match")
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.store.put(pending.keys.secret, f"{PAIRED_LABEL} {stamp}")
        _LOGGER.info("Paired with Home Assistant: the shared secret is stored")
        self.close("paired (a window is used once)")
        return {
            "v": PROTOCOL_VERSION,
            "step": "paired",
            "session": session,
            "id": fingerprint(pending.keys.secret),
        }

    def _forget_expired(self) -> None:
        now = self.clock()
        for session in [s for s, v in self._sessions.items() if v.expires_at < now]:
            del self._sessions[session]


class Revocations:
    """Signed requests to revoke a paired secret, on `pairing/revoke`:

        {"v": 1, "revoke": "self" | "<fingerprint>", "user_id": "<HA user>"?, "ts": 1796000000,
         "sig": "..."}

    signed (`mqtt.signing`) with a secret the app holds; `self` is the signing secret (what
    the integration sends when it is removed). Another secret may be revoked only by the
    Supervisor's secret or for a user Home Assistant says is an admin (`user_id`, under the
    signature): a second pairing must not throw Home Assistant's out. `ts` must be within
    `REVOKE_WINDOW_S` of now and each signature is accepted once.
    """

    def __init__(
        self,
        store: SecretStore,
        clock: Callable[[], float] = time.time,
        *,
        is_admin: Callable[[str], bool] = lambda _user_id: False,
    ) -> None:
        self.store = store
        self._clock = clock
        self._is_admin = is_admin
        self._seen: dict[str, float] = {}

    def handle(self, message: Mapping[str, Any]) -> str | None:
        """The label of the secret revoked, or None (with a warning) when refused."""
        now = self._clock()
        self._seen = {sig: ts for sig, ts in self._seen.items() if abs(now - ts) <= REVOKE_WINDOW_S}
        sig, ts, target = message.get("sig"), message.get("ts"), message.get("revoke")
        if not (
            message.get("v") == PROTOCOL_VERSION
            and isinstance(sig, str)
            and isinstance(ts, int)
            and not isinstance(ts, bool)
            and isinstance(target, str)
            and isinstance(message.get("user_id", ""), str)
        ):
            _LOGGER.warning("Ignored a malformed revoke message")
            return None
        if abs(now - ts) > REVOKE_WINDOW_S or sig in self._seen:
            _LOGGER.warning("Security event: a stale or replayed revoke message was ignored")
            return None
        signer = self._signer(message, sig)
        if signer is None:
            _LOGGER.warning("Security event: a revoke message without a valid signature")
            return None
        own = fingerprint(signer)
        victim = own if target == "self" else target
        if victim != own and not self._may_revoke_others(signer, message.get("user_id")):
            _LOGGER.warning(
                "Security event: a revoke of another pairing, neither from the Supervisor's "
                "secret nor for an HA admin, was refused"
            )
            return None
        self._seen[sig] = float(ts)
        revoked = self.store.revoke(victim)
        if revoked is None:
            _LOGGER.warning("A revoke message named no known secret")
        else:
            _LOGGER.info("Revoked the shared secret %r", revoked)
        return revoked

    def _signer(self, message: Mapping[str, Any], sig: str) -> str | None:
        signer = None
        for secret, _ in self.store.entries():  # every secret is tried, match or not
            if hmac.compare_digest(signature(message, secret), sig):
                signer = secret
        return signer

    def _may_revoke_others(self, signer: str, user_id: object) -> bool:
        if signer == self.store.find(SUPERVISOR_LABEL):
            return True
        return isinstance(user_id, str) and bool(user_id) and self._is_admin(user_id)


def _error(session: str, code: str, message: str) -> dict[str, Any]:
    return {
        "v": PROTOCOL_VERSION,
        "step": "error",
        "session": session,
        "code": code,
        "message": message,
    }


# --- the Supervisor's discovery -----------------------------------------------------------


async def offer_to_home_assistant(
    access: SupervisorAccess, instance: str, store: SecretStore
) -> bool:
    """Publish the Supervisor discovery that offers the integration, with the secret (made
    once and kept). False, with a warning, when the Supervisor refuses."""
    secret = store.find(SUPERVISOR_LABEL)
    if secret is None:
        secret = new_secret()
        store.put(secret, SUPERVISOR_LABEL)
    config = {"instance": instance, "secret": secret, "api_version": DISCOVERY_API_VERSION}
    async with aiohttp.ClientSession() as session:
        client = SupervisorClient(session, access.token, url=access.url, retry_delay_s=0.5)
        try:
            await client.publish_discovery(config)
        except SupervisorError as err:
            _LOGGER.warning(
                "Could not offer the integration to Home Assistant (%s); pair with the "
                "pairing code instead",
                err.message,
            )
            return False
    _LOGGER.info("Offered the BotPsy integration to Home Assistant (Supervisor discovery)")
    return True
