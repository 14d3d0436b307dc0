"""Outcomes by (principal, request id), so a retried request is answered, never re-run.

A retry that arrives while the first is still running waits for the first's outcome. The
finished outcomes kept are bounded (least recently used go first); an id whose outcome has
been forgotten is, for a signed request, caught by the replay guard instead.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
import hashlib
from typing import Any

from botpsy_agent.agent.protocol import AgentResponse
from botpsy_agent.contract import canonical_bytes

type OutcomeKey = tuple[str, str]
"""(principal key, request id)."""


def fingerprint(document: Mapping[str, Any], reply_to: str) -> str:
    """What makes two requests with one id the same request: every field except the
    signature's own (`ts`, `sig`, which a client may renew on retry), and the reply address."""
    unsigned = {k: v for k, v in document.items() if k not in {"ts", "sig"}}
    digest = hashlib.sha256(canonical_bytes(unsigned))
    digest.update(b"\0" + reply_to.encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class Conflict:
    """The id was used before for a different request."""


@dataclass
class _Outcome:
    fingerprint: str
    future: asyncio.Future[AgentResponse]


class OutcomeCache:
    """Running and recently finished requests."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._running: dict[OutcomeKey, _Outcome] = {}
        self._finished: OrderedDict[OutcomeKey, _Outcome] = OrderedDict()

    def __len__(self) -> int:
        return len(self._running) + len(self._finished)

    def lookup(
        self, key: OutcomeKey, fingerprint: str
    ) -> asyncio.Future[AgentResponse] | Conflict | None:
        """The first outcome of this request (maybe still pending), a conflict, or None."""
        outcome = self._running.get(key) or self._finished.get(key)
        if outcome is None:
            return None
        if outcome.fingerprint != fingerprint:
            return Conflict()
        if key in self._finished:
            self._finished.move_to_end(key)
        return outcome.future

    def begin(self, key: OutcomeKey, fingerprint: str) -> None:
        future: asyncio.Future[AgentResponse] = asyncio.get_running_loop().create_future()
        self._running[key] = _Outcome(fingerprint, future)

    def finish(self, key: OutcomeKey, response: AgentResponse, *, keep: bool = True) -> None:
        """Record the outcome; waiting retries get it. `keep=False` (a `busy` answer) lets
        a later retry run afresh."""
        outcome = self._running.pop(key)
        outcome.future.set_result(response)
        if not keep:
            return
        self._finished[key] = outcome
        while len(self._finished) > self.size:
            self._finished.popitem(last=False)
