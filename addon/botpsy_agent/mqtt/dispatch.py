"""From one received request message to exactly one answer: the front door's logic.

Read and check the payload, find where the answer goes, establish the principal, answer a
retry from the first outcome, refuse replays, admit within capacity (else `busy` at once),
run the agent, report its actions as events. Knows nothing of paho: the service hands it
messages and publishes what it returns.

Admitted requests run concurrently; the agent owns its single model worker (and its queue),
so a fast-path request never waits here behind model work (docs/decisions.md).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import cached_property
import json
import logging
import time
from typing import Any

from botpsy_agent.agent.protocol import Agent, AgentCode, AgentRequest, AgentResponse, Status
from botpsy_agent.audit import DoorAudit, NoAudit, Refusal
from botpsy_agent.contract import CONNECTION_TEST_USER, SECURITY_CODES, ErrorCode, seal_answer
from botpsy_agent.mqtt.auth import Authenticator
from botpsy_agent.mqtt.connection import Received
from botpsy_agent.mqtt.outcomes import Conflict, OutcomeCache, fingerprint
from botpsy_agent.mqtt.ratelimit import RateLimiter
from botpsy_agent.mqtt.settings import ApiSettings
from botpsy_agent.mqtt.stats import DoorStats
from botpsy_agent.mqtt.topics import Topics
from botpsy_agent.mqtt.wire import Rejection, RequestParser, WireRequest, json_payload
from botpsy_agent.policy import Principal
from tool_schemas.redact import redact

_LOGGER = logging.getLogger(__name__)
_SECURITY = logging.getLogger("botpsy_agent.security")

type EventSink = Callable[[dict[str, Any]], None]
type PrincipalCheck = Callable[[Principal], bool]
"""Whether the policy names a principal (`Policy.names`)."""
type AnswerCheck = Callable[[AgentRequest], bool]
"""Whether a request is the answer to its conversation's pending question, admitted once
per question (`BotPsyAgent.admits_answer`)."""

UNKNOWN_LOG_INTERVAL_S = 60.0
"""Refusals of unknown principals are logged once a minute (all are audited)."""


NOT_NOW = frozenset({AgentCode.HA_STARTING, AgentCode.HA_UNAVAILABLE})
"""Error codes of answers a retry of the same request must not be given again."""


@dataclass(frozen=True)
class Answer:
    """A response and where it goes."""

    topic: str
    response: AgentResponse
    correlation_data: bytes | None = None
    id_known: bool = True
    """False when the payload had no usable id: the wire `id` is then null."""
    seal_with: str | None = field(default=None, repr=False)
    """The secret that signed a request asking for a sealed answer (`signing.seal_answer`):
    its speech and actions are then for that secret's holder only."""

    def to_json(self) -> dict[str, Any]:
        data = self.response.to_json()
        if not self.id_known:
            data["id"] = None
        if self.seal_with is not None:
            data = seal_answer(data, self.seal_with)
        return data

    def payload(self) -> bytes:
        return json_payload(self.to_json())


@dataclass(frozen=True)
class _Routed:
    request: WireRequest
    reply: str
    principal: Principal
    seal_with: str | None = field(default=None, repr=False)

    @cached_property
    def agent_request(self) -> AgentRequest:
        """The request as the agent gets it: built once, for the limits, the audit, the run."""
        return _agent_request(self.request, self.principal)


