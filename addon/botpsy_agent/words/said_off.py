"""A device the request says is off, then asks to get going: "I want to watch the living
room tv, the plug is off, get it going" asks to switch the plug on, whatever else the
model switches on for the TV (dev multi-plug-then-tv: the real 1.5B turned on the TV and
left the plug off; reworded: "… but the plug's switched off, can you get it working").

Only that shape: a state "is off" said of a device the words name, and after it a verb
with a word pointing back ("get it going", "sort it out", "switch them on"). "The hall light
is off, turn on the kitchen light" names no such "it", and "… leave it" asks nothing:
nothing is added; "the plug" said where two plugs are named adds neither. English only.
"""

from __future__ import annotations

import re

from botpsy_agent.home import Home
from botpsy_agent.words import grounding, negation

_OFF_THEN_IT = re.compile(
    r"(?P<thing>[^,.;]+?)(?:'s|\s+is|\s+are)\s+(?:switched\s+|turned\s+)?off\b"
    r"(?P<rest>.*\b(?P<ask>(?:get|sort|fix|turn|switch|power)\s+(?:it|them|things))\b.*)$"
)
"""The state, then a verb asking to get it going: "get it going", "sort it out", "switch
them on", "turn things on" (reworded multi-plug-then-tv~r9: the 1.5B left the plug off);
not "leave it"."""
_CLAUSE_BREAK = re.compile(r"\b(?:and|but|because|so)\b")


def said_off_then_asked(request: grounding.Request, home: Home) -> frozenset[str]:
    """The entities the request names and says are off (the word the state is said of is
    the last of their name: "the plug" of the "TV plug", not of the "Living room TV"), when
    a verb after it asks, by "it", to get them going."""
    if request.base_language != "en":
        return frozenset()
    found = _OFF_THEN_IT.search(_folded(request.text))
    if found is None or found.group("ask") not in _folded(negation.affirmed(request.text, "en")):
        return frozenset()  # "the plug is off, don't turn it on": negated, nothing asked
    said = _CLAUSE_BREAK.split(found.group("thing"))[-1].split()
    if not said:
        return frozenset()
    head = _singular(said[-1])
    so_called = frozenset(
        e
        for e in grounding.named_entities(request, home)
        if any(_singular(name.casefold().split()[-1]) == head for name in _names(home, e))
    )
    # "The plug" is one plug: where the words fit two, which one is a guess, never made.
    return so_called if len(so_called) == 1 or head != said[-1] else frozenset()


def _names(home: Home, entity_id: str) -> tuple[str, ...]:
    entity = home.entities[entity_id]
    return tuple(n for n in (entity.name, *entity.aliases) if n.strip())


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def _folded(text: str) -> str:
    return " ".join(text.casefold().replace("\u2019", "'").split())
