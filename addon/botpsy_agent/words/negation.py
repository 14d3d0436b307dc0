"""What a request negates, taken out before grounding reads its words (issue 25, finding 4).

"don't turn off the security cameras" said `off` and "security cameras": grounding found a
kind and a target, and a planted instruction read in the same turn switched the cameras
off. A negation scopes over the rest of its clause, so the words it negates name nothing:

* en, id: from the negation word ("don't", "never", "not", "jangan", "tidak" …) to the end
  of its clause: punctuation, or a word starting a new one ("and", "but", "just", "dan" …);
* ko: from the clause's start to a negating ending after the verb ("끄지 마", "하지마",
  "켜지 말아요"), a clause starting after a connective ending ("켜고"); and the word after
  "안" / "못" ("안 꺼").

"don't forget to …" negates nothing. Grounding and narrowing read the same words, so a
negated kind or target is neither offered to the model nor grounds its call. The fast
path's templates match whole sentences and none holds a negation, so "don't turn off X"
is not recognised there (tests/security/test_negation.py holds it to that).
"""

from __future__ import annotations

import re

from botpsy_agent.words.grounding_words import (
    CLAUSE_WORDS,
    KO_CLAUSE_ENDS,
    NEGATION_ENDINGS,
    NEGATIONS,
    NOT_NEGATING,
)

_CLAUSE_MARKS = re.compile(r"[,.;:!?\n]+")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'"})


def affirmed(text: str, language: str) -> str:
    """The request with every negated stretch taken out (clauses joined by commas)."""
    clauses = _CLAUSE_MARKS.split(text.translate(_APOSTROPHES))
    if language == "ko":
        kept = [_korean_affirmed(clause) for clause in clauses]
    else:
        kept = [_affirmed_clause(clause.split(), language) for clause in clauses]
    return ", ".join(clause for clause in kept if clause)


def _bare(word: str) -> str:
    return re.sub(r"[^\w']", "", word.casefold())


def _cue_length(words: list[str], at: int, language: str) -> int:
    """How many words a negation starting at `at` takes (0: none starts there)."""
    for cue in sorted(NEGATIONS.get(language, ()), key=len, reverse=True):
        parts = cue.split()
        if [_bare(w) for w in words[at : at + len(parts)]] == parts:
            following = _bare(words[at + len(parts)]) if at + len(parts) < len(words) else ""
            if following in NOT_NEGATING.get(language, ()) or _a_lack(words[at + len(parts) :]):
                return 0
            return len(parts)
    return 0


_HEDGES = frozenset({"quite", "really", "very"})


def _a_lack(following: list[str]) -> bool:
    """ "not (quite) warm enough" and "not enough light" say there is too little and ask for
    more, they negate no request (reworded warmer-living-room~r7: only the blinds were
    offered; too-dark-kitchen~r10: a step up was asked about, not made)."""
    bare = [_bare(w) for w in following[:3]]
    if bare and bare[0] in _HEDGES:
        bare = bare[1:]
    return (len(bare) >= 2 and bare[1] == "enough") or bare[:1] == ["enough"]


def _affirmed_clause(words: list[str], language: str) -> str:
    kept: list[str] = []
    negated, at = False, 0
    while at < len(words):
        if _bare(words[at]) in CLAUSE_WORDS.get(language, ()):
            negated = False
        if cue := _cue_length(words, at, language):
            negated, at = True, at + cue
            continue
        if not negated:
            kept.append(words[at])
        at += 1
    return " ".join(kept)


def _korean_affirmed(clause: str) -> str:
    """Korean: the part up to a negating ending is negated back to the last connective;
    a word after 안/못 is negated."""
    words = clause.split()
    kept: list[str] = []
    skip_next = False
    for word in words:
        if skip_next:
            skip_next = False
            continue
        if word in NEGATIONS["ko"]:
            skip_next = True
            continue
        kept.append(word)
        if _ends_negated(kept):
            kept = _before_last_connective(kept)
    return " ".join(kept)


def _ends_negated(words: list[str]) -> bool:
    """Do the words so far end in a negating ending ("끄지 마", "끄지마세요")? The ending may
    be split from its verb by a space; an earlier one was taken out when it came."""
    tail = "".join(words[-2:])
    return any(ending in tail for ending in NEGATION_ENDINGS["ko"])


def _before_last_connective(words: list[str]) -> list[str]:
    """The words before the negated clause: up to and with the last word ending in a
    connective ("켜고"), none if there is none."""
    for position in range(len(words) - 2, -1, -1):
        if words[position].endswith(KO_CLAUSE_ENDS) and not _has_ending(words[position]):
            return words[: position + 1]
    return []


def _has_ending(word: str) -> bool:
    return any(ending in word for ending in NEGATION_ENDINGS["ko"])
