"""The conversation store forgets what has been idle too long, and only that."""

from __future__ import annotations

from botpsy_agent.agent.conversation import ConversationStore
from botpsy_agent.policy import Principal

ALEX = Principal.user("alex", is_admin=True)


def test_idle_conversations_are_forgotten_and_used_ones_kept() -> None:
    now = [0.0]
    store = ConversationStore(idle_ttl_s=60, clock=lambda: now[0])
    store.open("a", ALEX, "en")
    now[0] = 10
    store.open("b", ALEX, "en").history.append({"role": "user", "content": "hello"})
    now[0] = 50
    store.open("a", ALEX, "en")  # used again: it stays, though it began first
    now[0] = 100  # b idle for 90 s, a for 50 s
    store.open("c", ALEX, "en")
    assert store.pending_for("b") is None and len(store) == 2
    fresh_b = store.open("b", ALEX, "en")
    assert fresh_b.history == []  # b was forgotten: a new conversation under its id
    now[0] = 1000
    store.open("d", ALEX, "en")
    assert len(store) == 1  # a, b and c all idle


def test_the_store_is_bounded() -> None:
    store = ConversationStore(max_conversations=3)
    for n in range(5):
        store.open(f"c{n}", ALEX, "en")
    assert len(store) == 3
    assert store.open("c0", ALEX, "en").history == []
