"""Conversation state per `conversation_id`: history for the model, a pending confirmation,
and what was last talked about ("it", "there"). Bounded in size and time.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
import time
from typing import Any
import uuid

from botpsy_agent.home import ResolvedCall
from botpsy_agent.policy import Principal

MAX_CONVERSATIONS = 500
IDLE_TTL_S = 15 * 60
MAX_HISTORY_CHARS = 3000
HISTORY_TURNS = 1
CONFIRM_TTL_S = 60.0


@dataclass
class PendingConfirmation:
    """A call that waits for its principal's "yes"; only exactly this call may then run."""

    resolved: ResolvedCall
    question: str
    rule: str
    principal_key: str
    request_id: str
    expires_at: float
    answer_admitted: bool = False
    """An answer to it was let past the front door's limits (once per question)."""


@dataclass
class Conversation:
    id: str
    principal_key: str
    language: str
    history: list[dict[str, Any]] = field(default_factory=list)
    """Messages for the model: user turns, the assistant's calls, tool results."""
    pending: PendingConfirmation | None = None
    last_targets: tuple[str, ...] = ()
    """Entity ids acted on last: what "it" and "them" refer to."""
    last_tools: tuple[str, ...] = ()
    """Tools used last: what "too" and "again" repeat."""
    last_settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The arguments each of those tools was last run with: what "the same" repeats."""
    last_listed: frozenset[str] = frozenset()
    """The uids of the events last listed: what "cancel it" points at."""
    updated_at: float = field(default_factory=time.monotonic)

    def remember(self, messages: list[dict[str, Any]]) -> None:
        """Keep the last `HISTORY_TURNS` turns' messages within the size budget. The model
        reads all of them at every request: in one Assist dialog, eight requests made the
        0.5B evaluate 1,250 tokens of earlier, unrelated turns (8 s on 2 cores). What a
        follow-up points back at ("it", "the same", "and the hall too") is the last turn,
        and this conversation's referents keep it besides."""
        self.history.extend(messages)
        starts = [n for n, m in enumerate(self.history) if m.get("role") == "user"]
        if len(starts) > HISTORY_TURNS:
            del self.history[: starts[-HISTORY_TURNS]]
        while _size(self.history) > MAX_HISTORY_CHARS and len(self.history) > 1:
            # Drop whole turns: everything up to the next user message.
            del self.history[0]
            while self.history and self.history[0].get("role") != "user":
                del self.history[0]


def _size(messages: list[dict[str, Any]]) -> int:
    return sum(len(str(m.get("content", ""))) + len(str(m.get("tool_calls", ""))) for m in messages)


class ConversationStore:
    """Conversations by id, least recently used first out, idle ones forgotten."""

    def __init__(
        self,
        *,
        max_conversations: int = MAX_CONVERSATIONS,
        idle_ttl_s: float = IDLE_TTL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._items: OrderedDict[str, Conversation] = OrderedDict()
        self._max = max_conversations
        self._ttl = idle_ttl_s
        self._clock = clock

    def open(
        self, conversation_id: str | None, principal: Principal, language: str
    ) -> Conversation:
        """The conversation to continue, or a new one.

        A conversation belongs to the principal who started it: another principal using the
        same id gets a fresh conversation and sees nothing of the first one's history."""
        self._forget_idle()
        existing = self._items.get(conversation_id) if conversation_id else None
        if existing is not None and existing.principal_key == principal.key:
            existing.updated_at = self._clock()
            existing.language = language
            self._items.move_to_end(existing.id)
            return existing
        new_id = conversation_id if existing is None and conversation_id else uuid.uuid4().hex
        conversation = Conversation(new_id, principal.key, language, updated_at=self._clock())
        self._items[new_id] = conversation
        while len(self._items) > self._max:
            self._items.popitem(last=False)
        return conversation

    def pending_for(self, conversation_id: str | None) -> Conversation | None:
        """The conversation with this id if it has a pending confirmation (whoever owns it)."""
        conversation = self._items.get(conversation_id) if conversation_id else None
        return conversation if conversation is not None and conversation.pending else None

    def now(self) -> float:
        return self._clock()

    def __len__(self) -> int:
        return len(self._items)

    def _forget_idle(self) -> None:
        # Kept in the order of their last use (`open` moves a used one to the end), so the
        # idle ones are at the front: a request looks at those, not at every conversation.
        horizon = self._clock() - self._ttl
        while self._items:
            oldest = next(iter(self._items.values()))
            if oldest.updated_at >= horizon:
                return
            self._items.popitem(last=False)
