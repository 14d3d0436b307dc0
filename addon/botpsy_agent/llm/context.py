"""How many tokens of context the local model gets: enough for the prompt it will read.

The context is chosen before the model loads (llama.cpp allocates its KV cache for the whole
context then), from the longest prompt prefix any principal can have: the shared system
prompt and tools, then the listing of every entity exposed to Assist (a principal's listing
is a part of it). To that come a request's room (its words, a few steps, the answer's
tokens) and room for the home to grow, rounded up; never less than `MIN_CONTEXT`, never
more than the model was trained for, nor than memory allows (D79).

A `context_length` option other than 0 is the user's choice and wins; a choice too small
for the home is said at start, with the size that would fit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
import logging
from pathlib import Path

from botpsy_agent.llm.logs import open_llama
from botpsy_agent.llm.model_info import ModelFileError, check_gguf_file
from botpsy_agent.llm.prompt import build_prefix, prefix_tokens
from botpsy_agent.llm.template import ChatTemplate

_LOGGER = logging.getLogger(__name__)

AUTOMATIC = 0
"""The `context_length` option's value that asks for a size chosen from the prompt."""
REQUEST_ROOM = 512
"""Context a request needs beyond the prefix (its words, a few steps), besides the answer."""
ANSWER_TOKENS = 256
"""Tokens a model step may generate (the planner's `max_tokens`)."""
MIN_CONTEXT = 8192
"""The smallest automatic context: what every home had before it was chosen, room for a
conversation's history in a small home; its KV cache is under 0.25 GB for our models."""
STEP = 1024
"""Automatic sizes are whole multiples of this."""
GROWTH = 8
"""Room for the home to grow: one part in `GROWTH` of the prefix (125 entities in 1,000)
before the context must be made again (`App._check_context`)."""
KV_BYTES = 2
"""Bytes per value in llama.cpp's KV cache (f16, its default)."""
MEMORY_SHARE = 2
"""The KV cache may take at most one part in `MEMORY_SHARE` of the memory left beside the
model's weights when it loads (the rest: prefix snapshots, the app, the system)."""


@dataclass(frozen=True)
class PromptMeasure:
    """The longest prompt prefix, counted with the model's own tokenizer and template, and
    what the model's file says about the context it can take."""

    prefix_tokens: int
    shared_tokens: int
    """System prompt and tools: the part every principal shares."""
    trained: int
    """The context the model was trained for (0: the file does not say)."""
    kv_bytes_per_token: int
    """KV cache bytes one token of context costs (0: unknown)."""
    model_bytes: int


@dataclass(frozen=True)
class ContextSize:
    """The context chosen, and why."""

    tokens: int
    prefix_tokens: int
    """The longest prefix it was chosen for."""
    room: int
    """Tokens a request needs beyond the prefix (`request_room`)."""
    automatic: bool
    limit: str | None = None
    """What held an automatic size below what the prompt needs: "training", "memory"."""
    trained: int = 0
    memory_tokens: int | None = None
    """The most tokens memory allows (None: not known)."""

    @property
    def needed(self) -> int:
        return self.prefix_tokens + self.room

    def fits(self, prefix_tokens: int) -> bool:
        """Whether a prefix this long leaves room for a request."""
        return prefix_tokens + self.room <= self.tokens

    @property
    def problem(self) -> str | None:
        """One line when requests of a principal who sees the whole home cannot fit."""
        if self.fits(self.prefix_tokens):
            return None
        if self.automatic:
            why = (
                f"the most the model was trained for ({self.trained:,})"
                if self.limit == "training"
                else f"the most memory allows ({self.memory_tokens or 0:,})"
            )
            return (
                f"the prompt needs a context of {self.needed:,} tokens but {self.tokens:,} is "
                f"{why}: expose fewer entities to Assist"
            )
        return (
            f"context_length {self.tokens:,} is too small for this home's prompt "
            f"({self.needed:,} tokens): set it to 0 (automatic) or at least "
            f"{_round_up(self.needed):,}"
        )

    def describe(self, entities: int) -> str:
        """The start-up line: the size, why, and the figures it came from."""
        if not self.automatic:
            kind = "the context_length option"
        elif self.limit is not None or self.tokens < self._wanted:
            kind = "automatic, capped: " + (
                "the most the model was trained for"
                if self.tokens == self.trained
                else "the most memory allows"
            )
        elif self.tokens == MIN_CONTEXT and self._wanted <= MIN_CONTEXT:
            kind = "automatic: the smallest it chooses"
        else:
            kind = f"automatic: prefix, request and 1/{GROWTH} to grow, rounded up"
        facts = [f"model trained for {self.trained:,}"] if self.trained else []
        if self.memory_tokens is not None:
            facts.append(f"memory allows {self.memory_tokens:,}")
        return (
            f"Context: {self.tokens:,} tokens ({kind}); the prompt prefix with all "
            f"{entities:,} entities exposed to Assist is {self.prefix_tokens:,} tokens, "
            f"{self.room:,} more for a request" + (f" ({', '.join(facts)})" if facts else "")
        )

    @property
    def _wanted(self) -> int:
        return wanted_context(self.prefix_tokens, self.room)


