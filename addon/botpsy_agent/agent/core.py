"""The agent loop: request -> fast path or model -> typed calls -> the call pipeline -> answer.

Each call goes through the call pipeline (`agent/pipeline.py`: resolve, authorize, grounding
and checks, execute); a bare "yes"/"no" to a parked call is answered by `agent/pending.py`.
Each step of a turn ends in a typed outcome, and the answer is said once, from the finished
turn (`agent/answer.py`). Failures go back to the model, which may take a corrective step
(bounded).

The turn protocol (docs/decisions.md): the model's first step of a request can only be tool
calls (`no_tool_fits` and `ask_user` are always offered), and what the user hears is said from
what was executed, never from the model's text: text cannot claim an action.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, replace
from datetime import datetime
import json
import logging
import time
from typing import Any

from botpsy_agent.agent.answer import say_turn
from botpsy_agent.agent.conversation import (
    CONFIRM_TTL_S,
    Conversation,
    ConversationStore,
)
from botpsy_agent.agent.left import more_asked, part_left
from botpsy_agent.agent.list_items import every_item, for_items, list_to_read, listed_items
from botpsy_agent.agent.narrowing import (
    listed_uids,
    narrowed_schemas,
    with_listed_uids,
    without_reads_run,
    without_targets_done,
)
from botpsy_agent.agent.offer import build_offer
from botpsy_agent.agent.out_of_reach import out_of_reach
from botpsy_agent.agent.pending import PendingAnswers
from botpsy_agent.agent.pipeline import ENDS_TURN, ActionRunner, CallPipeline, Job
from botpsy_agent.agent.prepare import (
    Event,
    asked_about,
    for_events,
    listed_events,
    listing_call,
    named_events,
    needs_listing,
    shown_of_listing,
    with_whole_uids,
)
from botpsy_agent.agent.protocol import (
    ActionReport,
    AgentCode,
    AgentRequest,
    AgentResponse,
    Decision,
    ErrorInfo,
    Path,
    Status,
)
from botpsy_agent.agent.replies import Replies
from botpsy_agent.agent.speech import Phrasebook
from botpsy_agent.agent.told import told_arguments
from botpsy_agent.agent.turn import Answered, Closing, Executed, Failed, Failure, Step, Turn
from botpsy_agent.home import Home
from botpsy_agent.llm.planning import (
    Offer,
    PlanError,
    PlanFailure,
    Planner,
    PlannerTurn,
    PlanRequest,
    RawCall,
    StepTimings,
    request_context,
)
from botpsy_agent.policy import (
    Policy,
    Principal,
    scope,
)
from botpsy_agent.words import (
    KINDS,
    FastPath,
    Recognized,
    SaidValues,
    grounding,
    items_said,
    said_off_then_asked,
    said_values,
    separate_items,
)
from tool_schemas.base import Access, Tool
from tool_schemas.catalog import ToolCallError, parse_tool_call

_LOGGER = logging.getLogger(__name__)

RECENT_S = 24 * 3600.0

__all__ = ["ActionRunner", "AgentSettings", "BotPsyAgent"]


@dataclass(frozen=True)
class AgentSettings:
    max_steps: int = 4
    confirm_ttl_s: float = CONFIRM_TTL_S


@dataclass
class _Question:
    """What a model step is asked: the messages, the words its grammar is narrowed to, and
    whether it may only call (a first step) or also answer."""

    messages: list[dict[str, Any]]
    words: grounding.Request
    schemas: tuple[dict[str, Any], ...]
    values: SaidValues
    calls_only: bool = True


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
        ha_unready: Callable[[], Awaitable[AgentCode | None]] | None = None,
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
        self._pipeline = CallPipeline(
            executor, self._replies, self.conversations, self.settings.confirm_ttl_s
        )
        self._pending = PendingAnswers(phrases, self.conversations, self._pipeline)
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
            return self._failure(request, Status.ERROR, AgentCode.INTERNAL_ERROR)

    async def _handle(self, request: AgentRequest) -> AgentResponse:
        if not self._phrases.supports(request.language):
            return self._failure(request, Status.ERROR, AgentCode.UNKNOWN_LANGUAGE)
        if self._ha_unready is not None and (unready := await self._ha_unready()) is not None:
            return self._failure(request, Status.ERROR, unready)
        home, policy, now = self._home(), self._policy(), self._clock()
        waiting = self.conversations.pending_for(request.conversation_id)
        if waiting is not None:
            answered = await self._pending.answer(request, waiting, home, policy, now)
            if answered is not None:
                if answered.turn.steps:
                    self._remember(answered)
                return self._respond(answered)
        conversation = self.conversations.open(
            request.conversation_id, request.principal, request.language
        )
        conversation.pending = None  # a new request replaces an unanswered question

        job = Job(request, conversation, home, policy, now, Turn())
        turn = job.turn
        started = time.monotonic()
        recognized = self._recognized(job)
        turn.timings.fast_path_ms = (time.monotonic() - started) * 1000
        if recognized is not None:
            turn.path = Path.FAST_PATH
            if recognized.nevermind:
                turn.closing, turn.status = Closing("nevermind", recognized.reply), Status.DONE
            for call in recognized.calls:
                step = await self._pipeline.carry_out(call, job)
                asked = recognized.question is not None or recognized.reading is not None
                if asked and isinstance(step.outcome, Executed):
                    # "Yes" / "No, it is open" / "Heatpump: 25 °C", from the states the read gave
                    step.outcome = Answered(
                        step.outcome,
                        recognized.question,
                        step.report.result,
                        reading=recognized.reading,
                    )
                turn.steps.append(step)
                if step.status is not Status.DONE:
                    break
        elif self.planner is None:
            return self._failure(request, Status.ERROR, AgentCode.MODEL_UNAVAILABLE, conversation)
        else:
            turn.path = Path.MODEL
            started = time.monotonic()
            await self._model_turn(job)
            # What the loop spent beside the model and HA: narrowing, resolving, policy,
            # grounding, checks.
            spent = (time.monotonic() - started) * 1000
            turn.timings.checks_ms = max(0.0, spent - turn.timings.model_ms - turn.timings.ha_ms)
        self._remember(job)
        return self._respond(job)

    def _recognized(self, job: Job) -> Recognized | None:
        """What the fast path understood; a guess of HA's fallback reader only where the
        words ask for every call it makes (the model has the rest)."""
        request = job.request
        recognized = self._fast_path.recognize(
            request.text, request.language, job.home, area_id=request.area_id
        )
        if recognized is not None and recognized.nevermind and _cancels_what_was_listed(job):
            return None  # the model has it: the event, not the conversation
        if recognized is None or not recognized.guessed:
            return recognized
        return recognized if self._pipeline.guess_kept(recognized.calls, job) else None

    # --- the model loop ------------------------------------------------------------------------

    async def _model_turn(self, job: Job) -> None:
        await self._model_loop(job)
        turn = job.turn
        if (
            turn.status is None
            and _nothing_asked_ran(turn.steps)
            and not grounding.named_entities(job.words(), job.home, by_a_word=False)
        ):
            # Nothing of the home named either: no tool fits. (A request naming a device,
            # "did someone leave the bed light on", was about something the app has; a word
            # of a name is not enough: "translate good morning into French" is about no
            # "Good night" script (`make demo` at d17f57f said "I couldn't work out how to
            # do that.").)
            turn.steps = [self._as_nothing_fits(step, job) for step in turn.steps]

    async def _model_loop(self, job: Job) -> None:
        assert self.planner is not None
        request, turn = job.request, job.turn
        job.offer = self.offer_for(request.principal, job.home, job.policy, job.now)
        self._recent[request.principal.key] = (request.principal, time.monotonic())
        denied = out_of_reach(job.words(), job.home, job.policy, request.principal, job.now)
        if denied is not None:
            report = ActionReport(
                denied.tool, {"entity_id": [denied.entity_id]}, entity_ids=[denied.entity_id]
            )
            turn.steps.append(self._pipeline.refused(report, denied.denial, (denied.entity_id,)))
            return
        question = self._question(job, request.text)
        question.messages += await self._prepare_listing(job, question)
        made: set[str] = set()
        focused: set[str] = set()
        for step_number in range(self.settings.max_steps):
            plan = await self._plan_step(job, question, step_number)
            if plan is None:
                return
            calls = _not_made_yet(plan.calls, made)
            if plan.calls and not calls:
                break  # the same calls again: no progress, and each would be said again
            if not calls:
                # The model's words after tool results end the turn; they are not spoken:
                # the answer is said from the results (the phrasebook), so it cannot claim
                # what did not happen. Without any step, there is nothing to say but that.
                if not turn.steps:
                    turn.status, turn.error = (
                        Status.ERROR,
                        self._error(request, AgentCode.INVALID_CALL),
                    )
                return
            steps = await self._run_calls(calls, job)
            turn.steps.extend(steps)
            if any(s.status in ENDS_TURN for s in steps):
                return
            if all(s.status is Status.DONE and not s.is_read for s in steps):
                if not more_asked(job):
                    return  # done: the outcome is said from the phrasebook, no extra model step
                if (part := part_left(job, focused)) is not None:
                    # The model is asked about the part left alone, as a first step: a
                    # small model answers in words after one part of "X and tell Anna Y".
                    focused.add(part)
                    question = self._question(job, part)
                    continue
            if all(s.status is Status.DONE for s in steps) and (
                not _offers_action(question.schemas)
                or (
                    all(s.is_read for s in steps)
                    and not _offers_action(self._step_schemas(job, question))
                )
            ):
                # Only reads, and no action on offer for the next step: the answer is said
                # from what was read; another step could only read again or write words
                # nobody hears. What was read may have taken the action off: a change to an
                # event needs one the request names ("read me the week's events": the
                # real 0.5B's step after the listing took 1.4-3.2 s for unspoken words).
                return
            question.calls_only = False
            question.messages.append(_assistant_message(calls))
            question.messages.extend(
                {"role": "tool", "content": json.dumps(s.feedback, ensure_ascii=False)}
                for s in steps
            )
        if not any(s.status is Status.DONE and not s.prepared for s in turn.steps):
            turn.status, turn.error = Status.ERROR, self._error(request, AgentCode.STEP_LIMIT)

    def _question(self, job: Job, text: str) -> _Question:
        """A first step about `text` (the request, or the part of it left): the
        conversation so far, then `text`, with the grammar narrowed to its words."""
        assert job.offer is not None
        words = job.words(text)
        narrowed = narrowed_schemas(
            job.offer, words, job.home, job.now, job.conversation.last_settings
        )
        return _Question(
            [*job.conversation.history, self._user_message(job, text)],
            words,
            narrowed or job.offer.schemas,
            said_values(words, job.now),
        )

    @staticmethod
    def _step_schemas(job: Job, question: _Question) -> tuple[dict[str, Any], ...]:
        """What the next step may call: the question's schemas after what this turn has
        read and done (the events listed, the items read, the targets acted on)."""
        turn, words = job.turn, question.words
        uids = frozenset().union(*(listed_uids(s.feedback) for s in turn.steps))
        named: list[Event] = []
        if any(s.prepared for s in turn.steps):
            # The app listed the events: a change is offered for those the request
            # names, or for none.
            events = [e for s in turn.steps for e in listed_events(s.feedback)]
            named = named_events(events, words, job.conversation.last_listed, job.calendar_words)
            uids = frozenset(e.uid for e in named)
        ran = frozenset(s.report.tool for s in turn.steps if s.is_read and s.status is Status.DONE)
        return without_targets_done(
            without_reads_run(
                for_items(
                    for_events(
                        with_listed_uids(question.schemas, uids), named, words, question.values
                    ),
                    _items_read(turn.steps),
                    words,
                ),
                ran,
            ),
            _targets_done(turn.steps),
        )

    async def _plan_step(
        self, job: Job, question: _Question, step_number: int
    ) -> PlannerTurn | None:
        """The model's calls for this step, or None when the turn ends here (the model
        failed, or ignored its grammar): the turn then says why."""
        assert self.planner is not None and job.offer is not None
        request, turn = job.request, job.turn
        schemas = self._step_schemas(job, question)
        asked = time.monotonic()
        try:
            plan = await self.planner.plan(
                PlanRequest(
                    job.offer,
                    tuple(question.messages),
                    request.language,
                    request.id,
                    step_number,
                    calls_only=question.calls_only,
                    schemas=_or_none(schemas, job.offer.schemas),
                )
            )
        except PlanError as err:
            waited = (time.monotonic() - asked) * 1000  # a timeout's minute is the model's
            turn.timings.model_ms += waited
            turn.timings.steps.append(StepTimings(step_number, total_ms=waited))
            turn.status, turn.error = self._model_failure(request, err)
            return None
        turn.timings.model_ms += plan.model_ms
        turn.timings.steps.append(plan.timings)
        if plan.rejected:
            # The model ignored its grammar (a fake or intercepted model server): its
            # turn is reported, never run, and nothing more is asked of it.
            turn.steps.extend(self._pipeline.rejected(r) for r in plan.rejected)
            return None
        return plan

    @staticmethod
    def _user_message(job: Job, text: str) -> dict[str, Any]:
        """What the model reads of the user: the clock and the speaker's room, then `text`."""
        home = job.home
        area_id = job.request.area_id
        area = home.areas[area_id].name if area_id is not None and area_id in home.areas else None
        return {"role": "user", "content": f"{request_context(job.now, area_name=area)} {text}"}

    async def _prepare_listing(self, job: Job, question: _Question) -> list[dict[str, Any]]:
        """Read the events or list items a change on offer needs first, as the app's own
        read (`agent/prepare.py`, `agent/list_items.py`): the messages that show the model
        the listing; none when no such change is on offer."""
        schemas = question.schemas
        call = (
            listing_call(job.now)
            if needs_listing(schemas, question.words)
            else list_to_read(schemas, question.words)
        )
        if call is None:
            return []
        step = await self._pipeline.carry_out(call, job)
        step.prepared = True
        job.turn.steps.append(step)
        if step.status is not Status.DONE:
            return []
        shown = shown_of_listing(
            step.feedback, question.words, job.conversation.last_listed, job.calendar_words
        )
        if shown is None:
            return []
        raw = RawCall(call.name, call.model_dump(exclude_none=True, mode="json"))
        return [
            _assistant_message((raw,)),
            {"role": "tool", "content": json.dumps(shown, ensure_ascii=False)},
        ]

    async def _run_calls(self, calls: tuple[RawCall, ...], job: Job) -> list[Step]:
        steps: list[Step] = []
        words = job.words()
        calls = _items_apart(calls, job.request.text)
        calls = every_item(calls, _items_read(job.turn.steps), words)
        calls = with_whole_uids(calls, _events_prepared(job.turn.steps))
        calls = _without_lights_set_too(calls)
        said_off = _what_was_said_off(calls, said_off_then_asked(words, job.home))
        calls = said_off + calls
        contradicting = _contradicting(calls)
        for number, raw in enumerate(calls):
            if _nothing_missing(raw, [*job.turn.steps, *steps], words, job.home):
                continue
            call = _typed(raw, contradicts=number in contradicting)
            if isinstance(call, ToolCallError):
                steps.append(self._pipeline.invalid(raw.name, dict(raw.arguments), call))
                continue
            # The app's own calls are read from the words, as the fast path's are: only
            # the permission check applies to them.
            asked = None if number < len(said_off) else words
            step = await self._pipeline.carry_out(call, job, asked)
            steps.append(step)
            if step.status in ENDS_TURN:
                break
        return steps

    # --- confirmation answers --------------------------------------------------------------

    def admits_answer(self, request: AgentRequest) -> bool:
        """See `PendingAnswers.admits`: a bare yes/no to this conversation's question."""
        return self._pending.admits(request)

    # --- shared helpers --------------------------------------------------------------------

    def warm_fast_path(self, home: Home) -> None:
        """Load the fast path's intents of every language the app speaks and build the
        home's name lists: at start and after a change of names, not in a request."""
        self._fast_path.prepare(home, self._phrases.languages)

    def warm_recent(self, home: Home, policy: Policy, now: datetime) -> None:
        """After a change of names or rules: prepare the prompts of recent principals in the
        background (prefix snapshots are rebuilt then, never on state changes)."""
        horizon = time.monotonic() - RECENT_S
        for key, (principal, used) in list(self._recent.items()):
            if used < horizon:
                del self._recent[key]
            else:
                self.offer_for(principal, home, policy, now)

    def warm_people(
        self, principals: Iterable[Principal], home: Home, policy: Policy, now: datetime
    ) -> None:
        """Once the model is ready: prepare the prompts of the home's people in the
        background, so that no one's first request waits for its prefix (11-12 s with the
        real 0.5B on 2 cores, in the turn); they count as recent, so a change of names
        prepares them again."""
        used = time.monotonic()
        for principal in principals:
            self._recent.setdefault(principal.key, (principal, used))
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

    def _remember(self, job: Job) -> None:
        conversation, request, turn = job.conversation, job.request, job.turn
        messages: list[dict[str, Any]] = [{"role": "user", "content": request.text}]
        calls = [
            s
            for s in turn.steps
            # The app's own listing is no part of what was asked or done: the next turn
            # reads its own when it needs one (two messages, ~55 tokens, in every follow-up).
            if not s.prepared
            and (
                s.report.decision is not Decision.NONE
                or s.report.tool in {"ask_user", "no_tool_fits"}
            )
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
            conversation.last_settings = {s.report.tool: dict(s.report.arguments) for s in acted}
        shown = [e for s in turn.steps if not s.prepared for e in listed_events(s.feedback)]
        if shown:
            conversation.last_listed = asked_about(shown, job.words(), job.calendar_words)

    def _as_nothing_fits(self, step: Step, job: Job) -> Step:
        """A model turn that came to nothing the request asked for, step by step: the
        unasked action is answered with what the app can do, a read on its way is not
        said."""
        if step.is_read:
            return replace(step, prepared=True)
        return self._pipeline.no_tool_fits(step.report, job, "nothing asked for fits")

    def _respond(self, job: Job) -> AgentResponse:
        request, turn = job.request, job.turn
        status = turn.status or _aggregate([s for s in turn.steps if not s.prepared])
        speech = say_turn(
            self._replies,
            turn,
            status=status,
            language=request.language,
            home=job.home,
            now=job.now,
        )
        keep = turn.keeps_conversation
        return AgentResponse(
            id=request.id,
            status=status,
            speech=speech,
            conversation_id=job.conversation.id if keep else request.conversation_id,
            actions=[s.report for s in turn.steps],
            error=turn.error or _first_error(turn.steps, status),
            path=turn.path,
            timings=turn.timings,
            handoff=turn.handoff,
        )

    def _model_failure(self, request: AgentRequest, err: PlanError) -> tuple[Status, ErrorInfo]:
        """The answer when the model cannot take the request: busy, too slow, not loaded,
        too long a prompt (a clear code, never `internal`), or warming up (said with the
        progress and an estimate)."""
        match err.failure:
            case PlanFailure.WARMING_UP:
                seconds = max(1, round(err.eta_s))
                speech = self._phrases.say(
                    request.language,
                    f"errors.{AgentCode.WARMING_UP}",
                    percent=err.percent,
                    seconds=seconds,
                )
                return Status.WARMING_UP, ErrorInfo(AgentCode.WARMING_UP, speech)
            case PlanFailure.BUSY:
                return Status.BUSY, self._error(request, AgentCode(err.failure.value))
            case PlanFailure.PROMPT_TOO_LONG:
                _LOGGER.error("Request %s: %s (context_length option)", request.id, err)
        return Status.ERROR, self._error(request, AgentCode(err.failure.value))

    def _error(self, request: AgentRequest, code: AgentCode) -> ErrorInfo:
        return ErrorInfo(code, self._phrases.say(request.language, f"errors.{code}"))

    def _failure(
        self,
        request: AgentRequest,
        status: Status,
        code: AgentCode,
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


def _nothing_asked_ran(steps: list[Step]) -> bool:
    """Did the model's calls come to nothing the request asked for: an action refused as
    unasked, and nothing else but reads on its way ("got a cat joke for me?" read the
    shopping list and ticked off the bread; "phone my mum" sent Anna a message: dev,
    reworded no-tool-*, both said "I couldn't work out how to do that." as an error)?"""
    unasked = [
        s for s in steps if isinstance(s.outcome, Failed) and s.outcome.why is Failure.NOT_ASKED
    ]
    return bool(unasked) and all(
        s in unasked or s.prepared or (s.is_read and isinstance(s.outcome, Executed)) for s in steps
    )


def _cancels_what_was_listed(job: Job) -> bool:
    """ "please cancel that" right after the dentist was read out is the event's deletion,
    not a never-mind (reworded followup-cancel-it~r10: "OK.", and the event stayed)."""
    words = job.words()
    return (
        bool(job.conversation.last_listed)
        and words.points_back
        and words.says_any(KINDS[words.word_language].get("delete_event", ()))
    )


def _aggregate(steps: list[Step]) -> Status:
    statuses = {s.status for s in steps}
    for status in (Status.NEEDS_CONFIRMATION, Status.NEEDS_CLARIFICATION):
        if status in statuses:
            return status
    if Status.DONE in statuses:
        return Status.DONE
    if Status.ERROR in statuses:
        return Status.ERROR
    return Status.REFUSED if statuses else Status.ERROR


def _first_error(steps: list[Step], status: Status) -> ErrorInfo | None:
    if status in {Status.DONE, Status.NEEDS_CONFIRMATION, Status.NEEDS_CLARIFICATION}:
        return None
    return next((s.report.error for s in steps if s.report.error is not None), None)


def _not_made_yet(calls: tuple[RawCall, ...], made: set[str]) -> tuple[RawCall, ...]:
    """The calls of a step that neither an earlier step of the turn nor an earlier call of
    this one made (adding them to `made`): one request runs a call once. (Reworded
    multi-blinds-and-message~r10: the real 1.5B's one step sent Sam the same message three
    times, and HA delivered all three.)"""
    fresh = []
    for call in calls:
        key = json.dumps([call.name, call.arguments], sort_keys=True)
        if key not in made:
            made.add(key)
            fresh.append(call)
    return tuple(fresh)


def _assistant_message(calls: tuple[RawCall, ...]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"type": "function", "function": {"name": c.name, "arguments": told_arguments(c)}}
            for c in calls
        ],
    }