class Dispatcher:
    """Answers request messages through an `Agent`, each exactly once."""

    def __init__(
        self,
        agent: Agent,
        settings: ApiSettings,
        authenticator: Authenticator,
        *,
        events: EventSink = lambda event: None,
        audit: DoorAudit | None = None,
        clock: Callable[[], float] = time.monotonic,
        message_bodies: bool = False,
        known: PrincipalCheck = lambda principal: True,
        answers_question: AnswerCheck = lambda request: False,
    ) -> None:
        self._agent = agent
        self._known = known
        """Principals the policy does not name are refused before they cost anything: no
        rate-limit bucket, no agent (issue 18, finding 6). The app passes `Policy.names`."""
        self._answers_question = answers_question
        """An answer to a pending question is never rate-limited or `busy`: a flood of
        others must not make a user's "yes" wait out the question (issue 18, finding 6)."""
        self._unknown_logged: float | None = None
        self._message_bodies = message_bodies
        """Free text in the events' arguments (message bodies, titles): only when the
        `audit_message_bodies` option is on, as in the audit log. HA's recorder stores the
        `botpsy_action` events made from them (issue 18, finding 5)."""
        self._settings = settings
        self._topics = Topics.of(settings)
        self._parser = RequestParser(settings)
        self._auth = authenticator
        self._outcomes = OutcomeCache(settings.outcome_cache_size)
        self._events = events
        self._audit: DoorAudit = audit or NoAudit()
        self._limits = RateLimiter(settings.rate_per_principal, settings.rate_global, clock=clock)
        self._clock = clock
        self._running: set[asyncio.Task[AgentResponse]] = set()
        self._running_by: Counter[str] = Counter()
        """Running requests per principal: one may hold at most `_principal_share` of the
        queue, so a principal within its rate limit cannot make everyone else `busy`."""
        self._principal_share = settings.queue_capacity - settings.queue_capacity // 4
        self.closing = False
        self.stats = DoorStats(clock)

    @property
    def running(self) -> int:
        return len(self._running)

    async def dispatch(self, message: Received) -> Answer:
        """The one answer to `message`. Never raises for anything a client can send."""
        routed = self._route(message)
        if isinstance(routed, Answer):
            return routed
        admitted = self._admit(routed, message)
        if isinstance(admitted, Answer):
            return admitted
        if admitted is not None:  # a retry: the first outcome, when it is there
            _LOGGER.info(
                "Request %s of %s is a retry: answering its first outcome",
                routed.request.id,
                routed.principal.key,
            )
            self._audit.accepted(routed.agent_request, message.topic, retry=True)
            response = await asyncio.shield(admitted)
            return Answer(
                routed.reply, response, message.correlation_data, seal_with=routed.seal_with
            )
        key = (routed.principal.key, routed.request.id)
        try:
            response = await self._run(routed.agent_request, message.received, message.topic)
        except asyncio.CancelledError:  # retries waiting on this one must not wait forever
            stopped = _failure(routed.request.id, ErrorCode.SHUTTING_DOWN, "the app stopped")
            self._outcomes.finish(key, stopped, keep=False)
            raise
        # Not kept: a retry of an answer that says "not now" must run again.
        keep = response.status not in {Status.BUSY, Status.WARMING_UP} and (
            response.error is None or response.error.code not in NOT_NOW
        )
        self._outcomes.finish(key, response, keep=keep)
        # The user waits for the answer, not for its events: they follow it on the wire.
        asyncio.get_running_loop().call_soon(
            self._report_actions, routed.request, routed.principal, response
        )
        return Answer(routed.reply, response, message.correlation_data, seal_with=routed.seal_with)

    def cancel_running(self) -> int:
        """Stop every running agent call; each is answered `shutting_down`."""
        for task in self._running:
            task.cancel()
        return len(self._running)

    async def wait_idle(self) -> None:
        """Until no agent call runs (wrap it in `asyncio.timeout`)."""
        while self._running:
            await asyncio.wait(set(self._running))

    def _route(self, message: Received) -> _Routed | Answer:
        """Read the request, find where its answer goes and whom it acts for."""
        named = self._topics.principal_of(message.topic)
        parsed = self._parser.parse(message.payload, retained=message.retained)
        if isinstance(parsed, Rejection):
            return self._refuse(parsed, message, self._fallback_reply(parsed, message, named))
        reply = parsed.reply_to or message.response_topic or self._topics.default_reply(named)
        if problem := self._topics.reply_problem(reply, named):
            rejection = Rejection(
                ErrorCode.INVALID_REPLY_TO, f"reply address {reply[:80]!r} {problem}", parsed.id
            )
            return self._refuse(rejection, message, self._topics.default_reply(named))
        if self.closing:
            rejection = Rejection(ErrorCode.SHUTTING_DOWN, "the app is stopping", parsed.id)
            return self._refuse(rejection, message, reply)
        principal = self._auth.principal(parsed, named)
        if isinstance(principal, Rejection):
            return self._refuse(principal, message, reply, claimed=parsed.user_id)
        if not self._known(principal):
            now = self._clock()
            quiet = (
                self._unknown_logged is not None
                and now - self._unknown_logged < UNKNOWN_LOG_INTERVAL_S
            )
            if not quiet:
                self._unknown_logged = now
            rejection = Rejection(
                ErrorCode.UNKNOWN_PRINCIPAL,
                f"the policy does not name {principal.key}; add it to policy.yaml",
                parsed.id,
            )
            return self._refuse(rejection, message, reply, principal=principal.key, quiet=quiet)
        seal_with = self._auth.signing_secret(parsed) if parsed.seal else None
        return _Routed(parsed, reply, principal, seal_with)

    def _admit(
        self, routed: _Routed, message: Received
    ) -> asyncio.Future[AgentResponse] | Answer | None:
        """None: run it (recorded as running). A future: a retry of a known request.
        An answer: refused (id reused, replayed, or no capacity left)."""
        request, reply = routed.request, routed.reply
        key = (routed.principal.key, request.id)
        identity = fingerprint(request.document, reply)
        first = self._outcomes.lookup(key, identity)
        if isinstance(first, Conflict):
            rejection = Rejection(
                ErrorCode.ID_REUSED,
                f"id {request.id} was already used for a different request; use a new id",
                request.id,
            )
            return self._refuse(rejection, message, reply)
        if first is not None:
            return first
        if replayed := self._auth.replayed(request):
            return self._refuse(replayed, message, reply, claimed=request.user_id)
        if refused := self._no_room(routed, message):
            return refused
        self._auth.remember(request)
        self._outcomes.begin(key, identity)
        return None

    def _no_room(self, routed: _Routed, message: Received) -> Answer | None:
        """The refusal when there is no room for the request now (the queue, the
        principal's share of it, the rate limits); None when it may run. An answer to a
        pending question always may."""
        request, reply, key = routed.request, routed.reply, routed.principal.key
        if self._answers_question(routed.agent_request):
            _LOGGER.debug("Request %s answers a pending question: not limited", request.id)
            return None
        if self.running >= self._settings.queue_capacity or self._auth.replays_full(request):
            rejection = Rejection(
                ErrorCode.BUSY,
                f"{self.running} requests are in progress (the limit); try again shortly",
                request.id,
            )
            return self._refuse(rejection, message, reply)
        if self._running_by[key] >= self._principal_share:
            rejection = Rejection(
                ErrorCode.BUSY,
                f"this principal has {self._principal_share} requests in progress (its share "
                "of the queue); try again shortly",
                request.id,
            )
            return self._refuse(rejection, message, reply)
        if limited := self._limits.admit(key):
            rejection = Rejection(ErrorCode.RATE_LIMITED, limited.message(), request.id)
            return self._refuse(rejection, message, reply, principal=key, quiet=limited.streak > 1)
        return None

    async def _run(self, request: AgentRequest, received: float, topic: str) -> AgentResponse:
        principal = request.principal
        self._audit.accepted(request, topic)
        self.stats.accepted()
        waited_ms = (self._clock() - received) * 1000
        task = asyncio.create_task(self._agent.handle(request), eager_start=True)
        self._running.add(task)
        self._running_by[principal.key] += 1
        try:
            response = await task
        except asyncio.CancelledError:
            if not task.cancelled():
                raise  # we are being cancelled ourselves, not the agent call
            _LOGGER.warning("Request %s stopped: the app is shutting down", request.id)
            response = _failure(request.id, ErrorCode.SHUTTING_DOWN, "the app stopped first")
        except Exception:
            _LOGGER.exception("The agent failed on request %s", request.id)
            response = _failure(request.id, ErrorCode.INTERNAL_ERROR, "the agent failed")
        finally:
            self._running.discard(task)
            self._running_by[principal.key] -= 1
            if self._running_by[principal.key] <= 0:
                del self._running_by[principal.key]
        if response.id != request.id:
            _LOGGER.warning("The agent answered request %s with id %s", request.id, response.id)
            response = replace(response, id=request.id)
        total_ms = (self._clock() - received) * 1000
        timings = replace(
            response.timings, queue_ms=response.timings.queue_ms + waited_ms, total_ms=total_ms
        )
        self.stats.finished(total_ms)
        response = replace(response, timings=timings)
        if _LOGGER.isEnabledFor(logging.DEBUG):
            breakdown = json.dumps(response.to_json()["timings"], separators=(",", ":"))
            _LOGGER.debug("Request %s answered in %.0f ms: %s", request.id, total_ms, breakdown)
        # Written once the answer is on its way (the service publishes it in this turn).
        asyncio.get_running_loop().call_soon(self._audit.answered, request, response)
        return response

    def _fallback_reply(self, rejection: Rejection, message: Received, named: str | None) -> str:
        """Where to answer a payload that could not be read: its reply address if that much
        is usable, else the requester's default response topic."""
        for candidate in (rejection.reply_to, message.response_topic):
            if candidate:
                if self._topics.reply_problem(candidate, named) is None:
                    return candidate
                break  # an address was given but is not allowed: never fall further to it
        return self._topics.default_reply(named)

    def _refuse(
        self,
        rejection: Rejection,
        message: Received,
        reply: str,
        *,
        claimed: str | None = None,
        principal: str | None = None,
        quiet: bool = False,
    ) -> Answer:
        """Answer a request that does not reach the agent, log it, and audit refusals.
        `quiet`: one more of a flood already logged (debug level; still audited)."""
        test = rejection.code is ErrorCode.UNKNOWN_USER and claimed == CONNECTION_TEST_USER
        security = rejection.code in SECURITY_CODES and not test
        (_SECURITY if security else _LOGGER).log(
            logging.DEBUG if quiet else logging.INFO if test else logging.WARNING,
            "%sRequest %s on %s answered %s: %s",
            "Security event: " if security else "",
            rejection.request_id or "(no id)",
            message.topic,
            rejection.code,
            rejection.message,
        )
        self._audit.refused(
            Refusal(
                message.topic,
                rejection.code.value,
                rejection.message,
                rejection.request_id,
                principal,
                claimed,
                security,
            )
        )
        self.stats.refused()
        response = _failure(rejection.request_id or "", rejection.code, rejection.message)
        if rejection.code.status is Status.REFUSED:
            self._emit(
                "request_refused",
                request_id=rejection.request_id,
                principal=None,
                claimed_user_id=claimed,
                code=rejection.code.value,
                message=rejection.message,
            )
        return Answer(
            reply, response, message.correlation_data, id_known=rejection.request_id is not None
        )

    def _report_actions(
        self, parsed: WireRequest, principal: Principal, response: AgentResponse
    ) -> None:
        for action in response.actions:
            self._emit(
                "action",
                request_id=parsed.id,
                principal=principal.key,
                tool=action.tool,
                arguments=dict(action.arguments)
                if self._message_bodies
                else redact(action.tool, action.arguments),
                entity_ids=action.entity_ids,
                decision=action.decision,
                rule=action.rule,
                outcome=action.outcome.value,
                error=None if action.error is None else action.error.code,
                dry_run=parsed.dry_run,
            )
        if response.status is Status.REFUSED and not response.actions:
            self._emit(
                "request_refused",
                request_id=parsed.id,
                principal=principal.key,
                claimed_user_id=parsed.user_id,
                code=None if response.error is None else response.error.code,
                message=response.speech,
            )

    def _emit(self, kind: str, **data: Any) -> None:
        self._events({"type": kind, "time": datetime.now(UTC).isoformat(), "data": data})


def _agent_request(parsed: WireRequest, principal: Principal) -> AgentRequest:
    return AgentRequest(
        id=parsed.id,
        text=parsed.text,
        principal=principal,
        language=parsed.language,
        conversation_id=parsed.conversation_id,
        device_id=parsed.device_id,
        area_id=parsed.area_id,
        dry_run=parsed.dry_run,
    )


def _failure(request_id: str, code: ErrorCode, message: str) -> AgentResponse:
    return AgentResponse.failure(request_id, code.status, code.value, message)
