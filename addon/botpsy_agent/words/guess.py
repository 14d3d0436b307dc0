"""HA's own fallback reader (gazetteer-matcher), behind the strict templates: a phrasing no
template has ("I need the lights on in the office") read by finding the home's names and
HA's words for actions in the sentence, as HA's default agent does after hassil.

What it reads is a guess, as a model's call is. The fast path keeps a guess only when every
word it did not explain is a filler, and only as calls on harmless kinds of device or reads
(as for a mended sentence); the agent then carries it out only if the request's own words
ask for every call, by the checks the model's calls pass (docs/decisions.md D96). English
only: the matcher has no other vocabulary.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
import re
import threading
from typing import Any

from gazetteer_matcher import GazetteerMatcher, Home as Gazetteer

from botpsy_agent.home import Home
from botpsy_agent.words import fuzzy

LANGUAGE = "en"

FILLERS = frozenset(
    {
        # the fillers a mended sentence drops, word by word
        *(word for phrase in fuzzy.FILLERS[LANGUAGE] for word in phrase.split()),
        # "I want the … on", "I need a timer for 15 minutes" (bench dev part)
        *("i", "we", "want", "need", "the", "my", "our", "a"),
    }
)
"""The only words a guess may leave unexplained. Anything else (a "don't", a name, "remind
me", "tomorrow", "7 pm", "when I get home") may change what was asked: the model has it."""


@dataclass(frozen=True)
class Frame:
    """One command of the sentence as the matcher read it: HA's intent, its slots (entity
    ids for names, area and floor ids) and the key of HA's answer to it."""

    intent: str
    slots: Mapping[str, Any]
    response_key: str


class Reader:
    """The matcher over one home's names, rebuilt for the first guess after the names
    change (its data files, read once, are kept: 1.5 s the first time, 0.1 s after)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key = ""
        self._matcher: GazetteerMatcher | None = None

    def prepare(self, home: Home) -> None:
        """Read the matcher's data files now (at start), not in the first request that needs
        them. A change of names is left to the next guess: a home that grows by hundreds of
        devices changes its names hundreds of times."""
        if self._matcher is None:
            self._matcher_for(home)

    def frames(self, text: str, home: Home, area_id: str | None) -> tuple[Frame, ...] | None:
        """Each command the sentence says, or None when the matcher reads none, reads one
        it would not answer, or leaves a word unexplained that is not a filler."""
        matcher = self._matcher_for(home)
        room = area_id if area_id in home.areas else None
        try:
            reading = matcher.interpret(text, context_area=room)
        except ValueError:
            return None
        if not reading.accepted or not reading.frames:
            return None
        frames: list[Frame] = []
        for frame in reading.frames:
            unexplained = (
                *frame.unexplained_important_tokens,
                *frame.unexplained_unimportant_tokens,
            )
            words = {_word(reading.tokens[i]) for i in unexplained}
            if frame.response_key is None or not words <= FILLERS:
                return None
            frames.append(Frame(frame.intent, dict(frame.slots), frame.response_key))
        return tuple(frames)

    def _matcher_for(self, home: Home) -> GazetteerMatcher:
        with self._lock:
            if self._matcher is None or self._key != home.names_key:
                previous = self._matcher
                if previous is None:
                    self._matcher = GazetteerMatcher(home=gazetteer_of(home))
                else:
                    config = previous.config
                    self._matcher = GazetteerMatcher(
                        home=gazetteer_of(home),
                        vocabulary=config.vocabulary,
                        intents=config.intents,
                        responses=config.responses,
                    )
                _read_as_said(self._matcher)
                self._key = home.names_key
            return self._matcher


def _read_as_said(matcher: GazetteerMatcher) -> None:
    """Names, rooms, floors and verbs read only as said. A misspelt name is ours to mend
    (`fuzzy.mend`, tried before the reader) and a guess at a misspelling on top of a guess
    at the sentence is one guess too many; the near-matching was also two thirds of the
    reader's time (p95 8 ms of a recognition's 14 on the bench's house). The matcher has no
    setting for it (gazetteer-matcher 1.1.0): with no batch to match against, its tagger
    skips the near-matching (`test_the_fallback_reader_reads_words_only_as_said` fails if a
    later version stops honouring that)."""
    tagger = matcher.tagger
    tagger.action_batch = None
    tagger.fuzzy_batches = dict.fromkeys(tagger.fuzzy_batches)


def gazetteer_of(home: Home) -> Gazetteer:
    """The home as the matcher reads it: names and aliases, rooms, floors, kinds."""
    entities: dict[str, Any] = {}
    for entity in home.entities.values():
        names = list(dict.fromkeys(n for n in (entity.name, *entity.aliases) if n.strip()))
        if not names:
            continue
        spec: dict[str, Any] = {
            "name": names[0],
            "aliases": names[1:],
            "domain": entity.domain,
            "area": entity.area_id,
        }
        if entity.device_class:
            spec["device_class"] = entity.device_class
        entities[entity.entity_id] = spec
    return {
        "floors": {
            f.floor_id: {"name": f.name, "aliases": list(f.aliases)} for f in home.floors.values()
        },
        "areas": {
            a.area_id: {"name": a.name, "aliases": list(a.aliases), "floor": a.floor_id}
            for a in home.areas.values()
        },
        "entities": entities,
    }


def _word(token: Any) -> str:
    text = str(getattr(token, "text", token))
    return re.sub(r"[^\w']", "", text.casefold())
