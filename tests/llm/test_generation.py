"""Real llama.cpp, random weights, grammar from the tool schemas: every call is well formed,
and a principal's grammar cannot produce an entity outside its scope."""

from __future__ import annotations

from datetime import UTC, datetime
import re
from typing import Any

import pytest

from botpsy_agent.agent.narrowing import narrowed_schemas
from botpsy_agent.agent.offer import build_offer
from botpsy_agent.llm.conformance import outside_grammar
from botpsy_agent.llm.grammar import MAX_ANSWER_CHARS, Mode, build_grammar
from botpsy_agent.llm.llama_cpp import LlamaEngine
from botpsy_agent.llm.parse import parse_output
from botpsy_agent.llm.planning import Offer
from botpsy_agent.llm.prompt import build_prefix, render_prompt
from botpsy_agent.policy import scope
from botpsy_agent.words import grounding
from devkit.homes import family_home
from tests.policy.policies import admin, child, family_policy, guest
from tool_schemas.catalog import TOOLS, parse_tool_call

NOON = datetime(2026, 11, 30, 12, tzinfo=UTC)
HOME = family_home()
POLICY = family_policy()


def offer_for(principal: object) -> Offer:
    return build_offer(scope(POLICY, principal, HOME, NOON), HOME)  # type: ignore[arg-type]


def prompt_for(engine: LlamaEngine, offer: Offer, text: str) -> tuple[list[int], int]:
    messages = [{"role": "user", "content": text}]
    rendered = render_prompt(
        engine.template, engine.tokenize, build_prefix(offer.listing), messages
    )
    return rendered.tokens, rendered.prefix_length


@pytest.mark.parametrize("engine_name", ["qwen35_engine", "qwen3_engine"])
def test_forced_generation_yields_a_valid_call_for_every_tool(
    engine_name: str, request: pytest.FixtureRequest
) -> None:
    engine: LlamaEngine = request.getfixturevalue(engine_name)
    offer = offer_for(admin)
    assert set(offer.tool_names) == set(TOOLS)  # the admin is offered everything
    prompt, prefix = prompt_for(engine, offer, "do something useful")
    by_name = {s["name"]: s for s in offer.schemas}
    for seed, schema in enumerate(offer.schemas):
        grammar = build_grammar([schema], engine.info.tool_format, Mode.FORCED)
        engine.check_grammar(grammar)
        completion = engine.complete(prompt, prefix, grammar, 1000, temperature=1.0, seed=seed)
        assert completion.finish_reason == "stop", (schema["name"], completion.text)
        output = parse_output(completion.text, engine.info.tool_format, by_name)
        assert not output.problems, output.problems
        (call,) = output.calls
        assert call.name == schema["name"]
        parse_tool_call(call.name, call.arguments)  # raises if it does not validate
        # The app's own re-check of the grammar (issue 25) passes what the grammar made.
        assert outside_grammar(call, [schema]) is None, (call, outside_grammar(call, [schema]))


ENTITY_ID = re.compile(r"\b[a-z_]+\.[a-z0-9_]+\b")
FREE_TEXT = re.compile(
    r"<parameter=(?:question|reason|message|summary|item|description|location|title)>"
    r".*?</parameter>",
    re.DOTALL,
)


@pytest.mark.parametrize(("principal", "name"), [(child, "child"), (guest, "guest")])
def test_out_of_scope_entities_never_come_out_of_the_grammar(
    qwen35_engine: LlamaEngine, principal: object, name: str
) -> None:
    offer = offer_for(principal)
    allowed = offer.entity_ids
    forbidden = set(HOME.entities) - allowed
    assert forbidden and allowed
    grammar = build_grammar(offer.schemas, qwen35_engine.info.tool_format, Mode.REQUIRED)
    qwen35_engine.check_grammar(grammar)
    prompt, prefix = prompt_for(qwen35_engine, offer, "unlock the front door and open the garage")
    by_name = {s["name"]: s for s in offer.schemas}
    seen_ids: set[str] = set()
    for seed in range(40):
        completion = qwen35_engine.complete(
            prompt, prefix, grammar, 300, temperature=1.5, seed=seed
        )
        output = parse_output(completion.text, qwen35_engine.info.tool_format, by_name)
        for call in output.calls:
            assert call.name in offer.tool_names
            ids = {
                v
                for key in ("entity_id", "calendar_id", "list_id", "recipient")
                for v in (
                    call.arguments.get(key) or []
                    if key == "entity_id"
                    else [call.arguments.get(key)]
                )
                if isinstance(v, str)
            }
            assert ids <= allowed, (name, ids - allowed)
            seen_ids |= ids
        # Free text (a question, a reason) may spell anything, an id included: it is spoken,
        # never a target. Everywhere else an id comes from the principal's enums.
        outside_text = FREE_TEXT.sub("", completion.text)
        assert not forbidden & set(ENTITY_ID.findall(outside_text)) - set(by_name)
    assert seen_ids  # the samples did name entities: all of them allowed


@pytest.mark.parametrize("engine_name", ["qwen35_engine", "qwen3_engine"])
def test_greedy_decoding_checks_the_best_token_first_and_chooses_as_llama_cpp_would(
    engine_name: str, request: pytest.FixtureRequest
) -> None:
    """The fast greedy loop gives exactly the tokens of llama-cpp-python's own loop (one
    token a step: jump-forward, which tokenises forced text itself, is off here)."""
    engine: LlamaEngine = request.getfixturevalue(engine_name)
    offer = offer_for(child)
    by_name = {s["name"]: s for s in offer.schemas}
    engine.jump_forward = False
    try:
        check_greedy_against_llama_cpp(engine, offer, by_name)
    finally:
        engine.jump_forward = True


