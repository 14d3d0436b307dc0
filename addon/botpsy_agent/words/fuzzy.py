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


_NAMES: dict[str, tuple[tuple[str, ...], ...]] = {}


def _home_names(home: Home) -> tuple[tuple[str, ...], ...]:
    """The home's names as word tuples, computed once per set of names."""
    found = _NAMES.get(home.names_key)
    if found is None:
        if len(_NAMES) >= 8:
            _NAMES.clear()
        found = _NAMES[home.names_key] = _names_of(home)
    return found


def _names_of(home: Home) -> tuple[tuple[str, ...], ...]:
    names = {
        *(n for e in home.entities.values() for n in (e.name, *e.aliases)),
        *(n for a in home.areas.values() for n in (a.name, *a.aliases)),
        *(n for f in home.floors.values() for n in (f.name, *f.aliases)),
    }
    return tuple(tuple(_words(n)) for n in sorted(names) if len(n.strip()) >= MIN_NAME_CHARS)


def _names_mended(words: list[str], names: tuple[tuple[str, ...], ...]) -> list[str]:
    """Each word run with a word the home's names do not have replaced by the one home name
    of its length it is close to."""
    exact = {" ".join(n) for n in names}
    known = {word for name in names for word in name}
    by_size: dict[int, list[str]] = {}
    for name in names:
        by_size.setdefault(len(name), []).append(" ".join(name))
    out = list(words)
    for size in sorted(by_size, reverse=True):
        i = 0
        while i + size <= len(out):
            run = " ".join(out[i : i + size])
            if run not in exact and not known.issuperset(out[i : i + size]):
                close = [n for n in by_size[size] if _close(run, n)]
                if len(close) == 1:
                    out[i : i + size] = close[0].split()
            i += 1
    return out


def _close(run: str, name: str) -> bool:
    if abs(len(run) - len(name)) > max(len(name) // 5, 1):
        return False  # too long or short to be within the ratio: skip the comparison
    matcher = SequenceMatcher(None, run, name)
    return matcher.quick_ratio() >= NAME_SIMILARITY and matcher.ratio() >= NAME_SIMILARITY
