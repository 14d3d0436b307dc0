"""What the planner needs from an engine, whichever backend runs the model.

Two backends implement it: `LlamaEngine` (llama.cpp in this process) and `ServerEngine`
(llama.cpp's own `llama-server` on another machine of the house). The agent, the grammar,
the policy and the grounding check see only this; which backend serves a job is chosen in
the model worker (`llm.routing`).
"""

from __future__ import annotations

from collections.abc import Sequence
import threading
from typing import Protocol

from botpsy_agent.llm.engine import BuildProgress, Completion
from botpsy_agent.llm.grammar import Grammar
from botpsy_agent.llm.model_info import ModelInfo
from botpsy_agent.llm.template import ChatTemplate


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
