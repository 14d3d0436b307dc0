"""Which way a request wants its covers to go: open or closed.

A small model opens a window it was asked to close ("check whether the kitchen window is
open and close it if it is" opened it: `tests/realmodel`), or stops one that "should not
stay open". The words that say what to do are verbs; the same words after "is", "stay" or
"left" say how a cover is, not what to do with it, and a state that must not last asks for
the other way. Matched as whole words in en and id (Indonesian's state is a word of its
own: "terbuka"), as substrings in ko (whose endings attach: "열어" open!, "열려" is open).
"""

from __future__ import annotations

from collections.abc import Mapping

from botpsy_agent.words.phrasing import phrase_matcher
from tool_schemas.base import Tool
from tool_schemas.devices import ControlCover

OPEN, CLOSED = 1, -1
STATE = 0
"""Words that say how a cover is: no way of their own."""

_STATES_EN = ("is", "are", "be", "stay", "stays", "remain", "still", "left")

COVER_WAYS: Mapping[str, Mapping[str, int]] = {
    "en": {
        **dict.fromkeys(("open", "raise"), OPEN),
        **dict.fromkeys(("close", "shut", "lower"), CLOSED),
        **{f"{s} {w}": STATE for s in _STATES_EN for w in ("open", "closed", "shut")},
        **{
            f"not {s} {w}": CLOSED if w == "open" else OPEN
            for s in ("be", "stay", "remain", "be left")
            for w in ("open", "closed", "shut")
        },
    },
    "ko": {
        "열어": OPEN,
        "열고": OPEN,
        "닫아": CLOSED,
        "닫고": CLOSED,
        "열려": STATE,
        "닫혀": STATE,
    },
    "id": {"buka": OPEN, "bukakan": OPEN, "tutup": CLOSED, "tutupkan": CLOSED},
}

_ASKS_HOW_IT_IS = ("is ", "are ", "was ", "were ")
_MATCHERS = {language: phrase_matcher(language, ways) for language, ways in COVER_WAYS.items()}


def said_cover_way(text: str, language: str) -> int | None:
    """OPEN or CLOSED when the request says one way for its covers; None when it says both
    ("open the blinds and close the window") or neither."""
    base = language.replace("_", "-").split("-", 1)[0].lower()
    matcher = _MATCHERS.get(base)
    if matcher is None:
        return None
    folded = text.casefold().replace("\u2019", "'").replace("n't", " not")
    folded = " ".join(folded.replace("'s ", " is ").split())  # "it's open": how it is
    if base == "en" and folded.startswith(_ASKS_HOW_IT_IS):
        return None  # "is the kitchen window open?": how it is, whatever the word order
    ways = {COVER_WAYS[base][m.group()] for m in matcher.finditer(folded)} - {STATE}
    return next(iter(ways)) if len(ways) == 1 else None


def cover_way_of(call: Tool) -> int | None:
    """Which way a cover call moves its covers: OPEN, CLOSED, STATE for a stop; None for a
    position between (the request's own number, not for this check)."""
    if not isinstance(call, ControlCover):
        return None
    if call.action == "set_position":
        return {100: OPEN, 0: CLOSED}.get(call.position) if call.position is not None else None
    return {"open": OPEN, "close": CLOSED, "stop": STATE}[call.action]
