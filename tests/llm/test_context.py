"""The context chosen from the prompt (D79): counted with the model's own tokenizer before it
loads (real llama.cpp, the tiny GGUFs), and the rule that turns the count into a size."""

from __future__ import annotations

from pathlib import Path

import pytest

from botpsy_agent.agent.offer import whole_listing
from botpsy_agent.llm.context import (
    AUTOMATIC,
    GROWTH,
    MIN_CONTEXT,
    STEP,
    PromptMeasure,
    choose_context,
    measure_prompt,
    request_room,
)
from botpsy_agent.llm.llama_cpp import LlamaEngine
from botpsy_agent.llm.prompt import build_prefix, prefix_tokens
from botpsy_agent.llm.snapshots import PrefixCache
from devkit.homes import realistic_home

ROOM = request_room()
GIB = 1024**3


def measured(prefix: int, *, trained: int = 32768, kv: int = 12288) -> PromptMeasure:
    return PromptMeasure(prefix, 2000, trained, kv, model_bytes=GIB // 2)


@pytest.mark.parametrize("engine_name", ["qwen35_engine", "qwen3_engine"])
def test_the_count_before_loading_is_the_prefix_the_planner_renders(
    engine_name: str, request: pytest.FixtureRequest
) -> None:
    engine: LlamaEngine = request.getfixturevalue(engine_name)
    listing = whole_listing(realistic_home(250))
    measure = measure_prompt(engine.settings.model_path, listing)
    rendered = prefix_tokens(engine.template, engine.tokenize, build_prefix(listing))
    assert measure.prefix_tokens == rendered.prefix_length
    assert measure.shared_tokens == rendered.cuts[0]
    assert measure.trained == engine.info.context_length
    assert measure.model_bytes == engine.settings.model_path.stat().st_size


def test_a_token_of_context_costs_what_llama_cpp_keeps_for_it(
    qwen3_engine: LlamaEngine, tiny_qwen3_gguf: Path
) -> None:
    """Two prefix snapshots of an attention-only model differ by the KV cache of the tokens
    between them (and a little bookkeeping per token)."""
    engine = qwen3_engine
    short = prefix_tokens(engine.template, engine.tokenize, build_prefix("")).tokens
    long = prefix_tokens(
        engine.template, engine.tokenize, build_prefix(whole_listing(realistic_home(40)))
    ).tokens
    sizes = []
    for tokens in (short, long):
        engine.warm(tokens)
        snapshot = engine.prefixes.get(PrefixCache.key(tokens))
        assert snapshot is not None
        sizes.append(snapshot.size)
    per_token = (sizes[1] - sizes[0]) / (len(long) - len(short))
    kv = measure_prompt(tiny_qwen3_gguf, "").kv_bytes_per_token
    assert kv > 0
    assert kv <= per_token <= kv + 16, (kv, per_token)


def test_a_small_home_gets_the_smallest_automatic_context() -> None:
    size = choose_context(measured(3000), ROOM)
    assert size.tokens == MIN_CONTEXT and size.automatic
    assert size.problem is None
    assert "(automatic: the smallest it chooses)" in size.describe(38)
    assert size.fits(MIN_CONTEXT - ROOM) and not size.fits(MIN_CONTEXT - ROOM + 1)


def test_a_large_home_gets_its_prefix_room_and_an_eighth_to_grow_rounded_up() -> None:
    size = choose_context(measured(10_000), ROOM)
    assert size.tokens == 12_288  # 10,000 + 1,250 + 768 = 12,018, rounded up to 1,024s
    assert size.tokens % STEP == 0
    assert size.tokens >= 10_000 + 10_000 // GROWTH + ROOM
    assert size.limit is None and size.problem is None
    line = size.describe(1000)
    assert line.startswith(
        "Context: 12,288 tokens (automatic: prefix, request and 1/8 to grow, rounded up); "
    )
    assert "1,000 entities exposed to Assist is 10,000 tokens" in line
    assert "model trained for 32,768" in line


def test_the_training_context_caps_it_and_says_so_only_when_requests_cannot_fit() -> None:
    roomy = choose_context(measured(7_500, trained=8_800), ROOM)
    assert (roomy.tokens, roomy.limit, roomy.problem) == (8_800, None, None)  # 8,268 fit
    short = choose_context(measured(9_000, trained=8_192), ROOM)
    assert (short.tokens, short.limit) == (8_192, "training")
    assert short.problem is not None
    assert "(automatic, capped: the most the model was trained for)" in short.describe(900)
    assert "needs a context of 9,768 tokens" in short.problem
    assert "the most the model was trained for (8,192)" in short.problem


def test_memory_caps_it() -> None:
    # 1.5 GB free, 0.5 GB of weights: half of the 1 GB left for 12 kB a token.
    size = choose_context(measured(60_000, trained=131_072), ROOM, memory_bytes=3 * GIB // 2)
    assert size.memory_tokens == (GIB // 2) // 12288 // STEP * STEP == 43_008
    assert (size.tokens, size.limit) == (43_008, "memory")
    assert size.problem is not None and "the most memory allows (43,008)" in size.problem
    assert "(automatic, capped: the most memory allows)" in size.describe(5000)
    plenty = choose_context(measured(60_000, trained=131_072), ROOM, memory_bytes=16 * GIB)
    assert plenty.limit is None and plenty.tokens == 68_608


def test_the_option_wins_and_one_too_small_says_what_would_fit() -> None:
    big = choose_context(measured(3_000), ROOM, option=16_384)
    assert (big.tokens, big.automatic, big.problem) == (16_384, False, None)
    assert "(the context_length option)" in big.describe(38)
    small = choose_context(measured(3_000), ROOM, option=2_048)
    assert small.tokens == 2_048
    assert small.problem == (
        "context_length 2,048 is too small for this home's prompt (3,768 tokens): "
        "set it to 0 (automatic) or at least 4,096"
    )
    assert choose_context(measured(3_000), ROOM, option=AUTOMATIC).automatic


def test_thinking_makes_more_room() -> None:
    assert request_room(thinking_budget=1024) == ROOM + 1024
    assert choose_context(measured(10_000), request_room(1024)).tokens == 13_312
