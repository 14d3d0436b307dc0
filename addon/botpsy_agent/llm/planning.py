"""What the agent sees of the model, and all of it: the offer a prompt is built from, a plan
request, the planner's turn (calls or text), and one error family.

`agent/` imports nothing else from `llm/`. `LlmPlanner` (`llm_planner.py`: llama.cpp through the
worker, in-process or on a model server) is one `Planner`; tests of the loop use scripted
ones that only choose calls. What a planner cannot do for a request it raises as
`PlanError`, with a `PlanFailure` that says which answer the agent gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
import hashlib
import json
from typing import Any, Protocol

from botpsy_agent.llm.grammar import WORDS_KEY
from botpsy_agent.llm.parse import RawCall
from botpsy_agent.llm.prompt import request_context

__all__ = [
    "WORDS_KEY",
    "Offer",
    "PlanError",
    "PlanFailure",
    "PlanRequest",
    "Planner",
    "PlannerTurn",
    "RawCall",
    "RejectedCall",
    "StepTimings",
    "request_context",
]


@dataclass(frozen=True)
class Offer:
    """The tools and listing one principal's prompt and grammar are built from."""

    schemas: tuple[dict[str, Any], ...]
    listing: str
    entity_ids: frozenset[str]

    @cached_property
    def key(self) -> str:
        """Identifies the prompt prefix this offer produces (for snapshots and grammars).
        Asked on every model step; an offer is reused until names or the policy change."""
        text = json.dumps([self.schemas, self.listing], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def tool_names(self) -> tuple[str, ...]:
        return tuple(s["name"] for s in self.schemas)


@dataclass(frozen=True)
class PlanRequest:
    offer: Offer
    messages: tuple[dict[str, Any], ...]
    """The conversation after the system turn: history, this request, this request's steps."""
    language: str
    request_id: str
    step: int
    calls_only: bool = True
    """Only tool calls may be generated (the first step of a request: text there could only
    claim something that was never done). Later steps may answer in text."""
    schemas: tuple[dict[str, Any], ...] | None = None
    """What the grammar allows, when narrower than the offer (fewer tools, fewer entities
    in their enums): the prompt, and so its cached prefix, still shows the whole offer.
    None: the offer's schemas."""


@dataclass(frozen=True)
class RejectedCall:
    """A call the model wrote that its grammar does not allow: never run."""

    call: RawCall
    reason: str


@dataclass(frozen=True)
class StepTimings:
    """Where one model step's time went, as the requester waited for it (milliseconds and
    tokens). `total_ms` holds the rest: `wait_ms + render_ms + grammar_ms + prompt_ms +
    generation_ms <= total_ms`, with `restore_ms` and `build_ms` parts of `prompt_ms`."""

    step: int = 0
    """The request's model step: 0 first (calls only), then one per round of results."""
    total_ms: float = 0.0
    wait_ms: float = 0.0
    """For the model worker: another request's job, or a prefix build it waited out."""
    render_ms: float = 0.0
    """Writing the conversation into the chat template and tokenising it."""
    grammar_ms: float = 0.0
    """Building the step's (narrowed) grammar and compiling it for llama.cpp."""
    prefix_source: str = ""
    """Where evaluation started: `snapshot` (the principal's prefix restored), `extended`
    (the state in place), `shared`, `resumed`, `fresh` (a cold build)."""
    prompt_tokens: int = 0
    evaluated_tokens: int = 0
    """Prompt tokens evaluated for this step: the request's own, plus any prefix built."""
    prompt_ms: float = 0.0
    """Bringing the model to the end of the prompt: restore, build, the request's tokens."""
    restore_ms: float = 0.0
    build_ms: float = 0.0
    generation_ms: float = 0.0
    sampled_tokens: int = 0
    """Generated tokens the model chose, one decode step each."""
    forced_tokens: int = 0
    """Generated tokens the grammar forced, evaluated in batches."""
    decode_steps: int = 0
    ms_per_token: float = 0.0
    """`generation_ms` over every generated token (sampled and forced)."""


@dataclass(frozen=True)
class PlannerTurn:
    calls: tuple[RawCall, ...] = ()
    text: str = ""
    problems: tuple[str, ...] = ()
    """Output that looked like calls but could not be read."""
    rejected: tuple[RejectedCall, ...] = ()
    """The turn's calls when any of them is outside the grammar the request was given
    (a model server is asked, not made, to keep to it: issue 25, finding 2). Then `calls`
    is empty: nothing of such a turn runs."""
    model_ms: float = 0.0
    """The step as the agent awaited it (`timings.total_ms`)."""
    timings: StepTimings = StepTimings()
    truncated: bool = False
    """The model hit its token limit: the output may be cut off."""


class PlanFailure(StrEnum):
    """Why the model could not plan a request; each value is the agent's error code."""

    BUSY = "busy"
    TIMEOUT = "timeout"
    UNAVAILABLE = "model_unavailable"
    WARMING_UP = "warming_up"
    PROMPT_TOO_LONG = "prompt_too_long"


class PlanError(Exception):
    """The one error a planner raises for a request it cannot plan."""

    def __init__(
        self, failure: PlanFailure, message: str, *, percent: int = 0, eta_s: float = 0.0
    ) -> None:
        super().__init__(message)
        self.failure = failure
        self.percent = percent
        """WARMING_UP: how far the prefix build is."""
        self.eta_s = eta_s
        """WARMING_UP: about how long it has left."""


class Planner(Protocol):
    async def plan(self, request: PlanRequest) -> PlannerTurn:
        """The model's next step: calls or text. Raises `PlanError`."""

    def prepare(self, offer: Offer) -> None:
        """Get ready for this offer in the background (prefix snapshot, grammar)."""
