"""Content spans by code: what a list item, an event title or a message says, from the words.

A small model copies content badly: an event became titled with the whole tail of the
sentence (who, which calendar, the day and the time), a list item became a question (issue
27). Where the request's shape says plainly where the content is ("add oat milk to the
shopping list", "remind me on Friday at 3 to call the dentist", "tell Sam that dinner is
ready"), the code reads that span, and the span wins over the model's when they differ
(docs/decisions.md, D68): the model still chooses the tool, the list, the calendar and the
recipient. Where the shape is not plain (other wordings, languages without patterns here),
the model's content stands, checked as before. Pure; English patterns.
"""

from __future__ import annotations

from datetime import datetime
import re

from botpsy_agent.words.clauses import said_parts
from botpsy_agent.words.spoken_time import find_spoken_times
from tool_schemas.base import Tool
from tool_schemas.calendar import CreateEvent
from tool_schemas.catalog import ToolCallError, parse_tool_call
from tool_schemas.messaging import AddTodoItem, CreateNotification, SendMessage

_POINTING = frozenset({"it", "them", "that", "this", "those", "these", "both", "all", "everything"})
_HOW_MUCH = frozenset({"some", "more", "some more", "a few", "a couple", "another", "one"})
"""An item said only by how much of it: what it is was said before ("the last coffee beans got
used this morning, chuck some onto the list": reworded todo-add-coffee~r9, "some" was added)."""
_ARTICLES = re.compile(r"^(?:some|a|an|the|more)\s+")
_POLITE = frozenset({"please", "thanks", "now"})
_FILLERS = frozenset({"instead", "too", "again", "also"})
"""Words with "it" that say no title: "put it on Thursday at 4pm instead" (reworded
recover-move-event~r3: an event titled "It instead")."""
_CALENDAR = r"(?:the|my|our)\s+(?:[\w'-]+\s+)?calendar"

