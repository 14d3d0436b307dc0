"""The prompt budget, counted with the real Qwen2.5-Coder tokenizer (vocabulary only).

The demo home's fixed prefix (system prompt, tools, the admin's listing) is at most 2,000
tokens, and every further entity adds at most 12. The real GGUF is the test bed's
(`python -m devkit.real_models fetch`); without it the test says so and skips.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from botpsy_agent.agent.offer import build_offer
from botpsy_agent.home.model import Home
from botpsy_agent.llm.context import MIN_CONTEXT, request_room
from botpsy_agent.llm.prompt import build_prefix, prefix_tokens
from botpsy_agent.llm.template import ChatTemplate
from botpsy_agent.policy import Principal, parse_policy, scope
from devkit.homes import family_home, generated_home
from devkit.real_models import DEFAULT_MODEL, fetch

PREFIX_BUDGET = 2000
PER_ENTITY_BUDGET = 12
ADMIN_POLICY = (
    "version: 1\ngroups: {admin: {ignore_exposure: true, rules: [{allow: [read, control]}]}}\n"
)
NOW = datetime(2026, 11, 30, 18, 30, tzinfo=UTC)


class QwenTokens:
    def __init__(self) -> None:
        from llama_cpp import Llama

        path = fetch(DEFAULT_MODEL)  # the test bed's real tokenizer (downloaded once, cached)
        self._llm = Llama(model_path=str(path), vocab_only=True, verbose=False)
        self.template = ChatTemplate(str(self._llm.metadata["tokenizer.chat_template"]))

    def tokenize(self, text: str) -> list[int]:
        return list(self._llm.tokenize(text.encode(), add_bos=False, special=True))

    def prefix(self, home: Home) -> tuple[int, int]:
        """(shared part, whole prefix) in tokens, for the home's admin."""
        policy = parse_policy(ADMIN_POLICY, "budget")
        admin = Principal.user("a" * 32, is_admin=True)
        offer = build_offer(scope(policy, admin, home, NOW), home)
        rendered = prefix_tokens(self.template, self.tokenize, build_prefix(offer.listing))
        return rendered.cuts[0], rendered.prefix_length


@pytest.fixture(scope="module")
def qwen() -> Iterator[QwenTokens]:
    tokens = QwenTokens()
    yield tokens
    tokens._llm.close()


def test_the_demo_home_prefix_fits_the_budget(qwen: QwenTokens) -> None:
    shared, whole = qwen.prefix(family_home())
    assert whole <= PREFIX_BUDGET, f"{whole} tokens (shared part {shared})"
    assert whole - shared < shared / 3  # the listing is the small part


def test_each_added_entity_costs_at_most_twelve_tokens(qwen: QwenTokens) -> None:
    small, large = generated_home(40), generated_home(250)
    (_, small_prefix), (_, large_prefix) = qwen.prefix(small), qwen.prefix(large)
    per_entity = (large_prefix - small_prefix) / (len(large.entities) - len(small.entities))
    assert 0 < per_entity <= PER_ENTITY_BUDGET


def test_a_250_entity_home_fits_the_smallest_automatic_context(qwen: QwenTokens) -> None:
    _, whole = qwen.prefix(generated_home(250))
    assert whole + request_room() <= MIN_CONTEXT  # a request, a few steps, the answer
