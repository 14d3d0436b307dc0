"""Write random-weight GGUF chat models that real llama.cpp loads and runs.

Two uses: tiny models (well under 1 MB) that make tests of the whole generation path
fast, and models with BotPsy's real shapes (Qwen3.5-0.8B) that cost the same compute per
token as the real file, for benchmarks when the real file is absent. Their answers are
noise; a grammar still makes them produce well-formed tool calls.

The tokenizer is byte-level BPE ("gpt2") with all 256 byte symbols, the ChatML and tool
special tokens, optional merges learned from sample text, and optional filler tokens to
reach a real vocabulary size.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
import hashlib
from itertools import pairwise
import json
import os
from pathlib import Path

import gguf
import numpy as np

TEMPLATES = Path(__file__).parent / "templates"
WRITER_VERSION = 1  # bump when the files this module writes change

CONTROL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
USER_DEFINED_TOKENS = (
    "<tool_call>",
    "</tool_call>",
    "<tool_response>",
    "</tool_response>",
    "<think>",
    "</think>",
)


@dataclass(frozen=True)
class ModelShape:
    """Dimensions of a model; the qwen35 fields are ignored for other architectures."""

    arch: str  # "qwen35" (hybrid, XML tool calls) or "qwen3" (Hermes JSON tool calls)
    n_embd: int = 64
    n_layer: int = 4
    n_head: int = 4
    n_head_kv: int = 2
    head_dim: int = 16
    n_ff: int = 128
    context_length: int = 32768
    rope_dims: int | None = None  # partial rotary (qwen35); None = the whole head
    # qwen35 linear-attention (Gated DeltaNet) layers
    ssm_state: int = 16
    ssm_groups: int = 2
    ssm_dt_rank: int = 4
    ssm_conv_kernel: int = 4
    full_attention_interval: int = 4
    vocab_size: int | None = None  # pad with filler tokens up to this size
    tied_embeddings: bool = True


TINY_QWEN35 = ModelShape(arch="qwen35")
TINY_QWEN3 = ModelShape(arch="qwen3", n_layer=2)
# Qwen3.5-0.8B as published (config.json of Qwen/Qwen3.5-0.8B): 24 layers, hidden 1024,
# 8 query heads of 256 with 2 KV heads, FFN 3584, 16 linear-attention heads of 128,
# partial rotary 0.25 (64 of 256), vocabulary 248,320, tied embeddings.
QWEN35_0_8B = ModelShape(
    arch="qwen35",
    n_embd=1024,
    n_layer=24,
    n_head=8,
    n_head_kv=2,
    head_dim=256,
    n_ff=3584,
    context_length=262144,
    rope_dims=64,
    ssm_state=128,
    ssm_groups=16,
    ssm_dt_rank=16,
    ssm_conv_kernel=4,
    full_attention_interval=4,
    vocab_size=248320,
)


def cached_model(shape: ModelShape, name: str, *, quantize_q8: bool = False, seed: int = 0) -> Path:
    """A random model of this shape, written once into the toolchain cache and reused.

    Large shapes take minutes to write; the file name carries everything it depends on.
    """
    cache = Path(os.environ.get("BOTPSY_CACHE", Path.home() / ".cache" / "botpsy")) / "models"
    cache.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha256(
        repr((shape, quantize_q8, seed, WRITER_VERSION, chat_template(shape.arch))).encode()
    ).hexdigest()[:10]
    path = cache / f"{name}-{key}.gguf"
    if not path.exists():
        partial = path.with_suffix(".partial")
        write_model(
            partial, shape, seed=seed, merges=prompt_merges(), quantize_q8=quantize_q8, name=name
        )
        partial.replace(path)
    return path


def chat_template(arch: str) -> str:
    """Our own Qwen-style template in the tool format of that model family."""
    name = "qwen35_xml.jinja" if arch == "qwen35" else "qwen3_hermes.jinja"
    return (TEMPLATES / name).read_text()


@cache
def _byte_symbols() -> tuple[str, ...]:
    """GPT-2's reversible byte-to-unicode table: printable bytes map to themselves."""
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0xFF + 1)]
    symbols: dict[int, str] = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in symbols:
            symbols[b] = chr(256 + extra)
            extra += 1
    return tuple(symbols[b] for b in range(256))


def learn_merges(sample_text: Iterable[str], n_merges: int) -> list[tuple[str, str]]:
    """A small byte-level BPE training run, so prompts tokenize to realistic lengths."""
    table = _byte_symbols()
    words: Counter[tuple[str, ...]] = Counter()
    for text in sample_text:
        for raw in text.replace("\n", " \n ").split(" "):
            encoded = ("Ġ" if raw else "") + "".join(table[b] for b in raw.encode())
            if encoded:
                words[tuple(encoded)] += 1
    merges: list[tuple[str, str]] = []
    for _ in range(n_merges):
        pairs: Counter[tuple[str, str]] = Counter()
        for symbols, count in words.items():
            for left, right in pairwise(symbols):
                pairs[left, right] += count
        if not pairs:
            break
        best, count = pairs.most_common(1)[0]
        if count < 2:
            break
        merges.append(best)
        words = Counter({_merge_word(symbols, best): n for symbols, n in words.items()})
    return merges


