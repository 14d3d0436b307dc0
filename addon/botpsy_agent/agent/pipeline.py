"""The call pipeline: one typed call -> resolve -> authorize -> grounding and checks -> execute.

Every call, from whichever path, goes through `CallPipeline.carry_out`: pydantic validation
(already done when it is a `Tool`), target resolution within the principal's scope,
`authorize`, for the model's calls the grounding check (was it asked for?) and the call
checks, and only then the executor. A `Confirm` decision, or an ungrounded action, parks
exactly that resolved call until the same principal says yes in the same conversation in
time. Each step ends in a typed outcome (`agent/turn.py`); nothing here is said: the turn's
answer is said once, from the finished turn (`agent/answer.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
import time
from typing import Any, Protocol

from botpsy_agent.agent.conversation import Conversation, ConversationStore, PendingConfirmation
from botpsy_agent.agent.narrow_moves import recipient_names
from botpsy_agent.agent.prepare import (
    Event,
    calendar_words,
    changes_nothing,
    listed_events,
    named_events,
)
from botpsy_agent.agent.protocol import (
    ActionReport,
    AgentCode,
    AgentRequest,
    Decision,
    ErrorInfo,
    Outcome,
    Status,
)
from botpsy_agent.agent.reminder_event import reminder_as_event
from botpsy_agent.agent.replies import Replies
from botpsy_agent.agent.told import told_result
from botpsy_agent.agent.turn import (
    AskedToCheck,
    AskedToClarify,
    AskedToConfirm,
    Executed,
    Failed,
    Failure,
    HandedOff,
    NothingFits,
    Planned,
    Refused,
    Step,
    ToldTime,
    Turn,
    report_of,
)
from botpsy_agent.ha import ActionStatus, Execution, ExecutionKey, HaError, NotRunHere, call_digest
from botpsy_agent.home import (
    Entity,
    EntityFilter,
    Home,
    ResolutionError,
    ResolvedCall,
    resolve_call,
)
from botpsy_agent.llm.planning import Offer, RejectedCall
from botpsy_agent.policy import (
    Allow,
    Confirm,
    Deny,
    Policy,
    authorize,
    may_read,
    readable_result,
    usable_filter,
)
from botpsy_agent.words import (
    CallProblem,
    SaidValues,
    check_call,
    corrected_call,
    find_spoken_times,
    grounding,
    said_values,
    spans_of_content,
    unknown_device,
    unknown_reading,
    with_request_content,
)
from tool_schemas.actions import describe
from tool_schemas.assist import ASSIST_TOOLS, CurrentTime
from tool_schemas.base import Access, MappingContext, Tool
from tool_schemas.calendar import CheckFreeBusy, ListEvents, UpdateEvent
from tool_schemas.catalog import ToolCallError, parse_tool_call
from tool_schemas.conversation import AskUser
from tool_schemas.messaging import ListTodoItems, SendMessage
from tool_schemas.queries import GetState, ListEntities


class ActionRunner(Protocol):
    async def execute(self, key: ExecutionKey, resolved: ResolvedCall) -> Execution: ...


@dataclass
class Job:
    """Everything one request is decided against: one home, one policy, one moment."""

    request: AgentRequest
    conversation: Conversation
    home: Home
    policy: Policy
    now: datetime
    turn: Turn
    offer: Offer | None = None
    """What the model was offered (the model path): what a question may name, and what the
    app says it can do when no tool fits."""

    @property
    def language(self) -> str:
        return self.request.language

    @cached_property
    def calendar_words(self) -> frozenset[str]:
        """The words of the home's calendars' names: they name a calendar, not an event."""
        return calendar_words(self.home)

    def usable(self, tool: Tool) -> EntityFilter:
        """The requester's scope for `tool`: the entities they may use it on."""
        return usable_filter(self.policy, self.request.principal, tool, self.now)

    def readable(self, entity_id: str) -> bool:
        """Whether the requester may see `entity_id` in a result (issue 18, finding 9)."""
        entity = self.home.entities.get(entity_id) or Entity(entity_id, entity_id)
        return may_read(self.policy, self.request.principal, entity, self.now)

    def words(self, text: str | None = None) -> grounding.Request:
        """The request's words (or `text`, a part of them) and this conversation's
        referents, for grounding."""
        request = self.request
        return words_of(
            request.text if text is None else text,
            request.language,
            self.home,
            self.now,
            referents=frozenset(self.conversation.last_targets),
            referent_tools=frozenset(self.conversation.last_tools),
            area_id=request.area_id,
        )


