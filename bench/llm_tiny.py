"""Prompt and generation speed of the tiny test models through real llama.cpp."""

from __future__ import annotations

import os
from pathlib import Path
import tempfile
import time
from typing import Any

from llama_cpp import Llama

from devkit.tiny_gguf import TINY_QWEN3, TINY_QWEN35, write_model

GENERATED = 64
PROMPT = "<|im_start|>user\n" + "turn on the kitchen light please. " * 20 + "<|im_end|>\n"


def run() -> dict[str, Any]:
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for shape in (TINY_QWEN35, TINY_QWEN3):
            path = write_model(Path(tmp) / f"tiny-{shape.arch}.gguf", shape)
            started = time.perf_counter()
            llm = Llama(
                model_path=str(path), n_ctx=2048, n_threads=os.cpu_count() or 1, verbose=False
            )
            load_s = time.perf_counter() - started
            tokens = llm.tokenize(PROMPT.encode(), add_bos=False, special=True)
            started = time.perf_counter()
            llm.eval(tokens)
            prompt_s = time.perf_counter() - started
            # Greedy decoding one token at a time: exactly GENERATED evaluations.
            started = time.perf_counter()
            for _ in range(GENERATED):
                llm.eval([llm.sample(temp=0.0)])
            gen_s = time.perf_counter() - started
            results[shape.arch] = {
                "load_s": round(load_s, 4),
                "prompt_tokens": len(tokens),
                "prompt_tokens_per_s": round(len(tokens) / prompt_s, 1),
                "generated_tokens": GENERATED,
                "generation_tokens_per_s": round(GENERATED / gen_s, 1),
            }
    return results
