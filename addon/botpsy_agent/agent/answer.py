"""The one place a turn's answer is said: from the finished turn, in the request's language.

Every step was decided before (its typed outcome, `agent/turn.py`); here they are put into
words once (issue 26, item 2; issue 27):

* what is said of actions comes only from what was executed (`Executed`), and a read that
  only prepared a change that then ran ("move the dentist to 5" lists the events first) is
  not read out;
* a failure the model recovered from (the same tool ran later) is not said; the others are
  said once, naming what failed;
* no sentence is said twice ("I couldn't work out how to do that." came three times);
* the model's text is never spoken: no outcome carries any.
"""

from __future__ import annotations

from datetime import datetime

from botpsy_agent.agent.protocol import AgentCode, Status
from botpsy_agent.agent.replies import Replies
from botpsy_agent.agent.turn import (
    Answered,
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
)
from botpsy_agent.home import Home
from botpsy_agent.words import PREPARED_BY
from tool_schemas.messaging import AddTodoItem, CompleteTodoItem

_UNKNOWN_THINGS = frozenset({Failure.NO_SUCH_DEVICE, Failure.NO_SUCH_READING})
"""A thing the request names that the home lacks: said by its phrase `refused.<why>`."""


def say_turn(
    replies: Replies, turn: Turn, *, status: Status, language: str, home: Home, now: datetime
) -> str:
    """The answer to the turn (whose `status` is decided): each step that says something,
    once, in order."""
    spoken = _spoken_steps(turn.steps)
    sentences = [
        _say_step(replies, step, spoken, language=language, home=home, now=now)
        if (items := _items_with(step, spoken)) is None
        else _say_items(replies, step, items, language=language, home=home, now=now)
        for step in spoken
    ]
    failures = [s for s in spoken if isinstance(s.outcome, Failed)]
    if failures:
        sentences.append(_say_failures(replies, failures, language, home))
    said = list(dict.fromkeys(s for s in sentences if s))
    if not said and turn.closing is not None:
        said = [turn.closing.text or replies.phrases.say(language, turn.closing.key)]
    if not said and turn.error is not None:
        said = [turn.error.message]
    if not said and status is Status.ERROR:
        # Every step was turned back to the model (asked for nothing the user said) and it
        # gave up: the user still hears an answer, never silence.
        said = [replies.phrases.say(language, f"errors.{AgentCode.INVALID_CALL}")]
    return " ".join(said)


def _items_with(step: Step, spoken: list[Step]) -> list[str] | None:
    """The items of every executed call of this step's kind on its list, where there are
    several: "eggs and flour" is two calls, said as one sentence ("Added eggs and flour to
    Shopping list."); each later call says nothing of its own. None: said as a step."""
    call = _item_call(step)
    if call is None:
        return None
    same = [
        other
        for other in map(_item_call, spoken)
        if other is not None and (other.name, other.list_id) == (call.name, call.list_id)
    ]
    if len(same) < 2:
        return None
    return [str(other.item) for other in same] if same[0] is call else []


def _item_call(step: Step) -> AddTodoItem | CompleteTodoItem | None:
    outcome = step.outcome
    if isinstance(outcome, Executed):
        call = outcome.resolved.call
        return call if isinstance(call, AddTodoItem | CompleteTodoItem) else None
    return None


def _say_items(
    replies: Replies, step: Step, items: list[str], *, language: str, home: Home, now: datetime
) -> str:
    if not items:
        return ""  # said with the first of its kind
    assert isinstance(step.outcome, Executed)
    resolved = step.outcome.resolved
    together = resolved.call.model_copy(update={"item": replies.phrases.join(language, items)})
    return replies.done(language, together, resolved.targets, home, now)


