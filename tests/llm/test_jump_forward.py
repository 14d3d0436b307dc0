"""Jump-forward decoding on real llama.cpp (random weights): the text the grammar forces is
read from the grammar itself and fed in batches, and the calls stay what the grammar allows."""

from __future__ import annotations

import pytest

from botpsy_agent.llm.forced import ForcedTextProbe
from botpsy_agent.llm.grammar import Mode, build_grammar
from botpsy_agent.llm.llama_cpp import LlamaEngine
from botpsy_agent.llm.model_info import ToolFormat
from botpsy_agent.llm.parse import parse_output
from tests.llm.test_generation import offer_for, prompt_for
from tests.policy.policies import admin, child

OPENING = {
    ToolFormat.QWEN_XML: b"<tool_call>\n<function=",
    ToolFormat.HERMES_JSON: b'<tool_call>\n{"name": "',
}


def probe_of(engine: LlamaEngine) -> ForcedTextProbe:
    return ForcedTextProbe(engine._vocab, engine._llm.n_vocab(), engine._llm.token_eos())


def grammar_sampler(engine: LlamaEngine, text: str) -> object:
    import llama_cpp

    return llama_cpp.llama_sampler_init_grammar(engine._vocab, text.encode(), b"root")


@pytest.mark.parametrize("engine_name", ["qwen35_engine", "qwen3_engine"])
def test_the_forced_text_is_read_from_the_grammar(
    engine_name: str, request: pytest.FixtureRequest
) -> None:
    import llama_cpp

    engine: LlamaEngine = request.getfixturevalue(engine_name)
    probe = probe_of(engine)
    assert probe.complete  # every byte has a token of its own
    offer = offer_for(child)
    required = build_grammar(offer.schemas, engine.info.tool_format, Mode.REQUIRED)
    sampler = grammar_sampler(engine, required.text)
    try:
        at_start = probe.forced(sampler)
        assert (at_start.text, at_start.ends) == (OPENING[engine.info.tool_format], False)
        assert probe.forced(sampler) == at_start  # reading it leaves the sampler as it was
    finally:
        llama_cpp.llama_sampler_free(sampler)
    auto = build_grammar(offer.schemas, engine.info.tool_format, Mode.AUTO)
    sampler = grammar_sampler(engine, auto.text)
    try:  # a call or plain text: nothing is forced
        assert probe.forced(sampler).text == b""
    finally:
        llama_cpp.llama_sampler_free(sampler)


@pytest.mark.parametrize("engine_name", ["qwen35_engine", "qwen3_engine"])
def test_forced_text_is_fed_in_batches_and_every_call_stays_valid(
    engine_name: str, request: pytest.FixtureRequest
) -> None:
    engine: LlamaEngine = request.getfixturevalue(engine_name)
    offer = offer_for(admin)
    by_name = {s["name"]: s for s in offer.schemas}
    prompt, prefix = prompt_for(engine, offer, "do something useful")
    same = 0
    for schema in offer.schemas[::10]:  # a spread of tools (random weights write long text)
        grammar = build_grammar([schema], engine.info.tool_format, Mode.FORCED)
        jumped = engine.complete(prompt, prefix, grammar, 200)
        engine.jump_forward = False
        try:
            stepwise = engine.complete(prompt, prefix, grammar, 200)
        finally:
            engine.jump_forward = True
        assert jumped.finish_reason == "stop", (schema["name"], jumped.text)
        output = parse_output(jumped.text, engine.info.tool_format, by_name)
        assert not output.problems, output.problems
        assert [c.name for c in output.calls] == [schema["name"]]
        # The tool's name and the call's scaffolding are forced: far fewer model steps.
        assert jumped.forced_tokens >= len(engine.tokenize(schema["name"])) - 1
        assert jumped.decode_steps < len(jumped.tokens) - jumped.forced_tokens + 1
        assert stepwise.forced_tokens == 0
        assert stepwise.decode_steps == len(stepwise.tokens)
        same += jumped.text == stepwise.text
    print(f"{engine_name}: {same} of {len(offer.schemas[::10])} calls as step by step")


def grammar_allows(engine: LlamaEngine, grammar_text: str, text: str) -> bool:
    """Whether llama.cpp's grammar sampler lets `text` through, token by token."""
    import ctypes

    import llama_cpp

    sampler = grammar_sampler(engine, grammar_text)
    one = (llama_cpp.llama_token_data * 1)()
    try:
        for token in engine.tokenize(text):
            one[0].id, one[0].logit, one[0].p = token, 0.0, 0.0
            candidates = llama_cpp.llama_token_data_array(one, 1, -1, False)
            llama_cpp.llama_sampler_apply(sampler, ctypes.byref(candidates))
            if one[0].logit == float("-inf"):
                return False
            llama_cpp.llama_sampler_accept(sampler, token)
    finally:
        llama_cpp.llama_sampler_free(sampler)
    return True


def test_an_answer_cannot_hold_a_call_written_as_text(qwen35_engine: LlamaEngine) -> None:
    """The 0.5B's held-out run at 9a03a00 wrote later steps' calls as tagless JSON in the
    answer branch; the parser read them as calls outside the tools' rules, and each turn was
    thrown away as a "security event". An answer now has no "{" (nor "<")."""
    engine = qwen35_engine
    offer = offer_for(child)
    auto = build_grammar(offer.schemas, engine.info.tool_format, Mode.AUTO)
    assert grammar_allows(engine, auto.text, "It is on now.")  # within MAX_ANSWER_CHARS
    bare = '{"name": "turn_on", "arguments": {"entity_id": ["light.kitchen"]}}'
    assert parse_output(bare, engine.info.tool_format).calls  # the parser would take it
    assert not grammar_allows(engine, auto.text, bare)
    assert not grammar_allows(engine, auto.text, "Sure: " + bare)
    assert not grammar_allows(engine, auto.text, "```json\n" + bare)