_ITEM = re.compile(
    # "note down eggs and flour" (reworded todo-note-two~r7: "down eggs" went on the list);
    # "pop butter and cheese on the shopping list" (reworded todo-add-two~r7)
    r"\b(?:note\s+down|write\s+down|jot\s+down|add|put|note|remember|stick|pop|chuck"
    # "mind jotting eggs plus flour onto our shopping list" (reworded todo-note-two~r9: the
    # 1.5B added the eggs alone)
    r"|jotting(?:\s+down)?|adding|putting|popping|sticking|chucking)\s+"
    r"(?P<item>.+?)\s+"
    r"(?:to|on|onto|in)\s+(?:the|my|our)\s+(?:[\w'-]+\s+)?list\b"
)
_NEEDED = re.compile(
    r"\b(?:we|i)(?:(?:'ll|\s+will)?\s+need|(?:'re|\s+are)\s+(?:nearly\s+|almost\s+)?"
    r"(?:out\s+of|low\s+on)|\s+ran\s+out\s+of)\s+"
    r"(?P<item>.+?)\s*[,.;]\s*"
    r"(?:so\s+)?(?:(?:can|could|would|will)\s+you\s+|please\s+)?"
    r"(?:(?:note|add|put|write|stick|jot|pop)\s+(?:that|it|them|those|these|both)\s+(?:down\s+)?"
    # "we're nearly out of both butter and cheese, so both of those need to go on the
    # shopping list" (reworded todo-add-two~r8: the 0.5B added "go shopping")
    r"|(?:both\s+of\s+)?(?:that|it|them|those|these|both)\s+(?:needs?|has|have)\s+to\s+go\s+)"
    r"(?:to|on|onto|in)\s+(?:the|my|our)\s+(?:[\w'-]+\s+)?list\b"
)
_REMINDER = re.compile(
    # "at 7 am tomorrow I want reminding to turn on the coffee machine" (reworded
    # calendar-reminder-names-a-device~r7: the 0.5B switched it on)
    r"\b(?:remind\s+(?:me|us)|an?\s+reminder|(?:want|need)\s+reminding)\b"
    rf"(?P<rest>.*?)\bto\s+(?!{_CALENDAR}\b)(?P<what>.+)$"
)
"""'remind me on Friday to …', 'set a reminder for 7 tomorrow morning to …', 'I need a
reminder at 7 … to …', whatever the verb (dev, reworded calendar-reminder-names-a-device,
~r4 too: the 0.5B switched the coffee machine on)."""
_EVENT = re.compile(
    r"\b(?:add|put|schedule|book in|plan|create"
    # "note swimming down on the family calendar", "book a vet visit into the calendar"
    # (reworded calendar-create~r6, -in-days~r6), "pencil in a haircut" (make demo)
    # not "pencil it in …", whose "it" was said before (reworded calendar-create-in-days~r9)
    r"|note|pencil in|pencil|stick|jot|book)\s+(?!(?:it|that|this|them)\b)(?P<what>.+?)"
    rf"(?:(?:\s+down)?\s+(?:to|on|in|into)\s+{_CALENDAR}\b(?P<tail>.*))?$"
)
_ENTRY = re.compile(
    r"\b(?:make|add|put|create)\s+an?\s+(?:new\s+)?(?:all[ -]day\s+)?"
    r"(?:entry|event|appointment)\b.*?\bfor\s+(?P<what>.+)$"
)
"""'make an all day entry on Friday for grandma's birthday' (dev, reworded
calendar-create-allday: the 0.5B's title ran on, "birthday birthday …")."""
_HAD_THEN_ADDED = re.compile(
    r"\b(?:i've|i have|we've|we have|i|we"
    # "the kids have swimming Saturday, 10 o'clock till 11, pop that onto the family
    # calendar", "this Saturday there's swimming from ten till eleven …, mind adding that
    # to the family calendar?" (reworded calendar-create~r9 and ~r8: the title ran on)
    r"|the\s+(?:kids|children)\s+have|there's|there\s+is)"
    r"\s+(?:got\s+)?(?:an?\s+)?(?P<what>.+?)\s*"
    # "Saturday at 10 we've got swimming, it's an hour long, can you get it in the family
    # calendar" (reworded calendar-create~r7: a clause between, and "get it in")
    r"(?:,|\band\b|\bso\b)\s*(?:(?:it's|it\s+is|it\s+takes|it\s+lasts)[^,]*,\s*"
    r"|[^,]*\d[^,]*,\s*)?"  # or when: "…, 10 o'clock till 11, …"
    r"(?:so\s+)?(?:please\s+)?(?:(?:can|could)\s+you\s+)?(?:mind\s+)?"
    r"(?:add|put|note|pop|mark|get|adding|putting|popping|noting)\s+(?:it|that|this)\b"
)
"""'I've got a haircut tomorrow at 11am, add it please': what "it" is was said first (in
`make demo`, the 0.5B titled it after the conversation's last event, "Switch on the coffee
machine")."""
_DUE_THEN_ADDED = re.compile(
    r"\b(?:\w+'s|\w+\s+is|\w+\s+are)\s+due\s+(?:an?\s+)?(?P<what>[^,]+?)\s*,\s*"
    r"(?:so\s+)?(?:please\s+)?(?:(?:can|could)\s+you\s+)?"
    r"(?:pencil|put|add|pop|book|note|stick)\s+(?:it|that|this)\b"
)
"""'the dog's due a vet visit, pencil it in three days out' (reworded
calendar-create-in-days~r9: titled "It out, start, lasting")."""
_TOPIC_THEN_ADDED = re.compile(
    # a noun phrase of a few words, no verb in it ("the dentist has to move, put it on …"
    # says what happens to an event already there)
    r"^(?:so\s+|right\s+|ok\s+)?(?:the\s+|my\s+|our\s+|a\s+)?"
    r"(?P<what>(?:(?!(?:has|have|had|is|are|was|were|needs?|to|will|can|'s)\b)[\w'-]+\s*){1,4}?)"
    r"\s*,\s*"
    r"(?:so\s+)?(?:please\s+)?(?:(?:can|could|would)\s+you\s+)?"
    r"(?:schedule|add|put|book|note|pop|stick|pencil|mark|get)\s+(?:it|that|this)\b"
)
"""'the vet visit, can you schedule it for 9:30 am in three days' time?': what "it" is was
said first (reworded calendar-create-in-days~r7: an event titled "It for ? it only takes")."""
_DURATION = re.compile(
    r"(?:,?\s*\bfor\s+)?(?:,?\s*\b(?:an?|one|two|three|half an?|\d+(?:\.\d+)?)\s+"
    r"(?:hours?|minutes?|mins?)(?:\s+long)?)|,?\s*\ball[ -]day\b"
    r"|\bhalf[- ]hour\b"  # "a half-hour vet visit" (reworded calendar-create-in-days~r3)
)
_ASKED_AFTER = re.compile(r"\s*,\s*(?:(?:can|could|would|will)\s+you|please)\b.*$")
"""A request after the title: "… to turn on the coffee machine, can you sort that"."""
_ON_CALENDAR = re.compile(rf"\s*\b(?:to|on|in|into)\s+{_CALENDAR}\b")
_SAYING = re.compile(
    r"\b(?:message|text|notification)\s+(?:that says|saying|that)\s*:?\s+(?P<body>.+)$"
)
_TO_SOMEONE = (
    r"\blet\s+{who}\s+know\s+(?:that\s+)?(?P<body>.+)$",
    # "message Anna for me: dinner's ready", "message Anna and tell her I'm home" (reworded
    # followup-message-same~r5 and child-messages-anna~r5: the 0.5B sent "for me: …", "and
    # tell her …")
    # "ping Anna, the counter lights haven't been switched off yet" (reworded
    # message-names-a-device~r9: the 0.5B switched them off and asked what to say)
    r"^(?:please\s+)?(?:can you\s+|could you\s+)?(?:tell|text|message|ping|warn|buzz)\s+{who}"
    r"(?:\s+for\s+me)?\s*[:,]?\s+(?:and\s+(?:tell|let)\s+(?:her|him|them)\s+(?:know\s+)?)?"
    # "text Anna to say I'm running late" tells what is said (make demo at 57f51ec sent
    # "say I'm running ten minutes late")
    r"(?:that\s+|to\s+(?:say|let\s+(?:her|him|them)\s+know)\s+(?:that\s+)?|to\s+)?"
    r"(?P<body>.+)$",
    # "send Sam a message to open the bedroom blinds" (dev, reworded message-asks-someone-
    # else: the 0.5B opened them)
    r"^(?:please\s+)?(?:can you\s+|could you\s+)?send\s+{who}\s+an?\s+(?:message|text|note)\s+"
    r"(?:saying\s+|that\s+|to\s+)?(?P<body>.+)$",
    # "drop Sam a line reminding him the bedroom blinds want opening" (reworded
    # message-asks-someone-else~r9: the 0.5B opened them)
    r"^(?:please\s+)?(?:can you\s+|could you\s+)?drop\s+{who}\s+a\s+(?:line|message|text|note)\s+"
    r"(?:saying\s+|that\s+|to\s+say\s+(?:that\s+)?|reminding\s+(?:her|him|them)\s+(?:that\s+)?)?"
    r"(?P<body>.+)$",
    # "Anna needs to know the counter lights are still on, please message her about it"
    # (reworded message-names-a-device~r8: the 0.5B asked what to say)
    r"^{who}\s+(?:needs|has|ought)\s+to\s+know\s+(?:that\s+)?(?P<body>[^,;]+)",
    # "give Sam a heads-up that grandma's arriving at six" (reworded message-sam-grandma~r5)
    r"^(?:please\s+)?(?:can you\s+|could you\s+)?give\s+{who}\s+a\s+heads[- ]up\s+"
    r"(?:that\s+)?(?P<body>.+)$",
)
_ASKED_OF_THEM = (
    r"(?:^|[,;.!]\s*)(?:so\s+)?(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+)?"
    r"(?:text|message|ping)\s+{who}\s+and\s+ask\s+(?:her|him|them)\s+(?:to|if\s+she'd|if\s+he'd)?\s*"
    r"(?P<body>.+)$"
)
"""'we've got no bread, could you text Anna and ask her to pick some up on her way home'
(reworded message-anna-bread~r8: the 0.5B sent "and ask her to pick some up …"): what to
ask, put to them, after the fact said first."""
_TO_YOU = {"her": "your", "his": "your", "him": "you", "she": "you", "he": "you", "them": "you"}
_TO_YOU_VERBS = (
    (r"\b(?:he|she|they) is\b", "you are"),
    (r"\b(?:he|she|they)'s\b", "you're"),
    (r"\b(?:he|she) was\b", "you were"),
    (r"\b(?:he|she) has\b", "you have"),
)
_NOTIFIED_AFTER = re.compile(
    r"^(?P<body>[^,;.!]+?)\s*[,;]\s*(?:so\s+)?(?:(?:can|could|would)\s+you\s+|please\s+)?"
    r"(?:put\s+out|send|post|make)\s+an?\s+notification\b"
)
"""The fact first, then the notification that tells it: "the bins go out tonight, put out a
notification to remind everyone" (reworded notify-bins~r7: the 0.5B asked what to say)."""
_TOLD_BEFORE = (
    r"(?:^|[,;.!]\s*)(?P<body>[^,;.!]+?)\s*[,;!]\s*(?:and\s+)?(?:so\s+)?"
    r"(?:(?:can|could|would|will)\s+you\s+|please\s+)?"
    # "dinner's ready, tell Anna", "I'm home! can you tell Anna" (reworded
    # followup-message-same~r7, child-messages-anna~r7: the 0.5B asked what to say)
    r"(?:let\s+{who}\s+know\b|(?:tell|text|message)\s+{who}(?:\s+please)?\s*[.!?]?$)"
)
"""The fact first, then "let … know": "grandma's coming at six, can you let Sam know",
"breakfast is ready, so let Sam know, and …" (reworded message-sam-grandma~r3 and
multi-blinds-and-message~r3: the 0.5B asked what to say, and sent "in the Bedroom")."""


