"""What a request asks that no step of its turn has done yet, and the part of the request
that says it.

"Start the coffee machine and tell Anna coffee is on its way": a small model starts the
machine and then answers in words. Its next step is asked about "tell Anna coffee is on its
way" alone (`agent/core.py`), a request of one kind it carries out well. Only what the
words name counts, not this conversation's referents ("and in the hall too" points back at
the kind of action, not at the last room)."""

from __future__ import annotations

from collections.abc import Collection

from botpsy_agent.agent.narrow_moves import recipient_names
from botpsy_agent.agent.pipeline import Job
from botpsy_agent.agent.schema_fields import properties
from botpsy_agent.words import LEVEL_FIELDS, grounding, message_body, said_parts, said_values


def more_asked(job: Job) -> bool:
    """Does the request name a device no step has acted on yet, list an item no step has
    added, or say a message no step has sent?"""
    words = _words(job, job.request.text)
    added = [
        str(step.report.arguments.get("item", ""))
        for step in job.turn.steps
        if step.report.tool == "add_todo_item"
    ]
    return (
        bool(grounding.named_beyond(words, job.home, _touched(job)))
        or (bool(added) and grounding.items_beyond(words, added))
        or message_left(job)
        or _level_left(job, job.request.text)
    )


def message_left(job: Job) -> bool:
    """Does the request say a message to someone that no step has sent?"""
    return _message_part(job, job.request.text) is not None


def part_left(job: Job, tried: Collection[str]) -> str | None:
    """The first part of the request, not in `tried`, that asks for what no step has done:
    a message no step has sent, or a kind of change to devices it names of which no step
    touched any. A part
    that names no place is read first in the places the rest of the request names ("I'm in the
    study: heater on and the light at 70 percent"). None when the request is one part."""
    said = said_parts(job.request.text, job.request.language)
    if len(said) < 2:
        return None
    touched = _touched(job)
    places = grounding.places_said(_words(job, job.request.text), job.home)
    actions = job.offer.tool_names if job.offer is not None else ()
    for part in said:
        if part in tried:
            continue
        if _message_part(job, part) is not None:
            return part
        if grounding.asked_kinds(_words(job, part), actions) is None:
            continue  # "I'm watching the TV": a scene said, no change asked
        placed = () if grounding.places_said(_words(job, part), job.home) else places
        for heard in (*(f"{part} in the {place}" for place in placed), part):
            named = grounding.named_entities(_words(job, heard), job.home)
            if not named:
                continue
            if named.isdisjoint(touched) or _level_left(job, heard):
                return heard
            break  # done in the place said: not another reading elsewhere
    return None


_SAYS_A_MESSAGE = ("send_message", "create_notification")
"""A notification says the message too: "remind everyone with a notification that the bins go
out tonight" was left with a message to say after it, and the 0.5B was asked a step more
(dev notify-bins in `make demo`: 1.4-4.3 s for words nobody hears)."""


def _message_part(job: Job, text: str) -> str | None:
    """The message `text` says to one of the offered recipients, when no step sent one."""
    offer = job.offer
    if offer is None or "send_message" not in offer.tool_names:
        return None
    if any(step.report.tool in _SAYS_A_MESSAGE for step in job.turn.steps):
        return None  # a recipient named and not yet written to is a device named beyond
    return message_body(text, recipient_names(job.home, offer.entity_ids))


def _level_left(job: Job, text: str) -> bool:
    """Does `text` ask for a level ("set the light to 70%") that no step has set? The real
    0.5B switched the office light on for "I'll be working in the study this evening, turn
    the heater on and set the light to 70%" (dev, reworded multi-study-evening), and the
    70 % was never set: the light was touched, so nothing seemed left."""
    words = _words(job, text)
    said = said_values(words, job.now)
    levels = set(said.levels) - set(said.steps)  # "down 2 degrees" sets no level of 2
    offer = job.offer
    if not levels or offer is None:
        return False
    setting = {s["name"] for s in offer.schemas if LEVEL_FIELDS & set(properties(s))}
    if not (grounding.asked_kinds(words, setting) or ()):
        return False
    written = {
        float(value)
        for step in job.turn.steps
        for key, value in step.report.arguments.items()
        if key in LEVEL_FIELDS and isinstance(value, int | float)
    }
    return written.isdisjoint(levels)


def _touched(job: Job) -> frozenset[str]:
    return frozenset(e for step in job.turn.steps for e in step.targets)


def _words(job: Job, text: str) -> grounding.Request:
    return grounding.Request(text, job.request.language, speaker_area=job.request.area_id)
