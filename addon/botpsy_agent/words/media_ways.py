"""Whether a request asks a media player to go on playing: "pick up where the kids speaker
left off", "get it going again from where it paused". A small model stops, pauses or
switches off a player asked to go on (reworded followup-speaker-louder~r7: turned on and
left idle; ~r9: switched off, then stopped). The words are `RESUMING`, the ones that name
the player's kind of action too. English only.
"""

from __future__ import annotations

from botpsy_agent.words.grounding_words import RESUMING
from botpsy_agent.words.phrasing import phrase_matcher

_MATCHERS = {language: phrase_matcher(language, words) for language, words in RESUMING.items()}


def says_resume(text: str, language: str) -> bool:
    """Does the request ask a player to go on playing?"""
    matcher = _MATCHERS.get(language.replace("_", "-").split("-", 1)[0].lower())
    if matcher is None:
        return False
    return matcher.search(" ".join(text.casefold().replace("\u2019", "'").split())) is not None