def prompt_merges(n_merges: int = 800) -> list[tuple[str, str]]:
    """Merges learned from our own prompt text (system prompt, tool list, a listing), so the
    stand-in models tokenize prompts to roughly the lengths a real tokenizer gives."""
    from botpsy_agent.home.listing import render_listing
    from botpsy_agent.llm.prompt import SYSTEM_PROMPT, prompt_tools
    from devkit.homes import family_home
    from tool_schemas.catalog import catalog

    home = family_home()
    listing = [f"{e.entity_id} {e.name} {e.area_id or ''}" for e in home.entities.values()]
    corpus = [SYSTEM_PROMPT, *listing, *render_listing(home, home.entities).splitlines()]
    # The full schemas too: English enough for merges, so random text is not one byte a token.
    corpus += [json.dumps(tool) for tool in (*prompt_tools(), *catalog())]
    return learn_merges(corpus, n_merges)


def _merge_word(word: tuple[str, ...], pair: tuple[str, str]) -> tuple[str, ...]:
    out: list[str] = []
    i = 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def _vocabulary(
    merges: list[tuple[str, str]], vocab_size: int | None
) -> tuple[list[str], list[int]]:
    tokens = list(_byte_symbols())
    types = [gguf.TokenType.NORMAL] * len(tokens)
    seen = set(tokens)
    for left, right in merges:
        if (merged := left + right) not in seen:
            seen.add(merged)
            tokens.append(merged)
            types.append(gguf.TokenType.NORMAL)
    for token in CONTROL_TOKENS:
        tokens.append(token)
        types.append(gguf.TokenType.CONTROL)
    for token in USER_DEFINED_TOKENS:
        tokens.append(token)
        types.append(gguf.TokenType.USER_DEFINED)
    if vocab_size is not None:
        # Filler tokens only pad the size (output layer, grammar checks); nothing merges to them.
        filler = vocab_size - len(tokens)
        if filler < 0:
            raise ValueError(
                f"vocab_size {vocab_size} is smaller than the {len(tokens)} base tokens"
            )
        tokens += [f"<|unused_{i}|>" for i in range(filler)]
        types += [gguf.TokenType.UNUSED] * filler
    return tokens, [int(t) for t in types]


