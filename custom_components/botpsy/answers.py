"""What the app's response means for Home Assistant: speech, an error, or a question.

Outcomes the agent decided (done, a question, a refusal, its own errors) carry speech the
app phrased in the request's language; they are said as they are. Problems of the way
there (the app offline, busy, a signature it refused, a malformed request) are said from
this integration's translations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from homeassistant.helpers import intent

from .contract import AppResponse, ErrorCode, Outcome, Status

AUTH_CODES: Final = frozenset(
    code
    for code in ErrorCode
    if code.status is Status.REFUSED and code is not ErrorCode.UNKNOWN_PRINCIPAL
)
"""The app refused Home Assistant's signature or user (never `unknown_principal`: HA's
principal is always named in the app's policy)."""
DOOR_CODES: Final = frozenset(code for code in ErrorCode if code.status is Status.ERROR)
"""The front door's own error codes (docs/mqtt-api.md): their messages are English."""
PAIRING_LOST_CODES: Final = frozenset({ErrorCode.UNAUTHENTICATED, ErrorCode.BAD_SIGNATURE})
"""The app holds no secret, or another one: only pairing again helps (a reauth flow)."""
READ_TOOLS: Final = frozenset(
    {"get_state", "list_entities", "list_events", "check_free_busy", "list_todo_items"}
)
"""The tools that only read (`tool_schemas`' `Access.READ`; a test keeps them in step). An
answer whose actions all read is a query answer, not an action done."""
NO_TOOL_FITS: Final = "no_tool_fits"
"""The agent's refusal of a request no tool it may use fits (the action it reports)."""


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


def answer_for(response: AppResponse) -> Answer:
    speech, code = response.speech, response.error_code
    if response.status is Status.DONE or response.asks:
        return Answer(
            speech,
            continue_conversation=response.asks,
            executed=response.entities(Outcome.EXECUTED),
            failed=response.entities(Outcome.FAILED),
            query=response.status is Status.DONE and only_reads(response),
        )
    if code in AUTH_CODES:
        return Answer(
            "",
            intent.IntentResponseErrorCode.FAILED_TO_HANDLE,
            translation_key="not_authorized",
            placeholders={"code": str(code)},
        )
    if response.status in {Status.BUSY, Status.WARMING_UP}:
        # While warming up, the app's words carry the progress and the estimate.
        spoken = speech if response.status is Status.WARMING_UP else ""
        key = None
        if not spoken:
            key = "agent_busy" if response.status is Status.BUSY else "agent_warming_up"
        return Answer(spoken, intent.IntentResponseErrorCode.FAILED_TO_HANDLE, translation_key=key)
    if response.status is Status.REFUSED:
        nothing_fits = any(action.tool == NO_TOOL_FITS for action in response.actions)
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
            placeholders={"code": str(code or response.status), "message": speech},
        )
    return Answer(speech, intent.IntentResponseErrorCode.FAILED_TO_HANDLE)


def only_reads(response: AppResponse) -> bool:
    """The response's executed actions exist and all only read."""
    tools = response.tools(Outcome.EXECUTED)
    return bool(tools) and all(tool in READ_TOOLS for tool in tools)