def words_of(
    text: str,
    language: str,
    home: Home,
    now: datetime,
    *,
    referents: frozenset[str] = frozenset(),
    referent_tools: frozenset[str] = frozenset(),
    area_id: str | None = None,
) -> grounding.Request:
    """Words prepared for grounding: what a message, reminder or list item says in them
    (English shapes only) and the times they say, read against `now`."""
    content: tuple[str, ...] = ()
    if language.lower().startswith("en"):
        recipients = recipient_names(home, home.by_domain.get("notify", ()))
        content = spans_of_content(text, recipients)
    return grounding.Request(
        text,
        language,
        referents,
        referent_tools,
        area_id,
        content=content,
        spoken_times=find_spoken_times(text, now, language),
    )


def guess_kept(
    calls: tuple[Tool, ...],
    words: grounding.Request,
    home: Home,
    usable_for: Callable[[Tool], EntityFilter],
    now: datetime,
) -> bool:
    """Whether a guess of HA's fallback reader (`Recognized.guessed`) is what the words ask
    for, as a model's calls must be: every call resolved in the principal's scope
    (`usable_for`), grounded, with no problem the checks see, and every value said carried
    by a call (the reader may read "blue, 20 percent" and keep only the 20). Words that could
    change what was asked (a "don't", a message or reminder, a time, a duration or a step)
    leave it to the model."""
    if words.content or words.spoken_times or grounding.negates_any(words):
        return False
    if not _carries_values_said(calls, said_values(words, now)):
        return False
    for call in calls:
        try:
            resolved = resolve_call(home, call, MappingContext(now), usable_for(call))
        except ResolutionError:
            return False
        if grounding.check(resolved, words, home) is not grounding.Verdict.GROUNDED:
            return False
        if check_call(call, words.text, now, words.language, home) is not None:
            return False
    return True


def _carries_values_said(calls: tuple[Tool, ...], said: SaidValues) -> bool:
    if said.steps or said.minutes or said.days:
        return False
    carried = [call.model_dump(exclude_none=True, mode="json") for call in calls]
    numbers = {float(v) for args in carried for v in args.values() if _is_number(v)}
    colours = {str(args.get("color_name", "")).casefold() for args in carried}
    return all(
        float(level) in numbers for level in (*said.levels, *said.degrees, *said.whites)
    ) and all(colour.casefold() in colours for colour in said.colours)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


ENDS_TURN = frozenset({Status.NEEDS_CONFIRMATION, Status.NEEDS_CLARIFICATION, Status.REFUSED})


