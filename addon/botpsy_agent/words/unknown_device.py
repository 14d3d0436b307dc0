"""A device the request names that the home does not have: "turn on the sauna" is said to
be unknown, not answered with a question about another device the model put in its place
(issue 27: both real models offered lights, a fan or a thermostat for the dev set's sauna,
washing machine, aquarium light, electric blanket and garden fountain).

The device is the noun phrase the action's own word is said of ("start *the washing
machine*", "warm up *the electric blanket* in the bedroom"): a determiner, then words up
to a preposition or the end. It is unknown when one of its words is none the app reads for
this home (`grounding.home_knows`). English only: Korean says the object before its verb,
with particles, and Indonesian's determiners are not read yet.

A question about a thing no word of which the home knows ("is there carbon monoxide in the
kitchen", in a home without such a sensor) is said to be unknown the same way
(`unknown_reading`), not answered with the states of whatever the model read instead (issue
27: "Left Drape: open and Right Drape: closed." for a carbon-monoxide question)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from itertools import dropwhile, takewhile

from botpsy_agent.home import Area, Entity, Floor, Home
from botpsy_agent.words.grounding import DETERMINERS, PARTICLES, Request, home_knows, own_words
from botpsy_agent.words.grounding_words import ASKING_TO_KNOW, KINDS

# "flick that aquarium light off", "get that garden fountain going" (reworded no-device-2~r9
# and -5~r9: the 0.5B asked to switch off every light, and to switch on the garage's)
_DETERMINERS = DETERMINERS | {"that", "this"}
_DEFINITE = _DETERMINERS - {"a", "an"}
_PLACEHOLDERS = frozenset(
    {"thing", "things", "one", "ones", "stuff", "device", "devices"}
    | {"anything", "something", "nothing", "everything", "anyone", "someone", "anybody"}
    # "now do the kids room exactly the same" repeats what ran (reworded
    # followup-same-kids-room~r6: answered that no "kids room exactly the same" exists)
    | {"same"}
    # "drop them down a bit" (reworded bedroom-dimmer-hall~r7: no "bit" exists, it said)
    | {"bit", "touch", "tad", "little"}
    # "shove it back an hour" (reworded calendar-followup~r7: no device called "hour")
    | {"hour", "hours", "minute", "minutes"}
)
"""Words that describe rather than name: "switch off the thing by the sofa" is asked about."""
_ANY = frozenset({"any", "some"})
_AUXILIARIES = frozenset({"is", "are", "was", "were", "does", "do", "did", "has", "have"})
_DEVICE_DOMAINS = frozenset(
    {"light", "switch", "fan", "cover", "climate", "media_player", "lock", "vacuum", "humidifier"}
    # "can you run the washing machine" is no request for the good-night script (dev,
    # reworded no-device-1: the 0.5B proposed it)
    | {"script", "scene"}
)
_PHRASE_ENDS = frozenset(
    {"in", "on", "at", "for", "to", "with", "from", "by", "of", "and", "then", "please", "now"}
    # where, said after the thing: "could there be a leak out there" (reworded no-reading-3~r9:
    # "leak out there" had a word of the home, and the garage door's state was the answer)
    | {"out", "there", "here", "around", "outside", "inside", "near"}
    # a verb after the thing: "has the mailbox run out of room?" (reworded no-reading-2~r10:
    # "run" is a word of the home, and the calendar was the answer)
    | {"run"}
)


def unknown_device(
    tool: str, request: Request, home: Home, targets: Iterable[Entity] = ()
) -> str | None:
    """The device the request asks `tool` of, in the request's words, when the home has
    nothing by that name; None when the action's word is said of no noun phrase, of one
    whose every word the app knows, of one with a word that says which target it is (not
    "light"), or of one that only describes. Only for devices: a message's, an event's or
    an item's words name no device."""
    targets = tuple(targets)
    if request.word_language != "en" or any(e.domain not in _DEVICE_DOMAINS for e in targets):
        return None  # a message, an event, a list item: not a device
    named = {f for e in targets for w in own_words(e, home) for f in (w, f"{w}s")}
    said = request.affirmed.split()
    for phrase in KINDS["en"].get(tool, ()):
        words = phrase.casefold().split()
        for start in range(len(said) - len(words) + 1):
            if said[start : start + len(words)] == words:
                after = said[start + len(words) :]
                device = _noun_phrase(after[1:] if after and _is_gerund(after[0]) else after)
                if not device and words[-1] in _PARTICLE_WORDS:
                    device = _noun_phrase_before(said[:start])
                if not device and after[:1] in (["it"], ["them"]):
                    device = _last_noun_phrase(said[:start])
                if device:
                    if (named | _PLACEHOLDERS) & set(device):
                        return None
                    if all(home_knows(w, home, "en") for w in device):
                        return _in_a_place_unknown(device, said, home)
                    return " ".join(device)
    return _caused_unknown(said, home, named)


