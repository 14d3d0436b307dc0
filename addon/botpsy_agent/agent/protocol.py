"""The agent's request and response, typed: what every front door (MQTT, tests, the demo)
hands to the agent and gets back. The MQTT wire format is these, as JSON
(docs/mqtt-api.md).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, Protocol

# Re-exported: an answer's status and an action's outcome are the wire's words.
from botpsy_agent.contract import Outcome as Outcome, Status as Status  # noqa: PLC0414
from botpsy_agent.llm.planning import StepTimings
from botpsy_agent.policy import Principal


class Path(StrEnum):
    FAST_PATH = "fast_path"
    MODEL = "model"
    CONFIRMATION = "confirmation"  # the answer to a pending confirmation question
    NONE = "none"  # refused or failed before either path ran


class Decision(StrEnum):
    """What the policy said of one call."""

    ALLOW = "allow"
    DENY = "deny"
    CONFIRM = "confirm"
    NONE = "none"  # no decision: the call failed or ended before the policy saw it


class AgentCode(StrEnum):
    """The agent's own error codes, in an answer's `error` and in an action's
    (docs/mqtt-api.md, "Error codes of the agent"; the front door's are the contract's
    `ErrorCode`). Those of `SAID_CODES` are said from the phrasebook's `errors.<code>`; the
    others are said by what became of the action. The parts below keep their own: the
    policy's refusals (`policy.DenyReason`), a target that names nothing
    (`home.ResolutionError`), a call the checks hold back (`words.CallProblem`), a call that
    does not parse (`tool_schemas.catalog.ToolCallError`) and HA's own (`ha_<code>`)."""

    # The answer's: the agent could not take the request.
    UNKNOWN_LANGUAGE = "unknown_language"
    HA_STARTING = "ha_starting"
    HA_UNAVAILABLE = "ha_unavailable"
    MODEL_UNAVAILABLE = "model_unavailable"
    BUSY = "busy"
    TIMEOUT = "timeout"
    WARMING_UP = "warming_up"
    PROMPT_TOO_LONG = "prompt_too_long"
    INVALID_CALL = "invalid_call"
    STEP_LIMIT = "step_limit"
    INTERNAL_ERROR = "internal_error"
    # An action's: what became of one call.
    NOT_ASKED = "not_asked"
    BORROWED_VERB = "borrowed_verb"
    OUTSIDE_GRAMMAR = "outside_grammar"
    NEEDS_VOICE_DEVICE = "needs_voice_device"
    NO_SUCH_DEVICE = "no_such_device"
    OUTCOME_UNKNOWN = "outcome_unknown"
    HANDED_TO_ASSIST = "handed_to_assist"


SAID_CODES = frozenset(
    {
        AgentCode.UNKNOWN_LANGUAGE,
        AgentCode.HA_STARTING,
        AgentCode.HA_UNAVAILABLE,
        AgentCode.MODEL_UNAVAILABLE,
        AgentCode.BUSY,
        AgentCode.TIMEOUT,
        AgentCode.WARMING_UP,
        AgentCode.PROMPT_TOO_LONG,
        AgentCode.INVALID_CALL,
        AgentCode.STEP_LIMIT,
        AgentCode.INTERNAL_ERROR,
    }
)
"""The codes said from the phrasebook (`errors.<code>`, in every language it has)."""


@dataclass(frozen=True)
class ErrorInfo:
    code: str
    """Stable, machine-readable: `invalid_json`, `unauthenticated`, `busy`, `ha_timeout`, …
    (the front door's `ErrorCode`, the agent's `AgentCode`, or a code of the part below that
    refused)."""
    message: str
    """For people: says what was wrong and, where it helps, what to do."""


@dataclass(frozen=True)
class AgentRequest:
    """One request, after authentication: the principal is established, never claimed."""

    id: str
    text: str
    principal: Principal
    language: str = "en"
    conversation_id: str | None = None
    device_id: str | None = None
    """The voice device (satellite) that heard the request: HA's own intents (timers,
    broadcasts) are handed back to Assist for it."""
    area_id: str | None = None
    dry_run: bool = False
    """Plan and authorise, execute nothing."""


@dataclass
class ActionReport:
    """One tool call the agent made, and what became of it."""

    tool: str
    arguments: dict[str, Any]
    entity_ids: list[str] = field(default_factory=list)
    service_calls: list[dict[str, Any]] = field(default_factory=list)
    """The HA calls it meant (WebSocket message bodies)."""
    decision: Decision = Decision.ALLOW
    rule: str | None = None
    """The policy rule that decided."""
    outcome: Outcome = Outcome.EXECUTED
    result: Any = None
    """New states, or what HA answered (events, items)."""
    error: ErrorInfo | None = None


@dataclass
class Timings:
    """Where a turn's time went. The parts add up to at most `total_ms`: `queue_ms +
    fast_path_ms + model_ms + checks_ms + ha_ms <= total_ms`, and `model_ms` is the sum of
    the model steps' own `total_ms` (docs/mqtt-api.md)."""

    queue_ms: float = 0.0
    fast_path_ms: float = 0.0
    model_ms: float = 0.0
    """Every model step as the request waited for it (`steps`)."""
    checks_ms: float = 0.0
    """The model path's work around its steps: narrowing the grammar, resolving targets,
    the policy, grounding and the checks of each call."""
    ha_ms: float = 0.0
    total_ms: float = 0.0
    """From the front door's receipt of the request to its answer (`mqtt/dispatch.py`)."""
    steps: list[StepTimings] = field(default_factory=list)
    """One entry per model step, in order."""


@dataclass
class AgentResponse:
    id: str
    status: Status
    speech: str = ""
    conversation_id: str | None = None
    actions: list[ActionReport] = field(default_factory=list)
    error: ErrorInfo | None = None
    path: Path = Path.NONE
    timings: Timings = field(default_factory=Timings)
    handoff: dict[str, Any] | None = None
    """An intent HA's Assist carries out for the request's voice device (a satellite's
    timer, a broadcast): `{"type": "assist_intent", "intent": ..., "slots": {...}}`."""

    def to_json(self) -> dict[str, Any]:
        """The wire form: plain JSON types, enums as their values, empty error and
        hand-off omitted."""
        data: dict[str, Any] = _plain(asdict(self))
        if self.error is None:
            data.pop("error")
        if self.handoff is None:
            data.pop("handoff")
        return data

    @classmethod
    def failure(
        cls, request_id: str, status: Status, code: str, message: str, **extra: Any
    ) -> AgentResponse:
        return cls(request_id, status, speech=message, error=ErrorInfo(code, message), **extra)


def _plain(value: Any) -> Any:
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, float):
        return round(value, 2)
    return value


class Agent(Protocol):
    """What the front doors call. Must answer every request exactly once, never raise."""

    async def handle(self, request: AgentRequest) -> AgentResponse: ...
