"""Whether a request asks a media player to go on playing: "pick up where the kids speaker
left off", "get it going again from where it paused". A small model stops, pauses or
switches off a player asked to go on (reworded followup-speaker-louder~r7: turned on and
left idle; ~r9: switched off, then stopped). English only.
"""

from __future__ import annotations

from collections.abc import Mapping

from botpsy_agent.words.phrasing import phrase_matcher

RESUMING: Mapping[str, tuple[str, ...]] = {
    "en": (
        *("pick up where", "where it left off", "where we left off", "where it paused"),
        *("going again", "carry on playing", "resume", "unpause"),
    ),
}
"""Words that ask a player to go on playing, whatever else the request says."""

_MATCHERS = {language: phrase_matcher(language, words) for language, words in RESUMING.items()}


def says_resume(text: str, language: str) -> bool:
    """Does the request ask a player to go on playing?"""
    matcher = _MATCHERS.get(language.replace("_", "-").split("-", 1)[0].lower())
    if matcher is None:
        return False
    return matcher.search(" ".join(text.casefold().replace("\u2019", "'").split())) is not None