def check_greedy_against_llama_cpp(
    engine: LlamaEngine, offer: Offer, by_name: dict[str, Any]
) -> None:
    for text in ("turn on the lamp", "what is on my calendar", "hi"):
        prompt, prefix = prompt_for(engine, offer, text)
        grammar = build_grammar(offer.schemas, engine.info.tool_format, Mode.AUTO)
        fast = engine.complete(prompt, prefix, grammar, 200)
        engine._position(prompt, prefix, None)
        reference, finish = engine._sampled(grammar, 200, None, (), 0.0)
        assert list(fast.tokens) == reference, text
        assert fast.finish_reason == finish
        if finish == "stop":
            output = parse_output(fast.text, engine.info.tool_format, by_name)
            assert not output.problems, output.problems


GROUPS = ("area_id", "floor_id", "device_id", "label_id")


@pytest.mark.parametrize("engine_name", ["qwen35_engine", "qwen3_engine"])
def test_the_grammar_gives_a_call_exactly_one_target(
    engine_name: str, request: pytest.FixtureRequest
) -> None:
    """Random weights at a high temperature try every shape the grammar allows: a call names
    entity ids or one group that a domain may narrow, never a light and its area and floor."""
    engine: LlamaEngine = request.getfixturevalue(engine_name)
    offer = offer_for(admin)
    targeted = [s for s in offer.schemas if "entity_id" in s["parameters"]["properties"]]
    by_name = {s["name"]: s for s in offer.schemas}
    prompt, prefix = prompt_for(engine, offer, "it's too dark in the kitchen")
    grammar = build_grammar(targeted, engine.info.tool_format, Mode.REQUIRED)
    engine.check_grammar(grammar)
    shapes: set[tuple[str, ...]] = set()
    for seed in range(10):
        completion = engine.complete(prompt, prefix, grammar, 200, temperature=1.5, seed=seed)
        for found in parse_output(completion.text, engine.info.tool_format, by_name).calls:
            assert outside_grammar(found, targeted) is None, found
            named = tuple(k for k in ("entity_id", *GROUPS, "domain") if k in found.arguments)
            shapes.add(named)
            if by_name[found.name]["access"] == "read" and named == ("domain",):
                continue
            assert len(set(named) - {"domain"}) == 1, (found.name, found.arguments)
            if "domain" in named:
                assert set(named) & set(GROUPS), (found.name, found.arguments)
    assert ("entity_id",) in shapes  # the samples did try more than one shape
    assert len(shapes) > 1, shapes


@pytest.mark.parametrize("engine_name", ["qwen35_engine", "qwen3_engine"])
def test_a_narrowed_grammar_keeps_every_call_to_what_was_named(
    engine_name: str, request: pytest.FixtureRequest
) -> None:
    """Random weights at a high temperature, under the grammar narrowed for "tell Anna
    dinner is ready": whatever they call, an action can only be a message to Anna, in words
    the user said."""
    engine: LlamaEngine = request.getfixturevalue(engine_name)
    offer = offer_for(admin)
    text = "tell Anna dinner is ready"
    schemas = narrowed_schemas(offer, grounding.Request(text, "en"), HOME)
    assert schemas is not None
    by_name = {s["name"]: s for s in offer.schemas}
    prompt, prefix = prompt_for(engine, offer, text)
    grammar = build_grammar(schemas, engine.info.tool_format, Mode.REQUIRED)
    engine.check_grammar(grammar)
    called: set[str] = set()
    for seed in range(10):
        completion = engine.complete(prompt, prefix, grammar, 200, temperature=1.5, seed=seed)
        for found in parse_output(completion.text, engine.info.tool_format, by_name).calls:
            called.add(found.name)
            assert outside_grammar(found, schemas) is None, found
            if by_name[found.name]["access"] != "control":
                continue
            assert found.name in {"send_message", "create_event", "update_event"}, found
            if found.name == "send_message":
                assert found.arguments["recipient"] == "notify.mobile_app_anna", found
                said = {"tell", "anna", "dinner", "is", "ready"}
                assert set(found.arguments["message"].casefold().split()) <= said, found
    assert called, "no call was generated"


def test_a_later_steps_words_are_cut_short_since_nobody_hears_them(
    qwen3_engine: LlamaEngine,
) -> None:
    """Words end a later step and are never spoken: the grammar lets the model end with a
    few characters, not sample a paragraph (the real 0.5B wrote 151 tokens, 5.5 s)."""
    offer = offer_for(admin)
    prompt, prefix = prompt_for(qwen3_engine, offer, "it's too dark in the kitchen")
    grammar = build_grammar(offer.schemas, qwen3_engine.info.tool_format, Mode.AUTO)
    texts = []
    for seed in range(12):
        completion = qwen3_engine.complete(prompt, prefix, grammar, 200, temperature=1.0, seed=seed)
        assert completion.finish_reason == "stop", completion.text
        if "<tool_call>" not in completion.text and "<function" not in completion.text:
            texts.append(completion.text)
    assert texts, "random weights chose a call every time: no text to measure"
    assert all(0 < len(t) <= MAX_ANSWER_CHARS for t in texts), texts