class _Weights:
    """Deterministic random tensors, scaled so activations stay finite."""

    def __init__(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    def matrix(self, rows: int, cols: int) -> np.ndarray:
        # numpy (rows, cols) is ggml {cols, rows}: cols is the input width.
        scale = np.float32(1.0 / np.sqrt(cols))
        matrix: np.ndarray = self._rng.standard_normal((rows, cols), dtype=np.float32) * scale
        return matrix

    @staticmethod
    def ones(n: int) -> np.ndarray:
        return np.ones(n, dtype=np.float32)

    def vector(self, n: int, low: float, high: float) -> np.ndarray:
        return self._rng.uniform(low, high, n).astype(np.float32)


def write_model(
    path: Path,
    shape: ModelShape,
    *,
    seed: int = 0,
    merges: list[tuple[str, str]] | None = None,
    quantize_q8: bool = False,
    name: str | None = None,
) -> Path:
    """Write a random-weight chat model to `path` and return it.

    `quantize_q8` stores 2-D weights as Q8_0 (rows must be multiples of 32), as the
    recommended BotPsy file is.
    """
    merges = merges or []
    tokens, token_types = _vocabulary(merges, shape.vocab_size)
    writer = gguf.GGUFWriter(str(path), shape.arch)
    writer.add_name(name or f"botpsy-test-{shape.arch}")
    file_type = gguf.LlamaFileType.MOSTLY_Q8_0 if quantize_q8 else gguf.LlamaFileType.ALL_F32
    writer.add_file_type(file_type)
    _add_hyperparameters(writer, shape)
    _add_tokenizer(writer, tokens, token_types, merges, chat_template(shape.arch))

    weights = _Weights(seed)

    def add(tensor_name: str, data: np.ndarray) -> None:
        if quantize_q8 and data.ndim == 2 and data.shape[1] % 32 == 0:
            packed = gguf.quants.quantize(data, gguf.GGMLQuantizationType.Q8_0)
            writer.add_tensor(tensor_name, packed, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
        else:
            writer.add_tensor(tensor_name, data)

    n_vocab = len(tokens)
    add("token_embd.weight", weights.matrix(n_vocab, shape.n_embd))
    add("output_norm.weight", weights.ones(shape.n_embd))
    if not shape.tied_embeddings:
        add("output.weight", weights.matrix(n_vocab, shape.n_embd))
    for layer in range(shape.n_layer):
        for tensor_name, data in _layer_tensors(shape, layer, weights):
            add(f"blk.{layer}.{tensor_name}", data)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def _add_hyperparameters(writer: gguf.GGUFWriter, shape: ModelShape) -> None:
    writer.add_context_length(shape.context_length)
    writer.add_embedding_length(shape.n_embd)
    writer.add_block_count(shape.n_layer)
    writer.add_feed_forward_length(shape.n_ff)
    writer.add_head_count(shape.n_head)
    writer.add_head_count_kv(shape.n_head_kv)
    writer.add_key_length(shape.head_dim)
    writer.add_value_length(shape.head_dim)
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_rope_freq_base(10_000_000.0)
    rope = shape.rope_dims or shape.head_dim
    writer.add_rope_dimension_count(rope)
    if shape.arch == "qwen35":
        third = rope // 2 // 3
        writer.add_rope_dimension_sections([third, third, rope // 2 - 2 * third, 0])
        writer.add_ssm_conv_kernel(shape.ssm_conv_kernel)
        writer.add_ssm_inner_size(shape.ssm_state * shape.ssm_dt_rank)
        writer.add_ssm_state_size(shape.ssm_state)
        writer.add_ssm_time_step_rank(shape.ssm_dt_rank)
        writer.add_ssm_group_count(shape.ssm_groups)
        writer.add_full_attention_interval(shape.full_attention_interval)


def _add_tokenizer(
    writer: gguf.GGUFWriter,
    tokens: list[str],
    token_types: list[int],
    merges: list[tuple[str, str]],
    template: str,
) -> None:
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("qwen35" if writer.arch == "qwen35" else "qwen2")
    writer.add_token_list(tokens)
    writer.add_token_types(token_types)
    # llama.cpp refuses a gpt2 tokenizer without a merges key; one harmless merge will do.
    writer.add_token_merges([f"{left} {right}" for left, right in merges] or ["Ġ t"])
    writer.add_eos_token_id(tokens.index("<|im_end|>"))
    writer.add_pad_token_id(tokens.index("<|endoftext|>"))
    writer.add_add_bos_token(False)
    writer.add_chat_template(template)


def _layer_tensors(shape: ModelShape, layer: int, w: _Weights) -> Iterable[tuple[str, np.ndarray]]:
    e, hd = shape.n_embd, shape.head_dim
    q_width, kv_width = hd * shape.n_head, hd * shape.n_head_kv
    yield "attn_norm.weight", w.ones(e)
    if shape.arch == "qwen35":
        yield "post_attention_norm.weight", w.ones(e)
        if (layer + 1) % shape.full_attention_interval != 0:
            yield from _delta_net_tensors(shape, w)
        else:
            yield "attn_q.weight", w.matrix(2 * q_width, e)  # query and its gate
            yield "attn_k.weight", w.matrix(kv_width, e)
            yield "attn_v.weight", w.matrix(kv_width, e)
            yield "attn_output.weight", w.matrix(e, q_width)
            yield "attn_q_norm.weight", w.ones(hd)
            yield "attn_k_norm.weight", w.ones(hd)
    else:
        yield "ffn_norm.weight", w.ones(e)
        yield "attn_q.weight", w.matrix(q_width, e)
        yield "attn_k.weight", w.matrix(kv_width, e)
        yield "attn_v.weight", w.matrix(kv_width, e)
        yield "attn_output.weight", w.matrix(e, q_width)
        yield "attn_q_norm.weight", w.ones(hd)
        yield "attn_k_norm.weight", w.ones(hd)
    yield "ffn_gate.weight", w.matrix(shape.n_ff, e)
    yield "ffn_up.weight", w.matrix(shape.n_ff, e)
    yield "ffn_down.weight", w.matrix(e, shape.n_ff)


def _delta_net_tensors(shape: ModelShape, w: _Weights) -> Iterable[tuple[str, np.ndarray]]:
    e = shape.n_embd
    key_dim = shape.ssm_state * shape.ssm_groups
    value_dim = shape.ssm_state * shape.ssm_dt_rank
    conv_dim = 2 * key_dim + value_dim
    yield "attn_qkv.weight", w.matrix(conv_dim, e)
    yield "attn_gate.weight", w.matrix(value_dim, e)
    yield "ssm_conv1d.weight", w.matrix(conv_dim, shape.ssm_conv_kernel)
    yield "ssm_dt.bias", w.vector(shape.ssm_dt_rank, -1.0, 1.0)
    yield "ssm_a", w.vector(shape.ssm_dt_rank, -1.0, -0.1)  # decay: must be negative
    yield "ssm_beta.weight", w.matrix(shape.ssm_dt_rank, e)
    yield "ssm_alpha.weight", w.matrix(shape.ssm_dt_rank, e)
    yield "ssm_norm.weight", w.ones(shape.ssm_state)
    yield "ssm_out.weight", w.matrix(e, value_dim)
