"""What can go wrong talking to Home Assistant, as exceptions that carry a stable code.

`HaCallError` is HA's own answer (its code and message text, verbatim). The others are ours:
a call never sent (`not_connected`), or sent with no answer (`connection_lost`, `timeout`), in
which case HA may or may not have acted — `outcome_unknown` says so.
"""

from __future__ import annotations


class HaError(Exception):
    """Base of every HA bridge error: `code` is machine-readable, `message` is for people."""

    outcome_unknown = False
    """True when the request was sent and HA may have acted on it."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class HaCallError(HaError):
    """HA refused or failed the call; `code` and `message` are HA's own."""


class HaNotConnected(HaError):
    """No connection to HA: the call was not sent."""

    def __init__(self, message: str = "not connected to Home Assistant") -> None:
        super().__init__("not_connected", message)


class HaConnectionLost(HaError):
    """The connection dropped after the call was sent and before HA answered."""

    outcome_unknown = True

    def __init__(self, message: str = "the connection to Home Assistant dropped") -> None:
        super().__init__("connection_lost", message)


class HaTimeout(HaError):
    """HA did not answer in time; it may still act on the call."""

    outcome_unknown = True

    def __init__(self, seconds: float) -> None:
        super().__init__("timeout", f"Home Assistant did not answer within {seconds:g} s")


class HaAuthFailed(HaError):
    """HA rejected the access token."""

    def __init__(self, message: str) -> None:
        super().__init__("auth_failed", message)


class NotRunHere(HaError):
    """One of HA's own intents reached the executor, which never runs them: Assist does, for
    the voice device (the integration)."""

    def __init__(self, intent: str) -> None:
        super().__init__("handed_to_assist", f"{intent} is Assist's to run")
