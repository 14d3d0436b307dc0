"""How a case is judged, from what the app answered and what HA holds afterwards. Pure: the
evaluation reads the home (tests/eval/home.py) and hands the readings here.

Besides "did the asked-for thing happen", four ways a model path goes wrong are counted on
their own, because permissions cannot stop them (the user *may* do these, but did not ask):
a false action (an executed action on nothing the case asked for), a widened target (an
executed call that touches entities beyond the asked-for ones), a false claim (speech that
says something was done when nothing was, or names a device that did not change).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
import re
from typing import Any

from tests.eval.cases import (
    Case,
    EventExpectation,
    ItemExpectation,
    MessageExpectation,
    Turn,
)
from tests.eval.when import resolve
from tool_schemas.base import Access
from tool_schemas.catalog import TOOLS

_NOT_AFTER = r"(?<!\bis )(?<!\bare )(?<!\bwas )(?<!\bwere )(?<!: )"
CLAIM = re.compile(
    r"\b(?:is|are) now\b|\bi(?:'ve| have)\b|" + _NOT_AFTER + r"\b(?:turned|switched|toggled|"
    r"opened|closed|locked|unlocked|added|sent|posted|checked off|deleted|removed|updated|moved|"
    r"rescheduled|activated|started|booked|created|scheduled|cancell?ed|ordered|dimmed|"
    r"brightened|increased|decreased|raised|lowered|muted|unmuted|paused|playing|skipped|set|"
    r"done)\b",
    re.IGNORECASE,
)
"""Speech phrased as something done. A state read ("Garage door is closed", "Blinds: open")
is not: the verb right after is/are/was/were or a colon is a state, not a deed."""


@dataclass(frozen=True)
class Event:
    summary: str
    start: date | datetime
    end: date | datetime
    description: str = ""
    uid: str = ""

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.summary, self.start.isoformat(), self.end.isoformat(), self.description)

    @property
    def all_day(self) -> bool:
        return not isinstance(self.start, datetime)


@dataclass(frozen=True)
class Item:
    summary: str
    status: str


@dataclass(frozen=True)
class Readings:
    """What the evaluation read before and after a case."""

    now: datetime
    """The eval's clock in the home's time zone when the case started."""
    events_before: Sequence[Event] = ()
    events_after: Sequence[Event] = ()
    items_after: Sequence[Item] = ()
    notifications_after: Sequence[str] = ()
    """The text (title and message) of every notification HA shows."""


@dataclass
class Judgement:
    problems: list[str] = field(default_factory=list)
    false_actions: list[str] = field(default_factory=list)
    widened: list[str] = field(default_factory=list)
    false_claims: list[str] = field(default_factory=list)


def executed_actions(answer: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The answer's actions that changed (or tried to change) the home: control tools that
    ran. Reads (get_state, list_events…) are not actions."""
    return [
        a
        for a in answer.get("actions") or ()
        if a.get("outcome") == "executed"
        and a.get("tool") in TOOLS
        and TOOLS[a["tool"]].access is Access.CONTROL
    ]


def judge_actions(case: Case, answers: Sequence[Mapping[str, Any]], judgement: Judgement) -> None:
    expected = case.expected_targets
    for number, answer in enumerate(answers, 1):
        for action in executed_actions(answer):
            touched = set(action.get("entity_ids") or ())
            what = f"turn {number}: {action['tool']} {', '.join(sorted(touched)) or '-'}"
            if not touched:
                if not (action["tool"] == "create_notification" and case.allows_notification):
                    judgement.false_actions.append(what)
            elif not touched & expected:
                judgement.false_actions.append(what)
            elif touched - expected:
                beyond = ", ".join(sorted(touched - expected))
                judgement.widened.append(f"{what} (beyond the case: {beyond})")


def statements(speech: str) -> str:
    """The speech without its questions: "Do you want me to set…?" claims nothing."""
    sentences = re.split(r"(?<=[.!?])\s+", speech.strip())
    return " ".join(s for s in sentences if not s.endswith("?"))


def judge_claims(
    answers: Sequence[Mapping[str, Any]],
    changed: set[str],
    names: Mapping[str, set[str]],
    judgement: Judgement,
) -> None:
    """`names`: friendly name -> the entity ids with that name."""
    for number, answer in enumerate(answers, 1):
        speech = str(answer.get("speech") or "")
        if not CLAIM.search(statements(speech)):
            continue
        acted = {e for a in executed_actions(answer) for e in a.get("entity_ids") or ()}
        if not executed_actions(answer):
            judgement.false_claims.append(f"turn {number}: {speech!r}, but no action ran")
            continue
        for name, entity_ids in mentioned(statements(speech), names).items():
            if not entity_ids & (acted | changed):
                judgement.false_claims.append(
                    f"turn {number}: {speech!r} names {name}, which did not change"
                )


def mentioned(speech: str, names: Mapping[str, set[str]]) -> dict[str, set[str]]:
    """The entities the speech names (longest names first; a name inside a longer one found
    in the speech does not count on its own)."""
    text = speech.casefold()
    found: dict[str, set[str]] = {}
    for name in sorted(names, key=len, reverse=True):
        folded = name.casefold()
        if len(folded) < 4 or any(folded in longer.casefold() for longer in found):
            continue
        if re.search(rf"(?<!\w){re.escape(folded)}(?!\w)", text):
            found[name] = names[name]
    return found


