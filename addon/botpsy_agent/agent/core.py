"""The agent: request -> fast path or model -> typed calls -> resolve -> authorize -> execute.

Every call, from whichever path, goes through `_carry_out`: pydantic validation (already done
when it is a `Tool`), target resolution within the principal's scope, `authorize`, for the
model's calls the grounding check (was it asked for?), and only then the executor. A `Confirm`
decision, or an ungrounded action, parks exactly that resolved call until the same principal
says yes in the same conversation in time. Refusals end the turn with an honest sentence;
failures go back to the model, which may take a corrective step (bounded).

The turn protocol (docs/decisions.md): the model's first step of a request can only be tool
calls (`no_tool_fits` and `ask_user` are always offered), and what the user hears is said from
what was executed, never from the model's text: text cannot claim an action.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
import json
import logging
import time
from typing import Any, Protocol

from botpsy_agent.agent.conversation import (
    CONFIRM_TTL_S,
    Conversation,
    ConversationStore,
    PendingConfirmation,
)
from botpsy_agent.agent.narrowing import listed_uids, narrowed_schemas, with_listed_uids
from botpsy_agent.agent.offer import build_offer
from botpsy_agent.agent.protocol import (
    ActionReport,
    AgentRequest,
    AgentResponse,
    Decision,
    ErrorInfo,
    Outcome,
    Path,
    Status,
    Timings,
)
from botpsy_agent.agent.replies import Replies
from botpsy_agent.agent.speech import Phrasebook
from botpsy_agent.ha.executor import ActionStatus, Execution, ExecutionKey, call_digest
from botpsy_agent.home.model import Entity, Home
from botpsy_agent.home.resolve import ResolutionError, ResolvedCall, resolve_call
from botpsy_agent.llm.planning import (
    Offer,
    PlanError,
    PlanFailure,
    Planner,
    PlanRequest,
    RawCall,
    RejectedCall,
    request_context,
)
from botpsy_agent.policy import (
    Allow,
    Confirm,
    Deny,
    Policy,
    Principal,
    authorize,
    may_read,
    readable_result,
    scope,
    usable_filter,
)
from botpsy_agent.words import grounding
from botpsy_agent.words.checks import CallProblem, check_call, corrected_call
from botpsy_agent.words.recognizer import FastPath
from tool_schemas.actions import describe
from tool_schemas.base import Access, MappingContext, Tool
from tool_schemas.catalog import ToolCallError, parse_tool_call
from tool_schemas.conversation import AskUser

_LOGGER = logging.getLogger(__name__)

RECENT_S = 24 * 3600.0


class ActionRunner(Protocol):
    async def execute(self, key: ExecutionKey, resolved: ResolvedCall) -> Execution: ...


@dataclass(frozen=True)
class AgentSettings:
    max_steps: int = 4
    confirm_ttl_s: float = CONFIRM_TTL_S


@dataclass
class _Step:
    """One call and what became of it."""

    report: ActionReport
    status: Status
    speech: str
    feedback: dict[str, Any]
    """What the model is told about it (data, quoted in a tool response)."""
    is_read: bool = False
    targets: tuple[str, ...] = ()


@dataclass
class _Turn:
    steps: list[_Step] = field(default_factory=list)
    executions: Counter[str] = field(default_factory=Counter)
    """Calls sent to the executor so far, by `call_digest`: the n-th run of one call in a
    request is its step, so a retry planned in another order still finds each call's first
    run (issue 25, finding 7)."""
    final_text: str = ""
    status: Status | None = None
    error: ErrorInfo | None = None
    path: Path = Path.NONE
    timings: Timings = field(default_factory=Timings)


@dataclass
class _Job:
    """Everything one request is decided against: one home, one policy, one moment."""

    request: AgentRequest
    conversation: Conversation
    home: Home
    policy: Policy
    now: datetime
    turn: _Turn
    offer: Offer | None = None
    """What the model was offered (the model path): what a question may name, and what the
    app says it can do when no tool fits."""

    @property
    def language(self) -> str:
        return self.request.language

    def readable(self, entity_id: str) -> bool:
        """Whether the requester may see `entity_id` in a result (issue 18, finding 9)."""
        entity = self.home.entities.get(entity_id) or Entity(entity_id, entity_id)
        return may_read(self.policy, self.request.principal, entity, self.now)


class BotPsyAgent:
    """Implements the `Agent` protocol: one answer per request, never an exception."""

    def __init__(
        self,
        *,
        home: Callable[[], Home],
        policy: Callable[[], Policy],
        executor: ActionRunner,
        planner: Planner | None,
        phrases: Phrasebook,
        clock: Callable[[], datetime],
        fast_path: FastPath | None = None,
        settings: AgentSettings | None = None,
        ha_unready: Callable[[], Awaitable[str | None]] | None = None,
    ) -> None:
        self._home = home
        self._ha_unready = ha_unready
        """The error code to answer while HA cannot be acted in (starting, unreachable),
        None when it can: a home half loaded would make "done" a guess."""
        self._policy = policy
        self._executor = executor
        self.planner = planner
        self._phrases = phrases
        self._replies = Replies(phrases)
        self._clock = clock
        self._fast_path = fast_path or FastPath()
        self.settings = settings or AgentSettings()
        self.conversations = ConversationStore()
        self._offers: dict[tuple[str, int, str, int], Offer] = {}
        self._recent: dict[str, tuple[Principal, float]] = {}
        """Principals who used the model path lately, to warm their prompts on changes."""

    # --- the front door --------------------------------------------------------------------

    async def handle(self, request: AgentRequest) -> AgentResponse:
        """The answer to one request; `timings.total_ms` is the front door's to fill (it
        alone knows when the request arrived)."""
        try:
            return await self._handle(request)
        except Exception:
            _LOGGER.exception("Request %s failed inside the agent", request.id)
            return self._failure(request, Status.ERROR, "internal")

    async def _handle(self, request: AgentRequest) -> AgentResponse:
        if not self._phrases.supports(request.language):
            return self._failure(request, Status.ERROR, "unknown_language")
        if self._ha_unready is not None and (unready := await self._ha_unready()) is not None:
            return self._failure(request, Status.ERROR, unready)
        home, policy, now = self._home(), self._policy(), self._clock()
        waiting = self.conversations.pending_for(request.conversation_id)
        if waiting is not None:
            answer = await self._answer_question(request, waiting, home, policy, now)
            if answer is not None:
                return answer
        conversation = self.conversations.open(
            request.conversation_id, request.principal, request.language
        )
        conversation.pending = None  # a new request replaces an unanswered question

        job = _Job(request, conversation, home, policy, now, _Turn())
        turn = job.turn
        started = time.monotonic()
        recognized = self._fast_path.recognize(
            request.text, request.language, home, area_id=request.area_id
        )
        turn.timings.fast_path_ms = (time.monotonic() - started) * 1000
        if recognized is not None:
            turn.path = Path.FAST_PATH
            if recognized.nevermind:
                turn.final_text = self._phrases.say(request.language, "nevermind")
                turn.status = Status.DONE
            for call in recognized.calls:
                step = await self._carry_out(call, job)
                if recognized.question is not None and step.status is Status.DONE:
                    said = self._replies.answer(
                        request.language, home, recognized.question, step.report.result
                    )
                    step.speech = said or step.speech  # "Yes" / "No, it is open"
                turn.steps.append(step)
                if step.status is not Status.DONE:
                    break
        elif self.planner is None:
            return self._failure(request, Status.ERROR, "model_unavailable", conversation)
        else:
            turn.path = Path.MODEL
            await self._model_loop(job)
        self._remember(job)
        return self._respond(request, conversation, turn)

    # --- the model loop ------------------------------------------------------------------------

    async def _model_loop(self, job: _Job) -> None:
        assert self.planner is not None
        request, home, now, turn = job.request, job.home, job.now, job.turn
        offer = job.offer = self.offer_for(request.principal, home, job.policy, now)
        self._recent[request.principal.key] = (request.principal, time.monotonic())
        area = home.areas[request.area_id].name if request.area_id in home.areas else None  # type: ignore[index]
        user = {"role": "user", "content": f"{request_context(now, area_name=area)} {request.text}"}
        messages = [*job.conversation.history, user]
        schemas = narrowed_schemas(offer, self._request_words(job), home) or offer.schemas
        made: set[str] = set()
        for step_number in range(self.settings.max_steps):
            uids = frozenset().union(*(listed_uids(s.feedback) for s in turn.steps))
            try:
                plan = await self.planner.plan(
                    PlanRequest(
                        offer,
                        tuple(messages),
                        request.language,
                        request.id,
                        step_number,
                        calls_only=step_number == 0,
                        schemas=_or_none(with_listed_uids(schemas, uids), offer.schemas),
                    )
                )
            except PlanError as err:
                turn.status, turn.error = self._model_failure(request, err)
                return
            turn.timings.model_ms += plan.model_ms
            if plan.rejected:
                # The model ignored its grammar (a fake or intercepted model server): its
                # turn is reported, never run, and nothing more is asked of it.
                turn.steps.extend(self._rejected(r, job) for r in plan.rejected)
                return
            said = {json.dumps([c.name, c.arguments], sort_keys=True) for c in plan.calls}
            if said and said <= made:
                break  # the same calls again: no progress, and each would be said again
            made |= said
            if not plan.calls:
                # The model's words after tool results end the turn; they are not spoken:
                # the answer is said from the results (the phrasebook), so it cannot claim
                # what did not happen. Without any step, there is nothing to say but that.
                if not turn.steps:
                    turn.status, turn.error = Status.ERROR, self._error(request, "invalid_call")
                return
            steps = await self._run_calls(plan.calls, job)
            turn.steps.extend(steps)
            if any(s.status in _ENDS_TURN for s in steps):
                return
            if all(s.status is Status.DONE and not s.is_read for s in steps) and not (
                self._more_asked(job)
            ):
                return  # done: the outcome is said from the phrasebook, no extra model step
            messages.append(_assistant_message(plan.calls))
            messages.extend(
                {"role": "tool", "content": json.dumps(s.feedback, ensure_ascii=False)}
                for s in steps
            )
        if not any(s.status is Status.DONE for s in turn.steps):
            turn.status, turn.error = Status.ERROR, self._error(request, "step_limit")

    def _more_asked(self, job: _Job) -> bool:
        """Does the request name a device no step has acted on yet, or list an item no step
        has added? "close the blinds and then switch on the reading lamp": the real 1.5B's
        first step did only the blinds. Then the model gets another step; its words would
        still end the turn unspoken. Only what the words name counts, not this
        conversation's referents ("and in the hall too" points back at the kind of action,
        not at the last room)."""
        request = job.request
        words = grounding.Request(request.text, request.language, speaker_area=request.area_id)
        touched = {e for step in job.turn.steps for e in step.targets}
        added = [
            str(step.report.arguments.get("item", ""))
            for step in job.turn.steps
            if step.report.tool == "add_todo_item"
        ]
        return bool(grounding.named_beyond(words, job.home, touched)) or (
            bool(added) and grounding.items_beyond(words, added)
        )

    async def _run_calls(self, calls: tuple[RawCall, ...], job: _Job) -> list[_Step]:
        steps = []
        words = self._request_words(job)
        contradicting = _contradicting(calls)
        for number, raw in enumerate(calls):
            call = _typed(raw, contradicts=number in contradicting)
            if isinstance(call, ToolCallError):
                err = call
                report = ActionReport(
                    raw.name,
                    dict(raw.arguments),
                    decision=Decision.NONE,
                    outcome=Outcome.FAILED,
                    error=ErrorInfo(err.code, err.message),
                )
                steps.append(
                    _Step(
                        report,
                        Status.ERROR,
                        self._phrases.say(job.language, "errors.invalid_call"),
                        {"error": {"code": err.code, "message": err.message}},
                    )
                )
                continue
            step = await self._carry_out(call, job, words)
            steps.append(step)
            if step.status in _ENDS_TURN:
                break
        return steps

    def _rejected(self, rejected: RejectedCall, job: _Job) -> _Step:
        report = ActionReport(
            rejected.call.name,
            dict(rejected.call.arguments),
            decision=Decision.NONE,
            outcome=Outcome.FAILED,
            error=ErrorInfo("outside_grammar", rejected.reason),
        )
        speech = self._phrases.say(job.language, "errors.invalid_call")
        return _Step(report, Status.ERROR, speech, {"error": {"code": "outside_grammar"}})

    @staticmethod
    def _request_words(job: _Job) -> grounding.Request:
        request = job.request
        return grounding.Request(
            request.text,
            request.language,
            frozenset(job.conversation.last_targets),
            frozenset(job.conversation.last_tools),
            request.area_id,
        )

    # --- one typed call --------------------------------------------------------------------

    async def _carry_out(
        self, call: Tool, job: _Job, words: grounding.Request | None = None
    ) -> _Step:
        """`words`: check that the request asked for this call (the model's calls); None for
        calls recognised from the words themselves (the fast path)."""
        request, home, policy, now = job.request, job.home, job.policy, job.now
        language = request.language
        arguments = call.model_dump(exclude_none=True, mode="json")
        report = ActionReport(call.name, arguments)
        if isinstance(call, AskUser):
            return self._ask(report, call, job, words)
        if call.name == "no_tool_fits":
            return self._no_tool_fits(report, job, str(arguments["reason"]))

        try:
            resolved = resolve_call(
                home, call, MappingContext(now), usable_filter(policy, request.principal, call, now)
            )
        except ResolutionError as err:
            report.decision, report.outcome = Decision.NONE, Outcome.FAILED
            report.error = ErrorInfo(err.code, err.message)
            speech = self._phrases.say(language, "refused.unknown_target")
            return _Step(
                report, Status.ERROR, speech, {"error": {"code": err.code, "message": err.message}}
            )
        report.entity_ids = list(resolved.entity_ids)
        report.service_calls = [describe(a) for a in resolved.actions]
        return await self._decide(report, resolved, job, words)

    async def _decide(
        self,
        report: ActionReport,
        resolved: ResolvedCall,
        job: _Job,
        words: grounding.Request | None,
    ) -> _Step:
        """Authorise, check grounding, then execute, ask, or refuse."""
        request, home, call, language = job.request, job.home, resolved.call, job.language
        decision = authorize(job.policy, request.principal, resolved, job.now)
        report.rule = decision.rule
        if isinstance(decision, Deny):
            # The service calls were computed from the entity's state: a refusal shows none.
            report.decision, report.outcome = Decision.DENY, Outcome.REFUSED
            report.service_calls = []
            report.error = ErrorInfo(decision.reason.value, decision.message)
            return _Step(
                report,
                Status.REFUSED,
                self._replies.refused(language, decision, home),
                {"refused": decision.reason.value},
                targets=resolved.entity_ids,
            )
        verdict = grounding.Verdict.GROUNDED
        if words is not None:
            verdict = grounding.check(resolved, words, home)
        if verdict is grounding.Verdict.NO_HOME_INTENT:
            report.error = ErrorInfo("not_asked", "the request asks for nothing of the kind")
            return self._no_tool_fits(report, job, "not asked for")
        if verdict is grounding.Verdict.UNRELATED:
            # Not worth a question ("cancel the piano lesson" -> close the blinds): the model
            # is told the call does not fit the request and may choose again.
            report.decision, report.outcome = Decision.NONE, Outcome.FAILED
            report.error = ErrorInfo("not_asked", "the request did not ask for this")
            return _Step(report, Status.ERROR, "", {"error": {"code": "not_asked"}})
        if verdict is grounding.Verdict.ASK and isinstance(decision, Allow):
            # Allowed, but not asked for: ask first, naming exactly what would be done.
            decision = Confirm("ungrounded." + call.name, "grounding", resolved.entity_ids)
        elif words is not None and (
            problem := check_call(call, request.text, job.now, language, home)
        ):
            return await self._checked(report, resolved, problem, job)
        if isinstance(decision, Allow):
            return await self._execute(report, resolved, job)
        return self._park(report, resolved, decision, job)

    async def _checked(
        self, report: ActionReport, resolved: ResolvedCall, problem: CallProblem, job: _Job
    ) -> _Step:
        """A model call that disagrees with a time or direction the request fixed: never run
        as proposed. A time has one correction, which a read runs, and an action too when
        the request said that one time; otherwise it is asked about, as is anything else."""
        request, home, language = job.request, job.home, job.language
        names = self._replies.names(language, home, resolved.entity_ids)
        speech = self._phrases.say(language, problem.phrase, **{"targets": names, **problem.values})
        report.error = ErrorInfo(problem.code, speech)
        corrected = corrected_call(resolved.call, problem)
        fixed: ResolvedCall | None = None
        if corrected is not None:
            usable = usable_filter(job.policy, request.principal, corrected, job.now)
            try:
                fixed = resolve_call(home, corrected, MappingContext(job.now), usable)
            except ResolutionError:
                fixed = None
        if fixed is None:
            report.decision, report.outcome = Decision.NONE, Outcome.PLANNED
            return _Step(report, Status.NEEDS_CLARIFICATION, speech, {"asked": speech})
        decision = authorize(job.policy, request.principal, fixed, job.now)
        fixed_report = ActionReport(
            fixed.call.name,
            fixed.call.model_dump(exclude_none=True, mode="json"),
            entity_ids=list(fixed.entity_ids),
            service_calls=[describe(a) for a in fixed.actions],
            rule=decision.rule,
        )
        if isinstance(decision, Allow) and (fixed.call.access is Access.READ or problem.settled):
            return await self._execute(fixed_report, fixed, job)
        if isinstance(decision, Deny):
            return await self._decide(fixed_report, fixed, job, None)
        confirm = Confirm(problem.phrase, "checks", fixed.entity_ids)
        return self._park(fixed_report, fixed, confirm, job, speech=speech)

    def _park(
        self,
        report: ActionReport,
        resolved: ResolvedCall,
        decision: Confirm,
        job: _Job,
        *,
        speech: str | None = None,
    ) -> _Step:
        """Keep exactly this call until its principal says yes; ask the question."""
        request, call, language = job.request, resolved.call, job.language
        report.decision, report.outcome = Decision.CONFIRM, Outcome.PENDING_CONFIRMATION
        report.rule = decision.rule
        if not request.dry_run:
            job.conversation.pending = PendingConfirmation(
                resolved,
                decision.question,
                decision.rule,
                request.principal.key,
                request.id,
                self.conversations.now() + self.settings.confirm_ttl_s,
            )
        if speech is None:
            speech = self._replies.question(language, decision, call, job.home)
        return _Step(
            report,
            Status.NEEDS_CONFIRMATION,
            speech,
            {"needs_confirmation": True},
            targets=resolved.entity_ids,
        )

    def _ask(
        self, report: ActionReport, call: AskUser, job: _Job, words: grounding.Request | None
    ) -> _Step:
        """The app's question for what the model says is missing (issue 25, finding 5: the
        model's own question was spoken, so planted text could ask for the alarm PIN). A
        request that asks nothing of the home is told what the app can do, not asked."""
        if words is not None and not grounding.has_home_intent(words, job.home):
            return self._no_tool_fits(report, job, "nothing of the home asked")
        report.outcome = Outcome.PLANNED
        may_name = job.offer.entity_ids if job.offer is not None else frozenset()
        question = self._replies.clarify(job.language, call, job.home, may_name)
        return _Step(report, Status.NEEDS_CLARIFICATION, question, {"asked": call.missing})

    def _no_tool_fits(self, report: ActionReport, job: _Job, reason: str) -> _Step:
        # The reason is the model's text: kept in the report, never spoken (it could claim
        # something happened). What is said is what the app can do for this user.
        report.outcome, report.decision = Outcome.REFUSED, Decision.NONE
        tools = job.offer.tool_names if job.offer is not None else ()
        speech = self._replies.no_tool_fits(job.language, tools)
        return _Step(report, Status.REFUSED, speech, {"refused": reason})

    async def _execute(
        self, report: ActionReport, resolved: ResolvedCall, job: _Job, sequence: str | None = None
    ) -> _Step:
        request, turn, call, language = job.request, job.turn, resolved.call, job.language
        report.decision = Decision.ALLOW
        is_read = call.access is Access.READ
        if request.dry_run:
            report.outcome = Outcome.PLANNED
            plan = f"{call.name} {', '.join(resolved.entity_ids)}".strip()
            speech = self._phrases.say(language, "done.planned", plan=plan)
            return _Step(
                report, Status.DONE, speech, {"planned": True}, is_read, resolved.entity_ids
            )
        started = time.monotonic()
        digest = call_digest(resolved)
        number = sequence or f"{turn.executions[digest]}"
        turn.executions[digest] += 1
        key = ExecutionKey(request.principal.key, request.id, number)
        execution = await self._executor.execute(key, resolved)
        turn.timings.ha_ms += (time.monotonic() - started) * 1000
        report.result = readable_result(execution.to_json(), job.readable)
        if execution.status is not ActionStatus.DONE:
            error = execution.error or ErrorInfo("outcome_unknown", "HA did not answer in time")
            report.outcome, report.error = Outcome.FAILED, error
            speech = self._phrases.say(language, "errors.ha_error", message=error.message)
            return _Step(
                report,
                Status.ERROR,
                speech,
                {"error": {"code": error.code, "message": error.message}},
                is_read,
                resolved.entity_ids,
            )
        report.outcome = Outcome.EXECUTED
        speech = self._speech_for(language, resolved, execution, job.home, job.now)
        return _Step(
            report, Status.DONE, speech, {"result": report.result}, is_read, resolved.entity_ids
        )

    def _speech_for(
        self,
        language: str,
        resolved: ResolvedCall,
        execution: Execution,
        home: Home,
        now: datetime,
    ) -> str:
        call = resolved.call
        if call.name in {"get_state", "list_entities"}:
            states = [s for o in execution.outcomes for s in o.states]
            return self._replies.states(
                language, home, states, names_only=call.name == "list_entities"
            )
        response = next((o.response for o in execution.outcomes if o.response is not None), None)
        if call.name in {"list_events", "check_free_busy"}:
            return self._replies.events(
                language, response, free_busy=call.name == "check_free_busy"
            )
        if call.name == "list_todo_items":
            return self._replies.todo(language, response)
        return self._replies.done(language, call, resolved.targets, home, now)

    # --- confirmation answers --------------------------------------------------------------

    def admits_answer(self, request: AgentRequest) -> bool:
        """Whether `request` is its principal's bare yes/no to the question pending in its
        conversation, and the first such answer to it: the front door lets it past its rate
        limits (issue 18, finding 6). True once per question, so "yes" floods gain nothing."""
        waiting = self.conversations.pending_for(request.conversation_id)
        if waiting is None or not self._phrases.supports(request.language):
            return False
        pending = waiting.pending
        assert pending is not None
        if (
            pending.answer_admitted
            or pending.principal_key != request.principal.key
            or self.conversations.now() > pending.expires_at
        ):
            return False
        language, text = request.language, request.text
        phrases = self._phrases
        if not (phrases.is_affirmative(language, text) or phrases.is_negative(language, text)):
            return False
        pending.answer_admitted = True
        return True

    async def _answer_question(
        self,
        request: AgentRequest,
        conversation: Conversation,
        home: Home,
        policy: Policy,
        now: datetime,
    ) -> AgentResponse | None:
        """Handle "yes"/"no" to a pending question; None if the text is a new request."""
        pending = conversation.pending
        assert pending is not None
        language = request.language
        yes = self._phrases.is_affirmative(language, request.text)
        no = self._phrases.is_negative(language, request.text)
        if not (yes or no):
            return None
        job = _Job(request, conversation, home, policy, now, _Turn(path=Path.CONFIRMATION))
        turn = job.turn
        if pending.principal_key != request.principal.key:
            turn.status, turn.final_text = (
                Status.REFUSED,
                self._phrases.say(language, "confirm.not_yours"),
            )
            return self._respond(request, conversation, turn, keep_conversation=False)
        conversation.pending = None
        if self.conversations.now() > pending.expires_at:
            turn.status, turn.final_text = (
                Status.REFUSED,
                self._phrases.say(language, "confirm.expired"),
            )
            return self._respond(request, conversation, turn)
        if no:
            turn.status, turn.final_text = (
                Status.DONE,
                self._phrases.say(language, "confirm.declined"),
            )
            return self._respond(request, conversation, turn)
        # Yes: exactly the parked call, authorised again (the policy may have changed).
        resolved = pending.resolved
        report = ActionReport(
            resolved.call.name,
            resolved.call.model_dump(exclude_none=True, mode="json"),
            entity_ids=list(resolved.entity_ids),
            service_calls=[describe(a) for a in resolved.actions],
        )
        decision = authorize(policy, request.principal, resolved, now)
        report.rule = decision.rule
        if isinstance(decision, Deny):
            report.decision, report.outcome = Decision.DENY, Outcome.REFUSED
            report.service_calls = []  # computed from state: a refusal shows none
            report.error = ErrorInfo(decision.reason.value, decision.message)
            turn.steps.append(
                _Step(report, Status.REFUSED, self._replies.refused(language, decision, home), {})
            )
        else:
            step = await self._execute(report, resolved, job, sequence="confirmed")
            turn.steps.append(step)
        self._remember(job)
        return self._respond(request, conversation, turn)

    # --- shared helpers --------------------------------------------------------------------

    def warm_recent(self, home: Home, policy: Policy, now: datetime) -> None:
        """After a change of names or rules: prepare the prompts of recent principals in the
        background (prefix snapshots are rebuilt then, never on state changes)."""
        horizon = time.monotonic() - RECENT_S
        for key, (principal, used) in list(self._recent.items()):
            if used < horizon:
                del self._recent[key]
            else:
                self.offer_for(principal, home, policy, now)

    def offer_for(self, principal: Principal, home: Home, policy: Policy, now: datetime) -> Offer:
        """The principal's tools and listing; cached until names or the policy change."""
        key = (principal.key, id(policy), home.names_key, now.hour)  # time windows: hourly
        offer = self._offers.get(key)
        if offer is None:
            offer = build_offer(scope(policy, principal, home, now), home)
            if len(self._offers) > 64:
                self._offers.clear()
            self._offers[key] = offer
            if self.planner is not None:
                self.planner.prepare(offer)
        return offer

    def _remember(self, job: _Job) -> None:
        conversation, request, turn = job.conversation, job.request, job.turn
        messages: list[dict[str, Any]] = [{"role": "user", "content": request.text}]
        calls = [
            s
            for s in turn.steps
            if s.report.decision is not Decision.NONE
            or s.report.tool in {"ask_user", "no_tool_fits"}
        ]
        if calls:
            messages.append(
                _assistant_message(tuple(RawCall(s.report.tool, s.report.arguments) for s in calls))
            )
            messages.extend(
                {"role": "tool", "content": json.dumps(_brief(s), ensure_ascii=False)}
                for s in calls
            )
        # What the agent said is not history for the model: it would copy it as an answer
        # (an error sentence became the answer to every later request). The calls and
        # their outcomes above are what the model needs for follow-ups.
        conversation.remember(messages)
        acted = [s for s in turn.steps if s.targets]
        if acted:
            conversation.last_targets = tuple(dict.fromkeys(t for s in acted for t in s.targets))
            conversation.last_tools = tuple(dict.fromkeys(s.report.tool for s in acted))

    def _speech(self, turn: _Turn) -> str:
        """Said from what happened: every step's own sentence (each executed action is
        named), the agent's fixed sentence where there was no step."""
        parts = [s.speech for s in turn.steps if s.speech]
        if turn.final_text and not parts:
            parts = [turn.final_text]
        if turn.error is not None and not parts:
            parts = [turn.error.message]
        return " ".join(parts)

    def _respond(
        self,
        request: AgentRequest,
        conversation: Conversation,
        turn: _Turn,
        *,
        keep_conversation: bool = True,
    ) -> AgentResponse:
        status = turn.status or _aggregate(turn.steps)
        speech = self._speech(turn)
        if not speech and status is Status.ERROR:
            # Every step was turned back to the model (asked for nothing the user said) and
            # it gave up: the user still hears an answer, never silence.
            speech = self._phrases.say(request.language, "errors.invalid_call")
        return AgentResponse(
            id=request.id,
            status=status,
            speech=speech,
            conversation_id=conversation.id if keep_conversation else request.conversation_id,
            actions=[s.report for s in turn.steps],
            error=turn.error or _first_error(turn.steps, status),
            path=turn.path,
            timings=turn.timings,
        )

    def _model_failure(self, request: AgentRequest, err: PlanError) -> tuple[Status, ErrorInfo]:
        """The answer when the model cannot take the request: busy, too slow, not loaded,
        too long a prompt (a clear code, never `internal`), or warming up (said with the
        progress and an estimate)."""
        match err.failure:
            case PlanFailure.WARMING_UP:
                seconds = max(1, round(err.eta_s))
                speech = self._phrases.say(
                    request.language, "errors.warming_up", percent=err.percent, seconds=seconds
                )
                return Status.WARMING_UP, ErrorInfo(err.failure.value, speech)
            case PlanFailure.BUSY:
                return Status.BUSY, self._error(request, err.failure.value)
            case PlanFailure.PROMPT_TOO_LONG:
                _LOGGER.error("Request %s: %s (context_length option)", request.id, err)
        return Status.ERROR, self._error(request, err.failure.value)

    def _error(self, request: AgentRequest, code: str) -> ErrorInfo:
        return ErrorInfo(code, self._phrases.say(request.language, f"errors.{code}"))

    def _failure(
        self,
        request: AgentRequest,
        status: Status,
        code: str,
        conversation: Conversation | None = None,
    ) -> AgentResponse:
        error = self._error(request, code)
        return AgentResponse(
            request.id,
            status,
            speech=error.message,
            error=error,
            conversation_id=conversation.id if conversation else request.conversation_id,
        )


_ENDS_TURN = frozenset({Status.NEEDS_CONFIRMATION, Status.NEEDS_CLARIFICATION, Status.REFUSED})


def _aggregate(steps: list[_Step]) -> Status:
    statuses = {s.status for s in steps}
    for status in (Status.NEEDS_CONFIRMATION, Status.NEEDS_CLARIFICATION):
        if status in statuses:
            return status
    if Status.DONE in statuses:
        return Status.DONE
    if Status.ERROR in statuses:
        return Status.ERROR
    return Status.REFUSED if statuses else Status.ERROR


def _first_error(steps: list[_Step], status: Status) -> ErrorInfo | None:
    if status in {Status.DONE, Status.NEEDS_CONFIRMATION, Status.NEEDS_CLARIFICATION}:
        return None
    return next((s.report.error for s in steps if s.report.error is not None), None)


def _assistant_message(calls: tuple[RawCall, ...]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"type": "function", "function": {"name": c.name, "arguments": dict(c.arguments)}}
            for c in calls
        ],
    }