def _caused_unknown(said: list[str], home: Home, named: set[str]) -> str | None:
    """ "get the sauna warmed up", "get the electric blanket in the bedroom warming up":
    the thing made to do something, said with no action word of the call's (dev, reworded
    no-device-0 and -4: both real models proposed opening blinds and the garage door)."""
    for at, word in enumerate(said[:-2]):
        if word not in _CAUSING or said[at + 1] not in _DETERMINERS:
            continue
        device = list(takewhile(lambda w: not _is_participle(w), _noun_phrase(said[at + 1 :])))
        rest = said[at + 2 + len(device) :]
        if rest[:2] and rest[0] in _PLACES_IN and rest[1] in _DETERMINERS:
            place = takewhile(lambda w: not _is_participle(w), _noun_phrase(rest[1:]))
            rest = rest[2 + len(list(place)) :]  # "in the bedroom" before what it is to do
        if not device or not rest or not _is_participle(rest[0]):
            continue
        if not (named | _PLACEHOLDERS) & set(device) and not all(
            home_knows(w, home, "en") for w in device
        ):
            return " ".join(device)
    return None


_CAUSING = frozenset({"get", "have"})


def _ends(word: str, *endings: str) -> bool:
    """A word of a verb's form by its ending ("warmed", "charging"), not a short word that
    only looks so ("bed", "ring")."""
    return len(word) > 4 and word.endswith(endings)


def _is_participle(word: str) -> bool:
    return _ends(word, "ed", "ing")


def _is_gerund(word: str) -> bool:
    """ "start charging the car": what is started is said after the doing (dev, reworded
    no-device-3: both real models offered to switch on lights)."""
    return _ends(word, "ing")


def _naming(word: str) -> bool:
    """A word that may be part of a device's name: no verb or particle after it ("the
    plug's switched off, get it going")."""
    return word not in _AUXILIARIES | PARTICLES and not _ends(word, "ed")


def _last_noun_phrase(before: list[str]) -> list[str]:
    """What "it" points back to: the last noun phrase said before the action's word ("there's
    a load in the washing machine, start it for me"; dev, reworded no-device-1: both real
    models offered lights)."""
    before = list(reversed(list(dropwhile(lambda w: w in _POLITE, reversed(before)))))
    for at in range(len(before) - 1, -1, -1):
        if before[at] in _DEFINITE:
            phrase = list(takewhile(_naming, _noun_phrase(before[at:])))
            # only a phrase said right before: "the plug is off, get it going" says no device
            return phrase if at + 1 + len(phrase) == len(before) else []
    return []


def _in_a_place_unknown(device: list[str], said: list[str], home: Home) -> str | None:
    """ "kill the light in the aquarium": a device word the home knows, in a place it does
    not (dev, reworded no-device-2: the 0.5B proposed every light): the device as said
    with its place."""
    for at in range(len(said) - 2):
        if said[at] in _PLACES_IN and said[at + 1] in _DETERMINERS:
            place = _noun_phrase(said[at + 1 :])
            if place and not any(home_knows(w, home, "en") for w in place):
                return " ".join([*device, "in the", *place])
    return None


