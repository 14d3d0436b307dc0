"""What the app's response means for Home Assistant: speech, an error, or a question.

Outcomes the agent decided (done, a question, a refusal, its own errors) carry speech the
app phrased in the request's language; they are said as they are. Problems of the way
there (the app offline, busy, a signature it refused, a malformed request) are said from
this integration's translations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from homeassistant.helpers import intent

QUESTIONS: Final = frozenset({"needs_confirmation", "needs_clarification"})
AUTH_CODES: Final = frozenset(
    {"unauthenticated", "bad_signature", "stale_timestamp", "replayed", "unknown_user"}
)
DOOR_CODES: Final = frozenset(
    {
        "payload_too_large",
        "empty_payload",
        "invalid_encoding",
        "invalid_json",
        "not_an_object",
        "duplicate_field",
        "unknown_field",
        "missing_field",
        "wrong_type",
        "invalid_id",
        "invalid_value",
        "field_too_long",
        "empty_text",
        "text_too_long",
        "unknown_language",
        "invalid_reply_to",
        "unexpected_signature",
        "retained_request",
        "invalid_principal",
        "id_reused",
        "internal_error",
    }
)
"""The front door's own error codes (docs/mqtt-api.md): their messages are English."""
PAIRING_LOST_CODES: Final = frozenset({"unauthenticated", "bad_signature"})
"""The app holds no secret, or another one: only pairing again helps (a reauth flow)."""
READ_TOOLS: Final = frozenset(
    {"get_state", "list_entities", "list_events", "check_free_busy", "list_todo_items"}
)
"""The tools that only read (`tool_schemas`' `Access.READ`; a test keeps them in step). An
answer whose actions all read is a query answer, not an action done."""


@dataclass(frozen=True)
class Answer:
    """How to answer in Assist."""

    speech: str
    """The app's words; empty when `translation_key` says it instead."""
    error: intent.IntentResponseErrorCode | None = None
    translation_key: str | None = None
    placeholders: dict[str, str] = field(default_factory=dict)
    continue_conversation: bool = False
    executed: tuple[str, ...] = ()
    """The entities the app's actions acted on (or read), for Assist's list of targets."""
    failed: tuple[str, ...] = ()
    """The entities of actions Home Assistant failed to carry out."""
    query: bool = False
    """It answers a question about the home (state, calendar, to-do): nothing was changed."""


def error_code_of(response: dict[str, Any]) -> str | None:
    error = response.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    return str(code) if code is not None else None


def entities_with_outcome(response: dict[str, Any], outcome: str) -> tuple[str, ...]:
    """The entities of the response's actions that ended in `outcome`, each once, in order."""
    entity_ids = (
        str(entity_id)
        for action in response.get("actions") or []
        if isinstance(action, dict) and action.get("outcome") == outcome
        for entity_id in action.get("entity_ids") or []
    )
    return tuple(dict.fromkeys(entity_ids))


def only_reads(response: dict[str, Any]) -> bool:
    """The response's executed actions exist and all only read."""
    tools = [
        action.get("tool")
        for action in response.get("actions") or []
        if isinstance(action, dict) and action.get("outcome") == "executed"
    ]
    return bool(tools) and all(tool in READ_TOOLS for tool in tools)


def answer_for(response: dict[str, Any]) -> Answer:
    status = response.get("status")
    speech = str(response.get("speech") or "")
    code = error_code_of(response)
    if status == "done" or status in QUESTIONS:
        return Answer(
            speech,
            continue_conversation=status in QUESTIONS,
            executed=entities_with_outcome(response, "executed"),
            failed=entities_with_outcome(response, "failed"),
            query=status == "done" and only_reads(response),
        )
    if code in AUTH_CODES:
        return Answer(
            "",
            intent.IntentResponseErrorCode.FAILED_TO_HANDLE,
            translation_key="not_authorized",
            placeholders={"code": str(code)},
        )
    if status in {"busy", "warming_up"}:
        # While warming up, the app's words carry the progress and the estimate.
        spoken = speech if status == "warming_up" else ""
        key = None if spoken else ("agent_busy" if status == "busy" else "agent_warming_up")
        return Answer(spoken, intent.IntentResponseErrorCode.FAILED_TO_HANDLE, translation_key=key)
    if status == "refused":
        nothing_fits = any(
            isinstance(action, dict) and action.get("tool") == "no_tool_fits"
            for action in response.get("actions") or []
        )
        kind = (
            intent.IntentResponseErrorCode.NO_INTENT_MATCH
            if nothing_fits
            else intent.IntentResponseErrorCode.NO_VALID_TARGETS
        )
        return Answer(speech, kind)
    if code in DOOR_CODES or not speech:
        return Answer(
            "",
            intent.IntentResponseErrorCode.FAILED_TO_HANDLE,
            translation_key="agent_error",
            placeholders={"code": str(code or status), "message": speech},
        )
    return Answer(speech, intent.IntentResponseErrorCode.FAILED_TO_HANDLE)