def list_item(text: str) -> str | None:
    """ "add oat milk to the shopping list" -> "oat milk"; None where the words point back
    ("put them on the list") or have no such shape."""
    folded = _folded(text)
    found = _ITEM.search(folded)
    if found is None:
        return None
    said = found.group("item")
    after = folded[found.end() :].lstrip()
    if after.startswith(":"):  # "add two things to the shopping list: butter and cheese"
        said = after[1:]  # (reworded todo-add-two~r3: both real models added "two things")
    item = _ARTICLES.sub("", said.strip(" ,.")).strip()
    if not item or item in _HOW_MUCH or set(item.split()) & _POINTING:
        return None
    return item


def event_title(text: str, now: datetime, language: str) -> str | None:
    """ "remind me on Friday at 3 to call the dentist" -> "call the dentist"; "add swimming
    to the family calendar on Saturday at 10" -> "swimming": what happens, without who,
    which calendar, the day, the time or how long."""
    folded = _folded(text)
    reminder = _REMINDER.search(folded)
    found = (
        reminder
        or _ENTRY.search(folded)
        or _HAD_THEN_ADDED.search(folded)
        or _DUE_THEN_ADDED.search(folded)
        or _TOPIC_THEN_ADDED.search(folded)
        or _EVENT.search(folded)
    )
    if found is None:
        return None
    what = found.group("what")
    for spoken in find_spoken_times(what, now, language):
        what = what.replace(spoken.said.casefold(), " ")
    what = _ASKED_AFTER.sub("", what)
    what = _DURATION.sub(" ", what)
    what = _ON_CALENDAR.sub(" ", what)
    what = _ARTICLES.sub("", " ".join(what.replace(" ,", ",").split()).strip(" ,.?!"))
    if not what or set(what.split()) - _POLITE - _FILLERS <= _POINTING:
        return None  # "add it please": what it is was said before (the model's to copy)
    return what[0].upper() + what[1:]