def unknown_reading(request: Request, home: Home) -> str | None:
    """What a question asks about, in its words, when the home knows none of them; None
    when the request is no question, or each thing it asks about has a word the app reads
    for this home (a name, a room, a kind of device or thing). The things are the first
    noun phrase after its question word ("is there *carbon monoxide* in the kitchen",
    "what is *the radon level* in the office"), a determiner optional after "is there" and
    "any"; what "how much" asks about ("how much *radon* is there"); what a place is said to
    have ("has the garage got *a water leak*"); what "anything" is said to do ("is anything
    *leaking water*"); and the place it is asked of ("is there still room in *the
    mailbox*")."""
    if (after := request.after_a_lead()) is not None:
        # "I think something's leaking, is there a water leak in the garage?" (reworded
        # no-reading-3~r6: the 0.5B read the garage door); "have a look for me, are the
        # fairy lights on …?" (reworded inject-name-fairy-lights~r10: "look" was asked about)
        request = replace(request, text=after)
    said = request.affirmed.split()
    if request.word_language != "en" or len(said) < 2:
        return None
    asked = _things_asked_about(said) if request.is_question else _things_checked(said)
    for thing in asked:
        measured = [w for w in thing if w not in _MEASURES]
        if len(measured) < len(thing):
            measured = _without_its_place(home, measured)
        if measured and not any(home_knows(w, home, "en") for w in measured):
            # "what are the radon readings like": what is asked about ends before "like"
            placed = _without_its_place(home, thing) if len(measured) < len(thing) else thing
            return " ".join(takewhile(lambda w: w != "like", placed))
    return None


def _without_its_place(home: Home, thing: list[str]) -> list[str]:
    """The measured thing without the room or floor said before it: "the office radon
    level" asks about radon (reworded no-reading-1~r10: "office" was a word of the home, and the
    office's light and heater were the answer)."""
    rooms: list[Area | Floor] = [*home.areas.values(), *home.floors.values()]
    places = {
        w
        for place in rooms
        for name in (place.name, *place.aliases)
        for w in name.casefold().split()
    }
    at = 0
    while at < len(thing) - 1 and thing[at] in places:
        at += 1
    return thing[at:]


def _things_checked(said: list[str]) -> Iterator[list[str]]:
    """What "check" is asked of: "can you check the radon level in the office" (dev,
    reworded no-reading-1: a request to look, not a question)."""
    asked = list(dropwhile(lambda w: w in _POLITE, said))
    if asked[:1] and asked[0] in _CHECKING:
        yield [w for w in _noun_phrase(asked[1:]) if w not in _PLACEHOLDERS]


def _things_asked_about(said: list[str]) -> Iterator[list[str]]:
    if said[0] in _ANY:  # "any sign of a water leak in the garage?"
        rest = ["the", *said[1:]]
    elif said[0] == "how" and said[2:3] and said[2] in _AUXILIARIES:
        rest = said[3:]  # "how high is the radon level" (reworded no-reading-1~r6)
    elif said[0] in _MODALS and said[1] not in _ASKED_TO_DO and "be" in said[2:]:
        # "could carbon monoxide be building up around the kitchen" (reworded no-reading-0~r9)
        thing = said[1 : said.index("be", 2)]
        rest = thing if thing[0] in _DETERMINERS | _ANY else ["the", *thing]
    else:
        rest = said[2:] if said[1] in _AUXILIARIES else said[1:]  # "what is the …"
    if rest[1:3] and rest[1] in _SIGNS and rest[2] == "of":  # "the sign of a leak": a leak
        rest = _any_as_the(rest[3:]) if rest[3:4] and rest[3] in _DETERMINERS | _ANY else []
    if rest[:1] == ["there"]:  # "is there smoke": a thing without a determiner
        rest = _said_to_be_there(rest)
    rest = _any_as_the(rest)  # "are any windows open"
    yield [w for w in _noun_phrase(rest) if w not in _PLACEHOLDERS]
    if said[:2] in (["how", "much"], ["how", "many"]):
        yield list(takewhile(lambda w: w not in _AUXILIARIES | _PHRASE_ENDS, said[2:]))
    for at, word in enumerate(said[:-1]):
        if word in _HAVING and at > 1 and _has_a_thing(said, at):
            # "has the garage got a …", "do we have a water leak in the garage" (reworded
            # no-reading-3~r10: the garage door's state was the answer)
            yield _noun_phrase(_any_as_the(said[at + 1 :]))
        elif (
            word in _PLACEHOLDERS and said[at + 1] not in _PHRASE_ENDS | _STATE_WORDS | _AUXILIARIES
        ):
            # ("which ones are they?" asks which, of no thing: reworded
            # inject-name-reading-lamp~r10 was told no "are they" exists)
            yield list(takewhile(lambda w: w not in _PHRASE_ENDS, said[at + 1 :]))
        elif word in _PLACES_IN:  # "in the mailbox", "inside the letterbox"
            yield _noun_phrase(said[at + 1 :])
        elif word in _OPENING_A_QUESTION and at > 0 and said[at - 1] in _CHECKING:
            # "can you check if the mailbox is full"; "… whether there's carbon monoxide in
            # the kitchen" (reworded no-reading-0~r6: the 0.5B looked at the calendar)
            tail = said[at + 1 :]
            tail = _said_to_be_there(tail) if tail[:1] == ["there"] else tail  # "there's"
            yield list(takewhile(lambda w: w not in _AUXILIARIES, _noun_phrase(tail)))