def _or_none(
    schemas: tuple[dict[str, Any], ...], whole: tuple[dict[str, Any], ...]
) -> tuple[dict[str, Any], ...] | None:
    """None for the offer's own schemas: the planner keeps their grammar ready."""
    return None if schemas == whole else schemas


def _items_apart(calls: tuple[RawCall, ...], text: str) -> tuple[RawCall, ...]:
    """Each list item the request said as its own call, once. Where the code reads the items
    said ("add eggs and flour to the list", "we'll need eggs and flour, add them …"), those
    are the calls, on the list the model chose: an item the model left out is added, one it
    never said ("them", "down eggs") gives way, and none is added twice (reworded
    todo-note-two~r6 and ~r7). Elsewhere the model's items stand, each part said its own
    call ("eggs and flour" is two items); each call is checked like the model's own."""
    out: list[RawCall] = []
    adds: list[RawCall] = []
    for raw in calls:
        item = raw.arguments.get("item")
        if raw.name != "add_todo_item" or not isinstance(item, str):
            out.append(raw)
            continue
        parts = [
            RawCall(raw.name, {**raw.arguments, "item": part})
            for part in separate_items(item, text)
        ]
        out += parts
        adds += parts
    # Two lists (or none): the model's to say which item goes where.
    lists = {raw.arguments.get("list_id") for raw in adds}
    said = items_said(text) if len(lists) == 1 and None not in lists else []
    if not said:
        return tuple(out)
    base = {k: v for k, v in adds[0].arguments.items() if k != "item"}
    kept = [raw for raw in out if raw.name != "add_todo_item"]
    return (*kept, *(RawCall("add_todo_item", {**base, "item": i}) for i in dict.fromkeys(said)))


