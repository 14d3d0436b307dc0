"""The prompt budget: tokens per part of the fixed prefix, and what a second principal costs.

Token counts use the real Qwen2.5-Coder-0.5B tokenizer (vocabulary only; the test bed's GGUF,
`python -m devkit.real_models fetch`), for the demo home and generated homes of 40, 250 and
1,000 entities. The shared part (system prompt and tools) is the same for every principal; a
second principal pays only its listing. That cost is also measured on real llama.cpp with
the tiny model (prompt tokens evaluated), along with the snapshot files kept on disk.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
import tempfile
import time
from typing import Any

from botpsy_agent.agent.offer import build_offer
from botpsy_agent.home.model import Home
from botpsy_agent.llm.llama_cpp import EngineSettings, LlamaEngine
from botpsy_agent.llm.prompt import SYSTEM_PROMPT, build_prefix, prefix_tokens
from botpsy_agent.llm.template import ChatTemplate
from botpsy_agent.policy import Principal, parse_policy, scope
from devkit.homes import family_home, generated_home
from devkit.real_models import DEFAULT_MODEL, cache_dir
from devkit.tiny_gguf import TINY_QWEN35, cached_model

NOW = datetime(2026, 11, 30, 18, 30, tzinfo=UTC)
POLICY = """\
version: 1
groups:
  admin: {ignore_exposure: true, rules: [{allow: [read, control]}]}
  users: {rules: [{allow: [read, control], areas: [kitchen, living_room, area_1, area_2]}]}
"""
ADMIN = Principal.user("a" * 32, is_admin=True)
SECOND = Principal.user("b" * 32)
HOMES = {
    "demo_home_38": family_home,
    "generated_40": lambda: generated_home(40),
    "generated_250": lambda: generated_home(250),
    "generated_1000": lambda: generated_home(1000),
}


def _prefix(template: ChatTemplate, tokenize: Any, home: Home, principal: Principal) -> Any:
    policy = parse_policy(POLICY, "bench")
    offer = build_offer(scope(policy, principal, home, NOW), home)
    return prefix_tokens(template, tokenize, build_prefix(offer.listing))


def _token_counts() -> dict[str, Any]:
    from llama_cpp import Llama

    path = cache_dir() / f"{DEFAULT_MODEL}.gguf"
    if not path.exists():
        return {"skipped": f"the real model is not cached at {path}"}
    llm = Llama(model_path=str(path), vocab_only=True, verbose=False)
    try:

        def tokenize(text: str) -> list[int]:
            return list(llm.tokenize(text.encode(), add_bos=False, special=True))

        template = ChatTemplate(str(llm.metadata["tokenizer.chat_template"]))
        system = len(tokenize(SYSTEM_PROMPT))
        rows: dict[str, Any] = {}
        for name, make in HOMES.items():
            home = make()
            first = _prefix(template, tokenize, home, ADMIN)
            second = _prefix(template, tokenize, home, SECOND)
            shared = first.cuts[0]
            rows[name] = {
                "entities": len(home.entities),
                "system_tokens": system,
                "tools_tokens": shared - system,
                "listing_tokens": first.prefix_length - shared,
                "prefix_tokens": first.prefix_length,
                "second_principal_extra_tokens": second.prefix_length - shared,
            }
        growth = rows["generated_1000"]["prefix_tokens"] - rows["generated_250"]["prefix_tokens"]
        return {
            "tokenizer": DEFAULT_MODEL,
            "homes": rows,
            "tokens_per_added_entity_250_to_1000": round(growth / 750, 2),
        }
    finally:
        llm.close()


def _second_principal_on_llama_cpp() -> dict[str, Any]:
    """Tiny random model: tokens evaluated for a first and a second principal, restart."""
    home = family_home()
    model = cached_model(TINY_QWEN35, "tiny-qwen35")
    with tempfile.TemporaryDirectory() as folder:
        settings = EngineSettings(model, context_length=8192, snapshot_dir=Path(folder))
        engine = LlamaEngine(settings)
        try:
            first = _prefix(engine.template, engine.tokenize, home, ADMIN)
            second = _prefix(engine.template, engine.tokenize, home, SECOND)
            timings = {}
            for label, prefix in (("first", first), ("second", second)):
                before, started = engine.evaluated_total, time.perf_counter()
                engine.warm(prefix.tokens, cuts=prefix.cuts)
                timings[label] = {
                    "evaluated_tokens": engine.evaluated_total - before,
                    "seconds": round(time.perf_counter() - started, 3),
                }
        finally:
            engine.close()
        restarted = LlamaEngine(settings)
        try:
            started = time.perf_counter()
            built = restarted.warm(first.tokens, cuts=first.cuts)
            restart = {"evaluated": built, "seconds": round(time.perf_counter() - started, 3)}
            files = restarted.prefixes.store.files() if restarted.prefixes.store else []
        finally:
            restarted.close()
    return {
        "model": "tiny-qwen35 (random weights)",
        "shared_tokens": first.cuts[0],
        "first_principal": timings["first"],
        "second_principal": timings["second"],
        "after_restart_from_disk": restart,
        "snapshot_files": [{"file": name, "kb": round(size / 1024, 1)} for name, size in files],
    }


def run() -> dict[str, Any]:
    return {"real_tokenizer": _token_counts(), "llama_cpp_tiny": _second_principal_on_llama_cpp()}


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