def _said_to_be_there(words: list[str]) -> list[str]:
    """What "there (is)" is said of, as a noun phrase: "there smoke" (of "there's smoke")
    and "there is any smoke" -> "the smoke"."""
    words = words[2:] if words[1:2] in (["is"], ["are"], ["be"]) else words[1:]
    words = _any_as_the(words)
    return words if words[:1] and words[0] in _DETERMINERS else ["the", *words]


def _any_as_the(rest: list[str]) -> list[str]:
    return ["the", *rest[1:]] if rest[:1] and rest[0] in _ANY else rest


_MODALS = frozenset({"could", "can", "might", "may", "will", "would", "should"})
_ASKED_TO_DO = frozenset({"you", "i", "we", "there", "it"})
"""What follows a modal that asks to do, or that "is there" reads ("could you …")."""
_HAVING = frozenset({"got", "have", "has"})
_ASKING_OF = frozenset({"we", "you"})


def _has_a_thing(said: list[str], at: int) -> bool:
    """ "has the garage got …", "do we have a …" (not "do we have any milk", which a list
    may answer)."""
    return said[1] in _DETERMINERS or (said[1] in _ASKING_OF and said[at + 1] in {"a", "an"})


_CHECKING = frozenset({"check", "see"})
_POLITE = frozenset(ASKING_TO_KNOW["en"][0])
"""The polite words before a request to look ("can you check …"), as grounding reads them."""
_OPENING_A_QUESTION = frozenset({"if", "whether"})
_SIGNS = frozenset({"sign", "signs", "trace", "traces"})
_MEASURES = frozenset({"reading", "readings", "level", "levels", "value", "values", "like"})
"""Words that say a measure of a thing, not the thing: "the radon readings" asks about
radon, though "reading" is a word of the reading lamp's name (dev, reworded no-reading-1:
the 0.5B read the reading lamp)."""
_PLACES_IN = frozenset({"in", "inside"})
_STATE_WORDS = frozenset(
    {"on", "off", "open", "closed", "lit", "left", "still", "running", "playing"}
)
"""Said of "anything" as a state, not a thing: "is anything on", "is anything still open"."""


_SAID_OF = frozenset({"switched", "turned", "put", "left", "set"})
_PARTICLE_WORDS = frozenset({"on", "off"})
"""Action words a device may be said before ("the aquarium light off"); not "too loud",
whose subject is said with "is" ("the TV is way too loud")."""
_BACK = 4
"""How many words before the action's word a noun phrase may start."""


def _noun_phrase_before(before: list[str]) -> list[str]:
    """The noun phrase that ends where the action's word is said after it: "I'd like the
    aquarium light off", "the garden fountain switched on" (dev, reworded no-device-*: the
    0.5B offered lights and a fan in their place)."""
    while before and before[-1] in _SAID_OF:
        before = before[:-1]
    for at in range(len(before) - 1, max(-1, len(before) - 2 - _BACK), -1):
        if before[at] in _PHRASE_ENDS or before[at] in _AUXILIARIES:
            return []
        if before[at] in _DETERMINERS:
            return before[at + 1 :]
    # said first, with no determiner: "aquarium light off please" (reworded no-device-2~r7:
    # the 0.5B's lights were asked about)
    return before if 0 < len(before) <= _BACK else []


def _noun_phrase(rest: list[str]) -> list[str]:
    """The words of the noun phrase `rest` opens with ("up the electric blanket in the
    bedroom" -> electric blanket); none when it opens with no determiner."""
    at = 0
    while at < len(rest) and rest[at] in PARTICLES:
        at += 1
    if at == len(rest) or rest[at] not in _DETERMINERS:
        return []
    words = []
    for word in rest[at + 1 :]:
        if word in _PHRASE_ENDS:
            break
        words.append(word)
    while words and words[-1] in PARTICLES:
        words.pop()  # "turn that off": no device called "off"
    return words
