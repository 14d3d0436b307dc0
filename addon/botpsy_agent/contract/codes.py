"""The words of the wire: an answer's status, an action's outcome, and the front door's error
codes, each with the status it comes with.

docs/mqtt-api.md tables the codes; a test keeps that table complete.
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    DONE = "done"
    NEEDS_CONFIRMATION = "needs_confirmation"
    NEEDS_CLARIFICATION = "needs_clarification"
    REFUSED = "refused"
    ERROR = "error"
    BUSY = "busy"  # queue full or rate limited (error.code says which)
    WARMING_UP = "warming_up"  # the model is building its prompt prefix; ask again soon


QUESTIONS = frozenset({Status.NEEDS_CONFIRMATION, Status.NEEDS_CLARIFICATION})
"""The statuses that ask the requester something: the conversation goes on."""


class Outcome(StrEnum):
    """What became of one action."""

    EXECUTED = "executed"
    PLANNED = "planned"  # dry run: authorised, not executed
    HANDED_OFF = "handed_off"  # authorised; HA's Assist carries it out (`handoff`)
    REFUSED = "refused"
    PENDING_CONFIRMATION = "pending_confirmation"
    FAILED = "failed"


class ErrorCode(StrEnum):
    """The front door's codes (the agent's own are `agent.AgentCode`'s)."""

    # The payload itself (status `error`).
    PAYLOAD_TOO_LARGE = "payload_too_large"
    EMPTY_PAYLOAD = "empty_payload"
    INVALID_ENCODING = "invalid_encoding"
    INVALID_JSON = "invalid_json"
    NOT_AN_OBJECT = "not_an_object"
    DUPLICATE_FIELD = "duplicate_field"
    UNKNOWN_FIELD = "unknown_field"
    MISSING_FIELD = "missing_field"
    WRONG_TYPE = "wrong_type"
    INVALID_ID = "invalid_id"
    INVALID_VALUE = "invalid_value"
    FIELD_TOO_LONG = "field_too_long"
    EMPTY_TEXT = "empty_text"
    TEXT_TOO_LONG = "text_too_long"
    UNKNOWN_LANGUAGE = "unknown_language"
    INVALID_REPLY_TO = "invalid_reply_to"
    UNEXPECTED_SIGNATURE = "unexpected_signature"
    RETAINED_REQUEST = "retained_request"
    INVALID_PRINCIPAL = "invalid_principal"
    ID_REUSED = "id_reused"
    # Who is asking (status `refused`).
    UNAUTHENTICATED = "unauthenticated"
    BAD_SIGNATURE = "bad_signature"
    STALE_TIMESTAMP = "stale_timestamp"
    REPLAYED = "replayed"
    UNKNOWN_USER = "unknown_user"
    UNKNOWN_PRINCIPAL = "unknown_principal"
    # The app's state (status `busy` or `error`).
    BUSY = "busy"
    RATE_LIMITED = "rate_limited"
    SHUTTING_DOWN = "shutting_down"
    INTERNAL_ERROR = "internal_error"

    @property
    def status(self) -> Status:
        return _STATUS.get(self, Status.ERROR)


_STATUS = {
    ErrorCode.UNAUTHENTICATED: Status.REFUSED,
    ErrorCode.BAD_SIGNATURE: Status.REFUSED,
    ErrorCode.STALE_TIMESTAMP: Status.REFUSED,
    ErrorCode.REPLAYED: Status.REFUSED,
    ErrorCode.UNKNOWN_USER: Status.REFUSED,
    ErrorCode.UNKNOWN_PRINCIPAL: Status.REFUSED,
    ErrorCode.BUSY: Status.BUSY,
    ErrorCode.RATE_LIMITED: Status.BUSY,
    ErrorCode.SHUTTING_DOWN: Status.BUSY,
}

SECURITY_CODES = frozenset(
    {
        ErrorCode.UNAUTHENTICATED,
        ErrorCode.BAD_SIGNATURE,
        ErrorCode.STALE_TIMESTAMP,
        ErrorCode.REPLAYED,
        ErrorCode.UNKNOWN_USER,
        ErrorCode.UNKNOWN_PRINCIPAL,
        ErrorCode.INVALID_PRINCIPAL,
        ErrorCode.INVALID_REPLY_TO,
        ErrorCode.UNEXPECTED_SIGNATURE,
        ErrorCode.RATE_LIMITED,
    }
)
"""Refusals that may be someone posing as another or flooding: logged as security events
(logger `botpsy_agent.security`) and in the audit log."""

CONNECTION_TEST_USER = "botpsy-connection-test"
"""The user id the HA integration signs its connection test for: no HA user has it, so a
well-signed test is answered `unknown_user` without running anything. Expected, so it is
logged as the test it is, not as a security event."""