def message_body(text: str, recipient_names: tuple[str, ...] = ()) -> str | None:
    """ "tell Sam that dinner is ready" -> "dinner is ready". After "tell"/"text"/"let …
    know", only where the recipient is said by one of `recipient_names` (or the first word
    of one: "Sam" of "Sam's phone"): a recipient may be several words ("the broken phone").
    A later part of the request may say it: "open the bedroom blinds and tell Sam breakfast
    is ready" (dev multi-blinds-and-message: the 0.5B sent "Sam is ready")."""
    body = _body(text, recipient_names)
    if body is not None:
        return body
    for part in said_parts(text, "en")[1:]:
        start = text.find(part)
        if start > 0 and (body := _body(text[start:], recipient_names)) is not None:
            return body
    return None


def _body(text: str, recipient_names: tuple[str, ...]) -> str | None:
    folded = " ".join(text.strip().split())
    lowered = folded.lower()  # .lower keeps the positions
    found = _SAYING.search(lowered)
    if found is None and (notified := _NOTIFIED_AFTER.search(lowered)) is not None:
        found = None if re.match(_COMMAND, notified.group("body")) else notified
    who = _who(recipient_names)
    if found is None and who is not None:
        if asked := re.search(_ASKED_OF_THEM.format(who=who), lowered):
            return _asked_of_them(folded, asked)
        for pattern in _TO_SOMEONE:
            found = re.search(pattern.format(who=who), lowered)
            if found is not None and not _only_polite(found.group("body")):
                break
            found = None  # "let Anna know please": the fact, if any, came first
        if found is None:
            found = re.search(_TOLD_BEFORE.format(who=who), lowered)
            if found is not None and re.match(_COMMAND, found.group("body")):
                return None  # "switch the heater on, and let Sam know": what was done
    if found is None:
        return None
    start, end = found.span("body")
    body = _before_next_command(folded[start:end])
    return body.strip(" .!?") or None  # as said, its own capitals kept


