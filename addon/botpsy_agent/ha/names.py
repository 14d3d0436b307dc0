"""Match what a person says ("the kitchen lights", "upstairs", "Min-ji's phone", "kichen
light") to entities, areas and floors of a `Home`. Pure functions; stdlib only.

    resolve(home, "the lights upstairs")        # any kind of target
    resolve_entity(home, "kichen light", domains={"light"})
    resolve_area(home, "the lounge")
    resolve_floor(home, "downstairs")

Each returns a `Resolution`: `found` with one `best` candidate, `ambiguous` with every
candidate that fits equally well (never a guess), or neither (nothing fits).

Matching is tolerant of case, punctuation, articles ("the", "my"), possessives ("Min-ji's"),
plurals ("lights") and small typos ("kichen"). Names and aliases are compared whole first; a
phrase that is an area or floor plus a kind of device ("the kitchen lights", "lights
upstairs") matches that area or floor with the device's domain, when no entity has that name.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from enum import StrEnum
import re
import unicodedata

from botpsy_agent.home.model import Home

MIN_SCORE = 0.8
"""Below this a name does not match at all."""
MARGIN = 0.04
"""Fuzzy candidates this close to the best are as good as the best: ambiguous."""

# Scores of exact matches, best first: ties among the best exact ones are ambiguous, and any
# exact match beats every fuzzy one (fuzzy scores stay below EXACT).
WHOLE = 1.0
"""The phrase is a name or alias."""
WHOLE_WITHOUT_SPACES = 0.99
"""Equal once spaces are ignored ("minji phone")."""
NAME_AND_DEVICE = 0.98
"""An entity's name plus a word for its kind ("the heatpump thermostat")."""
PLACE_AND_DEVICE = 0.975
"""An area or floor plus a kind of device ("the bedroom lights"): means all of them there."""
EXACT = 0.97
FUZZY_CAP = 0.96
DEVICE_WORD_PENALTY = 0.95
"""A near miss of a place or name with a device word ranks below a near miss of a whole name."""

_FILLER = frozenset({"the", "a", "an", "my", "our", "your", "his", "her", "their", "all", "s"})
_CONNECTORS = frozenset({"in", "on", "at", "of", "from", "for"})
DEVICE_WORDS = {
    "light": "light",
    "lamp": "light",
    "lighting": "light",
    "switch": "switch",
    "plug": "switch",
    "fan": "fan",
    "blind": "cover",
    "curtain": "cover",
    "shade": "cover",
    "shutter": "cover",
    "thermostat": "climate",
    "heating": "climate",
    "heater": "climate",
    "tv": "media_player",
    "television": "media_player",
    "speaker": "media_player",
    "lock": "lock",
    "vacuum": "vacuum",
    "sensor": "sensor",
    "temperature": "sensor",
    "calendar": "calendar",
}
"""Words that name a kind of device (after singularising), and the domain they mean."""


class Kind(StrEnum):
    ENTITY = "entity"
    AREA = "area"
    FLOOR = "floor"


ALL_KINDS = frozenset(Kind)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A target that fits what was said."""

    kind: Kind
    id: str
    """The entity id, area id or floor id."""
    matched: str
    """The name or alias that matched."""
    score: float
    """1.0 for an exact match; lower for fuzzy ones."""
    domain: str | None = None
    """For an area or floor named with a kind of device ("the kitchen lights"): its domain."""


@dataclass(frozen=True, slots=True)
class Resolution:
    """What a phrase resolved to: one candidate, several equally good ones, or none."""

    text: str
    candidates: tuple[Candidate, ...]
    """Best first; when ambiguous, every candidate that fits equally well."""

    @property
    def found(self) -> bool:
        return len(self.candidates) == 1

    @property
    def ambiguous(self) -> bool:
        return len(self.candidates) > 1

    @property
    def best(self) -> Candidate | None:
        """The one candidate, only when the phrase is not ambiguous."""
        return self.candidates[0] if self.found else None

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.candidates)


def resolve(
    home: Home,
    text: str,
    *,
    kinds: Collection[Kind] = ALL_KINDS,
    domains: Collection[str] | None = None,
    min_score: float = MIN_SCORE,
) -> Resolution:
    """Entities, areas or floors that `text` names. `domains` narrows the entities (and the
    device word of an area/floor phrase) to those domains."""
    query = normalize(text)
    if not query:
        return Resolution(text, ())
    kinds = frozenset(kinds)
    table = _names(home)
    candidates = [
        c for c in _match(query, table, kinds, domains, min_score) if c.score >= min_score
    ]
    if not any(c.score >= EXACT for c in candidates):
        candidates += _with_device_word(query, table, kinds, domains, min_score)
    return Resolution(text, _best(candidates))


def resolve_entity(home: Home, text: str, *, domains: Collection[str] | None = None) -> Resolution:
    return resolve(home, text, kinds={Kind.ENTITY}, domains=domains)


def resolve_area(home: Home, text: str) -> Resolution:
    return resolve(home, text, kinds={Kind.AREA})


def resolve_floor(home: Home, text: str) -> Resolution:
    return resolve(home, text, kinds={Kind.FLOOR})


def normalize(text: str) -> str:
    """Lower case, no accents or punctuation, no articles or possessive 's, singular words."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    text = re.sub(r"['\u2019]s\b", " ", text)  # possessive 's, straight or curly
    words = re.sub(r"[^\w]+|_", " ", text).split()
    return " ".join(_singular(w) for w in words if w not in _FILLER)


