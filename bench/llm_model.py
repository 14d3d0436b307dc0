"""The model path on real llama.cpp: load, memory, prefix snapshot, time to first tool call.

Three models: the tiny test model; a random model with Qwen3.5-0.8B's real shapes and
Q8_0 weights (the same compute per token as BotPsy-0.8B Q8_0, generated once and cached);
and any real GGUF given in $BOTPSY_BENCH_GGUF. Random weights answer nonsense: only the
timings mean anything. Our stand-in tokenizer is coarser than Qwen's (about 2.3 characters
per token against roughly 3.5), so its prompts have more tokens than the real model's.
"""

from __future__ import annotations

from datetime import UTC, datetime
import os
from pathlib import Path
import time
from typing import Any

import psutil

from botpsy_agent.agent.offer import build_offer
from botpsy_agent.llm.grammar import Mode, build_grammar
from botpsy_agent.llm.llama_cpp import EngineSettings, LlamaEngine
from botpsy_agent.llm.prompt import build_prefix, render_prompt, request_context
from botpsy_agent.policy import Principal, parse_policy, scope
from devkit.homes import family_home
from devkit.tiny_gguf import QWEN35_0_8B, TINY_QWEN35, cached_model

ADMIN_POLICY = (
    "version: 1\ngroups: {admin: {ignore_exposure: true, rules: [{allow: [read, control]}]}}\n"
)
NOW = datetime(2026, 11, 30, 18, 30, tzinfo=UTC)
COMMANDS = ("switch the coffee machine on", "turn the hall light off", "dim the reading lamp")
# What a trained model writes for COMMANDS[1]; random weights write 50-80 tokens instead.
TYPICAL_CALL = (
    "<tool_call>\n<function=turn_off>\n<parameter=entity_id>\nlight.hall\n</parameter>\n"
    "</function>\n</tool_call>"
)


def _rss_mb() -> float:
    return round(psutil.Process().memory_info().rss / 1e6, 1)


def _prompt(engine: LlamaEngine, text: str) -> tuple[list[int], int, Any]:
    home = family_home()
    policy = parse_policy(ADMIN_POLICY, "bench")
    offer = build_offer(scope(policy, Principal.user("a" * 32, is_admin=True), home, NOW), home)
    user = {"role": "user", "content": f"{request_context(NOW)} {text}"}
    rendered = render_prompt(engine.template, engine.tokenize, build_prefix(offer.listing), [user])
    return rendered.tokens, rendered.prefix_length, offer


def measure(path: Path, label: str) -> dict[str, Any]:
    rss_before = _rss_mb()
    started = time.perf_counter()
    engine = LlamaEngine(EngineSettings(path, context_length=16384, batch_size=512))
    load_s = time.perf_counter() - started
    try:
        prompt, prefix_length, offer = _prompt(engine, COMMANDS[0])
        grammar = build_grammar(offer.schemas, engine.info.tool_format, Mode.REQUIRED)
        started = time.perf_counter()
        engine.check_grammar(grammar)
        grammar_check_ms = (time.perf_counter() - started) * 1000

        # Cold: nothing cached, the whole prompt is evaluated, then the first call generated.
        started = time.perf_counter()
        cold = engine.complete(prompt, prefix_length, grammar, 200, stop=("</tool_call>",))
        cold_s = time.perf_counter() - started
        prefix_tokens_per_s = cold.prompt_tokens / (cold.prompt_ms / 1000)

        # Warm: other commands after the same prefix restore the snapshot.
        warm = []
        for text in COMMANDS[1:]:
            tokens, length, _ = _prompt(engine, text)
            started = time.perf_counter()
            completion = engine.complete(tokens, length, grammar, 200, stop=("</tool_call>",))
            warm.append((time.perf_counter() - started, completion))

        # A trained model's call: restore, evaluate the request, then one decode step per
        # token of TYPICAL_CALL (teacher forcing costs what generating those tokens costs).
        tokens, length, _ = _prompt(engine, COMMANDS[1])
        call = engine.tokenize(TYPICAL_CALL)
        started = time.perf_counter()
        engine.next_token_logits(tokens, length)
        for token in call:
            engine.evaluate_next(token)
        typical_s = time.perf_counter() - started

        # Generation speed without and with the grammar (temperature 0, 64 tokens).
        started = time.perf_counter()
        free = engine.complete(prompt, prefix_length, None, 64)
        free_tps = len(free.tokens) / max(free.generation_ms / 1000, 1e-9)
        constrained = engine.complete(prompt, prefix_length, grammar, 64)
        constrained_tps = len(constrained.tokens) / max(constrained.generation_ms / 1000, 1e-9)
        return {
            "model": label,
            "file_mb": round(path.stat().st_size / 1e6, 1),
            "threads": engine.threads,
            "load_s": round(load_s, 2),
            "rss_mb_after_load": _rss_mb(),
            "rss_mb_model": round(_rss_mb() - rss_before, 1),
            "prefix_tokens": prefix_length,
            "request_tokens": len(prompt) - prefix_length,
            "snapshot_mb": round(engine.prefixes.used / 1e6, 1),
            "grammar_chars": len(grammar.text),
            "grammar_check_ms": round(grammar_check_ms, 1),
            "prompt_tokens_per_s": round(prefix_tokens_per_s, 1),
            "cold_first_call_s": round(cold_s, 2),
            "warm_first_call_s": [round(s, 2) for s, _ in warm],
            "warm_request_tokens_evaluated": [c.evaluated_tokens for _, c in warm],
            "warm_generated_tokens": [len(c.tokens) for _, c in warm],
            "warm_typical_call_s": round(typical_s, 2),
            "typical_call_tokens": len(call),
            "generation_tokens_per_s": round(free_tps, 1),
            "generation_tokens_per_s_with_grammar": round(constrained_tps, 1),
        }
    finally:
        engine.close()


def run() -> dict[str, Any]:
    results = {}
    tiny = cached_model(TINY_QWEN35, "tiny-qwen35")
    results["tiny_qwen35"] = measure(tiny, "tiny random qwen35 (4 layers, n_embd 64)")
    if os.environ.get("BOTPSY_BENCH_SKIP_LARGE") != "1":
        print(
            "[bench] writing or reusing the 0.8B-shaped random Q8_0 model (minutes, once)…",
            flush=True,
        )
        shaped = cached_model(QWEN35_0_8B, "qwen35-0.8b-shaped-q8_0", quantize_q8=True)
        results["qwen35_0_8b_shaped_q8_0"] = measure(
            shaped, "random weights, Qwen3.5-0.8B shapes, Q8_0"
        )
    if real := os.environ.get("BOTPSY_BENCH_GGUF"):
        results["given_gguf"] = measure(Path(real), f"given file {Path(real).name}")
    return results