def _or_none(
    schemas: tuple[dict[str, Any], ...], whole: tuple[dict[str, Any], ...]
) -> tuple[dict[str, Any], ...] | None:
    """None for the offer's own schemas: the planner keeps their grammar ready."""
    return None if schemas == whole else schemas


def _brief(step: _Step) -> dict[str, Any]:
    """What history keeps of a step: enough for follow-ups, not whole results."""
    brief: dict[str, Any] = {"outcome": step.report.outcome.value}
    if step.targets:
        brief["entities"] = list(step.targets)
    if step.report.error is not None:
        brief["error"] = step.report.error.code
    return brief


def _typed(raw: RawCall, *, contradicts: bool) -> Tool | ToolCallError:
    if contradicts:
        return ToolCallError(
            "contradictory_calls", "calls in one turn act on the same target in different ways"
        )
    try:
        return parse_tool_call(raw.name, raw.arguments)
    except ToolCallError as err:
        return err


def _contradicting(calls: tuple[RawCall, ...]) -> set[int]:
    """The positions of calls of one turn that name the same target but do different things
    (turn on, off and toggle of one thermostat): none of them runs."""
    by_target: dict[str, list[int]] = {}
    for number, raw in enumerate(calls):
        for key in ("entity_id", "area_id", "floor_id", "device_id", "label_id"):
            values = raw.arguments.get(key)
            for value in values if isinstance(values, list) else ():
                by_target.setdefault(f"{key}:{value}", []).append(number)
    clashing: set[int] = set()
    for group in by_target.values():
        said = {json.dumps([calls[n].name, calls[n].arguments], sort_keys=True) for n in group}
        if len(said) > 1:
            clashing.update(group)
    return clashing