class CallPipeline:
    """Decides and runs one call at a time for a job."""

    def __init__(
        self,
        executor: ActionRunner,
        replies: Replies,
        conversations: ConversationStore,
        confirm_ttl_s: float,
    ) -> None:
        self._executor = executor
        self._replies = replies
        self._conversations = conversations
        self._confirm_ttl_s = confirm_ttl_s

    def invalid(self, name: str, arguments: dict[str, object], err: ToolCallError) -> Step:
        """A model call that did not parse (or contradicted another): told, never run."""
        report = ActionReport(
            name,
            dict(arguments),
            decision=Decision.NONE,
            outcome=Outcome.FAILED,
            error=ErrorInfo(err.code, err.message),
        )
        return Step(
            report,
            Status.ERROR,
            Failed(Failure.INVALID_CALL, name),
            {"error": {"code": err.code, "message": err.message}},
        )

    def rejected(self, rejected: RejectedCall) -> Step:
        """A call outside the grammar (a fake or intercepted model server): never run."""
        report = ActionReport(
            rejected.call.name,
            dict(rejected.call.arguments),
            decision=Decision.NONE,
            outcome=Outcome.FAILED,
            error=ErrorInfo(AgentCode.OUTSIDE_GRAMMAR, rejected.reason),
        )
        failed = Failed(Failure.INVALID_CALL, rejected.call.name)
        return Step(report, Status.ERROR, failed, {"error": {"code": AgentCode.OUTSIDE_GRAMMAR}})

    async def carry_out(self, call: Tool, job: Job, words: grounding.Request | None = None) -> Step:
        """`words`: check that the request asked for this call (the model's calls); None for
        calls recognised from the words themselves (the fast path)."""
        request, home, policy, now = job.request, job.home, job.policy, job.now
        if words is not None and isinstance(call, SendMessage):
            call = _to_the_one_named(call, words, home)
        if call.access is Access.CONTROL:  # the fast path's guesses too (HA's fallback reader)
            call = _to_the_entity_named(call, words or job.words(), home)
        if words is not None:
            # a reminder for later, posted as a notification for now: the entry it asks for
            call = reminder_as_event(call, words, home, now, job.usable) or call
            # the request's own content span, where code can read it (D68)
            recipient = home.entities.get(str(getattr(call, "recipient", "")))
            names = (recipient.name, *recipient.aliases) if recipient is not None else ()
            call = with_request_content(call, request.text, now, request.language, names)
        arguments = call.model_dump(exclude_none=True, mode="json")
        report = ActionReport(call.name, arguments)
        if isinstance(call, AskUser):
            return self._ask(report, call, job, words)
        if call.name == "no_tool_fits":
            return self.no_tool_fits(report, job, str(arguments["reason"]))

        try:
            resolved = resolve_call(
                home, call, MappingContext(now), usable_filter(policy, request.principal, call, now)
            )
        except ResolutionError as err:
            if thing := _asked_of_nothing(call, words, home) or _sensor_of_nothing(
                call, words or job.words()
            ):
                # No device of that kind: the question's thing is none this home reads
                # (dev no-reading-1: "I don't know which device you mean.", an error).
                return self.no_such_device(report, thing, reading=True)
            report.decision, report.outcome = Decision.NONE, Outcome.FAILED
            report.error = ErrorInfo(err.code, err.message)
            return Step(
                report,
                Status.ERROR,
                Failed(Failure.UNKNOWN_TARGET, call.name),
                {"error": {"code": err.code, "message": err.message}},
            )
        return await self.decide(report_of(resolved), resolved, job, words)

    @staticmethod
    def guess_kept(calls: tuple[Tool, ...], job: Job) -> bool:
        """See `guess_kept`, in the job's principal's scope."""

        return guess_kept(calls, job.words(), job.home, job.usable, job.now)

    async def decide(
        self,
        report: ActionReport,
        resolved: ResolvedCall,
        job: Job,
        words: grounding.Request | None,
    ) -> Step:
        """Authorise, check grounding, then execute, ask, or refuse."""
        request, home, call = job.request, job.home, resolved.call
        decision = authorize(job.policy, request.principal, resolved, job.now)
        report.rule = decision.rule
        if isinstance(decision, Deny):
            return self.refused(report, decision, resolved.entity_ids)
        verdict = grounding.Verdict.GROUNDED
        listed = _listed_events(job) if words is not None or isinstance(call, UpdateEvent) else []
        if words is not None:
            verdict = grounding.check(resolved, words, home, _events_named(job, words, listed))
        if isinstance(call, UpdateEvent) and changes_nothing(call, listed, MappingContext(job.now)):
            verdict = grounding.Verdict.UNRELATED  # no change: never said to have been made
        if (unasked := self._unasked(report, resolved, verdict, job, words)) is not None:
            return unasked
        if verdict is grounding.Verdict.ASK and isinstance(call, SendMessage):
            return self._ask_whom(report, job, words)
        if verdict is grounding.Verdict.ASK and isinstance(decision, Allow):
            # Allowed, but not asked for: ask first, naming exactly what would be done.
            decision = Confirm("ungrounded." + call.name, "grounding", resolved.entity_ids)
        elif words is not None and (
            problem := check_call(call, request.text, job.now, job.language, home)
        ):
            return await self._checked(report, resolved, problem, job)
        if isinstance(decision, Allow):
            return await self.execute(report, resolved, job)
        return self._park(report, resolved, decision, job)

    def _unasked(
        self,
        report: ActionReport,
        resolved: ResolvedCall,
        verdict: grounding.Verdict,
        job: Job,
        words: grounding.Request | None,
    ) -> Step | None:
        """The step for a call the request did not ask for; None when it did, or half did
        (then the call is asked about, unless the request named a device the home lacks)."""
        match verdict:
            case grounding.Verdict.ASK if words is not None and (
                device := unknown_device(resolved.call.name, words, job.home, resolved.targets)
            ):
                return self.no_such_device(report, device)
            case (
                grounding.Verdict.GROUNDED | grounding.Verdict.ASK | grounding.Verdict.UNRELATED
            ) if thing := _thing_not_read(verdict, resolved.call, words, job.home):
                return self.no_such_device(report, thing, reading=True)
            case grounding.Verdict.NO_HOME_INTENT:
                report.error = ErrorInfo(
                    AgentCode.NOT_ASKED, "the request asks for nothing of the kind"
                )
                return self.no_tool_fits(report, job, "not asked for")
            case grounding.Verdict.BORROWED:
                report.error = ErrorInfo(
                    AgentCode.BORROWED_VERB, "the request asks this of something else"
                )
                return self.no_tool_fits(report, job, "asked of something no tool here does")
            case grounding.Verdict.UNRELATED:
                # Not worth a question ("cancel the piano lesson" -> close the blinds): the
                # model is told the call does not fit the request and may choose again.
                report.decision, report.outcome = Decision.NONE, Outcome.FAILED
                report.error = ErrorInfo(AgentCode.NOT_ASKED, "the request did not ask for this")
                failed = Failed(Failure.NOT_ASKED, resolved.call.name, resolved.entity_ids)
                return Step(report, Status.ERROR, failed, {"error": {"code": AgentCode.NOT_ASKED}})
        return None

    @staticmethod
    def refused(report: ActionReport, decision: Deny, targets: tuple[str, ...]) -> Step:
        # The service calls were computed from the entity's state: a refusal shows none.
        report.decision, report.outcome = Decision.DENY, Outcome.REFUSED
        report.service_calls = []
        report.error = ErrorInfo(decision.reason.value, decision.message)
        return Step(
            report,
            Status.REFUSED,
            Refused(decision),
            {"refused": decision.reason.value},
            targets=targets,
        )

    async def _checked(
        self, report: ActionReport, resolved: ResolvedCall, problem: CallProblem, job: Job
    ) -> Step:
        """A model call that disagrees with a time or direction the request fixed: never run
        as proposed. A time has one correction, which a read runs, and an action too when
        the request said that one time; otherwise it is asked about, as is anything else."""
        request, home, language = job.request, job.home, job.language
        values = {"targets": self._replies.names(language, home, resolved.entity_ids)}
        values |= dict(problem.values)
        asked = AskedToCheck(problem.phrase, values)
        report.error = ErrorInfo(
            problem.code, self._replies.phrases.say(language, problem.phrase, **values)
        )
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
            return Step(report, Status.NEEDS_CLARIFICATION, asked, {"asked": report.error.message})
        decision = authorize(job.policy, request.principal, fixed, job.now)
        fixed_report = report_of(fixed, decision.rule)
        if isinstance(decision, Allow) and (fixed.call.access is Access.READ or problem.settled):
            return await self.execute(fixed_report, fixed, job)
        if isinstance(decision, Deny):
            return await self.decide(fixed_report, fixed, job, None)
        confirm = Confirm(problem.phrase, "checks", fixed.entity_ids)
        return self._park(fixed_report, fixed, confirm, job, asked=asked)

    def _park(
        self,
        report: ActionReport,
        resolved: ResolvedCall,
        decision: Confirm,
        job: Job,
        *,
        asked: AskedToCheck | None = None,
    ) -> Step:
        """Keep exactly this call until its principal says yes; ask the question."""
        request = job.request
        report.decision, report.outcome = Decision.CONFIRM, Outcome.PENDING_CONFIRMATION
        report.rule = decision.rule
        if not request.dry_run:
            job.conversation.pending = PendingConfirmation(
                resolved,
                decision.question,
                decision.rule,
                request.principal.key,
                request.id,
                self._conversations.now() + self._confirm_ttl_s,
            )
        return Step(
            report,
            Status.NEEDS_CONFIRMATION,
            asked or AskedToConfirm(decision, resolved.call),
            {"needs_confirmation": True},
            targets=resolved.entity_ids,
        )

    def _ask_whom(self, report: ActionReport, job: Job, words: grounding.Request | None) -> Step:
        """A message to someone the request did not name: the person is the model's guess,
        so the app asks who (among those the model may write to), or, when the request
        asks for no message at all, says what it can do. The real 0.5B offered to send
        "I'm sick" to Anna for "send an email to my boss saying I'm sick" (dev
        no-tool-email), and a haiku to Anna for "write a haiku about rain"."""
        report.decision = Decision.NONE  # not run, nor put to the user as it is
        report.error = ErrorInfo(AgentCode.NOT_ASKED, "the request names nobody to send it to")
        offered = job.offer.entity_ids if job.offer is not None else frozenset()
        recipients = sorted(e for e in offered if e.startswith("notify."))[:4]
        question = AskUser(missing="recipient", candidates=recipients or None)
        return self._ask(report, question, job, words)

    def _ask(
        self, report: ActionReport, call: AskUser, job: Job, words: grounding.Request | None
    ) -> Step:
        """The app's question for what the model says is missing (issue 25, finding 5: the
        model's own question was spoken, so planted text could ask for the alarm PIN). A
        request that asks nothing of the home, or nothing that needs what is missing, is
        told what the app can do, not asked (issue 27)."""
        if words is not None and not (
            grounding.has_home_intent(words, job.home)
            and grounding.asks_for(words, job.home, call.missing)
        ):
            # Also a question the request gives no reason for ("For when?" to a booking,
            # or repeated from an earlier turn): it would promise what the app cannot do.
            return self.no_tool_fits(report, job, "nothing the app does asked")
        report.outcome = Outcome.PLANNED
        may_name = job.offer.entity_ids if job.offer is not None else frozenset()
        return Step(
            report,
            Status.NEEDS_CLARIFICATION,
            AskedToClarify(call, frozenset(may_name)),
            {"asked": call.missing},
        )

    @staticmethod
    def no_tool_fits(report: ActionReport, job: Job, reason: str) -> Step:
        # The reason is the model's text: kept in the report, never spoken (it could claim
        # something happened). What is said is what the app can do for this user.
        report.outcome, report.decision = Outcome.REFUSED, Decision.NONE
        offer = job.offer
        tools = offer.tool_names if offer is not None else ()
        offered = frozenset(offer.entity_ids) if offer is not None else frozenset()
        return Step(report, Status.REFUSED, NothingFits(tuple(tools), offered), {"refused": reason})

    @staticmethod
    def no_such_device(report: ActionReport, device: str, *, reading: bool = False) -> Step:
        """The request names a device the home does not have, or asks about a thing none of
        its devices reads (`reading`): said so, in its own words, and the model's stand-in
        is neither asked about nor read out (`words/unknown_device.py`)."""
        report.outcome, report.decision = Outcome.REFUSED, Decision.NONE
        why = "nothing in the home reads that" if reading else "the home has no device of that name"
        report.error = ErrorInfo(AgentCode.NO_SUCH_DEVICE, why)
        failure = Failure.NO_SUCH_READING if reading else Failure.NO_SUCH_DEVICE
        failed = Failed(failure, report.tool, message=device)
        return Step(report, Status.REFUSED, failed, {"refused": "no such device"})

    async def execute(
        self, report: ActionReport, resolved: ResolvedCall, job: Job, sequence: str | None = None
    ) -> Step:
        request, turn, call = job.request, job.turn, resolved.call
        report.decision = Decision.ALLOW
        is_read = call.access is Access.READ
        if isinstance(call, ASSIST_TOOLS):
            return self._assist(report, resolved, job)
        if request.dry_run:
            report.outcome = Outcome.PLANNED
            return Step(
                report,
                Status.DONE,
                Planned(resolved),
                {"planned": True},
                is_read,
                resolved.entity_ids,
            )
        started = time.monotonic()
        digest = call_digest(resolved)
        number = sequence or f"{turn.executions[digest]}"
        turn.executions[digest] += 1
        key = ExecutionKey(request.principal.key, request.id, number)
        execution = await self._executor.execute(key, resolved)
        turn.timings.ha_ms += (time.monotonic() - started) * 1000
        report.result = readable_result(result_of(execution), job.readable)
        if execution.status is not ActionStatus.DONE:
            error = ErrorInfo(AgentCode.OUTCOME_UNKNOWN, "HA did not answer in time")
            if execution.error is not None:
                error = error_of(execution.error)
            report.outcome, report.error = Outcome.FAILED, error
            return Step(
                report,
                Status.ERROR,
                Failed(Failure.HA, call.name, resolved.entity_ids, error.message),
                {"error": {"code": error.code, "message": error.message}},
                is_read,
                resolved.entity_ids,
            )
        report.outcome = Outcome.EXECUTED
        return Step(
            report,
            Status.DONE,
            Executed(resolved, execution),
            {"result": told_result(report.result)},
            is_read,
            resolved.entity_ids,
        )

    @staticmethod
    def _assist(report: ActionReport, resolved: ResolvedCall, job: Job) -> Step:
        """HA's own intents: the time and date are said by the app; a timer or a broadcast is
        handed to HA's Assist for the voice device that heard it (the integration runs HA's
        intent handler for that device), and plainly refused where there is none (plain MQTT)."""
        call, is_read = resolved.call, resolved.call.access is Access.READ
        if isinstance(call, CurrentTime):
            report.outcome, report.result = Outcome.EXECUTED, {"now": job.now.isoformat()}
            return Step(
                report, Status.DONE, ToldTime(call.what), {"result": report.result}, is_read
            )
        if job.request.dry_run:
            report.outcome = Outcome.PLANNED
            return Step(report, Status.DONE, Planned(resolved), {"planned": True}, is_read)
        if job.request.device_id is None:
            # Not a failure: a request the app cannot carry out here, refused with the
            # reason (as a request no tool fits is), so nothing went wrong to retry.
            report.decision, report.outcome = Decision.NONE, Outcome.REFUSED
            report.error = ErrorInfo(AgentCode.NEEDS_VOICE_DEVICE, "timers need a voice device")
            return Step(
                report,
                Status.REFUSED,
                Failed(Failure.NEEDS_VOICE_DEVICE, call.name),
                {"error": {"code": "needs_voice_device"}},
            )
        report.outcome = Outcome.HANDED_OFF
        job.turn.handoff = describe(resolved.actions[0])
        return Step(report, Status.DONE, HandedOff(), {"handed_off": True}, is_read)