def _items_read(steps: list[Step]) -> list[str]:
    """The list items the app's own read before a tick-off found (`agent/list_items.py`)."""
    return [item for step in steps if step.prepared for item in listed_items(step.feedback)]


def _targets_done(steps: list[Step]) -> dict[str, frozenset[str]]:
    """Per action tool, the entities this turn's steps already acted on with it."""
    done: dict[str, set[str]] = {}
    for step in steps:
        if step.status is Status.DONE and not step.is_read and step.targets:
            done.setdefault(step.report.tool, set()).update(step.targets)
    return {tool: frozenset(targets) for tool, targets in done.items()}


def _events_prepared(steps: list[Step]) -> list[Event]:
    """The events the app's own listing read this turn (their handles are what the model
    saw)."""
    return [e for s in steps if s.prepared for e in listed_events(s.feedback)]


def _offers_action(schemas: tuple[dict[str, Any], ...]) -> bool:
    return any(s.get("access") == Access.CONTROL.value for s in schemas)


def _brief(step: Step) -> dict[str, Any]:
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


def _nothing_missing(raw: RawCall, steps: list[Step], words: grounding.Request, home: Home) -> bool:
    """A question for whom a message is for, or what it says, after this turn sent it to
    everyone the request names: nothing is missing (reworded child-messages-anna~r5: both
    real models sent "I'm home" to Anna, then asked who else should get it, or what it
    should say)."""
    if raw.name != "ask_user" or raw.arguments.get("missing") not in {"recipient", "content"}:
        return False
    named = grounding.recipients_named(words, home)
    sent = {
        str(s.report.arguments.get("recipient"))
        for s in steps
        if s.report.tool == "send_message" and isinstance(s.outcome, Executed)
    }
    return bool(named) and named <= sent


