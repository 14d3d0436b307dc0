"""What the planner needs from an engine, whichever backend runs the model.

Two backends implement it: `LlamaEngine` (llama.cpp in this process) and `ServerEngine`
(llama.cpp's own `llama-server` on another machine of the house). The agent, the grammar,
the policy and the grounding check see only this; which backend serves a job is chosen in
the model worker (`llm.routing`).

What both backends share lives here too: a completion and its counts, the progress of a
prefix build, and the errors either may raise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
import threading
import time
from typing import Literal, Protocol

from botpsy_agent.llm.grammar import Grammar
from botpsy_agent.llm.model_info import ModelInfo
from botpsy_agent.llm.template import ChatTemplate

type FinishReason = Literal["stop", "length", "cancelled"]
type PrefixSource = Literal["extended", "trimmed", "snapshot", "shared", "resumed", "fresh"]
"""Where the prompt's evaluation started: the state already there, the same state
cut back to where the prompt leaves it (a step's call as the template renders it), the whole
prefix's snapshot, the shared part's snapshot (the principal's listing evaluated on top), a paused
build's state (the rest of the prefix evaluated on it), nothing."""


class EngineError(RuntimeError):
    """The backend refused something (grammar, state restore, decoding, the server's answer)."""


class PromptTooLong(EngineError):
    """The prompt and its answer do not fit the context (`context_length`)."""

    code = "prompt_too_long"

    def __init__(self, prompt_tokens: int, max_tokens: int, context_length: int) -> None:
        super().__init__(
            f"prompt of {prompt_tokens} tokens + {max_tokens} to generate exceeds the "
            f"context of {context_length}"
        )
        self.prompt_tokens = prompt_tokens
        self.context_length = context_length


class Cancelled(Exception):
    """The job's cancel flag was set (its request timed out or gave up), or the worker stops."""


@dataclass(frozen=True)
class Completion:
    text: str
    tokens: tuple[int, ...]
    finish_reason: FinishReason
    prompt_tokens: int
    evaluated_tokens: int
    """Prompt tokens actually evaluated for this completion (after snapshot or extension)."""
    prefix_source: PrefixSource
    prompt_ms: float
    generation_ms: float
    forced_tokens: int = 0
    """Generated tokens the grammar forced, fed in batches rather than sampled."""
    decode_steps: int = 0
    """Model evaluations during generation (a batch of forced tokens is one)."""
    restore_ms: float = 0.0
    """Part of `prompt_ms`: finding and restoring the prefix snapshot (memory or disk)."""
    build_ms: float = 0.0
    """Part of `prompt_ms`: evaluating prefix tokens no snapshot held (a cold build)."""
    grammar_ms: float = 0.0
    """Part of `generation_ms`: compiling the grammar into llama.cpp's sampler."""

    @property
    def sampled_tokens(self) -> int:
        """Generated tokens the model chose (the rest were forced by the grammar)."""
        return len(self.tokens) - self.forced_tokens


@dataclass
class BuildProgress:
    """A prefix being evaluated now. Written by the model thread, read by anyone."""

    total: int
    """Tokens in the prefix."""
    done: int = 0
    started: float = field(default_factory=time.monotonic)
    prior_rate: float | None = None
    """Tokens per second of the previous build, for an estimate before the first batch."""

    @property
    def percent(self) -> int:
        return min(99, int(100 * self.done / self.total)) if self.total else 0

    @property
    def eta_s(self) -> float | None:
        """Seconds left, from this build's rate (or the last one's); None while unknown."""
        elapsed = time.monotonic() - self.started
        rate = self.done / elapsed if self.done and elapsed > 0 else self.prior_rate
        return None if not rate else (self.total - self.done) / rate


class Engine(Protocol):
    info: ModelInfo
    template: ChatTemplate
    build: BuildProgress | None
    """The prefix being built now, if the backend can tell (the server cannot)."""
    abort: threading.Event
    """Set when the worker stops."""

    @property
    def context_length(self) -> int: ...

    def tokenize(self, text: str) -> list[int]: ...

    def detokenize(self, tokens: list[int] | tuple[int, ...]) -> str: ...

    def check_grammar(self, grammar: Grammar) -> None: ...

    def warm(
        self,
        prefix: list[int],
        cancel: threading.Event | None = None,
        *,
        cuts: Sequence[int] = (),
    ) -> bool: ...

    def complete(
        self,
        prompt: list[int],
        prefix_length: int | Sequence[int],
        grammar: Grammar | None,
        max_tokens: int,
        *,
        cancel: threading.Event | None = None,
        temperature: float = 0.0,
        seed: int | None = None,
        stop: tuple[str, ...] = (),
    ) -> Completion: ...

    def build_seconds(self) -> float: ...

    def close(self) -> None: ...
