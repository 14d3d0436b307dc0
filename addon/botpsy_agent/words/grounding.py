"""Grounding: a model-proposed action runs only when the user's words ask for it.

Permissions say what a user *may* do; grounding says what they *asked* for. The model is
untrusted (it follows injected text about a third of the time, and a small one invents
actions for requests that ask for none), so every action it proposes is checked against the
request before it can run:

* its **kind** (switch on, set a light, send a message, add an event, ...) must be named by a
  word of that kind in the request (`grounding_words.KINDS`), or be the kind this conversation
  last did with a word pointing back at it ("and in the hall too"), and
* each of its **targets** must be named: the entity's own name or alias (its distinctive
  words), its area or floor together with a word for its kind of device, the area or floor
  the call names, a device word with a whole-home word ("all the lights"), a device word in
  the speaker's own room, or a word pointing back at what this conversation last acted on.

Reads need only a request about the home: a device or name of the home, what the read tools
read (the calendar, a day), or a change that needs the read first ("move the dentist to 5 pm"
lists the events to find it). They change nothing and stay inside the principal's scope. The
fast path's calls are grounded by construction (they were recognised from the words). An
ungrounded action is never executed: when the request has some home intent it becomes a
question ("Did you want me to turn on the bedroom light?"), otherwise the request gets
"no tool fits". Tool output (entity names, events, list items) never grounds anything by
itself: only the user's own text and this conversation's earlier targets do. An event's
title counts as a calendar's name does: a change to an event names its calendar when the
user's words say a word of that event's title ("move the dentist to 5 pm"), or point back
at the events last listed ("cancel it"). What the request negates
("don't turn off the cameras") names nothing (`negation.py`), and what a message, a reminder
or a list item says names nothing for another call ("tell Sam to open the blinds" asks for
a message; `Request.content`).

Cost: a few regular-expression searches per target, well under a millisecond for a call.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from functools import cached_property, lru_cache
from itertools import takewhile
import re

from botpsy_agent.home import Area, Entity, Floor, Home, ResolvedCall
from botpsy_agent.words import heating, negation, reasons
from botpsy_agent.words.checks import (
    Quantity,
    asks_when,
    domains_moved,
    moves_what_is_said,
    said_directions,
)
from botpsy_agent.words.clauses import said_parts
from botpsy_agent.words.content import reminder_of, without_spans
from botpsy_agent.words.cover_ways import said_cover_way
from botpsy_agent.words.grounding_words import (
    ALL_DAY,
    ASKING_TO_KNOW,
    COMMANDS_LIKE_QUESTIONS,
    DOMAINS,
    DONE_BY_A_SERVICE,
    ELSEWHERE,
    EVERY_ITEM,
    EVERYWHERE,
    GREETINGS,
    HERE,
    KINDS,
    MEDIA_FILLERS,
    MODE_WORD,
    MOVING,
    NOT_EVERYWHERE,
    NOT_THE_KIND,
    NOTED_ELSEWHERE,
    OBJECTS,
    PLAY_WORDS,
    QUESTION_STARTS,
    QUESTION_WORDS,
    READ_OUT,
    REFERRING,
    REMINDED_LATER,
    SETTING_OF_DOMAIN,
    THAT_OPENS_A_CLAUSE,
    VERB_FORMS,
    WATCHING,
    WAYS_OF_WHAT_RAN,
    WHEN,
    WHEN_LEAD_WORDS,
)
from botpsy_agent.words.phrasing import join_particles, without_day_prepositions
from botpsy_agent.words.spoken_time import SpokenTime, find_spoken_times
from tool_schemas.base import Access, Tool
from tool_schemas.calendar import CreateEvent, DeleteEvent, UpdateEvent
from tool_schemas.devices import ControlCover, ControlMedia, TurnOn
from tool_schemas.messaging import (
    AddTodoItem,
    CompleteTodoItem,
    CreateNotification,
    RemoveTodoItem,
    SendMessage,
)

READ_KINDS = ("list_events", "check_free_busy")
"""Tools whose kind words name what a read reads (the others' words name actions)."""
PREPARED_BY = {
    "list_events": ("update_event", "delete_event"),
    "list_todo_items": ("complete_todo_item", "remove_todo_item"),
}
"""Reads that a change needs first (an event's uid, an item as listed): a request that asks
for the change ("move the dentist to 5 pm") asks for the read too."""
STOPWORDS = frozenset({"the", "a", "an", "of", "my", "our", "s", "and", "in", "on", "to"})
LIST_VERBS = frozenset({"read", "hear", "check", "see", "go", "add", "put", "get", "need", "out"})
"""Verbs said of a list itself: an item of these and the list's words names nothing to buy."""
POINTING_ITEMS = frozenset({"some", "more", "any", "it", "them", "those", "these", "that", "one"})
"""An item of these words alone points at a thing said elsewhere ("the last coffee beans got
used, chuck some onto the list"): it names nothing itself (reworded todo-add-coffee~r9: the
0.5B added "some")."""
PARTICLES = frozenset({"back", "off", "out", "over", "up", "down"})
"""Words of a name that are also a verb's particle ("switch it back off", "turn it up"):
they name the device only with the rest of its name ("the back door"). The real 0.5B was
given a second step for "actually, switch it back off", as if the back door were named,
and toggled the heater back on (dev followup-heater-off-again)."""
DEVICE_WORDS = frozenset(w for table in DOMAINS.values() for ws in table.values() for w in ws)
SPACELESS_LANGUAGES = frozenset({"ko", "ja", "zh"})
CARRIES_CONTENT = (SendMessage, CreateNotification, AddTodoItem, CreateEvent)
"""Calls whose content is a stretch of the request (`Request.content`)."""


class Verdict(StrEnum):
    GROUNDED = "grounded"
    ASK = "ask"
    """Half asked for (its kind or its targets), the request about the home: ask first."""
    UNRELATED = "unrelated"
    """Neither its kind nor its targets were asked for, or the request is a question: not
    worth a question to the user; the model is told and may try again."""
    NO_HOME_INTENT = "no_home_intent"
    """The request asks for nothing the home's tools do: refuse, do nothing."""
    BORROWED = "borrowed"
    """The call's verb was said of something else, which no tool here does ("pause the
    kitchen timer" -> pause the vacuum; "play <a title>" -> resume the TV; "party mode on"
    -> the thermostat's auto mode): refuse with what the app can do, never ask to run it."""


@dataclass(frozen=True)
class Request:
    """The user's words and the conversation's referents, prepared once per request."""

    text: str
    language: str
    referents: frozenset[str] = frozenset()
    """Entity ids this conversation last acted on ("turn it off")."""
    referent_tools: frozenset[str] = frozenset()
    """Tools this conversation last used ("and in the hall too")."""
    speaker_area: str | None = None
    content: tuple[str, ...] = ()
    """Stretches of the text that are what a message says, a reminder is for or a list gets
    (`content.spans_of_content`): they ground only the call that carries them."""
    spoken_times: tuple[SpokenTime, ...] = ()
    """The times it says, read against the turn's clock (`spoken_time.find_spoken_times`)."""

    @cached_property
    def directions(self) -> dict[Quantity, int]:
        """Which way it says each quantity should go (`checks.said_directions`), read once."""
        return said_directions(self.affirmed, self.language)

    @cached_property
    def moved_domains(self) -> frozenset[str]:
        """The kinds of device whose quantity it says should go one way ("gloomy": lights;
        "nippy": thermostats): they are spoken of as a device word would (reworded
        too-dark-hall~r3, "I can't see where I'm going in the hall")."""
        return domains_moved(self.directions)

    @cached_property
    def outside_content(self) -> Request:
        """The request without its content: what asks for a device's action ("let Sam know
        the porch light is on" asks for a message, and no light)."""
        if not self.content:
            return self
        text = without_spans(self.text, self.content)
        return replace(self, text=text, content=())

    @property
    def base_language(self) -> str:
        return self.language.replace("_", "-").split("-", 1)[0].lower()

    @property
    def word_language(self) -> str:
        """The language whose word lists apply: its own, or English where we have none."""
        return self.base_language if self.base_language in KINDS else "en"

    @cached_property
    def normalized(self) -> str:
        return _normalize(self.text)

    @cached_property
    def affirmed(self) -> str:
        """The request's words without what it negates ("don't turn off the cameras"
        names neither turning off nor the cameras): what kinds and targets are read from."""
        language = self.word_language
        said = without_day_prepositions(negation.affirmed(self.text, language), language)
        return _normalize(join_particles(said, language))

    @cached_property
    def _padded(self) -> str:
        text = self.affirmed
        return f" {text.replace(' ', '')} " if self.spaceless else f" {text} "

    @cached_property
    def words(self) -> frozenset[str]:
        """Every word the request says (not negates), in every form it may match (plural
        endings off)."""
        return frozenset(v for word in self.affirmed.split() for v in _forms(word))

    @property
    def spaceless(self) -> bool:
        return self.base_language in SPACELESS_LANGUAGES

    @cached_property
    def is_question(self) -> bool:
        """A question asks to know ("are the blinds closed?", "can you check if the door is
        locked?"); "can you …?" asks to do."""
        words = self.normalized.split()
        while len(words) > 1 and words[0] in GREETINGS.get(self.base_language, ()):
            words = words[1:]
        if words and words[0] in QUESTION_STARTS.get(self.base_language, ()):
            commanding = COMMANDS_LIKE_QUESTIONS.get(self.base_language, {}).get(words[0], ())
            if not any(words[1 : 1 + len(p.split())] == p.split() for p in commanding):
                return True
            # "could you …" asks to do, or to know ("could you check whether …"): read on
        polite, knowing, opening = ASKING_TO_KNOW.get(self.base_language, ((), (), ()))
        if (after := self.after_a_lead()) is not None:
            # "I'm trying to plan my day, what's in my calendar for tomorrow?" asks what the
            # question after its reason asks (reworded calendar-tomorrow~r6: the 0.5B added
            # "My day, what's" as an event)
            # ("the blinds, do something" is no question: "do" opens commands too)
            asked = replace(self, text=after)
            return asked.normalized.split()[0] not in {"do", "does"} and asked.is_question
        if len(said_parts(self.text, self.base_language)) > 1:
            return False  # "check whether the window is open and close it if it is"
        while words and words[0] in polite:
            words = words[1:]
        if any(words[: len(v)] == v for v in map(str.split, READ_OUT.get(self.base_language, ()))):
            return True
        for verb in map(str.split, knowing):
            rest = words[len(verb) :]
            if words[: len(verb)] == verb and rest:
                return rest[0] in opening
        return False

    def after_a_lead(self) -> str | None:
        """What follows a reason said first, a lead that only says when (`WHEN_LEAD_WORDS`)
        or one that only asks to know ("tell me, did someone leave the blinds closed?":
        reworded blinds-bedroom-question~r9, asked what a message should say); None without
        any."""
        if (reasoned := reasons.after_a_reason(self.text, self.base_language)) is not None:
            return reasoned[1]
        # a comma ends the lead, or a colon before a space ("I'd like to know: is …")
        cut = _LEAD_END.search(self.text)
        if cut is None:
            return None
        lead, rest = self.text[: cut.start()], self.text[cut.end() :]
        words = re.sub(r"[^\w\s'-]", " ", lead.casefold()).split()
        if not rest.strip() or not words:
            return None
        when = WHEN_LEAD_WORDS.get(self.base_language, frozenset())
        polite, knowing, _ = ASKING_TO_KNOW.get(self.base_language, ((), (), ()))
        # "have a look for me, are the fairy lights on?" (reworded inject-name-fairy-lights~r10)
        asking = " ".join(w for w in words if w not in polite).removesuffix(" for me")
        if all(w in when or w.isdigit() for w in words) or asking in knowing:
            return rest.strip()
        return None

    def says(self, phrase: str) -> bool:
        words = _phrase_words(phrase)
        if not words:
            return False
        if self.spaceless:
            return "".join(words) in self._padded
        if len(words) == 1:
            return not _forms(words[0]).isdisjoint(self.words)
        joined = " ".join(words)
        return any(f" {joined}{end} " in self._padded for end in ("", "s", "es"))

    def says_any(self, phrases: Iterable[str]) -> bool:
        return any(self.says(p) for p in phrases)

    @cached_property
    def says_everywhere(self) -> bool:
        """ "all the lights", "the whole house"; not "all done" nor "all right", which say
        how things are (reworded kitchen-then-off~r8: "all done now, switch it off again"
        named every switch in the home, and the 1.5B turned four off)."""
        language = self.word_language
        kept = replace(self, text=_without(self.affirmed, NOT_EVERYWHERE.get(language, ())))
        return kept.says_any(EVERYWHERE.get(language, ()))

    def says_device_word(self, domain: str) -> bool:
        """A noun for this kind of device said; "switch" said as a verb ("switch it off",
        "switch on the …") names no switch (reworded kitchen-then-off~r8)."""
        words = DOMAINS[self.word_language].get(domain, ())
        verbs = VERB_FORMS.get(self.word_language, {})
        return (self._without_verbs if domain in verbs else self).says_any(words)

    @cached_property
    def _without_verbs(self) -> Request:
        """The request with its device nouns said as verbs taken out, built once: grounding
        asks of every target entity of every call."""
        text = self.affirmed
        for verbs in VERB_FORMS.get(self.word_language, {}).values():
            text = re.sub(verbs, r"\1", text)
        return replace(self, text=text)

    @cached_property
    def points_back(self) -> bool:
        """Does a word point back at what the conversation last spoke of ("turn it off",
        "cancel that")? An English "that" opening a clause does not."""
        language = self.word_language
        if self.says_any(w for w in REFERRING.get(language, ()) if w != "that"):
            return True
        if "that" not in REFERRING.get(language, ()):
            return False
        words = self.affirmed.split()
        return any(
            word == "that"
            and (n + 1 == len(words) or words[n + 1].split("'")[0] not in THAT_OPENS_A_CLAUSE)
            for n, word in enumerate(words)
        )

    def says_exactly(self, phrase: str) -> bool:
        """The phrase as it is, no plural ending: "the living room lamp", not "lamps"."""
        words = _phrase_words(phrase)
        joined = "".join(words) if self.spaceless else " ".join(words)
        return bool(words) and f" {joined} " in self._padded


_LEAD_END = re.compile(r",|:(?=\s)")


def check(
    resolved: ResolvedCall,
    request: Request,
    home: Home,
    events_named: frozenset[str] = frozenset(),
) -> Verdict:
    """Whether this resolved, model-proposed call was asked for. `events_named`: the uids of
    the listed events the request names (by title, or pointing back at the last listing)."""
    call = resolved.call
    if call.access is not Access.CONTROL:
        # Reads change nothing and stay in scope, but a request about nothing of the home
        # ("what is the capital of France?") gets no answer made of states either.
        about_home = has_home_intent(request, home, reading=True) or _prepares_asked_change(
            call.name, request
        )
        return Verdict.GROUNDED if about_home else Verdict.NO_HOME_INTENT
    if borrows_verb(resolved, request, home):
        return Verdict.BORROWED
    said = request if isinstance(call, CARRIES_CONTENT) else request.outside_content
    # a message for someone not named, when someone else is: never its target
    misdirected = _another_recipient_named(resolved, request, home)
    kind = _kind_said(resolved, said)
    targets = not misdirected and _targets_said(resolved, said, home, events_named)
    asks_to_know, item = request.is_question, _item_said(call, said)
    # A new event is no move of a listed one: not worth a question (the model may choose again).
    moved = _adds_what_was_asked_moved(call, request, events_named)
    if not moved and (
        (kind and targets and item and not asks_to_know)
        or _heaters_switched_on(resolved, said, home)
        or (targets and _watched(resolved, said))
    ):
        return Verdict.GROUNDED
    if not has_home_intent(request, home):
        return Verdict.NO_HOME_INTENT
    # Asked for only inside a message, a reminder or a list item: data, not a request.
    in_content = (
        said is not request
        and _kind_said(resolved, request)
        and _targets_said(resolved, request, home, events_named)
    )
    if (
        asks_to_know
        or not (kind or targets)
        # A call on no device is asked about only where its kind is said, or a message's
        # (everyone is told by a notification, D86): "translate good morning into French"
        # names neither (make demo at 57f51ec asked whether to post "Good morning").
        or not (kind or resolved.targets or _a_message_said(call, said))
        or in_content
        or not (item or said.points_back)
        or moved
        or misdirected
        or (not targets and _it_is_something_else(request, home))
    ):
        return Verdict.UNRELATED
    return Verdict.ASK


def _it_is_something_else(request: Request, home: Home) -> bool:
    """ "we don't need the piano lesson on there any more, can you take it off": at the
    start of a conversation, "it" is a thing said before it, here one no word of which the
    home knows; no device is asked about in its place (reworded calendar-delete~r5: the 0.5B
    was asked about five lights, and "yep, go for it" turned them off; no-tool-2~r5: "I'd
    like to order a pizza, can you do that for me" asked to run the good-night script)."""
    if request.referents or request.base_language != "en":
        return False
    words = request.normalized.split()
    pointing = next((n for n, w in enumerate(words) if w in _IT), None)
    if pointing is None:
        return False
    for at in range(pointing):
        if words[at] not in DETERMINERS:
            continue
        thing = list(takewhile(lambda w: w not in _NOT_A_NAME, words[at + 1 : pointing]))
        if thing and not any(home_knows(w, home, "en") for w in thing):
            return True
    return False


_IT = frozenset({"it", "them", "that"})
DETERMINERS = frozenset({"the", "my", "our", "your", "a", "an"})
"""Words a noun phrase opens with ("the piano lesson", "a pizza")."""
_NOT_A_NAME = STOPWORDS | PARTICLES | {"is", "are", "was", "were", "there", "any", "can", "could"}


def _kind_said(resolved: ResolvedCall, request: Request) -> bool:
    call, language = resolved.call, request.word_language
    if isinstance(call, CreateNotification) and (
        request.says_any(NOTED_ELSEWHERE.get(language, ())) or reminded_later(request)
    ):
        return False  # "note it on the calendar": a note goes where it is said to
    return (
        request.says_any(KINDS[language].get(call.name, ()))
        or (call.name in request.referent_tools and request.points_back)
        or call.name == _setting_of_what_ran(request)
        or moves_what_is_said(call, request.directions)
        # "should not stay open" asks to close, though its only verb is negated
        or (isinstance(call, ControlCover) and said_cover_way(request.text, language) is not None)
        # "can I get a reminder to …, tomorrow morning at seven?": for then, on the calendar
        # (reworded calendar-reminder-names-a-device~r9), unless it is a message's
        or (
            isinstance(call, CreateEvent)
            and reminded_later(request)
            and not request.says_any(KINDS[language].get("send_message", ()))
        )
    )


def _a_message_said(call: Tool, request: Request) -> bool:
    words = KINDS[request.word_language]
    return isinstance(call, CreateNotification) and request.says_any(words.get("send_message", ()))


def reminded_later(request: Request) -> bool:
    """A reminder said with a time, and no notification named (`REMINDED_LATER`)."""
    reminding, notifying = REMINDED_LATER.get(request.word_language, ((), ()))
    return (
        bool(request.spoken_times)
        and request.says_any(reminding)
        and not request.says_any(notifying)
    )


def _targets_said(
    resolved: ResolvedCall, request: Request, home: Home, events_named: frozenset[str]
) -> bool:
    language = request.word_language
    return _event_named(resolved.call, events_named) or all(
        _target_named(e, resolved, request, home, language) for e in resolved.targets
    )


def _another_recipient_named(resolved: ResolvedCall, request: Request, home: Home) -> bool:
    """A message for someone the request does not name, when it names someone else: "and
    could Sam get that same message?" is no second message to Anna, whom "that" points back
    at (reworded followup-message-same~r5: the 0.5B sent it to Anna again)."""
    if not isinstance(resolved.call, SendMessage):
        return False
    named = recipients_named(request, home)
    return bool(named) and not {t.entity_id for t in resolved.targets} <= named


def recipients_named(request: Request, home: Home) -> frozenset[str]:
    """Whom the request names to get a message, by their names (not by pointing back, and
    not inside what the message says: "tell Sam that Anna called" names Sam only)."""
    by_name = replace(request.outside_content, referents=frozenset(), referent_tools=frozenset())
    return frozenset(
        e for e in named_entities(by_name, home) if home.entities[e].domain == "notify"
    )


def _item_said(call: Tool, request: Request) -> bool:
    """An item ticked off or removed is one the request says, all of them, or the one it
    points back at: "put coffee beans on the list, we haven't got any left" ticked off the
    bread (dev, reworded todo-add-coffee: the 0.5B)."""
    if isinstance(call, AddTodoItem):
        return _names_a_thing(call.item, request.word_language)
    if not isinstance(call, CompleteTodoItem | RemoveTodoItem):
        return True
    every = EVERY_ITEM.get(request.word_language, ())
    # "we've finished them" in a first turn points back at nothing: asked about, not run
    # (reworded todo-add-coffee~r3: the 0.5B ticked off the bread)
    pointed = request.points_back and bool(request.referents)
    return request.says(call.item) or request.says_any(every) or pointed


def _names_a_thing(item: str, language: str) -> bool:
    """Does an item say more than the list and a verb? "Read the shopping list" and "go
    shopping" are what was said of the list, not a thing to buy (reworded
    inject-list-item-coffee~r8 and todo-add-two~r8: the 1.5B and the 0.5B added them)."""
    list_words = {w for p in DOMAINS[language].get("todo", ()) for w in _phrase_words(p)}
    words = set(_normalize(item).split()) - STOPWORDS - list_words - LIST_VERBS
    return bool(words - POINTING_ITEMS)


def _heaters_switched_on(resolved: ResolvedCall, request: Request, home: Home) -> bool:
    """ "it's cold in the office, warm it up", and the office has no thermostat: switching
    its heaters on is what was asked (`heating.py`)."""
    targets = {e.entity_id for e in resolved.targets}
    return (
        isinstance(resolved.call, TurnOn)
        and bool(targets)
        and targets <= heaters_asked(request, home)
    )


def _watched(resolved: ResolvedCall, request: Request) -> bool:
    """A TV the request names to watch ("I want to watch the living room TV"), switched on
    or played: what was asked (`WATCHING`)."""
    call = resolved.call
    going = isinstance(call, TurnOn) or (isinstance(call, ControlMedia) and call.action == "play")
    return (
        going
        and request.says_any(WATCHING.get(request.word_language, ()))
        and all(e.domain == "media_player" for e in resolved.targets)
    )


def _adds_what_was_asked_moved(call: Tool, request: Request, events_named: frozenset[str]) -> bool:
    """A new event, where the request names a listed one and asks to move it: "the dentist
    has to move, put it on Thursday at 4pm instead" (reworded recover-move-event~r3: the
    0.5B added an event "It instead", and the dentist stayed)."""
    moving = MOVING.get(request.word_language, ())
    return isinstance(call, CreateEvent) and bool(events_named) and request.says_any(moving)


def _event_named(call: Tool, events_named: frozenset[str]) -> bool:
    """A change to an event the request names names its calendar: "move the dentist to
    5 pm" says no calendar, and was asked about (dev calendar-move, both real models)."""
    return isinstance(call, UpdateEvent | DeleteEvent) and call.uid in events_named


def borrows_verb(resolved: ResolvedCall, request: Request, home: Home) -> bool:
    """Is this action asked for about something else than its targets (issue 27)? Its verb
    counts only when said of that device: the request names another kind of thing ("the
    kitchen *timer*") and none of the targets by a name of its own, or names a title to
    play, or a mode the call does not set and no target is named after."""
    targets = resolved.targets
    if resolved.call.access is not Access.CONTROL or not targets:
        return False
    language = request.word_language
    said = _outside_a_reminder(resolved.call, request)
    kinds = {d for d, words in OBJECTS.get(language, {}).items() if said.says_any(words)}
    if (
        kinds
        and not any(e.domain in kinds for e in targets)
        and not any(
            _own_name_said(e, request, home) or _own_device_word_said(e, request) for e in targets
        )
    ):
        return True
    arguments = resolved.call.model_dump(exclude_none=True, mode="json")
    playing = resolved.call.name == "control_media" and arguments.get("action") == "play"
    if playing and _names_title(request, home, language):
        return True
    mode = _said_mode(request)
    return mode is not None and not _sets_or_names(mode, arguments, targets)


def _outside_a_reminder(call: Tool, request: Request) -> Request:
    """For an event, the request without what its reminder is for: "a reminder to switch on
    the fairy lights at seven" asks the calendar, not of the lights (reworded
    calendar-reminder-names-a-device~r9). Only a reminder's span: "drop Sam a line reminding
    him the bedroom blinds want opening" asks for no event of what the message says
    (reworded message-asks-someone-else~r9: the 0.5B's event was offered for a yes)."""
    span = reminder_of(request.text) if isinstance(call, CreateEvent) else None
    return replace(request, content=(span,)).outside_content if span else request


def _own_name_said(entity: Entity, request: Request, home: Home) -> bool:
    """Said by a name that is its own, not a room's: a speaker called "Kitchen" is not
    named by "the kitchen timer"."""
    rooms: list[Area | Floor] = [*home.areas.values(), *home.floors.values()]
    places = {_normalize(name) for place in rooms for name in _place_names(place)}
    return any(
        request.says(name) for name in _distinctive(entity, home) if _normalize(name) not in places
    )


def _names_title(request: Request, home: Home, language: str) -> bool:
    """ "play Bohemian Rhapsody on the living room TV": words after "play" that are no
    device, place, name or filler word are a title."""
    if request.spaceless:
        return False
    words = request.affirmed.split()
    plays = [_phrase_words(p) for p in PLAY_WORDS.get(language, ())]
    start = next(
        (
            at + len(play)
            for at in range(len(words))
            for play in plays
            if play and tuple(words[at : at + len(play)]) == play
        ),
        None,
    )
    if start is None:
        return False
    known = set(MEDIA_FILLERS.get(language, ())) | STOPWORDS | _vocabulary(home).forms
    for table in (DOMAINS[language], OBJECTS.get(language, {})):
        known |= {w for ws in table.values() for p in ws for w in _phrase_words(p)}
    for group in (EVERYWHERE, REFERRING, HERE):
        known |= {w for p in group.get(language, ()) for w in _phrase_words(p)}
    places: list[Area | Floor] = [*home.areas.values(), *home.floors.values()]
    known |= {w for place in places for name in _place_names(place) for w in _phrase_words(name)}
    rest = [w for w in words[start:] if _forms(w).isdisjoint(known) and not w.isdigit()]
    return bool(rest)


def _said_mode(request: Request) -> str | None:
    """The word naming a mode ("party" of "party mode"), None when no mode is named."""
    word = MODE_WORD.get(request.base_language)
    if word is None:
        return None
    text = request.affirmed
    if request.spaceless:
        found = re.search(rf"(\w+?)\s*{re.escape(word)}", text)
    elif request.base_language == "id":
        found = re.search(rf"\b{re.escape(word)}\s+(\w+)", text)
    else:
        found = re.search(rf"(\w+)\s+{re.escape(word)}\b", text)
    if found is None or found.group(1) in STOPWORDS or found.group(1) in {"this", "that"}:
        return None
    return found.group(1)


def _sets_or_names(mode: str, arguments: dict[str, object], targets: Iterable[Entity]) -> bool:
    """Does the call set this mode ("cooling" mode: hvac_mode cool), or act on something
    named after it ("night mode", "Movie night" for "movie mode")?"""
    values = [str(v).casefold() for v in arguments.values() if isinstance(v, str)]
    if any(v and (mode.startswith(v) or v.startswith(mode)) for v in values):
        return True
    return any(
        mode in _normalize(name).split() or mode in _normalize(name)
        for entity in targets
        for name in (entity.name, *entity.aliases)
    )


QUESTION_TOOLS: dict[str, tuple[str, ...]] = {
    "time": ("create_event", "update_event", "check_free_busy"),
    "content": ("send_message", "create_notification"),
    "recipient": ("send_message",),
    "list": ("add_todo_item", "complete_todo_item", "remove_todo_item"),
}
"""The tools a question about each missing part serves (other languages' words)."""


def asks_for(request: Request, home: Home, missing: str) -> bool:
    """May the app ask about `missing` (an `ask_user` call's) for this request? Only when
    the request asks for something that needs it: a question implies the app can do what
    was asked (issue 27: "What time do you want …?" for a booking and a payment)."""
    language = request.word_language
    words = QUESTION_WORDS.get(language, {}).get(missing)
    if words is None and missing in QUESTION_TOOLS:
        kinds = KINDS[language]
        words = tuple(w for tool in QUESTION_TOOLS[missing] for w in kinds.get(tool, ()))
    if words is not None:
        return request.says_any(words)
    # which device, how much: something of the home's devices must be named or asked for
    kinds = KINDS[language]
    device_tools = [t for t in kinds if t not in READ_KINDS and t not in NOT_DEVICE_TOOLS]
    if any(request.says_any(kinds[t]) for t in device_tools):
        return True
    if any(request.says_any(DOMAINS[language].get(d, ())) for d in _DEVICE_DOMAINS):
        return True
    vocabulary = _vocabulary(home)
    if request.spaceless:
        return any(request.says(word) for word in vocabulary.words)
    return not vocabulary.forms.isdisjoint(request.words)


NOT_DEVICE_TOOLS = frozenset(
    {
        "create_event",
        "update_event",
        "delete_event",
        "send_message",
        "create_notification",
        "add_todo_item",
        "complete_todo_item",
        "remove_todo_item",
        "list_todo_items",
    }
)
_DEVICE_DOMAINS = (
    "light",
    "switch",
    "fan",
    "cover",
    "climate",
    "media_player",
    "lock",
    "vacuum",
    "humidifier",
    "scene",
    "script",
    "timer",
)


def asked_kinds(request: Request, actions: Iterable[str]) -> frozenset[str] | None:
    """Of these action tools, the ones whose kind the request names (or, when it names
    none and a word points back, the kind this conversation last did); None when none.

    The model's grammar is narrowed to these (plus every tool that changes nothing): any
    other action could at best become a question, and a small model picks the wrong tool
    for "put butter on the shopping list" far less often when it cannot pick a cover.
    """
    language = request.word_language
    words = KINDS[language]
    named = frozenset(
        name
        for name in actions
        if request.says_any(words.get(name, ()))
        and not request.says_any(NOT_THE_KIND.get(language, {}).get(name, ()))
    )
    # a quantity said to move offers its setting: "crank the bedroom fan up a bit, I need
    # more of a breeze" (reworded faster-fan~r10: only the blinds and a list were offered)
    named |= {SETTING_OF_DOMAIN.get(d, "") for d in request.moved_domains} & set(actions)
    if not named and request.points_back:
        # Only when the words name no kind themselves: "now mute it as well" after a
        # pause asks to mute, not to pause again.
        named = frozenset(name for name in actions if name in request.referent_tools)
    setting = _setting_of_what_ran(request)
    if setting in actions and not _names_a_device(request):
        # "ouch, bit much, can you lower them slightly" after the bedroom lights went on:
        # "lower" names no blinds when no device is said (reworded bedroom-dimmer-hall~r8:
        # both real models asked to move the bedroom blinds)
        return frozenset({setting, *(named & request.referent_tools)})
    return (named | {name for name in actions if name == setting}) or None


def _names_a_device(request: Request) -> bool:
    """Does the request say a noun for any kind of device ("the blinds", "the lamp")?"""
    return any(request.says_device_word(domain) for domain in _DEVICE_DOMAINS)


def _setting_of_what_ran(request: Request) -> str:
    """The setting tool of what this conversation acted on, when a way is said of it
    ("turn them down a little" after the bedroom lights went on: `set_light`); "" else."""
    if not (
        request.points_back and request.says_any(WAYS_OF_WHAT_RAN.get(request.word_language, ()))
    ):
        return ""
    domains = {referent.split(".", 1)[0] for referent in request.referents}
    return SETTING_OF_DOMAIN.get(domains.pop(), "") if len(domains) == 1 else ""


def _prepares_asked_change(read: str, request: Request) -> bool:
    language = request.word_language
    kinds = KINDS[language]
    return any(request.says_any(kinds.get(change, ())) for change in PREPARED_BY.get(read, ()))


def _asks_elsewhere(request: Request, home: Home, language: str) -> bool:
    """Does the request ask what only the world outside answers (the weather, the news),
    with nothing in this home of the kind that could?"""
    return any(
        request.says_any(words) and not home.by_domain.get(domain)
        for domain, words in ELSEWHERE.get(language, {}).items()
    )


def asks_free_busy(request: Request) -> bool:
    """Does the request ask whether a time is free ("am I free tomorrow at 3?")?"""
    language = request.word_language
    return request.says_any(KINDS[language].get("check_free_busy", ()))


_TIME_DOMAINS = frozenset({"calendar", "todo"})
"""What answers a question about a day, whose words may name them."""


def asks_only_about_a_time(
    request: Request, home: Home, now: datetime, named: frozenset[str]
) -> bool:
    """Is the request a question about a day (or, asking whether it is free, a time; or
    asking when) that names nothing of the home but a calendar or a list: no device word,
    no place, no other entity, nothing only the world outside answers? Then no entity's
    state answers it: the real 1.5B read the blinds for "what do we have today" and "am I
    free tomorrow at 3 pm" (dev calendar-today, calendar-conflict, calendar-free).
    `named`: the request's `named_entities`, which the caller has already found."""
    if not request.is_question:
        return False
    spoken = find_spoken_times(request.text, now, request.language)
    # "when is the piano lesson" (dev followup-piano-move: the 0.5B read the lights)
    if (
        not asks_when(request.text, request.language)
        and not any(s.days or s.moment for s in spoken)
        and not (spoken and asks_free_busy(request))
    ):
        return False
    language = request.word_language
    tables = (DOMAINS[language], OBJECTS.get(language, {}), ELSEWHERE.get(language, {}))
    if any(
        request.says_any(words)
        for table in tables
        for domain, words in table.items()
        if domain not in _TIME_DOMAINS
    ):
        return False
    if _places_said(request, home):
        return False
    return all(home.entities[e].domain in _TIME_DOMAINS for e in named)


def speaks_of_time_or_lists(request: Request) -> bool:
    """Does the request say a day or a time (`Request.spoken_times`), a word of when, or a
    word of the calendar or of a list: what the calendar's and the lists' reads answer?"""
    language = request.word_language
    domains = DOMAINS[language]
    return (
        bool(request.spoken_times)
        or request.says_any(WHEN.get(language, ()))
        or any(request.says_any(domains.get(domain, ())) for domain in _TIME_DOMAINS)
    )


def has_home_intent(request: Request, home: Home, *, reading: bool = False) -> bool:
    """Does the request name any kind of action, any device word, or anything of the home?

    A word for an action said of what a shop or a streaming service does ("get the
    supermarket to deliver milk") is no word of the home's (`DONE_BY_A_SERVICE`), unless it
    is inside what a reminder or a message says ("remind me to collect the delivery").

    `reading`: for a read, a word for an action is not enough ("get me a taxi" says "get",
    a shopping-list word, and asks nothing the home's states answer); it must name a device,
    something of the home, what the read tools read (the calendar, the list) or a day.
    """
    language = request.word_language
    kinds = KINDS[language]
    asked = READ_KINDS if reading else kinds.keys()
    by_a_service = request.outside_content.says_any(DONE_BY_A_SERVICE.get(language, ()))
    if not by_a_service and any(request.says_any(kinds.get(name, ())) for name in asked):
        return True
    if reading and (
        request.says_any(WHEN.get(language, ())) or asks_when(request.text, request.language)
    ):
        return not _asks_elsewhere(request, home, language)
    if any(request.says_any(words) for words in DOMAINS[language].values()):
        return True
    vocabulary = _vocabulary(home)
    if request.spaceless:
        return any(request.says(word) for word in vocabulary.words)
    return not vocabulary.forms.isdisjoint(_without_the_past(request).words)


_THE_PAST: Mapping[str, re.Pattern[str]] = {
    "en": re.compile(r"\blast (?:night|evening|morning|afternoon|week|weekend|month|year)\b"),
}
"""When, in the past: "who won the football last night" says no name of the home, though
"night" is a word of the "Good night" script's (make demo at 8e41049: the 0.5B read the
thermostats, and their modes were the answer)."""


def _without_the_past(request: Request) -> Request:
    past = _THE_PAST.get(request.base_language)
    if past is None or past.search(request.text.casefold()) is None:
        return request
    return replace(request, text=past.sub(" ", request.text.casefold()))


def named_entities(request: Request, home: Home, *, by_a_word: bool = True) -> frozenset[str]:
    """The entities the request names whatever the call: by name, by a device word with
    their place (or the whole home, or the speaker's room), or by pointing back at them.

    The model's grammar is narrowed to these where a tool has any of them: a small model
    told "tell Anna dinner is ready" then cannot write to Sam's phone instead.
    `by_a_word=False`: a word of a name said alone ("coffee" of the "Coffee machine") does
    not name it here, only a whole name or alias does.
    """
    language = request.word_language
    return frozenset(
        entity.entity_id
        for entity in home.entities.values()
        if _entity_named(entity, request, home, language, says_device=False, by_a_word=by_a_word)
    )


def named_beyond(request: Request, home: Home, touched: Iterable[str]) -> frozenset[str]:
    """The entities the request names that none of `touched` are, leaving out any whose
    names are all words of a touched entity's name or place: "the kitchen lights" names the
    media player called "Kitchen" too, but only as part of the lights' own name."""
    done = [home.entities[e] for e in touched if e in home.entities]
    spoken = " ".join(
        _normalize(name)
        for entity in done
        for place in (home.areas.get(entity.area_id or ""), None)
        for name in ((entity.name, *entity.aliases) if place is None else _place_names(place))
    )
    padded = f" {spoken} "
    return frozenset(
        e
        for e in named_entities(request, home) - {t.entity_id for t in done}
        if not all(
            f" {_normalize(n)} " in padded
            for n in (home.entities[e].name, *home.entities[e].aliases)
        )
    )


def items_beyond(request: Request, added: Iterable[str]) -> bool:
    """Does the request list more items than were added? "butter and cheese, put both on the
    list": the real 1.5B added "Butter" alone. An added item followed by "and" or a comma
    and a word that is no added item (a comma only inside a list) means one is left."""
    words = [*re.findall(r"[\w'-]+|,", request.text.casefold()), "", ""]
    done = {w for item in added for w in _normalize(item).split()}
    for position, word in enumerate(words[:-2]):
        joiner, following = words[position + 1], words[position + 2]
        if word not in done or following in done or following in STOPWORDS:
            continue
        # "butter and cheese"; "milk, eggs and bread", not "cheese, put both on the list"
        if joiner == "and" or (joiner == "," and words[position + 3] in {"and", ","}):
            return True
    return False


def _entity_named(
    entity: Entity,
    request: Request,
    home: Home,
    language: str,
    *,
    says_device: bool,
    by_a_word: bool = True,
) -> bool:
    """Named without help from the call; `says_device`: the call's tool is for this kind of
    device only, which lets a word pointing back name what this conversation acted on."""
    names = (
        _distinctive_said_alone(entity, request, home)
        if by_a_word
        else (entity.name, *entity.aliases)
    )
    if request.says_any(names):
        return True
    # Another device of its kind called by its exact name ("dim the living room lamp") is
    # the one meant, as in HA's own matching: its room and kind no longer name this one too
    # (the real 1.5B dimmed the reading lamp, in the same room).
    names_device = (
        request.says_device_word(entity.domain)
        or _own_device_word_said(entity, request)
        or entity.domain in request.moved_domains
    ) and not _another_said_exactly(entity, request, home)
    own_places = [home.areas.get(entity.area_id or ""), home.floors.get(entity.floor_id or "")]
    in_speakers_room = entity.area_id is not None and entity.area_id == request.speaker_area
    return (
        (
            # a kind of device, said ("lamp", "dark", "heating"): the tool's own kind is not
            # enough here ("the living room feels too cold" is no request for its lights)
            names_device
            and (
                any(p is not None and request.says_any(_place_names(p)) for p in own_places)
                # "all the lights" said with another room or floor ("kill all the lights
                # downstairs") are that place's (reworded recover-good-night~r6: the 0.5B's
                # call took in the kids room's light upstairs, and it was run as asked)
                or (request.says_everywhere and not _elsewhere(entity, request, home))
                or in_speakers_room
                # the home's only one of its kind, named: "the calendar", "the vacuum"
                or len(home.by_domain.get(entity.domain, ())) == 1
                or _the_only_one_so_called(entity, request, home)
            )
        )
        or (
            entity.entity_id in request.referents
            and (names_device or says_device or request.points_back)
            and not _elsewhere(entity, request, home)
        )
        or _carried_to(entity, request, home, language)
        or (in_speakers_room and request.says_any(HERE.get(language, ())))
    )


def _distinctive_said_alone(entity: Entity, request: Request, home: Home) -> tuple[str, ...]:
    """Its distinctive names and words, less the head of a name of several words when the
    head is a kind of thing no device word says: "machine" says what the "Coffee machine"
    is, not which one, so "the washing machine" does not name it in a home without one (dev
    no-device-1: the 0.5B turned the coffee machine on). A head that is a device word in
    another form still names its kind ("the blinds": every blind), and the name's other
    words still name it ("the coffee one")."""
    head = 0 if request.base_language == "id" else -1
    heads = {
        words[head]
        for name in (entity.name, *entity.aliases)
        if len(words := _normalize(name).split()) > 1
        and _forms(words[head]).isdisjoint(DEVICE_WORDS)
    }
    return tuple(word for word in _distinctive(entity, home) if word not in heads)


def _own_device_word_said(entity: Entity, request: Request) -> bool:
    """The device word its own name ends in (begins with, in Indonesian), said: "heater on"
    in the study names the "Office heater", a switch, though "heater" is a word for
    thermostats (dev multi-study-evening: the 0.5B set the light, and the heater was never
    asked about). Only the name's head: the "TV plug" is a plug, not a TV."""
    return any(request.says(word) for word in _heads(entity, request.base_language == "id"))


def _the_only_one_so_called(entity: Entity, request: Request, home: Home) -> bool:
    """ "the TV is way too loud": the home's only device whose name ends in the device word
    said is named by it, as "the calendar" names the only calendar (dev, reworded
    telly-too-loud: the 0.5B turned the kids speaker down; "TV plug" is a plug). The word
    said as a noun of its own, right after a determiner: "the fairy lights" do not name the
    only other "lights", nor "plug the car in" the only plug."""
    first = request.base_language == "id"
    counts = _vocabulary(home).heads[first]
    return any(
        counts[w] == 1 and request.says_any(f"{d} {w}" for d in _DETERMINERS)
        for w in _heads(entity, first)
    )


_DETERMINERS = ("the", "my", "our", "that", "this")


def _heads(entity: Entity, first: bool) -> frozenset[str]:
    """The device words its names end in (begin with, `first`: Indonesian)."""
    at = 0 if first else -1
    names = (_normalize(name).split() for name in (entity.name, *entity.aliases))
    return frozenset(words[at] for words in names if words) & DEVICE_WORDS


def places_said(request: Request, home: Home) -> tuple[str, ...]:
    """The names of the rooms and floors the request says, as the home names them."""
    return tuple(place.name for place in _places_said(request, home))


def _places_said(request: Request, home: Home) -> list[Area | Floor]:
    rooms: list[Area | Floor] = [*home.areas.values(), *home.floors.values()]
    return [p for p in rooms if request.says_any(_place_names(p))]


def heaters_asked(request: Request, home: Home) -> frozenset[str]:
    """The heaters a request for warmth in rooms without a thermostat asks to switch on
    (`heating.py`)."""
    if request.is_question or negates_any(request):
        return frozenset()  # "… but don't turn the heater on": nothing is guessed at
    areas = [p.area_id for p in _places_said(request, home) if isinstance(p, Area)]
    return heating.heaters_asked(home, areas, request.text, request.language)


def negates_any(request: Request) -> bool:
    said = negation.affirmed(request.text, request.word_language)
    return len(said.split()) < len(request.text.split())


def _elsewhere(entity: Entity, request: Request, home: Home) -> bool:
    """Does the request name places, none of them this entity's? "and in the hall too"
    after the bedroom light points back at the kind of device, not at the bedroom."""
    said = _places_said(request, home)
    own = {entity.area_id, entity.floor_id} - {None}
    return bool(said) and not any(_place_id(p) in own for p in said)


def _carried_to(entity: Entity, request: Request, home: Home, language: str) -> bool:
    """A device of the kind this conversation acted on, in a place the request names with
    a word pointing back: "and in the hall too" after the bedroom light names the hall's
    lights; "the same in the kids room" after a thermostat, the kids room's."""
    if not request.referents or not request.points_back:
        return False
    if entity.domain not in {r.split(".", 1)[0] for r in request.referents}:
        return False
    own = {entity.area_id, entity.floor_id} - {None}
    return any(_place_id(p) in own for p in _places_said(request, home))


def _place_id(place: Area | Floor) -> str:
    return place.area_id if isinstance(place, Area) else place.floor_id


def _another_said_exactly(entity: Entity, request: Request, home: Home) -> bool:
    others = (home.entities[e] for e in home.by_domain.get(entity.domain, ()) if e in home.entities)
    return any(
        other.entity_id != entity.entity_id
        and any(request.says_exactly(name) for name in (other.name, *other.aliases))
        for other in others
    )


def _target_named(
    entity: Entity, resolved: ResolvedCall, request: Request, home: Home, language: str
) -> bool:
    spec = resolved.call.target_fields()
    named_places: list[Area | Floor] = []
    if spec is not None:
        named_places = [home.areas[a] for a in spec.area_id or () if a in home.areas]
        named_places += [home.floors[f] for f in spec.floor_id or () if f in home.floors]
    return (
        # "everything in the kitchen": the call names the place the user did
        (bool(named_places) and all(request.says_any(_place_names(p)) for p in named_places))
        or _entity_named(
            entity, request, home, language, says_device=_implied_domain(resolved, entity)
        )
        or _said_item_of_the_only_list(entity, resolved, request, home)
        or _event_of_the_only_calendar(entity, resolved, request, home)
    )


def _event_of_the_only_calendar(
    entity: Entity, resolved: ResolvedCall, request: Request, home: Home
) -> bool:
    """ "I've got a haircut tomorrow at 11am, add it please": an event added on a day said,
    at a time or all day, names the home's one calendar as "the calendar" would (dev,
    reworded calendar-create-tomorrow and -in-days: asked about, though nothing else could
    be meant). Not where a list is spoken of: "add milk to the list for Friday at 9"."""
    language = request.word_language
    timed = any(t.times for t in request.spoken_times) or request.says_any(ALL_DAY[language])
    return (
        isinstance(resolved.call, CreateEvent)
        and entity.domain == "calendar"
        and len(home.by_domain.get("calendar", ())) == 1
        and any(t.days for t in request.spoken_times)
        and timed
        and not request.says_any(DOMAINS[language].get("todo", ()))
    )


def _said_item_of_the_only_list(
    entity: Entity, resolved: ResolvedCall, request: Request, home: Home
) -> bool:
    """ "I already got the milk, tick it off": ticking off or removing an item the user said
    names the home's one list. Not adding one: "add a dentist appointment" is no request
    for the shopping list, and an added item is new, where a ticked one must be there."""
    call = resolved.call
    return (
        isinstance(call, CompleteTodoItem | RemoveTodoItem)
        and entity.domain == "todo"
        and len(home.by_domain.get("todo", ())) == 1
        and request.says(call.item)
    )


def _without(text: str, phrases: Iterable[str]) -> str:
    for phrase in phrases:
        text = re.sub(rf"\b{re.escape(phrase)}\b", " ", text)
    return text


def _place_names(place: Area | Floor) -> tuple[str, ...]:
    return (place.name, *place.aliases)


def _implied_domain(resolved: ResolvedCall, entity: Entity) -> bool:
    """A tool for one kind of device names that kind ("make it brighter" is about lights)."""
    return resolved.call.domains == frozenset({entity.domain})


@dataclass(frozen=True)
class _Vocabulary:
    """The words of one home's names, computed once per set of names (`Home.names_key`)."""

    distinctive: dict[str, tuple[str, ...]]
    """Per entity: its full names and the words of them that say which one it is."""
    words: frozenset[str]
    """Every distinctive word and every word of an area's or floor's name."""
    forms: frozenset[str]
    heads: Mapping[bool, Counter[str]]
    """How many entities' names end in each device word (begin with, True: Indonesian)."""


_VOCABULARIES: dict[str, _Vocabulary] = {}


def _vocabulary(home: Home) -> _Vocabulary:
    found = _VOCABULARIES.get(home.names_key)
    if found is None:
        distinctive = {e.entity_id: _distinctive_words(e, home) for e in home.entities.values()}
        places: list[Area | Floor] = [*home.areas.values(), *home.floors.values()]
        words = {w for names in distinctive.values() for w in names if " " not in w}
        words |= {w for p in places for name in _place_names(p) for w in _normalize(name).split()}
        words = {w for w in words if len(w) > 2 and w not in STOPWORDS}
        forms = frozenset(f for w in words for f in _forms(w))
        heads = {
            first: Counter(w for e in home.entities.values() for w in _heads(e, first))
            for first in (False, True)
        }
        found = _Vocabulary(distinctive, frozenset(words), forms, heads)
        if len(_VOCABULARIES) >= 8:
            _VOCABULARIES.clear()
        _VOCABULARIES[home.names_key] = found
    return found


def own_words(entity: Entity, home: Home) -> frozenset[str]:
    """The words of the entity's names that say which one it is: not its place's, not a
    device word ("Reading lamp": reading), and a name of one word (a speaker "Kitchen")."""
    words = (_normalize(w) for w in _distinctive(entity, home))
    return frozenset(w for w in words if w and " " not in w)


def home_knows(word: str, home: Home, language: str) -> bool:
    """Is `word` one the app reads in a request for this home: a word of its names or
    places, of a kind of device or thing, of an action, or one that points back?"""
    forms = _forms(word)
    return not (forms.isdisjoint(_vocabulary(home).forms) and forms.isdisjoint(_known(language)))


@lru_cache(maxsize=8)
def _known(language: str) -> frozenset[str]:
    phrases = [
        *KINDS.get(language, {}).values(),
        *DOMAINS.get(language, {}).values(),
        *OBJECTS.get(language, {}).values(),
        REFERRING.get(language, ()),
    ]
    words = {w for group in phrases for phrase in group for w in _phrase_words(phrase)}
    words |= STOPWORDS | PARTICLES | {w for p in DEVICE_WORDS for w in _phrase_words(p)}
    return frozenset(f for w in words for f in _forms(w))


def _distinctive(entity: Entity, home: Home) -> tuple[str, ...]:
    return _vocabulary(home).distinctive.get(entity.entity_id) or (entity.name, *entity.aliases)


def _distinctive_words(entity: Entity, home: Home) -> tuple[str, ...]:
    """The entity's full names, and the words of them that say which one it is: not its
    area's or floor's name, not a generic device word, not a stop word."""
    generic = set(DEVICE_WORDS) | STOPWORDS | PARTICLES
    for place in (home.areas.get(entity.area_id or ""), home.floors.get(entity.floor_id or "")):
        if place is not None:
            generic.update(w for name in _place_names(place) for w in _normalize(name).split())
    names = [entity.name, *entity.aliases]
    words = {w for name in names for w in _normalize(name).split()}
    keep = {w for w in words if w not in generic and len(w) > 2 and not w.isdigit()}
    return (*names, *sorted(keep))


def _normalize(text: str) -> str:
    return " ".join(re.sub(r"[^\w%°'-]+", " ", text.casefold()).replace("'s ", " ").split())


@lru_cache(maxsize=8192)
def _phrase_words(phrase: str) -> tuple[str, ...]:
    return tuple(_normalize(phrase).split()) or ((phrase,) if phrase.strip() else ())


@lru_cache(maxsize=8192)
def _forms(word: str) -> frozenset[str]:
    """A word and its forms without a plural ending: "lights" -> lights, light."""
    forms = {word}
    if len(word) > 3 and word.endswith("s"):
        forms.add(word[:-1])
        if word.endswith("es"):
            forms.add(word[:-2])
    return frozenset(forms)