def error_of(err: HaError) -> ErrorInfo:
    """An HA failure as an answer says it: HA's code as `ha_<code>` (docs/mqtt-api.md), and
    whether it may have happened all the same."""
    if isinstance(err, NotRunHere):
        return ErrorInfo(AgentCode.HANDED_TO_ASSIST, err.message)
    if err.outcome_unknown:
        message = f"{err.message}; it may or may not have happened, and was not retried"
        return ErrorInfo(f"ha_{err.code}", message)
    return ErrorInfo(f"ha_{err.code}", err.message)


def result_of(execution: Execution) -> dict[str, Any]:
    """The execution as an action's `result` shows it, each failure as `error_of` says it."""
    result = execution.to_json()
    for action, outcome in zip(result["actions"], execution.outcomes, strict=True):
        if outcome.error is not None:
            error = error_of(outcome.error)
            action["error"] = {"code": error.code, "message": error.message}
    return result


def _to_the_one_named(call: SendMessage, words: grounding.Request, home: Home) -> Tool:
    """The message for the one recipient the request names, where the model sent it again
    to the one before: "and could Sam get that same message?" (reworded
    followup-message-same~r5: the 0.5B sent it to Anna again, whom "that" points back at).
    Only then: any other recipient is grounding's to refuse. The call is checked as any
    other."""
    named = grounding.recipients_named(words, home)
    if len(named) != 1 or call.recipient in named or call.recipient not in words.referents:
        return call
    arguments = call.model_dump(exclude_none=True, mode="json")
    try:
        return parse_tool_call(call.name, {**arguments, "recipient": next(iter(named))})
    except ToolCallError:
        return call