def _spoken_steps(steps: list[Step]) -> list[Step]:
    """The steps worth saying: not a failure the model made good later, not a read that
    only prepared a change that then ran, not a call the request never asked for."""
    ran = [
        (position, step.report.tool)
        for position, step in enumerate(steps)
        if isinstance(step.outcome, Executed | Planned | Answered | ToldTime | HandedOff)
    ]
    kept = []
    for position, step in enumerate(steps):
        if step.prepared:
            continue
        later = {tool for at, tool in ran if at > position}
        outcome = step.outcome
        if isinstance(outcome, Failed) and (
            outcome.why is Failure.NOT_ASKED
            or outcome.tool in later
            or (outcome.why is not Failure.HA and any(at > position for at, _ in ran))
        ):
            continue
        if (
            isinstance(outcome, Executed)
            and step.is_read
            and (later & set(PREPARED_BY.get(step.report.tool, ())))
        ):
            continue
        kept.append(step)
    return kept


def _say_step(  # noqa: PLR0911 - one case per outcome
    replies: Replies, step: Step, spoken: list[Step], *, language: str, home: Home, now: datetime
) -> str:
    outcome = step.outcome
    phrases = replies.phrases
    match outcome:
        case Executed(resolved, execution):
            return replies.executed(language, resolved, execution, home, now)
        case Answered(executed, _, _, _):
            return _say_answered(replies, outcome, language, home) or replies.executed(
                language, executed.resolved, executed.execution, home, now
            )
        case ToldTime(what):
            return replies.clock(language, now, what)
        case HandedOff():
            return ""  # HA's Assist says what it did
        case Planned(resolved):
            plan = f"{resolved.call.name} {', '.join(resolved.entity_ids)}".strip()
            return phrases.say(language, "done.planned", plan=plan)
        case Refused(decision):
            return replies.refused(language, decision, home)
        case NothingFits(tools, offered):
            # Said once, and only when nothing else of the turn answers the request.
            if any(not isinstance(s.outcome, NothingFits | Failed) for s in spoken):
                return ""
            return replies.no_tool_fits(language, tools, home, offered)
        case AskedToConfirm(decision, call):
            return replies.question(language, decision, call, home)
        case AskedToCheck(phrase, values):
            return phrases.say(language, phrase, **values)
        case AskedToClarify(call, may_name):
            return replies.clarify(language, call, home, may_name)
        case Failed():
            return ""  # all failures are said together, once (`_say_failures`)


def _say_answered(replies: Replies, answered: Answered, language: str, home: Home) -> str | None:
    """A state question's answer ("Yes: Back door is unlocked") or the value asked for."""
    if answered.question is not None:
        return replies.answer(language, home, answered.question, answered.result)
    if answered.reading is not None:
        return replies.reading(language, home, answered.reading, answered.result)
    return None


def _say_failures(replies: Replies, failures: list[Step], language: str, home: Home) -> str:
    """One sentence for what failed: HA's own words with the devices they were about, or
    that the request could not be worked out."""
    phrases = replies.phrases
    outcomes = [s.outcome for s in failures if isinstance(s.outcome, Failed)]
    from_ha = [failed for failed in outcomes if failed.why is Failure.HA]
    if from_ha:
        targets = [e for failed in from_ha for e in failed.entity_ids]
        messages = list(dict.fromkeys(failed.message for failed in from_ha))
        key = "failed.ha_error_on" if targets else "failed.ha_error"
        return phrases.say(
            language,
            key,
            targets=replies.names(language, home, dict.fromkeys(targets)),
            message="; ".join(messages),
        )
    if any(failed.why is Failure.NEEDS_VOICE_DEVICE for failed in outcomes):
        return phrases.say(language, "assist.needs_voice_device")
    unknown = [failed for failed in outcomes if failed.why in _UNKNOWN_THINGS]
    if unknown:
        return phrases.say(language, f"refused.{unknown[0].why.value}", device=unknown[0].message)
    if any(failed.why is Failure.UNKNOWN_TARGET for failed in outcomes):
        return phrases.say(language, "refused.unknown_target")
    return phrases.say(language, f"errors.{AgentCode.INVALID_CALL}")