def _singular(word: str) -> str:
    if len(word) <= 3:
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def similarity(query: str, name: str, at_least: float = 0.0) -> float:
    """How well a normalised phrase matches a normalised name, from 0 to 1; 0 at once when
    cheap upper bounds show it cannot reach `at_least`."""
    if query == name:
        return WHOLE
    if query.replace(" ", "") == name.replace(" ", ""):
        return WHOLE_WITHOUT_SPACES
    query_words, name_words = query.split(), name.split()
    partial = 0.0
    if set(query_words) < set(name_words):
        # "the window" for "kitchen window": a partial name, never better than a near miss.
        partial = MIN_SCORE + 0.1 * len(query_words) / len(name_words)
    direct = SequenceMatcher(None, query, name)
    reordered = SequenceMatcher(None, " ".join(sorted(query_words)), " ".join(sorted(name_words)))
    best = partial
    for matcher in (direct, reordered):
        if matcher.real_quick_ratio() >= at_least and matcher.quick_ratio() >= at_least:
            best = max(best, matcher.ratio())
    return min(best, FUZZY_CAP)


# --- internals ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Name:
    kind: Kind
    id: str
    text: str
    """As HA has it."""
    key: str
    """Normalised."""
    domain: str | None


_cache: tuple[Home, tuple[_Name, ...]] | None = None


def _names(home: Home) -> tuple[_Name, ...]:
    """Every name and alias of the home, normalised once per snapshot."""
    global _cache  # noqa: PLW0603 - one-slot cache: the agent reads the same snapshot repeatedly
    if _cache is not None and _cache[0] is home:
        return _cache[1]
    names = [
        _Name(Kind.ENTITY, entity.entity_id, text, normalize(text), entity.domain)
        for entity in home.entities.values()
        for text in (entity.name, *entity.aliases)
    ]
    names += [
        _Name(Kind.AREA, area.area_id, text, normalize(text), None)
        for area in home.areas.values()
        for text in (area.name, *area.aliases, area.area_id)
    ]
    names += [
        _Name(Kind.FLOOR, floor.floor_id, text, normalize(text), None)
        for floor in home.floors.values()
        for text in (floor.name, *floor.aliases, floor.floor_id)
    ]
    table = tuple(n for n in names if n.key)
    _cache = (home, table)
    return table


def _match(
    query: str,
    table: Iterable[_Name],
    kinds: Collection[Kind],
    domains: Collection[str] | None,
    min_score: float,
) -> list[Candidate]:
    found = []
    for name in table:
        if name.kind not in kinds:
            continue
        if name.kind is Kind.ENTITY and domains is not None and name.domain not in domains:
            continue
        score = similarity(query, name.key, at_least=min_score * DEVICE_WORD_PENALTY)
        found.append(Candidate(name.kind, name.id, name.text, score))
    return found


def _with_device_word(
    query: str,
    table: Iterable[_Name],
    kinds: frozenset[Kind],
    domains: Collection[str] | None,
    min_score: float,
) -> list[Candidate]:
    """A name or place plus one word for a kind of device: "the family calendar" (that
    entity, if it is of that kind), "the kitchen lights", "lights upstairs" (that kind of
    device in that area or on that floor)."""
    words = query.split()
    device = {DEVICE_WORDS[w] for w in words if w in DEVICE_WORDS}
    if len(device) != 1:
        return []
    (domain,) = device
    if domains is not None and domain not in domains:
        return []
    rest = " ".join(w for w in words if w not in DEVICE_WORDS and w not in _CONNECTORS)
    if not rest:
        return []
    found = []
    for candidate in _match(rest, table, kinds, {domain}, min_score):
        exact = candidate.score >= EXACT
        if candidate.kind is Kind.ENTITY:
            score = NAME_AND_DEVICE if exact else candidate.score * DEVICE_WORD_PENALTY
            found.append(replace(candidate, score=score))
        else:
            score = PLACE_AND_DEVICE if exact else candidate.score * DEVICE_WORD_PENALTY
            found.append(replace(candidate, score=score, domain=domain))
    return [c for c in found if c.score >= min_score]


def _best(candidates: list[Candidate]) -> tuple[Candidate, ...]:
    """The best exact matches (ties are ambiguous), else every fuzzy match within `MARGIN` of
    the best; one candidate per target."""
    if not candidates:
        return ()
    top = max(c.score for c in candidates)
    cutoff = top if top >= EXACT else top - MARGIN
    best: dict[tuple[Kind, str, str | None], Candidate] = {}
    for candidate in sorted(candidates, key=lambda c: (-c.score, c.kind, c.id, c.matched)):
        key = (candidate.kind, candidate.id, candidate.domain)
        if candidate.score >= cutoff and key not in best:
            best[key] = candidate
    return tuple(best.values())