_PLACE_FIELDS = ("area_id", "floor_id", "domain", "device_class")


def _to_the_entity_named(call: Tool, words: grounding.Request, home: Home) -> Tool:
    """A call on a room's devices of a kind, where the request names one of them by its own
    name: that one ("get the kitchen light on for me please" is the Kitchen light, not the
    counter lights beside it; reworded kitchen-then-off~r6: the 0.5B switched on both, as
    HA's own agent, which matches names before areas, would not)."""
    spec = call.target_fields()
    if spec is None or spec.entity_id or not (spec.area_id or spec.floor_id) or not spec.domain:
        return call
    places = set(spec.area_id or ()) | set(spec.floor_id or ())
    named = [
        e.entity_id
        for e in home.entities.values()
        if e.domain in spec.domain
        and (e.area_id in places or e.floor_id in places)
        and any(words.says_exactly(n) for n in (e.name, *e.aliases))
    ]
    if len(named) != 1:
        return call
    arguments = call.model_dump(exclude_none=True, mode="json")
    for place_field in _PLACE_FIELDS:
        arguments.pop(place_field, None)
    try:
        return parse_tool_call(call.name, {**arguments, "entity_id": named})
    except ToolCallError:
        return call


def _thing_not_read(
    verdict: grounding.Verdict, call: Tool, words: grounding.Request | None, home: Home
) -> str | None:
    """What a question asks about that no device here reads, when `call` answers it with
    something else: the states of other things (a read that is grounded), or an action the
    question did not ask for ("feeling dizzy here, could carbon monoxide be building up
    around the kitchen": reworded no-reading-0~r9, the 0.5B would open the blinds)."""
    if verdict is grounding.Verdict.GROUNDED:
        return _asked_of_nothing(call, words, home)
    if words is None or not words.is_question or grounding.speaks_of_time_or_lists(words):
        return None  # "what time is the piano lesson" asks the calendar, which may answer
    return unknown_reading(words, home)


