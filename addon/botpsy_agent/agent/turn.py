"""One turn, decided before anything is said: each step records what became of it, typed.

The pipeline (`agent/pipeline.py`) and the answering of pending questions (`agent/pending.py`)
only decide: every step ends in one of the outcomes below, and `agent/answer.py` says the
whole turn once, from them, in the request's language (issue 26, item 2). Nothing here holds
a sentence: what is said of an action can only come from what was executed, and a failure
is one outcome, said once.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from botpsy_agent.agent.protocol import (
    ActionReport,
    ErrorInfo,
    Path,
    Status,
    Timings,
)
from botpsy_agent.ha import Execution
from botpsy_agent.home import ResolvedCall
from botpsy_agent.policy import Confirm, Deny
from botpsy_agent.words import StateQuestion
from tool_schemas.actions import describe
from tool_schemas.assist import ClockQuestion
from tool_schemas.base import Tool
from tool_schemas.conversation import AskUser


@dataclass(frozen=True)
class Executed:
    """HA ran the call (or, for a read, answered it): what is said comes from its result."""

    resolved: ResolvedCall
    execution: Execution


@dataclass(frozen=True)
class Planned:
    """A dry run: authorised, not executed."""

    resolved: ResolvedCall


@dataclass(frozen=True)
class Answered:
    """A state question of the fast path, answered from the states an executed read gave."""

    executed: Executed
    question: StateQuestion | None
    result: Any
    reading: str | None = None
    """The value asked for ("Heatpump: 25 °C"), when it is not a yes/no question."""


@dataclass(frozen=True)
class ToldTime:
    """The current time or date, said by the app itself (HA's HassGetCurrentTime/Date)."""

    what: ClockQuestion


@dataclass(frozen=True)
class HandedOff:
    """Authorised, and handed to HA's Assist to carry out for the voice device that heard it
    (a timer, a broadcast): HA says what it did."""


class Failure(StrEnum):
    HA = "ha"
    """HA answered with an error, or not in time."""
    INVALID_CALL = "invalid_call"
    """The model's call did not parse, broke its grammar, or contradicted another."""
    UNKNOWN_TARGET = "unknown_target"
    """The call names nothing this home has (or nothing the requester may use)."""
    NOT_ASKED = "not_asked"
    """The request did not ask for this call; the model is told, the user hears nothing of
    it."""
    NEEDS_VOICE_DEVICE = "needs_voice_device"
    """A timer or a broadcast asked where no voice device heard it (plain MQTT)."""
    NO_SUCH_DEVICE = "no_such_device"
    """The request names a device the home does not have (its words in `Failed.message`)."""
    NO_SUCH_READING = "no_such_reading"
    """The request asks about a thing no device of the home reads (its words in
    `Failed.message`)."""


@dataclass(frozen=True)
class Failed:
    why: Failure
    tool: str
    entity_ids: tuple[str, ...] = ()
    message: str = ""
    """HA's own words, for `Failure.HA`."""


@dataclass(frozen=True)
class Refused:
    """The policy said no."""

    decision: Deny


@dataclass(frozen=True)
class NothingFits:
    """No tool the requester has does what was asked: the app says what it can do."""

    tools: tuple[str, ...]
    entity_ids: frozenset[str]
    """What the requester was offered: the capability answer names their kinds of device."""


@dataclass(frozen=True)
class AskedToConfirm:
    """A call parked until its principal says yes; the question names exactly it."""

    decision: Confirm
    call: Tool


@dataclass(frozen=True)
class AskedToCheck:
    """A call that disagrees with what the request fixed (a time, a direction, a size)."""

    phrase: str
    values: dict[str, str]


@dataclass(frozen=True)
class AskedToClarify:
    """What the request leaves open, asked by the app from a template, never the model's
    words; `may_name`: the candidates the requester may be told of."""

    call: AskUser
    may_name: frozenset[str]


type StepOutcome = (
    Executed
    | Planned
    | Answered
    | ToldTime
    | HandedOff
    | Failed
    | Refused
    | NothingFits
    | AskedToConfirm
    | AskedToCheck
    | AskedToClarify
)


@dataclass(frozen=True)
class Closing:
    """A fixed sentence that ends a turn without a step ("OK, I won't.")."""

    key: str
    text: str | None = None
    """HA's own response text, when the sentence is HA's (HassRespond)."""


@dataclass
class Step:
    """One call and what became of it."""

    report: ActionReport
    status: Status
    outcome: StepOutcome
    feedback: dict[str, Any]
    """What the model is told about it (data, quoted in a tool response)."""
    is_read: bool = False
    targets: tuple[str, ...] = ()
    prepared: bool = False
    """A read the app ran itself to prepare the model's step (agent/prepare.py): never
    said, since nobody asked for it."""


def report_of(resolved: ResolvedCall, rule: str | None = None) -> ActionReport:
    """The report of a resolved call: its tool, arguments, entities and the HA calls it
    means; what became of it is filled in as it is decided and run."""
    return ActionReport(
        resolved.call.name,
        resolved.call.model_dump(exclude_none=True, mode="json"),
        entity_ids=list(resolved.entity_ids),
        service_calls=[describe(a) for a in resolved.actions],
        rule=rule,
    )


@dataclass
class Turn:
    steps: list[Step] = field(default_factory=list)
    executions: Counter[str] = field(default_factory=Counter)
    """Calls sent to the executor so far, by `call_digest`: the n-th run of one call in a
    request is its step, so a retry planned in another order still finds each call's first
    run (issue 25, finding 7)."""
    closing: Closing | None = None
    handoff: dict[str, Any] | None = None
    """An intent for HA's Assist to carry out for the request's voice device."""
    status: Status | None = None
    error: ErrorInfo | None = None
    path: Path = Path.NONE
    keeps_conversation: bool = True
    """False when the answer belongs to no conversation of the requester (they answered
    someone else's question)."""
    timings: Timings = field(default_factory=Timings)