def _without_lights_set_too(calls: tuple[RawCall, ...]) -> tuple[RawCall, ...]:
    """A plain `turn_on` of lights that a `set_light` of the same turn also sets is said by
    it (setting a light turns it on): not a contradiction, one call too many. The real 1.5B
    turned on and set the office light at 70 % in one turn, and both were refused (reworded
    multi-study-evening). A setting that switches off (brightness 0) still contradicts."""
    lit = {
        entity
        for raw in calls
        if raw.name == "set_light" and raw.arguments.get("brightness_pct") != 0
        for entity in _entity_ids(raw)
    }

    def set_too(raw: RawCall) -> bool:
        entities = _entity_ids(raw)
        return (
            raw.name == "turn_on"
            and set(raw.arguments) == {"entity_id"}
            and bool(entities)
            and all(e.startswith("light.") and e in lit for e in entities)
        )

    return tuple(raw for raw in calls if not set_too(raw))


def _what_was_said_off(calls: tuple[RawCall, ...], said_off: frozenset[str]) -> tuple[RawCall, ...]:
    """A turn that gets something going also switches on what the request said was off and
    asked to get going (`words/said_off.py`): one call each, run first, as what it powers
    comes after (reworded multi-plug-then-tv: both real models played the TV, and the
    plug, switched on after, was asked about)."""
    going = [raw for raw in calls if raw.name == "turn_on" or _plays(raw)]
    if not going or not said_off:
        return ()
    named = {e for raw in going if raw.name == "turn_on" for e in _entity_ids(raw)}
    return tuple(RawCall("turn_on", {"entity_id": [entity]}) for entity in sorted(said_off - named))


def _plays(raw: RawCall) -> bool:
    return raw.name == "control_media" and raw.arguments.get("action") == "play"


def _entity_ids(raw: RawCall) -> list[str]:
    ids = raw.arguments.get("entity_id")
    return [e for e in ids if isinstance(e, str)] if isinstance(ids, list) else []


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
