"""The answering of pending questions: a bare "yes" or "no" to the call a turn parked.

Only the principal who was asked may answer, only in time, and a "yes" runs exactly the
parked call, authorised again (the policy may have changed since). Anything else is a new
request (None here).
"""

from __future__ import annotations

from datetime import datetime

from botpsy_agent.agent.conversation import Conversation, ConversationStore
from botpsy_agent.agent.pipeline import CallPipeline, Job
from botpsy_agent.agent.protocol import AgentRequest, Path, Status
from botpsy_agent.agent.speech import Phrasebook
from botpsy_agent.agent.turn import Closing, Turn, report_of
from botpsy_agent.home import Home
from botpsy_agent.policy import Deny, Policy, authorize


class PendingAnswers:
    def __init__(
        self, phrases: Phrasebook, conversations: ConversationStore, pipeline: CallPipeline
    ) -> None:
        self._phrases = phrases
        self._conversations = conversations
        self._pipeline = pipeline

    def admits(self, request: AgentRequest) -> bool:
        """Whether `request` is its principal's bare yes/no to the question pending in its
        conversation, and the first such answer to it: the front door lets it past its rate
        limits (issue 18, finding 6). True once per question, so "yes" floods gain nothing."""
        waiting = self._conversations.pending_for(request.conversation_id)
        if waiting is None or not self._phrases.supports(request.language):
            return False
        pending = waiting.pending
        assert pending is not None
        if (
            pending.answer_admitted
            or pending.principal_key != request.principal.key
            or self._conversations.now() > pending.expires_at
        ):
            return False
        if not self._is_answer(request, pending.resolved.call.name):
            return False
        pending.answer_admitted = True
        return True

    async def answer(
        self,
        request: AgentRequest,
        conversation: Conversation,
        home: Home,
        policy: Policy,
        now: datetime,
    ) -> Job | None:
        """The decided turn for "yes"/"no" to the pending question; None if the text is a
        new request."""
        pending = conversation.pending
        assert pending is not None
        if not self._is_answer(request, pending.resolved.call.name):
            return None
        job = Job(request, conversation, home, policy, now, Turn(path=Path.CONFIRMATION))
        turn = job.turn
        if pending.principal_key != request.principal.key:
            turn.status, turn.closing = Status.REFUSED, Closing("confirm.not_yours")
            turn.keeps_conversation = False
            return job
        conversation.pending = None
        if self._conversations.now() > pending.expires_at:
            turn.status, turn.closing = Status.REFUSED, Closing("confirm.expired")
            return job
        if self._phrases.is_negative(request.language, request.text):
            turn.status, turn.closing = Status.DONE, Closing("confirm.declined")
            return job
        # Yes: exactly the parked call, authorised again (the policy may have changed).
        resolved = pending.resolved
        report = report_of(resolved)
        decision = authorize(policy, request.principal, resolved, now)
        report.rule = decision.rule
        if isinstance(decision, Deny):
            step = CallPipeline.refused(report, decision, ())
        else:
            step = await self._pipeline.execute(report, resolved, job, sequence="confirmed")
        turn.steps.append(step)
        return job

    def _is_answer(self, request: AgentRequest, tool: str) -> bool:
        """A bare yes or no; a yes may say again what it approves ("yes please, delete it"
        to a deletion), never anything else."""
        language, text = request.language, request.text
        return self._phrases.is_affirmative(language, text, tool) or self._phrases.is_negative(
            language, text
        )