def judge_turns(
    turns: Sequence[Turn], answers: Sequence[Mapping[str, Any]], judgement: Judgement
) -> None:
    for turn, answer in zip(turns, answers, strict=True):
        status, path = answer.get("status"), answer.get("path")
        if turn.statuses and status not in turn.statuses:
            wanted = " or ".join(sorted(turn.statuses))
            judgement.problems.append(f"{turn.say!r}: status {status}, expected {wanted}")
        if turn.path and path != turn.path:
            judgement.problems.append(f"{turn.say!r}: path {path}, expected {turn.path}")
        speech = str(answer.get("speech") or "")
        if turn.speech and turn.speech.casefold() not in speech.casefold():
            judgement.problems.append(f"{turn.say!r}: speech {speech!r} lacks {turn.speech!r}")


def judge_answer(case: Case, answers: Sequence[Mapping[str, Any]], judgement: Judgement) -> None:
    speech = str(answers[-1].get("speech") or "") if answers else ""
    for fact in case.answer_contains:
        if fact.casefold() not in speech.casefold():
            judgement.problems.append(f"the answer {speech!r} lacks {fact!r}")


def judge_events(case: Case, readings: Readings, judgement: Judgement) -> None:
    after = readings.events_after
    for expectation in case.events:
        matching = [e for e in after if _same_summary(expectation, e)]
        if expectation.absent:
            if matching:
                judgement.problems.append(
                    f"the calendar still holds {', '.join(_show(e) for e in matching)}"
                )
        elif not any(_event_matches(expectation, e, readings.now) for e in matching):
            held = ", ".join(_show(e) for e in matching) or "no such event"
            judgement.problems.append(f"no event {_want(expectation)} (found: {held})")
    before_keys = {e.key for e in readings.events_before}
    after_keys = {e.key for e in after}
    added = [e for e in after if e.key not in before_keys]
    removed = [e for e in readings.events_before if e.key not in after_keys]
    for event in added:
        if not any(not x.absent and _same_summary(x, event) for x in case.events):
            judgement.problems.append(f"unexpected calendar change: added {_show(event)}")
    for event in removed:
        if not any(_same_summary(x, event) for x in case.events):
            judgement.problems.append(f"unexpected calendar change: removed {_show(event)}")


def judge_items(case: Case, items: Iterable[Item], judgement: Judgement) -> None:
    listed = list(items)
    for expectation in case.items:
        matching = [i for i in listed if _item_named(expectation, i)]
        if expectation.absent:
            if matching:
                judgement.problems.append(f"the list still holds {expectation.summary!r}")
        elif not any(i.status == expectation.status for i in matching):
            held = ", ".join(f"{i.summary} ({i.status})" for i in listed) or "nothing"
            judgement.problems.append(
                f"no item {expectation.summary!r} ({expectation.status}) on the list: {held}"
            )


def judge_messages(
    case: Case,
    answers: Sequence[Mapping[str, Any]],
    notifications: Sequence[str],
    judgement: Judgement,
) -> None:
    for expectation in case.messages:
        if not any(expectation.contains.casefold() in n.casefold() for n in notifications):
            judgement.problems.append(f"no message containing {expectation.contains!r} arrived")
        if expectation.to is not None and not _sent_to(expectation, answers):
            judgement.problems.append(f"no message was sent to {expectation.to}")


def _sent_to(expectation: MessageExpectation, answers: Sequence[Mapping[str, Any]]) -> bool:
    return any(
        action["tool"] == "send_message"
        and (
            expectation.to in (action.get("entity_ids") or ())
            or (action.get("arguments") or {}).get("recipient") == expectation.to
        )
        for answer in answers
        for action in executed_actions(answer)
    )


def _same_summary(expectation: EventExpectation, event: Event) -> bool:
    return expectation.summary_contains.casefold() in event.summary.casefold()


def _item_named(expectation: ItemExpectation, item: Item) -> bool:
    return expectation.summary.casefold() in item.summary.casefold()


def _event_matches(expectation: EventExpectation, event: Event, now: datetime) -> bool:
    if expectation.start is not None:
        want = resolve(expectation.start, now)
        if isinstance(want, datetime):
            if event.all_day or event.start != want:
                return False
        elif not event.all_day or event.start != want:
            return False
    if expectation.minutes is not None:
        if event.all_day or not isinstance(event.end, datetime):
            return False
        assert isinstance(event.start, datetime)
        if (event.end - event.start).total_seconds() != expectation.minutes * 60:
            return False
    return True


def _show(event: Event) -> str:
    return f"{event.summary!r} at {event.start.isoformat()}"


def _want(expectation: EventExpectation) -> str:
    parts = [repr(expectation.summary_contains)]
    if expectation.start:
        parts.append(f"at {expectation.start}")
    if expectation.minutes:
        parts.append(f"for {expectation.minutes} min")
    return " ".join(parts)
