"""Small agents for testing the MQTT front door. They stand in for no capability we claim:
they are just the simplest things that satisfy the `Agent` protocol."""

from __future__ import annotations

import asyncio

from botpsy_agent.agent.protocol import (
    ActionReport,
    AgentRequest,
    AgentResponse,
    Outcome,
    Path,
    Status,
)


class EchoAgent:
    """Answers `done`, saying who asked and what; remembers every request it handled."""

    def __init__(self) -> None:
        self.requests: list[AgentRequest] = []

    async def handle(self, request: AgentRequest) -> AgentResponse:
        self.requests.append(request)
        return AgentResponse(
            request.id,
            Status.DONE,
            speech=f"{request.principal.key} said: {request.text}",
            conversation_id=request.conversation_id or f"conv-{request.id}",
            path=Path.FAST_PATH,
        )


class ActingAgent:
    """Turns on the kitchen light for every request (executed, or planned on a dry run) and
    counts how often it really executed something."""

    def __init__(self) -> None:
        self.executions = 0
        self.requests: list[AgentRequest] = []

    async def handle(self, request: AgentRequest) -> AgentResponse:
        self.requests.append(request)
        if not request.dry_run:
            self.executions += 1
        action = ActionReport(
            tool="turn_on",
            arguments={"name": "kitchen light"},
            entity_ids=["light.kitchen"],
            service_calls=[{"domain": "light", "service": "turn_on"}],
            rule="admins",
            outcome=Outcome.PLANNED if request.dry_run else Outcome.EXECUTED,
        )
        return AgentResponse(
            request.id, Status.DONE, speech="Done.", actions=[action], path=Path.FAST_PATH
        )


class GatedAgent:
    """Requests whose text starts with "slow" wait until `release()` (like model work behind
    the one model worker); all others answer at once (like the fast path)."""

    def __init__(self) -> None:
        self._gate = asyncio.Event()
        self._changed = asyncio.Condition()
        self.waiting = 0
        self.executions = 0

    def release(self) -> None:
        self._gate.set()

    async def wait_for_waiting(self, count: int) -> None:
        """Until `count` slow requests are waiting at the gate."""
        async with self._changed:
            await self._changed.wait_for(lambda: self.waiting >= count)

    async def handle(self, request: AgentRequest) -> AgentResponse:
        if request.text.startswith("slow"):
            async with self._changed:
                self.waiting += 1
                self._changed.notify_all()
            try:
                await self._gate.wait()
            finally:
                self.waiting -= 1
        self.executions += 1
        path = Path.MODEL if request.text.startswith("slow") else Path.FAST_PATH
        return AgentResponse(request.id, Status.DONE, speech=request.text, path=path)


class FailingAgent:
    """Breaks its promise never to raise."""

    async def handle(self, request: AgentRequest) -> AgentResponse:
        raise RuntimeError("the agent broke")
