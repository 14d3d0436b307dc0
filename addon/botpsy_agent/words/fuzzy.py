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

from collections import Counter
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
class _Name:
    """One of the home's names, with what comparing a word run to it needs."""

    text: str
    letters: dict[str, int]
    mask: int
    matcher: SequenceMatcher[str]
    """A matcher that has read the name already (its index of a name cost more than the
    comparison, once per name and run)."""


@dataclass(frozen=True)
class _Names:
    """The home's names as they are compared, worked out once per set of names."""

    exact: frozenset[str]
    known: frozenset[str]
    """Every word of a name: a run of these alone is no misspelling."""
    by_size: dict[int, dict[int, tuple[_Name, ...]]]
    """Names by their number of words, then by their number of characters: a run is
    compared only with names about as long as itself."""


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
    by_size: dict[int, dict[int, list[_Name]]] = {}
    for name in names:
        joined = " ".join(name)
        found = _Name(joined, Counter(joined), _mask(joined), SequenceMatcher(None, "", joined))
        by_size.setdefault(len(name), {}).setdefault(len(joined), []).append(found)
    return _Names(
        exact=frozenset(" ".join(n) for n in names),
        known=frozenset(word for name in names for word in name),
        by_size={
            size: {length: tuple(found) for length, found in by_length.items()}
            for size, by_length in by_size.items()
        },
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
                close = _the_close_name(run, names.by_size[size])
                if close is not None:
                    out[i : i + size] = close.split()
            i += 1
    return out


def _the_close_name(run: str, by_length: dict[int, tuple[_Name, ...]]) -> str | None:
    """The one name close to `run`; None when none is, or more than one."""
    letters, mask = Counter(run), _mask(run)
    found = None
    for length, candidates in by_length.items():
        if abs(len(run) - length) > max(length // 5, 1):
            continue  # too long or short to be within the ratio: skip the comparisons
        size = len(run) + length  # difflib's ratio is 2 * matches / size
        for name in candidates:
            # a bound first: each letter one has and the other lacks cannot match (from bit
            # masks, cheap), then difflib's quick_ratio and ratio
            most = min(
                len(run) - (mask & ~name.mask).bit_count(),
                length - (name.mask & ~mask).bit_count(),
            )
            if 2.0 * most / size < NAME_SIMILARITY or not _close(run, letters, size, name):
                continue
            if found is not None:
                return None
            found = name.text
    return found


def _close(run: str, letters: Counter[str], size: int, name: _Name) -> bool:
    shared = sum(min(count, name.letters.get(letter, 0)) for letter, count in letters.items())
    if 2.0 * shared / size < NAME_SIMILARITY:  # difflib's quick_ratio, letters counted once
        return False
    name.matcher.set_seq1(run)
    return name.matcher.ratio() >= NAME_SIMILARITY


def _mask(text: str) -> int:
    """A bit for each letter `text` has (letters may share a bit: it only weakens a bound)."""
    bits = 0
    for letter in text:
        bits |= 1 << (ord(letter) & 127)
    return bits