def wanted_context(prefix_tokens: int, room: int) -> int:
    """The automatic size before any cap: prefix, request room and room to grow, rounded up
    to `STEP`, at least `MIN_CONTEXT`."""
    return max(MIN_CONTEXT, _round_up(prefix_tokens + prefix_tokens // GROWTH + room))


def request_room(thinking_budget: int = 0, answer_tokens: int = ANSWER_TOKENS) -> int:
    """Tokens one request needs after the prefix: its words and steps, a thought, an answer."""
    return REQUEST_ROOM + thinking_budget + answer_tokens


def choose_context(
    measure: PromptMeasure,
    room: int,
    *,
    option: int = AUTOMATIC,
    memory_bytes: int | None = None,
) -> ContextSize:
    """The context for this prompt: the option's when it is not `AUTOMATIC`; otherwise the
    prefix, the request's room and room to grow, rounded up to `STEP`, at least
    `MIN_CONTEXT`, capped by the training context and by `memory_bytes` available."""
    memory_tokens = None
    if memory_bytes is not None and measure.kv_bytes_per_token:
        spare = max(0, memory_bytes - measure.model_bytes) // MEMORY_SHARE
        memory_tokens = max(STEP, spare // measure.kv_bytes_per_token // STEP * STEP)
    limit = None
    if option != AUTOMATIC:
        tokens = option
    else:
        tokens = wanted_context(measure.prefix_tokens, room)
        for name, cap in (("training", measure.trained), ("memory", memory_tokens)):
            if cap and cap < tokens:
                tokens, limit = cap, name
        if tokens >= measure.prefix_tokens + room:
            limit = None  # capped, but the prompt still fits: nothing to say
    return ContextSize(
        tokens=tokens,
        prefix_tokens=measure.prefix_tokens,
        room=room,
        automatic=option == AUTOMATIC,
        limit=limit,
        trained=measure.trained,
        memory_tokens=memory_tokens,
    )


def prefix_of(template: ChatTemplate, tokenize: Callable[[str], list[int]], listing: str) -> int:
    """Tokens of the prompt prefix (system prompt, tools, `listing`) as the planner renders it."""
    return prefix_tokens(template, tokenize, build_prefix(listing)).prefix_length


def measure_prompt(model_path: Path, listing: str) -> PromptMeasure:
    """The prefix of `listing` in the model's tokens, read with its vocabulary only (the
    weights load afterwards, with the context chosen from this)."""
    check_gguf_file(model_path)
    try:
        vocab = open_llama(model_path=str(model_path), vocab_only=True)
    except (ValueError, RuntimeError) as err:
        raise ModelFileError(f"llama.cpp cannot read {model_path}: {err}") from None
    try:
        metadata = vocab.metadata
        template = ChatTemplate(metadata.get("tokenizer.chat_template", ""))

        def tokenize(text: str) -> list[int]:
            return list(vocab.tokenize(text.encode("utf-8"), add_bos=False, special=True))

        rendered = prefix_tokens(template, tokenize, build_prefix(listing))
    finally:
        vocab.close()
    architecture = metadata.get("general.architecture", "")
    return PromptMeasure(
        prefix_tokens=rendered.prefix_length,
        shared_tokens=rendered.cuts[0],
        trained=_int(metadata, f"{architecture}.context_length"),
        kv_bytes_per_token=kv_bytes_per_token(metadata),
        model_bytes=model_path.stat().st_size,
    )


def kv_bytes_per_token(metadata: dict[str, str]) -> int:
    """What one token of context costs in llama.cpp's KV cache, from the GGUF's
    hyperparameters: keys and values of every attention layer (a hybrid model such as
    Qwen3.5 has one in `full_attention_interval`); 0 when the file does not say."""
    arch = metadata.get("general.architecture", "")
    layers = _int(metadata, f"{arch}.block_count")
    heads_kv = _int(metadata, f"{arch}.attention.head_count_kv") or _int(
        metadata, f"{arch}.attention.head_count"
    )
    key = _int(metadata, f"{arch}.attention.key_length")
    value = _int(metadata, f"{arch}.attention.value_length")
    if not key:
        heads = _int(metadata, f"{arch}.attention.head_count")
        key = value = _int(metadata, f"{arch}.embedding_length") // heads if heads else 0
    if interval := _int(metadata, f"{arch}.full_attention_interval"):
        layers = -(-layers // interval)
    return layers * heads_kv * (key + (value or key)) * KV_BYTES


def available_memory() -> int | None:
    """Bytes this process may still take: the smaller of the system's available memory and
    what the container's memory limit leaves (cgroup v2); None when neither is known."""
    known = []
    try:
        lines = Path("/proc/meminfo").read_text().splitlines()
        known += [int(n.split()[1]) * 1024 for n in lines if n.startswith("MemAvailable:")]
    except OSError, ValueError, IndexError:
        pass
    cgroup = Path("/sys/fs/cgroup")
    try:
        limit = (cgroup / "memory.max").read_text().strip()
        if limit != "max":
            known.append(int(limit) - int((cgroup / "memory.current").read_text()))
    except OSError, ValueError:
        pass
    return max(0, min(known)) if known else None


def log_choice(size: ContextSize, entities: int) -> None:
    """Say at start what was chosen and why; loudly when requests cannot fit."""
    _LOGGER.info("%s", size.describe(entities))
    if size.problem is not None:
        _LOGGER.warning(
            "Requests of people who see the whole home will be answered prompt_too_long: %s",
            size.problem,
        )


def _round_up(tokens: int) -> int:
    return -(-tokens // STEP) * STEP


def _int(metadata: dict[str, str], key: str) -> int:
    try:
        return int(metadata.get(key, "0") or 0)
    except ValueError:
        return 0