def _who(recipient_names: tuple[str, ...]) -> str | None:
    """A pattern for a recipient said by one of its names (or the first word of one)."""
    names = {name.lower() for name in recipient_names if name}
    firsts = (name.lower().split()[0].removesuffix("'s") for name in names)
    names |= {word for word in firsts if len(word) > 2 and word not in {"the", "my", "our"}}
    if not names:
        return None
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return rf"(?:the\s+)?(?:{alternatives})(?:'s)?(?:\s+phone)?"


def _message_spans(text: str, recipient_names: tuple[str, ...]) -> tuple[str, ...]:
    """What a message says, as the request says it: a message put to the person in other
    words ("could you …, your way home") is the fact and the asking as said."""
    folded = " ".join(text.strip().split())
    who = _who(recipient_names)
    asked = None if who is None else re.search(_ASKED_OF_THEM.format(who=who), folded.lower())
    if asked is not None:
        fact = _fact_before(folded, asked)
        return tuple(span for span in (fact, folded[slice(*asked.span("body"))]) if span)
    body = message_body(text, recipient_names)
    return () if body is None else (body,)


def _asked_of_them(folded: str, asked: re.Match[str]) -> str:
    """The request put to the person, in the second person, after the fact said first:
    "We've got no bread, could you pick some up on your way home?"."""
    start, end = asked.span("body")
    said = folded[start:end].strip(" .!?")
    for third, second in _TO_YOU_VERBS:
        said = re.sub(third, second, said, flags=re.IGNORECASE)
    words = [_TO_YOU.get(w.lower(), w) for w in said.split()]
    question = f"could you {' '.join(words)}?"
    fact = _fact_before(folded, asked)
    if not fact:
        return question[0].upper() + question[1:]
    return f"{fact[0].upper()}{fact[1:]}, {question}"


def _fact_before(folded: str, asked: re.Match[str]) -> str:
    """What was said before the asking, unless it is a command of its own ("switch the
    heater on, and text Sam and ask him to …": the heater is no part of the message)."""
    fact = folded[: asked.start()].strip(" ,;.!")
    return "" if re.match(_COMMAND, fact, re.IGNORECASE) else fact


def _only_polite(body: str) -> bool:
    return set(body.strip(" .!?").split()) <= _POLITE


_COMMAND = (
    r"(?:please\s+)?(?:turn|switch|open|close|shut|lock|unlock|dim|brighten|set|start|stop"
    r"|pause|resume|play|raise|lower|mute"
    # "send Sam a message saying breakfast is ready, and get the bedroom blinds open"
    # (reworded multi-blinds-and-message~r7: the blinds went into the message)
    r"|get)\b"
)
_THEN_A_COMMAND = re.compile(
    rf"(?:\s*[,;]\s*(?:and\s+)?(?:then\s+)?|\s+and\s+(?:then\s+)?|\s+then\s+)(?={_COMMAND})",
    re.IGNORECASE,
)


_WHEN = r"(?:when|whenever|once|as soon as|before|after|if)\b"
"""A told fact that opens with "when …": the command after its comma is the person's
("send Sam a message saying: when you get up, open the bedroom blinds please", reworded
message-asks-someone-else~r6: the 0.5B sent "when you get up" and opened the blinds)."""


def _before_next_command(body: str) -> str:
    """A told fact ends where a command for the home follows it: "tell Min-ji dinner is
    ready and turn off the fairy lights" tells "dinner is ready" (tests/security
    test_exactly_once). An instruction to the person ("tell Sam to open the blinds and
    close the door") is theirs to the end."""
    if re.match(_COMMAND, body, re.IGNORECASE) or re.match(_WHEN, body, re.IGNORECASE):
        return body
    found = _THEN_A_COMMAND.search(body)
    return body[: found.start()] if found else body


def with_request_content(
    call: Tool, text: str, now: datetime, language: str, recipient_names: tuple[str, ...] = ()
) -> Tool:
    """The call with the request's own span where the code finds one that differs from the
    model's (a list item that is one of several said stays the model's: one call per item)."""
    if _base(language) != "en":
        return call
    field, span = _span(call, text, now, language, recipient_names)
    if span is None:
        return call
    arguments = call.model_dump(exclude_none=True, mode="json")
    said = _plain(str(arguments.get(field, "")))
    if said == _plain(span):
        return call
    if isinstance(call, AddTodoItem) and said in {_plain(p) for p in _parts(span)}:
        return call
    arguments[field] = span
    try:
        return parse_tool_call(call.name, arguments)
    except ToolCallError:
        return call


