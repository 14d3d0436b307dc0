"""How costs grow: with the size of the home (entities) and with the length of the prompt.

Home size: index build (from HA's payloads), the principal's offer (scope + narrowed
schemas + listing), its grammar, `authorize`, and the prompt prefix length.
Prompt length: evaluating a fresh prompt of N tokens on the tiny model and on the
Qwen3.5-0.8B-shaped Q8_0 model (what a cold prefix costs).
"""

from __future__ import annotations

from datetime import UTC, datetime
import json
import os
import statistics
import time
from typing import Any

from bench.ha_index import build, payloads
from botpsy_agent.agent.offer import build_offer
from botpsy_agent.home.resolve import ResolutionError, resolve_call
from botpsy_agent.llm.grammar import Mode, build_grammar
from botpsy_agent.llm.llama_cpp import EngineSettings, LlamaEngine
from botpsy_agent.llm.model_info import ToolFormat
from botpsy_agent.llm.prompt import build_prefix
from botpsy_agent.policy import Principal, authorize, parse_policy, scope
from devkit.homes import generated_home
from devkit.tiny_gguf import QWEN35_0_8B, TINY_QWEN35, cached_model
from tool_schemas.base import MappingContext
from tool_schemas.catalog import parse_tool_call

SIZES = (100, 250, 500, 1000, 2000)
PROMPT_LENGTHS = (256, 512, 1024, 2048, 4096, 8192)
POLICY = "version: 1\ngroups: {admin: {ignore_exposure: true, rules: [{allow: [read, control]}]}}\n"
NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)
CHARS_PER_TOKEN = 3.5  # a real Qwen tokenizer on this JSON-and-names text, roughly


def home_size() -> list[dict[str, Any]]:
    policy = parse_policy(POLICY, "bench")
    admin = Principal.user("a" * 32, is_admin=True)
    rows = []
    for size in SIZES:
        data = payloads(size)
        started = time.perf_counter()
        build(data)
        index_ms = (time.perf_counter() - started) * 1000
        home = generated_home(size, seed=1)
        started = time.perf_counter()
        offer = build_offer(scope(policy, admin, home, NOW), home)
        offer_ms = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        grammar = build_grammar(offer.schemas, ToolFormat.QWEN_XML, Mode.AUTO)
        grammar_ms = (time.perf_counter() - started) * 1000
        prefix = build_prefix(offer.listing)
        prefix_chars = (
            len(prefix.system)
            + sum(len(json.dumps(tool)) for tool in prefix.tools)
            + len(prefix.listing_block)
        )
        ids = sorted(home.entities)[:3]
        call = parse_tool_call("get_state", {"entity_id": ids})
        samples = []
        for _ in range(300):
            try:
                resolved = resolve_call(home, call, MappingContext(NOW))
            except ResolutionError:
                break
            started = time.perf_counter()
            authorize(policy, admin, resolved, NOW)
            samples.append((time.perf_counter() - started) * 1000)
        rows.append(
            {
                "entities": size,
                "index_build_ms": round(index_ms, 1),
                "offer_ms": round(offer_ms, 1),
                "grammar_ms": round(grammar_ms, 1),
                "grammar_kchars": round(len(grammar.text) / 1000, 1),
                "prefix_kchars": round(prefix_chars / 1000, 1),
                "prefix_tokens_estimate": round(prefix_chars / CHARS_PER_TOKEN),
                "authorize_p50_ms": round(statistics.median(samples), 4) if samples else None,
            }
        )
    return rows


def prompt_length() -> dict[str, list[dict[str, Any]]]:
    models = {"tiny_qwen35": cached_model(TINY_QWEN35, "tiny-qwen35")}
    if os.environ.get("BOTPSY_BENCH_SKIP_LARGE") != "1":
        models["qwen35_0_8b_shaped_q8_0"] = cached_model(
            QWEN35_0_8B, "qwen35-0.8b-shaped-q8_0", quantize_q8=True
        )
    results: dict[str, list[dict[str, Any]]] = {}
    for label, path in models.items():
        engine = LlamaEngine(
            EngineSettings(path, context_length=max(PROMPT_LENGTHS) + 64, batch_size=512)
        )
        try:
            filler = engine.tokenize("the kitchen light and the hall light are on. " * 2000)
            rows = []
            for length in PROMPT_LENGTHS:
                started = time.perf_counter()
                engine.evaluate_fresh(filler[:length])
                seconds = time.perf_counter() - started
                rows.append(
                    {
                        "tokens": length,
                        "seconds": round(seconds, 3),
                        "tokens_per_s": round(length / seconds, 1),
                    }
                )
            results[label] = rows
        finally:
            engine.close()
    return results


def run() -> dict[str, Any]:
    return {"home_size": home_size(), "prompt_length": prompt_length()}