def _asked_of_nothing(call: Tool, words: grounding.Request | None, home: Home) -> str | None:
    """The thing a question asks about that no device of the home reads, when `call` reads
    device states in its place, or the calendar or a list for a question that speaks of no
    time and no list (`words/unknown_device.py`; dev, reworded no-reading-2: "is there
    still room in the mailbox" was answered with the evening's family dinner)."""
    if words is None:
        return None
    if isinstance(call, GetState | ListEntities) or (
        isinstance(call, ListEvents | CheckFreeBusy | ListTodoItems)
        and not grounding.speaks_of_time_or_lists(words)
    ):
        return unknown_reading(words, home)
    return None


def _sensor_of_nothing(call: Tool, words: grounding.Request) -> str | None:
    """The kind of sensor a question says, when a read of that kind (the fast path's or the
    model's) matched no device: "is there any carbon monoxide in the kitchen?" where no such
    sensor is (dev, reworded no-reading-0: "I don't know which device you mean.", an
    error)."""
    if not words.is_question or not isinstance(call, GetState | ListEntities):
        return None
    kinds = (k.replace("_", " ") for k in getattr(call, "device_class", None) or ())
    return next((kind for kind in kinds if words.says(kind)), None)


def _listed_events(job: Job) -> list[Event]:
    return [e for step in job.turn.steps for e in listed_events(step.feedback)]


def _events_named(job: Job, words: grounding.Request, listed: list[Event]) -> frozenset[str]:
    """The uids of the events this turn listed (`listed`) that the request names."""
    named = named_events(listed, words, job.conversation.last_listed, job.calendar_words)
    return frozenset(e.uid for e in named)
