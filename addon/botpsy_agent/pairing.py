"""Pairing with the Home Assistant integration: a shared signing secret, never on the broker.

Both ways end with a secret in `<data>/integration_secrets` (one per line; the MQTT front
door re-reads the file when it changes, `mqtt.signing.SecretFile`):

* **Under the Supervisor** the app offers the integration to Home Assistant through the
  Supervisor's discovery (`POST /discovery`, service `botpsy`), secret included. Only Home
  Assistant reads discovery messages; MQTT clients never see them.
* **Anywhere** (and as a fallback) the app logs a one-time pairing code. The user types it
  into Home Assistant once; the two run SPAKE2 (`spake2.py`) over MQTT, so a listener on the
  broker learns nothing, and an active attacker gets one guess per session and at most
  `MAX_SESSIONS_PER_CODE` sessions before the code is replaced (a new one is logged).

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
import logging
import os
from pathlib import Path
import re
import secrets
import time
from typing import Any, Final

import aiohttp

from botpsy_agent import spake2
from botpsy_agent.supervisor import SupervisorAccess, SupervisorClient, SupervisorError

_LOGGER = logging.getLogger(__name__)

SECRETS_FILE: Final = "integration_secrets"
SUPERVISOR_LABEL: Final = "supervisor discovery"
PAIRED_LABEL: Final = "paired"
MAX_PAIRED_SECRETS: Final = 3
"""Secrets of earlier pairings kept (re-pairing adds one; the oldest beyond this go)."""
CODE_ALPHABET: Final = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Crockford's base 32: no I, L, O or U to misread."""
CODE_LENGTH: Final = 8
MAX_SESSIONS_PER_CODE: Final = 5
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

    def put(self, secret: str, label: str) -> None:
        """Add `secret`; the label `SUPERVISOR_LABEL` replaces the previous one, and only
        the newest `MAX_PAIRED_SECRETS` paired secrets stay."""
        entries = [(s, lab) for s, lab in self.entries() if not (label == lab == SUPERVISOR_LABEL)]
        entries.append((secret, label))
        paired = [e for e in entries if e[1].startswith(PAIRED_LABEL)]
        stale = set(paired[:-MAX_PAIRED_SECRETS]) if len(paired) > MAX_PAIRED_SECRETS else set()
        lines = [f"{s}  # {lab}" for s, lab in entries if (s, lab) not in stale]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(self.path.name + ".part")
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(self.HEADER + "\n".join(lines) + "\n")
        partial.replace(self.path)


# --- the pairing code ---------------------------------------------------------------------


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(text: str) -> str:
    """What a person typed, as the code: case, spaces and dashes do not matter, and the
    letters people mistake for digits (O, I, L) count as those digits."""
    cleaned = re.sub(r"[\s-]", "", text).upper()
    return cleaned.translate(str.maketrans("OIL", "011"))


def display_code(code: str) -> str:
    return f"{code[:4]}-{code[4:]}"


@dataclass
class _Session:
    keys: spake2.SessionKeys
    expires_at: float


@dataclass
class Pairing:
    """The app's side of pairing: answers sessions, stores the secret, rotates the code."""

    instance: str
    store: SecretStore
    clock: Callable[[], float] = time.monotonic
    code: str = field(default_factory=new_code)
    """The code in force (normalised); shown in the log, never sent anywhere."""
    _sessions: dict[str, _Session] = field(default_factory=dict, init=False)
    _attempts: int = field(default=0, init=False)

    def announce(self) -> None:
        _LOGGER.info(
            "Pairing code for the BotPsy integration in Home Assistant: %s (enter it once "
            "when you add the integration; it is replaced after use)",
            display_code(self.code),
        )

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
        try:
            t = spake2.element_from_hex(message.get("share"))
        except spake2.Spake2Error as err:
            return _error(session, "invalid_message", f"share: {err}")
        w = spake2.password_scalar(self.code, self.instance)
        y = spake2.random_exponent()
        s = spake2.share(y, w, spake2.N)
        k = spake2.shared_element(t, w, spake2.M, y)
        keys = spake2.session_keys(self.instance, t, s, k, w)
        self._sessions[session] = _Session(keys, self.clock() + SESSION_TTL_S)
        self._attempts += 1
        if self._attempts >= MAX_SESSIONS_PER_CODE:
            self._rotate(f"{self._attempts} pairing sessions used this code")
        return {
            "v": PROTOCOL_VERSION,
            "step": "share",
            "session": session,
            "share": spake2.element_to_hex(s),
            "confirm": keys.confirm_b,
        }

    def _confirm(self, session: str, message: Mapping[str, Any]) -> dict[str, Any]:
        pending = self._sessions.pop(session, None)
        if pending is None:
            return _error(session, "unknown_session", "no such session (expired?); start again")
        if not spake2.tags_match(pending.keys.confirm_a, message.get("confirm")):
            _LOGGER.warning("A pairing attempt failed: the other side does not know the code")
            self._rotate("a pairing attempt failed")
            return _error(session, "wrong_code", "the pairing code does not match")
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.store.put(pending.keys.secret, f"{PAIRED_LABEL} {stamp}")
        _LOGGER.info("Paired with Home Assistant: the shared secret is stored")
        self._rotate(None)
        return {"v": PROTOCOL_VERSION, "step": "paired", "session": session}

    def _rotate(self, reason: str | None) -> None:
        self.code, self._attempts = new_code(), 0
        if reason is not None:
            _LOGGER.warning("%s: it is replaced", reason[:1].upper() + reason[1:])
        self.announce()

    def _forget_expired(self) -> None:
        now = self.clock()
        for session in [s for s, v in self._sessions.items() if v.expires_at < now]:
            del self._sessions[session]


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