def _span(
    call: Tool, text: str, now: datetime, language: str, recipient_names: tuple[str, ...]
) -> tuple[str, str | None]:
    if isinstance(call, AddTodoItem):
        return "item", list_item(text) or needed_items(text)
    if isinstance(call, CreateEvent):
        return "summary", event_title(text, now, language)
    if isinstance(call, SendMessage | CreateNotification):
        return "message", message_body(text, recipient_names)
    return "", None


def settled_content(
    tool: str, text: str, now: datetime, language: str, recipient_names: tuple[str, ...] = ()
) -> tuple[str, str] | None:
    """The field and text a call of `tool` would end with whatever the model writes there
    (`with_request_content` puts the request's span in its place): a message's body, an
    event's title, the one item to add. None where the model's words would stay: another
    language, no span found, several items (one call each), or a tag mark in the span."""
    if _base(language) != "en":
        return None
    if tool in {"send_message", "create_notification"}:
        field, span = "message", message_body(text, recipient_names)
    elif tool == "create_event":
        title = event_title(text, now, language)
        field, span = "summary", title[:1].upper() + title[1:] if title else None
    elif tool == "add_todo_item":
        item = list_item(text) or needed_items(text)
        field, span = "item", item if item and len(_parts(item)) == 1 else None
    else:
        return None
    if not span or "<" in span or ">" in span:
        return None
    return field, span


def spans_of_content(text: str, recipient_names: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The stretches of the request that are what a message says, what a reminder is for, or
    what goes on a list: data for that call, never words that ask for another ("let Sam
    know the porch light is on" asks for no light). Only the plain shapes `message_body`,
    `list_item`, `needed_items` and a reminder's "to …" read; English."""
    spans = (list_item(text), needed_items(text), reminder_of(text))
    return (*_message_spans(text, recipient_names), *(span for span in spans if span))


def reminder_of(text: str) -> str | None:
    """ "remind me at 9 to turn off the heater" -> "turn off the heater": what to be
    reminded of, as said (times included); None without that shape."""
    reminder = _REMINDER.search(_folded(text))
    return reminder.group("what") if reminder is not None else None


def without_spans(text: str, spans: tuple[str, ...]) -> str:
    """The text with each span taken out, whatever its case and spacing."""
    for span in spans:
        pattern = r"\s+".join(re.escape(word) for word in span.split())
        text = re.sub(pattern, " ", text, flags=re.IGNORECASE)
    return " ".join(text.split())


def needed_items(text: str) -> str | None:
    """ "we need eggs and flour, can you note that on the shopping list" -> "eggs and flour":
    what is needed, which "that" points back to (dev: todo-note-two)."""
    found = _NEEDED.search(_folded(text))
    if found is None:
        return None
    span = _ARTICLES.sub("", found.group("item").strip(" ,.")).strip()
    span = span.removeprefix("both ")  # "out of both butter and cheese"
    return None if not span or set(span.split()) & _POINTING else span


def items_said(text: str) -> list[str]:
    """Each item the request asks to add ("add milk and eggs to the list", "we need eggs and
    flour, … note that on the list"); [] where no such shape is found."""
    span = list_item(text) or needed_items(text)
    if span is None:
        return []
    return [_ARTICLES.sub("", p.strip()) for p in _parts(span) if p.strip()]


def separate_items(item: str, text: str) -> list[str]:
    """ "eggs and flour" as two items, when each was said in the request: HA adds one item
    per call, and a list of two as one item is neither (dev: todo-note-two). A name with
    "and" in it ("salt and pepper crisps") comes apart too: the rarer reading loses."""
    # "the eggs and flour": each part as the request says it, without its article
    parts = [_ARTICLES.sub("", p.strip()) for p in _parts(item) if p.strip()]
    said = _plain(text)
    if len(parts) < 2 or not all(_plain(p) and _plain(p) in said for p in parts):
        return [item]
    return parts


def _parts(span: str) -> list[str]:
    # "eggs plus flour" (reworded todo-note-two~r9: added as one item)
    return [p for p in re.split(r",\s*|\s+(?:and|plus)\s+", span) if p]


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s'-]", " ", text.casefold()).split())


def _folded(text: str) -> str:
    return " ".join(text.casefold().replace("\u2019", "'").split())


def _base(language: str) -> str:
    return language.replace("_", "-").split("-", 1)[0].lower()
