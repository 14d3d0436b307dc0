"""The engine on real llama.cpp: prefix snapshots, token accounting, refusing unusable files."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from botpsy_agent.llm.engine import EngineError
from botpsy_agent.llm.llama_cpp import EngineSettings, LlamaEngine
from botpsy_agent.llm.model_info import ModelFileError, ToolFormat, read_model_info
from botpsy_agent.llm.prompt import build_prefix, render_prompt
from devkit.tiny_gguf import TINY_QWEN35, write_model

STDERR = Path("/proc/self/fd/2")
LISTING = "entities by area:\n- kitchen: light.kitchen"


def split_prompt(engine: LlamaEngine, *turns: str) -> tuple[list[int], int]:
    """A prompt and the length of its whole fixed prefix (shared part and listing)."""
    messages = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": text}
        for i, text in enumerate(turns)
    ]
    rendered = render_prompt(engine.template, engine.tokenize, build_prefix(LISTING), messages)
    return rendered.tokens, rendered.prefix_length


def test_snapshot_restore_gives_the_same_logits_as_a_fresh_evaluation(
    qwen35_engine: LlamaEngine,
) -> None:
    engine = qwen35_engine
    prompt, prefix = split_prompt(engine, "turn on the kitchen light")
    engine.prefixes = type(engine.prefixes)(engine.prefixes.budget)  # start without snapshots

    first = engine.next_token_logits(prompt, prefix)  # builds the snapshot on the way
    assert len(engine.prefixes) == 1
    other, _ = split_prompt(engine, "something else entirely")
    engine.next_token_logits(other, prefix)  # leave the model somewhere else
    restored = engine.next_token_logits(prompt, prefix)  # from the snapshot
    fresh = engine.evaluate_fresh(prompt[:prefix], prompt[prefix:])  # same split, no snapshot

    assert np.array_equal(restored, fresh)
    assert np.array_equal(first, fresh)
    # One batch: same maths, other summation order (drift grows with the ~2,800-token prompt).
    one_shot = engine.evaluate_fresh(prompt)
    assert np.allclose(restored, one_shot, atol=5e-3)
    assert int(np.argmax(restored)) == int(np.argmax(one_shot))


def test_a_request_after_the_snapshot_evaluates_only_its_own_tokens(
    qwen35_engine: LlamaEngine,
) -> None:
    engine = qwen35_engine
    warm_prompt, prefix = split_prompt(engine, "hello")
    engine.warm(warm_prompt[:prefix])
    engine.next_token_logits(warm_prompt, prefix)

    prompt, prefix_again = split_prompt(engine, "turn off every light upstairs please")
    assert prefix_again == prefix
    before = engine.evaluated_total
    completion = engine.complete(prompt, prefix, None, 4)
    assert completion.prefix_source == "snapshot"
    assert completion.evaluated_tokens == len(prompt) - prefix
    assert engine.evaluated_total - before == len(prompt) - prefix + len(completion.tokens)
    assert len(prompt) - prefix < prefix / 4  # the request is small next to the prefix


def test_a_next_step_extends_the_evaluated_conversation(qwen35_engine: LlamaEngine) -> None:
    engine = qwen35_engine
    first, prefix = split_prompt(engine, "turn on the kitchen light")
    engine.next_token_logits(first, prefix)
    step = "<|im_end|>\n<|im_start|>user\n<tool_response>\nok\n</tool_response><|im_end|>\n"
    follow_up = first + engine.tokenize(step + "<|im_start|>assistant\n")
    completion = engine.complete(follow_up, prefix, None, 2)
    assert completion.prefix_source == "extended"
    assert completion.evaluated_tokens == len(follow_up) - len(first)


def _diverging_follow_up(engine: LlamaEngine) -> tuple[list[int], list[int], int, int]:
    """A first step, evaluated with a 'generated' call, and the next step's prompt, whose call
    is rendered differently from the generated one a few tokens in."""
    first, prefix = split_prompt(engine, "turn on the kitchen light")
    generated = engine.tokenize('<tool_call>\n{"name": "turn_on", "arguments": {"x": 1}}')
    engine.next_token_logits(first + generated, prefix)
    rendered = engine.tokenize('<tool_call>\n{"name": "turn_on", "arguments": {"y": 2}}')
    step = "<|im_end|>\n<|im_start|>user\n<tool_response>\nok\n</tool_response><|im_end|>\n"
    follow_up = first + rendered + engine.tokenize(step + "<|im_start|>assistant\n")
    shared = len(first) + next(
        i for i, (a, b) in enumerate(zip(generated, rendered, strict=False)) if a != b
    )
    return first, follow_up, prefix, shared


def test_a_next_step_cuts_the_state_back_to_where_its_prompt_parts(
    qwen3_engine: LlamaEngine,
) -> None:
    engine = qwen3_engine
    first, follow_up, prefix, shared = _diverging_follow_up(engine)
    assert len(first) < shared < len(follow_up)  # the calls share their opening tokens
    completion = engine.complete(follow_up, prefix, None, 1)
    assert completion.prefix_source == "trimmed"
    assert completion.evaluated_tokens == len(follow_up) - shared

    _, follow_up, prefix, shared = _diverging_follow_up(engine)
    cut = engine.next_token_logits(follow_up, prefix)
    fresh = engine.evaluate_fresh(follow_up[:prefix], follow_up[prefix:])
    # Other batches than the fresh evaluation's: same maths, other summation order.
    assert np.allclose(cut, fresh, atol=5e-3)
    assert int(np.argmax(cut)) == int(np.argmax(fresh))


def test_a_new_request_cut_back_to_the_prefix_reads_as_from_the_snapshot(
    qwen3_engine: LlamaEngine,
) -> None:
    engine = qwen3_engine
    last, prefix = split_prompt(engine, "turn on the kitchen light and then the hall")
    prompt, _ = split_prompt(engine, "what is the weather like")
    engine.warm(prompt[:prefix])
    engine.evaluate_fresh(prompt[:1])  # stand elsewhere: the next one restores the snapshot
    restored = engine.next_token_logits(prompt, prefix)

    engine.next_token_logits(last, prefix)  # the last request's state
    completion = engine.complete(prompt, prefix, None, 1)
    assert completion.prefix_source == "trimmed"
    assert completion.evaluated_tokens == len(prompt) - prefix
    engine.next_token_logits(last, prefix)
    # The same tokens in the same cells, evaluated in the same batch: the very same logits.
    assert np.array_equal(engine.next_token_logits(prompt, prefix), restored)


def test_a_recurrent_state_is_not_cut_but_restored(qwen35_engine: LlamaEngine) -> None:
    engine = qwen35_engine
    _, follow_up, prefix, _ = _diverging_follow_up(engine)
    completion = engine.complete(follow_up, prefix, None, 1)
    assert completion.prefix_source == "snapshot"  # llama.cpp cannot cut Qwen3.5's state
    assert completion.evaluated_tokens == len(follow_up) - prefix

    _, follow_up, prefix, _ = _diverging_follow_up(engine)
    restored = engine.next_token_logits(follow_up, prefix)
    assert np.array_equal(restored, engine.evaluate_fresh(follow_up[:prefix], follow_up[prefix:]))


def test_the_prefix_must_leave_room_for_the_request(qwen35_engine: LlamaEngine) -> None:
    prompt, prefix = split_prompt(qwen35_engine, "hi")
    with pytest.raises(EngineError, match="prefix"):
        qwen35_engine.complete(prompt, len(prompt), None, 1)
    with pytest.raises(EngineError, match="exceeds the context"):
        qwen35_engine.complete(prompt, prefix, None, qwen35_engine.context_length)


def test_snapshot_memory_is_bounded(qwen35_engine: LlamaEngine) -> None:
    engine = qwen35_engine
    saved = engine.prefixes
    try:
        prompt, prefix = split_prompt(engine, "hi")
        engine.prefixes = type(saved)(budget_bytes=1)  # room for one snapshot at most
        engine.warm(prompt[:prefix])
        engine.warm(engine.tokenize("<|im_start|>system\nanother prefix<|im_end|>\n"))
        assert len(engine.prefixes) == 1
    finally:
        engine.prefixes = saved


def test_model_info_reads_the_file(tiny_qwen35_gguf: Path, tiny_qwen3_gguf: Path) -> None:
    info = read_model_info(tiny_qwen35_gguf)
    assert (info.architecture, info.tool_format) == ("qwen35", ToolFormat.QWEN_XML)
    assert info.context_length == TINY_QWEN35.context_length
    assert info.supports_thinking
    assert read_model_info(tiny_qwen3_gguf).tool_format is ToolFormat.HERMES_JSON


def test_files_that_cannot_serve_are_refused_clearly(tmp_path: Path) -> None:
    not_gguf = tmp_path / "model.gguf"
    not_gguf.write_bytes(b"<html>404</html>")
    with pytest.raises(ModelFileError, match="not a GGUF file"):
        read_model_info(not_gguf)
    with pytest.raises(ModelFileError, match="does not exist"):
        read_model_info(tmp_path / "absent.gguf")

    no_template = write_model(tmp_path / "base.gguf", TINY_QWEN35)
    _strip_template(no_template, "")
    with pytest.raises(ModelFileError, match="no chat template: it is not a chat model"):
        read_model_info(no_template)

    no_tools = write_model(tmp_path / "chat-only.gguf", TINY_QWEN35)
    _strip_template(no_tools, "{% for m in messages %}{{ m.content }}{% endfor %}")
    with pytest.raises(ModelFileError, match="no tool calls in a known format"):
        read_model_info(no_tools)


def _strip_template(path: Path, template: str) -> None:
    """Rewrite a model with another chat template (empty: none at all)."""
    import gguf

    reader = gguf.GGUFReader(str(path))
    arch = str(bytes(reader.fields["general.architecture"].parts[-1]), "utf-8")
    out = path.with_suffix(".tmp")
    writer = gguf.GGUFWriter(str(out), arch)
    for field in reader.fields.values():
        if field.name.startswith("GGUF.") or field.name in {
            "general.architecture",
            "tokenizer.chat_template",
        }:
            continue
        value = field.contents()
        kind = field.types[0]
        sub = field.types[-1] if kind == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(field.name, value, kind, sub_type=sub)
    if template:
        writer.add_chat_template(template)
    for tensor in reader.tensors:
        writer.add_tensor(tensor.name, tensor.data, raw_dtype=tensor.tensor_type)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    out.replace(path)


def test_loading_a_model_leaves_the_process_output_where_it_is(tiny_qwen35_gguf: Path) -> None:
    """Other threads' log lines are not lost while a model loads: llama-cpp-python's quiet
    mode would point file descriptors 1 and 2 at /dev/null for the whole process."""
    where = []

    class WhereStderrPoints(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            where.append(str(STDERR.readlink()))

    spy, logger = WhereStderrPoints(), logging.getLogger("llama_cpp")
    level = logger.level
    logger.addHandler(spy)
    logger.setLevel(logging.DEBUG)
    before = str(STDERR.readlink())
    try:
        LlamaEngine(EngineSettings(tiny_qwen35_gguf, context_length=512)).close()
    finally:
        logger.removeHandler(spy)
        logger.setLevel(level)
    assert len(where) > 10  # llama.cpp logs while it loads, from inside the loading call
    assert set(where) == {before}
