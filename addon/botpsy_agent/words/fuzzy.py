"""The fast path's fallback: a sentence the strict templates miss only by a misspelt name or
a few filler words ("turn on the kitchn light please, thanks") is mended and matched again.

HA 2026.10's default agent falls back to a fuzzy matcher for such sentences. Ours mends the
text instead and runs the *same* strict recognition on it, so everything after (slots from
the home's names, resolution, the principal's scope, the policy, confirmation) is unchanged:

* a word run close to one of the home's names (entities, aliases, areas, floors; difflib
  ratio >= `NAME_SIMILARITY`, same number of words) is replaced by that name, when exactly
  one name is that close and the run has a word no name of the home has (a misspelling
  makes one; "마당 조명", the garden's lights, is a room and a word of the home's names,
  not a misspelt "마당 벽조명");
* filler words no template needs ("please", "thanks", "for me", ...) are dropped.

A mended match may only switch, dim or set devices that are harmless to get wrong
(`MENDABLE_DOMAINS`): never a lock, cover, alarm, valve, or anything but a device, so a
guess never opens a door or sends a message. Those go to the model, as before.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher
import re

from botpsy_agent.home import Home

NAME_SIMILARITY = 0.84
MIN_NAME_CHARS = 4
"""Shorter names are not mended: "tv" is one letter from too many words."""
MENDABLE_DOMAINS = frozenset(
    {"light", "switch", "fan", "media_player", "climate", "humidifier", "input_boolean"}
)
FILLERS = {
    "en": (
        "please",
        "thanks",
        "thank you",
        "for me",
        "right now",
        "now",
        "kindly",
        "just",
        "quickly",
        "hey",
        "ok",
        "okay",
        "could you",
        "can you",
        "would you",
    ),
}


def mend(text: str, language: str, home: Home) -> str | None:
    """The sentence with misspelt names put right and fillers dropped; None if unchanged."""
    words = _words(text)
    fillers = FILLERS.get(language.split("-", 1)[0].lower(), ())
    words = _without_fillers(words, fillers)
    words = _names_mended(words, _home_names(home))
    mended = " ".join(words)
    return mended if mended != " ".join(_words(text)) else None


def _words(text: str) -> list[str]:
    return re.sub(r"[^\w%°'-]+", " ", text.casefold()).split()


def _without_fillers(words: list[str], fillers: Iterable[str]) -> list[str]:
    text = f" {' '.join(words)} "
    for filler in sorted(fillers, key=len, reverse=True):
        text = text.replace(f" {filler} ", " ")
    return text.split()


@dataclass(frozen=True)
class _Names:
    """The home's names as they are compared, worked out once per set of names."""

    exact: frozenset[str]
    known: frozenset[str]
    """Every word of a name: a run of these alone is no misspelling."""
    by_size: dict[int, tuple[tuple[str, SequenceMatcher[str]], ...]]
    """Names by their number of words, each with a matcher that has read it already (the
    matcher's index of a name cost more than the comparison, once per name and run)."""


_NAMES: dict[str, _Names] = {}


def _home_names(home: Home) -> _Names:
    found = _NAMES.get(home.names_key)
    if found is None:
        if len(_NAMES) >= 8:
            _NAMES.clear()
        found = _NAMES[home.names_key] = _names_of(home)
    return found


def _names_of(home: Home) -> _Names:
    spoken = {
        *(n for e in home.entities.values() for n in (e.name, *e.aliases)),
        *(n for a in home.areas.values() for n in (a.name, *a.aliases)),
        *(n for f in home.floors.values() for n in (f.name, *f.aliases)),
    }
    names = [tuple(_words(n)) for n in sorted(spoken) if len(n.strip()) >= MIN_NAME_CHARS]
    by_size: dict[int, list[tuple[str, SequenceMatcher[str]]]] = {}
    for name in names:
        joined = " ".join(name)
        by_size.setdefault(len(name), []).append((joined, SequenceMatcher(None, "", joined)))
    return _Names(
        exact=frozenset(" ".join(n) for n in names),
        known=frozenset(word for name in names for word in name),
        by_size={size: tuple(found) for size, found in by_size.items()},
    )


def _names_mended(words: list[str], names: _Names) -> list[str]:
    """Each word run with a word the home's names do not have replaced by the one home name
    of its length it is close to."""
    out = list(words)
    for size in sorted(names.by_size, reverse=True):
        i = 0
        while i + size <= len(out):
            run = " ".join(out[i : i + size])
            if run not in names.exact and not names.known.issuperset(out[i : i + size]):
                close = [n for n, matcher in names.by_size[size] if _close(run, n, matcher)]
                if len(close) == 1:
                    out[i : i + size] = close[0].split()
            i += 1
    return out


def _close(run: str, name: str, matcher: SequenceMatcher[str]) -> bool:
    if abs(len(run) - len(name)) > max(len(name) // 5, 1):
        return False  # too long or short to be within the ratio: skip the comparison
    matcher.set_seq1(run)
    return matcher.quick_ratio() >= NAME_SIMILARITY and matcher.ratio() >= NAME_SIMILARITY
